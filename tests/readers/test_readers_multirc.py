"""MultiRC reader in both layouts.

MultiRC is **not** in the shared samples (no public copy was found), so these
tests run on fixtures crafted from the documented format in
``tests/data/readers/multirc_*``: the authors' ``splitv2/*-fixedIds.json``
(``{"data": [{"id", "paragraph": {"text", "questions": [{"question",
"answers": [{"text", "isAnswer"}]}]}}]}``, sentences marked
``<b>Sent N: </b>...<br>``) and the SuperGLUE ``*.jsonl`` layout
(``passage.text``, ``passage.questions[].answers[].label``). The same three
invented paragraphs are written in both, so both layouts must read the same.
"""
from __future__ import annotations

import pytest

from builder.readers import READERS, BadRecord, RawMCItem
from builder.readers.multirc import split_sentences
from schemas.errors import RecipeError, SourceError, SourceNotFoundError


def _view(items):
    return [(it.split, it.passage, it.question, it.options, it.correct, it.meta) for it in items]


def test_multirc_splitv2_markup_stripped(crafted):
    items = list(READERS["multirc"](crafted / "multirc_splitv2", ["train", "dev"]))
    assert all(isinstance(it, RawMCItem) for it in items)
    assert [it.question_id for it in items] == [
        "Fiction-crafted-ferry.txt#0", "Fiction-crafted-violin.txt#0",
        "News-crafted-bees.txt#0", "News-crafted-bees.txt#1", "News-crafted-bees.txt#2"]
    bees = items[2]
    assert bees.passage.startswith("Mara kept bees behind her grandmother's house. Every spring")
    assert "<b>" not in bees.passage and "<br>" not in bees.passage and "Sent 1" not in bees.passage
    assert len(bees.meta["sentences"]) == 4
    assert bees.meta["sentences"][3] == "Her grandmother sold the honey at the Saturday market."
    assert len(bees.options) == 5 and bees.correct == [0]
    assert items[3].correct == [0, 1]  # two correct answers kept; the filter decides
    assert bees.file == "splitv2/dev_83-fixedIds.json" and bees.record == "#0.0"


def test_multirc_superglue_reads_the_same(crafted):
    v2 = list(READERS["multirc"](crafted / "multirc_splitv2", ["train", "dev"]))
    sg = list(READERS["multirc"](crafted / "multirc_superglue", ["train", "dev"]))
    assert _view(sg) == _view(v2)
    assert [it.question_id for it in sg][:2] == ["train/0#0", "train/1#0"]
    assert sg[0].file == "MultiRC/train.jsonl" and sg[1].record == "line 2"


def test_multirc_layout_option_and_splits(crafted):
    with pytest.raises(SourceNotFoundError, match="splitv2"):
        list(READERS["multirc"](crafted / "multirc_superglue", ["dev"], layout="splitv2"))
    assert len(list(READERS["multirc"](crafted / "multirc_superglue", ["dev"], layout="superglue"))) == 3
    with pytest.raises(RecipeError, match="layout"):
        READERS["multirc"](crafted / "multirc_splitv2", layout="xml")
    with pytest.raises(RecipeError, match="allowed: train, dev"):
        READERS["multirc"](crafted / "multirc_splitv2", ["test"])
    assert READERS["multirc"].default_license == "unknown"


def test_multirc_bad_jsonl_line(crafted):
    root = crafted / "multirc_bad_jsonl"
    with pytest.raises(SourceError, match=r"val\.jsonl, line 2: malformed JSON"):
        list(READERS["multirc"](root, ["dev"]))
    recs = list(READERS["multirc"](root, ["dev"], on_error="skip"))
    assert [getattr(r, "reason", None) for r in recs] == [None] * 3 + ["malformed_json", None]
    assert isinstance(recs[3], BadRecord) and recs[3].record == "line 2"


def test_multirc_missing_field(crafted):
    root = crafted / "multirc_missing_field"
    with pytest.raises(SourceError, match=r"#0\.1: question 1: .*isAnswer \[missing_field\]"):
        list(READERS["multirc"](root, ["dev"]))
    recs = list(READERS["multirc"](root, ["dev"], on_error="skip"))
    assert [getattr(r, "reason", None) for r in recs] == [None, "missing_field", None]


def test_split_sentences_without_markup():
    assert split_sentences("Plain text.") is None
    assert split_sentences("<b>Sent 1: </b>A.<br><b>Sent 2: </b> B  c.") == ["A.", "B c."]
