"""Tests that kill mutants of majority vote and adjudication (``annotation/adjudicate.py``; docs/testing.md).

Each test names the small bug it catches: a tie policy that behaves like
another, a sheet column that moves, an error that loses its file, line or
field, a count that is set instead of added.
"""
from __future__ import annotations

import csv
import io
from pathlib import Path

import numpy as np
import pytest

from annotation.adjudicate import (POLICIES, decide, decisions_text, majority_mask, merge_sheet, sheet_text,
                                   write_decisions, write_sheet)
from annotation.importer import Annotations, from_judgements, read_annotations, read_labels
from schemas.errors import AnnotationError, SourceError
from schemas.records import Decision, Judgement

D = Path(__file__).parents[1] / "data" / "annotation"


@pytest.fixture
def small():
    return read_annotations(D / "sib_small_long.csv", labels=read_labels(D / "labels.txt"))


# --- majority_mask and decide ---------------------------------------------------------------------------

def test_the_default_policy_is_sib200():
    counts = np.array([[1, 0, 0], [2, 1, 0], [2, 2, 0]])  # one vote only: plurality yes, SIB-200 no
    assert majority_mask(counts).tolist() == [False, True, False]
    assert majority_mask(counts, "plurality").tolist() == [True, True, False]


def test_an_unknown_policy_lists_the_known_ones():
    with pytest.raises(AnnotationError, match=r"^unknown tie policy 'coin'; allowed: sib200, plurality, absolute, "
                                              r"unanimous$"):
        majority_mask(np.array([[1, 1]]), "coin")
    assert POLICIES == ("sib200", "plurality", "absolute", "unanimous")


@pytest.mark.parametrize("policy, expected", [
    ("sib200", [True, False, False]), ("plurality", [True, True, False]),
    ("absolute", [True, True, False]), ("unanimous", [True, False, False]),
])
def test_a_single_label_column(policy, expected):
    # Mutants of ``second = srt[:, -2] if counts.shape[1] > 1 else np.zeros_like(top)``: with one label
    # there is no second column, and the runner-up count is 0.
    counts = np.array([[3], [1], [0]])
    assert majority_mask(counts, policy).tolist() == expected


def test_unanimous_needs_two_ratings_not_three():
    # Mutants: ``total > 2`` / ``total >= 3``.
    counts = np.array([[2, 0], [1, 0], [3, 0], [2, 1]])
    assert majority_mask(counts, "unanimous").tolist() == [True, False, True, False]


def test_decide_uses_the_policy_it_is_given(small):
    # Mutant: ``majority_mask(counts)`` without the policy (always SIB-200).
    sib = {d.item_id: d.rule for d in decide(small)}
    absolute = {d.item_id: d.rule for d in decide(small, "absolute")}
    assert sib["448"] == "majority" and absolute["448"] == "unresolved"  # 2-1-1 of 4 is not more than half
    plurality = {d.item_id: (d.label, d.rule) for d in decide(small, "plurality")}
    assert plurality["182"] == (None, "unresolved")  # 1-1-1-1: no strict plurality either


# --- the adjudication sheet ------------------------------------------------------------------------------

def three_coders(texts=None, missing=False) -> Annotations:
    js = [Judgement("1", "a", "sports"), Judgement("1", "b", "health"), Judgement("1", "c", "travel"),
          Judgement("2", "a", "sports"), Judgement("2", "b", "sports"), Judgement("2", "c", "sports"),
          Judgement("3", "a", "health"), Judgement("3", "b", "sports")]
    if not missing:
        js.append(Judgement("3", "c", "travel"))
    return from_judgements(js, labels=["health", "sports", "travel"], texts=texts)


def test_sheet_without_texts_has_no_text_column_and_unix_line_ends():
    ann = three_coders()
    text = sheet_text(ann, decide(ann))
    assert text == "item_id,a,b,c,lead_label\n1,sports,health,travel,\n3,health,sports,travel,\n"


def test_sheet_cells_for_a_missing_rating_and_a_missing_text_are_empty():
    ann = three_coders(texts={"1": "Ein Text, mit Komma."}, missing=True)
    text = sheet_text(ann, decide(ann))
    assert text == ('item_id,text,a,b,c,lead_label\n1,"Ein Text, mit Komma.",sports,health,travel,\n'
                    "3,,health,sports,,\n")


def test_write_sheet_writes_the_sheet_text(tmp_path):
    ann = three_coders(texts={"1": "Süß – ünïcödé"})
    n = write_sheet(tmp_path / "sheet.csv", ann, decide(ann))
    assert n == 2
    assert (tmp_path / "sheet.csv").read_bytes() == sheet_text(ann, decide(ann)).encode("utf-8")


# --- merging the lead's answers ---------------------------------------------------------------------------

