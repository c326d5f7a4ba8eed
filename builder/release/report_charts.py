"""The pictures of the release report, as inline SVG and colours: no file, no font, no request.

Drawn by hand rather than with matplotlib so the markup carries no ids, dates
or embedded fonts and is byte-identical for the same summary; its colours come
from the page's CSS classes (``bar``, ``ci``, ``grid``...), its text from the
page's font. Every string is escaped. Two charts: the drop ledger (one bar per
source and reason, grouped by source, largest first; the largest rows only when
there are many) and accuracy by script (one chart per baseline, one row per
script with the median, the middle half and the range of its variants: as tall
at 1,500 variants as at 20).

>>> heat(0, 10), heat(10, 10)
('#f6f8fa', '#0b4f9c')
>>> '<svg' in drops_chart([{"source": "race", "reason": "fill_in_blank", "count": 3}])
True
"""
from __future__ import annotations

import math
from typing import Sequence

from schemas.escape import for_html as escape

_ROW = 20  # px per bar row
_LABEL, _BAR = 230, 400  # px of the label column and of the bar area (drops)
_SCRIPT_LABEL, _SCRIPT_BAR, _SCRIPT_ROW = 150, 300, 16  # accuracy by script: two charts side by side at 1280 px


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


def drops_chart(drops: Sequence[dict], *, limit: int = 12) -> str:
    """Horizontal bars of dropped records: a heading per source (with its total), a bar per reason.

    Only the ``limit`` largest rows are drawn (a last line says how many are left to the table).
    """
    kept = sorted(drops, key=lambda d: (-int(d["count"]), str(d["source"]), str(d["reason"])))[:limit]
    left_out = len(drops) - len(kept)
    by_source: dict[str, list[dict]] = {}
    for d in kept:
        by_source.setdefault(str(d["source"]), []).append(d)
    total = {s: sum(int(d["count"]) for d in drops if str(d["source"]) == s) for s in by_source}
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
    if left_out:
        body.append(_label(0, y + 14, f"\u2026 and {left_out:,} smaller rows (in the table)", "tick"))
        y += _ROW
    return _svg(_LABEL + _BAR + 70, y, "Dropped records by source and reason; the drop ledger table has the same numbers",
                body)


def quantile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile of ``values`` (linear between the order statistics, as numpy's default).

    >>> quantile([1, 2, 3, 4], 0.5), quantile([1, 2, 3, 4], 0.25)
    (2.5, 1.75)
    """
    xs = sorted(values)
    pos = (len(xs) - 1) * q
    lo = math.floor(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def script_chart(groups: Sequence[dict], baseline: str, *, chance: float | None = None) -> str:
    """Accuracy of ``baseline`` per group of variants: one row per group, never one per variant.

    ``groups`` are ``{"label", "values", "derived"}`` in drawing order (``values`` are shares in 0..1);
    each row has the range (a line from the lowest to the highest variant), the middle half (a box
    from the first to the third quartile, from four variants up), the median (a dot, its value on the
    right) and the number of variants. Derived groups (romanized, projected...) come after a gap.
    ``chance`` draws a dashed line. The chart is as tall as the number of groups, whatever the number
    of variants.
    """
    top, left, span, row = 20, _SCRIPT_LABEL, _SCRIPT_BAR, _SCRIPT_ROW
    rows = [g for g in groups if g["values"]]
    gap = 8 if any(g.get("derived") for g in rows) and not all(g.get("derived") for g in rows) else 0
    bottom = top + row * len(rows) + gap
    body = []
    for tick in (0, 25, 50, 75, 100):
        x = left + span * tick / 100
        body.append(f'<line class="grid" x1="{_n(x)}" y1="{top - 4}" x2="{_n(x)}" y2="{bottom}"/>')
        body.append(_label(x, 12, f"{tick}%", "tick", "middle"))
    y, seen_derived = top, False
    for g in rows:
        if g.get("derived") and not seen_derived:
            seen_derived, y = True, y + gap
        values = [float(v) for v in g["values"]]
        med, lo, hi = quantile(values, 0.5), min(values), max(values)
        mid = y + row / 2
        tip = (f"{g['label']}: {len(values)} variant{'s' if len(values) != 1 else ''}, median {100 * med:.1f}%, "
               f"range {100 * lo:.1f}\u2013{100 * hi:.1f}%")
        body.append(f"<g><title>{escape(tip)}</title>")
        body.append(_label(0, y + 11.5, str(g["label"]), "derived" if g.get("derived") else "", room=left - 34))
        body.append(_label(left - 6, y + 11.5, f"{len(values)}", "tick", "end"))
        body.append(f'<path class="range" d="M{_n(left + span * lo)} {_n(mid)}H{_n(left + span * hi)}"/>')
        if len(values) >= 4:
            q1, q3 = quantile(values, 0.25), quantile(values, 0.75)
            body.append(f'<rect class="box" x="{_n(left + span * q1)}" y="{_n(mid - 4)}" '
                        f'width="{_n(span * (q3 - q1))}" height="8"/>')
        body.append(f'<circle class="dot" cx="{_n(left + span * med)}" cy="{_n(mid)}" r="3.5"/>')
        body.append(_label(left + span + 8, y + 11.5, f"{100 * med:.1f}%", "value"))
        body.append("</g>")
        y += row
    if chance is not None:
        x = left + span * chance
        body.append(f'<line class="chance" x1="{_n(x)}" y1="{top - 4}" x2="{_n(x)}" y2="{y}"/>')
        body.append(_label(x + 4, y + 14, f"chance {100 * chance:.0f}%", "tick"))
        y += _ROW
    label = (f"Accuracy of {baseline} by script: per group of variants the median (dot), the middle half "
             "(box) and the range (line); the variants table has every number")
    return _svg(left + span + 56, y + 4, label, body)


def heat(value: float, top: float) -> str:
    """Background of a heat-map cell: from light grey (0) to dark blue (``top``); text turns white past half."""
    t = 0.0 if top <= 0 else max(0.0, min(1.0, value / top))
    low, high = (246, 248, 250), (11, 79, 156)
    return "#" + "".join(f"{round(a + (b - a) * t):02x}" for a, b in zip(low, high))
