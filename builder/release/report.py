"""``DIR/report.html``: the one page a reviewer opens to judge a release.

:func:`render_report` turns the release summary (``DIR/release.json``) into a
single self-contained HTML file: inline CSS, inline SVG charts
(:mod:`builder.release.report_charts`) and a small inline script that sorts the
tables; a Content-Security-Policy forbids every request (only the script with
this exact hash may run), so the page works from a CI artifact or an e-mail
attachment with no network. From the top: the dataset and the gate verdict
(and a banner when the release went ahead with a failing gate), the failing
checks, the per-variant table (rows per split, gate, licenses and commercial
use per split, baseline accuracy with its interval), accuracy per variant
grouped by script, the drop ledger (chart and table), annotator agreement
(measures and the label co-assignment heat map), the stages (ran or skipped,
seconds) and links to the release's JSON and Markdown files.

Links are relative to the release folder ``base``; one whose file is missing
there, or that points outside it, is shown as text. Every string of the summary
is escaped (:func:`schemas.escape.for_html`: entities, and control characters
written visibly), and the page has no timestamp: the same summary (and the same
files under ``base``) gives the same bytes.

>>> from pathlib import Path
>>> page = render_report({"version": 1, "dataset": {"name": "d", "pretty_name": "D <1>", "citation": "",
...     "pivot": "eng_Latn", "kind": "mc"}, "tool": {"name": "t", "version": "0"}, "stages": [],
...     "gate": {"verdict": "pass", "allowed_failing": False, "failing": [], "report": None},
...     "variants": [], "drops": [], "agreement": None, "links": []}, base=Path("."))
>>> "<h1>D &lt;1&gt;</h1>" in page, "http" in page.split("<body>")[1]
(True, False)
"""
from __future__ import annotations

import base64
import hashlib
from pathlib import Path, PurePosixPath
from urllib.parse import quote

from schemas.escape import for_html

from . import report_charts as charts
from .report_style import CSS, SCRIPT

KINDS = {"topic": "topic classification", "mc": "multiple-choice reading comprehension"}
CHANCE = {"mc": 0.25}  # four answer options (Belebele); a topic set's chance depends on its labels
SPLIT_ORDER = ("train", "dev", "validation", "devtest", "test")
MEASURES = {"fleiss_kappa": "Fleiss' kappa", "krippendorff_alpha": "Krippendorff's alpha"}
COMMERCIAL = {True: ("yes", "ok"), False: ("no", "bad"), None: ("unknown", "warn")}
VERDICT = {"pass": "ok", "fail": "bad"}  # any other verdict ("not run") is shown plainly
STATUS = {"ran": "ok", "skipped": "warn"}

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
           note: str = "") -> str:
    """A table whose headers are sort buttons; ``columns`` are (label, "text"|"number"), cells (html, sort key).

    The first cell of a row is its header (``<th scope="row">``); ``note`` is a paragraph above the table.
    """
    head = "".join(f'<th scope="col"{" data-type=number" if kind == "number" else ""}><button type="button">'
                   f'{_e(label)}<span class="arrow" aria-hidden="true"></span></button></th>'
                   for label, kind in columns)
    body = []
    for row in rows:
        cells = []
        for i, ((html, key), (_, kind)) in enumerate(zip(row, columns)):
            tag = "th" if i == 0 else "td"
            attrs = (' scope="row"' if i == 0 else "") + (' class="num"' if kind == "number" else "")
            attrs += "" if key is None else f' data-sort="{_e(key)}"'
            cells.append(f"<{tag}{attrs}>{html}</{tag}>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return ((f"<p>{_e(note)}</p>\n" if note else "")
            + f'<div class="scroll" tabindex="0" role="region" aria-label="{_e(caption)}">\n<table class="sortable">'
            f'<caption class="visually-hidden">{_e(caption)}</caption>\n<thead><tr>{head}</tr></thead>\n<tbody>\n' + "\n".join(body)
            + "\n</tbody></table></div>")


def _splits(variants: list[dict]) -> list[str]:
    names = {str(s) for v in variants for s in v["rows"]}
    return [s for s in SPLIT_ORDER if s in names] + sorted(names - set(SPLIT_ORDER))


def _baselines(variants: list[dict]) -> list[str]:
    """Baseline names in the order they first appear."""
    return list(dict.fromkeys(str(b["baseline"]) for v in variants for b in v["baselines"]))


