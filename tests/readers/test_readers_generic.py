"""Generic JSON-lines and CSV/TSV readers: the same 4-row table in every format, and crafted bad rows."""
from __future__ import annotations

import pytest

from builder.readers import READERS, BadRecord, RawMCItem
from builder.readers.generic import answer_indexes
from schemas.errors import RecipeError, SourceError, SourceNotFoundError

JSONL_COLS = {"passage": "context", "question": "q", "options": "choices", "answer": "label",
              "passage_id": "meta.pid"}
CSV_COLS = {"passage": "context", "question": "q", "options": ["a", "b", "c", "d"], "answer": "label",
            "passage_id": "pid"}


def _view(items):
    return [(it.passage_id, it.passage, it.question, it.options, it.correct) for it in items]


def test_generic_same_table_in_every_format(crafted):
    root = crafted / "generic"
    js = list(READERS["jsonl"](root, ["train"], columns=JSONL_COLS))
    cs = list(READERS["csv"](root, ["train"], columns=CSV_COLS))
    ts = list(READERS["csv"](root, ["train"], columns=CSV_COLS, pattern="{split}.tsv"))
    assert _view(js) == _view(cs) == _view(ts)
    assert [it.correct for it in js] == [[1], [0], [3], [2]]
    assert js[1].options[0] == "सेब" and js[2].passage == 'He said, "Stop."\nThen he left the room.'
    assert js[3].passage == ""  # passed through: the empty-passage filter decides
    assert [it.record for it in cs] == ["line 2", "line 3", "line 4", "line 6"]  # row 3 spans two lines
    assert [it.record for it in js] == ["line 1", "line 2", "line 3", "line 4"]
    assert {it.corpus for it in js} == {"jsonl"} and cs[0].file == "train.csv" and ts[0].file == "train.tsv"
    assert [it.question_id for it in js] == ["train/0", "train/1", "train/2", "train/3"]


def test_generic_options(crafted):
    root = crafted / "generic"
    r = READERS["jsonl"](root, columns=JSONL_COLS, corpus="mydata", license="CC-BY-4.0")
    items = list(r)  # no splits: every file matching {split}.jsonl
    assert {it.split for it in items} == {"train"} and {it.corpus for it in items} == {"mydata"}
    assert r.license == "CC-BY-4.0" and READERS["csv"](root, columns=CSV_COLS).license == "unknown"
    text_cols = dict(CSV_COLS, answer="d")  # the answer column holds an option's text
    assert [it.correct for it in READERS["csv"](root, ["x"], columns=text_cols, answer_format="text",
                                                files={"x": "train.csv"})] == [[3]] * 4
    with pytest.raises(RecipeError, match="answer_format must be one of letter, index0, index1, text"):
        READERS["csv"](root, columns=CSV_COLS, answer_format="roman")
    with pytest.raises(RecipeError, match="missing \\['answer'\\]"):
        READERS["csv"](root, columns={"passage": "c", "question": "q", "options": ["a"]})
    with pytest.raises(RecipeError, match="needs option columns"):
        READERS["jsonl"](root)
    with pytest.raises(RecipeError, match="not in option files; allowed: x"):
        READERS["csv"](root, ["train"], columns=CSV_COLS, files={"x": "train.csv"})
    with pytest.raises(RecipeError, match="column\\(s\\) answer of option columns are not in the header"):
        list(READERS["csv"](root, ["train"], columns=dict(CSV_COLS, answer="answer")))
    with pytest.raises(SourceNotFoundError, match="dev.jsonl"):
        list(READERS["jsonl"](root, ["dev"], columns=JSONL_COLS))


def test_generic_bad_jsonl_rows(crafted):
    root = crafted / "generic_bad"
    with pytest.raises(SourceError, match=r"dev\.jsonl, line 2: malformed JSON"):
        list(READERS["jsonl"](root, ["dev"], columns=JSONL_COLS))
    recs = list(READERS["jsonl"](root, ["dev"], columns=JSONL_COLS, on_error="skip"))
    assert [getattr(r, "reason", None) for r in recs] == [
        None, "malformed_json", "answer_out_of_range", "missing_field"]
    assert all(isinstance(r, BadRecord) for r in recs[1:]) and recs[3].record == "line 4"
    assert "field q is missing" in recs[3].message


def test_generic_bad_csv_rows(crafted):
    root = crafted / "generic_bad"
    recs = list(READERS["csv"](root, ["dev"], columns=CSV_COLS, on_error="skip"))
    assert [getattr(r, "reason", None) for r in recs] == [None, "malformed_csv", "answer_out_of_range"]
    assert isinstance(recs[0], RawMCItem) and recs[1].record == "line 3"
    recs = list(READERS["csv"](root, ["dev"], columns=CSV_COLS, on_error="skip", answer_format="index1"))
    assert [getattr(r, "reason", None) for r in recs] == ["answer_out_of_range", "malformed_csv", None]


def test_answer_indexes_formats():
    opts = ["a", "b", "c", "d"]
    assert answer_indexes("b", opts, "letter") == [1]
    assert answer_indexes(3, opts, "index0") == [3]
    assert answer_indexes(["A", "C"], opts, "letter") == [0, 2]
    assert answer_indexes(" c ", opts, "text") == [2]
