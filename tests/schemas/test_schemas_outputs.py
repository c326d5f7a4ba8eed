"""Outputs that survive a kill (schemas.runtime.outputs): recovery, groups, output errors, and manifest verification."""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from schemas.dataset import load_dataset_dir, manifest_verification
from schemas.errors import ExitStatus, GateStatus, IntegrityError, OutputError, UsageError
from schemas.runtime.outputs import (MARKER, check_files_replaceable, check_replaceable, check_writable, recover,
                                     replace_dir_atomic, replace_files_together, staging_dir, written_by)

TEMPORARY = (".tmp", ".staging", ".old", ".commit")


def dead_pid() -> int:
    """The pid of a process that has ended (and been reaped)."""
    proc = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    return int(proc.stdout)


def names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


# -- recovery after a killed run -------------------------------------------------------------------------------

def test_a_missing_target_is_restored_from_the_old_folder_of_a_dead_run(tmp_path, caplog):
    pid = dead_pid()
    old = tmp_path / f".out.{pid}.old"
    old.mkdir()
    (old / "train.parquet").write_text("earlier")
    staging = tmp_path / f".out.{pid}.0123abcd.staging"
    staging.mkdir()
    (staging / "train.parquet").write_text("new, complete")
    with caplog.at_level("INFO", logger="schemas"):
        done = recover(tmp_path, "out")
    assert names(tmp_path) == ["out"] and (tmp_path / "out" / "train.parquet").read_text() == "earlier"
    assert len(caplog.records) == 1 and caplog.records[0].getMessage().startswith("recovered: restored the previous")
    assert len(done) == 2
    restored = f"restored the previous {tmp_path / 'out'} from .out.{pid}.old (run {pid} was killed while replacing it)"
    assert restored in done


def test_the_old_folder_is_removed_when_the_new_output_is_in_place(tmp_path):
    (tmp_path / "out").mkdir()
    (tmp_path / f".out.{dead_pid()}.old").mkdir()
    (tmp_path / ".out.old").mkdir()  # left by a version that wrote no pid
    recover(tmp_path, "out")
    assert names(tmp_path) == ["out"]


def test_debris_of_a_running_process_and_of_other_names_is_left_alone(tmp_path):
    alive = [tmp_path / f".out.{os.getpid()}.0123abcd.staging", tmp_path / f".out.1.0123abcd.staging"]
    others = [tmp_path / f".out.v2.{dead_pid()}.0123abcd.staging",  # another target, "out.v2"
              tmp_path / ".out.abcdefgh.staging"]  # an older version's name: its owner is unknown
    for p in alive + others:
        p.mkdir()
    assert recover(tmp_path, "out") == []
    assert names(tmp_path) == sorted(p.name for p in alive + others)


def test_a_committed_group_is_finished(tmp_path):
    (tmp_path / "qc_report.json").write_text("new")
    (tmp_path / "qc_report.md").write_text("old")
    commit = tmp_path / f".qc_report.{dead_pid()}.commit"
    commit.mkdir()
    (commit / "qc_report.md").write_text("new")
    [line] = recover(tmp_path, "qc_report")
    assert line.startswith("finished replacing qc_report.md")
    assert names(tmp_path) == ["qc_report.json", "qc_report.md"]
    assert (tmp_path / "qc_report.md").read_text() == "new"


def test_a_staging_folder_of_a_killed_run_is_removed_by_the_next_write(tmp_path):
    (tmp_path / f".out.{dead_pid()}.0123abcd.staging").mkdir()
    (tmp_path / f".x.txt.{dead_pid()}.89abcdef.tmp").write_text("half")
    with staging_dir(tmp_path / "out", what="test") as stage:
        (stage / "a.txt").write_text("a")
    from schemas.io import write_text_atomic

    write_text_atomic(tmp_path / "x.txt", "whole\n")
    assert names(tmp_path) == ["out", "x.txt"]
    assert names(tmp_path / "out") == [MARKER, "a.txt"] and written_by(tmp_path / "out") == "test"


