"""The release report page (``builder.release.report``): structure, escaping, links, determinism, golden.

The page is parsed back with the standard library's ``html.parser``, not with
anything the renderer uses, and its cells are compared with the summary
fixture ``tests/data/release/summary.json``. The browser side (sorting, no
request leaving the file, the screenshot) is in ``test_report_browser.py``.
"""
from __future__ import annotations

import copy
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from builder.release.report import render_report

SUMMARY = Path(__file__).parents[1] / "data" / "release" / "summary.json"
GOLDEN = Path(__file__).parents[1] / "golden" / "release" / "report.html"


class Page(HTMLParser):
    """Every start tag with its attributes, and every table as rows of cell texts."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []
        self.tables: list[dict] = []  # {"caption": str, "head": [..], "rows": [[..], ..]}
        self._cell: list[str] | None = None
        self._caption: list[str] | None = None
        self._row: list[str] | None = None
        self._in_head = False
        self._in_foot = False
        self.text: list[str] = []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag == "table":
            self.tables.append({"caption": "", "head": [], "rows": [], "class": dict(attrs).get("class", "")})
        elif tag == "caption":
            self._caption = []
        elif tag == "thead":
            self._in_head = True
        elif tag == "tfoot":  # the filters' row count (CSS), not a row of data
            self._in_foot = True
        elif tag == "tr" and not self._in_foot:
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._cell = []
        elif tag in ("br", "li") and self._cell is not None:
            self._cell.append(" ")

    def handle_endtag(self, tag):
        if tag == "caption":
            self.tables[-1]["caption"] = "".join(self._caption).strip()
            self._caption = None
        elif tag == "thead":
            self._in_head = False
        elif tag == "tfoot":
            self._in_foot = False
        elif tag in ("td", "th") and self._cell is not None and self._row is not None:
            self._row.append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif tag == "tr" and self._row is not None:
            (self.tables[-1]["head"] if self._in_head else self.tables[-1]["rows"]).append(self._row)
            self._row = None

    def handle_data(self, data):
        self.text.append(data)
        for sink in (self._cell, self._caption):
            if sink is not None:
                sink.append(data)

    def table(self, caption: str) -> dict:
        found = [t for t in self.tables if t["caption"] == caption]
        assert len(found) == 1, f"expected one table {caption!r}, found {[t['caption'] for t in self.tables]}"
        return found[0]


def load_summary() -> dict:
    """The fixture, with the ``derived`` that summary.py writes for hin_Latn (romanized from hin_Deva) where
    the fixture predates it."""
    summary = json.loads(SUMMARY.read_text(encoding="utf-8"))
    for v in summary["variants"]:
        v.setdefault("derived", {"method": "romanization", "from": "hin_Deva"} if v["variant"] == "hin_Latn" else None)
    return summary


def release_folder(root: Path, summary: dict) -> Path:
    """A release folder holding every file the summary links to (empty files)."""
    paths = [k["path"] for k in summary["links"]] + [s["manifest"] for s in summary["stages"]]
    for path in paths + [summary["gate"]["report"]]:
        if path:
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_text("", encoding="utf-8")
    return root


@pytest.fixture
def summary() -> dict:
    return load_summary()


@pytest.fixture
def page(summary, tmp_path) -> str:
    return render_report(summary, base=release_folder(tmp_path, summary))


def test_report_matches_the_golden_file(page, golden):
    golden("release/report.html", page)


def test_golden_report_cells_match_the_fixture_by_hand():
    """The golden page parsed back, cell by cell, against the fixture's numbers and hand sums."""
    summary = load_summary()
    parsed = Page(GOLDEN.read_text(encoding="utf-8"))
    variants = parsed.table("Variants")
    assert variants["head"] == [["Variant", "Script", "Origin", "train rows", "dev rows", "test rows", "Gate",
                                 "Licenses", "majority accuracy", "mlp accuracy", "char_tfidf accuracy"]]
    assert [r[0] for r in variants["rows"]] == [v["variant"] for v in summary["variants"]]
    for row, v in zip(variants["rows"], summary["variants"]):
        assert row[1:3] == [v["script"], v["origin"]]
        assert [int(c.replace(",", "")) for c in row[3:6]] == [v["rows"][s] for s in ("train", "dev", "test")]
        assert row[6].split() == [v["gate"]["verdict"].upper()] + v["gate"]["failing"]
        for cell, b in zip(row[8:], v["baselines"]):
            acc, low, high = (round(100 * b[k], 1) for k in ("accuracy", "ci_low", "ci_high"))
            assert cell.startswith(f"{acc:.1f}% [{low:.1f}, {high:.1f}] n = {b['n']}")
    assert variants["rows"][6][7] == ("train: CC-BY-SA-4.0 commercial use: yes dev: LicenseRef-kas-research "
                                      "commercial use: unknown test: LicenseRef-kas-research commercial use: unknown")
    assert variants["rows"][0][7] == "all splits: CC-BY-SA-4.0, commercial use: yes"
    # hin_Latn, romanized from hin_Deva, right under it; by hand: mlp 65.2 - 69.1 = -3.9, char_tfidf 61.8 - 68.1
    # = -6.4 (the unrounded 0.652 - 0.6912 and 0.6176 - 0.6814); none for majority, which cannot differ from chance
    assert [r[0] for r in variants["rows"][1:3]] == ["hin_Deva", "hin_Latn"]
    assert variants["rows"][2][8:] == ["25.5% [20.0, 31.9] n = 204", "65.2% [58.4, 71.4] n = 204 \u22123.9 pp vs hin_Deva",
                                       "61.8% [54.9, 68.2] n = 204 \u22126.4 pp vs hin_Deva"]
    assert parsed.table("Derived variants")["rows"] == [["hin_Latn", "romanized", "hin_Deva",
                                                         "\u22123.9 pp 69.1% \u2192 65.2%",
                                                         "\u22126.4 pp 68.1% \u2192 61.8%"]]
    # by hand: mlp 160/204 = 78.4%, Wilson 95% interval [72.3, 83.5] (statsmodels, method="wilson")
    assert variants["rows"][0][9] == "78.4% [72.3, 83.5] n = 204"
    text = " ".join(" ".join(parsed.text).split())
    # drops by hand: 473 + 27 + 0 + 3 + 5 = 508; annotation eng_14 473 + 27 = 500
    assert "508 records dropped" in text and "annotation eng_14: 500 dropped" in text
    drops = parsed.table("Drop ledger")["rows"]
    assert [[r[0], r[1], int(r[2])] for r in drops] == [[d["source"], d["reason"], d["count"]] for d in summary["drops"]]
    # stages by hand: 1.23 + 0.41 + 12.8 + 3.07 + 9.6 + 4.35 + 27.9 = 59.36 s in the 7 that ran, 2 skipped
    assert "9 stages: 7 ran (59.36 s), 2 skipped" in text
    heat = [t for t in parsed.tables if t["class"] == "heat"][0]
    assert heat["head"][0][1:] == summary["agreement"]["labels"]
    assert [[int(c.replace(",", "")) for c in r[1:]] for r in heat["rows"]] == summary["agreement"]["matrix"]
    assert "Fleiss' kappa 0.731 Krippendorff's alpha 0.731" in text
    assert "Gate: FAIL 4 failing checks in 3 variants" in text and "Gate failing allowed" in text
    failing = parsed.table("Failing checks")["rows"]
    # the fixture's failing checks name no records (qc_report.json had none): the cell says so
    assert failing == [[f["variant"], f["check"], f["detail"], "no records named in the check\u2019s result"]
                       for f in summary["gate"]["failing"]]


