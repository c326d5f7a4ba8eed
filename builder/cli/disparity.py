"""``builder disparity RECORDS --out DIR``: PRR, CV-PRR and language potential (body: :mod:`builder.tasks.disparity`)."""
from __future__ import annotations

from pathlib import Path

import click

from .common import OutputFolder, pass_app


@click.command(name="disparity")
@click.argument("records", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--out", "out", required=True, type=OutputFolder(),
              help="Output folder (replaced as a whole): models.csv, languages.csv, records.csv, "
                   "potentials.csv, summary.json, summary.md, prr.png.")
@click.option("--drop-aggregates", is_flag=True,
              help="Drop rows whose language is an aggregate (avg, mean, all, overall, total, ...) "
                   "and count them, instead of refusing the file.")
@click.option("--task-mean", type=click.Choice(["paper", "all"]), default="paper", show_default=True,
              help="Language potential: average PP over every task but the reference one, as the "
                   "paper's code does (reproduces its Table 2), or over every task.")
@pass_app
def disparity(app, records, out, drop_aggregates, task_mean):
    """Quantify language disparities from evaluation RECORDS (CSV, TSV, JSON or JSONL).

    RECORDS may also be lm-evaluation-harness results_*.json files, one per
    model (several files are read as one set).

    Each record is a model, a language, a task (or a dataset and a metric) and a
    score. A linear mixed-effects model (Score ~ C(Language) + C(Task), random
    intercept per model, ML) gives each language-task pair its performance
    potential; PRR = score / potential; per model Mean-PRR, Std-PRR, CV-PRR;
    per language its potential beside the naive mean score.

    Exit codes: 0 written, 1 bad records or an analysis that cannot be done,
    2 usage error (including an --out folder that is not an earlier output).
    """
    from builder.tasks.disparity import DisparityOptions, run_disparity

    result = run_disparity(DisparityOptions(records, out, drop_aggregates=drop_aggregates, task_mean=task_mean),
                           app.reporter())
    app.show(result)
