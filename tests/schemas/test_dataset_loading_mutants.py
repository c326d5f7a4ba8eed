"""Loading a dataset folder, where mutation left it free (issue 27, sixteenth pass: ``schemas/dataset.py``).

``read_table`` and ``load_dataset_dir`` are called in this process (a subprocess would run the installed
package, not a mutant), each on a small folder written here, and every refusal is checked with its whole
error line: the file or folder it names, and what it says.
"""
from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from schemas.dataset import UnknownVariantError, load_dataset_dir, read_table
from schemas.errors import IntegrityError, SchemaError, SourceError, SourceNotFoundError
from schemas.io import WrongPathKind

ROWS = [{"index_id": 1, "category": "science", "text": "A sentence."},
        {"index_id": 2, "category": "travel", "text": "Another one."}]


def _jsonl(path: Path, rows) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# -- read_table ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["train.jsonl", "train.parquet"])  # Arrow would read a folder of Parquet files
def test_a_folder_given_as_a_split_file_is_refused_as_a_folder(tmp_path, name):
    folder = tmp_path / name
    folder.mkdir()
    pq.write_table(pa.Table.from_pylist(ROWS), folder / "part-0.parquet")
    with pytest.raises(WrongPathKind) as err:
        read_table(folder)
    assert str(err.value) == f"{folder}: expected a file, found a folder"


def test_a_malformed_json_line_is_named_by_file_and_line(tmp_path):
    path = tmp_path / "train.jsonl"
    path.write_text(json.dumps(ROWS[0]) + "\n{not json\n", encoding="utf-8")
    with pytest.raises(SchemaError) as err:
        read_table(path)
    assert str(err.value) == f"{path}, line 2: malformed JSON: Expecting property name enclosed in double quotes"


def test_a_label_index_outside_the_names_names_the_parquet_file(tmp_path):
    path = tmp_path / "train.parquet"
    features = {"category": {"_type": "ClassLabel", "names": ["science", "travel"]}}
    table = pa.table({"index_id": [1, 2], "category": [1, 2], "text": ["a", "b"]})
    table = table.replace_schema_metadata({"huggingface": json.dumps({"info": {"features": features}})})
    pq.write_table(table, path)
    with pytest.raises(SchemaError) as err:
        read_table(path)
    assert err.value.file == str(path)
    assert str(err.value) == f"{path}, row 2, field category: label index 2 is outside the 2 ClassLabel names"


def test_a_tsv_with_a_header_only_has_the_topic_columns(tmp_path):
    path = tmp_path / "train.tsv"
    path.write_text("index_id\tcategory\ttext\n", encoding="utf-8")
    assert list(read_table(path).columns) == ["index_id", "category", "text"]
    path.write_text("index_id\tcategory\ttext\n7\tscience\tA sentence.\n", encoding="utf-8")
    frame = read_table(path)
    assert frame.to_dict("records") == [{"index_id": 7, "category": "science", "text": "A sentence."}]
    assert str(frame["index_id"].dtype) == "int64"
    path.write_text("index_id\tcategory\ttext\tsource\n7\tscience\tA sentence.\tflores\n", encoding="utf-8")
    assert list(read_table(path).columns) == ["index_id", "category", "text", "source"]


def test_a_file_of_another_kind_is_refused_naming_it_and_the_kinds_read(tmp_path):
    path = tmp_path / "train.csv"
    path.write_text("index_id,category,text\n", encoding="utf-8")
    with pytest.raises(SourceError) as err:
        read_table(path)
    assert str(err.value) == f"{path}: unsupported split file type '.csv'; expected .parquet, .jsonl or .tsv"


# -- load_dataset_dir ---------------------------------------------------------------------------------------

def test_the_dataset_folder_must_be_a_folder_that_exists(tmp_path):
    path = _jsonl(tmp_path / "train.jsonl", ROWS)
    with pytest.raises(WrongPathKind) as err:
        load_dataset_dir(path)
    assert str(err.value) == f"{path}: expected a dataset folder, found a file"
    with pytest.raises(SourceNotFoundError) as err:
        load_dataset_dir(tmp_path / "nope")
    assert str(err.value) == f"{tmp_path / 'nope'}: dataset folder not found"


def test_a_file_of_several_variants_is_grouped_by_language_in_name_order(tmp_path):
    rows = [{**ROWS[0], "language": "zul_Latn"}, {**ROWS[1], "language": "afr_Latn"},
            {**ROWS[0], "index_id": 3, "language": "zul_Latn"}]
    path = _jsonl(tmp_path / "all" / "train.jsonl", rows)
    ds = load_dataset_dir(tmp_path / "all")
    assert list(ds.tables) == ["afr_Latn", "zul_Latn"]
    assert ds.tables["zul_Latn"]["train"]["index_id"].tolist() == [1, 3]
    assert ds.files == {("afr_Latn", "train"): path, ("zul_Latn", "train"): path}
    only = load_dataset_dir(tmp_path / "all", variants=["zul_Latn"])
    assert list(only.tables) == ["zul_Latn"]
    with pytest.raises(UnknownVariantError) as err:
        load_dataset_dir(tmp_path / "all", variants=["xho_Latn"])
    assert str(err.value) == f"{tmp_path / 'all'}: unknown variant(s) xho_Latn; known: afr_Latn, zul_Latn"