def test_every_variant_row_is_present_and_sortable(page, summary):
    parsed = Page(page)
    rows = parsed.table("Variants")["rows"]
    assert [r[0] for r in rows] == [v["variant"] for v in summary["variants"]]
    heads = [a for tag, a in parsed.tags if tag == "th" and a.get("scope") == "col"]
    buttons = [a for tag, a in parsed.tags if tag == "button"]
    # every column heading of a data table is a button; the agreement matrix's label headings are not
    # failing checks 4, variants 11, derived variants 5, drop ledger 3, stages 4
    assert len(buttons) == len(heads) - len(summary["agreement"]["labels"]) == 4 + 11 + 5 + 3 + 4
    assert all(a.get("type") == "button" for a in buttons)
    numeric = [a for tag, a in parsed.tags if tag == "th" and a.get("data-type") == "number"]
    # rows per split, accuracy per baseline, difference per charted baseline, dropped, seconds
    assert len(numeric) == 3 + 3 + 2 + 1 + 1
    cells = [a for tag, a in parsed.tags if tag == "td" and a.get("class") == "num"]
    # a count shown as its digits (701) sorts by its text, every other number by its data-sort
    assert cells and all(re.fullmatch(r"-?[0-9.e+-]*", a["data-sort"]) for a in cells if "data-sort" in a)
    assert sum("data-sort" not in a for a in cells) == 3 * 7


