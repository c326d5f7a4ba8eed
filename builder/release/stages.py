"""Stages of a release: what each one reads, how it runs, and when it can be skipped.

A :class:`Stage` writes into its own folder ``DIR/stages/<name>/output``
(the export: ``DIR/export``) and, once that is complete, records
``DIR/stages/<name>/stage.json``: the tool and its version, the stage's
options, the sha256 of every input (a folder: of its files, sorted) and of its
output, and the facts its task reported (drops, warnings, the gate's verdict;
the seconds it took go to ``run.json``). A later run skips a stage whose record
matches what it would run with now and whose output is still the one
recorded; anything else runs it again, and the task replaces its own earlier
output atomically. A run that was killed therefore leaves either a recorded
stage (skipped next time) or an unrecorded one (run again, with the same bytes
as a run never interrupted).

Each file is hashed at most once per run (:class:`Digests`): an input that an
earlier stage made is named by that stage's recorded output digest, not hashed
again, and every other input is hashed the first time a stage names it. Across
runs, a file whose stat stamp (size, ``mtime_ns``, inode) is the one the last
run saw keeps the digest that run computed: a rerun with nothing changed reads
the stage records and stats the files, and hashes nothing. The stamps live in
``run.json`` (:attr:`RUN_STAMPS`), not in ``stage.json``, which holds the same
bytes whichever run wrote it. A file edited in place keeps its inode but gets a
new ``mtime_ns`` (and usually a new size) and is hashed again; only an edit
that also puts the old ``mtime_ns`` back goes unseen, as with ``make`` or
``git status``.
"""
from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable

from schemas.names import path_under
from schemas.io import dumps_json, sha256_file, sha256_store, write_json_atomic
from schemas.runtime.outputs import fault_point

STAGE_JSON = "stage.json"
#: the key of ``run.json`` that holds the stat stamps and digests of the files the run hashed
RUN_STAMPS = "file_stamps"


def _visible_files(path: Path) -> list[tuple[str, str]]:
    """``(relative name, file)`` of a folder's files, hidden ones (the output marker ``.builder.json``,
    temporaries of a killed writer ``.NAME.PID.*``, anything under a hidden folder) left out, in the order
    of their paths' parts (how ``Path`` objects sort: ``a/b`` before ``a-c``).

    ``os.scandir`` (a symlinked folder not entered; a file is what ``DirEntry.is_file`` says, following a
    link, so a broken link is not one; a folder that cannot be read lists nothing, as with ``os.walk``),
    not ``Path.rglob``: a 228-variant release lists 2,779 files on every rerun, and the entries' types
    come with the listing, so no file is stat-ed to list it (12 ms against ``os.walk``'s 62 for 2,163).
    """
    out = []
    pending = [(os.fspath(path), "")]
    while pending:
        top, prefix = pending.pop()
        try:
            listing = os.scandir(top)
        except OSError:
            continue
        with listing:
            for entry in listing:
                if entry.name.startswith("."):
                    continue
                if entry.is_dir():
                    if not entry.is_symlink():
                        pending.append((entry.path, f"{prefix}{entry.name}/"))
                elif entry.is_file():
                    out.append((prefix + entry.name, entry.path))
    out.sort(key=lambda item: item[0].split("/"))
    return out


def tree_sha256(path: Path, digest: Callable[[Path], str] = sha256_file) -> str | None:
    """The sha256 of a file, or of a folder's files (relative path and sha256 of each, sorted); None if absent.

    Hidden files are left out, so the hash says what a reader sees. ``digest`` gives one file's sha256.
    """
    path = Path(path)
    if path.is_file():
        return digest(path)
    if not path.is_dir():
        return None
    h = hashlib.sha256()
    for rel, p in _visible_files(path):
        h.update(f"{rel}\0{digest(p)}\n".encode())
    return h.hexdigest()


def _stamp(path: Path) -> tuple[int, int, int]:
    st = os.stat(path)
    return st.st_size, st.st_mtime_ns, st.st_ino


def stamp_or_none(path: Path) -> list[int] | None:
    """``[size, mtime_ns, inode]`` of a file as ``run.json`` holds it, None when it is missing."""
    try:
        return list(_stamp(path))
    except OSError:
        return None


def _abs(path: Path) -> Path:
    return Path(_abspath(os.fspath(path)))


def _abspath(path: str) -> str:
    """``os.path.abspath`` with its ``normpath`` remembered: a rerun of 228 variants asks it 78,000 times
    of 9,000 paths. The working folder is joined first, so a caller that changes it gets the new answer."""
    return _normpath(path if os.path.isabs(path) else os.path.join(os.getcwd(), path))


