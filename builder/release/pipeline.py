"""Run a release: the stages of :mod:`builder.release.plan` in order, with resume, then the summary.

``DIR`` (marked ``.builder.json``, command ``release``) holds::

    stages/<stage>/output/   what the stage made          stages/<stage>/stage.json   its record
    export/                  the release (Parquet, card, LICENSE, lm-eval tasks): only when this run released
    superseded/<stage>/      an output this run does not stand behind, moved aside (:mod:`.superseded`)
    release.json             the summary (machine-readable)    report.html   the same for a reviewer
    run.json                 this run only: which stages ran or were skipped, their wall and CPU seconds

Everything but ``run.json`` is byte-identical between a run that was never
interrupted and one that was killed at any point and run again. Whatever the
run's verdict (released, stopped by the gate, stopped by a stage's error),
``release.json``, ``report.html`` and the folder agree with it: they are
written at the end of every run that was not interrupted, from the stages this
run ran or found up to date only, after the outputs it does not stand behind
were moved aside (kept as they are when the last run wrote them from the same
records and verdict and neither file changed since: :func:`summary_key`). An
interrupted run (exit 130, 143) leaves the last finished run's summary, which
still agrees with the folder's ``export/``.
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from schemas.errors import UsageError
from schemas.runtime import stop as run_stop
from schemas.runtime.provenance import tool_info
from schemas.io import sha256_store, write_json_atomic
from schemas.runtime.outputs import (check_replaceable, check_writable, fault_point, lock_beside, output_lock,
                                     refuse_inputs_inside)

from builder.tasks.base import echo

from .plan import Plan
from .stages import RUN_STAMPS, STAGE_JSON, Recorder, last_run, last_stamps, stamp_or_none, within
from .superseded import (GATE_FAILED, NOT_PLANNED, check_same_release, mark_release, recover_superseded,
                         stopped_reason, supersede)


class StageStopped(Exception):
    """A stage's task raised an error: the release stops there (``error`` is the task's own error)."""

    def __init__(self, stage: str, error: BaseException):
        super().__init__(stage, error)  # the args pickle: a worker's StageStopped reaches the driver whole
        self.stage, self.error = stage, error

    def __str__(self) -> str:
        return f"stage {self.stage}: {self.error}"


@dataclass
class RunResult:
    """What one run did: per stage ``(name, status, seconds)``, and the gate's verdict."""

    stages: list[tuple[str, str, float]] = field(default_factory=list)
    cpu_seconds: dict[str, float] = field(default_factory=dict)   # per stage that ran: user + system CPU
    gate_passed: bool | None = None
    stopped_at_gate: bool = False
    summary: dict | None = None
    stopped: dict | None = None   # {"stage", "error"}: the stage whose task failed, and its one-line error
    file_stamps: dict = field(default_factory=dict)   # Recorder.stamps(): for the next run's skip checks
    last_summary: object = None   # the last run's run.json SUMMARY_OF: what its summary files were written from

    @property
    def current(self) -> set[str]:
        """The stages this run ran or found up to date: the only ones the summary reads."""
        return {name for name, _, _ in self.stages}


def prepare_root(root: Path, plan: Plan) -> None:
    """Refuse a non-empty ``root`` that is not an earlier release, or that holds another recipe's release
    (exit 2, :func:`.superseded.check_same_release`); mark it as the release of ``plan``'s recipe (its parent
    exists: :func:`run_release` made it)."""
    check_replaceable(root, None, "release")
    if root.is_dir():
        check_same_release(root, plan.recipe.name, plan.recipe.file)
    root.mkdir(exist_ok=True)
    mark_release(root, plan.recipe.name, plan.recipe.file)


def external_inputs(plan: Plan) -> list[Path]:
    """The recipe and every stage input that no stage of the release makes (what the user brought): the
    release folder must neither hold one of them nor lie inside one, or it would be part of its own input."""
    made = [os.path.abspath(st.output) for st in plan.stages]
    out = [plan.recipe.file] if plan.recipe.file else []
    out += [src.path for src in plan.recipe.variants if src.kind == "dataset"]  # the folder, not only its parts
    for st in plan.stages:
        for path in st.inputs.values():
            if not any(within(path, m) for m in made):
                out.append(path)
    return out