MALICIOUS = ['<script>alert(1)</script>', '"><img src=x onerror=alert(1)>', "x' onmouseover='alert(1)",
             "</title><style>body{display:none}</style>", "a & b < c"]


def test_every_summary_string_is_escaped(summary, tmp_path):
    bad = copy.deepcopy(summary)
    bad["dataset"]["pretty_name"] = MALICIOUS[3]
    bad["dataset"]["citation"] = MALICIOUS[0]
    bad["variants"][0]["variant"] = MALICIOUS[0]
    bad["variants"][1]["variant"] = MALICIOUS[1]
    bad["variants"][2]["script"] = MALICIOUS[2]
    bad["variants"][3]["baselines"][0]["baseline"] = MALICIOUS[1]
    bad["drops"][0]["source"] = MALICIOUS[4]
    bad["drops"][1]["reason"] = MALICIOUS[0]
    bad["gate"]["failing"][0]["detail"] = MALICIOUS[1]
    bad["agreement"]["labels"][0] = MALICIOUS[0]
    bad["links"][0]["title"] = MALICIOUS[2]
    bad["stages"][0]["name"] = MALICIOUS[3]
    bad["variants"][2]["derived"] = {"method": MALICIOUS[2], "from": MALICIOUS[1]}  # from the renamed hin_Deva
    bad["gate"]["failing"][1]["items"] = [{"ids": [MALICIOUS[1], MALICIOUS[4]], "texts": [MALICIOUS[0]],
                                           "jaccard": 0.9}]
    page = render_report(bad, base=release_folder(tmp_path, bad))
    for text in MALICIOUS:
        assert text not in page
    parsed = Page(page)
    assert [t for t, _ in parsed.tags].count("script") == 1 and "img" not in [t for t, _ in parsed.tags]
    head = [t for t, _ in parsed.tags][:[t for t, _ in parsed.tags].index("body")]
    assert [t for t, _ in parsed.tags].count("style") == 1 and head.count("title") == 1
    assert not [(t, k) for t, a in parsed.tags for k in a if k.startswith("on")]
    assert [r[0] for r in parsed.table("Variants")["rows"]][:2] == MALICIOUS[:2]  # shown as text, unchanged
    assert f"Release report: {MALICIOUS[3]}" in "".join(parsed.text)
    # a derived variant's source and a failing check's records come back as text too
    assert parsed.table("Derived variants")["rows"][0][:3] == ["hin_Latn", "derived", MALICIOUS[1]]
    assert parsed.table("Failing checks")["rows"][1][3] == (f"{MALICIOUS[1]} = {MALICIOUS[4]} (Jaccard 0.90) "
                                                            f"{MALICIOUS[0]}")  # in a <q>: quotes from CSS


@settings(max_examples=40, deadline=None)
# not the categories schemas.escape.for_html writes visibly (control, format, line and paragraph separators)
@given(name=st.text(st.characters(blacklist_categories=("Cs", "Cc", "Cf", "Zl", "Zp")), min_size=1, max_size=30)
       .filter(lambda s: s.strip() == s and "  " not in s))
def test_any_variant_name_comes_back_as_text(name):
    summary = load_summary()
    summary["variants"][0]["variant"] = name
    summary["drops"][0]["source"] = name
    parsed = Page(render_report(summary, base=Path("/nonexistent")))
    assert parsed.table("Variants")["rows"][0][0] == " ".join(name.split())
    assert parsed.table("Drop ledger")["rows"][0][0] == " ".join(name.split())
    assert [t for t, _ in parsed.tags].count("script") == 1