def test_a_folder_of_one_variant_is_named_by_the_folder(tmp_path):
    path = _jsonl(tmp_path / "hin_Deva" / "train.jsonl", ROWS)
    ds = load_dataset_dir(tmp_path / "hin_Deva")
    assert list(ds.tables) == ["hin_Deva"] and ds.files == {("hin_Deva", "train"): path}
    _jsonl(tmp_path / "bad name" / "train.jsonl", ROWS)
    with pytest.raises(SchemaError) as err:
        load_dataset_dir(tmp_path / "bad name")
    assert err.value.file == str(tmp_path / "bad name")


def test_hidden_folders_and_plain_files_beside_the_variants_are_not_variants(tmp_path):
    _jsonl(tmp_path / "hin_Deva" / "dev.jsonl", ROWS)
    _jsonl(tmp_path / ".cache" / "train.jsonl", ROWS)
    (tmp_path / "README.md").write_text("notes\n", encoding="utf-8")
    ds = load_dataset_dir(tmp_path)
    assert list(ds.tables) == ["hin_Deva"]
    assert ds.files == {("hin_Deva", "dev"): tmp_path / "hin_Deva" / "dev.jsonl"}


def test_an_unknown_variant_of_a_folder_per_variant_names_the_folder(tmp_path):
    _jsonl(tmp_path / "hin_Deva" / "train.jsonl", ROWS)
    with pytest.raises(UnknownVariantError) as err:
        load_dataset_dir(tmp_path, variants=["npi_Deva"])
    assert str(err.value) == f"{tmp_path}: unknown variant(s) npi_Deva; known: hin_Deva"


def test_a_folder_without_split_files_is_refused_naming_it(tmp_path):
    (tmp_path / "hin_Deva").mkdir()
    with pytest.raises(SourceError) as err:
        load_dataset_dir(tmp_path)
    assert str(err.value) == (f"{tmp_path}: no split files found (expected <split>.parquet/.jsonl/.tsv in the "
                              "folder or in one folder per variant)")


def test_a_listed_split_file_beside_the_one_read_is_checked_too(tmp_path):
    folder = tmp_path / "hin_Deva"
    parquet = folder / "train.parquet"
    folder.mkdir()
    pq.write_table(pa.Table.from_pylist(ROWS), parquet)
    jsonl = _jsonl(folder / "train.jsonl", ROWS)
    (folder / "manifest.json").write_text(json.dumps({"files": {"train.parquet": _sha(parquet),
                                                                 "train.jsonl": _sha(jsonl)}}), encoding="utf-8")
    assert load_dataset_dir(folder).files == {("hin_Deva", "train"): parquet}
    jsonl.write_text(jsonl.read_text(encoding="utf-8")[:-2] + "\n", encoding="utf-8")
    with pytest.raises(IntegrityError) as err:
        load_dataset_dir(folder)
    assert err.value.file == str(jsonl)


@pytest.mark.parametrize("lazy", [False, True])
def test_a_whole_variant_folder_the_manifest_lists_and_that_is_gone_stops_the_load(tmp_path, lazy):
    files = {}
    for variant in ("afr_Latn", "hin_Deva"):
        path = _jsonl(tmp_path / variant / "train.jsonl", ROWS)
        files[f"{variant}/train.jsonl"] = {"sha256": _sha(path)}
    (tmp_path / "manifest.json").write_text(json.dumps({"files": files}), encoding="utf-8")
    assert list(load_dataset_dir(tmp_path, lazy=lazy).tables) == ["afr_Latn", "hin_Deva"]
    shutil.rmtree(tmp_path / "hin_Deva")
    with pytest.raises(IntegrityError) as err:
        load_dataset_dir(tmp_path, lazy=lazy)
    assert err.value.file == str(tmp_path / "hin_Deva" / "train.jsonl")
    assert "manifest.json lists this file, and it is missing" in str(err.value)


def test_columns_of_neither_kind_are_refused_naming_the_first_file_read(tmp_path):
    path = _jsonl(tmp_path / "hin_Deva" / "train.jsonl", [{"id": 1, "sentence": "A sentence."}])
    with pytest.raises(SchemaError) as err:
        load_dataset_dir(tmp_path)
    assert err.value.file == str(path) and "columns match neither multiple-choice" in str(err.value)


def test_a_bad_variant_name_in_a_language_column_is_named_by_its_row_counted_from_one(tmp_path):
    rows = [{**ROWS[0], "language": "hin_Deva"}, {**ROWS[1], "language": "../escaped"}]
    path = _jsonl(tmp_path / "all" / "train.jsonl", rows)
    with pytest.raises(SchemaError) as err:
        load_dataset_dir(tmp_path / "all")
    assert (err.value.file, err.value.record, err.value.field) == (str(path), "row 2", "language")
