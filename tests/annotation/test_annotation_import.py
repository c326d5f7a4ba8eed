"""Reading long and wide annotation exports; bad input gets one line with file, line and item id."""
from __future__ import annotations

import numpy as np
import pytest

from annotation.importer import from_judgements, read_annotations, read_labels
from schemas.errors import AnnotationError, SourceError, SourceNotFoundError
from schemas.records import Judgement

D = __import__("pathlib").Path(__file__).parents[1] / "data" / "annotation"


def _as_set(ann):
    return {(j.item_id, j.annotator, j.label) for j in ann.judgements()}


def test_same_table_in_every_format():
    labels = read_labels(D / "labels.txt")
    long_csv = read_annotations(D / "sib_small_long.csv", labels=labels)
    long_jsonl = read_annotations(D / "sib_small_long.jsonl", labels=labels)
    wide_tsv = read_annotations(D / "sib_small_wide.tsv", labels=labels, format="wide")
    assert long_csv.n_items == 12 and long_csv.annotators == ("ann1", "ann2", "ann3", "ann4")
    assert _as_set(long_csv) == _as_set(long_jsonl) == _as_set(wide_tsv)
    assert long_csv.item_ids == wide_tsv.item_ids
    assert long_csv.texts == wide_tsv.texts
    assert long_csv.texts["182"].startswith('"It is now important')  # CSV quoting kept intact
    assert long_csv.labels == labels  # the label set comes from the file, in its order


def test_auto_format_detects_wide_and_missing_cells_are_missing_ratings():
    ann = read_annotations(D / "wide_missing.csv")
    assert ann.annotators == ("ann1", "ann2", "ann3")
    assert (ann.codes >= 0).sum(axis=1).tolist() == [3, 2, 3, 2, 3, 3]
    assert ann.labels == ("health", "politics", "science", "sports", "travel")  # sorted, as seen


def test_unknown_label_is_one_line_with_file_line_and_item():
    labels = read_labels(D / "labels.txt")
    with pytest.raises(AnnotationError) as err:
        read_annotations(D / "bad_unknown_label.csv", labels=labels)
    msg = str(err.value)
    assert "\n" not in msg
    assert msg.startswith(f"{D / 'bad_unknown_label.csv'}, line 5 (item 2): unknown label 'sience'")
    assert "allowed: science, technology" in msg


def test_duplicate_rating_names_both_lines():
    with pytest.raises(AnnotationError, match=r"line 6 \(item 2\): annotator 'ann1' rated item '2' twice "
                       r"\(first on line 4\)"):
        read_annotations(D / "bad_duplicate.csv")


def test_too_few_ratings_names_the_item():
    with pytest.raises(AnnotationError, match=r"bad_too_few.tsv, line 4 \(item 2\): item '2' has 1 rating"):
        read_annotations(D / "bad_too_few.tsv")
    ann = read_annotations(D / "bad_too_few.tsv", min_ratings=1)
    assert ann.n_items == 3


def test_skip_counts_every_reason_with_ids():
    labels = read_labels(D / "labels.txt")
    ann = read_annotations(D / "bad_unknown_label.csv", labels=labels, on_error="skip")
    # item 2 lost its bad rating, then had too few ratings: both are counted, with the id
    assert ann.skipped == {"unknown_label": 1, "too_few_ratings": 1}
    assert ann.skipped_ids == {"unknown_label": ["2"], "too_few_ratings": ["2"]}
    assert ann.item_ids == ("1", "3")
    dup = read_annotations(D / "bad_duplicate.csv", on_error="skip")
    assert dup.skipped == {"duplicate_rating": 1}
    assert dict(zip(dup.annotators, dup.codes[1])) == {"ann1": dup.labels.index("health"),
                                                     "ann2": dup.labels.index("health")}


def test_missing_columns_and_files(tmp_path):
    p = tmp_path / "x.csv"
    p.write_text("item_id,annotator\n1,a\n", encoding="utf-8")
    with pytest.raises(AnnotationError, match="missing label"):
        read_annotations(p, format="long")
    p.write_text("id,a,b\n1,x,y\n", encoding="utf-8")
    with pytest.raises(AnnotationError, match="no item id column; expected one of item_id, index_id"):
        read_annotations(p)
    with pytest.raises(SourceNotFoundError):
        read_annotations(tmp_path / "nope.csv")
    q = tmp_path / "x.xlsx"
    q.write_text("", encoding="utf-8")
    with pytest.raises(SourceError, match="unknown file type"):
        read_annotations(q)
    r = tmp_path / "bad.jsonl"
    r.write_text('{"item_id": "1", "annotator": "a", "label": "x"}\n{oops\n', encoding="utf-8")
    with pytest.raises(SourceError, match=r"bad.jsonl, line 2: malformed JSON"):
        read_annotations(r)
    s = tmp_path / "ragged.csv"
    s.write_text("item_id,annotator,label\n1,a,x,extra\n", encoding="utf-8")
    with pytest.raises(SourceError, match="line 2: expected 3 fields as in the header, found 4"):
        read_annotations(s)


def test_labels_file_rejects_repeats(tmp_path):
    p = tmp_path / "labels.txt"
    p.write_text("a\nb\na\n", encoding="utf-8")
    with pytest.raises(AnnotationError, match="line 3: label 'a' is listed twice"):
        read_labels(p)


def test_from_judgements_and_back():
    js = [Judgement("1", "a", "x"), Judgement("1", "b", "y"), Judgement("2", "a", "y")]
    ann = from_judgements(js)
    assert list(ann.judgements()) == js
    np.testing.assert_array_equal(ann.counts(), [[1, 1], [0, 1]])
