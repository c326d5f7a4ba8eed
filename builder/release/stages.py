"""Stages of a release: what each one reads, how it runs, and when it can be skipped.

A :class:`Stage` writes into its own folder ``DIR/stages/<name>/output``
(the export: ``DIR/export``) and, once that is complete, records
``DIR/stages/<name>/stage.json``: the tool and its version, the stage's
options, the sha256 of every input (a folder: of its files, sorted) and of its
output. A later run skips a stage whose record matches what it would run with
now and whose output is still the one recorded; anything else runs it again,
and the command it runs replaces its own earlier output atomically. A run that
was killed therefore leaves either a recorded stage (skipped next time) or an
unrecorded one (run again, with the same bytes as a run never interrupted).
"""
from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from schemas.io import dumps_json, sha256_file, write_json_atomic
from schemas.runtime.outputs import fault_point

STAGE_JSON = "stage.json"


def tree_sha256(path: Path) -> str | None:
    """The sha256 of a file, or of a folder's files (relative path and sha256 of each, sorted); None if absent.

    Hidden files (the output marker ``.builder.json``, temporaries of a killed writer
    ``.NAME.PID.*``) are left out, so the hash says what a reader sees.
    """
    path = Path(path)
    if path.is_file():
        return sha256_file(path)
    if not path.is_dir():
        return None
    h = hashlib.sha256()
    for p in sorted(path.rglob("*")):
        rel = p.relative_to(path)
        if not p.is_file() or any(part.startswith(".") for part in rel.parts):
            continue
        h.update(f"{rel.as_posix()}\0{sha256_file(p)}\n".encode())
    return h.hexdigest()


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
        ``action(output: Path) -> int``: writes ``output`` whole (atomically) and returns an exit
        code; a code not in ``accept`` stops the release with that code.
    output : Path
        Where the stage's result lives.
    accept : tuple of int
        Exit codes that complete the stage (the gate: 0 pass, 1 fail).
    parallel : bool
        A per-variant stage: consecutive ones that do not read each other's outputs run together
        through :func:`schemas.runtime.fanout.fan_out`.
    """

    name: str
    inputs: dict[str, Path]
    options: dict[str, Any]
    action: Callable[[Path], int]
    output: Path
    accept: tuple[int, ...] = (0,)
    describe: str = ""
    parallel: bool = False   # may run beside the stages around it that it does not read (extend, romanize)


class Recorder:
    """Reads and writes ``stage.json`` records under ``root/stages``; paths in them are relative."""

    def __init__(self, root: Path, recipe_dir: Path, tool: dict[str, str]):
        self.root, self.recipe_dir, self.tool = Path(root), Path(recipe_dir), tool

    def folder(self, stage: Stage) -> Path:
        return self.root / "stages" / stage.name

    def rel(self, path: Path) -> str:
        """``path`` relative to the release folder if inside it, else to the recipe's folder."""
        p = Path(os.path.abspath(path))
        root = Path(os.path.abspath(self.root))
        if p == root or root in p.parents:
            return p.relative_to(root).as_posix()
        return Path(os.path.relpath(p, os.path.abspath(self.recipe_dir))).as_posix()

    def expected(self, stage: Stage) -> dict[str, Any]:
        """The record's fields that must match for a skip (outputs aside)."""
        inputs = {label: {"path": self.rel(p), "sha256": tree_sha256(p)} for label, p in sorted(stage.inputs.items())}
        return {"stage": stage.name, "tool": self.tool, "options": stage.options, "inputs": inputs}

    def read(self, stage: Stage) -> dict | None:
        import json

        path = self.folder(stage) / STAGE_JSON
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None  # absent or torn by a crash: the stage runs again

    def up_to_date(self, stage: Stage) -> dict | None:
        """The record if the stage can be skipped: same tool, options, inputs, and its output intact."""
        record = self.read(stage)
        if not record:
            return None
        want = json_roundtrip(self.expected(stage))
        if any(record.get(k) != v for k, v in want.items()):
            return None
        out = record.get("output") or {}
        if out.get("path") != self.rel(stage.output) or out.get("sha256") != tree_sha256(stage.output):
            return None
        return record

    def write(self, stage: Stage, exit_code: int, expected: dict) -> dict:
        record = dict(expected, exit=exit_code,
                      output={"path": self.rel(stage.output), "sha256": tree_sha256(stage.output)})
        write_json_atomic(self.folder(stage) / STAGE_JSON, record)
        fault_point(f"stage-recorded:{stage.name}")
        return record


def json_roundtrip(obj: Any) -> Any:
    """``obj`` as it reads back from JSON (tuples become lists), to compare with a record."""
    import json

    return json.loads(dumps_json(obj))
