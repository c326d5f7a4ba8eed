"""Majority vote with the SIB-200 tie rule, the adjudication sheet and merging the lead's answers."""
from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from annotation.adjudicate import decide, majority_mask, merge_sheet, rule_counts, sheet_text, write_sheet
from annotation.importer import Annotations, read_annotations, read_labels
from schemas.errors import AnnotationError
from schemas.records import DECISION_RULES

D = Path(__file__).parents[1] / "data" / "annotation"


@pytest.fixture
def small():
    return read_annotations(D / "sib_small_long.csv", labels=read_labels(D / "labels.txt"))


def test_sib_rule_on_the_fixture(small):
    got = {d.item_id: (d.label, d.rule, d.votes) for d in decide(small)}
    assert got["611"] == ("technology", "majority", 3)
    assert got["448"] == ("nature", "majority", 2)  # 2-1-1: two agree, nobody ties them
    assert got["1325"] == (None, "unresolved", 2)  # 2-2: two annotators conflict with the other two
    assert got["182"] == (None, "unresolved", 1)  # 1-1-1-1
    assert rule_counts(decide(small)) == {"majority": 8, "adjudicated": 0, "unresolved": 4}


def test_policies_differ_where_they_should():
    counts = np.array([[2, 1, 1], [2, 2, 0], [3, 0, 0], [1, 0, 0], [1, 1, 0], [2, 1, 0]])
    assert majority_mask(counts, "sib200").tolist() == [True, False, True, False, False, True]
    assert majority_mask(counts, "plurality").tolist() == [True, False, True, True, False, True]
    assert majority_mask(counts, "absolute").tolist() == [False, False, True, True, False, True]
    assert majority_mask(counts, "unanimous").tolist() == [False, False, True, False, False, False]
    with pytest.raises(AnnotationError, match="unknown tie policy 'coin'"):
        majority_mask(counts, "coin")


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 20), st.integers(1, 6), st.integers(2, 6), st.integers(0, 2**31 - 1))
def test_sib_rule_never_assigns_a_label_fewer_than_two_annotators_chose(n, raters, k, seed):
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, k, (n, raters)).astype(np.int32)
    codes[rng.random((n, raters)) < 0.2] = -1
    ann = Annotations(tuple(map(str, range(n))), tuple(f"a{j}" for j in range(raters)),
                      tuple(f"l{c}" for c in range(k)), codes)
    counts = ann.counts()
    for i, d in enumerate(decide(ann, "sib200")):
        assert d.rule in DECISION_RULES
        if d.rule == "majority":
            c = counts[i, ann.labels.index(d.label)]
            assert c >= 2 and d.votes == c
            assert (counts[i] == c).sum() == 1  # a strict plurality: no tie at the top
        else:
            assert d.label is None


def _filled(tmp_path, small, answers: dict) -> Path:
    text = sheet_text(small, decide(small))
    rows = list(csv.reader(text.splitlines()))
    for row in rows[1:]:
        row[-1] = answers.get(row[0], "")
    p = tmp_path / "filled.csv"
    with open(p, "w", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerows(rows)
    return p


def test_sheet_lists_conflicts_with_text_and_each_annotator(small, tmp_path):
    n = write_sheet(tmp_path / "sheet.csv", small, decide(small))
    rows = list(csv.DictReader(open(tmp_path / "sheet.csv", encoding="utf-8")))
    assert n == len(rows) == 4
    assert list(rows[0]) == ["item_id", "text", "ann1", "ann2", "ann3", "ann4", "lead_label"]
    assert [r["item_id"] for r in rows] == ["1325", "60", "1007", "182"]
    assert rows[0]["ann1"] == "science" and rows[0]["ann2"] == "technology" and rows[0]["lead_label"] == ""
    assert rows[3]["text"].startswith('"It is now important')


def test_merge_fills_labels_and_keeps_empty_ones_unresolved(small, tmp_path):
    sheet = _filled(tmp_path, small, {"1325": "science", "60": "technology", "1007": "health"})
    merged, stats = merge_sheet(decide(small), sheet, small.labels)
    assert stats == {"rows": 4, "adjudicated": 3, "left_empty": 1, "not_in_sheet": 0}
    by_id = {d.item_id: d for d in merged}
    assert (by_id["1325"].label, by_id["1325"].rule) == ("science", "adjudicated")
    assert (by_id["182"].label, by_id["182"].rule) == (None, "unresolved")
    assert len(merged) == small.n_items  # nothing dropped
    assert rule_counts(merged) == {"majority": 8, "adjudicated": 3, "unresolved": 1}


def test_merge_errors_name_sheet_line_and_item(small, tmp_path):
    sheet = _filled(tmp_path, small, {"60": "sience"})
    with pytest.raises(AnnotationError) as err:
        merge_sheet(decide(small), sheet, small.labels)
    assert str(err.value).startswith(f"{sheet}, line 3 (item 60), field lead_label: unknown label 'sience'")
    p = tmp_path / "s.csv"
    p.write_text("item_id,lead_label\n999,health\n", encoding="utf-8")
    with pytest.raises(AnnotationError, match=r"line 2 \(item 999\).*not in the annotations"):
        merge_sheet(decide(small), p, small.labels)
    p.write_text("item_id,lead_label\n611,health\n", encoding="utf-8")
    with pytest.raises(AnnotationError, match="item '611' is not a conflict"):
        merge_sheet(decide(small), p, small.labels)
    p.write_text("item_id,lead_label\n60,health\n60,science\n", encoding="utf-8")
    with pytest.raises(AnnotationError, match=r"line 3 \(item 60\).*appears twice in the sheet \(first on line 2\)"):
        merge_sheet(decide(small), p, small.labels)
    p.write_text("item_id,label\n60,health\n", encoding="utf-8")
    with pytest.raises(AnnotationError, match="sheet lacks column 'lead_label'"):
        merge_sheet(decide(small), p, small.labels)


def test_partial_sheet_counts_conflicts_not_in_it(small, tmp_path):
    p = tmp_path / "s.csv"
    p.write_text("item_id,lead_label\n60,entertainment\n", encoding="utf-8")
    merged, stats = merge_sheet(decide(small), p, small.labels)
    assert stats["not_in_sheet"] == 3 and stats["adjudicated"] == 1
    assert rule_counts(merged)["unresolved"] == 3
