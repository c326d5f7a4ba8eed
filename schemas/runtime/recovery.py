"""Recovery after a run that was killed while writing (see :mod:`schemas.runtime.outputs` for the names).

A killed run leaves temporary names beside its target: ``.NAME.PID.XXXXXXXX.staging``
and ``.NAME.PID.XXXXXXXX.tmp`` (incomplete), ``.NAME.PID.old`` (the earlier
output, moved away for a swap) and ``.GROUP.PID.commit`` (a complete group of
files, half moved in). :func:`recover` cleans up the names of one target
whose process is gone, and logs one info line (logger ``schemas.recovery``).
"""
from __future__ import annotations

import contextlib
import logging
import os
import re
import shutil
from pathlib import Path

log = logging.getLogger(__name__)


def _alive(pid: int) -> bool:
    """Whether process ``pid`` still runs (a zombie does not)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rpartition(")")[2].split()[:1] != ["Z"]


def _debris_of(folder: Path, name: str) -> list[tuple[Path, str, int | None]]:
    """``(path, kind, pid)`` of the temporary names of ``name`` in ``folder`` whose process is gone."""
    pattern = re.compile(re.escape(f".{name}.") + r"(?:(\d+)\.[0-9a-f]{8}\.(staging|tmp)|(\d+)\.(old|commit)|(old))")
    found = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return []
    for entry in entries:
        m = pattern.fullmatch(entry.name)
        if not m:
            continue
        if m.group(5):  # ".NAME.old" of a version that wrote no pid
            found.append((Path(entry.path), "old", None))
            continue
        pid = int(m.group(1) or m.group(3))
        if not _alive(pid):
            found.append((Path(entry.path), m.group(2) or m.group(4), pid))
    return sorted(found, key=lambda d: d[0].name)


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


def _remove_stale_lock(lock: Path) -> bool:
    """Remove the lock file of a killed run (:func:`schemas.runtime.outputs.output_lock`): one that no
    process holds. It is removed while this process holds it, as its holder would have."""
    import fcntl

    try:
        fd = os.open(lock, os.O_RDWR)
    except OSError:
        return False
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return False  # held: a live run's
        try:
            if os.stat(lock).st_ino != os.fstat(fd).st_ino:
                return False
            os.unlink(lock)
        except OSError:
            return False
        return True
    finally:
        os.close(fd)


def recover(folder: str | os.PathLike, name: str) -> list[str]:
    """Clean up after runs that were killed while writing ``folder/name``; return what was done.

    A committed group (``.NAME.PID.commit``) is finished; ``.NAME.PID.old`` is
    put back when ``folder/name`` is missing and removed otherwise; staging
    folders and temporary files are removed. Only names whose process is gone
    are touched. Logs one info line when anything was done.
    """
    folder = Path(folder)
    target = folder / name
    done: list[str] = []
    removed: list[str] = []
    for path, kind, pid in _debris_of(folder, name):
        by = "an earlier run" if pid is None else f"run {pid}"
        if kind == "commit":
            moved = sorted(p.name for p in path.iterdir())
            for member in moved:
                os.replace(path / member, folder / member)
            os.rmdir(path)
            done.append(f"finished replacing {', '.join(moved)} in {folder}, which {by} was killed doing")
        elif kind == "old" and not os.path.lexists(target):
            os.replace(path, target)
            done.append(f"restored the previous {target} from {path.name} ({by} was killed while replacing it)")
        else:
            _remove(path)
            removed.append(path.name)
    if _remove_stale_lock(folder / f".{name}.lock"):
        removed.append(f".{name}.lock")
    if removed:
        done.append(f"removed what killed runs left in {folder}: {', '.join(removed)}")
    if done:
        log.info("recovered: " + "; ".join(done))
    return done
