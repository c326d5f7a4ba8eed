"""The report's cells and notes in the cases the summary fixture does not reach (issue 27's fast pass over
``builder/release/report.py``): one license for the whole release, no variant, no baseline scored, a long
table, a count's sort key, a verdict the page has no colour for, and which baselines get a chart."""
from __future__ import annotations

import copy
import json
import re
from pathlib import Path

from builder.release.report import (_agreement_section, _charted, _count_cell, _derived_section, _files_section,
                                   _gate_cell, _gate_section, _header, _stages_note, _stages_section, render_report)

FIXTURE = Path(__file__).parents[1] / "data" / "release" / "summary.json"


def _summary() -> dict:
    return json.loads(FIXTURE.read_text(encoding="utf-8"))


def _section(page: str, name: str) -> str:
    return re.search(rf'<section id="{name}".*?</section>', page, flags=re.S).group(0)


def _headings(section: str) -> list[str]:
    return re.findall(r'<th scope="col"[^>]*><button type="button">([^<]*)<', section)


def test_a_release_under_one_license_says_it_once_above_the_table(tmp_path):
    s = _summary()
    s["variants"] = [v for v in s["variants"] if all(lic["license"] == "CC-BY-SA-4.0" for lic in v["licenses"])]
    section = _section(render_report(s, base=tmp_path), "variants")
    assert "Licenses" not in _headings(section)
    assert "Every split of every variant is under CC-BY-SA-4.0, commercial use: yes.</p>" in section
    assert section.count("<p>") == 1 and f"<p>{len(s['variants'])} variants (" in section  # one note, whole
    for lic in (lic for v in s["variants"] for lic in v["licenses"]):
        lic["commercial"] = "ask the authors"  # a value the page has no word for: shown as given
    assert "commercial use: ask the authors." in _section(render_report(s, base=tmp_path), "variants")
    s["variants"] = s["variants"][:1]  # one variant of one split
    s["variants"][0]["licenses"] = [dict(s["variants"][0]["licenses"][0], commercial=False)]
    assert "Every split of every variant is under CC-BY-SA-4.0, commercial use: no.</p>" in render_report(
        s, base=tmp_path)


def test_two_licenses_get_a_column_of_their_own_and_no_note(tmp_path):
    section = _section(render_report(_summary(), base=tmp_path), "variants")
    assert "Licenses" in _headings(section) and "Every split of every variant" not in section
    s = _summary()  # two licenses that both allow commercial use
    s["variants"] = [v for v in s["variants"] if all(lic["license"] == "CC-BY-SA-4.0" for lic in v["licenses"])]
    s["variants"][0]["licenses"][0]["license"] = "CC-BY-4.0"
    assert "Licenses" in _headings(_section(render_report(s, base=tmp_path), "variants"))
    s = _summary()  # one license, but a variant that states none: the column stays
    s["variants"] = [v for v in s["variants"] if all(lic["license"] == "CC-BY-SA-4.0" for lic in v["licenses"])]
    s["variants"][0]["licenses"] = []
    assert "Licenses" in _headings(_section(render_report(s, base=tmp_path), "variants"))


def test_no_variant_and_no_baseline_each_say_so(tmp_path):
    s = _summary()
    s["variants"] = []
    page = render_report(s, base=tmp_path)
    assert '<h2 id="variants-h">Variants</h2><p class="missing">This release has no variants.</p></section>' in page
    s = _summary()
    for v in s["variants"]:
        v["baselines"] = []
    assert '<p class="missing">No baseline was scored.</p>' in render_report(s, base=tmp_path)
    s["not_run"] = {"baselines": "the recipe sets baselines: [] <none>"}
    assert ('<p class="missing">No baseline was scored: the recipe sets baselines: [] &lt;none&gt;</p>'
            in render_report(s, base=tmp_path))


def test_a_table_of_more_than_twelve_variants_scrolls_in_its_own_box(tmp_path):
    def box(n):
        s = _summary()
        s["variants"] = [dict(copy.deepcopy(s["variants"][i % 7]), variant=f"v{i:02d}_Latn") for i in range(n)]
        return re.search(r'<div class="(scroll[^"]*)"', _section(render_report(s, base=tmp_path), "variants")).group(1)

    assert (box(12), box(13)) == ("scroll", "scroll tall")


def test_a_count_has_a_sort_key_only_where_its_text_is_not_the_number():
    assert _count_cell(None) == ("\u2013", "")  # missing: sorted last
    assert _count_cell(204) == ("204", None)
    assert _count_cell(1204) == ("1,204", "1204")


