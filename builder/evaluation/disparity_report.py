"""Write the outputs of the disparity analysis: CSVs, JSON, Markdown and a PNG.

Files written into the output folder (replaced as a whole, atomically):

=================  ==============================================================
``models.csv``     ``model, mean_prr, std_prr, cv_prr``
``languages.csv``  ``language, potential, rank_potential, mean_score, rank_mean_score``
``records.csv``    every record with its ``potential`` and ``prr``
``potentials.csv`` ``language, task, potential, n_records`` per observed pair
``summary.json``   counts, dropped rows, the fit (optimiser, log-likelihood, variances)
``summary.md``     the same for people, with both tables
``prr.png``        Mean-PRR against CV-PRR
=================  ==============================================================
"""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pandas as pd

from schemas.escape import md_inline
from schemas.io import check_replaceable, csv_line, dumps_json, staging_dir, write_bytes_atomic, write_text_atomic

from .disparity import DisparityResult
from .disparity_plot import prr_plot_png

MARKER = "disparity"
FLOAT_FORMAT = "%.6f"
TASK_MEAN_TEXT = {
    "paper": "mean of PP over every task but the reference task `{ref}` (the paper's code; "
             "reproduces its Table 2)",
    "all": "mean of PP over every task (Eq. 3 read literally)",
}


def summary_dict(result: DisparityResult, source: str, dropped: Counter) -> dict:
    """The machine-readable summary written to ``summary.json``."""
    fit = result.fit
    rec = result.records
    return {
        "analysis": MARKER,
        "source": Path(source).name,
        "counts": {"records": len(rec), "models": rec["model"].nunique(),
                   "languages": rec["language"].nunique(), "tasks": rec["task"].nunique()},
        "dropped": {"total": sum(dropped.values()), "by_reason": dict(sorted(dropped.items()))},
        "formula": "Score ~ C(Language) + C(Task), random intercept per model, ML (reml=False)",
        "fit": {"optimizer": fit.optimizer, "tried": dict(sorted(fit.tried.items())),
                "log_likelihood": round(fit.log_likelihood, 6), "converged": fit.converged,
                "random_intercept_var": round(fit.random_intercept_var, 6),
                "residual_var": round(fit.residual_var, 6), "boundary": fit.boundary,
                "reference_language": fit.reference_language, "reference_task": fit.reference_task,
                "n_fixed_effects": fit.n_fixed_effects, "warnings": list(fit.warnings)},
        "task_mean": result.task_mean,
        "score_range": [float(rec["score"].min()), float(rec["score"].max())],
    }


def _table(header: list[str], rows: list[list[str]], align: str) -> list[str]:
    sep = ["---:" if a == "r" else "---" for a in align]
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join(sep) + " |"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return lines


def _num(x: float, digits: int) -> str:
    return "n/a" if pd.isna(x) else f"{x:.{digits}f}"