def _licenses(licenses: list[dict]) -> str:
    def terms(lic):
        word, cls = COMMERCIAL.get(lic["commercial"], (_e(lic["commercial"]), ""))
        return (f'<span class="lic">{_e(lic["license"])}</span><br><span class="small">commercial use:</span> '
                f'<span class="tag {cls}">{word}</span>')

    if not licenses:
        return '<span class="warn">none recorded</span>'
    if len({(lic["license"], lic["commercial"]) for lic in licenses}) == 1:
        return f'<span class="small">all splits:</span> {terms(licenses[0])}'
    return "<br>".join(f'<span class="small">{_e(lic["split"])}:</span> {terms(lic)}' for lic in licenses)


def _gate_cell(gate: dict) -> tuple[str, str]:
    verdict = str(gate["verdict"])
    html = f'<span class="tag {VERDICT.get(verdict, "")}">{_e(verdict.upper())}</span>'
    if gate["failing"]:
        html += '<ul class="checks">' + "".join(f"<li>{_e(c)}</li>" for c in gate["failing"]) + "</ul>"
    return html, verdict


def _accuracy_cell(score: dict | None) -> tuple[str, str]:
    if score is None or charts.missing(score["accuracy"]):
        return "\u2013", ""
    html = _pct(score["accuracy"])
    if not charts.missing(score.get("ci_low")) and not charts.missing(score.get("ci_high")):
        html += f' <span class="ci">[{100 * score["ci_low"]:.1f}, {100 * score["ci_high"]:.1f}]</span>'
    if score.get("n") is not None:
        html += f' <span class="ci">n = {_e(score["n"])}</span>'
    return html, _num(score["accuracy"])


def _variants_section(summary: dict) -> str:
    variants = summary["variants"]
    out = ['<section id="variants" aria-labelledby="variants-h"><h2 id="variants-h">Variants</h2>']
    if not variants:
        return out[0] + '<p class="missing">This release has no variants.</p></section>'
    splits, baselines = _splits(variants), _baselines(variants)
    columns = ([("Variant", "text"), ("Script", "text"), ("Origin", "text")]
               + [(f"{s} rows", "number") for s in splits]
               + [("Gate", "text"), ("Licenses", "text")] + [(f"{b} accuracy", "number") for b in baselines])
    rows = []
    for v in variants:
        counts = [v["rows"].get(s) for s in splits]
        scores = {str(b["baseline"]): b for b in v["baselines"]}
        rows.append([(_e(v["variant"]), None), (_e(v["script"]), None), (_e(v["origin"]), None)]
                    + [("\u2013" if c is None else f"{c:,}", _num(c)) for c in counts]
                    + [_gate_cell(v["gate"]), (_licenses(v["licenses"]), None)]
                    + [_accuracy_cell(scores.get(b)) for b in baselines])
    note = (f"{len(variants)} variants: rows per split, the gate verdict with the failing checks, license and "
            "commercial use per split, and each baseline's accuracy with its confidence interval and the rows "
            "it scored. The column headings sort the table.")
    out.append(_table("Variants", columns, rows, note))
    return "\n".join(out) + "\n</section>"


def _accuracy_section(summary: dict) -> str:
    variants = summary["variants"]
    baselines = _baselines(variants)
    out = ['<section id="accuracy" aria-labelledby="accuracy-h"><h2 id="accuracy-h">Accuracy by script</h2>']
    if not baselines:
        return out[0] + '<p class="missing">No baseline was scored.</p></section>'
    chance = CHANCE.get(summary["dataset"]["kind"])
    out.append('<div class="charts">')
    for b in baselines:
        out.append(f"<figure><figcaption>{_e(b)}</figcaption>\n"
                   f"{charts.accuracy_chart(variants, b, chance=chance)}</figure>")
    out.append("</div>")
    return "\n".join(out) + "\n</section>"


def _drops_section(summary: dict) -> str:
    drops = summary["drops"]
    out = ['<section id="drops" aria-labelledby="drops-h"><h2 id="drops-h">Dropped records</h2>']
    if not drops:
        return out[0] + '<p class="missing">No record was dropped.</p></section>'
    total = sum(int(d["count"]) for d in drops)
    out.append(f"<p>{total:,} records dropped, by source and reason.</p>")
    out.append(charts.drops_chart(drops))
    rows = [[(_e(d["source"]), None), (_e(d["reason"]), None), (f'{int(d["count"]):,}', _num(int(d["count"])))]
            for d in drops]
    out.append(_table("Drop ledger", [("Source", "text"), ("Reason", "text"), ("Dropped", "number")], rows))
    return "\n".join(out) + "\n</section>"


