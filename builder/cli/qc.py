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
(:meth:`builder.tasks.base.Reporter.progress`). The body is :func:`builder.tasks.qc.run_qc`. ``--backend ray`` runs the
variants on a Ray cluster (docs/scale.md); the report is the same bytes.
"""
from __future__ import annotations

from pathlib import Path

import click

from schemas.errors import QCGateFailed

from .common import OutputFolder, backend_option, echo, jobs_option, pass_app, variant_option


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
    from builder.tasks.qc import QCOptions, run_qc

    result = run_qc(QCOptions(dataset, config=config_path, out=out_dir, against=against, variants=variants,
                              jobs=jobs, backend=backend, address=address, junit=junit_path,
                              annotations=annotations), app.reporter())
    app.show(result)
    for warning in result.warnings:
        echo(f"warning: {warning}")
    if not result.passed:
        raise QCGateFailed(result.message)