def first_forced(plan: Plan, name: str | None) -> int | None:
    """Index of the stage ``--from NAME`` names (exactly, or the first whose name starts with ``NAME-``)."""
    if name is None:
        return None
    for i, st in enumerate(plan.stages):
        if st.name == name or st.name.startswith(f"{name}-"):
            return i
    raise UsageError(f"--from {name}: no such stage; stages: {', '.join(s.name for s in plan.stages)}")


def batches(stages) -> list[list]:
    """Consecutive stages grouped to run together: per-variant stages (``parallel``) that do not read each
    other's outputs share a batch; every other stage is a batch of its own."""
    out: list[list] = []
    for st in stages:
        cur = out[-1] if out else None
        if (cur is not None and st.parallel and all(s.parallel for s in cur)
                and not any(_reads(st, s) for s in cur)):
            cur.append(st)
        else:
            out.append([st])
    return out


def _reads(stage, other) -> bool:
    """Whether ``stage`` reads what ``other`` writes."""
    made = Path(os.path.abspath(other.output))
    return any(Path(os.path.abspath(p)) == made or made in Path(os.path.abspath(p)).parents
               for p in stage.inputs.values())


def _gate_verdict(plan: Plan, st, facts: dict, result: RunResult) -> None:
    if st is plan.qc:
        result.gate_passed = bool(facts.get("passed"))


def _cpu() -> float:
    """CPU seconds (user + system) of this process and of every child it has waited for."""
    import resource

    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _timed(stage) -> tuple[dict, float, float]:
    """Run one stage's task; its facts, its own wall seconds and CPU seconds (measured where it runs:
    in a worker of a batch, that worker's CPU while it ran this stage, with the processes it started
    and waited for)."""
    start, cpu = time.perf_counter(), _cpu()
    try:
        facts = stage.action(stage.output)
    except KeyboardInterrupt:
        raise
    except Exception as err:  # noqa: BLE001 - the release names the stage, the CLI prints the error
        raise StageStopped(stage.name, err) from err
    return facts or {}, round(time.perf_counter() - start, 3), round(_cpu() - cpu, 3)


def _run(plan: Plan, todo: list, expected: list, recorder: Recorder, result: RunResult, index: dict,
         say) -> None:
    """Run the stages of one batch (several at once through the fan-out) and record each with the
    record fields ``expected`` that its skip check computed."""
    from schemas.runtime.fanout import fan_out

    total = len(plan.stages)
    for st in todo:
        say(f"release: [{index[id(st)] + 1}/{total}] {st.describe} ...")
    if len(todo) == 1:
        outcomes = [_timed(todo[0])]
    else:
        where = plan.where
        outcomes = fan_out(_run_stage, list(range(len(todo))), shared=todo, jobs=where["jobs"],
                           backend=where["backend"], address=where["address"], labels=[st.name for st in todo])
    for st, (facts, seconds, cpu), want in zip(todo, outcomes, expected):
        recorder.write(st, want, facts)
        result.stages.append((st.name, "ran", seconds))
        result.cpu_seconds[st.name] = cpu
        say(f"release: [{index[id(st)] + 1}/{total}] {st.describe}: done in "
            f"{seconds:.1f} s{'' if len(todo) == 1 else f' (1 of {len(todo)} run together)'}")
        _gate_verdict(plan, st, facts, result)


