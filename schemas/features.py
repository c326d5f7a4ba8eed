"""The record shapes as :class:`datasets.Features`.

>>> sorted(mc_features())[:3]
['answer1', 'answer2', 'answer3']
"""
from __future__ import annotations


def _provenance():
    from datasets import Value

    return {"corpus": Value("string"), "file": Value("string"), "record": Value("string")}


def mc_features(*, with_provenance: bool = True):
    """Features of :class:`schemas.records.MCItem` (column order as in the TSV)."""
    from datasets import Features, Value

    cols = {name: Value("string") for name in (
        "dataset", "split", "passage_id", "question_id", "passage", "question",
        "answer1", "answer2", "answer3", "answer4", "correct_answer")}
    cols["correct_answer_num"] = Value("int64")
    cols["language"] = Value("string")
    cols["license"] = Value("string")
    if with_provenance:
        cols["provenance"] = _provenance()
    return Features(cols)


def topic_features(*, with_provenance: bool = True):
    """Features of :class:`schemas.records.TopicItem`."""
    from datasets import Features, Value

    cols = {"index_id": Value("int64"), "category": Value("string"), "text": Value("string"),
            "language": Value("string"), "split": Value("string"), "license": Value("string")}
    if with_provenance:
        cols["provenance"] = _provenance()
    return Features(cols)
