"""Ctrl-C and SIGTERM stop a release at any point with one line and exit 130 / 143, and the next run
resumes from what the stopped one left (issue 24).

Real signals are sent to a real ``builder release`` process (three shipped variants, the gate with two
workers, the license audit, the export) once its progress line shows that a stage has begun, after a
short delay: in the dataset stage, in the qc workers (where a ``KeyboardInterrupt`` once fell into a weakref
callback and was swallowed) and in the export's writer pool (where a SIGTERM once left the run hung on a
lock). ``builder.cli.main`` re-delivers an interruption Python swallowed and ends the process with the
line and code after a grace period if the clean-up cannot end it; this test holds both to the promise.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from builder.cli.main import cli

ROOT = Path(__file__).parents[2]
DATA = ROOT / "tests" / "data"
#: What the ``builder`` console script runs (``python -m builder.cli.main`` would load the module twice).
CONSOLE_SCRIPT = "from builder.cli.main import console; console()"


@pytest.fixture(scope="module")
def recipe(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("signals")
    path = folder / "release.yaml"
    path.write_text(json.dumps({"version": 1, "name": "signals", "license": "CC-BY-SA-4.0", "pivot": "hin_Deva",
                                "variants": [{"dataset": str(DATA / "sib200" / "annotated"),
                                              "only": ["hin_Deva", "npi_Deva", "mar_Deva"]}]}))
    return path


def _release(recipe: Path, out: Path) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-c", CONSOLE_SCRIPT, "release", str(recipe), "--out", str(out),
                             "-j", "2", "--allow-failing-gate"],
                            stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)


@pytest.mark.slow
@pytest.mark.parametrize("signum, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)], ids=["INT", "TERM"])
@pytest.mark.parametrize("stage, delay", [("dataset", 0.05), ("qc", 0.3), ("export", 0.2)])
def test_a_signal_at_any_stage_stops_the_release_and_the_next_run_resumes(recipe, tmp_path, signum, code, stage,
                                                                          delay):
    out = tmp_path / "release"
    proc = _release(recipe, out)
    seen = []
    for line in proc.stderr:
        seen.append(line)
        if line.startswith("release: [") and f"] {stage}" in line and line.rstrip().endswith("..."):
            time.sleep(delay)
            proc.send_signal(signum)
            break
    else:  # pragma: no cover - the stage never began
        pytest.fail("".join(seen))
    try:
        rest = proc.stderr.read()
        proc.wait(timeout=120)
    except subprocess.TimeoutExpired:  # pragma: no cover - the bug this test is for
        proc.kill()
        pytest.fail(f"the release did not stop within 120 s of {signal.Signals(signum).name} in {stage}")
    lines = [line for line in rest.splitlines() if line.strip()]
    if proc.returncode == 0:  # the stage ended between the line and the signal: the run may have finished
        assert stage == "export" and lines[-1].startswith("release signals"), rest
    else:
        assert proc.returncode == code, (proc.returncode, rest[-3000:])
        assert lines[-1].startswith(f"error: interrupted by {'Ctrl-C' if code == 130 else 'SIGTERM'}"), rest[-3000:]
        assert "Traceback" not in rest, rest[-3000:]
    assert not list(out.rglob(".*.staging")) and not list(out.rglob(".*.tmp")) and not list(tmp_path.glob(".*.lock"))
    # the next run is not about signals: in this process (a subprocess spent most of it importing)
    again = CliRunner().invoke(cli, ["release", str(recipe), "--out", str(out), "-j", "2", "--allow-failing-gate"])
    assert again.exit_code == 0, (again.output[-3000:], again.exception)
    ran = json.loads((out / "run.json").read_text())["stages"]
    gate = json.loads((out / "release.json").read_text())["gate"]  # "failing, allowed" only where it failed
    assert gate["allowed_failing"] == (gate["verdict"] == "fail"), gate
    done_before = {s for s in ("dataset", "qc", "licenses") if s != stage and f"] {s}: done" in "".join(seen)}
    assert {r["name"] for r in ran if r["status"] == "skipped"} >= done_before


#: The console script with the release's dataset stage swallowing the KeyboardInterrupt of a SIGTERM it
#: sends itself, as a library's ``except BaseException`` would.
SWALLOWING = """
import os, signal, sys, time
from builder.release import pipeline
real = pipeline._timed
def timed(stage):
    out = real(stage)
    if stage.name == "dataset":
        try:
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(2)
        except KeyboardInterrupt:
            pass
    return out
pipeline._timed = timed
from builder.cli.main import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.slow
def test_a_swallowed_interruption_still_stops_the_release_before_its_next_stage(recipe, tmp_path):
    """The interruption noted by the CLI (schemas.runtime.stop) stops the release at the next stage even
    when its KeyboardInterrupt never reached the CLI: exit 143 and its one line, no stage after dataset."""
    out = tmp_path / "release"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-c", SWALLOWING, "release", str(recipe), "--out", str(out), "-j", "1",
                           "--allow-failing-gate"], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 143, proc.stderr[-3000:]
    assert proc.stderr.rstrip().splitlines()[-1].startswith("error: interrupted by SIGTERM"), proc.stderr[-3000:]
    assert "qc (the release gate) ..." not in proc.stderr and not (out / "export").exists()


def test_the_hook_re_delivers_a_swallowed_interruption_after_it_returns_not_inside_itself():
    """A ``KeyboardInterrupt`` swallowed in a finalizer reaches ``sys.unraisablehook``; the CLI's hook sends
    the signal again. Sent from the hook's own thread, the handler ran inside the hook, and Python printed
    "Exception ignored in sys.unraisablehook" with a traceback on a release stopped in its qc stage (CI,
    once in about 50 runs of the test above). The hook returns; the interruption comes after it."""
    from builder.cli import main as cli_main
    from schemas.runtime import stop as run_stop

    passed_on = []
    hook = cli_main._unraisable(passed_on.append)
    before = signal.signal(signal.SIGINT, cli_main._on_stop_signal)
    cli_main._STOPPING.clear()
    cli_main._STOPPING["pid"] = os.getpid()
    run_stop.reset()
    run_stop.note(signal.SIGINT)
    try:
        info = type("Info", (), {"exc_type": KeyboardInterrupt})()
        hook(info)  # raised KeyboardInterrupt from inside the hook before the fix
        assert not cli_main._IN_HOOK and not passed_on
        with pytest.raises(KeyboardInterrupt):
            time.sleep(10)  # the re-delivered signal interrupts the first thing after the hook
        cli_main._IN_HOOK = True  # the signal comes while a hook runs: sent once more, not raised there
        cli_main._STOPPING["again"] = 1
        cli_main._on_stop_signal(signal.SIGINT, None)
        cli_main._IN_HOOK = False
        with pytest.raises(KeyboardInterrupt):
            time.sleep(10)
        other = type("Info", (), {"exc_type": ValueError})()
        hook(other)  # anything else goes to Python's hook
        assert passed_on == [other]
    finally:
        cli_main._IN_HOOK = False
        signal.signal(signal.SIGINT, before)
        cli_main._STOPPING.clear()
        run_stop.reset()
