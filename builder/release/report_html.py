"""The HTML pieces every section of the release report uses: escaped text, links relative to the
release folder (a missing or outside file shown as text), and the sortable table."""
from __future__ import annotations

from pathlib import Path, PurePosixPath
from urllib.parse import quote

from schemas.escape import for_html

from . import report_charts as charts


def _e(value) -> str:
    """Text or an attribute value from the summary (data: variant names, labels, details, citations)."""
    return for_html("" if value is None else value)


def _num(value) -> str:
    """The ``data-sort`` value of a number; empty for a missing one (sorted last)."""
    return "" if charts.missing(value) else format(value, ".10g")


def _count(value) -> str:
    return "\u2013" if charts.missing(value) else f"{int(value):,}"


def _pct(value) -> str:
    return "\u2013" if charts.missing(value) else f"{100 * value:.1f}%"


def _target(path, base: Path) -> str | None:
    """``path`` relative to the release folder, or None when it is outside it or absent there."""
    if not path:
        return None
    p = PurePosixPath(str(path).replace("\\", "/"))
    if p.is_absolute():
        try:
            p = p.relative_to(PurePosixPath(Path(base).resolve().as_posix()))
        except ValueError:
            return None
    if ".." in p.parts or not (Path(base) / p).exists():
        return None
    return p.as_posix()


def _link(title, path, base: Path) -> str:
    """A relative link to ``path``; a missing or outside file is shown as text saying so."""
    target = _target(path, base)
    if target is None:
        shown = _e(title) + (f" <code>{_e(path)}</code>" if str(title) != str(path) else "")
        return f'<span class="missing">{shown} (not in the release folder)</span>'
    return f'<a href="{_e(quote(target))}">{_e(title)}</a>'


def _table(caption: str, columns: list[tuple[str, str]], rows: list[list[tuple[str, str | None]]],
           note: str = "", *, classes: list[str] | None = None, tall: bool = False,
           filterable: bool = False) -> str:
    """A table whose headers are sort buttons; ``columns`` are (label, "text"|"number"), cells (html, sort key).

    The first cell of a row is its header (``<th scope="row">``); ``note`` is a paragraph above the table.
    ``classes`` are the rows' classes (``fail``, ``derived``: what the filters look at); a ``tall`` table
    scrolls in a box of its own, its headings in view; a ``filterable`` one obeys the filters and counts
    the rows they leave shown.
    """
    head = "".join(f'<th scope="col"{" data-type=number" if kind == "number" else ""}><button type="button">'
                   f'{_e(label)}<span class="arrow" aria-hidden="true"></span></button></th>'
                   for label, kind in columns)
    body = []
    for n, row in enumerate(rows):
        cells = []
        for i, ((html, key), (_, kind)) in enumerate(zip(row, columns)):
            tag = "th" if i == 0 else "td"
            attrs = (' scope="row"' if i == 0 else "") + (' class="num"' if kind == "number" else "")
            attrs += "" if key is None else f' data-sort="{_e(key)}"'
            cells.append(f"<{tag}{attrs}>{html}</{tag}>")
        cls = classes[n] if classes and classes[n] else ""
        body.append(f'<tr{f" class={chr(34)}{cls}{chr(34)}" if cls else ""}>' + "".join(cells) + "</tr>")
    table_cls = "sortable filterable" if filterable else "sortable"
    foot = (f'\n<tfoot><tr><td colspan="{len(columns)}" data-total="{len(rows):,}"></td></tr></tfoot>'
            if filterable else "")
    return ((f"<p>{_e(note)}</p>\n" if note else "")
            + f'<div class="scroll{" tall" if tall else ""}" tabindex="0" role="region" aria-label="{_e(caption)}">'
            f'\n<table class="{table_cls}">'
            f'<caption class="visually-hidden">{_e(caption)}</caption>\n<thead><tr>{head}</tr></thead>\n<tbody>\n'
            + "\n".join(body) + "\n</tbody>" + foot + "</table></div>")