def test_links_are_relative_and_nothing_is_fetched(page, summary):
    parsed = Page(page)
    urls = [(t, k, v) for t, a in parsed.tags for k, v in a.items()
            if k in ("href", "src", "xlink:href", "action", "srcset", "poster", "data")]
    assert not [u for u in urls if re.match(r"\s*(https?:|//|file:)", u[2] or "", re.I)], urls
    assert not re.search(r"url\(|@import", page)  # no CSS fetch either
    hrefs = [v for t, k, v in urls if t == "a"]
    assert {h for h in hrefs if h.startswith("#")} == {"#gate", "#warnings", "#variants", "#accuracy", "#derived", "#drops",
                                                     "#agreement", "#stages", "#files"}
    files = [h for h in hrefs if not h.startswith("#")]
    expected = {k["path"] for k in summary["links"]} | {s["manifest"] for s in summary["stages"]}
    assert set(files) == expected | {summary["gate"]["report"]}
    assert [v for t, k, v in urls if t == "link"] == ["data:,"]
    policy = [a["content"] for t, a in parsed.tags if a.get("http-equiv") == "Content-Security-Policy"]
    assert policy and policy[0].startswith("default-src 'none';")
    assert "http://" not in page and "https://" not in page  # the fixture has none in its text either


def test_a_link_outside_the_folder_or_missing_is_text(summary, tmp_path):
    base = release_folder(tmp_path / "rel", summary)
    (tmp_path / "secret.txt").write_text("", encoding="utf-8")
    summary["links"] = [{"title": "abs inside", "path": str(base / "export" / "README.md")},
                        {"title": "outside", "path": str(tmp_path / "secret.txt")},
                        {"title": "up", "path": "../secret.txt"},
                        {"title": "missing", "path": "stages/nothing here.json"},
                        {"title": "space", "path": "a dir/b#c.md"}]
    (base / "a dir").mkdir()
    (base / "a dir" / "b#c.md").write_text("", encoding="utf-8")
    parsed = Page(render_report(summary, base=base))
    links = {a["href"] for t, a in parsed.tags if t == "a"}
    assert "export/README.md" in links and "a%20dir/b%23c.md" in links
    assert not [h for h in links if "secret" in h or "nothing" in h or h.startswith("/")]
    text = " ".join(" ".join(parsed.text).split())
    assert "missing stages/nothing here.json (not in the release folder)" in text
    assert "up ../secret.txt (not in the release folder)" in text


def test_same_summary_same_bytes(summary, tmp_path):
    base = release_folder(tmp_path, summary)
    first = render_report(summary, base=base)
    shuffled = copy.deepcopy(summary)
    for v in shuffled["variants"]:
        v["rows"] = dict(reversed(list(v["rows"].items())))
    shuffled["agreement"]["measures"] = dict(reversed(list(shuffled["agreement"]["measures"].items())))
    assert render_report(shuffled, base=base) == first == render_report(load_summary(), base=base)
    assert not re.search(r"20[0-9]{2}-[0-9]{2}-[0-9]{2}", first)  # no date; the citation's year is not a date


def empty_summary(kind: str) -> dict:
    return {"version": 1, "dataset": {"name": "x", "pretty_name": "X", "citation": "", "pivot": "eng_Latn",
                                      "kind": kind},
            "tool": {"name": "mc-dataset-builder", "version": "0.1.0"}, "stages": [],
            "gate": {"verdict": "pass", "allowed_failing": False, "failing": [], "report": None},
            "variants": [], "drops": [], "agreement": None, "links": []}


@pytest.mark.parametrize("kind", ["topic", "mc"])
def test_empty_lists_and_no_agreement(kind, tmp_path):
    page = render_report(empty_summary(kind), base=tmp_path)
    parsed = Page(page)
    assert not parsed.tables
    text = " ".join(" ".join(parsed.text).split())
    for line in ("This release has no variants.", "No baseline was scored.", "No record was dropped.",
                 "No annotation agreement was measured in this release.", "No stage was recorded.",
                 "No file is linked.", "No check failed.", "Gate: PASS every check passed"):
        assert line in text
    assert "Gate failing allowed" not in text and "<svg" not in page


def test_mc_accuracy_chart_marks_chance_and_topic_does_not(summary, tmp_path):
    topic = render_report(summary, base=tmp_path)
    summary["dataset"]["kind"] = "mc"
    mc = render_report(summary, base=tmp_path)
    assert 'class="chance"' in mc and "chance 25%" in mc and 'class="chance"' not in topic
    assert "multiple-choice reading comprehension" in mc and "topic classification" in topic