# -- the swap and the group hold SIGTERM off -----------------------------------------------------------------

@pytest.fixture
def sigterm_raises(monkeypatch):
    """SIGTERM raises KeyboardInterrupt, as the CLI's handler does."""
    def handler(signum, frame):
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGTERM, handler)
    monkeypatch.setenv("BUILDER_FAULT_SIGNAL", "TERM")
    monkeypatch.delenv("BUILDER_FAULT_PID", raising=False)
    yield monkeypatch
    signal.signal(signal.SIGTERM, old)


@pytest.mark.parametrize("point", ["old-moved-away", "new-moved-in"])
def test_sigterm_during_the_swap_arrives_after_it(tmp_path, sigterm_raises, point):
    out = tmp_path / "out"
    with staging_dir(out) as stage:
        (stage / "v").write_text("1")
    sigterm_raises.setenv("BUILDER_FAULT_POINT", point)
    with pytest.raises(KeyboardInterrupt):
        with staging_dir(out) as stage:
            (stage / "v").write_text("2")
    assert names(tmp_path) == ["out"] and (out / "v").read_text() == "2"  # the new one, whole; no debris


def test_sigterm_before_the_swap_keeps_the_earlier_folder(tmp_path, sigterm_raises):
    out = tmp_path / "out"
    with staging_dir(out) as stage:
        (stage / "v").write_text("1")
    sigterm_raises.setenv("BUILDER_FAULT_POINT", "staging-written")
    with pytest.raises(KeyboardInterrupt):
        with staging_dir(out) as stage:
            (stage / "v").write_text("2")
    assert names(tmp_path) == ["out"] and (out / "v").read_text() == "1"


def test_sigterm_between_the_files_of_a_group_arrives_after_both(tmp_path, sigterm_raises):
    replace_files_together(tmp_path, {"r.json": "1", "r.md": "1"})
    sigterm_raises.setenv("BUILDER_FAULT_POINT", "group-half-moved")
    with pytest.raises(KeyboardInterrupt):
        replace_files_together(tmp_path, {"r.json": "2", "r.md": "2"})
    assert names(tmp_path) == ["r.json", "r.md"]
    assert (tmp_path / "r.json").read_text() == (tmp_path / "r.md").read_text() == "2"


def test_a_group_is_written_with_the_umask_modes_and_no_debris(tmp_path):
    mask = os.umask(0o022)
    try:
        paths = replace_files_together(tmp_path / "new", {"b.md": "b\n", "a.json": b"{}\n"})
    finally:
        os.umask(mask)
    assert [p.name for p in paths] == ["a.json", "b.md"] and names(tmp_path / "new") == ["a.json", "b.md"]
    assert all(p.stat().st_mode & 0o777 == 0o644 for p in paths)
    with pytest.raises(ValueError, match="plain file names"):
        replace_files_together(tmp_path, {"../x": "no"})


# -- output errors ---------------------------------------------------------------------------------------------

def test_output_errors_are_one_line_naming_the_output_with_exit_code_2(tmp_path):
    (tmp_path / "f").write_text("a file")
    cases = {
        tmp_path / "f": "a file of that name exists; expected a folder",
        tmp_path / "f" / "out": f"{tmp_path / 'f'} is a file, not a folder",
        tmp_path / "f" / "a" / "b": f"{tmp_path / 'f'} is a file, not a folder",
    }
    for target, reason in cases.items():
        with pytest.raises(OutputError) as info:
            check_writable(target)
        assert str(info.value) == f"cannot write {target}: {reason}"
        assert info.value.exit_code == ExitStatus.USAGE == GateStatus.UNREADABLE
    check_writable(tmp_path / "new" / "deeper")  # parents that do not exist yet are fine
    assert names(tmp_path) == ["f"]  # and nothing was created