_normpath = lru_cache(maxsize=1 << 16)(os.path.normpath)


def within(path, folder) -> bool:
    """Whether ``path`` is ``folder`` or inside it, both made absolute (``os.path.abspath``, no symlinks
    resolved). Compared as text, not through ``Path.parents``: a 228-variant release asks it of every stage
    for every input, variant and hashed file, which through ``parents`` cost a second of every rerun."""
    p, f = _abspath(os.fspath(path)), _abspath(os.fspath(folder))
    return p == f or p.startswith(f.rstrip(os.sep) + os.sep)


class Digests:
    """The sha256 of files and folders, each file hashed once per run.

    :meth:`made` registers a stage's output with the digest its record holds; an
    input at or under it is then named by that stage and digest (a reference)
    instead of being hashed again. Every file digest goes into :attr:`store`,
    which the release hands to :func:`schemas.io.sha256_store` while its stages
    run, so a task that hashes an input (extend's parallel files, a manifest
    check) asks the same owner: a folder read by five stages is hashed once.
    """

    def __init__(self, known: dict[str, tuple[int, int, int, str]] | None = None) -> None:
        self.store: dict[str, str] = {}
        self._outputs: dict[Path, tuple[str, str | None]] = {}   # output -> (stage, sha256)
        self.known = dict(known or {})   # absolute path -> (size, mtime_ns, inode, sha256) from the last run
        self.stamps: dict[str, tuple[int, int, int, str]] = {}   # the same, for the files this run hashed
        self.hashed = 0   # files whose bytes this run read to hash them (the rest: stamp or store)

    def of(self, path: Path) -> str | None:
        with sha256_store(self.store):
            return tree_sha256(path, self._file)

    def _file(self, path: Path) -> str:
        """One file's sha256: from this run's store, else the last run's if its stamp is unchanged, else
        hashed (stat first, so a file that changes while it is read is hashed again next run)."""
        key = _abspath(os.fspath(path))
        sha = self.store.get(key)
        if sha is not None:  # hashed this run (by this owner, stamped then; or by a task, not stamped)
            return sha
        stamp = _stamp(path)
        known = self.known.get(key)
        if known is not None and tuple(known[:3]) == stamp:
            sha = known[3]
        else:
            sha = sha256_file(path)  # the one hasher (schemas.io); inside of(), it also fills the store
            self.hashed += 1
        self.store[key] = sha
        self.stamps[key] = (*stamp, sha)
        return sha

    def forget(self, path: Path) -> None:
        """Drop cached digests at or under ``path`` (a stage is about to replace it)."""
        root = str(_abs(path))
        for cache in (self.store, self.stamps, self.known):
            for key in [k for k in cache if k == root or k.startswith(root + os.sep)]:
                del cache[key]
        self._outputs.pop(_abs(path), None)

    def made(self, output: Path, stage: str, sha256: str | None) -> None:
        self._outputs[_abs(output)] = (stage, sha256)

    def maker(self, path: Path) -> tuple[str, str | None] | None:
        """``(stage, output sha256)`` of the earlier stage whose output holds ``path``, if any."""
        p = _abspath(os.fspath(path))
        for out, made in self._outputs.items():
            if within(p, out):
                return made
        return None


@dataclass
class Stage:
    """One step of a release.

    Attributes
    ----------
    name : str
        ``qc``, ``extend-nqo_Nkoo``: unique; the folder under ``DIR/stages``.
    inputs : dict of str to Path
        What the stage reads (files or folders), by a label; their content decides the output.
    options : dict
        Everything else that decides the output (JSON values).
    action : callable
        ``action(output: Path) -> dict``: calls the stage's task (:mod:`builder.tasks`), which
        writes ``output`` whole (atomically), and returns the facts to record (JSON values:
        ``drops``, ``warnings``, the gate's ``passed``). An error stops the release.
    output : Path
        Where the stage's result lives.
    parallel : bool
        A per-variant stage: consecutive ones that do not read each other's outputs run together
        through :func:`schemas.runtime.fanout.fan_out`.
    """

    name: str
    inputs: dict[str, Path]
    options: dict[str, Any]
    action: Callable[[Path], dict]
    output: Path
    describe: str = ""
    parallel: bool = False   # may run beside the stages around it that it does not read (extend, romanize)