def test_allowed_failing_banner_and_nulls(tmp_path):
    s = empty_summary("mc")
    s["gate"]["allowed_failing"] = True
    s["variants"] = [{"variant": "eng_Latn", "language": "eng", "script": "Latn", "origin": "dataset folder",
                      "rows": {"train": 10, "test": 5}, "gate": {"verdict": "pass", "failing": []},
                      "licenses": [{"split": "train", "license": "MIT", "commercial": False},
                                   {"split": "test", "license": "MIT", "commercial": None}],
                      "baselines": [{"baseline": "chance", "accuracy": None, "ci_low": None, "ci_high": None,
                                     "n": 5}]}]
    s["stages"] = [{"name": "qc", "status": "skipped", "seconds": None, "manifest": None}]
    parsed = Page(render_report(s, base=tmp_path))
    text = " ".join(" ".join(parsed.text).split())
    assert "Gate failing allowed (--allow-failing-gate), but the gate passed." in text
    row = parsed.table("Variants")["rows"][0]
    assert row == ["eng_Latn", "Latn", "dataset folder", "10", "5", "PASS",
                   "train: MIT commercial use: no test: MIT commercial use: unknown", "\u2013"]
    assert parsed.table("Stages")["rows"] == [["qc", "skipped", "\u2013", "\u2013"]]


def test_a_summary_of_another_version_is_refused(summary, tmp_path):
    summary["version"] = 2
    with pytest.raises(ValueError, match="release summary version must be 1, found 2"):
        render_report(summary, base=tmp_path)
    summary["version"], summary["dataset"]["kind"] = 1, "nli"
    with pytest.raises(ValueError, match="dataset kind must be one of topic, mc, found 'nli'"):
        render_report(summary, base=tmp_path)


def _bars(page: str, chart_label: str) -> list[float]:
    svg = [s for s in page.split("<svg")[1:] if chart_label in s.split(">", 1)[0]]
    assert len(svg) == 1, chart_label
    return [float(w) for w in re.findall(r'<rect class="bar" x="[0-9.]+" y="[0-9.]+" width="([0-9.]+)"', svg[0])]


def test_bar_lengths_follow_the_numbers(page, summary):
    # drops: largest first within a source, sources by total; 400 px is the largest count (473)
    counts = [473, 27, 5, 3, 0]  # annotation eng_14 (500), kas_Arab (5), flores-raw nqo_Nkoo (3)
    assert _bars(page, "Dropped records") == pytest.approx([400 * c / 473 for c in counts], abs=0.05)


def _chart(page: str, chart_label: str) -> str:
    svg = [s for s in page.split("<svg")[1:] if chart_label in s.split(">", 1)[0]]
    assert len(svg) == 1, chart_label
    return svg[0].split("</svg>")[0]


def test_script_dots_are_the_medians_and_majority_is_not_charted(page):
    # mlp by script, by hand: Latn eng 78.43; Deva median of 69.12 and 67.65 = 68.385; Beng 66.67; Arab 57.84;
    # Nkoo 43.14; then apart, romanized Latin: hin_Latn 65.2. 300 px is 100%, from x = 150
    chart = _chart(page, "Accuracy of mlp by script")
    dots = [float(x) for x in re.findall(r'<circle class="dot" cx="([0-9.]+)"', chart)]
    assert dots == pytest.approx([150 + 300 * m for m in (0.7843, 0.68385, 0.6667, 0.5784, 0.4314, 0.652)], abs=0.05)
    labels = re.findall(r"<text x=\"0\" y=\"[0-9.]+\"(?: class=\"derived\")?>([^<]+)</text>", chart)
    assert labels == ["Latn", "Deva", "Beng", "Arab", "Nkoo", "Latn, romanized"]
    # the Deva range: a line from 67.65% to 69.12%; no box under four variants
    assert f'<path class="range" d="M{150 + 300 * 0.6765:.1f} ' in chart and "<rect" not in chart
    assert "<title>Deva: 2 variants, median 68.4%, range 67.7\u201369.1%</title>" in chart  # 67.65 rounds up
    assert "Accuracy of majority" not in page
    assert "Not charted: <b>majority</b> (median 25.5%, range 25.5\u201325.5% over 7 variants)" in page