def test_a_read_only_folder_is_found_before_anything_is_written(tmp_path, readonly_dir):
    ro = readonly_dir
    with pytest.raises(OutputError, match=rf"^cannot write {ro}/out: (permission denied|operation not permitted|"
                                          r"read-only file system)$"):
        check_writable(ro / "out")
    with pytest.raises(OutputError, match=rf"^cannot write {ro}/out: "):
        with staging_dir(ro / "out"):
            pytest.fail("the block must not run")


def test_a_write_that_fails_inside_the_staging_folder_names_the_output(tmp_path):
    with pytest.raises(OutputError, match=r"cannot write .*out: "):
        with staging_dir(tmp_path / "out") as stage:
            raise OSError(28, "No space left on device", str(stage / "big.parquet"))
    with pytest.raises(FileNotFoundError):  # reading an input inside the block stays a read error
        with staging_dir(tmp_path / "out"):
            open(tmp_path / "missing-input.tsv")
    assert names(tmp_path) == []


def test_another_commands_output_is_refused_even_with_the_old_marker_file(tmp_path):
    out = tmp_path / "out"
    with staging_dir(out, what="assemble") as stage:
        (stage / "manifest.json").write_text("{}")
    check_replaceable(out, "manifest.json", "assemble")
    with pytest.raises(UsageError, match="holding the output of 'builder assemble': it is not an earlier export"):
        check_replaceable(out, "manifest.json", "export")
    (out / MARKER).unlink()  # an output of a version that wrote no marker: the old rule
    check_replaceable(out, "manifest.json", "export")


# -- manifest verification in the loader -----------------------------------------------------------------------

@pytest.fixture
def assembled(tmp_path):
    from builder.assemble import assemble
    from builder.recipe import load_recipe

    root = Path(__file__).parents[2]
    out = tmp_path / "built"
    assemble(load_recipe(root / "tests/data/bad/manifest_altered_export/recipe.yaml"), out)
    return out


def test_a_split_file_changed_after_assembly_stops_every_reader(assembled):
    load_dataset_dir(assembled)
    table = pq.read_table(assembled / "train.parquet")
    pq.write_table(table.slice(0, table.num_rows - 1), assembled / "train.parquet")
    with pytest.raises(IntegrityError, match=r"train.parquet: differs from the sha256 that manifest.json "
                                             r"recorded") as info:
        load_dataset_dir(assembled)
    assert info.value.exit_code == 2
    assert len(load_dataset_dir(assembled, verify=False).tables["eng_Latn"]["train"]) == table.num_rows - 1
    with manifest_verification(False):
        load_dataset_dir(assembled)


def test_a_split_file_the_manifest_lists_and_the_folder_lacks_is_an_error(assembled):
    (assembled / "dev.parquet").unlink()
    with pytest.raises(IntegrityError, match=r"dev.parquet: manifest.json lists this file, and it is missing"):
        load_dataset_dir(assembled)


def test_an_export_is_verified_when_each_variant_is_read(tmp_path):
    from builder.tasks.export import ExportOptions, run_export

    root = Path(__file__).parents[1] / "data" / "export" / "sib_small"
    out = tmp_path / "export"
    run_export(ExportOptions(root, out))
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["files"]["hin_Latn/train.parquet"]["sha256"]
    table = pq.read_table(out / "hin_Latn" / "train.parquet")
    pq.write_table(table.slice(1), out / "hin_Latn" / "train.parquet")
    ds = load_dataset_dir(out, lazy=True)  # the first variant is read now, hin_Latn when asked for
    assert ds.variants == ["hin_Deva", "hin_Latn"]
    with pytest.raises(IntegrityError, match="hin_Latn/train.parquet: differs"):
        ds.tables["hin_Latn"]
    load_dataset_dir(out, variants=["hin_Deva"])  # a variant left as written is read