def test_a_verdict_without_a_colour_is_shown_plainly_with_its_failing_checks():
    assert _gate_cell({"verdict": "not run", "failing": []}) == ('<span class="tag ">NOT RUN</span>', "not run")
    html, _ = _gate_cell({"verdict": "fail", "failing": ["leakage", "<x>"]})
    assert html == '<span class="tag bad">FAIL</span><ul class="checks"><li>leakage</li><li>&lt;x&gt;</li></ul>'


def test_a_baseline_is_charted_unless_it_ignores_the_text_or_scores_every_variant_alike():
    def variants(**scores):
        return [{"baselines": [{"baseline": b, "accuracy": s[i]} for b, s in scores.items() if i < len(s)]}
                for i in range(max(map(len, scores.values())))]

    assert _charted(variants(mlp=[0.5, 0.6, 0.7], Majority=[0.2, 0.3, 0.4])) == (["mlp"], ["Majority"])
    assert _charted(variants(a=[0.25, 0.25, 0.25])) == ([], ["a"])  # three or more, all alike: chance
    assert _charted(variants(a=[0.25, 0.25 + 1e-12, 0.25])) == ([], ["a"])
    assert _charted(variants(a=[0.25, 0.25])) == (["a"], [])  # two alike may be two good variants
    assert _charted(variants(a=[0.25, 0.25, 0.25 + 1e-6])) == (["a"], [])
    assert _charted(variants(a=[0.0, 0.0, 0.0])) == ([], ["a"])


def _drops(mine: int, side: list[dict]) -> list[dict]:
    return ([{"stage": "curate", "source": f"s{i}", "reason": "too_long", "count": mine - i} for i in range(mine)]
            + [dict(d, stage="adjudicate", in_dataset=False) for d in side])


def test_drops_of_a_side_sample_are_named_apart_per_part_and_counted_in_their_own_column(tmp_path):
    s = _summary()
    s["drops"] = _drops(10, [{"source": "adjudication", "reason": "unresolved", "count": 1},
                             {"source": "adjudication", "reason": "tie", "count": 2, "part": "agreement sample"},
                             {"source": "curate", "reason": "dup", "count": 3, "part": "agreement sample"}])
    section = _section(render_report(s, base=tmp_path), "drops")
    assert ("<p>55 records dropped from the dataset, by source and reason. Not counted in that total: 1 item of a "
            "side sample (adjudication: unresolved), which the dataset is not made from. Not counted in that total: "
            "5 items of the agreement sample (adjudication: tie, curate: dup), which the dataset is not made "
            "from.</p>") in section
    assert _headings(section) == ["Source", "Reason", "Dropped", "Counted in"]
    counted = re.findall(r"<td>([^<]*)</td></tr>", section)
    assert counted == ["the dataset"] * 10 + ["a side sample", "agreement sample", "agreement sample"]
    assert "\u2026 and 2 smaller rows (in the table)" in section  # the chart draws the 8 largest
    assert re.search(r'<div class="scroll tall"', section)  # 13 rows


def test_no_drop_a_dataset_without_drops_and_a_short_ledger(tmp_path):
    s = _summary()
    s["drops"] = []
    assert ('<h2 id="drops-h">Dropped records</h2><p class="missing">No record was dropped.</p></section>'
            in render_report(s, base=tmp_path))
    s["drops"] = _drops(0, [{"source": "adjudication", "reason": "tie", "count": 2, "part": "agreement sample"}])
    section = _section(render_report(s, base=tmp_path), "drops")
    assert '<div class="charts">\n<div class="scroll"' in section  # no chart of the dataset's drops: none
    assert "<p>0 records dropped from the dataset, by source and reason. Not counted in that total: 2 items" in section
    s["drops"] = _drops(12, [])
    section = _section(render_report(s, base=tmp_path), "drops")
    assert "Counted in" not in _headings(section) and '<div class="scroll"' in section


def _variant(code, scores, derived=None, verdict="pass"):
    out = {"variant": code, "gate": {"verdict": verdict, "failing": []},
           "baselines": [{"baseline": b, "accuracy": a} for b, a in scores.items()]}
    return dict(out, derived=derived) if derived else out