def test_gate_not_run_stages_without_timings_and_no_matrix(tmp_path):
    """What a release stopped early writes: no verdict, stages recorded as done without seconds, no matrix."""
    s = empty_summary("topic")
    s["released"] = False
    s["gate"] = {"verdict": "not run", "allowed_failing": True, "failing": [], "report": None}
    s["stages"] = [{"name": "curate", "status": "done", "seconds": None, "manifest": "stages/curate/stage.json"},
                   {"name": "split", "status": "done", "seconds": None, "manifest": "stages/split/stage.json"}]
    s["agreement"] = {"labels": ["a", "b"], "annotators": None, "items": 12, "measures": {"fleiss_kappa": None,
                      "gwet_ac1": 0.5}, "matrix": None}
    parsed = Page(render_report(s, base=tmp_path))
    text = " ".join(" ".join(parsed.text).split())
    assert "Gate: NOT RUN no failing check recorded" in text
    assert "Not released: the gate stopped the release before the export" in text
    assert "the gate did not give a verdict" in text
    assert "2 stages: 2 done." in text
    assert parsed.table("Stages")["rows"] == [["curate", "done", "\u2013", "stages/curate/stage.json (not in the "
                                               "release folder)"], ["split", "done", "\u2013", "stages/split/stage."
                                               "json (not in the release folder)"]]
    assert "Annotators \u2013 Items 12 Fleiss' kappa \u2013 gwet ac1 0.500" in text
    assert "No label co-assignment matrix was recorded." in text
    assert [a.get("class") for t, a in parsed.tags if t == "div" and "verdict" in a.get("class", "")] == [
        "verdict other"]


# -- the language model's section (a release with `model:`) ------------------------------------------------

MODEL = {"name": "SmolLM2-135M <Instruct>", "settings": {"model": "smollm2.gguf", "limit": 8, "seed": 0,
                                                         "num_fewshot": 5, "selection": "8 items, spread over the labels"},
         "disparity": {"SmolLM2-135M <Instruct>": {"mean_prr": 0.41234, "cv_prr": None},
                       "char_linear": {"mean_prr": 0.9, "cv_prr": 0.0512},
                       "majority": {"mean_prr": None, "cv_prr": None}}}


def _model_page(summary, tmp_path, model) -> Page:
    summary["model"] = model
    return Page(render_report(summary, base=release_folder(tmp_path, summary)))


def _section_text(page: Page, heading: str) -> str:
    text = " ".join("".join(page.text).split())
    start = text.index(heading)
    return text[start:]


def test_the_model_section_names_the_model_its_items_and_each_systems_prr(summary, tmp_path):
    """Before, no test rendered it (the fixture has no model; the model release runs in a shared fixture):
    105 mutants of ``_model_section`` had no test."""
    page = _model_page(summary, tmp_path, copy.deepcopy(MODEL))
    assert [a for t, a in page.tags if t == "a" and a.get("href") == "#model"]  # in the page's contents
    assert ("section", {"id": "model", "aria-labelledby": "model-h"}) in page.tags
    text = _section_text(page, "Language model SmolLM2")
    assert text.startswith("Language model SmolLM2-135M <Instruct> on the export's lm-eval tasks, the test split: "
                           "8 items, spread over the labels; 5-shot. Its accuracy per variant is in the variants "
                           "table and, by script, in the charts above, beside the baselines'. PRR = accuracy / "
                           "performance potential of the variant (a mixed model over the systems, Hu et al.); "
                           "CV-PRR: its spread across variants, lower is more even.")
    table = page.table("Performance realisation ratio over the release's variants")
    assert table["head"] == [["system", "mean PRR", "CV-PRR"]]
    assert table["rows"] == [["SmolLM2-135M <Instruct>", "0.412", "\u2013"], ["char_linear", "0.900", "0.051"],
                             ["majority", "\u2013", "\u2013"]]
    html = render_report(summary, base=tmp_path)
    section = html[html.index('<section id="model"'):]
    section = section[:section.index("</section>") + len("</section>")]
    assert section.endswith("</tbody></table></div>\n</section>")
    # the sort keys: the name escaped, a number's full value, a missing one empty (sorted last)
    assert '<th scope="row" data-sort="SmolLM2-135M &lt;Instruct&gt;">' in section
    assert '<td class="num" data-sort="0.41234">0.412</td><td class="num" data-sort="">\u2013</td>' in section
    assert '<td class="num" data-sort="0.9">0.900</td><td class="num" data-sort="0.0512">0.051</td>' in section
    assert ('<thead><tr><th scope="col"><button type="button">system<span class="arrow" aria-hidden="true"></span>'
            '</button></th><th scope="col" data-type=number>') in section  # names sort as text, PRRs as numbers