def render_markdown(result: DisparityResult, source: str, dropped: Counter) -> str:
    """Markdown summary: method, fit, models by Mean-PRR, languages by potential.

    >>> from builder.evaluation.disparity import analyse
    >>> t = pd.DataFrame({"model": list("aabbcc") * 2, "language": ["en", "sw"] * 6,
    ...                   "task": ["x"] * 6 + ["y"] * 6,
    ...                   "score": [80, 60, 70, 52, 90, 71, 60, 41, 50, 30, 70, 49]})
    >>> render_markdown(analyse(t), "r.csv", Counter()).splitlines()[0]
    '# Language disparity: r.csv'
    """
    s = summary_dict(result, source, dropped)
    fit, c = result.fit, s["counts"]
    out = [f"# Language disparity: {md_inline(s['source'])}", ""]
    drop = "none" if not dropped else ", ".join(f"{k} x{v}" for k, v in sorted(dropped.items()))
    out += [f"- Records: {c['records']} ({c['models']} models, {c['languages']} languages, "
            f"{c['tasks']} tasks); scores from {_num(s['score_range'][0], 2)} to {_num(s['score_range'][1], 2)}.",
            f"- Rows dropped: {sum(dropped.values())} ({drop}).",
            f"- Model: `{s['formula']}`.",
            f"- Fit: optimiser {fit.optimizer} (tried: " +
            "; ".join(f"{k} {v}" for k, v in sorted(fit.tried.items())) +
            f"); log-likelihood {fit.log_likelihood:.2f}; random-intercept variance "
            f"{fit.random_intercept_var:.3f}; residual variance {fit.residual_var:.3f}" +
            ("; the random-intercept variance is at 0, so the fixed effects are the OLS ones" if fit.boundary else "")
            + ".",
            "- Performance potential PP = fixed-effect prediction for a language-task pair; "
            "PRR = score / PP; CV-PRR = Std-PRR / Mean-PRR (ddof 1).",
            "- Language potential: " + TASK_MEAN_TEXT[result.task_mean].format(ref=fit.reference_task) + ".",
            ""]
    models = result.models.sort_values(["mean_prr", "model"], ascending=[False, True], kind="stable")
    out += ["## Models (by Mean-PRR)", "", "![Mean-PRR against CV-PRR](prr.png)", ""]
    out += _table(["Model", "Records", "Mean-PRR", "Std-PRR", "CV-PRR"],
                  [[md_inline(m.model), str(m.n_records), _num(m.mean_prr, 3), _num(m.std_prr, 3), _num(m.cv_prr, 3)]
                   for m in models.itertuples(index=False)], "lrrrr")
    langs = result.languages
    out += ["", "## Languages (by language potential)", ""]
    out += _table(["Rank (potential)", "Language", "Potential", "Rank (mean score)", "Mean score",
                   "Records", "Tasks"],
                  [[str(r.rank_potential), md_inline(r.language), _num(r.potential, 2), str(r.rank_mean_score),
                    _num(r.mean_score, 2), str(r.n_records), str(r.n_tasks)]
                   for r in langs.itertuples(index=False)], "rlrrrrr")
    shift = (langs["rank_mean_score"] - langs["rank_potential"])
    top = langs.assign(shift=shift, size=shift.abs()).sort_values(["size", "language"],
                                                                 ascending=[False, True], kind="stable")
    top = top[top["size"] > 0].head(5)
    if len(top):
        out += ["", "## Languages the mean score ranks most differently", ""]
        out += [f"- {md_inline(r.language)}: rank {r.rank_potential} by potential, {r.rank_mean_score} by mean score"
                for r in top.itertuples(index=False)]
    if fit.warnings:
        out += ["", "## Fit warnings", ""] + [f"- {md_inline(w)}" for w in fit.warnings]
    return "\n".join(out) + "\n"


def _csv(df: pd.DataFrame) -> str:
    """``df`` as CSV, floats as :data:`FLOAT_FORMAT`, a missing value as an empty field, by the one row
    writer (pandas' ``to_csv`` leaves a bare ``\\r`` in a language name unquoted)."""
    floats = [pd.api.types.is_float_dtype(t) for t in df.dtypes]  # as to_csv, float_format for float columns

    def cell(x, is_float: bool):
        if pd.isna(x):  # NaN, None, pd.NA and NaT, as to_csv writes them
            return ""
        return FLOAT_FORMAT % x if is_float else x
    return csv_line(df.columns) + "".join(csv_line([cell(x, f) for x, f in zip(row, floats)])
                                          for row in df.itertuples(index=False, name=None))


def check_out_dir(out: Path) -> None:
    """Refuse to replace a non-empty folder that is not an earlier disparity output."""
    check_replaceable(out, _is_earlier_output, "disparity")


def _is_earlier_output(out: Path) -> bool:
    marker = out / "summary.json"
    try:
        return json.loads(marker.read_text(encoding="utf-8")).get("analysis") == MARKER
    except (OSError, ValueError, AttributeError):
        return False


def write_outputs(result: DisparityResult, out: Path, source: str, dropped: Counter) -> list[Path]:
    """Write every output file into ``out`` (replaced atomically); return their paths."""
    out = Path(out)
    check_out_dir(out)
    rec_cols = [c for c in ("row", "model", "language", "task", "dataset", "metric", "score", "potential", "prr")
                if c in result.records]
    files = {
        "models.csv": _csv(result.models[["model", "mean_prr", "std_prr", "cv_prr"]]),
        "languages.csv": _csv(result.languages[["language", "potential", "rank_potential", "mean_score",
                                                "rank_mean_score"]]),
        "records.csv": _csv(result.records[rec_cols]),
        "potentials.csv": _csv(result.potentials[["language", "task", "potential", "n_records"]]),
        "summary.json": dumps_json(summary_dict(result, source, dropped)),
        "summary.md": render_markdown(result, source, dropped),
    }
    with staging_dir(out) as stage:
        for name, text in files.items():
            write_text_atomic(stage / name, text)
        write_bytes_atomic(stage / "prr.png", prr_plot_png(result.models))
    return [out / name for name in sorted([*files, "prr.png"])]
