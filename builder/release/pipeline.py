"""Run a release: the stages of :mod:`builder.release.plan` in order, with resume, then the summary.

``DIR`` (marked ``.builder.json``, command ``release``) holds::

    stages/<stage>/output/   what the stage made          stages/<stage>/stage.json   its record
    export/                  the release (Parquet, card, LICENSE, lm-eval tasks)
    release.json             the summary (machine-readable)    report.html   the same for a reviewer
    run.json                 this run only: which stages ran or were skipped, and their seconds

Everything but ``run.json`` is byte-identical between a run that was never
interrupted and one that was killed at any point and run again.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from schemas.errors import UsageError
from schemas.io import write_json_atomic, write_text_atomic
from schemas.outputs import MARKER, check_replaceable, fault_point

from .plan import Plan
from .stages import Recorder

INTERRUPTED = (130, 143)


class StageStopped(Exception):
    """A stage's command ended with an exit code that stops the release (it printed its own error)."""

    def __init__(self, stage: str, code: int):
        super().__init__(f"stage {stage} exited with {code}")
        self.stage, self.code = stage, code


@dataclass
class RunResult:
    """What one run did: per stage ``(name, status, seconds)``, and the gate's verdict."""

    stages: list[tuple[str, str, float]] = field(default_factory=list)
    gate_passed: bool | None = None
    stopped_at_gate: bool = False
    summary: dict | None = None


def tool_info() -> dict[str, str]:
    from importlib import metadata

    try:
        version = metadata.version("mc-dataset-builder")
    except metadata.PackageNotFoundError:  # pragma: no cover - a bare checkout
        version = "0+unknown"
    return {"name": "mc-dataset-builder", "version": version}


def prepare_root(root: Path) -> None:
    """Refuse a non-empty ``root`` that is not an earlier release (exit 2); mark it as a release."""
    check_replaceable(root, None, "release")
    root.mkdir(parents=True, exist_ok=True)
    if not (root / MARKER).is_file():
        write_text_atomic(root / MARKER, '{"command": "release"}\n')


def first_forced(plan: Plan, name: str | None) -> int | None:
    """Index of the stage ``--from NAME`` names (exactly, or the first whose name starts with ``NAME-``)."""
    if name is None:
        return None
    for i, st in enumerate(plan.stages):
        if st.name == name or st.name.startswith(f"{name}-"):
            return i
    raise UsageError(f"--from {name}: no such stage; stages: {', '.join(s.name for s in plan.stages)}")


def run_release(plan: Plan, *, from_stage: str | None = None, allow_failing_gate: bool = False,
                say: Callable[[str], None] = print) -> RunResult:
    """Run (or skip) every stage of ``plan``; stop before the export when the gate fails unless allowed.

    Raises :class:`StageStopped` when a command fails or is interrupted (its exit code is the release's).
    """
    from .summary import write_summary

    prepare_root(plan.root)
    recorder = Recorder(plan.root, plan.recipe.file.parent if plan.recipe.file else Path.cwd(), tool_info())
    forced_from = first_forced(plan, from_stage)
    result = RunResult()
    total = len(plan.stages)
    for i, st in enumerate(plan.stages):
        fault_point(f"stage-started:{st.name}")
        if st.name == "export" and result.gate_passed is False and not allow_failing_gate:
            result.stopped_at_gate = True
            break
        record = None if forced_from is not None and i >= forced_from else recorder.up_to_date(st)
        start = time.perf_counter()
        if record is not None:
            code = int(record.get("exit", 0))
            status = "skipped"
            say(f"release: [{i + 1}/{total}] {st.describe}: up to date, skipped")
        else:
            say(f"release: [{i + 1}/{total}] {st.describe} ...")
            expected = recorder.expected(st)
            code = st.action(st.output)
            if code not in st.accept:
                raise StageStopped(st.name, code)
            recorder.write(st, code, expected)
            status = "ran"
        seconds = time.perf_counter() - start
        if record is None:
            say(f"release: [{i + 1}/{total}] {st.describe}: done in {seconds:.1f} s")
        result.stages.append((st.name, status, round(seconds, 3)))
        if st is plan.qc:
            result.gate_passed = code == 0
    summary = write_summary(plan, gate_failing_allowed=allow_failing_gate and result.gate_passed is False,
                            stopped_at_gate=result.stopped_at_gate)
    result.summary = summary
    write_json_atomic(plan.root / "run.json", {
        "stages": [{"name": n, "status": s, "seconds": t} for n, s, t in result.stages],
        "stopped_at_gate": result.stopped_at_gate,
        "note": "this run only; every other file of the release is the same whichever run made it"})
    return result
