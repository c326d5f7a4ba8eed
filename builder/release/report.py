"""``DIR/report.html``: the one page a reviewer opens to judge a release.

:func:`render_report` turns the release summary (``DIR/release.json``) into a
single self-contained HTML file: inline CSS, inline SVG charts
(:mod:`builder.release.report_charts`) and a small inline script that sorts the
tables; a Content-Security-Policy forbids every request (only the script with
this exact hash may run), so the page works from a CI artifact or an e-mail
attachment with no network. From the top: the dataset and the gate verdict
(and a banner when the release went ahead with a failing gate, or when the gate
or a stage's error stopped it), two filters
(only failing, only derived variants: checkboxes and CSS, no script), the
failing checks with the records each is about (ids and shortened texts), the
warnings every stage gave and the checks the gate skipped with the reason
(:mod:`builder.release.report_notes`), the per-variant table (rows per split, gate, licenses and commercial use per
split, baseline accuracy with its interval; a derived variant right under its
source, with the difference), accuracy by script (one row per script: median,
middle half and range; a baseline that cannot differ from chance is named, not
charted), the derived variants beside their sources, the drop ledger (chart
and table; the dataset's drops totalled apart from a side sample's, with the
labels a curation step dropped), annotator agreement (what it was measured on,
the measures and the label co-assignment heat map), the stages (done, failed,
not reached) and links to this run's JSON and Markdown files, then what was set
aside in ``superseded/``. Long tables scroll inside a box with their headings in view, so
the page is about as tall at 1,500 variants as at 20.

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
from pathlib import Path

from schemas.names import shorten

from . import report_charts as charts
from .report_html import _count, _e, _link, _num, _pct, _table
from .report_notes import stopped_banner, superseded_section, warnings_section
from .report_style import CSS, SCRIPT

KINDS = {"topic": "topic classification", "mc": "multiple-choice reading comprehension"}
CHANCE = {"mc": 0.25}  # four answer options (Belebele); a topic set's chance depends on its labels
SPLIT_ORDER = ("train", "dev", "validation", "devtest", "test")
MEASURES = {"fleiss_kappa": "Fleiss' kappa", "krippendorff_alpha": "Krippendorff's alpha"}
COMMERCIAL = {True: ("yes", "ok"), False: ("no", "bad"), None: ("unknown", "warn")}
VERDICT = {"pass": "ok", "fail": "bad"}  # any other verdict ("not run") is shown plainly
STATUS = {"ran": "ok", "skipped": "warn", "done": "ok", "failed": "bad"}
#: Baselines that cannot differ from chance (they ignore the text): named with their numbers, not charted.
TRIVIAL = ("majority", "chance", "random", "uniform", "prior", "constant")
#: How a derived variant was made, as an adjective (``variant.json``'s ``method``).
MADE = {"romanization": "romanized", "projection": "projected", "alignment": "aligned"}
ITEMS_SHOWN, TEXT_SHOWN = 3, 90  # records shown per failing check, characters shown per text

#: The report's own additions to the style sheet (report_style.CSS): filters, tall tables, the script chart.
CSS_MORE = """
.filters{display:flex;flex-wrap:wrap;gap:4px 22px;align-items:center;margin:12px 0 0;padding:6px 12px;
background:var(--bg2);border:1px solid var(--line);border-radius:6px;position:sticky;top:0;z-index:3}
.filters label{cursor:pointer}.filters input{margin:0 6px 0 0;vertical-align:-2px}
body:has(#only-failing:checked) table.filterable tbody tr:not(.fail),
body:has(#only-derived:checked) table.filterable tbody tr:not(.derived){display:none}
.scroll.tall{max-height:20em;overflow:auto;border:1px solid var(--line);width:fit-content}
.scroll.tall table{margin:0}
.tall thead th{position:sticky;top:0;z-index:1}
table.filterable tbody{counter-reset:shown}table.filterable tbody tr{counter-increment:shown}
table.filterable tfoot td{position:sticky;bottom:0;background:#fff;color:var(--muted);font-size:12px}
table.filterable tfoot td::after{content:counter(shown) " of " attr(data-total) " rows shown"}
ul.items{margin:0;padding-left:14px;max-width:620px}ul.items li{margin:0 0 2px}
.items q{color:var(--muted)}.delta{display:block;white-space:nowrap;font-size:12px}
.chips{display:flex;flex-wrap:wrap;gap:4px 8px;list-style:none;padding:0;margin:4px 0 8px}
.chips li{border:1px solid var(--line);border-radius:10px;padding:0 8px;background:var(--bg2)}
svg .range{stroke:#4a78c2;stroke-width:2}svg .box{fill:#b6c9ea;stroke:#4a78c2}svg .dot{fill:#0b4f9c}
svg text.derived{font-style:italic}.charts{align-items:flex-start}
"""

def _derived(v: dict) -> dict | None:
    """The variant's ``derived`` (``{"method", "from"}``) when the summary has a usable one."""
    d = v.get("derived")
    return d if isinstance(d, dict) and isinstance(d.get("from"), str) and d["from"] else None


def _made(d: dict) -> str:
    return MADE.get(str(d.get("method")), "derived")


def _ordered(variants: list[dict]) -> list[dict]:
    """The variants in summary order, each derived one right after its source (when the release has it)."""
    codes = {str(v["variant"]) for v in variants}
    children: dict[str, list[dict]] = {}
    for v in variants:
        d = _derived(v)
        if d is not None and d["from"] in codes and d["from"] != str(v["variant"]):
            children.setdefault(d["from"], []).append(v)
    placed = {id(c) for cs in children.values() for c in cs}
    out: list[dict] = []
    seen: set[int] = set()

    def add(v):
        if id(v) in seen:
            return
        seen.add(id(v))
        out.append(v)
        for c in children.get(str(v["variant"]), []):
            add(c)

    for v in variants:
        if id(v) not in placed:
            add(v)
    out += [v for v in variants if id(v) not in seen]  # a cycle of sources: kept, in summary order
    return out


def _score(v: dict, baseline: str) -> float | None:
    for b in v["baselines"]:
        if str(b["baseline"]) == baseline and not charts.missing(b["accuracy"]):
            return b["accuracy"]
    return None


def _charted(variants: list[dict]) -> tuple[list[str], list[str]]:
    """(baselines worth a chart, baselines that cannot differ from chance)."""
    charted, trivial = [], []
    for b in _baselines(variants):
        values = [a for a in (_score(v, b) for v in variants) if a is not None]
        constant = len(values) >= 3 and max(values) - min(values) < 1e-9
        (trivial if b.lower() in TRIVIAL or constant else charted).append(b)
    return charted, trivial


def _records_cell(items: list[dict] | None) -> str:
    """The records a failing check is about: ids (``a = b``) and shortened texts; a warning when none."""
    items = [i for i in items or [] if isinstance(i, dict)]
    if not items:
        return '<span class="small">no records named in the check\u2019s result</span>'
    lines = []
    for item in items[:ITEMS_SHOWN]:
        ids = " = ".join(f"<code>{_e(i)}</code>" for i in item.get("ids") or [])
        texts = [t for t in item.get("texts") or [] if isinstance(t, str)]
        one = len({shorten(t, TEXT_SHOWN) for t in texts}) <= 1
        shown = texts[:1] if one else texts[:2]  # the two texts of a near pair
        quoted = " / ".join(f"<q>{_e(shorten(t, TEXT_SHOWN // len(shown)))}</q>" for t in shown)
        jaccard = item.get("jaccard")
        near = (f' <span class="small">(Jaccard {jaccard:.2f})</span>'
                if isinstance(jaccard, (int, float)) and not isinstance(jaccard, bool) else "")
        lines.append(f"<li>{ids or '<span class=warn>no ids</span>'}{near}{' ' + quoted if quoted else ''}</li>")
    more = len(items) - ITEMS_SHOWN
    if more > 0:
        lines.append(f'<li class="small">and {more} more in the QC report</li>')
    return '<ul class="items">' + "".join(lines) + "</ul>"


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
        word, cls = COMMERCIAL.get(licenses[0]["commercial"], (_e(licenses[0]["commercial"]), ""))
        return (f'<span class="small">all splits:</span> {_e(licenses[0]["license"])}, '
                f'<span class="small">commercial use:</span> <span class="tag {cls}">{word}</span>')
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
    more = []
    if not charts.missing(score.get("ci_low")) and not charts.missing(score.get("ci_high")):
        more.append(f'[{100 * score["ci_low"]:.1f}, {100 * score["ci_high"]:.1f}]')
    if score.get("n") is not None:
        more.append(f'n = {_e(score["n"])}')
    html = _pct(score["accuracy"]) + (f' <span class="ci">{" ".join(more)}</span>' if more else "")
    return html, _num(score["accuracy"])


def _delta(value: float | None, source: float | None) -> str:
    """``−3.2 pp`` (percentage points, a real minus sign); empty when either score is missing."""
    if value is None or source is None:
        return ""
    d = round(100 * (value - source), 1)
    sign = "+" if d > 0 else "\u2212" if d < 0 else "\u00b1"
    return f"{sign}{abs(d):.1f} pp"


def _count_cell(count) -> tuple[str, str | None]:
    """A row count; its sort key only where the text is not the number (``1,204``; a missing count)."""
    if count is None:
        return "\u2013", ""
    text = f"{count:,}"
    return text, None if text == str(count) else _num(count)


def _variants_section(summary: dict) -> str:
    variants = summary["variants"]
    out = ['<section id="variants" aria-labelledby="variants-h"><h2 id="variants-h">Variants</h2>']
    if not variants:
        return out[0] + '<p class="missing">This release has no variants.</p></section>'
    splits, baselines = _splits(variants), _baselines(variants)
    by_code = {str(v["variant"]): v for v in variants}
    terms = {(str(lic["license"]), lic["commercial"]) for v in variants for lic in v["licenses"]}
    one_license = len(terms) == 1 and all(v["licenses"] for v in variants)  # then said once, above the table
    columns = ([("Variant", "text"), ("Script", "text"), ("Origin", "text")]
               + [(f"{s} rows", "number") for s in splits]
               + [("Gate", "text")] + ([] if one_license else [("Licenses", "text")])
               + [(f"{b} accuracy", "number") for b in baselines])
    _, trivial = _charted(variants)
    rows, classes = [], []
    for v in _ordered(variants):
        counts = [v["rows"].get(s) for s in splits]
        scores = {str(b["baseline"]): b for b in v["baselines"]}
        d = _derived(v)
        source = by_code.get(d["from"]) if d else None
        accuracy = []
        for b in baselines:
            html, key = _accuracy_cell(scores.get(b))
            change = _delta(_score(v, b), _score(source, b)) if source is not None and b not in trivial else ""
            if change:
                html += f' <span class="delta">{change} vs {_e(d["from"])}</span>'
            accuracy.append((html, key))
        rows.append([(_e(v["variant"]), None), (_e(v["script"]), None), (_e(v["origin"]), None)]
                    + [_count_cell(c) for c in counts]
                    + [_gate_cell(v["gate"])] + ([] if one_license else [(_licenses(v["licenses"]), None)])
                    + accuracy)
        classes.append(" ".join(c for c in ("fail" if v["gate"]["verdict"] == "fail" else "",
                                            "derived" if d else "") if c))
    failing = sum(1 for v in variants if v["gate"]["verdict"] == "fail")
    derived = sum(1 for v in variants if _derived(v))
    note = (f"{len(variants)} variants ({failing} failing the gate, {derived} derived from another variant, each "
            "right under its source with the difference in accuracy): rows per split, the gate verdict with the "
            "failing checks, license and commercial use per split, and each baseline's accuracy with its "
            "confidence interval and the rows it scored. The column headings sort the table.")
    if one_license:
        word, _ = COMMERCIAL.get(variants[0]["licenses"][0]["commercial"], (variants[0]["licenses"][0]["commercial"], ""))
        note += (f" Every split of every variant is under {variants[0]['licenses'][0]['license']}, "
                 f"commercial use: {word}.")
    out.append(_table("Variants", columns, rows, note, classes=classes, tall=len(rows) > 12, filterable=True))
    return "\n".join(out) + "\n</section>"


def _groups(variants: list[dict], baseline: str) -> list[dict]:
    """Accuracy of ``baseline`` grouped by script (derived variants by script and how they were made), each
    kind of group by median, best first."""
    groups: dict[tuple[bool, str], list[float]] = {}
    for v in variants:
        acc = _score(v, baseline)
        if acc is None:
            continue
        d = _derived(v)
        label = f"{v['script'] or '?'}, {_made(d)}" if d else str(v["script"] or "?")
        groups.setdefault((d is not None, label), []).append(acc)
    order = sorted(groups, key=lambda k: (k[0], -charts.quantile(groups[k], 0.5), k[1]))
    return [{"label": k[1], "derived": k[0], "values": groups[k]} for k in order]


def _spread(values: list[float]) -> str:
    return (f"median {100 * charts.quantile(values, 0.5):.1f}%, range {100 * min(values):.1f}\u2013"
            f"{100 * max(values):.1f}%")


def _accuracy_section(summary: dict) -> str:
    variants = summary["variants"]
    baselines = _baselines(variants)
    out = ['<section id="accuracy" aria-labelledby="accuracy-h"><h2 id="accuracy-h">Accuracy by script</h2>']
    if not baselines:
        why = (summary.get("not_run") or {}).get("baselines")
        return out[0] + f'<p class="missing">No baseline was scored{": " + _e(why) if why else "."}</p></section>'
    chance = CHANCE.get(summary["dataset"]["kind"])
    charted, trivial = _charted(variants)
    scripts = len({str(v["script"]) for v in variants if not _derived(v)})
    note = (f"One row per script ({scripts} scripts): the dot is the median variant, the box the middle half, the "
            "line the lowest to the highest, the number the variants. Derived variants (romanized, projected, "
            "aligned) are grouped apart, after the others, so a romanized variant is not counted as a Latin one.")
    out.append(f"<p>{_e(note)}</p>")
    for b in trivial:
        values = [a for a in (_score(v, b) for v in variants) if a is not None]
        if values:
            out.append(f'<p class="small">Not charted: <b>{_e(b)}</b> ({_e(_spread(values))} over '
                       f"{len(values)} variants), a baseline that cannot differ from chance; its numbers are in "
                       "the variants table.</p>")
    if charted:
        out.append('<div class="charts">')
        for b in charted:
            out.append(f"<figure><figcaption>{_e(b)}</figcaption>\n"
                       f"{charts.script_chart(_groups(variants, b), b, chance=chance)}</figure>")
        out.append("</div>")
    return "\n".join(out) + "\n</section>"


def _model_section(summary: dict) -> str:
    """The language model run on the lm-eval tasks: which items, and its and the baselines' PRR."""
    model = summary["model"]
    out = '<section id="model" aria-labelledby="model-h"><h2 id="model-h">Language model</h2>'
    settings = model.get("settings") or {}
    parts = [out, f"<p><b>{_e(model['name'])}</b> on the export's lm-eval tasks, the test split: "
             f"{_e(settings.get('selection') or 'every test item')}; "
             f"{_e(settings.get('num_fewshot') or 0)}-shot. Its accuracy per variant is in the variants table "
             "and, by script, in the charts above, beside the baselines'.</p>"]
    disparity = model.get("disparity")
    if disparity:
        rows = [[(_e(name), name), (_e("\u2013" if m.get("mean_prr") is None else f"{m['mean_prr']:.3f}"),
                                     _num(m.get("mean_prr"))),
                 (_e("\u2013" if m.get("cv_prr") is None else f"{m['cv_prr']:.3f}"), _num(m.get("cv_prr")))]
                for name, m in disparity.items()]
        parts.append(_table("Performance realisation ratio over the release's variants",
                            [("system", "text"), ("mean PRR", "number"), ("CV-PRR", "number")], rows,
                            "PRR = accuracy / performance potential of the variant (a mixed model over the "
                            "systems, Hu et al.); CV-PRR: its spread across variants, lower is more even."))
    else:
        parts.append('<p class="missing">No disparity figures: the fit could not run (see the stages).</p>')
    return "\n".join(parts) + "\n</section>"


def _derived_section(summary: dict) -> str:
    variants = summary["variants"]
    out = ['<section id="derived" aria-labelledby="derived-h"><h2 id="derived-h">Derived variants</h2>']
    by_code = {str(v["variant"]): v for v in variants}
    derived = [v for v in _ordered(variants) if _derived(v)]
    if not derived:
        return out[0] + '<p class="missing">No variant of this release was made from another one.</p></section>'
    charted, _ = _charted(variants)
    columns = [("Variant", "text"), ("Made", "text"), ("Source", "text")] + [(f"{b} \u0394", "number")
                                                                             for b in charted]
    rows, classes, deltas = [], [], {b: [] for b in charted}
    for v in derived:
        d = _derived(v)
        source = by_code.get(d["from"])
        cells = [(_e(v["variant"]), None), (_e(_made(d)), None),
                 (_e(d["from"]) + ("" if source is not None else ' <span class="small">(not in this release)</span>'),
                  None)]
        for b in charted:
            mine, theirs = _score(v, b), None if source is None else _score(source, b)
            if mine is None or theirs is None:
                cells.append(("\u2013", ""))
                continue
            deltas[b].append((mine - theirs, str(v["variant"])))
            cells.append((f'{_delta(mine, theirs)} <span class="ci">{_pct(theirs)} \u2192 {_pct(mine)}</span>',
                          _num(mine - theirs)))
        rows.append(cells)
        classes.append(" ".join(c for c in ("fail" if v["gate"]["verdict"] == "fail" else "", "derived") if c))
    kinds: dict[str, int] = {}
    for v in derived:
        kinds[_made(_derived(v))] = kinds.get(_made(_derived(v)), 0) + 1
    parts = []
    for b in charted:
        if deltas[b]:
            ds = sorted(deltas[b])
            parts.append(f"{b}: median {_delta(charts.quantile([x for x, _ in ds], 0.5), 0.0)}, "
                         f"largest drop {_delta(ds[0][0], 0.0)} ({ds[0][1]})")
    note = (f"{len(derived)} variant{'s' if len(derived) != 1 else ''} made from another one ({', '.join(f'{n} {k}' for k, n in sorted(kinds.items()))})"
            ", each beside its source: the difference in accuracy in percentage points, source \u2192 derived."
            + (" " + "; ".join(parts) + "." if parts else ""))
    out.append(_table("Derived variants", columns, rows, note, classes=classes, tall=len(rows) > 12,
                      filterable=True))
    return "\n".join(out) + "\n</section>"


def _reason(d: dict) -> str:
    """A drop's reason, with the labels it took away and their counts where the stage names them."""
    labels = d.get("labels") if isinstance(d.get("labels"), dict) else {}
    named = ", ".join(f"{label} {int(n):,}" for label, n in labels.items())
    return f"{d['reason']} ({named})" if named else str(d["reason"])


def _drops_section(summary: dict) -> str:
    drops = summary["drops"]
    out = ['<section id="drops" aria-labelledby="drops-h"><h2 id="drops-h">Dropped records</h2>']
    if not drops:
        return out[0] + '<p class="missing">No record was dropped.</p></section>'
    mine = [d for d in drops if d.get("in_dataset", True)]
    side = [d for d in drops if not d.get("in_dataset", True)]
    total = sum(int(d["count"]) for d in mine)
    note = f"{total:,} records dropped from the dataset, by source and reason."
    by_part: dict[str, list[dict]] = {}  # in the order each part first appears
    for d in side:
        by_part.setdefault(str(d.get("part") or ""), []).append(d)
    for part, of_part in by_part.items():
        n = sum(int(d["count"]) for d in of_part)
        why = ", ".join(f"{d['source']}: {d['reason']}" for d in of_part)
        note += (f" Not counted in that total: {n:,} item{'s' if n != 1 else ''} of "
                 f"{'the ' + part if part else 'a side sample'} ({why}), which the dataset is not made from.")
    out.append(f"<p>{_e(note)}</p>")
    out.append('<div class="charts">' + (charts.drops_chart(mine, limit=8) if mine else ""))
    # "Counted in" only when some drops are not the dataset's (a narrow table stays beside its chart)
    rows = [[(_e(d["source"]), None), (_e(_reason(d)), _e(d["reason"])),
             (f'{int(d["count"]):,}', _num(int(d["count"])))]
            + ([(_e("the dataset" if d.get("in_dataset", True) else d.get("part") or "a side sample"), None)]
               if side else []) for d in mine + side]
    columns = [("Source", "text"), ("Reason", "text"), ("Dropped", "number")] + ([("Counted in", "text")]
                                                                                if side else [])
    out.append(_table("Drop ledger", columns, rows, tall=len(rows) > 12) + "</div>")
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
    measures_list = "<dl>" + "".join(f"<dt>{_e(k)}</dt><dd>{v}</dd>" for k, v in items) + "</dl>"
    out.append(f"<p>{_e(_measured_on(agreement))}</p>")
    labels, matrix = agreement["labels"], agreement["matrix"]
    if not matrix:
        out.append(measures_list)
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
    out.append('<div class="charts">' + measures_list)
    out.append('<div class="scroll" tabindex="0" role="region" aria-label="Agreement matrix">\n<table class="heat">'
               f'<caption class="visually-hidden">Agreement matrix</caption>\n<thead><tr><td></td>{head}</tr></thead>\n<tbody>\n'
               + "\n".join(body) + "\n</tbody></table></div></div>")
    return "\n".join(out) + "\n</section>"


def _measured_on(agreement: dict) -> str:
    """What the agreement was measured on: ``Measured on a 12-item sample ...`` when the released items are
    not the judged ones."""
    n, k = agreement.get("items"), agreement.get("annotators")
    what = f"{_count(n)} item{'s' if n != 1 else ''}" + (f" judged by {_count(k)} annotators" if k else "")
    where = f" ({agreement['judgements']})" if agreement.get("judgements") else ""
    if agreement.get("sample"):
        rows = agreement.get("released_rows")
        of = f"; the released {agreement.get('variant')} has {_count(rows)} rows" if rows else ""
        return (f"Measured on a {_count(n)}-item sample{where}: {what}, not the dataset's own items{of}. "
                "Read the figures as the agreement of that sample.")
    return f"Measured on {what}{where}: the items the released variant was made from."


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
                                 ("Manifest", "text")], rows, _stages_note(stages), tall=len(rows) > 12))
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
    if summary.get("stopped"):
        parts.append(stopped_banner(summary))
    elif summary.get("released") is False:
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
    derived = {str(v["variant"]) for v in summary["variants"] if _derived(v)}
    by_check: dict[str, set] = {}
    for f in gate["failing"]:
        by_check.setdefault(str(f["check"]), set()).add(str(f["variant"]))
    out.append('<ul class="chips" aria-label="Failing variants per check">' + "".join(
        f"<li><b>{_e(c)}</b> {len(vs)}</li>" for c, vs in sorted(by_check.items(), key=lambda kv: (-len(kv[1]),
                                                                                               kv[0]))) + "</ul>")
    rows = [[(_e(f["variant"]), None), (_e(f["check"]), None), (_e(f["detail"]), None),
             (_records_cell(f.get("items")), None)] for f in gate["failing"]]
    classes = ["fail derived" if str(f["variant"]) in derived else "fail" for f in gate["failing"]]
    out.append(_table("Failing checks", [("Variant", "text"), ("Check", "text"), ("Detail", "text"),
                                         ("Records", "text")], rows, classes=classes, tall=len(rows) > 8,
                      filterable=True))
    return "\n".join(out) + "\n</section>"


def _filters(summary: dict) -> str:
    """The two checkboxes: only failing variants, only derived ones (CSS ``:has``; nothing to run)."""
    variants = summary["variants"]
    failing = sum(1 for v in variants if v["gate"]["verdict"] == "fail")
    derived = sum(1 for v in variants if _derived(v))
    return ('<div class="filters" role="group" aria-label="Filter the tables"><b>Show only</b>'
            f'<label><input type="checkbox" id="only-failing">failing variants ({failing})</label>'
            f'<label><input type="checkbox" id="only-derived">derived variants ({derived})</label>'
            '<span class="small">in the failing checks, variants and derived tables</span></div>')


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
    set_aside = superseded_section(summary, base)
    nav = [("gate", "Failing checks"), ("warnings", "Warnings"), ("variants", "Variants"),
           ("accuracy", "Accuracy by script"), *([("model", "Language model")] if summary.get("model") else []),
           ("derived", "Derived variants"), ("drops", "Dropped records"),
           ("agreement", "Agreement"), ("stages", "Stages"), ("files", "Files")]
    nav += [("superseded", "Set aside")] if set_aside else []
    tool = summary["tool"]
    return "\n".join([
        "<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f'<meta http-equiv="Content-Security-Policy" content="{policy}">',
        f'<meta name="generator" content="{_e(tool["name"])} {_e(tool["version"])}">',
        f'<title>Release report: {_e(summary["dataset"]["pretty_name"])}</title>',
        '<link rel="icon" href="data:,">', f"<style>{CSS}{CSS_MORE}</style>", "</head>", "<body>",
        '<a class="skip" href="#variants">Skip to the variants</a>', '<div class="page">',
        _header(summary),
        '<nav aria-label="Sections"><ul>' + "".join(f'<li><a href="#{k}">{v}</a></li>' for k, v in nav)
        + "</ul></nav>", _filters(summary), "<main>",
        _gate_section(summary, base), warnings_section(summary), _variants_section(summary),
        _accuracy_section(summary), *([_model_section(summary)] if summary.get("model") else []),
        _derived_section(summary),
        _drops_section(summary), _agreement_section(summary), _stages_section(summary, base),
        _files_section(summary, base), *([set_aside] if set_aside else []),
        "</main>", "</div>", '<p id="sort-status" class="visually-hidden" role="status" aria-live="polite"></p>',
        f"<script>{SCRIPT}</script>", "</body>", "</html>", ""])