def _run_stage(stages, i: int) -> tuple[dict, float, float]:
    """A worker's part of a batch: run stage ``i``. Ctrl-C is the driver's to handle (it stops the
    workers), so a worker does not print its own interruption line."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    return _timed(stages[i])


def _run_batches(plan: Plan, recorder: Recorder, forced_from: int | None, result: RunResult,
                 allow_failing_gate: bool, say) -> None:
    """Skip or run every batch of stages in order; stop before the export when the gate failed."""
    total = len(plan.stages)
    index = {id(st): i for i, st in enumerate(plan.stages)}
    for batch in batches(plan.stages):
        todo, expected = [], []
        for st in batch:
            i = index[id(st)]
            run_stop.check()  # a Ctrl-C or SIGTERM whose KeyboardInterrupt something swallowed stops here
            fault_point(f"stage-started:{st.name}")
            if st.name == "export" and result.gate_passed is False and not allow_failing_gate:
                result.stopped_at_gate = True
                break
            forced = forced_from is not None and i >= forced_from
            want = recorder.expected(st)
            record = None if forced else recorder.up_to_date(st, want)
            if record is not None:
                say(f"release: [{i + 1}/{total}] {st.describe}: up to date, skipped")
                result.stages.append((st.name, "skipped", 0.0))
                _gate_verdict(plan, st, record.get("facts") or {}, result)
            else:
                todo.append(st)
                expected.append(want)
        if todo:
            _run(plan, todo, expected, recorder, result, index, say)
        if result.stopped_at_gate:
            break


def run_release(plan: Plan, *, from_stage: str | None = None, allow_failing_gate: bool = False,
                say: Callable[[str], None] = echo) -> RunResult:
    """Run (or skip) every stage of ``plan``; stop before the export when the gate fails unless allowed.

    ``plan`` comes from :func:`builder.release.plan.make_plan` on a recipe from
    :func:`builder.release.recipe.load_release_recipe`: every value of the recipe and every file it
    points to was validated then, so a recipe mistake never surfaces after a stage ran.

    Raises :class:`StageStopped` when a stage's task fails (the error it raised is in ``error``).
    """
    # every check first (the recipe and the plan were validated whole when they were made): a bad --from
    # stops before the release folder is made or marked, as a bad recipe does
    forced_from = first_forced(plan, from_stage)
    refuse_inputs_inside(plan.root, external_inputs(plan))
    check_writable(plan.root)
    plan.root.parent.mkdir(parents=True, exist_ok=True)
    with output_lock(lock_beside(plan.root), plan.root, "release"):  # one run at a time writes the release
        prepare_root(plan.root, plan)
        recover_release(plan)
        # the last run's stat stamps: a file whose stamp is unchanged keeps its digest (stages.Digests)
        last = last_run(plan.root / "run.json")
        recorder = Recorder(plan.root, plan.recipe_dir, tool_info(), stamps=last_stamps(last))
        result = RunResult(last_summary=last.get(SUMMARY_OF))
        try:
            with sha256_store(recorder.digests.store):  # every stage asks one owner for a file's digest
                try:
                    _run_batches(plan, recorder, forced_from, result, allow_failing_gate, say)
                finally:
                    result.file_stamps = recorder.stamps()
        except StageStopped as stop:
            # the run has a verdict (stopped there): the folder, release.json and the report say it
            result.stopped = {"stage": stop.stage, "error": str(stop.error)}
            _finish(plan, result, allow_failing_gate, say)
            raise
        _finish(plan, result, allow_failing_gate, say)
    return result


def _finish(plan: Plan, result: RunResult, allow_failing_gate: bool, say) -> None:
    """Move aside what this run does not stand behind, then write release.json, report.html and run.json."""
    from .summary import write_summary

    set_aside(plan, result, say)
    fault_point("release-set-aside")
    gate_failing_allowed = allow_failing_gate and result.gate_passed is False
    key = summary_key(plan, result, gate_failing_allowed)
    result.summary = _summary_if_current(plan.root, key, result.last_summary)
    if result.summary is None:
        result.summary = write_summary(plan, gate_failing_allowed=gate_failing_allowed,
                                       stopped_at_gate=result.stopped_at_gate, current=result.current,
                                       stopped=result.stopped)
    order = {st.name: i for i, st in enumerate(plan.stages)}
    result.stages.sort(key=lambda row: order[row[0]])
    write_json_atomic(plan.root / "run.json", {
        "stages": [{"name": n, "status": s, "seconds": t, "cpu_seconds": result.cpu_seconds.get(n, 0.0)}
                   for n, s, t in result.stages],
        "stopped_at_gate": result.stopped_at_gate, "stopped_at": (result.stopped or {}).get("stage"),
        "note": "this run only; every other file of the release is the same whichever run made it",
        RUN_STAMPS: result.file_stamps,
        SUMMARY_OF: {"key": key, "files": {name: stamp_or_none(plan.root / name) for name in SUMMARY_FILES}}})


#: the key of ``run.json`` that says what the summary files were written from, and their stat stamps
SUMMARY_OF = "summary_of"
SUMMARY_FILES = ("release.json", "report.html")


def summary_key(plan: Plan, result: RunResult, gate_failing_allowed: bool) -> str:
    """The sha256 of everything :func:`.summary.build_summary` reads: the recipe and the plan's variants, the
    run's verdict, the bytes of the record of every stage the summary reads (each names its output's digest,
    and the dataset stage the digests of the variant folders), and what ``superseded/`` holds. The same key
    means the same ``release.json`` and ``report.html`` (the tool's version is in it, as in every record)."""
    import hashlib

    from schemas.io import dumps_json

    from .superseded import superseded

    records = {}
    for st in plan.stages:
        if st.name in result.current:
            try:
                records[st.name] = hashlib.sha256((plan.root / "stages" / st.name / STAGE_JSON).read_bytes()).hexdigest()
            except OSError:
                records[st.name] = None
    state = {"tool": tool_info(), "recipe": repr(plan.recipe), "root": str(plan.root), "kind": plan.kind,
             "variants": sorted(repr(v) for v in plan.variants.values()), "not_run": plan.not_run,
             "stages": [(st.name, str(st.output)) for st in plan.stages], "records": records,
             "gate_failing_allowed": gate_failing_allowed, "stopped_at_gate": result.stopped_at_gate,
             "stopped": result.stopped, "superseded": superseded(plan.root)}
    return hashlib.sha256(dumps_json(state).encode("utf-8")).hexdigest()


def _summary_if_current(root: Path, key: str, last) -> dict | None:
    """The summary in ``release.json`` when the last run (``last``: its ``run.json`` :data:`SUMMARY_OF`)
    wrote it and ``report.html`` from what this run would write them from (the same :func:`summary_key`) and
    neither file changed since (their stat stamps, as :mod:`.stages` checks a file); else None, and the
    caller writes both again. A rerun with nothing changed then reads the stage records and writes only
    ``run.json``."""
    import json

    if not isinstance(last, dict) or last.get("key") != key or not isinstance(last.get("files"), dict):
        return None
    for name in SUMMARY_FILES:
        now = stamp_or_none(root / name)
        if now is None or last["files"].get(name) != now:
            return None
    try:
        summary = json.loads((root / "release.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return summary if isinstance(summary, dict) else None


def set_aside(plan: Plan, result: RunResult, say) -> None:
    """Move to ``superseded/`` the export when this run did not make it or find it up to date (the gate
    failed without ``--allow-failing-gate``, or a stage stopped the run), and the folders of stages the
    plan no longer has. A stage this run did not reach keeps its output and record under ``stages/`` (the
    next run may skip it); the summary does not read it (:func:`.summary.build_summary`)."""
    export = next((st for st in plan.stages if st.name == "export"), None)
    if export is not None and export.name not in result.current:
        reason = stopped_reason(result.stopped["stage"]) if result.stopped else GATE_FAILED
        supersede(plan.root, export.name, export.output, reason, say)
    planned = {st.name for st in plan.stages}
    stages = plan.root / "stages"
    for folder in sorted(stages.iterdir()) if stages.is_dir() else []:
        if folder.is_dir() and not folder.name.startswith(".") and folder.name not in planned:
            supersede(plan.root, folder.name, folder / "output", NOT_PLANNED, say)
            if folder.is_dir() and not any(folder.iterdir()):
                folder.rmdir()


def recover_release(plan: Plan) -> None:
    """Clean up after a killed run of this release, whichever stages this run will skip: the temporary
    names of every stage's output and record, of the export and of the release's own files (each cleanup
    is one ``recovered:`` line, :func:`schemas.runtime.recovery.recover`)."""
    from schemas.runtime.recovery import recover

    for st in plan.stages:
        if st.output.parent.is_dir():
            recover(st.output.parent, st.output.name)
        record = plan.root / "stages" / st.name
        if record.is_dir():
            recover(record, STAGE_JSON)
    for name in ("release.json", "report.html", "run.json"):
        recover(plan.root, name)
    recover_superseded(plan.root)
