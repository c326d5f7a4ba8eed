"""The report's sections about what a reviewer must not miss: the warnings the stages gave, the checks
the gate skipped and why, and the outputs set aside (``superseded/``), plus the banner of a run that a
stage stopped. Each takes the summary (``release.json``) and returns HTML; every string of it is escaped
(:func:`builder.release.report._e`).
"""
from __future__ import annotations

from pathlib import Path

from .report_html import _e, _link, _table


def _cut(text: str, chars: int = 240) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= chars else text[:chars - 1] + "\u2026"


def stopped_banner(summary: dict) -> str:
    """The banner of a run that a stage's error stopped (nothing was released), or ``""``."""
    stopped = summary.get("stopped")
    if not isinstance(stopped, dict):
        return ""
    return (f'<p class="banner">Not released: this run stopped at stage <code>{_e(stopped.get("stage"))}</code>: '
            f'{_e(stopped.get("error"))}. The stages before it are kept; run the release again to resume.</p>')


def warnings_section(summary: dict) -> str:
    """Every warning a stage gave (with the records a check flagged), the qc checks that failed without
    gating, and the checks the gate skipped with the reason."""
    out = ['<section id="warnings" aria-labelledby="warnings-h"><h2 id="warnings-h">Warnings and skipped '
           "checks</h2>"]
    warnings = [w for w in summary.get("warnings") or [] if isinstance(w, dict)]
    gate = summary.get("gate") or {}
    warned = [w for w in gate.get("warnings") or [] if isinstance(w, dict)]
    rows = [[(_e(w.get("stage")), None), (_e(w.get("variant") or "\u2013"), None), (_e(w.get("message")), None),
             (_e("; ".join(map(str, w.get("items") or []))) or "\u2013", None)] for w in warnings]
    rows += [[(_e("qc"), None), (_e(w.get("variant")), None),
              (_e(_cut(f"{w.get('check')} (reported, not gated): {w.get('detail')}")), None), ("\u2013", None)]
             for w in warned]
    if rows:
        n = len(rows)
        out.append(_table("Warnings", [("Stage", "text"), ("Variant", "text"), ("Warning", "text"),
                                       ("Records", "text")], rows,
                          f"{n} warning{'s' if n != 1 else ''} given by the stages of this run (each also printed "
                          "when it was given; a projected or romanized variant's are in its variant.json).",
                          tall=n > 12))
    else:
        out.append("<p>No stage of this run gave a warning.</p>")
    skipped = [s for s in gate.get("skipped") or [] if isinstance(s, dict)]
    if skipped:
        items = []
        for s in skipped:
            variants = s.get("variants") or []
            shown = ", ".join(map(str, variants[:6])) + (f" and {len(variants) - 6} more" if len(variants) > 6 else "")
            release = f" In a release: {_e(s['release'])}." if s.get("release") else ""
            items.append(f"<li><b>{_e(s.get('check'))}</b> skipped on {len(variants)} "
                         f"variant{'s' if len(variants) != 1 else ''} ({_e(shown)}): {_e(s.get('why'))}.{release}</li>")
        out.append("<p>Checks the gate could not run (they neither pass nor fail the release):</p><ul>"
                   + "".join(items) + "</ul>")
    return "\n".join(out) + "\n</section>"


def superseded_section(summary: dict, base: Path) -> str:
    """The outputs set aside in ``superseded/``: not part of this release, kept rather than deleted."""
    entries = [s for s in summary.get("superseded") or [] if isinstance(s, dict)]
    if not entries:
        return ""
    items = "".join(
        f"<li>{_link(s.get('path'), s.get('path'), base)}: the <code>{_e(s.get('was'))}/</code> "
        + (f"of recipe <code>{_e(s.get('made_by'))}</code> " if s.get("made_by") else "")
        + f"moved aside because {_e(s.get('reason'))}.</li>" for s in entries)
    return ('<section id="superseded" aria-labelledby="superseded-h"><h2 id="superseded-h">Set aside</h2>'
            "<p>Not part of this release: outputs of earlier runs that this run does not stand behind, moved "
            "aside rather than deleted (delete them when they are no longer needed).</p><ul>"
            + items + "</ul></section>")
