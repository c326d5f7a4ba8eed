"""``schemas/features.py`` where mutation showed the tests free (issue 27): the nullability of an
assembled set's schema, the ``datasets`` types of every record field, and the decoding of stored label
indices (an index outside the names, a column not read, a second label column, a non-ClassLabel entry)."""
from __future__ import annotations

import json

import pandas as pd
import pyarrow as pa
import pytest

from schemas.errors import SchemaError
from schemas.features import (HF_METADATA_KEY, arrow_schema, class_label_names, decode_class_labels,
                              mc_features, topic_features)


def test_required_makes_every_flat_column_non_null_and_leaves_provenance_nullable():
    for kind in ("mc", "topic"):
        loose, required = arrow_schema(kind), arrow_schema(kind, required=True)
        assert all(f.nullable for f in loose)
        assert {f.name: f.nullable for f in required} == {f.name: f.name == "provenance" for f in required}
        assert required.field("provenance").type == pa.struct([("corpus", pa.string()), ("file", pa.string()),
                                                                ("record", pa.string())])


def test_the_features_give_each_record_field_its_type():
    mc, topic = mc_features().to_dict(), topic_features(with_provenance=False).to_dict()
    assert mc["correct_answer_num"] == {"dtype": "int64", "_type": "Value"}
    assert mc["passage"] == {"dtype": "string", "_type": "Value"}
    assert mc["provenance"] == {k: {"dtype": "string", "_type": "Value"} for k in ("corpus", "file", "record")}
    assert list(topic) == ["index_id", "category", "text", "language", "split", "license"]
    assert topic["index_id"] == {"dtype": "int64", "_type": "Value"}
    assert "provenance" not in topic and "provenance" in topic_features()


def _schema(features: dict, names=("category", "topic")):
    meta = {HF_METADATA_KEY: json.dumps({"info": {"features": features}}).encode()}
    return pa.schema([(n, pa.int64()) for n in names], metadata=meta)


LABELS = {"_type": "ClassLabel", "names": ["sports", "travel"]}


@pytest.mark.parametrize("index", [2, -1, 7])
def test_an_index_outside_the_names_is_refused_naming_the_row(index):
    """2 is one past the last name, and -1 would read as the last name in Python."""
    frame = pd.DataFrame({"category": [0, 1, index]})
    with pytest.raises(SchemaError) as err:
        decode_class_labels(frame, _schema({"category": LABELS}), file="train.parquet")
    assert err.value.message == f"label index {index} is outside the 2 ClassLabel names"
    assert (str(err.value.file), err.value.record, err.value.field) == ("train.parquet", "row 3", "category")


def test_every_label_column_is_decoded_and_a_column_not_read_or_not_indices_is_left():
    schema = _schema({"category": LABELS, "topic": {"_type": "ClassLabel", "names": ["a", "b", "c"]},
                      "absent": LABELS})
    frame = pd.DataFrame({"category": ["sports", "travel"], "topic": [2, 0]})  # category already names
    out = decode_class_labels(frame, schema)
    assert out.to_dict("list") == {"category": ["sports", "travel"], "topic": ["c", "a"]}


def test_only_class_label_entries_with_a_list_of_names_are_label_columns():
    schema = _schema({"category": LABELS, "topic": {"_type": "Sequence", "names": ["x"]},
                      "other": {"_type": "ClassLabel", "names": "sports"}})
    assert class_label_names(schema) == {"category": ["sports", "travel"]}


def test_record_columns_take_the_record_types_whatever_arrow_stored():
    from schemas.features import table_features

    schema = pa.schema([("index_id", pa.int32()), ("category", pa.large_string()), ("text", pa.string()),
                        ("extra", pa.large_string())])
    got = table_features(schema, "topic").to_dict()
    assert got["index_id"] == {"dtype": "int64", "_type": "Value"}
    assert got["category"] == {"dtype": "string", "_type": "Value"}
    assert got["extra"] == {"dtype": "large_string", "_type": "Value"}  # not a record column: Arrow's type
    loose = table_features(schema, "topic", record_types=False).to_dict()
    assert loose["index_id"] == {"dtype": "int32", "_type": "Value"}


def test_the_metadata_keeps_the_column_order_and_the_names_as_written():
    from schemas.features import table_features, with_features

    schema = pa.schema([("text", pa.string()), ("category", pa.int64()), ("index_id", pa.int64())])
    table = with_features(pa.table({"text": ["x"], "category": [0], "index_id": [1]}, schema=schema),
                          table_features(schema, "topic", labels=["ciencia/tecnología", "viajes"]))
    raw = table.schema.metadata[HF_METADATA_KEY].decode("utf-8")
    assert "ciencia/tecnología" in raw  # UTF-8 as written, not \u escapes
    assert list(json.loads(raw)["info"]["features"]) == ["text", "category", "index_id"]
