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
    return {"str": pa.string(), "int": pa.int64()}[annotation]


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


# --- Hugging Face features of an exported table -------------------------------------------------------

#: The key ``datasets`` reads its features from in a Parquet file's schema metadata.
HF_METADATA_KEY = b"huggingface"


def class_label(names):
    """The :class:`datasets.ClassLabel` of a curated label list (order kept: index = position).

    >>> class_label(["sports", "travel"]).str2int("travel")
    1
    """
    from datasets import ClassLabel

    return ClassLabel(names=list(names))


def table_features(schema, kind: str, *, labels=None, label_column: str | None = "category",
                   record_types: bool = True):
    """:class:`datasets.Features` of an exported Arrow table.

    Record columns take their types from :mod:`schemas.records` (``str`` a
    string, ``int`` an int64, provenance a struct); with ``labels``, the topic
    label column is a ``ClassLabel`` of that list; other columns keep the type
    Arrow gives them (every column does with ``record_types=False``: a table in
    a published layout that renames or retypes record columns). ``schema`` is
    the table's :class:`pyarrow.Schema` (its column names and order are kept).

    >>> import pyarrow as pa
    >>> s = pa.schema([("index_id", pa.int64()), ("category", pa.int64()), ("text", pa.string())])
    >>> f = table_features(s, "topic", labels=["sports", "travel"])
    >>> type(f["category"]).__name__, f["category"].names, f["text"].dtype
    ('ClassLabel', ['sports', 'travel'], 'string')
    """
    from datasets import Features
    from datasets.features.features import generate_from_arrow_type

    record = {f.name: f.type for f in dataclasses.fields(RECORD_TYPES[kind])} if record_types else {}
    out = {}
    for field in schema:
        if labels is not None and field.name == label_column:
            out[field.name] = class_label(labels)
        elif field.name in record:
            out[field.name] = _value(record[field.name])
        else:
            out[field.name] = generate_from_arrow_type(field.type)
    return Features(out)


def with_features(table, features):
    """``table`` with ``features`` in its schema metadata, where ``datasets`` reads them from Parquet.

    The Arrow types must already be the features' storage types (a ``ClassLabel``
    column holds int64 indices): ``datasets`` ignores metadata that does not
    match the columns.
    """
    import json

    return table.replace_schema_metadata(
        {HF_METADATA_KEY: json.dumps({"info": {"features": features.to_dict()}}, ensure_ascii=False,
                                     sort_keys=False)})


def class_label_names(arrow_schema) -> dict[str, list[str]]:
    """Column -> label names of the ``ClassLabel`` columns recorded in a Parquet schema's metadata.

    >>> import pyarrow as pa
    >>> s = pa.schema([("category", pa.int64())])
    >>> class_label_names(with_features(pa.table({"category": [0]}), table_features(s, "topic",
    ...     labels=["a", "b"])).schema)
    {'category': ['a', 'b']}
    """
    import json

    meta = arrow_schema.metadata or {}
    if HF_METADATA_KEY not in meta:
        return {}
    try:
        feats = json.loads(meta[HF_METADATA_KEY].decode("utf-8"))["info"]["features"]
    except (ValueError, KeyError, TypeError):
        return {}
    return {name: list(f["names"]) for name, f in (feats or {}).items()
            if isinstance(f, dict) and f.get("_type") == "ClassLabel" and isinstance(f.get("names"), list)}


def decode_class_labels(frame, arrow_schema, *, file=None):
    """``frame`` (read from Parquet) with its ``ClassLabel`` columns turned back into label names.

    Exports store labels as indices with the names in the schema metadata, as
    ``datasets`` does; the toolkit's own readers work with the names. An index
    outside the names is a :class:`~schemas.errors.SchemaError` naming the row.
    """
    from .errors import SchemaError, row_at

    for column, labels in class_label_names(arrow_schema).items():
        if column not in frame.columns or frame[column].dtype.kind not in "iu":
            continue
        values = frame[column].tolist()
        bad = next((i for i, v in enumerate(values) if not 0 <= v < len(labels)), None)
        if bad is not None:
            raise SchemaError(f"label index {values[bad]} is outside the {len(labels)} ClassLabel names",
                              file=file, record=row_at(bad), field=column)
        frame[column] = [labels[v] for v in values]
    return frame