def sheet(tmp_path, text: str) -> Path:
    p = tmp_path / "sheet.csv"
    p.write_bytes(text.encode("utf-8"))
    return p


def test_a_missing_sheet_or_a_folder_is_named(small, tmp_path):
    with pytest.raises(SourceError, match=r"adjudication sheet not found$"):
        merge_sheet(decide(small), tmp_path / "nope.csv", small.labels)
    with pytest.raises(SourceError, match=r"expected an adjudication sheet, found a folder$"):
        merge_sheet(decide(small), tmp_path, small.labels)


def test_an_empty_sheet_names_the_file(small, tmp_path):
    p = sheet(tmp_path, "")
    with pytest.raises(AnnotationError) as err:
        merge_sheet(decide(small), p, small.labels)
    assert str(err.value) == f"{p}: empty sheet; expected a header with item_id and lead_label"


def test_a_sheet_without_a_column_names_file_line_and_header(small, tmp_path):
    p = sheet(tmp_path, "item_id,label,note\n60,health,x\n")
    with pytest.raises(AnnotationError) as err:
        merge_sheet(decide(small), p, small.labels)
    assert str(err.value) == f"{p}, line 1: sheet lacks column 'lead_label'; found item_id, label, note"


def test_a_row_with_too_few_fields_names_its_line(small, tmp_path):
    p = sheet(tmp_path, "item_id,lead_label\n60,health\n1007\n")
    with pytest.raises(AnnotationError) as err:
        merge_sheet(decide(small), p, small.labels)
    message = str(err.value)
    assert message.startswith(f"{p}, line 3: expected 2 fields") and message.endswith("found 1")


@pytest.mark.parametrize("body, message", [
    ("999,health\n", "item '999' is not in the annotations"),
    ("60,health\n60,science\n", "item '60' appears twice in the sheet (first on line 2)"),
    ("611,health\n", "item '611' is not a conflict (it has rule 'majority', label 'technology')"),
])
def test_item_errors_name_file_line_item_and_field(small, tmp_path, body, message):
    p = sheet(tmp_path, "item_id,lead_label\n" + body)
    with pytest.raises(AnnotationError) as err:
        merge_sheet(decide(small), p, small.labels)
    line = body.count("\n") + 1
    item = body.splitlines()[-1].split(",")[0]
    assert str(err.value) == f"{p}, line {line} (item {item}), field item_id: {message}"
    assert err.value.field == "item_id" and err.value.record == f"line {line} (item {item})"


def test_an_unknown_label_lists_the_allowed_labels(small, tmp_path):
    p = sheet(tmp_path, "item_id,lead_label\n60,sience\n")
    with pytest.raises(AnnotationError) as err:
        merge_sheet(decide(small), p, small.labels)
    assert str(err.value).endswith("unknown label 'sience'; allowed: " + ", ".join(small.labels))


def test_blank_rows_are_skipped_and_reading_goes_on(small, tmp_path):
    # Mutants: ``not row and not any(...)`` (a row of empty cells is read as an item) and ``break``.
    p = sheet(tmp_path, "item_id,lead_label\n60,health\n,\n \t, \n\n1007,\n182,\n1325,science\n")
    merged, stats = merge_sheet(decide(small), p, small.labels)
    assert stats == {"rows": 4, "adjudicated": 2, "left_empty": 2, "not_in_sheet": 0}  # two left empty: += 1
    by_id = {d.item_id: (d.label, d.rule) for d in merged}
    assert by_id["1325"] == ("science", "adjudicated") and by_id["60"] == ("health", "adjudicated")
    assert by_id["1007"] == (None, "unresolved")


def test_a_sheet_written_with_windows_line_ends_reads_the_same(small, tmp_path):
    p = sheet(tmp_path, "item_id,text,lead_label\r\n60,\"two\r\nlines\",health\r\n1007,,\r\n")
    merged, stats = merge_sheet(decide(small), p, small.labels)
    assert stats == {"rows": 2, "adjudicated": 1, "left_empty": 1, "not_in_sheet": 2}


# --- the decisions file ---------------------------------------------------------------------------------

def test_decisions_text_carries_the_texts_it_is_given(tmp_path):
    decisions = [Decision("7", "sports", "majority", 3), Decision("8", None, "unresolved", 2)]
    texts = {"7": "Der Ball, rund."}
    expected = 'item_id,label,rule,votes,text\n7,sports,majority,3,"Der Ball, rund."\n8,,unresolved,2,\n'
    assert decisions_text(decisions, texts) == expected
    path = write_decisions(tmp_path / "decisions.csv", decisions, texts)
    assert path.read_bytes() == expected.encode("utf-8")
    assert list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"))))[1][-1] == "Der Ball, rund."
