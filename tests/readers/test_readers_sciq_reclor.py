"""SciQ (3 questions a split) and ReClor (val only, 50 questions) on the real samples and crafted bad files."""
from __future__ import annotations

import json

import pytest

from builder.readers import READERS, BadRecord, RawMCItem
from schemas.errors import RecipeError, SourceError, SourceNotFoundError


def test_sciq_three_per_split_correct_first(sources):
    root = sources / "sciq"
    items = list(READERS["sciq"](root))
    assert [it.split for it in items] == ["train"] * 3 + ["valid"] * 3 + ["test"] * 3
    raw = json.loads((root / "SciQ dataset-2 3" / "valid.json").read_text(encoding="utf-8"))
    valid = [it for it in items if it.split == "valid"]
    for it, row in zip(valid, raw):
        assert it.correct == [0]
        assert it.options == [row["correct_answer"], row["distractor1"], row["distractor2"], row["distractor3"]]
        assert it.passage == row["support"] and it.question == row["question"]
    assert len({it.question_id for it in items if it.split == "train"}) == 3
    assert READERS["sciq"].default_license == "CC-BY-NC-3.0"


def test_sciq_split_names_and_missing(sources, tmp_path):
    with pytest.raises(RecipeError, match="allowed: train, valid, test"):
        READERS["sciq"](sources / "sciq", ["dev"])
    with pytest.raises(SourceNotFoundError, match="train.json"):
        list(READERS["sciq"](tmp_path, ["train"]))


def test_sciq_missing_field(crafted):
    root = crafted / "sciq_missing_field"
    with pytest.raises(SourceError, match=r"#1: field distractor2 is missing \[missing_field\]"):
        list(READERS["sciq"](root, ["train"]))
    recs = list(READERS["sciq"](root, ["train"], on_error="skip"))
    assert [type(r) for r in recs] == [RawMCItem, BadRecord, RawMCItem]
    assert recs[1].reason == "missing_field"


def test_reclor_val_has_50(sources):
    items = list(READERS["reclor"](sources / "reclor", ["val"]))
    assert len(items) == 50 and all(isinstance(it, RawMCItem) for it in items)
    assert [it.question_id for it in items[:2]] == ["val_0", "val_1"]
    raw = json.loads((sources / "reclor" / "val.json").read_text(encoding="utf-8"))
    assert all(it.correct == [row["label"]] and it.options == row["answers"] for it, row in zip(items, raw))
    assert len(items) == len(list(READERS["reclor"](sources / "reclor")))  # default: the splits present


def test_reclor_test_split_refused(sources):
    with pytest.raises(RecipeError, match="test split has no answer labels; allowed: train, val"):
        READERS["reclor"](sources / "reclor", ["test"])
    with pytest.raises(SourceNotFoundError, match="train.json"):
        list(READERS["reclor"](sources / "reclor", ["train"]))


def test_reclor_bad_json_and_label(crafted):
    with pytest.raises(SourceError, match=r"val\.json, line 1: malformed JSON"):
        list(READERS["reclor"](crafted / "reclor_bad_json", ["val"]))
    root = crafted / "reclor_label_out_of_range"
    with pytest.raises(SourceError, match=r"#1: field label must be an integer 0-3, found 4 \[answer_out_of_range\]"):
        list(READERS["reclor"](root, ["val"]))
    recs = list(READERS["reclor"](root, ["val"], on_error="skip"))
    assert [getattr(r, "reason", None) for r in recs] == [None, "answer_out_of_range", None]
