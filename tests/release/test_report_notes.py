"""The report's account of what a run did not release (issue 24), on the summary fixture with the fields
a run adds: a stage's error, outputs set aside, warnings, drops of a side sample, skipped checks."""
from __future__ import annotations

import copy
import json
from pathlib import Path

from builder.release.report import render_report

FIXTURE = Path(__file__).parents[1] / "data" / "release" / "summary.json"


def _summary() -> dict:
    return json.loads(FIXTURE.read_text(encoding="utf-8"))


def _text(page: str) -> str:
    import re

    return " ".join(re.sub(r"<[^>]+>", " ", page).split())


def test_a_stopped_run_says_where_and_why_and_lists_what_it_set_aside(tmp_path):
    s = _summary()
    s.update(released=False, stopped={"stage": "curate-eng_Latn", "error": "x.tsv, line 2: <bad>"},
             superseded=[{"stage": "export", "was": "export", "made_by": "mini", "path": "superseded/export",
                          "reason": "this run stopped at stage curate-eng_Latn"}])
    (tmp_path / "superseded" / "export").mkdir(parents=True)
    page = render_report(s, base=tmp_path)
    assert ("Not released: this run stopped at stage <code>curate-eng_Latn</code>: x.tsv, line 2: &lt;bad&gt;."
            in page)
    assert "the gate stopped the release" not in page
    assert '<a href="#superseded">Set aside</a>' in page and '<a href="superseded/export">' in page
    assert "moved aside because this run stopped at stage curate-eng_Latn" in _text(page)


def test_nothing_set_aside_no_section(tmp_path):
    page = render_report(_summary(), base=tmp_path)
    assert 'id="superseded"' not in page and "No stage of this run gave a warning." in page


def test_warnings_skips_and_side_drops_are_shown_apart(tmp_path):
    s = _summary()
    s["warnings"] = [{"stage": "extend-nqo_Nkoo", "variant": "nqo_Nkoo", "message": "length_outliers: 1 flagged",
                      "items": ["index_id 556 (z = -3.84)"]}]
    s["gate"]["skipped"] = [{"check": "contamination", "why": "no --contamination-against set given",
                             "variants": ["eng_Latn", "hin_Deva"], "release": "a release recipe names no test set"}]
    s["gate"]["warnings"] = [{"variant": "hin_Deva", "check": "numbers", "detail": "4 of 208 " + "x" * 400}]
    s["drops"] = copy.deepcopy(s["drops"]) + [{"stage": "adjudicate-eng_Latn", "source": "adjudication",
                                               "reason": "unresolved", "count": 4, "in_dataset": False,
                                               "part": "agreement sample"}]
    s["drops"][0]["labels"] = {"business": 80, "crime": 72}
    page = render_report(s, base=tmp_path)
    text = _text(page)
    # by hand: the fixture's 473 + 27 + 0 + 3 + 5 = 508 stay the dataset's total; the 4 are named apart
    assert "508 records dropped from the dataset" in text
    assert "Not counted in that total: 4 items of the agreement sample (adjudication: unresolved)" in text
    assert "label_removed (business 80, crime 72)" in text
    assert "2 warnings given by the stages of this run" in text
    assert "length_outliers: 1 flagged index_id 556 (z = -3.84)" in text
    assert "numbers (reported, not gated): 4 of 208" in text and "x" * 300 not in text
    assert ("contamination skipped on 2 variants (eng_Latn, hin_Deva): no --contamination-against set given. "
            "In a release: a release recipe names no test set.") in text


def test_the_agreement_says_what_it_was_measured_on(tmp_path):
    s = _summary()
    s["agreement"].update(items=12, annotators=4, sample=True, variant="eng_Latn", released_rows=1004,
                          judgements="sib_small_long.csv")
    text = _text(render_report(s, base=tmp_path))
    assert ("Measured on a 12-item sample (sib_small_long.csv): 12 items judged by 4 annotators, not the "
            "dataset's own items; the released eng_Latn has 1,004 rows.") in text.replace("&#x27;", "'")
    s["agreement"]["sample"] = False
    assert "the items the released variant was made from" in _text(render_report(s, base=tmp_path))


def test_every_new_string_is_escaped(tmp_path):
    bad = '<script>alert(1)</script>"\u202e\x1b[2J'
    s = _summary()
    s.update(released=False, stopped={"stage": bad, "error": bad},
             superseded=[{"stage": bad, "was": bad, "made_by": bad, "path": bad, "reason": bad}],
             warnings=[{"stage": bad, "variant": bad, "message": bad, "items": [bad]}])
    s["gate"]["skipped"] = [{"check": bad, "why": bad, "variants": [bad], "release": bad}]
    s["gate"]["warnings"] = [{"variant": bad, "check": bad, "detail": bad}]
    s["drops"][0].update(labels={bad: 3}, in_dataset=False, part=bad)
    s["agreement"].update(sample=True, variant=bad, released_rows=5, judgements=bad)
    page = render_report(s, base=tmp_path)
    body = page.split("<body>", 1)[1]
    assert "<script>alert" not in body and "\x1b" not in body and "\u202e" not in body
