"""Kill ``assemble``, ``export`` and ``qc`` with SIGKILL and SIGTERM at several points and check what is left.

Each case runs the real command (``python -m builder``) in a session of its
own (``start_new_session=True``) over an earlier output of the same command,
with the testing hook of :mod:`schemas.runtime.outputs`: ``BUILDER_FAULT_POINT=NAME``
makes the process signal itself when it reaches that point
(``BUILDER_FAULT_SIGNAL``), or, for ``read-VARIANT``, makes the qc worker that
reads the variant signal the CLI process while the worker pool runs. The test
then checks, in this order:

1. the killed run exits 137 (SIGKILL) or 143 (SIGTERM, handled like Ctrl-C);
2. no process of its session is left running (qc's workers included);
3. the output is the earlier one, byte for byte and loadable, or the complete
   new one; a SIGKILL between the two renames of a swap leaves the earlier
   output whole under ``.NAME.PID.old`` (restored by the next run), one
   between the two renames of a report group leaves a committed group (finished
   by the next run);
4. the next, uninterrupted run says what it recovered, leaves no temporary
   file or folder, and writes the same bytes as a run that was never
   interrupted.

The killed run is a process of its own; the earlier outputs, the references
and the run after the kill run in this process (click's runner), as the
other CLI tests run commands.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from builder.cli.main import cli
from schemas.dataset import load_dataset_dir

ROOT = Path(__file__).resolve().parents[2]
RECIPE = ROOT / "examples" / "belebele-train.yaml"
SIB = ROOT / "tests" / "data" / "sib200" / "annotated"
TEMPORARY = (".tmp", ".staging", ".old", ".commit")

pytestmark = pytest.mark.slow


def builder(*args, check=None) -> subprocess.CompletedProcess:
    """``builder ARGS`` in this process (click's runner): the earlier outputs, the references and the run
    after the kill are not about the process (only the killed run is, :func:`run_killed`), and a
    subprocess spent most of its time importing what this one has imported already."""
    result = CliRunner().invoke(cli, [str(a) for a in args])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    proc = subprocess.CompletedProcess(["builder", *map(str, args)], result.exit_code, result.stdout,
                                       result.stderr)
    if check is not None:
        assert proc.returncode == check, proc.stderr
    return proc


def tree(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` but those in temporary folders (see :func:`debris`)."""
    files = (p for p in sorted(root.rglob("*")) if p.is_file() and not debris_name(p.relative_to(root).parts[0]))
    return {str(p.relative_to(root)): p.read_bytes() for p in files}


def debris_name(name: str) -> bool:
    return name.startswith(".") and name.endswith(TEMPORARY)


def debris(folder: Path) -> list[str]:
    """The temporary names in ``folder`` (none if it is missing)."""
    names = [p.name for p in folder.iterdir()] if folder.is_dir() else []
    return sorted(n for n in names if debris_name(n))


def session_alive(sid: int) -> list[str]:
    """Processes of session ``sid`` that still run (zombies have ended), as ``pid command``."""
    alive = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        name, _, rest = text.rpartition(")")
        fields = rest.split()
        if int(fields[3]) == sid and fields[0] != "Z":  # state, ppid, pgrp, session
            alive.append(f"{stat.parent.name} {name.partition('(')[2]}")
    return alive


def run_killed(args, point: str, sig: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "BUILDER_FAULT_POINT": point, "BUILDER_FAULT_SIGNAL": sig}
    proc = subprocess.Popen([sys.executable, "-m", "builder", "-q", *map(str, args)], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    out, err = proc.communicate(timeout=300)
    # Workers of a SIGKILLed CLI end by themselves: they find their parent's pipes closed when their
    # current task is done. Wait for that (a bound for a hung test, not a timing requirement).
    deadline = time.monotonic() + 120
    while session_alive(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not session_alive(proc.pid), f"processes left running: {session_alive(proc.pid)}"
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


# -- the earlier outputs and the uninterrupted references, built once ----------------------------------------

@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("faults")
    for seed in (1, 2):
        builder("-q", "assemble", RECIPE, "--out", root / f"assembled{seed}", "--seed", seed, check=0)
        builder("-q", "export", root / f"assembled{seed}", "--out", root / f"exported{seed}", check=0)
    codes = {}
    for name, args in {"qc1": ["qc", root / "assembled1"], "qc2": ["qc", root / "assembled2"],
                       "qc-sib": ["qc", SIB, "--variant", "eng_Latn,fra_Latn", "-j", 2]}.items():
        codes[name] = builder("-q", *args, "--out", root / name).returncode
        assert codes[name] in (0, 1), name  # the gate ran (the samples fail some gates)
    assert tree(root / "qc1") != tree(root / "qc2") and tree(root / "assembled1") != tree(root / "assembled2")
    return root, codes


COMMANDS = {  # name -> (earlier output, args of the new run with OUT, reference of the new run)
    "assemble": ("assembled1", ["assemble", RECIPE, "--seed", 2, "--out", "{out}"], "assembled2"),
    "export": ("exported1", ["export", "{built}/assembled2", "--out", "{out}"], "exported2"),
    "qc": ("qc1", ["qc", "{built}/assembled2", "--out", "{out}"], "qc2"),
    # two variants on two workers: the CLI is killed while a worker reads fra_Latn
    "qc-workers": ("qc1", ["qc", SIB, "--variant", "eng_Latn,fra_Latn", "-j", 2, "--out", "{out}"], "qc-sib"),
}

# (command, point, signal) -> what the output is right after the kill:
# "old" the earlier output, "new" the complete new one, "hidden" the earlier one under .NAME.PID.old,
# "half" the new qc_report.json beside the old qc_report.md, the new .md in .qc_report.PID.commit
CASES = {
    ("assemble", "staging-written", "KILL"): "old",
    ("assemble", "staging-written", "TERM"): "old",
    ("assemble", "file-written", "KILL"): "old",
    ("assemble", "old-moved-away", "KILL"): "hidden",
    ("assemble", "old-moved-away", "TERM"): "new",  # SIGTERM is held off until the swap is done
    ("assemble", "new-moved-in", "KILL"): "new",
    ("export", "staging-written", "TERM"): "old",
    ("export", "old-moved-away", "KILL"): "hidden",
    ("export", "new-moved-in", "TERM"): "new",
    ("qc", "group-staged", "KILL"): "old",
    ("qc", "group-half-moved", "KILL"): "half",
    ("qc", "group-half-moved", "TERM"): "new",
    ("qc-workers", "read-fra_Latn", "KILL"): "old",
    ("qc-workers", "read-fra_Latn", "TERM"): "old",
}


def check_loadable(command: str, folder: Path) -> None:
    if command.startswith("qc"):  # the pair describes the same run
        report = json.loads((folder / "qc_report.json").read_text(encoding="utf-8"))
        markdown = (folder / "qc_report.md").read_text(encoding="utf-8")
        assert report["variants"] and all(v in markdown for v in report["variants"])
    else:
        ds = load_dataset_dir(folder)  # verifies every split file against manifest.json
        assert ds.variants and all(len(ds.tables[v][s]) for v in ds.variants for s in ds.splits(v))


@pytest.mark.parametrize("command, point, sig", sorted(CASES), ids=["-".join(c) for c in sorted(CASES)])
def test_a_killed_run_leaves_the_earlier_or_the_new_output_and_the_next_run_cleans_up(built, tmp_path, command,
                                                                                      point, sig):
    root, codes = built
    earlier, args, reference = COMMANDS[command]
    out = tmp_path / "out"
    shutil.copytree(root / earlier, out)
    args = [str(a).format(out=out, built=root) for a in args]

    killed = run_killed(args, point, sig)
    assert killed.returncode == (-signal.SIGKILL if sig == "KILL" else 143), killed.stderr
    if sig == "TERM":
        assert killed.stderr.splitlines() == ["error: interrupted by SIGTERM; workers stopped, temporary files "
                                              "removed, no output left half-written"]
        assert debris(tmp_path) == [] and debris(out) == []  # cleaned up on the way out

    state = CASES[(command, point, sig)]
    if state in ("old", "new"):
        assert tree(out) == tree(root / (earlier if state == "old" else reference))
        check_loadable(command, out)
    elif state == "hidden":
        assert not out.exists()
        (backup,) = [p for p in tmp_path.iterdir() if p.name.endswith(".old")]
        assert re.fullmatch(r"\.out\.\d+\.old", backup.name), backup.name
        assert tree(backup) == tree(root / earlier)  # the earlier output, whole, under its temporary name
        check_loadable(command, backup)
    else:  # "half": the group was committed; its .md is still in the commit folder
        (commit,) = [p for p in out.iterdir() if p.name.endswith(".commit")]
        assert [p.name for p in commit.iterdir()] == ["qc_report.md"]
        assert (out / "qc_report.json").read_bytes() == (root / reference / "qc_report.json").read_bytes()

    left = debris(tmp_path) + debris(out)
    after = builder(*args, check=codes.get(reference, 0))
    recovered = [line for line in after.stderr.splitlines() if line.startswith("recovered: ")]
    assert len(recovered) == (1 if left else 0), after.stderr
    if state == "hidden":
        assert "restored the previous" in recovered[0]
    if state == "half":
        assert "finished replacing qc_report.md" in recovered[0]
    assert debris(tmp_path) == [] and debris(out) == []
    assert tree(out) == tree(root / reference)  # the same bytes as a run that was never interrupted
    check_loadable(command, out)


def test_the_fault_points_are_the_documented_ones():
    from schemas.runtime.outputs import FAULT_POINTS

    used = {point for (_command, point, _sig) in CASES if not point.startswith("read-")}
    assert used == set(FAULT_POINTS)  # every point of the hook is exercised by a case above
