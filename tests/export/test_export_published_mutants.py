"""``builder/export/published.py`` where mutation showed the tests free (issue 27): the published column
order, the types of an empty split, and missing values."""
from __future__ import annotations

import pyarrow as pa

from builder.export.published import SCHEMA
from schemas.features import arrow_schema


def _mc(rows):
    schema = arrow_schema("mc")
    return pa.Table.from_pylist(rows, schema=schema)


def _row(passage, question, num=1, split="dev"):
    return {"dataset": "d", "split": split, "passage_id": passage, "question_id": question, "passage": "P",
            "question": "Q?", "answer1": "a", "answer2": "b", "answer3": "c", "answer4": "d",
            "correct_answer": "a", "correct_answer_num": num, "language": "eng_Latn", "license": "CC-BY-4.0",
            "provenance": {"corpus": "c", "file": "f", "record": "r"}}


def test_belebele_columns_come_in_the_published_order_then_ours():
    out = SCHEMA["belebele"].apply(_mc([_row("p1", "q1"), _row("p1", "q2", 3), _row("p2", "q3", None)]))
    assert out.column_names == ["link", "question_number", "flores_passage", "question", "mc_answer1",
                                "mc_answer2", "mc_answer3", "mc_answer4", "correct_answer_num", "dialect",
                                "dataset", "split", "question_id", "correct_answer", "license", "provenance"]
    assert out.column("question_number").to_pylist() == [1, 2, 1]
    assert out.column("correct_answer_num").to_pylist() == ["1", "3", None]  # a missing number stays missing
    assert out.column("split").to_pylist() == ["validation"] * 3


def test_an_empty_split_keeps_the_published_types():
    """No rows: the rebuilt columns keep string and int64, not Arrow's null type."""
    out = SCHEMA["belebele"].apply(_mc([]))
    types = {f.name: f.type for f in out.schema}
    assert (types["split"], types["correct_answer_num"], types["question_number"]) == (
        pa.string(), pa.string(), pa.int64())
    topic = pa.Table.from_pylist([], schema=arrow_schema("topic"))
    assert SCHEMA["sib200"].apply(topic).schema.field("split").type == pa.string()


def test_a_missing_split_value_stays_missing_and_ours_is_the_table_itself():
    table = _mc([_row("p1", "q1", split=None), _row("p1", "q2", split="train")])
    assert SCHEMA["belebele"].apply(table).column("split").to_pylist() == [None, "train"]
    assert SCHEMA["ours"].apply(table) is table


def test_get_schema_defaults_to_ours_and_refuses_what_does_not_fit_word_for_word():
    import pytest

    from builder.export.published import get_schema
    from schemas.errors import UsageError

    assert get_schema(None, "mc", ["not a code"]) is SCHEMA["ours"] is get_schema("", "topic", [])
    cases = [
        (("hub", "mc", []), "expected one of ours, belebele, sib200, found 'hub'"),
        (("sib200", "mc", ["eng_Latn"]), "sib200 is the layout of topic records; this dataset holds "
                                         "multiple-choice records (use --schema belebele or leave it out)"),
        (("belebele", "topic", ["eng_Latn"]), "belebele is the layout of multiple-choice records; this dataset "
                                              "holds topic records (use --schema sib200 or leave it out)"),
        (("sib200", "topic", ["eng_Latn", "english"]), "sib200's configs are FLORES-200 codes (eng_Latn); variant "
                                                       "'english' is not one. Name the variant folders by their codes"),
    ]
    for args, message in cases:
        with pytest.raises(UsageError) as err:
            get_schema(*args)
        assert (err.value.message, err.value.field) == (message, "--schema")
