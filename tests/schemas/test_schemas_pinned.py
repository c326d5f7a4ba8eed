"""Behaviours of ``schemas`` that no other test pinned down (issue 27), in-process and fast.

- the code validator refuses every ISO 15924 special code (``Zinh``, ``Zmth``, ``Zsye``, ``Zsym``,
  ``Zxxx``, ``Zyyy``, ``Zzzz``) and every private-use code ``Qaaa``-``Qabx``, enumerated here rather than
  read from :data:`schemas.codes.SPECIAL_SCRIPTS` (a code dropped from that set fails), and the ISO 639-3
  special languages;
- recovery after a kill (:func:`schemas.runtime.recovery.recover`): a pid this process may not signal
  (``os.kill`` raising :class:`PermissionError`: a live process of another user) counts as alive, so the
  temporary names of its run are left alone; pid 1 too; a pid that no process has is cleaned up;
- the fan-out (:func:`schemas.runtime.fanout.fan_out`) gives results in task order for any completion
  order: a property test over every order the pool may finish in, with the pool replaced by one that
  finishes in the order Hypothesis draws (no processes, so every order is reached).

Each was checked against a one-line bug in the production code: docs/testing.md, "Behaviours pinned
for issue 27".
"""
from __future__ import annotations

import fcntl
import multiprocessing
import os
import shutil
import signal
import string
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schemas.codes import is_known_script, is_known_variant_code, validate_variant_code
from schemas.errors import SchemaError
from schemas.runtime import fanout, recovery

# -- 6. ISO 15924 special codes -------------------------------------------------------------------------------

#: ISO 15924's codes for no script, an inherited, undetermined or uncoded script, and notations that are no
#: writing system (https://www.unicode.org/iso15924/iso15924-codes.html, "Special codes").
SPECIAL = ("Zinh", "Zmth", "Zsye", "Zsym", "Zxxx", "Zyyy", "Zzzz")
#: The private-use range Qaaa..Qabx: 26 + 24 codes.
PRIVATE = tuple(f"Qa{a}{b}" for a in "ab" for b in string.ascii_lowercase if (a, b) <= ("b", "x"))


def test_the_private_use_range_is_fifty_codes():
    assert len(PRIVATE) == 50 and PRIVATE[0] == "Qaaa" and PRIVATE[-1] == "Qabx"


@pytest.mark.parametrize("script", SPECIAL + PRIVATE)
def test_every_special_script_code_is_refused(script):
    code = f"eng_{script}"
    assert not is_known_script(script) and not is_known_variant_code(code)
    with pytest.raises(SchemaError) as err:
        validate_variant_code(code, field="variant")
    assert f"script code {script!r} in {code!r} is an ISO 15924 special code" in str(err.value)


@pytest.mark.parametrize("script", ["Qaby", "Qabz", "Qaca", "QAaa", "Qaa", "Qaaaa"])
def test_a_code_beside_the_private_use_range_is_an_unknown_script(script):
    with pytest.raises(SchemaError) as err:
        validate_variant_code(f"eng_{script}")
    assert "special code" not in str(err.value)


@pytest.mark.parametrize("lang", ["mis", "mul", "und", "zxx"])
def test_every_special_language_code_is_refused(lang):
    with pytest.raises(SchemaError) as err:
        validate_variant_code(f"{lang}_Latn")
    assert f"language code {lang!r} in '{lang}_Latn' is an ISO 639-3 special code" in str(err.value)


def test_a_real_script_whose_code_starts_with_z_is_accepted():
    assert is_known_script("Zanb") and is_known_variant_code("mon_Zanb")  # Zanabazar Square


# -- 7. recovery after a kill: a pid we may not signal is alive -------------------------------------------------

NO_SUCH_PID = 4194305  # above the largest pid_max Linux allows (2**22): no process has it


def _debris(folder: Path, pid: int) -> list[str]:
    (folder / "out").mkdir()
    (folder / f".out.{pid}.deadbeef.staging").mkdir()
    (folder / f".out.{pid}.0123abcd.tmp").write_text("half", encoding="utf-8")
    (folder / f".out.{pid}.old").mkdir()
    return sorted(p.name for p in folder.iterdir())