def test_recovery_names_an_earlier_run_without_a_pid_and_finishes_a_committed_group(tmp_path, caplog):
    (tmp_path / ".out.old").mkdir()  # an earlier version wrote no pid
    pid = dead_pid()
    group = tmp_path / f".out.{pid}.commit"
    group.mkdir()
    for member in ("b.json", "a.json"):
        (group / member).write_text(member, encoding="utf-8")
    with caplog.at_level("INFO", logger="schemas"):
        done = recover(tmp_path, "out")
    assert done == [f"finished replacing a.json, b.json in {tmp_path}, which run {pid} was killed doing",
                    f"restored the previous {tmp_path / 'out'} from .out.old (an earlier run was killed while "
                    "replacing it)"]
    assert [r.getMessage() for r in caplog.records] == ["recovered: " + "; ".join(done)]
    assert names(tmp_path) == ["a.json", "b.json", "out"]


def refuse_new_entries_in(folder: Path, monkeypatch) -> None:
    """``os.mkdir`` refuses, as permission denied, to make an entry in ``folder``; anywhere else it works."""
    real_mkdir = os.mkdir

    def mkdir(path, *args, **kwargs):
        if Path(path).parent == folder:
            raise PermissionError(13, "Permission denied", str(path))
        return real_mkdir(path, *args, **kwargs)

    monkeypatch.setattr(os, "mkdir", mkdir)


def test_the_folder_that_must_be_writable_is_the_parent_unless_the_names_go_inside(tmp_path, monkeypatch):
    target = tmp_path / "out"
    target.mkdir()
    refuse_new_entries_in(target, monkeypatch)  # the target itself refuses new entries; its parent does not
    assert check_writable(target) == target
    with pytest.raises(OutputError, match=rf"^cannot write {target}: permission denied$"):
        check_writable(target, inside=True)


def test_the_writable_probe_is_named_as_the_staging_folder_of_the_first_new_name(tmp_path, monkeypatch):
    """The probe folder has a staging folder's temporary name, ``.NAME.PID.HEX.staging``, NAME being the first name
    the output creates in the folder that holds it (the target's own with ``inside``, "out" for a target with no
    name): a kill between its mkdir and rmdir leaves debris that recovery knows."""
    probes = []
    real_rmdir = os.rmdir
    monkeypatch.setattr(os, "rmdir", lambda path, *a, **k: (probes.append(Path(path)), real_rmdir(path, *a, **k))[1])
    (tmp_path / "held").mkdir()
    check_writable(tmp_path / "out")  # the parent holds it: "out"
    check_writable(tmp_path / "a" / "b" / "c")  # the nearest existing folder is tmp_path: "a" is created there
    check_writable(tmp_path / "held", inside=True)  # the target itself holds the new names
    monkeypatch.chdir(tmp_path)
    check_writable(Path("."))  # no name of its own: "out"
    pid = os.getpid()
    assert [p.parent for p in probes] == [tmp_path, tmp_path, tmp_path / "held", Path(".")]
    for probe, first in zip(probes, ["out", "a", "held", "out"]):
        assert re.fullmatch(rf"\.{first}\.{pid}\.[0-9a-f]{{8}}\.staging", probe.name), probe.name
    assert sorted(os.listdir(tmp_path)) == ["held"] and os.listdir(tmp_path / "held") == []


def test_a_swap_that_fails_puts_the_earlier_folder_back_and_names_the_output(tmp_path):
    target = tmp_path / "out"
    target.mkdir()
    (target / "a.txt").write_text("earlier", encoding="utf-8")
    with pytest.raises(OutputError) as err:
        replace_dir_atomic(tmp_path / "never-written", target)  # the staging folder is not there
    assert err.value.file == str(target)
    assert names(tmp_path) == ["out"] and (target / "a.txt").read_text(encoding="utf-8") == "earlier"


def test_a_folder_that_is_no_earlier_output_is_refused_in_the_plain_words(tmp_path):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "notes.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(UsageError) as err:
        check_replaceable(tmp_path / "out")
    assert str(err.value) == (f"{tmp_path / 'out'}: a non-empty folder: it is not an earlier builder output, and the "
                              "output folder is replaced as a whole, so choose a new or empty folder")