def test_each_derived_variant_is_a_row_beside_its_source_with_the_change_per_baseline():
    variants = [_variant("hin_Deva", {"mlp": 0.7, "tfidf": 0.6}),
                _variant("hin_Latn", {"tfidf": 0.55}, {"method": "romanization", "from": "hin_Deva"}, "fail"),
                _variant("mar_Latn", {"mlp": 0.5}, {"method": "romanization", "from": "mar_Deva"}),
                _variant("npi_Deva", {"mlp": 0.72, "tfidf": 0.58}, {"method": "projection", "from": "hin_Deva"})]
    lines = _derived_section({"variants": variants}).splitlines()
    # by hand: mlp moved only in npi_Deva (+2.0); tfidf in hin_Latn (-5.0) and npi_Deva (-2.0), median -3.5
    assert lines[1] == (
        "<p>3 variants made from another one (1 projected, 2 romanized), each beside its source: the difference in "
        "accuracy in percentage points, source \u2192 derived. mlp: median +2.0 pp, largest drop +2.0 pp (npi_Deva); "
        "tfidf: median \u22123.5 pp, largest drop \u22125.0 pp (hin_Latn).</p>")
    assert lines[6:9] == [
        '<tr class="fail derived"><th scope="row">hin_Latn</th><td>romanized</td><td>hin_Deva</td>'
        '<td class="num" data-sort="">\u2013</td><td class="num" data-sort="-0.05">\u22125.0 pp <span class="ci">60.0% '
        '\u2192 55.0%</span></td></tr>',
        '<tr class="derived"><th scope="row">npi_Deva</th><td>projected</td><td>hin_Deva</td><td class="num" '
        'data-sort="0.02">+2.0 pp <span class="ci">70.0% \u2192 72.0%</span></td><td class="num" data-sort="-0.02">'
        '\u22122.0 pp <span class="ci">60.0% \u2192 58.0%</span></td></tr>',
        '<tr class="derived"><th scope="row">mar_Latn</th><td>romanized</td><td>mar_Deva <span class="small">(not in '
        'this release)</span></td><td class="num" data-sort="">\u2013</td><td class="num" data-sort="">\u2013</td>'
        '</tr>']
    one = _derived_section({"variants": variants[:1] + variants[2:3]}).splitlines()[1]
    assert one == ("<p>1 variant made from another one (1 romanized), each beside its source: the difference in "
                   "accuracy in percentage points, source \u2192 derived.</p>")  # no change to sum up
    assert _derived_section({"variants": variants[:1]}) == (
        '<section id="derived" aria-labelledby="derived-h"><h2 id="derived-h">Derived variants</h2><p class="missing">'
        'No variant of this release was made from another one.</p></section>')
    many = [variants[0]] + [_variant(f"v{i:02d}_Latn", {"mlp": 0.5}, {"method": "romanization", "from": "hin_Deva"})
                            for i in range(13)]
    assert '<div class="scroll tall"' in _derived_section({"variants": many})
    assert '<div class="scroll"' in _derived_section({"variants": many[:13]})


def test_the_header_counts_failing_checks_and_variants_and_says_what_the_gate_let_through():
    def header(failing, verdict="fail", **fields):
        s = _summary()
        s["gate"].update(verdict=verdict, failing=[{"variant": v, "check": c} for v, c in failing],
                         allowed_failing=fields.pop("allowed", False))
        s.update(fields)
        return _header(s)

    assert "<small>1 failing check in 1 variant</small>" in header([("a", "x")])
    assert "<small>2 failing checks in 1 variant</small>" in header([("a", "x"), ("a", "y")])
    assert "<small>2 failing checks in 2 variants</small>" in header([("a", "x"), ("b", "x")])
    assert header([], released=False).endswith(
        '\n<p class="banner">Not released: the gate stopped the release before the export (--allow-failing-gate '
        'releases it anyway).</p>')
    assert header([("a", "x")], allowed=True).endswith(
        '\n<p class="banner">Gate failing allowed: this release went ahead with a failing gate '
        '(--allow-failing-gate); the dataset card says so.</p>')
    assert header([], verdict="pass", allowed=True).endswith(
        '\n<p class="banner">Gate failing allowed (--allow-failing-gate), but the gate passed.</p>')
    assert header([], verdict="not run", allowed=True).endswith(
        '\n<p class="banner">Gate failing allowed (--allow-failing-gate); the gate did not give a verdict.</p>')


