"""The record shapes as Arrow schemas and as :class:`datasets.Features`.

Both are derived from the dataclasses in :mod:`schemas.records`, so a field
added there reaches every writer: ``str`` is a string, ``int`` an int64 and
:class:`~schemas.records.Provenance` a struct of three strings.

>>> arrow_schema("mc").field("correct_answer_num").type
DataType(int64)
>>> sorted(mc_features())[:3]
['answer1', 'answer2', 'answer3']
"""
from __future__ import annotations

import dataclasses

from .records import RECORD_TYPES, Provenance

_PROVENANCE = tuple(f.name for f in dataclasses.fields(Provenance))


def _arrow_type(annotation: str):
    import pyarrow as pa

    if annotation == "Provenance":
        return pa.struct([(name, pa.string()) for name in _PROVENANCE])
    return {"str": pa.string(), "str | None": pa.string(), "int": pa.int64()}[annotation]


def arrow_schema(kind: str, *, required: bool = False):
    """The :class:`pyarrow.Schema` of ``kind`` (``"mc"`` or ``"topic"``) records, in column order.

    With ``required``, every flat column is declared non-null (an assembled set
    guarantees them); provenance stays nullable.
    """
    import pyarrow as pa

    fields = []
    for f in dataclasses.fields(RECORD_TYPES[kind]):
        nullable = not required or f.type == "Provenance"
        fields.append(pa.field(f.name, _arrow_type(f.type), nullable=nullable))
    return pa.schema(fields)


def _value(annotation: str):
    from datasets import Value

    if annotation == "Provenance":
        return {name: Value("string") for name in _PROVENANCE}
    return Value("int64" if annotation == "int" else "string")


def _features(kind: str, with_provenance: bool):
    from datasets import Features

    return Features({f.name: _value(f.type) for f in dataclasses.fields(RECORD_TYPES[kind])
                     if with_provenance or f.type != "Provenance"})


def mc_features(*, with_provenance: bool = True):
    """Features of :class:`schemas.records.MCItem` (column order as in the TSV)."""
    return _features("mc", with_provenance)


def topic_features(*, with_provenance: bool = True):
    """Features of :class:`schemas.records.TopicItem`."""
    return _features("topic", with_provenance)
