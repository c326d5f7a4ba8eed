"""Outputs that survive a kill: files, whole folders and groups of files, and the recovery after one.

Every output takes one of three shapes, each with one commit point (a rename):

* a **file** (:func:`atomic_path`) is written as ``.NAME.PID.XXXXXXXX.tmp``
  beside it and renamed onto ``NAME``;
* a **folder** (:func:`staging_dir`) is written whole as
  ``.NAME.PID.XXXXXXXX.staging`` beside it, then swapped in
  (:func:`replace_dir_atomic`): the old folder is renamed ``.NAME.PID.old``,
  the new one renamed onto ``NAME``, the old one removed;
* a **group** of files that belong together in a folder that is not the
  command's own (``qc_report.json`` and ``qc_report.md`` in a dataset folder,
  :func:`replace_files_together`) is written into ``.GROUP.PID.XXXXXXXX.staging``,
  renamed ``.GROUP.PID.commit`` once complete, and then each file is moved
  onto its name.

``PID`` is the process that writes. SIGINT and SIGTERM are held off during the
renames of a swap or a group, so only SIGKILL (or a power cut) can split
them. A run that was killed leaves these names behind; the next run that
writes the same target first recovers (:func:`recover`): it removes the
staging folders and temporary files whose process is gone, puts
``.NAME.PID.old`` back if ``NAME`` is missing (the kill fell between the two
renames of a swap; otherwise it removes it), and finishes a committed group.
It says so in one info line (logger ``schemas.recovery``, :mod:`schemas.recovery`;
the CLI prints it unless ``-q``). Debris of a process that still runs is never touched.

A folder that cannot be written (read-only, not permitted, a file in the way)
is an :class:`~schemas.errors.OutputError`, ``cannot write PATH: REASON``,
exit code 2; :func:`check_writable` finds it before any work is done.

An output folder is marked with ``.builder.json`` (``{"command": ...}``), so a
later run of the same command may replace it, and any other non-empty folder
is refused (:func:`check_replaceable`).

Testing hook: with ``BUILDER_FAULT_POINT=NAME`` in the environment, the
process signals itself (``BUILDER_FAULT_SIGNAL``: ``KILL`` (default), ``TERM``
or ``INT``) when it reaches the point ``NAME`` (:data:`FAULT_POINTS`); a
worker process signals the CLI process instead (``BUILDER_FAULT_PID``, set by
the CLI). It exists for the fault tests (``tests/core/test_faults.py``) and
does nothing when unset.
"""
from __future__ import annotations

import contextlib
import errno
import json
import os
import secrets
import shutil
import signal
import threading
from pathlib import Path
from typing import Iterator, Mapping

from ..errors import OutputError, UsageError
from .recovery import recover

#: The file that marks a folder as the output of a command (``{"command": ...}``).
MARKER = ".builder.json"

FAULT_ENV, FAULT_SIGNAL_ENV, FAULT_PID_ENV = "BUILDER_FAULT_POINT", "BUILDER_FAULT_SIGNAL", "BUILDER_FAULT_PID"

#: The named points of the testing hook, in the order a write reaches them (``read-VARIANT`` is
#: in :mod:`schemas.dataset`: a worker reading that variant; ``stage-started:NAME`` and
#: ``stage-recorded:NAME`` in :mod:`builder.release.pipeline`: a release stage begins, or is recorded).
FAULT_POINTS = ("file-written", "staging-written", "old-moved-away", "new-moved-in", "group-staged",
                "group-half-moved")

#: errno values of a write that fails for want of room, whichever file it names.
_FULL_ERRNOS = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EROFS}


