"""The pictures of the release report, as inline SVG and colours: no file, no font, no request.

Drawn by hand rather than with matplotlib so the markup carries no ids, dates
or embedded fonts and is byte-identical for the same summary; its colours come
from the page's CSS classes (``bar``, ``ci``, ``grid``...), its text from the
page's font. Every string is escaped. Two charts: the drop ledger (one bar per
source and reason, grouped by source, largest first) and accuracy per variant
(one chart per baseline, variants grouped by script in the order of
:func:`builder.evaluation.plots.order_by_script`, with the interval drawn as a
whisker).

>>> heat(0, 10), heat(10, 10)
('#f6f8fa', '#0b4f9c')
>>> '<svg' in drops_chart([{"source": "race", "reason": "fill_in_blank", "count": 3}])
True
"""
from __future__ import annotations

import math
from typing import Sequence

from builder.evaluation.plots import order_by_script
from schemas.escape import for_html as escape

_ROW = 20  # px per bar row
_LABEL, _BAR = 230, 400  # px of the label column and of the bar area (drops)
_ACC_LABEL, _ACC_BAR = 150, 360  # the same for accuracy: two charts side by side on a laptop screen


def _n(x: float) -> str:
    """A coordinate: one decimal, no trailing zeros (``12.0`` -> ``12``)."""
    text = f"{x:.1f}"
    return text[:-2] if text.endswith(".0") else text


def _label(x: float, y: float, text: str, cls: str = "", anchor: str = "start", room: float | None = None) -> str:
    """Text at (x, y); one longer than fits before x = ``room`` is cut with an ellipsis (its <title> has it all)."""
    chars = 10**6 if room is None else max(2, int((room - x) / 7))
    shown = text if len(text) <= chars else text[:chars - 1] + "\u2026"
    full = f"<title>{escape(text)}</title>" if shown != text else ""
    attrs = f' class="{cls}"' if cls else ""
    attrs += f' text-anchor="{anchor}"' if anchor != "start" else ""
    return f'<text x="{_n(x)}" y="{_n(y)}"{attrs}>{full}{escape(shown)}</text>'


def _svg(width: float, height: float, label: str, body: list[str]) -> str:
    return (f'<svg class="chart" role="img" aria-label="{escape(label)}" width="{_n(width)}" '
            f'height="{_n(height)}" viewBox="0 0 {_n(width)} {_n(height)}">\n' + "\n".join(body) + "\n</svg>")


def missing(value) -> bool:
    """``None`` or NaN: a number the summary does not have."""
    return value is None or (isinstance(value, float) and math.isnan(value))


def drops_chart(drops: Sequence[dict]) -> str:
    """Horizontal bars of dropped records: a heading per source (with its total), a bar per reason."""
    by_source: dict[str, list[dict]] = {}
    for d in drops:
        by_source.setdefault(str(d["source"]), []).append(d)
    total = {s: sum(int(d["count"]) for d in ds) for s, ds in by_source.items()}
    top = max([int(d["count"]) for d in drops] + [1])
    body, y = [], 0
    for source in sorted(by_source, key=lambda s: (-total[s], s)):
        body.append(_label(0, y + 14, f"{source}: {total[source]:,} dropped", "group", room=_LABEL + _BAR))
        y += _ROW
        for d in sorted(by_source[source], key=lambda d: (-int(d["count"]), str(d["reason"]))):
            count = int(d["count"])
            width = _BAR * count / top
            body.append(_label(16, y + 14, str(d["reason"]), room=_LABEL - 6))
            body.append(f'<rect class="bar" x="{_LABEL}" y="{y + 3}" width="{_n(width)}" height="{_ROW - 6}"/>')
            body.append(_label(_LABEL + width + 6, y + 14, f"{count:,}", "value"))
            y += _ROW
        y += 6
    return _svg(_LABEL + _BAR + 70, y, "Dropped records by source and reason; the table below has the same numbers",
                body)


def accuracy_chart(variants: Sequence[dict], baseline: str, *, chance: float | None = None) -> str:
    """Accuracy of ``baseline`` per variant, grouped by script, with the interval as a whisker.

    ``chance`` (a share, e.g. 0.25 for four options) draws a dashed line.
    Variants without a score for ``baseline`` are left out.
    """
    rows = []
    for v in variants:
        for b in v["baselines"]:
            if b["baseline"] == baseline and not missing(b["accuracy"]):
                rows.append({"variant": str(v["variant"]), "script": str(v["script"]), "accuracy": b["accuracy"],
                             "ci_low": b.get("ci_low"), "ci_high": b.get("ci_high")})
    by_variant = {r["variant"]: r for r in rows}
    order = order_by_script(rows)
    top = 20  # the axis labels
    bottom = top + _ROW * (len(order) + len({r["script"] for r in rows}))
    left, span = _ACC_LABEL, _ACC_BAR
    body = []
    for tick in (0, 25, 50, 75, 100):
        x = left + span * tick / 100
        body.append(f'<line class="grid" x1="{_n(x)}" y1="{top - 4}" x2="{_n(x)}" y2="{bottom}"/>')
        body.append(_label(x, 12, f"{tick}%", "tick", "middle"))
    y, script = top, None
    for name in order:
        r = by_variant[name]
        if r["script"] != script:
            script = r["script"]
            group = [by_variant[n]["accuracy"] for n in order if by_variant[n]["script"] == script]
            body.append(_label(0, y + 14, f"{script}: mean {100 * sum(group) / len(group):.1f}%", "group",
                               room=left + span))
            y += _ROW
        acc, mid = r["accuracy"], y + _ROW / 2
        body.append(_label(16, y + 14, name, room=left - 6))
        body.append(f'<rect class="bar" x="{left}" y="{y + 4}" width="{_n(span * acc)}" height="{_ROW - 8}"/>')
        if not missing(r["ci_low"]) and not missing(r["ci_high"]):
            lo, hi = left + span * r["ci_low"], left + span * r["ci_high"]
            body.append(f'<path class="ci" d="M{_n(lo)} {_n(mid)}H{_n(hi)}M{_n(lo)} {_n(mid - 4)}V{_n(mid + 4)}'
                        f'M{_n(hi)} {_n(mid - 4)}V{_n(mid + 4)}"/>')
        body.append(_label(left + span + 8, y + 14, f"{100 * acc:.1f}%", "value"))
        y += _ROW
    if chance is not None:
        x = left + span * chance
        body.append(f'<line class="chance" x1="{_n(x)}" y1="{top - 4}" x2="{_n(x)}" y2="{y}"/>')
        body.append(_label(x + 4, y + 14, f"chance {100 * chance:.0f}%", "tick"))
        y += _ROW
    label = f"Accuracy of {baseline} per variant, grouped by script; the variants table has the same numbers"
    return _svg(left + span + 60, y + 4, label, body)


def heat(value: float, top: float) -> str:
    """Background of a heat-map cell: from light grey (0) to dark blue (``top``); text turns white past half."""
    t = 0.0 if top <= 0 else max(0.0, min(1.0, value / top))
    low, high = (246, 248, 250), (11, 79, 156)
    return "#" + "".join(f"{round(a + (b - a) * t):02x}" for a, b in zip(low, high))
