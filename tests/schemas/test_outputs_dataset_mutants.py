"""Groups of files written together, a forked worker's locks, and dataset loading's refusals, where mutation
left them free (issue 27, fifth pass: `schemas/runtime/outputs.py` and `schemas/dataset.py`).

Each test calls the function in this process (a subprocess would run the installed package, not a mutant).
"""
from __future__ import annotations

import errno
import os
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import schemas.runtime.outputs as outputs
from schemas.dataset import LoadedDataset, UnknownVariantError, _kind, _known, check_columns, load_dataset_dir
from schemas.errors import OutputError, SchemaError, UsageError
from schemas.runtime.outputs import (check_files_replaceable, lock_beside, output_lock, refuse_inputs_inside,
                                     replace_files_together)

DATA = Path(__file__).parents[1] / "data"


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


# -- groups of files ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["sub/a.json", ".hidden.json", "../a.json"])
def test_a_group_member_must_be_a_plain_file_name(tmp_path, name):
    with pytest.raises(ValueError) as err:
        replace_files_together(tmp_path, {name: "x", "b.json": "y"})
    assert str(err.value) == f"group members must be plain file names; found {sorted([name, 'b.json'])}"
    assert list(tmp_path.iterdir()) == []


def test_a_group_is_staged_under_a_name_the_next_run_recovers_and_moved_first_member_first(tmp_path, monkeypatch):
    seen = []

    def point(name):
        seen.append((name, sorted(p.name for p in tmp_path.iterdir())))

    monkeypatch.setattr(outputs, "fault_point", point)
    paths = replace_files_together(tmp_path, {"b.json": "B", "a.json": "A", "c.txt": b"C"})
    assert paths == [tmp_path / "a.json", tmp_path / "b.json", tmp_path / "c.txt"]
    (staged, listing), (half, moved) = seen
    assert staged == "group-staged" and half == "group-half-moved"
    # staged: one folder .GROUP.PID.HEX.staging (GROUP: the first name's stem), nothing else yet
    assert len(listing) == 1 and re.fullmatch(rf"\.a\.{os.getpid()}\.[0-9a-f]{{8}}\.staging", listing[0])
    # half-moved: called once, after the first member and before the others
    assert moved == ["." + f"a.{os.getpid()}.commit", "a.json"]
    assert [p.read_bytes() for p in paths] == [b"A", b"B", b"C"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json", "b.json", "c.txt"]


def test_what_a_killed_group_write_left_is_removed_by_the_next_write(tmp_path):
    pid = _dead_pid()
    left = tmp_path / f".a.{pid}.0123abcd.staging"  # as a run killed after staging leaves it
    left.mkdir()
    (left / "a.json").write_text("half", encoding="utf-8")
    replace_files_together(tmp_path, {"a.json": "new", "b.json": "new"})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json", "b.json"]


def test_a_failed_write_leaves_no_staging_folder_and_names_the_folder(tmp_path, monkeypatch):
    folder = tmp_path / "out"
    folder.mkdir()
    (folder / "a.json").write_text("old", encoding="utf-8")
    real = Path.write_bytes

    def full(self, data):
        if self.name == "b.json":
            raise OSError(errno.ENOSPC, "No space left on device", str(self))
        return real(self, data)

    monkeypatch.setattr(Path, "write_bytes", full)
    with pytest.raises(OutputError) as err:
        replace_files_together(folder, {"a.json": "new", "b.json": "new"})
    assert err.value.file == str(folder)
    assert sorted(p.name for p in folder.iterdir()) == ["a.json"]  # the staging folder is gone
    assert (folder / "a.json").read_text(encoding="utf-8") == "old"


def test_a_group_that_cannot_be_moved_in_is_an_output_error_naming_the_folder(tmp_path, monkeypatch):
    def broken(src, dst):
        raise OSError(errno.EIO, "Input/output error", str(dst))

    monkeypatch.setattr(outputs.os, "replace", broken)
    with pytest.raises(OutputError) as err:
        replace_files_together(tmp_path / "out", {"a.json": "new"})
    assert err.value.file == str(tmp_path / "out")


def test_a_group_folder_under_a_file_is_an_output_error_naming_the_folder(tmp_path):
    (tmp_path / "file").write_text("x", encoding="utf-8")
    with pytest.raises(OutputError) as err:
        replace_files_together(tmp_path / "file" / "out", {"a.json": "new"})
    assert err.value.file == str(tmp_path / "file" / "out")


def test_a_folder_holding_none_of_the_group_is_refused_naming_every_member(tmp_path):
    (tmp_path / "notes.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(UsageError) as err:
        check_files_replaceable(tmp_path, ["card.md", "ATTRIBUTION.md"], "card")
    assert err.value.message == ("a non-empty folder without card.md or ATTRIBUTION.md: it is not an earlier card "
                                 "output folder, so choose a new or empty folder")
    assert err.value.file == str(tmp_path)
    check_files_replaceable(tmp_path, ["card.md", "notes.txt"], "card")  # holds a member: an earlier output
    check_files_replaceable(tmp_path, ["card.md"], "card", own=[tmp_path])  # the folder the files describe


def test_an_output_inside_an_input_folder_is_refused_word_for_word(tmp_path):
    with pytest.raises(UsageError) as err:
        refuse_inputs_inside(tmp_path / "in" / "out", [tmp_path / "in"], option="--into")
    assert err.value.message == (f"--into {tmp_path / 'in' / 'out'} lies inside the input folder {tmp_path / 'in'}; "
                                 "choose a folder outside it")


def test_a_forked_worker_closes_its_copies_of_the_held_locks(tmp_path):
    out = tmp_path / "out"
    with output_lock(lock_beside(out), out, "export"):
        (fd,) = outputs._HELD.values()  # the one lock this process holds
        pid = os.fork()
        if pid == 0:  # the worker: its copy of the lock's descriptor must be closed, and the table empty
            try:
                os.fstat(fd)
                code = 1
            except OSError:
                code = 0 if not outputs._HELD else 2
            os._exit(code)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        os.fstat(fd)  # this process still holds it


# -- dataset loading ------------------------------------------------------------------------------------------

def test_columns_of_neither_kind_are_refused_naming_both_kinds_and_the_file(tmp_path):
    where = tmp_path / "x" / "train.tsv"
    with pytest.raises(SchemaError) as err:
        _kind(pd.DataFrame({"id": [1], "sentence": ["s"]}), where)
    assert err.value.message == (
        "columns match neither multiple-choice (passage, question, answer1, answer2, answer3, answer4, "
        "correct_answer_num) nor topic (index_id, category, text) records; found ['id', 'sentence']")
    assert err.value.file == str(where)


def _tables(names):
    return dict.fromkeys(names)


def test_an_unknown_variant_among_eight_lists_every_known_one(tmp_path):
    known = [f"{c}_Latn" for c in ("aaa", "bbb", "ccc", "ddd", "eee", "fff", "ggg", "hhh")]
    with pytest.raises(UnknownVariantError) as err:
        _known(["zzz_Latn", "eng_Latn"], _tables(known), tmp_path)
    assert err.value.message == f"unknown variant(s) eng_Latn, zzz_Latn; known: {', '.join(known)}"
    assert err.value.file == str(tmp_path)
    _known(known[:2], _tables(known), tmp_path)  # all known: nothing raised


def test_an_unknown_variant_among_many_names_the_nearest_case_first(tmp_path):
    known = ["eng_Latn", "hin_Deva", "hin_Latn", "hne_Deva", "mai_Deva", "mar_Deva", "npi_Deva", "urd_Arab", "ben_Beng"]
    with pytest.raises(UnknownVariantError) as err:
        _known(["eng_latn"], _tables(known), tmp_path)
    assert err.value.message.startswith("unknown variant(s) eng_latn; nearest: eng_Latn")
    assert err.value.message.endswith("; 9 variants in the folder")
    with pytest.raises(UnknownVariantError) as err:
        _known(["qqq_Zzzz"], _tables(known), tmp_path)  # nothing near: only the count
    assert err.value.message == "unknown variant(s) qqq_Zzzz; 9 variants in the folder"


def test_the_nearest_are_three_per_unknown_and_five_in_all(tmp_path):
    known = [f"hin_{s}" for s in ("Deva", "Dev1", "Dev2", "Dev3", "Dev4")] + [f"mar_{s}" for s in
                                                                           ("Deva", "Dev1", "Dev2", "Dev3")]
    with pytest.raises(UnknownVariantError) as err:
        _known(["hin_Devx"], _tables(known), tmp_path)
    near = err.value.message.split("nearest: ")[1].split("; ")[0].split(", ")
    assert len(near) == 3 and all(n.startswith("hin_") for n in near)
    with pytest.raises(UnknownVariantError) as err:
        _known(["hin_Devx", "mar_Devx"], _tables(known), tmp_path)
    near = err.value.message.split("nearest: ")[1].split("; ")[0].split(", ")
    assert len(near) == 5 and [n[:4] for n in near] == ["hin_"] * 3 + ["mar_"] * 2


def test_a_variant_not_in_the_folder_has_no_folder_and_no_info():
    data = load_dataset_dir(DATA / "sib200" / "annotated", variants=["hin_Deva"])
    assert data.variant_dir("hin_Deva") == DATA / "sib200" / "annotated" / "hin_Deva"
    assert data.variant_dir("xxx_Latn") is None and data.variant_info("xxx_Latn") is None
    assert isinstance(data, LoadedDataset)


def test_an_unknown_variant_in_another_case_is_named_by_its_case_insensitive_match(tmp_path):
    known = ["eng_Latn", "hin_Deva", "hin_Latn", "hne_Deva", "mai_Deva", "mar_Deva", "npi_Deva", "urd_Arab", "ben_Beng"]
    with pytest.raises(UnknownVariantError) as err:
        _known(["ENG_LATN"], _tables(known), tmp_path)  # too far from any code for difflib: only the case finds it
    assert err.value.message == "unknown variant(s) ENG_LATN; nearest: eng_Latn; 9 variants in the folder"


@pytest.mark.parametrize("kind, columns, message", [
    ("mc", ["passage", "question", "answer1"],
     "multiple-choice records need the columns passage, question, answer1, answer2, answer3, answer4, "
     "correct_answer_num; missing answer2, answer3, answer4, correct_answer_num (found passage, question, answer1)"),
    ("topic", ["index_id", "text"],
     "topic records need the columns index_id, category, text; missing category (found index_id, text)"),
])
def test_missing_columns_are_named_with_the_kind_and_the_columns_found(tmp_path, kind, columns, message):
    with pytest.raises(SchemaError) as err:
        check_columns(pd.DataFrame({c: ["x"] for c in columns}), kind, tmp_path / "train.tsv")
    assert err.value.message == message and err.value.file == str(tmp_path / "train.tsv")


def test_a_variant_name_that_cannot_be_a_file_name_is_refused_naming_the_file_row_and_column(tmp_path):
    folder = tmp_path / "assembled"
    folder.mkdir()
    pd.DataFrame({"index_id": [0, 1, 2], "category": ["a", "b", "a"], "text": ["x", "y", "z"],
                  "language": ["eng_Latn", "a/b", "a/b"]}).to_json(folder / "train.jsonl", orient="records",
                                                                   lines=True)
    with pytest.raises(SchemaError) as err:
        load_dataset_dir(folder)
    assert err.value.message.startswith("variant name 'a/b' cannot be a file name: ")
    assert (err.value.file, err.value.record, err.value.field) == (str(folder / "train.jsonl"), "row 2", "language")
    sub = tmp_path / "by-folder"
    (sub / "bad name").mkdir(parents=True)
    (sub / "bad name" / "train.tsv").write_text("index_id\tcategory\ttext\n0\ta\tx\n", encoding="utf-8")
    with pytest.raises(SchemaError) as err:
        load_dataset_dir(sub)
    assert err.value.message.startswith("variant name 'bad name' cannot be a file name: ")
    assert (err.value.file, err.value.record, err.value.field) == (str(sub / "bad name"), None, None)