def _agreement_section(summary: dict) -> str:
    agreement = summary["agreement"]
    out = ['<section id="agreement" aria-labelledby="agreement-h"><h2 id="agreement-h">Annotator agreement</h2>']
    if agreement is None:
        return out[0] + '<p class="missing">No annotation agreement was measured in this release.</p></section>'
    measures = agreement["measures"]
    names = [m for m in MEASURES if m in measures] + sorted(set(measures) - set(MEASURES))
    items = [("Annotators", _count(agreement["annotators"])), ("Items", _count(agreement["items"]))]
    items += [(MEASURES.get(m, m.replace("_", " ")),
              "\u2013" if charts.missing(measures[m]) else f"{measures[m]:.3f}") for m in names]
    out.append("<dl>" + "".join(f"<dt>{_e(k)}</dt><dd>{v}</dd>" for k, v in items) + "</dl>")
    labels, matrix = agreement["labels"], agreement["matrix"]
    if not matrix:
        return "\n".join(out) + '\n<p class="missing">No label co-assignment matrix was recorded.</p></section>'
    top = max([c for row in matrix for c in row] + [0])
    head = "".join(f'<th scope="col">{_e(label)}</th>' for label in labels)
    body = []
    for i, (label, row) in enumerate(zip(labels, matrix)):
        cells = []
        for j, count in enumerate(row):
            colour = charts.heat(count, top)
            fg = "#fff" if top and count / top > 0.5 else "#1f2328"
            cls = ' class="diag"' if i == j else ""
            cells.append(f'<td{cls} style="background:{colour};color:{fg}">{count:,}</td>')
        body.append(f'<tr><th scope="row">{_e(label)}</th>{"".join(cells)}</tr>')
    out.append("<p>How often two annotators gave one item the row label and the column label: the outlined "
               "diagonal is agreement, darker cells are more frequent.</p>")
    out.append('<div class="scroll" tabindex="0" role="region" aria-label="Agreement matrix">\n<table class="heat">'
               f'<caption class="visually-hidden">Agreement matrix</caption>\n<thead><tr><td></td>{head}</tr></thead>\n<tbody>\n'
               + "\n".join(body) + "\n</tbody></table></div>")
    return "\n".join(out) + "\n</section>"


def _stages_section(summary: dict, base: Path) -> str:
    stages = summary["stages"]
    out = ['<section id="stages" aria-labelledby="stages-h"><h2 id="stages-h">Stages</h2>']
    if not stages:
        return out[0] + '<p class="missing">No stage was recorded.</p></section>'
    rows = [[(_e(s["name"]), None),
             (f'<span class="tag {STATUS.get(s["status"], "")}">{_e(s["status"])}</span>', _e(s["status"])),
             ("\u2013" if charts.missing(s["seconds"]) else f'{s["seconds"]:.2f}', _num(s["seconds"])),
             (_link(s["manifest"], s["manifest"], base) if s["manifest"] else "\u2013", None)] for s in stages]
    out.append(_table("Stages", [("Stage", "text"), ("Status", "text"), ("Seconds", "number"),
                                 ("Manifest", "text")], rows, _stages_note(stages)))
    return "\n".join(out) + "\n</section>"


def _stages_note(stages: list[dict]) -> str:
    """``9 stages: 7 ran (59.36 s), 2 skipped (...)``; seconds only where the summary has them."""
    counts: dict[str, int] = {}
    for st in stages:
        counts[str(st["status"])] = counts.get(str(st["status"]), 0) + 1
    parts = []
    for status in [k for k in STATUS if k in counts] + sorted(set(counts) - set(STATUS)):
        seconds = [st["seconds"] for st in stages if st["status"] == status and not charts.missing(st["seconds"])]
        parts.append(f"{counts[status]} {status}" + (f" ({sum(seconds):.2f} s)" if status == "ran" and seconds else ""))
    why = (" (their recorded inputs and options had not changed)" if "skipped" in counts else "")
    return f"{len(stages)} stages: {', '.join(parts)}{why}."


def _header(summary: dict) -> str:
    dataset, gate, tool = summary["dataset"], summary["gate"], summary["tool"]
    verdict = str(gate["verdict"])
    failing = gate["failing"]
    variants = len({str(f["variant"]) for f in failing})
    detail = (f"{len(failing)} failing check{'s' if len(failing) != 1 else ''} in "
              f"{variants} variant{'s' if variants != 1 else ''}" if failing else
              "every check passed" if verdict == "pass" else "no failing check recorded")
    parts = [f'<header><div><h1>{_e(dataset["pretty_name"])}</h1>'
             f'<p class="meta"><code>{_e(dataset["name"])}</code> \u00b7 {_e(KINDS.get(dataset["kind"]))} \u00b7 '
             f'pivot <code>{_e(dataset["pivot"])}</code> \u00b7 built with {_e(tool["name"])} {_e(tool["version"])}'
             "</p></div>",
             f'<div class="verdict {VERDICT.get(verdict, "other")}">Gate: '
             f'{_e(verdict.upper())}<small>{_e(detail)}</small></div></header>']
    if summary.get("released") is False:
        parts.append('<p class="banner">Not released: the gate stopped the release before the export '
                     "(--allow-failing-gate releases it anyway).</p>")
    if gate["allowed_failing"]:
        parts.append('<p class="banner">' + {
            "fail": "Gate failing allowed: this release went ahead with a failing gate (--allow-failing-gate); "
                    "the dataset card says so.",
            "pass": "Gate failing allowed (--allow-failing-gate), but the gate passed."}.get(
            verdict, "Gate failing allowed (--allow-failing-gate); the gate did not give a verdict.") + "</p>")
    return "\n".join(parts)


