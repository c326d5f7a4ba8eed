"""``builder qc``: the quality-control release gate.

Exit codes (scripts branch on them): 0 every gate passed, 1 at least one gate
failed (:class:`schemas.errors.QCGateFailed`), 2 the input or the config could
not be read (:class:`schemas.errors.GateInputError`). The error's class decides
the code (:class:`schemas.errors.GateStatus`).

For CI: ``--junit FILE`` writes a JUnit XML file (one test case per variant x
check), ``--annotations github`` prints ``::error``/``::warning`` workflow
commands, and when ``GITHUB_STEP_SUMMARY`` names a file the Markdown verdict
is appended to it. Progress: a bar on a terminal, plain lines every 10% of
the variants or 10 s otherwise (CI logs), nothing with ``-q``
(:func:`builder.cli.common.stage_progress`). ``--backend ray`` runs the
variants on a Ray cluster (docs/scale.md); the report is the same bytes.
"""
from __future__ import annotations

import os
from pathlib import Path

import click

from schemas.errors import GateInputError, OutputError, QCGateFailed, ToolkitError

from .common import OutputFolder, backend_option, jobs_option, pass_app, stage_progress, variant_option


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


@click.command(name="qc")
@click.argument("dataset", type=click.Path(path_type=Path))
@click.option("--config", "config_path", type=click.Path(path_type=Path), default=None,
              help="YAML overriding the shipped thresholds (qc/defaults.yaml); unknown keys are an error.")
@click.option("--out", "out_dir", type=OutputFolder(inside=True), default=None,
              help="Folder for qc_report.json and qc_report.md, replaced together [default: DATASET]; "
                   "another non-empty folder must hold an earlier report.")
@click.option("--contamination-against", "against", type=click.Path(path_type=Path), default=None,
              help="A test set (dataset folder) whose passages must not occur in DATASET (13-gram overlap).")
@click.option("--junit", "junit_path", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="Also write a JUnit XML file: one test case per variant x check, failures with their numbers.")
@click.option("--annotations", type=click.Choice(["none", "github"]), default="none", show_default=True,
              help="Print the failing checks as GitHub Actions ::error/::warning lines on stdout.")
@variant_option
@jobs_option
@backend_option
@pass_app
def qc(app, dataset, config_path, out_dir, against, variants, jobs, backend, address, junit_path, annotations):
    """Run the quality-control gate on DATASET (an assembled, variant or export folder).

    Checks every language variant (lexical-overlap t-tests, sliding-window
    baseline, bag-of-words probe, answer balance, length bias, duplicates,
    leakage, contamination, pivot consistency, empty fields, labels, script,
    license), writes qc_report.json and qc_report.md, and exits 0 when all
    gates pass, 1 when a gate fails, 2 when the input or config is unreadable.
    """
    from qc.config import load_config
    from qc.gate import run_gate
    from qc.report import REPORT_FILES, write_reports
    from schemas.runtime.outputs import check_files_replaceable

    if out_dir is not None or dataset.is_dir():  # (a dataset that is no folder is a read error, below)
        try:  # exit 2 before the work: the reports could not be written
            check_files_replaceable(out_dir or dataset, REPORT_FILES, "qc", own=(dataset,))
        except OutputError as err:
            if out_dir is not None:
                raise
            raise OutputError(f"{err.message} (the reports go to DATASET; choose another folder with --out DIR)",
                              file=err.file) from err
    config = _unreadable(lambda: load_config(config_path), config_path, "config", also=(OSError,))
    ds = _load(dataset, "dataset", variants, lazy=True)  # each variant is read by the worker that checks it
    ref = _load(against, "--contamination-against set") if against is not None else None
    app.info(f"qc: {len(ds.variants)} variant(s) of {ds.kind} data in {dataset}")
    # variants are read during the gate: a file that cannot be read still exits 2 (a bug in a check does not)
    with stage_progress(app, "qc", len(ds.variants), "variants checked") as progress:
        report = _unreadable(lambda: run_gate(ds, config, against=ref, jobs=jobs, progress=progress,
                                              backend=backend, address=address), dataset, "dataset", also=(OSError,))
    json_path, md_path = write_reports(report, out_dir or dataset)
    _ci_outputs(report, junit_path, annotations)
    gated = sum(1 for r in report.results if r.gate and not r.skipped)
    if report.passed:
        click.echo(f"qc passed: {gated} gated checks on {len(report.variants)} variant(s); report {md_path}")
        return
    fails = report.failures
    names = ", ".join(f"{r.variant}:{r.check}" for r in fails[:5]) + (" ..." if len(fails) > 5 else "")
    raise QCGateFailed(f"qc gate failed: {len(fails)} of {gated} gated checks ({names}); see {md_path}")


def _ci_outputs(report, junit_path, annotations: str) -> None:
    """The JUnit file, the GitHub annotations and the step summary, as asked."""
    from qc.ci import github_annotations, to_junit
    from qc.report import summary_markdown
    from schemas.errors import OutputError
    from schemas.io import write_text_atomic

    if junit_path is not None:
        try:
            write_text_atomic(junit_path, to_junit(report))
        except OSError as err:
            raise OutputError(f"cannot write {junit_path}: {err.strerror or err}") from err
    if annotations == "github":
        for line in github_annotations(report):
            click.echo(line)
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary:
        try:
            with open(summary, "a", encoding="utf-8") as fh:
                fh.write(summary_markdown(report) + "\n")
        except OSError as err:
            click.echo(f"warning: cannot append to GITHUB_STEP_SUMMARY ({summary}): {err.strerror or err}", err=True)
