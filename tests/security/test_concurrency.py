"""Two runs into one output folder: the folder holds one run's consistent result, the other run exits 2
naming the holder (issue 26). Every output folder is locked while a run writes it
(:func:`schemas.runtime.outputs.output_lock`, ``.NAME.lock`` beside it); a release is locked for its
whole run, each command's output while its staging folder is written and swapped in.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from builder.cli.main import cli
from builder.release.stages import tree_sha256
from schemas.errors import ExitStatus
from schemas.runtime.outputs import OutputBusy, lock_beside, output_lock

DATA = Path(__file__).parents[1] / "data"
RECIPE = DATA / "release" / "mini-release.yaml"

HOLDER = """
import sys, time
from pathlib import Path
from schemas.runtime.outputs import lock_beside, output_lock
target = Path(sys.argv[1])
with output_lock(lock_beside(target), target, sys.argv[2]):
    print("held", flush=True)
    sys.stdin.readline()
"""


@pytest.fixture
def holder():
    """Hold the lock of an output folder from another process until the block ends."""
    procs = []

    def hold(target: Path, command: str) -> subprocess.Popen:
        proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(target), command], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, text=True, cwd=Path(__file__).parents[2])
        assert proc.stdout.readline().strip() == "held"
        procs.append(proc)
        return proc

    yield hold
    for proc in procs:
        if proc.poll() is None:
            proc.communicate("\n", timeout=30)


def _invoke(*args):
    return CliRunner().invoke(cli, ["-q", *map(str, args)])


def test_a_held_export_folder_is_refused_naming_the_holder(tmp_path, holder):
    out = tmp_path / "out"
    proc = holder(out, "export")
    result = _invoke("export", DATA / "export" / "sib_small", "--out", out)
    assert result.exit_code == ExitStatus.USAGE, result.output
    line = result.stderr.strip()
    assert line.startswith("error: cannot write ") and f"pid {proc.pid}, builder export" in line, line
    assert not out.exists()
    proc.communicate("\n", timeout=30)
    assert not lock_beside(out).exists()  # the holder removes its lock file
    assert _invoke("export", DATA / "export" / "sib_small", "--out", out).exit_code == 0
    assert not lock_beside(out).exists()


def test_a_held_release_folder_is_refused_before_anything_is_written(tmp_path, holder):
    out = tmp_path / "release"
    proc = holder(out, "release")
    result = _invoke("release", RECIPE, "--out", out)
    assert result.exit_code == ExitStatus.USAGE, result.output
    assert f"pid {proc.pid}, builder release" in result.stderr
    assert not out.exists()


def test_a_lock_is_released_when_its_process_is_killed(tmp_path, holder):
    out = tmp_path / "out"
    proc = holder(out, "export")
    proc.kill()
    proc.wait(timeout=30)
    with output_lock(lock_beside(out), out, "export"):  # flock died with its process: no stale lock
        pass
    assert not lock_beside(out).exists()


def test_the_same_process_may_take_a_lock_it_holds(tmp_path):
    out = tmp_path / "out"
    with output_lock(lock_beside(out), out, "release"):
        with output_lock(lock_beside(out), out, "release"):
            pass
        assert lock_beside(out).exists()


def test_another_process_cannot_take_a_held_lock(tmp_path, holder):
    out = tmp_path / "out"
    proc = holder(out, "qc")
    with pytest.raises(OutputBusy, match=f"pid {proc.pid}, builder qc"):
        with output_lock(lock_beside(out), out, "qc"):
            pass


@pytest.mark.slow
def test_two_releases_at_once_leave_one_consistent_release(tmp_path):
    """Two real ``builder release`` processes started together into one folder: one runs, the other
    exits 2 naming it (or, if they did not overlap, both run in turn); the folder then says what it holds:
    release.json's name is the export's, the export is the one its stage record hashed."""
    out = tmp_path / "release"
    # one shipped variant, named as the mini release is (its slug is checked below): the release's lock is
    # taken for the whole run whatever the recipe holds, and the mini recipe's seven variant stages cost
    # both processes seconds that said nothing more about the lock
    recipe = tmp_path / "release.yaml"
    recipe.write_text(json.dumps({"version": 1, "name": "mini-release", "license": "CC-BY-SA-4.0",
                                  "pivot": "hin_Deva", "variants": [{"dataset": str(DATA / "sib200" / "annotated"),
                                                                     "only": ["hin_Deva"]}]}))
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])}
    cmd = [sys.executable, "-m", "builder.cli.main", "-q", "release", str(recipe), "--out", str(out)]
    procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
             for _ in range(2)]
    done = [p.communicate(timeout=600) for p in procs]
    codes = sorted(p.returncode for p in procs)
    assert codes in ([0, 0], [0, 2]), (codes, done)
    for proc, (_out, err) in zip(procs, done):
        if proc.returncode == 2:
            other = next(p for p in procs if p is not proc)
            # the holder's pid, or, refused between the other's taking the lock and writing its record into
            # it (a window a loaded machine widens: it happened in a mutation run's in-process stats run),
            # the words for that window
            assert f"pid {other.pid}, builder release" in err or "another run is writing it (a run that is " \
                "starting)" in err, err
    summary = json.loads((out / "release.json").read_text())
    manifest = json.loads((out / "export" / "manifest.json").read_text())
    assert (summary["dataset"]["name"], manifest["name"]) == ("mini-release", "mini_release")  # the slug
    record = json.loads((out / "stages" / "export" / "stage.json").read_text())
    assert record["output"]["sha256"] == tree_sha256(out / "export")
    assert not list(tmp_path.glob(".*.lock")) and not list(out.glob(".*.staging"))


def test_a_release_killed_in_its_export_is_recovered_aloud_by_the_next_run(tmp_path):
    """SIGKILL while the export's staging folder is complete: the next run, which finds the export up to
    date or not, removes the killed run's staging folder and says so in a ``recovered:`` line."""
    recipe = tmp_path / "release.yaml"
    recipe.write_text(json.dumps({"version": 1, "name": "killed", "license": "CC-BY-SA-4.0", "pivot": "hin_Deva",
                                  "variants": [{"dataset": str(DATA / "sib200" / "annotated"),
                                                "only": ["hin_Deva"]}]}))
    out = tmp_path / "release"
    assert _invoke("release", recipe, "--out", out).exit_code == 0
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2]), "BUILDER_FAULT_POINT": "staging-written"}
    cmd = [sys.executable, "-m", "builder.cli.main", "-q", "release", str(recipe), "--out", str(out)]
    killed = subprocess.run([*cmd, "--from", "export"], env=env, capture_output=True, text=True, timeout=600)
    assert killed.returncode == -9, killed.stderr
    left = list(out.glob(".export.*.staging"))
    assert left, "the kill left no staging folder: the fault point moved"
    result = CliRunner().invoke(cli, ["release", str(recipe), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert f"recovered: removed what killed runs left in {out}: {left[0].name}" in result.stderr
    assert "export: up to date, skipped" in result.stderr
    assert not list(out.glob(".export.*")) and not list(tmp_path.glob(".*.lock"))


def test_two_exports_at_once_leave_one_consistent_export(tmp_path):
    """Two real ``builder export`` processes of different datasets into one folder: each file the final
    manifest lists is there with its recorded digest, and nothing else is (one run's whole export)."""
    import hashlib

    out = tmp_path / "export"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])}
    inputs = [DATA / "export" / "sib_small", DATA / "sib200" / "annotated"]
    procs = [subprocess.Popen([sys.executable, "-m", "builder.cli.main", "-q", "export", str(src), "--out", str(out),
                               "--license", "CC-BY-SA-4.0"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env) for src in inputs]
    done = [p.communicate(timeout=600) for p in procs]
    codes = sorted(p.returncode for p in procs)
    assert codes in ([0, 0], [0, 2]), (codes, done)
    for proc, (_out, err) in zip(procs, done):
        if proc.returncode == 2:
            assert "another run is writing it (pid " in err and "builder export" in err, err
    manifest = json.loads((out / "manifest.json").read_text())
    listed = {rel: entry["sha256"] for rel, entry in manifest["files"].items() if entry.get("sha256")}
    assert listed
    for rel, digest in listed.items():
        assert hashlib.sha256((out / rel).read_bytes()).hexdigest() == digest, rel
    variants = {p.name for p in out.iterdir() if p.is_dir() and p.name != "lm_eval"}
    assert variants == {rel.split("/")[0] for rel in listed if "/" in rel}
    assert not list(tmp_path.glob(".*.lock")) and not list(tmp_path.glob(".*.staging"))


FORKING_HOLDER = """
import os, sys, time
from pathlib import Path
from schemas.runtime.outputs import lock_beside, output_lock
target = Path(sys.argv[1])
with output_lock(lock_beside(target), target, "export"):
    started, ready = os.pipe()
    if os.fork() == 0:  # a worker that will outlive its run
        os.write(ready, b"1")  # the fork's after-child hooks have run: the kill below may come now
        time.sleep(60)
        os._exit(0)
    os.read(started, 1)  # without this wait a loaded machine let the kill come before the child ran at all
    print("held", flush=True)
    sys.stdin.readline()
"""


def test_a_worker_that_outlives_its_killed_run_does_not_keep_the_lock(tmp_path):
    """An flock lives as long as any copy of its descriptor: a worker forked while its run held the lock
    (a pool of the export) closes its copy, so when the run is killed the output is free again, though
    the worker still runs."""
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-c", FORKING_HOLDER, str(out)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, cwd=Path(__file__).parents[2])
    assert proc.stdout.readline().strip() == "held"
    proc.kill()
    proc.wait(timeout=30)
    assert lock_beside(out).exists()  # the killed run could not remove it
    try:
        with output_lock(lock_beside(out), out, "export"):
            pass
    finally:
        subprocess.run(["pkill", "-9", "-f", f"{out}"], check=False)  # the orphaned worker
