"""``annotation/splits.py`` where mutation showed the tests free (issue 27): the refusals word for word,
``split.json`` whole, the Parquet schema of ids that are not numbers and of an empty split, the output
folder's replace rule, and the default seed."""
from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from annotation.labelled import LabelledItem
from annotation.splits import SPLITS, require_labels, split_items, split_summary, write_splits
from schemas.errors import AnnotationError, UsageError


def _items(ids, labels="ab"):
    return [LabelledItem(i, labels[k % len(labels)], f"text of {i}") for k, i in enumerate(ids)]


def test_an_unresolved_item_is_refused_naming_its_line_and_the_label_field():
    items = [LabelledItem("1", "sports", "x", where="curated.tsv:2"),
             LabelledItem("7", None, "y", where="curated.tsv:3")]
    with pytest.raises(AnnotationError) as err:
        require_labels(items, file="curated.tsv")
    assert err.value.message == ("item '7' has no label (unresolved); adjudicate it, or run `builder annotate "
                                 "curate`, which drops and logs unresolved items")
    assert (err.value.record, err.value.field) == ("curated.tsv:3", "label")


def test_no_items_is_refused_naming_the_input():
    with pytest.raises(AnnotationError) as err:
        require_labels([], file="curated.tsv")
    assert (err.value.message, str(err.value.file)) == ("no items to split", "curated.tsv")


def test_the_default_seed_is_zero():
    items = _items([str(k) for k in range(40)])
    assert split_items(items) == split_items(items, seed=0) != split_items(items, seed=1)


def test_split_json_holds_the_settings_and_the_counts_by_split_and_label():
    parts = split_items(_items([str(k) for k in range(20)]), (0.5, 0.25, 0.25), seed=3)
    assert split_summary(parts, (0.5, 0.25, 0.25), 3) == {
        "seed": 3, "ratios": {"train": 0.5, "dev": 0.25, "test": 0.25}, "stratified_by": "label",
        "grouped_by": "item_id", "n_items": 20, "counts": {"train": 10, "dev": 6, "test": 4},
        "label_counts": {"train": {"a": 5, "b": 5}, "dev": {"a": 3, "b": 3}, "test": {"a": 2, "b": 2}}}


def _written(tmp_path, parts, name="out"):
    return write_splits(parts, tmp_path / name, labels=["a", "b"], info={"seed": 0})


def test_ids_that_are_not_all_numbers_are_stored_as_strings(tmp_path):
    parts = split_items(_items(["1", "2", "x3", "4", "5"]), (1.0, 0.0, 0.0))
    out = _written(tmp_path, parts)
    table = pq.read_table(out / "train.parquet")
    assert table.schema.field("index_id").type == pa.string()
    assert sorted(table.column("index_id").to_pylist()) == ["1", "2", "4", "5", "x3"]


def test_an_empty_split_keeps_the_column_types(tmp_path):
    """A split with no rows (ratio 0) is a table of the same schema, not of Arrow's null type."""
    for ids, id_type in ((["1", "2", "3"], pa.int64()), (["a", "b"], pa.string())):
        out = _written(tmp_path, split_items(_items(ids), (1.0, 0.0, 0.0)), name=ids[0])
        for split in SPLITS[1:]:
            schema = pq.read_table(out / f"{split}.parquet").schema
            assert [(f.name, f.type) for f in schema] == [("index_id", id_type), ("category", pa.string()),
                                                         ("text", pa.string())]
        assert json.loads((out / "split.json").read_text()) == {"seed": 0}


def test_the_output_replaces_an_earlier_split_and_refuses_any_other_folder(tmp_path):
    parts = split_items(_items([str(k) for k in range(6)]))
    out = _written(tmp_path, parts)
    _written(tmp_path, parts)  # the marker names 'annotate split'
    (out / ".builder.json").unlink()  # an output of an earlier version: split.json, no marker
    _written(tmp_path, parts)
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine")
    with pytest.raises(UsageError, match="a non-empty folder without split.json: it is not an earlier annotate "
                                         "split output"):
        _written(tmp_path, parts, name="other")
    assert (tmp_path / "other" / "notes.txt").read_text() == "mine"
