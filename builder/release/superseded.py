"""What a release folder holds beyond this run's release: outputs moved aside, and whose release it is.

A release folder shows one release, the last run's: ``export/`` exists only when
that run released (its gate passed, or ``--allow-failing-gate``), and
``release.json`` and ``report.html`` describe that run. An output the last run
does not stand behind (the export of an earlier run when this one's gate failed
or a stage stopped it, the folder of a stage the recipe no longer has) is not
deleted: it is moved to ``DIR/superseded/<stage>/``::

    superseded/<stage>/superseded.json   why it was moved, from where (``SupersededEntry``)
    superseded/<stage>/output/           the output as it was (the export: the whole ``export/``)
    superseded/<stage>/stage.json        its record, as it was

with one ``release:`` line on standard error, and ``release.json`` and the report
list it. A later move of the same stage replaces the earlier copy (the line says
so). A killed move is finished or undone by the next run (:func:`recover_superseded`).

The folder is also one recipe's: its marker (``.builder.json``) names the recipe
(``name`` and file) whose release it holds, and another recipe is refused before
anything is written (:func:`check_same_release`).
"""
from __future__ import annotations

import json
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from schemas.errors import UsageError
from schemas.io import write_json_atomic, write_text_atomic
from schemas.names import path_under
from schemas.runtime.outputs import MARKER, fault_point

from .stages import STAGE_JSON

SUPERSEDED = "superseded"
WHY = "superseded.json"

#: Why an output was moved aside (``reason`` in ``superseded.json``), by the verdict of the run that moved it.
GATE_FAILED = ("this run's qc gate failed and --allow-failing-gate was not given, so the export of an earlier "
               "run is not this release")
NOT_PLANNED = "the recipe no longer has this stage"


def stopped_reason(stage: str) -> str:
    return f"this run stopped at stage {stage}, so the export of an earlier run is not this release"


@dataclass(frozen=True)
class SupersededEntry:
    """One output moved aside: ``stage``, where it was (``was``, relative to the release folder), ``reason``,
    and the recipe name its record names (``made_by``; None when it names none)."""

    stage: str
    was: str
    reason: str
    made_by: str | None = None

    def to_dict(self) -> dict:
        return {"stage": self.stage, "was": self.was, "reason": self.reason, "made_by": self.made_by,
                "path": f"{SUPERSEDED}/{self.stage}"}

    @classmethod
    def read(cls, folder: Path) -> "SupersededEntry | None":
        try:
            data = json.loads((folder / WHY).read_text(encoding="utf-8"))
            return cls(stage=str(data["stage"]), was=str(data["was"]), reason=str(data["reason"]),
                       made_by=None if data.get("made_by") is None else str(data["made_by"]))
        except (OSError, ValueError, KeyError, TypeError):
            return None