class Recorder:
    """Reads and writes ``stage.json`` records under ``root/stages``; paths in them are relative."""

    def __init__(self, root: Path, recipe_dir: Path, tool: dict[str, str], digests: Digests | None = None,
                 stamps: dict | None = None):
        self.root, self.recipe_dir, self.tool = Path(root), Path(recipe_dir), tool
        self.digests = digests or Digests(self._known(stamps or {}))

    def _known(self, stamps: dict) -> dict[str, tuple[int, int, int, str]]:
        """``run.json``'s :data:`RUN_STAMPS` (paths as :meth:`rel` writes them) by absolute path; anything
        malformed is left out (its file is hashed again)."""
        known = {}
        for where, base in (("release", self.root), ("recipe", self.recipe_dir)):
            rows = stamps.get(where) if isinstance(stamps, dict) else None
            for rel, row in (rows.items() if isinstance(rows, dict) else ()):
                if (isinstance(row, list) and len(row) == 4 and all(isinstance(v, int) for v in row[:3])
                        and isinstance(row[3], str)):
                    known[os.path.abspath(os.path.join(base, rel))] = tuple(row)
        return known

    def stamps(self) -> dict:
        """The stat stamps and digests of the files this run hashed, for ``run.json`` (:data:`RUN_STAMPS`):
        ``{"release": {path: [size, mtime_ns, inode, sha256]}, "recipe": {...}}``, paths as :meth:`rel`
        writes them (inside the release folder, or relative to the recipe's folder)."""
        root = os.path.abspath(self.root)
        out: dict[str, dict] = {"release": {}, "recipe": {}}
        for key, row in sorted(self.digests.stamps.items()):
            where = "release" if within(key, root) and key != root else "recipe"
            out[where][self.rel(key)] = list(row)
        return out

    def folder(self, stage: Stage) -> Path:
        return path_under(self.root / "stages", stage.name)

    def rel(self, path: Path) -> str:
        """``path`` relative to the release folder if inside it, else to the recipe's folder."""
        p, root = _abspath(os.fspath(path)), _abspath(os.fspath(self.root))
        if p == root:
            return "."
        if within(p, root):
            return p[len(root.rstrip(os.sep)) + 1:].replace(os.sep, "/")
        return Path(os.path.relpath(p, _abspath(os.fspath(self.recipe_dir)))).as_posix()

    def _input(self, path: Path) -> dict[str, Any]:
        made = self.digests.maker(path)
        if made is not None:  # an earlier stage's output: its recorded digest names it
            return {"path": self.rel(path), "stage": made[0], "sha256": made[1]}
        return {"path": self.rel(path), "sha256": self.digests.of(path)}

    def expected(self, stage: Stage) -> dict[str, Any]:
        """The record's fields that must match for a skip (outputs aside)."""
        inputs = {label: self._input(p) for label, p in sorted(stage.inputs.items())}
        return {"stage": stage.name, "tool": self.tool, "options": stage.options, "inputs": inputs}

    def read(self, stage: Stage) -> dict | None:
        import json

        path = self.folder(stage) / STAGE_JSON
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None  # absent or torn by a crash: the stage runs again

    def up_to_date(self, stage: Stage, want: dict) -> dict | None:
        """The record if the stage can be skipped: same tool, options, inputs (``want``, from
        :meth:`expected`), and its output intact; the output's digest is then known to later stages."""
        record = self.read(stage)
        if not record:
            return None
        if any(record.get(k) != v for k, v in json_roundtrip(want).items()):
            return None
        out = record.get("output") or {}
        if out.get("path") != self.rel(stage.output):
            return None
        sha = self.digests.of(stage.output)
        if out.get("sha256") != sha:
            return None
        self.digests.made(stage.output, stage.name, sha)
        return record

    def write(self, stage: Stage, expected: dict, facts: dict) -> dict:
        """Record a stage that ran: its output is hashed once (its files were just written)."""
        self.digests.forget(stage.output)
        sha = self.digests.of(stage.output)
        record = dict(expected, facts=facts, output={"path": self.rel(stage.output), "sha256": sha})
        write_json_atomic(self.folder(stage) / STAGE_JSON, record)
        self.digests.made(stage.output, stage.name, sha)
        fault_point(f"stage-recorded:{stage.name}")
        return record


def last_run(run_json: Path) -> dict:
    """The last run's ``run.json``; ``{}`` when it is absent, unreadable or not an object (every file is then
    hashed and the summary written, as on a first run). Read once per run: the skip checks ask it for
    :data:`RUN_STAMPS`, the summary for what it was last written from."""
    import json

    try:
        data = json.loads(Path(run_json).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def last_stamps(last: dict) -> dict:
    """:data:`RUN_STAMPS` of the last run's ``run.json`` (:func:`last_run`); ``{}`` when it has none."""
    stamps = last.get(RUN_STAMPS)
    return stamps if isinstance(stamps, dict) else {}


def json_roundtrip(obj: Any) -> Any:
    """``obj`` as it reads back from JSON (tuples become lists), to compare with a record."""
    import json

    return json.loads(dumps_json(obj))