def test_the_agreement_section_without_agreement_without_a_matrix_and_its_cell_colours():
    assert _agreement_section({"agreement": None}) == (
        '<section id="agreement" aria-labelledby="agreement-h"><h2 id="agreement-h">Annotator agreement</h2>'
        '<p class="missing">No annotation agreement was measured in this release.</p></section>')
    agreement = copy.deepcopy(_summary()["agreement"])
    bare = _agreement_section({"agreement": dict(agreement, matrix=[])})
    assert bare.endswith('</dl>\n<p class="missing">No label co-assignment matrix was recorded.</p></section>')
    assert bare.split("\n")[:2] == [  # heading, what it was measured on, the measures, the missing matrix
        '<section id="agreement" aria-labelledby="agreement-h"><h2 id="agreement-h">Annotator agreement</h2>',
        "<p>Measured on 1,004 items judged by 3 annotators: the items the released variant was made from.</p>"]
    page = _agreement_section({"agreement": dict(agreement, labels=["a", "b"], matrix=[[2, 1], [1, 2]])})
    cells = re.findall(r'<td( class="diag")? style="background:([^;]+);color:([^"]+)">(\d+)</td>', page)
    # white text only on cells darker than half the largest count; exactly half keeps the dark text
    assert [(diag, fg, n) for diag, _, fg, n in cells] == [
        (' class="diag"', "#fff", "2"), ("", "#1f2328", "1"), ("", "#1f2328", "1"), (' class="diag"', "#fff", "2")]


def test_the_stages_table_no_stage_an_unknown_status_the_time_of_what_ran_and_a_long_list(tmp_path):
    assert _stages_section({"stages": []}, tmp_path) == (
        '<section id="stages" aria-labelledby="stages-h"><h2 id="stages-h">Stages</h2><p class="missing">No stage '
        'was recorded.</p></section>')
    stages = [{"name": "a", "status": "ran", "seconds": 1.0, "manifest": None},
              {"name": "b", "status": "ran", "seconds": 2.5, "manifest": None},
              {"name": "c", "status": "ran", "seconds": None, "manifest": None},
              {"name": "d", "status": "skipped", "seconds": 0.25, "manifest": None},  # its inputs hashed: 0.25 s
              {"name": "e", "status": "queued", "seconds": None, "manifest": None}]
    assert _stages_note(stages) == ("5 stages: 3 ran (3.50 s), 1 skipped, 1 queued (their recorded inputs and "
                                    "options had not changed).")
    section = _stages_section({"stages": stages}, tmp_path)
    assert '<span class="tag ">queued</span>' in section and '<div class="scroll"' in section
    twelve = (stages * 3)[:12]
    assert '<div class="scroll"' in _stages_section({"stages": twelve}, tmp_path)
    assert '<div class="scroll tall"' in _stages_section({"stages": twelve + stages[:1]}, tmp_path)


def test_the_page_links_the_language_model_section_only_when_there_is_one(tmp_path):
    s = _summary()
    assert '<a href="#model">' not in render_report(s, base=tmp_path)
    s["model"] = {"name": "SmolLM2-135M", "settings": {}}
    assert '<a href="#model">Language model</a>' in render_report(s, base=tmp_path)


def test_the_failing_checks_count_variants_per_check_most_first_and_a_long_list_scrolls(tmp_path):
    s = _summary()
    s["gate"].update(report=None, failing=[])
    assert _gate_section(s, tmp_path) == ('<section id="gate" aria-labelledby="gate-h"><h2 id="gate-h">Failing '
                                          'checks</h2>\n<p>No check failed.</p></section>')
    s["gate"]["report"] = "qc/qc_report.md"
    assert _gate_section(s, tmp_path).split("\n") == [
        '<section id="gate" aria-labelledby="gate-h"><h2 id="gate-h">Failing checks</h2>',
        '<p>Full report: <span class="missing">QC report <code>qc/qc_report.md</code> (not in the release folder)'
        '</span></p>', "<p>No check failed.</p></section>"]
    s["gate"]["failing"] = [{"variant": v, "check": c, "detail": ""} for v, c in (
        ("a", "leakage"), ("b", "leakage"), ("a", "balance"), ("a", "leakage"), ("c", "script"), ("d", "script"),
        ("e", "script"), ("f", "dup"), ("g", "dup"))]  # leakage named twice for a: two variants, not three
    section = _gate_section(s, tmp_path)
    assert re.findall(r"<li><b>(\w+)</b> (\d+)</li>", section) == [
        ("script", "3"), ("dup", "2"), ("leakage", "2"), ("balance", "1")]
    assert '<div class="scroll tall"' in section  # nine rows
    s["gate"]["failing"] = s["gate"]["failing"][:8]
    assert '<div class="scroll"' in _gate_section(s, tmp_path)
    s["links"] = []
    assert '<h2 id="files-h">Files</h2>\n<p class="missing">No file is linked.</p>' in _files_section(s, tmp_path)