def test_the_model_section_without_settings_or_disparity_says_what_is_missing(summary, tmp_path):
    page = _model_page(summary, tmp_path, {"name": "m", "settings": None, "disparity": None})
    text = _section_text(page, "Language model m on")
    assert text.startswith("Language model m on the export's lm-eval tasks, the test split: every test item; "
                           "0-shot.")
    assert "No disparity figures: the fit could not run (see the stages)." in text
    assert not [t for t in page.tables if t["caption"].startswith("Performance realisation ratio")]
    html = render_report(summary, base=tmp_path)
    assert html[html.index('<section id="model"'):].startswith(
        '<section id="model" aria-labelledby="model-h"><h2 id="model-h">Language model</h2>\n<p><b>m</b> on the '
        "export's lm-eval tasks, the test split: every test item; 0-shot. Its accuracy per variant is in the "
        "variants table and, by script, in the charts above, beside the baselines'.</p>\n"
        '<p class="missing">No disparity figures: the fit could not run (see the stages).</p>\n</section>')


def test_a_release_without_a_model_has_no_model_section(page):
    assert 'id="model"' not in page and 'href="#model"' not in page


@pytest.mark.parametrize("licenses, html", [
    ([], '<span class="warn">none recorded</span>'),
    ([{"split": "test", "license": "CC-BY-SA-4.0", "commercial": True}],
     '<span class="small">all splits:</span> CC-BY-SA-4.0, <span class="small">commercial use:</span> '
     '<span class="tag ok">yes</span>'),
    ([{"split": "train", "license": "RACE-research", "commercial": False},
      {"split": "dev", "license": "RACE-research", "commercial": False}],
     '<span class="small">all splits:</span> RACE-research, <span class="small">commercial use:</span> '
     '<span class="tag bad">no</span>'),
    ([{"split": "train", "license": "A & B", "commercial": None},
      {"split": "<dev>", "license": "C", "commercial": "per source"}],
     '<span class="small">train:</span> <span class="lic">A &amp; B</span><br><span class="small">commercial use:'
     '</span> <span class="tag warn">unknown</span><br><span class="small">&lt;dev&gt;:</span> <span class="lic">C'
     '</span><br><span class="small">commercial use:</span> <span class="tag ">per source</span>'),
    ([{"split": "test", "license": "X", "commercial": "<b>maybe</b>"}],
     '<span class="small">all splits:</span> X, <span class="small">commercial use:</span> '
     '<span class="tag ">&lt;b&gt;maybe&lt;/b&gt;</span>'),
])
def test_the_license_cell_of_a_variant(licenses, html):
    """One line when every split has the same terms, else one per split; an unrecorded or unexpected
    commercial-use value is shown as it is, escaped (issue 27: ``_licenses`` survivors)."""
    from builder.release.report import _licenses

    assert _licenses(licenses) == html


def test_the_accuracy_groups_are_by_script_and_how_a_variant_was_made_best_median_first():
    from builder.release.report import _groups

    def v(code, script, acc, derived=None):
        return {"variant": code, "script": script, "derived": derived,
                "baselines": [{"baseline": "char_linear", "accuracy": acc}, {"baseline": "majority", "accuracy": 0.25}]}

    rom = {"method": "romanization", "from": "hin_Deva"}
    variants = [v("xxx_Zzzz", "Zzzz", None),  # not scored: left out, and the variants after it still counted
                v("hin_Deva", "Deva", 0.7), v("mar_Deva", "Deva", 0.5), v("eng_Latn", "Latn", 0.8),
                v("qaa_Unkn", None, 0.4), v("hin_Latn", "Latn", 0.6, rom), v("zzz_Latn", None, 0.3, rom)]
    assert _groups(variants, "char_linear") == [
        {"label": "Latn", "derived": False, "values": [0.8]},
        {"label": "Deva", "derived": False, "values": [0.7, 0.5]},
        {"label": "?", "derived": False, "values": [0.4]},
        {"label": "Latn, romanized", "derived": True, "values": [0.6]},
        {"label": "?, romanized", "derived": True, "values": [0.3]},
    ]


