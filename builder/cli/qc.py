"""``builder qc``: the quality-control release gate.

Exit codes (scripts branch on them): 0 every gate passed, 1 at least one gate
failed (:class:`schemas.errors.QCGateFailed`), 2 the input or the config could
not be read (:class:`schemas.errors.GateInputError`). The error's class decides
the code (:class:`schemas.errors.GateStatus`).
"""
from __future__ import annotations

from pathlib import Path

import click

from schemas.errors import GateInputError, QCGateFailed, ToolkitError

from .common import jobs_option, pass_app, variant_option


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
@click.option("--out", "out_dir", type=click.Path(path_type=Path), default=None,
              help="Folder for qc_report.json and qc_report.md [default: DATASET].")
@click.option("--contamination-against", "against", type=click.Path(path_type=Path), default=None,
              help="A test set (dataset folder) whose passages must not occur in DATASET (13-gram overlap).")
@variant_option
@jobs_option
@pass_app
def qc(app, dataset, config_path, out_dir, against, variants, jobs):
    """Run the quality-control gate on DATASET (an assembled, variant or export folder).

    Checks every language variant (lexical-overlap t-tests, sliding-window
    baseline, bag-of-words probe, answer balance, length bias, duplicates,
    leakage, contamination, pivot consistency, empty fields, labels, script,
    license), writes qc_report.json and qc_report.md, and exits 0 when all
    gates pass, 1 when a gate fails, 2 when the input or config is unreadable.
    """
    from qc.config import load_config
    from qc.gate import run_gate
    from qc.report import write_reports

    config = _unreadable(lambda: load_config(config_path), config_path, "config", also=(OSError,))
    ds = _load(dataset, "dataset", variants, lazy=True)  # each variant is read by the worker that checks it
    ref = _load(against, "--contamination-against set") if against is not None else None
    app.info(f"qc: {len(ds.variants)} variant(s) of {ds.kind} data in {dataset}")
    # variants are read during the gate: a file that cannot be read still exits 2 (a bug in a check does not)
    report = _unreadable(lambda: run_gate(ds, config, against=ref, jobs=jobs), dataset,
                         "dataset", also=(OSError,))
    json_path, md_path = write_reports(report, out_dir or dataset)
    gated = sum(1 for r in report.results if r.gate and not r.skipped)
    if report.passed:
        click.echo(f"qc passed: {gated} gated checks on {len(report.variants)} variant(s); report {md_path}")
        return
    fails = report.failures
    names = ", ".join(f"{r.variant}:{r.check}" for r in fails[:5]) + (" ..." if len(fails) > 5 else "")
    raise QCGateFailed(f"qc gate failed: {len(fails)} of {gated} gated checks ({names}); see {md_path}")