def test_a_pid_this_process_may_not_signal_counts_as_alive(tmp_path, monkeypatch):
    def kill(pid, sig):
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "kill", kill)
    before = _debris(tmp_path, NO_SUCH_PID)
    assert recovery._alive(NO_SUCH_PID)
    assert recovery.recover(tmp_path, "out") == []
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_pid_1_counts_as_alive(tmp_path):
    before = _debris(tmp_path, 1)
    assert recovery._alive(1)
    assert recovery.recover(tmp_path, "out") == []
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_the_temporary_names_of_a_pid_that_is_gone_are_cleaned_up(tmp_path):
    _debris(tmp_path, NO_SUCH_PID)
    assert not recovery._alive(NO_SUCH_PID)
    done = recovery.recover(tmp_path, "out")
    assert len(done) == 1 and "removed what killed runs left" in done[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def _default_signals() -> None:
    """In the child before it runs: every signal it may catch back to its default action. A signal ignored
    here is ignored by the child too (``nohup``, under which the mutation run goes, ignores SIGHUP), and a
    liveness check that sent one instead of 0 would go unseen."""
    for signum in signal.valid_signals():
        if signum not in (signal.SIGKILL, signal.SIGSTOP):
            try:
                signal.signal(signum, signal.SIG_DFL)
            except (OSError, ValueError):
                pass


def _child(args: list[str]):
    return subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            preexec_fn=_default_signals)


def _state(pid: int) -> str:
    return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]


def test_a_running_child_counts_as_alive_and_asking_does_not_signal_it(tmp_path):
    link = tmp_path / "x) Z (y"  # a process name with ') Z (' in it: the state is after the last ')'
    link.symlink_to(shutil.which("sleep"))
    proc = _child([str(link), "30"])
    try:
        deadline = time.monotonic() + 10
        while Path(f"/proc/{proc.pid}/comm").read_text().strip() != "x) Z (y" and time.monotonic() < deadline:
            time.sleep(0.01)  # until the exec has happened
        before = _debris(tmp_path, proc.pid)
        assert recovery._alive(proc.pid)
        assert recovery.recover(tmp_path, "out") == []
        assert sorted(p.name for p in tmp_path.iterdir()) == before
        with pytest.raises(subprocess.TimeoutExpired):  # still running: asking sent it no signal
            proc.wait(timeout=0.3)
    finally:
        proc.kill()
        proc.wait()


def test_a_zombie_counts_as_gone(tmp_path):
    proc = _child(["true"])
    try:
        deadline = time.monotonic() + 10
        while _state(proc.pid) != "Z" and time.monotonic() < deadline:  # exited, not reaped yet
            time.sleep(0.01)
        assert _state(proc.pid) == "Z"
        assert not recovery._alive(proc.pid)
    finally:
        proc.wait()


def test_a_live_pid_whose_proc_entry_cannot_be_read_counts_as_alive(monkeypatch):
    proc = _child(["sleep", "30"])
    try:
        real = Path.read_text

        def no_proc(self, *a, **k):  # a system without /proc, or one that hides other users' processes
            if str(self).startswith("/proc/"):
                raise PermissionError(13, "Permission denied", str(self))
            return real(self, *a, **k)

        monkeypatch.setattr(Path, "read_text", no_proc)
        assert recovery._alive(proc.pid)
    finally:
        proc.kill()
        proc.wait()


def test_a_lock_no_process_holds_is_removed_and_a_held_one_is_kept(tmp_path):
    lock = tmp_path / ".out.lock"
    lock.write_text("", encoding="utf-8")
    assert recovery._remove_stale_lock(lock) and not lock.exists()  # a killed run's: nobody holds it
    lock.write_text("", encoding="utf-8")
    (tmp_path / ".out.99999999.0123abcd.tmp").write_text("half", encoding="utf-8")  # NO_SUCH_PID-like
    assert recovery.recover(tmp_path, "out") == [
        f"removed what killed runs left in {tmp_path}: .out.99999999.0123abcd.tmp, .out.lock"]
    lock.write_text("", encoding="utf-8")
    holder = _child([sys.executable, "-c", "import fcntl, os, sys, time; fd = os.open(sys.argv[1], os.O_RDWR); "
                     "fcntl.flock(fd, fcntl.LOCK_EX); time.sleep(30)", str(lock)])
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:  # until the child holds it
            fd = os.open(lock, os.O_RDWR)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                fcntl.flock(fd, fcntl.LOCK_UN)
                time.sleep(0.02)
            except OSError:
                break
            finally:
                os.close(fd)
        assert not recovery._remove_stale_lock(lock) and lock.exists()  # a live run's lock stays
        assert recovery.recover(tmp_path, "out") == [] and lock.exists()
    finally:
        holder.kill()
        holder.wait()
    assert not recovery._remove_stale_lock(tmp_path / ".missing.lock")