@pytest.mark.parametrize("text, shown", [
    ("a" * 10, "a" * 10), ("a" * 11, "a" * 9 + "\u2026"), ("a  b\n c", "a b c"), ("a" * 9, "a" * 9)])
def test_a_text_is_shown_whole_up_to_the_limit_and_cut_with_an_ellipsis_past_it(text, shown):
    """The one helper that cuts a record's text, for the checks' results (60 characters) and the report."""
    from schemas.names import shorten

    assert shorten(text, 10) == shown and len(shorten(text, 10)) <= 10
    assert shorten("a" * 60) == "a" * 60 and shorten("a" * 61) == "a" * 59 + "\u2026"


def test_the_records_of_a_failing_check_are_its_ids_a_text_or_two_and_how_many_more():
    from builder.release.report import _records_cell

    same = {"ids": ["train:1", "test:9"], "texts": ["A cat.", "A  cat."]}  # one text, however often given
    near = {"ids": ["a", "b"], "texts": ["x" * 60, "y" * 60], "jaccard": 0.9149}  # both, each half as long
    three = {"texts": ["p", "q", "r"], "jaccard": True}  # no ids; two texts of three; a flag is no Jaccard
    cell = _records_cell([same, near, three])
    assert cell == ('<ul class="items">'
                    '<li><code>train:1</code> = <code>test:9</code> <q>A cat.</q></li>'
                    '<li><code>a</code> = <code>b</code> <span class="small">(Jaccard 0.91)</span> '
                    f'<q>{"x" * 44}\u2026</q> / <q>{"y" * 44}\u2026</q></li>'
                    '<li><span class=warn>no ids</span> <q>p</q> / <q>q</q></li></ul>')
    assert _records_cell([{"texts": []}]) == '<ul class="items"><li><span class=warn>no ids</span></li></ul>'
    assert _records_cell([same] * 4).endswith('<li class="small">and 1 more in the QC report</li></ul>')
    assert "more in the QC report" not in _records_cell([same] * 3)


@pytest.mark.parametrize("agreement, text", [
    ({"items": 1, "annotators": 0}, "Measured on 1 item: the items the released variant was made from."),
    ({"items": 12, "annotators": 3, "judgements": "sib_small_long.csv"},
     "Measured on 12 items judged by 3 annotators (sib_small_long.csv): the items the released variant was made "
     "from."),
    ({"items": 2, "sample": True, "variant": "eng_Latn"},
     "Measured on a 2-item sample: 2 items, not the dataset's own items. Read the figures as the agreement of that "
     "sample."),
    ({"items": 12, "annotators": 4, "sample": True, "variant": "eng_Latn", "released_rows": 701},
     "Measured on a 12-item sample: 12 items judged by 4 annotators, not the dataset's own items; the released "
     "eng_Latn has 701 rows. Read the figures as the agreement of that sample."),
])
def test_the_agreement_says_what_it_was_measured_on(agreement, text):
    from builder.release.report import _measured_on

    assert _measured_on(agreement) == text


@pytest.mark.parametrize("score, cell", [
    ({"accuracy": 0.725, "ci_low": 0.6, "ci_high": 0.8, "n": 204},
     ('72.5% <span class="ci">[60.0, 80.0] n = 204</span>', "0.725")),
    ({"accuracy": 0.725, "ci_low": 0.6, "ci_high": None}, ("72.5%", "0.725")),  # half an interval is none
    ({"accuracy": 0.725, "ci_low": None, "ci_high": 0.8, "n": None}, ("72.5%", "0.725")),
    ({"accuracy": None}, ("\u2013", "")), (None, ("\u2013", "")),
])
def test_an_accuracy_cell_is_the_score_its_interval_and_its_count_where_known(score, cell):
    from builder.release.report import _accuracy_cell

    assert _accuracy_cell(score) == cell