def test_an_earlier_folder_that_cannot_be_put_back_is_kept_for_recovery(tmp_path, monkeypatch):
    target, staging = tmp_path / "out", tmp_path / "new"
    target.mkdir()
    (target / "a.txt").write_text("earlier", encoding="utf-8")
    real_replace = os.replace

    def replace(src, dst):  # the swap fails, and so does putting the earlier folder back
        if Path(dst) == target:
            raise OSError(5, "Input/output error", str(dst))
        return real_replace(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(OutputError):
        replace_dir_atomic(staging, target)
    (backup,) = tmp_path.glob(".out.*.old")  # not removed: the next run restores it (recover)
    assert (backup / "a.txt").read_text(encoding="utf-8") == "earlier"


def test_an_earlier_folder_that_cannot_be_removed_does_not_fail_a_finished_swap(tmp_path, monkeypatch):
    target, staging = tmp_path / "out", tmp_path / "new"
    for folder, text in ((target, "earlier"), (staging, "new")):
        (folder / "sub").mkdir(parents=True)
        (folder / "sub" / "a.txt").write_text(text, encoding="utf-8")

    def rmdir(path, *args, **kwargs):  # the earlier folder's removal fails half way
        raise OSError(16, "Device or resource busy", str(path))

    monkeypatch.setattr(os, "rmdir", rmdir)
    replace_dir_atomic(staging, target)  # no error: the new folder is in place
    assert (target / "sub" / "a.txt").read_text(encoding="utf-8") == "new"


@pytest.mark.parametrize("fault", ["replaced", "unlink fails"])
def test_a_stale_lock_that_is_not_removed_is_not_reported_removed(tmp_path, monkeypatch, fault):
    lock = tmp_path / ".out.lock"
    lock.write_text("", encoding="utf-8")  # no process holds it: a killed run's
    if fault == "replaced":  # another run replaced the lock file between the open and the check
        real_stat = os.stat

        def stat(path, *args, **kwargs):
            found = real_stat(path, *args, **kwargs)
            if Path(path) != lock:
                return found
            return os.stat_result((found.st_mode, found.st_ino + 1, *tuple(found)[2:]))

        monkeypatch.setattr(os, "stat", stat)
    else:
        real_unlink = os.unlink

        def unlink(path, *args, **kwargs):
            if Path(path) == lock:
                raise PermissionError(13, "Permission denied", str(path))
            return real_unlink(path, *args, **kwargs)

        monkeypatch.setattr(os, "unlink", unlink)
    assert recover(tmp_path, "out") == [] and lock.exists()


def test_a_group_is_refused_when_its_folder_refuses_new_entries_though_its_parent_takes_them(tmp_path, monkeypatch):
    # pins: the files of a group go inside the folder, so that folder (not its parent) must let entries be created
    folder = tmp_path / "dataset"
    folder.mkdir()
    refuse_new_entries_in(folder, monkeypatch)  # the folder itself refuses new entries; its parent does not
    with pytest.raises(OutputError, match=rf"^cannot write {folder}: permission denied$"):
        check_files_replaceable(folder, ["qc_report.json", "qc_report.md"], "qc")


def test_an_interrupt_right_after_the_group_commit_rename_is_raised_as_it_is(tmp_path, monkeypatch):
    # pins: the cleanup of the staging folder ignores that the rename already moved it away
    real_rename = os.rename

    def rename(src, dst, *args, **kwargs):  # the rename is done, then Ctrl-C arrives
        real_rename(src, dst, *args, **kwargs)
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "rename", rename)
    with pytest.raises(KeyboardInterrupt):
        replace_files_together(tmp_path, {"a.json": "{}", "b.json": "{}"})
    assert names(tmp_path) == [f".a.{os.getpid()}.commit"]  # committed: the next run finishes the group