def test_an_earlier_versions_old_folder_is_put_back_when_the_output_is_missing(tmp_path):
    (tmp_path / ".out.old").mkdir()  # the name an earlier version gave the folder it was replacing
    (tmp_path / ".out.old" / "a.txt").write_text("kept", encoding="utf-8")
    done = recovery.recover(tmp_path, "out")
    assert len(done) == 1 and "restored the previous" in done[0] and "an earlier run" in done[0]
    assert (tmp_path / "out" / "a.txt").read_text(encoding="utf-8") == "kept"
    (tmp_path / ".out.old").mkdir()  # the output is there: the old copy is removed instead
    assert "removed what killed runs left" in recovery.recover(tmp_path, "out")[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_removing_what_is_already_gone_is_not_an_error(tmp_path):
    recovery._remove(tmp_path / "gone.tmp")
    recovery._remove(tmp_path / "gone.staging")
    (tmp_path / "half.staging").mkdir()
    (tmp_path / "half.staging" / "a.txt").write_text("x", encoding="utf-8")
    recovery._remove(tmp_path / "half.staging")
    assert list(tmp_path.iterdir()) == []


# -- 9. fan-out: task order for any completion order ---------------------------------------------------------------

class _Pool:
    """A pool that runs every task here and hands the results back in ``order`` (a permutation)."""

    def __init__(self, order, processes, initializer=None, initargs=()):
        self.order = order
        if initargs:  # spawned workers get the call from the initializer (its BLAS limit left out here)
            fanout._FORKED[:] = [initargs[0], None]

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def imap_unordered(self, work, args, chunksize=1):
        done = [work(a) for a in args]
        return iter([done[k] for k in self.order])

    def close(self):
        pass

    def join(self):
        pass


class _Context:
    def __init__(self, order):
        self.order = order

    def Pool(self, *args, **kwargs):  # noqa: N802 (multiprocessing's name)
        return _Pool(self.order, *args, **kwargs)


def _tagged(shared, task):
    return (shared, task, task * task)


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 9).flatmap(lambda n: st.tuples(st.just(n), st.permutations(range(n)))),
       st.booleans())
def test_fan_out_results_are_in_task_order_for_any_completion_order(n_order, fork):
    n, order = n_order
    tasks = [7 * i - 20 for i in range(n)]
    seen = []
    real = multiprocessing.get_context
    methods = ["fork", "spawn"] if fork else ["spawn"]
    patch = pytest.MonkeyPatch()
    try:
        patch.setattr(fanout.multiprocessing, "get_context", lambda method=None: _Context(order))
        patch.setattr(fanout.multiprocessing, "get_all_start_methods", lambda: methods)
        got = fanout.fan_out(_tagged, tasks, shared="s", jobs=3, labels=[f"t{i}" for i in range(n)],
                             progress=lambda label, done, total: seen.append((label, done, total)))
    finally:
        patch.undo()
    assert multiprocessing.get_context is real
    assert got == [_tagged("s", t) for t in tasks]
    assert seen == [(f"t{k}", d, n) for d, k in enumerate(order, 1)]  # progress in the order they finished


@pytest.mark.parametrize("content, holder", [
    ('{"pid": 4242, "command": "release", "since": "2026-12-03T20:00:00Z"}',
     "pid 4242, builder release, since 2026-12-03T20:00:00Z"),
    ('{"pid": "17", "command": ""}', "pid 17, builder ?, since ?"),  # what the file lacks is a "?"
    ('{"pid": 17, "command": null, "since": null}', "pid 17, builder ?, since ?"),
    ('{"command": "qc"}', "a run that is starting"),      # no pid yet
    ('{"pid": 1', "a run that is starting"),              # half written
    ('["pid", 1]', "a run that is starting"),
    (None, "a run that is starting"),                     # gone
])
def test_the_busy_message_names_the_run_that_holds_the_lock(tmp_path, content, holder):
    """What ``OutputBusy`` says of the other run, from the lock file it wrote (issue 27: the whole run left
    the fields and their fallbacks free to change)."""
    from schemas.runtime.outputs import _lock_holder

    lock = tmp_path / ".out.lock"
    if content is not None:
        lock.write_text(content, encoding="utf-8")
    assert _lock_holder(lock) == holder


def test_debris_that_another_recovery_removes_first_is_no_error(tmp_path, monkeypatch):
    # recovery runs without a lock before each atomic write, so two runs may clean the same dead run's
    # staging folder at once: an entry the other one removed first is no error, and the rest goes
    staging = tmp_path / f".out.{NO_SUCH_PID}.0123abcd.staging"
    (staging / "sub").mkdir(parents=True)
    for name in ("a", "b", "sub/c"):
        (staging / name).write_text("x")
    real_unlink = os.unlink

    def unlink(path, *args, **kwargs):
        real_unlink(path, *args, **kwargs)
        if os.fspath(path) == "b":  # removed, as if by the other run, between its listing and this call
            raise FileNotFoundError(2, "No such file or directory", "b")

    monkeypatch.setattr(os, "unlink", unlink)
    done = recovery.recover(tmp_path, "out")
    assert len(done) == 1 and staging.name in done[0]
    assert not staging.exists()
