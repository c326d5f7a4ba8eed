"""Any sequence of writes, each maybe killed (SIGKILL) anywhere, leaves whole outputs (issue 27).

The three kinds of output of :mod:`schemas.runtime.outputs`: a folder (``staging_dir``: a release's
stage, an export), a group of files replaced together (``replace_files_together``: a report's
``.json`` and ``.md``) and one file (``write_text_atomic``). Hypothesis draws a sequence of writes of
new versions, each run in a forked child that is killed at one of the module's fault points, in the
middle of writing its files, or not at all. After every step a reader sees, for every output:

* nothing, before any write finished; or one version whole (every file of the folder or the group
  holds the same version);
* the version of the last write that finished, or the new one when the kill came after the new one
  was in place (``new-moved-in``);
* the folder missing only after a kill between the two renames of a swap (``old-moved-away``), the
  earlier version then whole in ``.NAME.PID.old``;
* a group killed between moving its files (``group-half-moved``): the first file new, the rest
  committed in ``.GROUP.PID.commit``, which recovery finishes (the one moment a reader sees a mix,
  as :func:`~schemas.runtime.outputs.replace_files_together` says).

A write that finishes leaves no temporary name of its own. :func:`~schemas.runtime.outputs.recover`
(which the next write of the output runs first) leaves only the outputs, with the versions above: no
staging folder, temporary file, commit folder or lock.
``tests/core/test_faults.py`` kills the real commands at these points, one point a case;
``tests/release/test_release_folder.py`` runs given sequences of whole releases.
"""
from __future__ import annotations

import os
import signal
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schemas.io import write_text_atomic
from schemas.runtime.outputs import MARKER, atomic_path, recover, replace_files_together, staging_dir

FOLDER, GROUP, FILE = "out", ("r.json", "r.md"), "x.txt"
#: the points a kill can come at, per kind of output (None: the write finishes; "mid-write": after the
#: first of its files is written)
POINTS = {
    "folder": [None, "mid-write", "staging-written", "old-moved-away", "new-moved-in"],
    "group": [None, "group-staged", "group-half-moved"],
    "file": [None, "mid-write", "file-written"],
}
STEP = st.sampled_from(list(POINTS)).flatmap(lambda kind: st.tuples(st.just(kind), st.sampled_from(POINTS[kind])))


def _write(root: Path, kind: str, version: int, point: str | None) -> tuple[bool, int]:
    """Write ``version`` of one output in a forked child, killed at ``point``; whether it was killed,
    and the child's pid."""
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        try:
            if point and point != "mid-write":
                os.environ.update(BUILDER_FAULT_POINT=point, BUILDER_FAULT_SIGNAL="KILL")
                os.environ.pop("BUILDER_FAULT_PID", None)
            text = f"{version}\n"
            if kind == "folder":
                with staging_dir(root / FOLDER, what="test") as stage:
                    (stage / "a.txt").write_text(text, encoding="utf-8")
                    if point == "mid-write":
                        os.kill(os.getpid(), signal.SIGKILL)
                    (stage / "b.txt").write_text(text, encoding="utf-8")
            elif kind == "group":
                replace_files_together(root, {name: text for name in GROUP})
            elif point == "mid-write":
                with atomic_path(root / FILE) as tmp:
                    tmp.write_text(text[:1], encoding="utf-8")
                    os.kill(os.getpid(), signal.SIGKILL)
            else:
                write_text_atomic(root / FILE, text)
        finally:
            os._exit(0)
    _, status = os.waitpid(pid, 0)
    assert os.WIFSIGNALED(status) or os.WEXITSTATUS(status) == 0, status
    return os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL, pid


def _version(root: Path, kind: str) -> int | None:
    """The one version a reader sees of an output (None: none there); a mix fails the test."""
    if kind == "folder":
        out = root / FOLDER
        if not out.exists():
            return None
        assert sorted(p.name for p in out.iterdir()) == [MARKER, "a.txt", "b.txt"]
        texts = {(out / n).read_text(encoding="utf-8") for n in ("a.txt", "b.txt")}
    elif kind == "group":
        present = [(root / n).exists() for n in GROUP]
        if not any(present):
            return None
        assert all(present), present
        texts = {(root / n).read_text(encoding="utf-8") for n in GROUP}
    else:
        if not (root / FILE).exists():
            return None
        texts = {(root / FILE).read_text(encoding="utf-8")}
    assert len(texts) == 1, texts  # one version, whole
    return int(texts.pop())


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(STEP, min_size=1, max_size=8))
def test_any_sequence_of_killed_writes_leaves_whole_outputs(tmp_path_factory, steps):
    root = tmp_path_factory.mktemp("seq")
    last: dict[str, int | None] = dict.fromkeys(POINTS)  # the version of the last write that finished
    for version, (kind, point) in enumerate(steps, 1):
        before = last[kind]
        # the swap's first rename happens only over an earlier version (the next write restores one
        # that a kill left aside first)
        reached = point is not None and not (point == "old-moved-away" and before is None)
        killed, pid = _write(root, kind, version, point)
        assert killed == reached, (steps, kind, point)
        if not killed:  # a write that finished leaves nothing of its own beside the outputs
            assert not [p.name for p in root.iterdir() if f".{pid}." in p.name], (steps, kind)
        if not reached or point in ("new-moved-in", "group-half-moved"):
            last[kind] = version
        if reached and point == "old-moved-away":  # between the two renames: the earlier version aside
            assert _version(root, kind) is None
            [old] = [p for p in root.iterdir() if p.name.startswith(f".{FOLDER}.") and p.name.endswith(".old")]
            assert (old / "a.txt").read_text(encoding="utf-8") == f"{before}\n"
        elif reached and point == "group-half-moved":  # the first file moved, the rest committed beside
            assert (root / GROUP[0]).read_text(encoding="utf-8") == f"{version}\n"
            assert not (root / GROUP[1]).exists() if before is None else (
                (root / GROUP[1]).read_text(encoding="utf-8") == f"{before}\n")
            [commit] = [p for p in root.iterdir() if p.name.startswith(".r.") and p.name.endswith(".commit")]
            assert [p.name for p in commit.iterdir()] == [GROUP[1]]
        else:
            assert _version(root, kind) == last[kind], (steps, kind, point)
    for target in (FOLDER, "r", FILE):
        recover(root, target)
    left = sorted(p.name for p in root.iterdir())
    expected = sorted([FOLDER] * (last["folder"] is not None) + list(GROUP) * (last["group"] is not None)
                      + [FILE] * (last["file"] is not None))
    assert left == expected, (steps, left)
    for kind in POINTS:
        assert _version(root, kind) == last[kind], (steps, kind)