def fault_point(name: str) -> None:
    """The testing hook (see the module docstring): signal the CLI process at point ``name``."""
    if os.environ.get(FAULT_ENV) != name:
        return
    os.environ.pop(FAULT_ENV)  # once per process
    signum = getattr(signal, "SIG" + os.environ.get(FAULT_SIGNAL_ENV, "KILL").upper())
    os.kill(int(os.environ.get(FAULT_PID_ENV) or os.getpid()), signum)


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """Hold SIGINT and SIGTERM off until the block ends; one that came meanwhile is handled then.

    The handlers are swapped for one that only records the signal (blocking
    the signal with ``pthread_sigmask`` is not enough: another thread of the
    process, such as Arrow's pool, would take it). Only the main thread can
    do this; elsewhere the block runs as it is.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    held = (signal.SIGINT, signal.SIGTERM)
    old = {signum: signal.signal(signum, lambda signum, frame: caught.append(signum)) for signum in held}
    try:
        yield
    finally:
        for signum, handler in old.items():
            signal.signal(signum, signal.SIG_DFL if handler is None else handler)
        if caught:
            handler = old[caught[0]]
            if callable(handler):
                handler(caught[0], None)
            elif handler in (signal.SIG_DFL, None):
                os.kill(os.getpid(), caught[0])


def _temp_name(name: str, kind: str) -> str:
    return f".{name}.{os.getpid()}.{secrets.token_hex(4)}.{kind}"


@contextlib.contextmanager
def _as_output_error(target: Path, *, within: Path | None = None) -> Iterator[None]:
    """Turn an :class:`OSError` into an :class:`OutputError` naming ``target``.

    With ``within`` (the temporary file or folder being written), only errors
    of writing there are turned: a full disk, or a file under ``within``;
    an error of reading an input inside the block stays what it is.
    """
    try:
        yield
    except OSError as err:
        if within is not None and err.errno not in _FULL_ERRNOS and not (
                err.filename is not None and str(err.filename).startswith(str(within))):
            raise
        raise OutputError.from_os_error(err, target) from err


# -- checks --------------------------------------------------------------------------------------------------

def check_writable(target: str | os.PathLike, *, inside: bool = False) -> Path:
    """Raise :class:`OutputError` unless the folder ``target`` can be written; create nothing.

    ``target`` must be a folder or not exist, no part of its path may be a
    file, and the folder that will hold the new names (the nearest existing
    one of ``target``'s parent, or with ``inside`` of ``target`` itself) must
    let this process create entries: it is tried with an empty folder, which
    is removed at once (``os.access`` does not see read-only mounts such as
    ``/sys``, nor some permission schemes).
    """
    target = Path(target)
    if os.path.lexists(target) and not target.is_dir():
        raise OutputError("a file of that name exists; expected a folder", file=target)
    holder = target if inside else target.parent
    while not os.path.lexists(holder) and holder != holder.parent:
        holder = holder.parent
    if not holder.is_dir():
        raise OutputError(f"{holder} is a file, not a folder", file=target)
    first = target.name if holder in (target, target.parent) else target.relative_to(holder).parts[0]
    probe = holder / _temp_name(first or "out", "staging")
    with _as_output_error(target):
        os.mkdir(probe)
        os.rmdir(probe)
    return target


def written_by(folder: str | os.PathLike) -> str | None:
    """The command whose output ``folder`` is (its :data:`MARKER`), or None."""
    try:
        return json.loads((Path(folder) / MARKER).read_text(encoding="utf-8")).get("command")
    except (OSError, ValueError, AttributeError):
        return None


def check_replaceable(target: str | os.PathLike, marker=None, what: str = "") -> None:
    """Refuse to replace a non-empty folder that is not an earlier output of the same command.

    First recovers after killed runs of ``target`` (:func:`recover`) and checks
    that it can be written (:func:`check_writable`). A missing or empty folder
    is fine, and so is one whose :data:`MARKER` names ``what``, or, without a
    :data:`MARKER`, one that holds the file ``marker`` or passes the predicate
    ``marker`` (outputs of earlier versions, and outputs that carry no
    marker). Raises :class:`UsageError` (exit code 2), since replacing the
    folder would delete whatever else it holds.
    """
    target = Path(target)
    if target.parent.is_dir():
        recover(target.parent, target.name)
    check_writable(target)
    if not target.exists() or not any(target.iterdir()):
        return
    by = written_by(target)
    if what and by == what:
        return
    if by is None and marker is not None and (marker(target) if callable(marker) else (target / marker).is_file()):
        return
    held = f" holding the output of 'builder {by}'" if by else f" without {marker}" if isinstance(marker, str) else ""
    raise UsageError(f"a non-empty folder{held}: it is not an earlier {what or 'builder'} output, and the output "
                     "folder is replaced as a whole, so choose a new or empty folder", file=target)


# -- locks ---------------------------------------------------------------------------------------------------

class OutputBusy(OutputError):
    """Another run is writing the same output now (exit code 2, naming that run)."""


def _lock_holder(path: Path) -> str:
    try:
        info = json.loads(path.read_text(encoding="utf-8"))
        return f"pid {int(info['pid'])}, builder {info.get('command') or '?'}, since {info.get('since') or '?'}"
    except (OSError, ValueError, KeyError, TypeError):
        return "a run that is starting"


@contextlib.contextmanager
def output_lock(lock: str | os.PathLike, target: str | os.PathLike, what: str = "") -> Iterator[None]:
    """Hold the lock file ``lock`` for the block, or raise :class:`OutputBusy` naming the run that holds it.

    The lock is an ``flock`` on the file (the kernel releases it when its
    process ends, so a killed run never leaves a stale lock); the file holds
    the holder's pid, command and start time, for the message of the run that
    finds it held, and is removed when the block ends. The same process may
    take a lock it holds again (a release stage writing inside the release).
    """
    import fcntl
    import time

    lock = Path(lock)
    key = os.path.abspath(lock)
    if key in _HELD:
        yield
        return
    while True:
        with _as_output_error(Path(target)):
            fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise OutputBusy(f"another run is writing it ({_lock_holder(lock)}); wait for it to finish or "
                             "choose another output folder", file=target) from None
        try:  # the file may have been removed (and another made) between the open and the lock
            same = os.stat(lock).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            same = False
        if same:
            break
        os.close(fd)
    _HELD[key] = fd
    try:
        info = {"pid": os.getpid(), "command": what, "since": time.strftime("%Y-%m-%d %H:%M:%S")}
        os.ftruncate(fd, 0)
        os.write(fd, (json.dumps(info, sort_keys=True) + "\n").encode())
        yield
    finally:
        _HELD.pop(key, None)
        with contextlib.suppress(OSError):
            os.unlink(lock)  # while still held: a run that opened it before now finds another inode
        os.close(fd)


#: The lock files this process holds: absolute path -> file descriptor.
_HELD: dict[str, int] = {}


def _forget_locks_in_child() -> None:
    """A forked worker closes its copies of the locks' descriptors: an flock lives as long as any copy, so a
    worker that outlived its run (its parent killed) would otherwise keep the output locked."""
    for fd in _HELD.values():
        with contextlib.suppress(OSError):
            os.close(fd)
    _HELD.clear()


os.register_at_fork(after_in_child=_forget_locks_in_child)


def lock_beside(target: str | os.PathLike) -> Path:
    """The lock file of an output that is replaced as a whole: ``.NAME.lock`` beside it."""
    target = Path(target)
    return target.parent / f".{target.name}.lock"


# -- files ---------------------------------------------------------------------------------------------------

@contextlib.contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; rename it onto ``path`` on success.

    On an exception the temporary file is removed and ``path`` is untouched.
    The file gets the modes of the umask, as a plain ``open`` would.
    """
    path = Path(path)
    with _as_output_error(path):
        path.parent.mkdir(parents=True, exist_ok=True)
        recover(path.parent, path.name)
        tmp = path.parent / _temp_name(path.name, "tmp")
        os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
    try:
        with _as_output_error(path, within=tmp):
            yield tmp
        fault_point("file-written")
        with _as_output_error(path):
            os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        raise


# -- folders -------------------------------------------------------------------------------------------------

def replace_dir_atomic(staging: Path, target: Path) -> None:
    """Move a fully written ``staging`` folder onto ``target``.

    The previous ``target`` is renamed ``.NAME.PID.old`` until the new one is
    in place, with SIGINT and SIGTERM held off in between, so an interruption
    leaves either the old or the new folder, never a mix; after a SIGKILL
    between the renames the next run restores the old one (:func:`recover`).
    """
    staging, target = Path(staging), Path(target)
    backup = target.with_name(f".{target.name}.{os.getpid()}.old")
    try:
        with _as_output_error(target), _signals_held():
            if os.path.lexists(target):
                os.replace(target, backup)
                fault_point("old-moved-away")
            try:
                os.replace(staging, target)
            except BaseException:
                if os.path.lexists(backup):
                    os.replace(backup, target)
                raise
            fault_point("new-moved-in")
    finally:  # also when a signal held off during the swap arrives at its end
        if os.path.lexists(backup) and os.path.lexists(target):
            shutil.rmtree(backup, ignore_errors=True)


@contextlib.contextmanager
def staging_dir(target: str | os.PathLike, *, marker=None, what: str = "", mark: bool = True) -> Iterator[Path]:
    """Yield an empty folder beside ``target``; on success it replaces ``target``.

    Files inside ``target`` that the caller did not write are not carried over:
    the new folder is the complete output. With ``what`` (the command) the
    folder is marked as its output (:data:`MARKER`; not with ``mark=False``,
    for an output whose ``marker`` says it already), and a non-empty
    ``target`` that is not an earlier output of it is refused before anything
    is written (:func:`check_replaceable`; ``marker`` names the file of
    unmarked earlier outputs). On an exception the staging folder is removed
    and ``target`` is untouched.
    """
    target = Path(target)
    if what or marker is not None:
        check_replaceable(target, marker, what)
    else:
        if target.parent.is_dir():
            recover(target.parent, target.name)
        check_writable(target)
    with _as_output_error(target):
        target.parent.mkdir(parents=True, exist_ok=True)
    with output_lock(lock_beside(target), target, what):  # one run at a time writes ``target``
        with _as_output_error(target):
            staging = target.parent / _temp_name(target.name, "staging")
            os.mkdir(staging)  # the umask's modes, as a plain mkdir would give
        try:
            with _as_output_error(target, within=staging):
                yield staging
                if what and mark:
                    (staging / MARKER).write_text(json.dumps({"command": what}, sort_keys=True) + "\n",
                                                  encoding="utf-8")
            fault_point("staging-written")
            replace_dir_atomic(staging, target)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise


def refuse_inputs_inside(out: str | os.PathLike, inputs, *, option: str = "--out") -> None:
    """A usage error (exit 2) if ``out`` and one of ``inputs`` overlap: the same path, an input inside
    ``out`` (replacing ``out`` would delete it) or ``out`` inside an input folder (the output would
    become part of its own input). The one guard every command and the release use.

    >>> refuse_inputs_inside("/tmp/x/out", ["/tmp/x/in", None])
    >>> refuse_inputs_inside("/tmp/x", ["/tmp/x/in.tsv"])
    Traceback (most recent call last):
    ...
    schemas.errors.UsageError: --out /tmp/x would replace the folder that holds the input /tmp/x/in.tsv; choose another --out
    """
    dst = Path(out).resolve()
    for item in inputs:
        if item is None:
            continue
        src = Path(item).resolve()
        if src == dst or dst in src.parents:
            raise UsageError(f"{option} {out} would replace the folder that holds the input {item}; "
                             f"choose another {option}")
        if src in dst.parents:
            raise UsageError(f"{option} {out} lies inside the input folder {item}; choose a folder outside it")


# -- groups of files -----------------------------------------------------------------------------------------

def check_files_replaceable(folder: str | os.PathLike, members, what: str, *, own=()) -> None:
    """Refuse to write the files ``members`` into a non-empty folder that holds none of them.

    For outputs that are a group of files in a folder (:func:`replace_files_together`):
    the folder may be missing, empty, one of ``own`` (e.g. the input folder
    the files describe) or hold an earlier copy of one of ``members``.
    Recovers after killed runs and checks that the folder can be written first.
    """
    folder = Path(folder)
    group = _group_name(members)
    if folder.is_dir():
        recover(folder, group)
    check_writable(folder, inside=True)
    if not folder.exists() or not any(folder.iterdir()):
        return
    if any(folder.resolve() == Path(o).resolve() for o in own) or any((folder / m).is_file() for m in members):
        return
    raise UsageError(f"a non-empty folder without {' or '.join(members)}: it is not an earlier {what} output "
                     "folder, so choose a new or empty folder", file=folder)


def _group_name(members) -> str:
    return min(Path(m).stem for m in members)


def replace_files_together(folder: str | os.PathLike, files: Mapping[str, str | bytes]) -> list[Path]:
    """Write ``files`` (name -> text or bytes) into ``folder`` so that they are replaced together.

    They are written into a staging folder, which is renamed
    ``.GROUP.PID.commit`` once complete (GROUP: the first name's stem); then
    each file is moved onto its name, with SIGINT and SIGTERM held off. A run
    killed (SIGKILL) after the commit is finished by the next one
    (:func:`recover`), so readers see the old group or, after that, the new
    one. Text is written as UTF-8 with ``\\n`` line ends. Returns the paths.
    """
    folder = Path(folder)
    names = sorted(files)
    if any(Path(n).name != n or n.startswith(".") for n in names):
        raise ValueError(f"group members must be plain file names; found {names}")
    group = _group_name(names)
    with _as_output_error(folder):
        folder.mkdir(parents=True, exist_ok=True)
        recover(folder, group)
        staging = folder / _temp_name(group, "staging")
        os.mkdir(staging)
    commit = folder / f".{group}.{os.getpid()}.commit"
    try:
        with _as_output_error(folder):
            for name in names:
                data = files[name]
                (staging / name).write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
            fault_point("group-staged")
            os.rename(staging, commit)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    with _as_output_error(folder), _signals_held():
        for i, name in enumerate(names):
            os.replace(commit / name, folder / name)
            if i == 0:
                fault_point("group-half-moved")
        os.rmdir(commit)
    return [folder / name for name in names]
