"""``schemas/manifest.py`` where mutation showed the tests free (issue 27): which files are split files,
which manifest entries count, the refusals word for word, and a listed file deleted between a lazy load
and its read."""
from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from schemas.dataset import load_dataset_dir
from schemas.errors import IntegrityError, SchemaError
from schemas.manifest import read_manifest, recorded_hashes, split_files, verify_against_manifest

HIN = Path(__file__).parents[1] / "data" / "sib200" / "annotated" / "hin_Deva"
ALTERED = ("differs from the sha256 that manifest.json recorded: the file changed after the folder was written; "
           "rebuild the folder, or read it anyway with 'builder --no-verify COMMAND ...'")
MISSING = ("manifest.json lists this file, and it is missing: the folder changed after it was written; rebuild "
           "the folder, or read it anyway with 'builder --no-verify COMMAND ...'")


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_split_files_skip_reports_and_hidden_files_and_prefer_parquet(tmp_path):
    for name in ("dev.jsonl", "dropped.jsonl", "train.jsonl", "train.tsv", ".train.tmp.tsv", "test.tsv",
                 "manifest.jsonl", "labels.tsv", "qc_report.tsv", "results.tsv", "test.parquet"):
        (tmp_path / name).write_text("")
    assert split_files(tmp_path) == {"test": tmp_path / "test.parquet", "dev": tmp_path / "dev.jsonl",
                                     "train": tmp_path / "train.jsonl"}


def test_only_entries_with_a_path_and_a_digest_are_recorded(tmp_path):
    manifest = {"files": {"a.parquet": {"bytes": 3}, "b.parquet": "abc", "c.tsv": {"sha256": "def"},
                          "d.tsv": {"sha256": 5}, "e.tsv": None}}
    assert recorded_hashes(tmp_path, manifest) == {tmp_path / "b.parquet": "abc", tmp_path / "c.tsv": "def"}
    assert recorded_hashes(tmp_path, {"files": ["a.parquet"]}) == {} == recorded_hashes(tmp_path, [])


def test_a_malformed_manifest_is_refused_naming_its_line(tmp_path):
    (tmp_path / "manifest.json").write_text('{"files":\n  {"train.tsv": }\n}\n')
    with pytest.raises(SchemaError) as err:
        read_manifest(tmp_path)
    assert err.value.message == "malformed JSON: Expecting value"
    assert (err.value.file, err.value.record) == (str(tmp_path / "manifest.json"), "line 2")
    assert read_manifest(tmp_path / "nowhere") is None


@pytest.fixture
def variant(tmp_path) -> Path:
    """hin_Deva with a manifest listing its splits and a report file (dropped.jsonl) and a note."""
    folder = tmp_path / "hin_Deva"
    shutil.copytree(HIN, folder)
    (folder / "dropped.jsonl").write_text('{"reason": "x"}\n')
    (folder / "notes.txt").write_text("notes\n")
    names = ["train.tsv", "dev.tsv", "test.tsv", "dropped.jsonl", "notes.txt"]
    (folder / "manifest.json").write_text(json.dumps({"files": {n: _sha(folder / n) for n in names}}))
    return folder


def test_the_messages_name_the_altered_and_the_missing_file(variant):
    (variant / "dev.tsv").write_text((variant / "dev.tsv").read_text(encoding="utf-8") + "\n", encoding="utf-8")
    with pytest.raises(IntegrityError) as err:
        verify_against_manifest(variant)
    assert (err.value.message, err.value.file) == (ALTERED, str(variant / "dev.tsv"))
    (variant / "test.tsv").unlink()
    with pytest.raises(IntegrityError) as err:
        verify_against_manifest(variant)
    assert (err.value.message, err.value.file) == (MISSING, str(variant / "test.tsv"))


def test_files_that_are_not_split_files_are_not_checked(variant):
    """A report or a note changed after the manifest is not a split that a reader reads: no refusal, for the
    folder and for the file named alone."""
    (variant / "dropped.jsonl").write_text('{"reason": "changed"}\n')
    (variant / "notes.txt").write_text("changed\n")
    verify_against_manifest(variant)
    verify_against_manifest(variant / "dropped.jsonl")
    verify_against_manifest(variant / "notes.txt")
    (variant / "train.tsv").write_text("index_id\tcategory\ttext\n", encoding="utf-8")
    with pytest.raises(IntegrityError, match="differs from the sha256"):
        verify_against_manifest(variant / "train.tsv")


def test_a_listed_file_deleted_after_a_lazy_load_is_named_when_its_variant_is_read(variant, tmp_path):
    """The loader checks the listing when it plans; a file that goes between that and the (lazy) read of its
    variant is named as missing then, not an unexplained error from hashing a file that is not there."""
    root = tmp_path / "export"
    root.mkdir()
    (variant / "manifest.json").unlink()
    for code in ("hin_Deva", "mar_Deva"):  # the loader reads the first variant at once, to learn the kind
        shutil.copytree(variant, root / code)
        for name in ("train", "dev", "test"):  # a JSONL beside each TSV: the JSONL is what is read
            (root / code / f"{name}.jsonl").write_text("".join(
                json.dumps({"index_id": i, "category": "travel", "text": f"t{i}"}) + "\n" for i in range(3)))
    names = [f"{c}/{s}.{x}" for c in ("hin_Deva", "mar_Deva") for s in ("train", "dev", "test")
             for x in ("jsonl", "tsv")]
    (root / "manifest.json").write_text(json.dumps({"files": {n: {"sha256": _sha(root / n)} for n in names}}))
    folder = root / "mar_Deva"
    loaded = load_dataset_dir(root, lazy=True)
    (folder / "dev.tsv").unlink()
    with pytest.raises(IntegrityError) as err:
        loaded.tables["mar_Deva"]
    assert (err.value.message, err.value.file) == (MISSING, str(folder / "dev.tsv"))