def _gate_section(summary: dict, base: Path) -> str:
    gate = summary["gate"]
    out = ['<section id="gate" aria-labelledby="gate-h"><h2 id="gate-h">Failing checks</h2>']
    if gate["report"]:
        out.append(f"<p>Full report: {_link('QC report', gate['report'], base)}</p>")
    if not gate["failing"]:
        return "\n".join(out) + '\n<p>No check failed.</p></section>'
    rows = [[(_e(f["variant"]), None), (_e(f["check"]), None), (_e(f["detail"]), None)] for f in gate["failing"]]
    out.append(_table("Failing checks", [("Variant", "text"), ("Check", "text"), ("Detail", "text")], rows))
    return "\n".join(out) + "\n</section>"


def _files_section(summary: dict, base: Path) -> str:
    out = ['<section id="files" aria-labelledby="files-h"><h2 id="files-h">Files</h2>']
    if not summary["links"]:
        out.append('<p class="missing">No file is linked.</p>')
    else:
        out.append("<ul>" + "".join(f'<li>{_link(k["title"], k["path"], base)} <code class="small">'
                                    f'{_e(k["path"])}</code></li>' for k in summary["links"]) + "</ul>")
    if summary["dataset"]["citation"]:
        out.append(f'<h3>Citation</h3><pre>{_e(summary["dataset"]["citation"])}</pre>')
    return "\n".join(out) + "\n</section>"


def render_report(summary: dict, *, base: Path) -> str:
    """The release report page for ``summary`` (the ``release.json`` mapping), links relative to ``base``.

    Parameters
    ----------
    summary : dict
        ``version`` 1: ``dataset``, ``tool``, ``stages``, ``gate``, ``variants``, ``drops``, ``agreement``
        (or None) and ``links``, as ``builder.release`` writes them (docs/release.md).
    base : Path
        The release folder, where ``report.html`` goes; links are made relative to it.

    Returns
    -------
    str
        The whole HTML document; write it as UTF-8.
    """
    if summary.get("version") != 1:
        raise ValueError(f"release summary version must be 1, found {summary.get('version')!r}")
    if summary["dataset"]["kind"] not in KINDS:
        raise ValueError(f"dataset kind must be one of {', '.join(KINDS)}, found {summary['dataset']['kind']!r}")
    script_hash = base64.b64encode(hashlib.sha256(SCRIPT.encode("utf-8")).digest()).decode("ascii")
    policy = f"default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-{script_hash}'; img-src data:"
    nav = [("gate", "Failing checks"), ("variants", "Variants"), ("accuracy", "Accuracy by script"),
           ("drops", "Dropped records"), ("agreement", "Agreement"), ("stages", "Stages"), ("files", "Files")]
    tool = summary["tool"]
    return "\n".join([
        "<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f'<meta http-equiv="Content-Security-Policy" content="{policy}">',
        f'<meta name="generator" content="{_e(tool["name"])} {_e(tool["version"])}">',
        f'<title>Release report: {_e(summary["dataset"]["pretty_name"])}</title>',
        '<link rel="icon" href="data:,">', f"<style>{CSS}</style>", "</head>", "<body>",
        '<a class="skip" href="#variants">Skip to the variants</a>', '<div class="page">',
        _header(summary),
        '<nav aria-label="Sections"><ul>' + "".join(f'<li><a href="#{k}">{v}</a></li>' for k, v in nav)
        + "</ul></nav>", "<main>",
        _gate_section(summary, base), _variants_section(summary), _accuracy_section(summary),
        _drops_section(summary), _agreement_section(summary), _stages_section(summary, base),
        _files_section(summary, base),
        "</main>", "</div>", '<p id="sort-status" class="visually-hidden" role="status" aria-live="polite"></p>',
        f"<script>{SCRIPT}</script>", "</body>", "</html>", ""])
