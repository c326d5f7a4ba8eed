"""``builder release``: one recipe from sources to a gated, licensed, documented release."""
from __future__ import annotations

from pathlib import Path

import click

from schemas.errors import ExitStatus, ToolkitError, os_reason

from .common import AppContext, OutputFolder, backend_option, echo, echo_error, jobs_option, pass_app


@click.command()
@click.argument("recipe", type=click.Path(path_type=Path))
@click.option("--out", required=True, type=OutputFolder(inside=True),
              help="Release folder: stages/, export/, release.json, report.html (an existing one must be an "
                   "earlier release; its up-to-date stages are skipped).")
@click.option("--from", "from_stage", metavar="STAGE",
              help="Run this stage and every later one again even if up to date: a stage name such as qc, or "
                   "the part before a dash, such as extend: the first extend-* stage in plan order and every stage "
                   "after it.")
@click.option("--allow-failing-gate", is_flag=True,
              help="Export even when the qc gate fails; the card and the report then say so.")
@jobs_option
@backend_option
@pass_app
def release(app: AppContext, recipe: Path, out: Path, from_stage: str | None, allow_failing_gate: bool,
            jobs: int, backend: str, address: str | None):
    """Run the release RECIPE (YAML): build every variant, gate, audit, score, export, report.

    Each stage writes DIR/stages/<stage>/ with a stage.json (inputs' sha256, options, tool version);
    a stage whose record matches is skipped, so an interrupted release resumes where it stopped and
    ends with the same bytes. The qc gate stops the release before the export (exit 1) unless
    --allow-failing-gate. DIR/report.html is a self-contained page for reviewers. See docs/release.md.
    """
    from builder.release.pipeline import StageStopped, run_release
    from builder.release.plan import make_plan
    from builder.release.recipe import load_release_recipe

    spec = load_release_recipe(recipe)
    plan = make_plan(spec, out, jobs=jobs, quiet=app.quiet, allow_failing_gate=allow_failing_gate,
                     backend=backend, address=address)
    try:
        result = run_release(plan, from_stage=from_stage, allow_failing_gate=allow_failing_gate, say=app.info)
    except StageStopped as stop:
        err = stop.error
        if app.traceback or not isinstance(err, (ToolkitError, OSError)):
            raise err from stop
        if isinstance(err, ToolkitError):
            echo_error(str(err))
            code = int(err.exit_code)
        else:  # an I/O error no reader or writer turned into a ToolkitError: one line, as any command
            echo_error(f"{err.filename + ': ' if err.filename else ''}{os_reason(err)}")
            code = int(ExitStatus.USAGE)
        app.info(f"release: stopped at stage {stop.stage}; earlier stages are kept, run again to resume")
        click.get_current_context().exit(code)
    ran = sum(1 for _, status, _ in result.stages if status == "ran")
    skipped = len(result.stages) - ran
    report = out / "report.html"
    if result.stopped_at_gate:
        failing = result.summary["gate"]["failing"]
        names = ", ".join(f"{f['variant']}:{f['check']}" for f in failing[:5])
        echo(f"release {spec.name}: the qc gate failed ({len(failing)} check(s): {names}); stopped before "
             f"the export (--allow-failing-gate releases anyway); report: {report}", err=False)
        click.get_current_context().exit(1)
    gate = result.summary["gate"]["verdict"]
    allowed = " (failing gate allowed)" if result.summary["gate"]["allowed_failing"] else ""
    echo(f"release {spec.name}: {len(result.summary['variants'])} variant(s), gate {gate}{allowed}; "
         f"{ran} stage(s) ran, {skipped} up to date; export: {out / 'export'}; report: {report}", err=False)

