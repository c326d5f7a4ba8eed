"""The body of ``builder qc``: the quality-control release gate on a dataset folder.

A failed gate is a verdict, not an error: :func:`run_qc` returns it
(``passed=False`` and the ``message`` the command exits 1 with, raising
:class:`schemas.errors.QCGateFailed`), so the release can record it. A
dataset or config that cannot be read, or reports that cannot be written,
raise :class:`schemas.errors.GateInputError` (exit 2) or
:class:`schemas.errors.OutputError` as before any work.

For CI: ``junit`` writes a JUnit XML file (one test case per variant x check),
``annotations="github"`` puts ``::error``/``::warning`` workflow commands in
the result's ``lines`` (as :class:`~builder.tasks.base.WorkflowCommand`:
printed as commands, their values escaped by :mod:`qc.ci`), and when
``GITHUB_STEP_SUMMARY`` names a file the Markdown verdict is appended to it.
Progress goes through the reporter (:meth:`builder.tasks.base.Reporter.progress`).
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from schemas.errors import GateInputError, OutputError, ToolkitError

from .base import QUIET, Reporter, TaskResult, WorkflowCommand


@dataclass(frozen=True)
class QCOptions:
    """``builder qc``. ``out``: where the reports go [default: ``dataset``]; ``against``: a test set whose
    passages must not occur in ``dataset``; ``variants``: only these [default: all]; ``pivot``: overrides
    the config's ``pivot`` (the release's recipe names it)."""

    dataset: Path
    config: Path | None = None
    out: Path | None = None
    against: Path | None = None
    variants: tuple[str, ...] = ()
    jobs: int = 1
    backend: str = "local"
    address: str | None = None
    junit: Path | None = None
    annotations: str = "none"
    pivot: str | None = None


@dataclass
class QCResult(TaskResult):
    """``report``: the :class:`qc.gate.QCReport`; ``passed``: the verdict; ``message``: why it failed (or None).

    ``json_path`` and ``md_path``: the reports written. ``lines``: the GitHub annotations asked for, then,
    when the gate passed, the summary line. ``warnings``: a step summary that could not be appended to
    (not reported through the reporter: the caller shows it even when quiet).
    """

    report: Any = None
    passed: bool = False
    json_path: Path | None = None
    md_path: Path | None = None
    message: str | None = None


def _unreadable(call, path, what: str, also=(OSError, ValueError)):
    """Run ``call``; a read error becomes a :class:`GateInputError` (exit code 2), same message and location."""
    try:
        return call()
    except GateInputError:
        raise
    except ToolkitError as err:
        raise GateInputError.from_error(err) from err
    except also as err:  # unreadable file, bad Parquet/JSON the loader did not wrap
        raise GateInputError(f"cannot read {what}: {err}", file=path) from err


def _load(path, what: str, variants=None, lazy: bool = False):
    from schemas.dataset import load_dataset_dir

    return _unreadable(lambda: load_dataset_dir(path, variants=variants or None, lazy=lazy), path, what)


def _config(o: QCOptions) -> dict:
    from qc.config import load_config, merge_config

    config = _unreadable(lambda: load_config(o.config), o.config, "config", also=(OSError,))
    if o.pivot is not None:
        config = merge_config(config, {"pivot": o.pivot})
    return config


def run_qc(options: QCOptions, report: Reporter = QUIET) -> QCResult:
    """Run every check on every variant of ``options.dataset``; write qc_report.json and qc_report.md."""
    config = _config(options)  # first, before the checks are imported: a bad config is refused at once
    from qc.gate import run_gate
    from qc.report import REPORT_FILES, write_reports
    from schemas.runtime.outputs import check_files_replaceable

    o = options
    if o.out is not None or o.dataset.is_dir():  # (a dataset that is no folder is a read error, below)
        try:  # exit 2 before the work: the reports could not be written
            check_files_replaceable(o.out or o.dataset, REPORT_FILES, "qc", own=(o.dataset,))
        except OutputError as err:
            if o.out is not None:
                raise
            raise OutputError(f"{err.message} (the reports go to DATASET; choose another folder with --out DIR)",
                              file=err.file) from err
    ds = _load(o.dataset, "dataset", o.variants, lazy=True)  # each variant is read by the worker that checks it
    ref = _load(o.against, "--contamination-against set") if o.against is not None else None
    report.info(f"qc: {len(ds.variants)} variant(s) of {ds.kind} data in {o.dataset}")
    # variants are read during the gate: a file that cannot be read still exits 2 (a bug in a check does not)
    with report.progress("qc", len(ds.variants), "variants checked") as progress:
        gate = _unreadable(lambda: run_gate(ds, config, against=ref, jobs=o.jobs, progress=progress,
                                            backend=o.backend, address=o.address), o.dataset, "dataset",
                           also=(OSError,))
    json_path, md_path = write_reports(gate, o.out or o.dataset)
    result = QCResult(report=gate, passed=gate.passed, json_path=json_path, md_path=md_path)
    _ci_outputs(gate, o, result)
    gated = sum(1 for r in gate.results if r.gate and not r.skipped)
    if gate.passed:
        result.lines.append(f"qc passed: {gated} gated checks on {len(gate.variants)} variant(s); report {md_path}")
    else:
        fails = gate.failures
        names = ", ".join(f"{r.variant}:{r.check}" for r in fails[:5]) + (" ..." if len(fails) > 5 else "")
        result.message = f"qc gate failed: {len(fails)} of {gated} gated checks ({names}); see {md_path}"
    return result


def _ci_outputs(gate, o: QCOptions, result: QCResult) -> None:
    """The JUnit file, the GitHub annotations (into ``result.lines``) and the step summary, as asked."""
    from qc.ci import github_annotations, to_junit
    from qc.report import summary_markdown
    from schemas.io import write_text_atomic

    if o.junit is not None:
        try:
            write_text_atomic(o.junit, to_junit(gate))
        except OSError as err:
            raise OutputError(f"cannot write {o.junit}: {err.strerror or err}") from err
    if o.annotations == "github":
        # the tool's own workflow commands, escaped by their writer: printed as commands, not as data
        result.lines.extend(WorkflowCommand(line) for line in github_annotations(gate))
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary:
        try:
            with open(summary, "a", encoding="utf-8") as fh:
                fh.write(summary_markdown(gate) + "\n")
        except OSError as err:
            # shown even with -q, as the gate's own outputs are: the caller prints ``warnings``
            result.warnings.append(f"cannot append to GITHUB_STEP_SUMMARY ({summary}): {err.strerror or err}")