def _record(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def supersede(root: Path, stage: str, output: Path, reason: str, say: Callable[[str], None]) -> bool:
    """Move ``output`` and the record ``root/stages/<stage>/stage.json`` to ``root/superseded/<stage>/``.

    Nothing to move (neither exists): False. The record moves first, then the output, so a run killed
    in between leaves the output where it was, without a record: the next run moves it (or rebuilds it).
    """
    root, output = Path(root), Path(output)
    record_dir = path_under(root / "stages", stage)
    record = record_dir / STAGE_JSON
    has_output, has_record = os.path.lexists(output), record.is_file()
    if not (has_output or has_record):
        return False
    facts = _record(record)
    made_by = (facts.get("options") or {}).get("name") if isinstance(facts.get("options"), dict) else None
    folder = root / SUPERSEDED
    folder.mkdir(exist_ok=True)
    dest = path_under(folder, stage)
    old = folder / f".{stage}.{os.getpid()}.old"
    replacing = os.path.lexists(dest)
    if replacing:
        os.replace(dest, old)  # put back by the next run's recovery if this one is killed before dest is made
    dest.mkdir()
    was = output.relative_to(root).as_posix()
    write_json_atomic(dest / WHY, SupersededEntry(stage, was, reason, made_by).to_dict())
    if has_record:
        os.replace(record, dest / STAGE_JSON)
    elif replacing and has_output and (old / STAGE_JSON).is_file() and not os.path.lexists(old / "output"):
        os.replace(old / STAGE_JSON, dest / STAGE_JSON)  # a move killed after the record, before the output
    fault_point(f"superseded-record-moved:{stage}")
    if has_output:
        os.replace(output, dest / "output")
    if record_dir.is_dir() and not any(record_dir.iterdir()):
        record_dir.rmdir()
    if replacing:
        shutil.rmtree(old, ignore_errors=True)
    say(f"release: moved {was}/ aside to {dest}/ ({reason}; "
        + ("it replaces the copy an earlier run moved there)" if replacing else "it is not deleted)"))
    return True


def superseded(root: Path) -> list[dict]:
    """What ``root/superseded/`` holds, by stage name (``SupersededEntry.to_dict``), for ``release.json``.
    A folder there without a readable ``superseded.json`` is listed with the reason unknown."""
    folder = Path(root) / SUPERSEDED
    if not folder.is_dir():
        return []
    out = []
    for sub in sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith(".")):
        entry = SupersededEntry.read(sub) or SupersededEntry(sub.name, sub.name, "unknown (no superseded.json)")
        out.append(entry.to_dict())
    return out


def recover_superseded(root: Path) -> None:
    """Clean up after a run killed while moving an output aside: an earlier copy it had moved away
    (``.<stage>.PID.old``) is put back when no new copy was made, else removed
    (:func:`schemas.runtime.recovery.recover`)."""
    from schemas.runtime.recovery import recover

    folder = Path(root) / SUPERSEDED
    if not folder.is_dir():
        return
    names = {m.group(1) for p in folder.iterdir() if (m := re.fullmatch(r"\.(.+)\.\d+\.old", p.name))}
    for name in sorted(names):
        recover(folder, name)


# -- whose release the folder is ---------------------------------------------------------------------------

def recorded_recipe(root: Path) -> tuple[str | None, str | None]:
    """``(name, recipe file)`` of the release ``root`` holds: from its marker, else (a folder written before
    the marker named it) from ``release.json``; ``(None, None)`` when neither says."""
    marker = _record(Path(root) / MARKER)
    recipe = marker.get("recipe") if isinstance(marker.get("recipe"), dict) else {}
    if recipe.get("name"):
        return str(recipe["name"]), (None if recipe.get("file") is None else str(recipe["file"]))
    dataset = _record(Path(root) / "release.json").get("dataset")
    if isinstance(dataset, dict) and dataset.get("name"):
        return str(dataset["name"]), None
    return None, None


def check_same_release(root: Path, name: str, file: Path | None) -> None:
    """Refuse (exit 2, before anything is written) a release folder that holds another recipe's release.

    A folder holds one recipe's release: its stages, export and report are that recipe's, and a run of
    another one into it would leave the first one's outputs under the second one's ``release.json``.
    The recipe is known by its ``name`` (what names the export and its lm-eval tasks): the same recipe
    moved or edited is the same release.
    """
    held, held_file = recorded_recipe(root)
    if held is None or held == name:
        return
    theirs = f"'{held}'" + (f" (recipe {held_file})" if held_file else "")
    mine = f"'{name}'" + (f" (recipe {file})" if file else "")
    raise UsageError(f"this folder holds the release of {theirs}, not of {mine}: a release folder holds one "
                     "recipe's release; choose another --out, or remove this folder first", file=root)


def mark_release(root: Path, name: str, file: Path | None) -> None:
    """Mark ``root`` as the release of recipe ``name`` (its marker, :data:`MARKER`)."""
    want = {"command": "release", "recipe": {"name": name, "file": None if file is None else os.path.abspath(file)}}
    if _record(Path(root) / MARKER) != want:
        write_text_atomic(Path(root) / MARKER, json.dumps(want, sort_keys=True) + "\n")
