"""The body of ``builder disparity``: PRR, CV-PRR and language potential from evaluation records.

A linear mixed-effects model (Score ~ C(Language) + C(Task), random intercept
per model, ML) gives each language-task pair its performance potential; PRR =
score / potential; per model Mean-PRR, Std-PRR, CV-PRR
(:mod:`builder.evaluation.disparity`). Aggregate rows (avg, mean, all, ...)
are refused, or with ``drop_aggregates`` dropped and counted: the result's
``drops`` (source: the records as summary.json names them, reason
``aggregate:NAME``), as summary.json ``dropped.by_reason`` holds them.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from schemas.ledger import DropRow

from .base import QUIET, Reporter, TaskResult


@dataclass(frozen=True)
class DisparityOptions:
    """``builder disparity``: ``records`` files (CSV, TSV, JSON, JSONL or lm-eval results), ``out`` folder;
    ``task_mean``: ``paper`` (every task but the reference, as the paper's code) or ``all``."""

    records: tuple[Path, ...]
    out: Path
    drop_aggregates: bool = False
    task_mean: str = "paper"


@dataclass
class DisparityResult(TaskResult):
    """``analysis``: the :class:`builder.evaluation.disparity` result (records, models, languages, fit);
    ``dropped``: reason (``aggregate:NAME``) -> rows dropped."""

    analysis: Any = None
    dropped: dict | None = None


def run_disparity(options: DisparityOptions, report: Reporter = QUIET) -> DisparityResult:
    """Fit the mixed model and write models/languages/records/potentials.csv, summary.json/.md, prr.png."""
    from builder.evaluation.disparity import analyse
    from builder.evaluation.disparity_io import read_many
    from builder.evaluation.disparity_report import check_out_dir, write_outputs

    o = options
    check_out_dir(o.out)
    rs = read_many(o.records, drop_aggregates=o.drop_aggregates)
    if rs.dropped:
        report.info(f"dropped {sum(rs.dropped.values())} aggregate rows: " +
                    ", ".join(f"{k} x{v}" for k, v in sorted(rs.dropped.items())))
    report.info(f"fitting the mixed model on {len(rs.table)} records")
    result = analyse(rs.table, task_mean=o.task_mean)
    write_outputs(result, o.out, rs.source, rs.dropped)
    t = result.records
    lines = [f"{len(t)} records: {t['model'].nunique()} models, {t['language'].nunique()} languages, "
             f"{t['task'].nunique()} tasks; {sum(rs.dropped.values())} aggregate rows dropped; "
             f"optimiser {result.fit.optimizer}"]
    width = max(len(m) for m in result.models["model"])
    lines.append(f"{'model':<{width}}  mean_prr  std_prr  cv_prr")
    for m in result.models.sort_values(["mean_prr", "model"], ascending=[False, True]).itertuples():
        lines.append(f"{m.model:<{width}}  {m.mean_prr:8.3f}  {m.std_prr:7.3f}  {m.cv_prr:6.3f}")
    lines.append(f"wrote {o.out}")
    source = Path(rs.source).name  # as summary.json names it
    drops = [DropRow(source, reason, int(n)) for reason, n in sorted(rs.dropped.items()) if n]
    return DisparityResult(lines=lines, drops=drops, analysis=result, dropped=dict(rs.dropped))
