"""Language disparities: performance potential, PRR, CV-PRR and language potential.

This follows Hu, Vulić and Korhonen, *Quantifying Language Disparities in
Multilingual Large Language Models* (``shared/seeds/001``, Section 3 and its
Example 1). Every record is a score ``s`` of model ``m`` on language ``l`` and
task ``t`` (a dataset-metric pair). The scores are fitted, by maximum likelihood,
with the linear mixed-effects model (Eq. 1)::

    s[l,t,m] = mu + alpha[l] + beta[t] + u[m] + eps,   u[m] ~ N(0, sigma_u^2)

in statsmodels as ``smf.mixedlm("Score ~ C(Language) + C(Task)", groups=Model)
.fit(reml=False)``. Then

- performance potential ``PP[l,t] = mu + alpha[l] + beta[t]`` (Eq. 2), the
  fixed-effect prediction, i.e. the expected score of a typical model;
- ``PRR[l,t,m] = s[l,t,m] / PP[l,t]`` (Eq. 4), per record;
- Mean-PRR, Std-PRR (sample standard deviation, ddof 1) and
  ``CV-PRR = Std-PRR / Mean-PRR`` (Eq. 5) per model;
- language potential ``LP[l] = mu + alpha[l] + mean_t(beta[t])`` (Eq. 3).

Which mean of the task effects? The paper's code averages the coefficients
statsmodels reports, which leave out the reference task (the first in sorted
order, whose effect is 0 by treatment coding); its published Table 2 matches
that to 0.005, and Eq. 3 read literally (all tasks, the reference's 0 included)
is off by a constant 1.63 on the MEGA records. ``task_mean="paper"`` (default)
reproduces the published numbers; ``task_mean="all"`` averages over every task.
The two differ by the same constant for every language, so ranks agree.

Optimiser: the paper fits with L-BFGS. In statsmodels 0.14-0.15, L-BFGS can stop
with the random-intercept variance at 0 and broken fixed effects (an infinite
log-likelihood; statsmodels issue #10239) - it does so on the MEGA records. So
both L-BFGS and BFGS are run and the fit with the higher finite log-likelihood is
kept (L-BFGS on a tie). If the variance really is at the boundary (0), the ML
fixed effects are the ordinary least-squares ones, and those are used.
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from schemas.errors import ToolkitError

FORMULA = "Score ~ C(Language) + C(Task)"
OPTIMIZERS = ("lbfgs", "bfgs")
TASK_MEANS = ("paper", "all")
#: sigma_u^2 below this fraction of the residual variance counts as the boundary 0.
BOUNDARY = 1e-8
#: log-likelihoods closer than this count as a tie, which the paper's L-BFGS wins.
TIE = 1e-4


class DisparityError(ToolkitError):
    """The records cannot be analysed (too few models, a non-positive potential, a failed fit)."""


@dataclass(frozen=True)
class FitInfo:
    """What the mixed-model fit did, for the report."""

    optimizer: str
    log_likelihood: float
    converged: bool
    random_intercept_var: float
    residual_var: float
    boundary: bool
    reference_language: str
    reference_task: str
    n_fixed_effects: int
    tried: dict = field(default_factory=dict)
    warnings: tuple = ()


@dataclass
class DisparityResult:
    """Everything :func:`analyse` computes.

    Attributes
    ----------
    records : DataFrame
        The input records plus ``potential`` (PP of the record's language-task
        pair) and ``prr``, in input order.
    models : DataFrame
        ``model, mean_prr, std_prr, cv_prr, n_records``, sorted by model.
    languages : DataFrame
        ``language, potential, rank_potential, mean_score, rank_mean_score,
        n_records, n_tasks``, best potential first (rank 1 = highest).
    potentials : DataFrame
        ``language, task, potential, n_records`` for each observed pair.
    fit : FitInfo
    task_mean : str
    grid : DataFrame
        ``language, task, potential`` for every language x task combination.
    """

    records: pd.DataFrame
    models: pd.DataFrame
    languages: pd.DataFrame
    potentials: pd.DataFrame
    fit: FitInfo
    task_mean: str = "paper"
    grid: pd.DataFrame | None = None


def _design(table: pd.DataFrame, languages, tasks) -> pd.DataFrame:
    return pd.DataFrame({
        "Score": table["score"].astype(float).to_numpy() if "score" in table else np.nan,
        "Language": pd.Categorical(table["language"], categories=languages),
        "Task": pd.Categorical(table["task"], categories=tasks),
    })


def fit_potentials(table: pd.DataFrame) -> tuple[pd.DataFrame, FitInfo]:
    """Fit Eq. 1 and return the performance potential of every language-task pair.

    Parameters
    ----------
    table : DataFrame
        Columns ``model, language, task, score``.

    Returns
    -------
    grid : DataFrame
        ``language, task, potential`` for every language x task combination
        (the additive model predicts unobserved pairs too), languages and tasks
        in sorted order.
    fit : FitInfo

    Examples
    --------
    >>> t = pd.DataFrame({"model": list("aabbcc") * 2, "language": ["en", "sw"] * 6,
    ...                   "task": ["x"] * 6 + ["y"] * 6,
    ...                   "score": [80, 60, 70, 52, 90, 71, 60, 41, 50, 30, 70, 49]})
    >>> grid, fit = fit_potentials(t)
    >>> round(float(grid.potential.iloc[0]), 2), fit.reference_task  # balanced: 70 + 70.5 - 60.25
    (80.25, 'x')
    """
    import statsmodels.formula.api as smf

    languages, tasks = sorted(set(table["language"])), sorted(set(table["task"]))
    models = sorted(set(table["model"]))
    if len(models) < 2:
        raise DisparityError(f"the random intercept per model needs at least 2 models, found {len(models)}")
    data = _design(table, languages, tasks)
    n_fe = 1 + (len(languages) - 1) + (len(tasks) - 1)
    if len(data) <= n_fe + 1:
        raise DisparityError(f"too few records to fit: {len(data)} records for {n_fe} fixed effects "
                             f"plus 2 variances")
    groups = table["model"].astype(str).to_numpy()
    model = smf.mixedlm(FORMULA, data, groups=groups)
    fits, tried, logs = {}, {}, {}
    for method in OPTIMIZERS:
        with warnings.catch_warnings(record=True) as log:
            warnings.simplefilter("always")
            try:
                result = model.fit(method=method, reml=False)
            except (np.linalg.LinAlgError, ValueError, ZeroDivisionError) as err:
                tried[method] = f"failed: {type(err).__name__}"
                continue
        llf = float(result.llf)
        tried[method] = f"{llf:.2f}" if math.isfinite(llf) else f"non-finite log-likelihood ({llf})"
        if math.isfinite(llf):
            fits[method] = result
            logs[method] = sorted({f"{w.category.__name__}: {w.message}" for w in log})
    if not fits:
        raise DisparityError("the mixed model could not be fitted: " +
                             "; ".join(f"{k} {v}" for k, v in tried.items()))
    top = max(float(r.llf) for r in fits.values())
    best = next(m for m in OPTIMIZERS if m in fits and fits[m].llf >= top - TIE)
    result = fits[best]
    sigma_u2, scale = float(result.cov_re.iloc[0, 0]), float(result.scale)
    boundary = sigma_u2 <= BOUNDARY * scale
    grid = pd.DataFrame([(l, t) for l in languages for t in tasks], columns=["language", "task"])
    predictor = smf.ols(FORMULA, data).fit() if boundary else result
    grid["potential"] = np.asarray(predictor.predict(_design(grid, languages, tasks)), dtype=float)
    info = FitInfo(
        optimizer=best, log_likelihood=float(result.llf), converged=bool(result.converged),
        random_intercept_var=sigma_u2, residual_var=scale, boundary=boundary,
        reference_language=languages[0], reference_task=tasks[0], n_fixed_effects=n_fe,
        tried=tried, warnings=tuple(logs[best]),
    )
    return grid, info


def model_summary(records: pd.DataFrame) -> pd.DataFrame:
    """Mean-PRR, Std-PRR (ddof 1) and CV-PRR per model (Eq. 5).

    >>> r = pd.DataFrame({"model": ["a", "a", "b", "b"], "prr": [1.0, 1.2, 0.8, 0.8]})
    >>> model_summary(r).round(3).values.tolist()
    [['a', 1.1, 0.141, 0.129, 2], ['b', 0.8, 0.0, 0.0, 2]]
    """
    g = records.groupby("model", sort=True)["prr"]
    out = pd.DataFrame({"mean_prr": g.mean(), "std_prr": g.std(ddof=1), "n_records": g.size()})
    out["cv_prr"] = out["std_prr"] / out["mean_prr"]
    out = out.reset_index()[["model", "mean_prr", "std_prr", "cv_prr", "n_records"]]
    return out.sort_values("model", kind="stable").reset_index(drop=True)


def language_potentials(grid: pd.DataFrame, records: pd.DataFrame, task_mean: str = "paper") -> pd.DataFrame:
    """Language potential (Eq. 3) beside the naive mean score, each with its rank.

    ``task_mean="paper"`` averages PP over every task but the reference (first
    sorted) one, which is what the paper's code computes; ``"all"`` averages
    over every task. With a single task both are PP of that task.

    >>> grid = pd.DataFrame({"language": ["en", "en", "sw", "sw"], "task": ["x", "y"] * 2,
    ...                      "potential": [80.0, 60.0, 70.0, 50.0]})
    >>> rec = pd.DataFrame({"language": ["en", "sw"], "task": ["x", "y"], "score": [81.0, 49.0]})
    >>> language_potentials(grid, rec, "all")[["language", "potential", "rank_mean_score"]].values.tolist()
    [['en', 70.0, 1], ['sw', 60.0, 2]]
    """
    if task_mean not in TASK_MEANS:
        raise ValueError(f"task_mean must be one of {TASK_MEANS}, found {task_mean!r}")
    tasks = sorted(set(grid["task"]))
    use = grid if task_mean == "all" or len(tasks) == 1 else grid[grid["task"] != tasks[0]]
    pot = use.groupby("language", sort=True)["potential"].mean()
    by_lang = records.groupby("language", sort=True)
    out = pd.DataFrame({"potential": pot, "mean_score": by_lang["score"].mean(),
                        "n_records": by_lang.size(), "n_tasks": by_lang["task"].nunique()})
    out = out.dropna(subset=["mean_score"]).reset_index(names="language")
    out["rank_potential"] = out["potential"].rank(ascending=False, method="min").astype(int)
    out["rank_mean_score"] = out["mean_score"].rank(ascending=False, method="min").astype(int)
    cols = ["language", "potential", "rank_potential", "mean_score", "rank_mean_score", "n_records", "n_tasks"]
    return out.sort_values(["rank_potential", "language"], kind="stable")[cols].reset_index(drop=True)


def analyse(table: pd.DataFrame, *, task_mean: str = "paper") -> DisparityResult:
    """Run the whole analysis on a record table (see :func:`read_records`).

    Parameters
    ----------
    table : DataFrame
        Columns ``model, language, task, score`` (others are carried along).
    task_mean : {"paper", "all"}, default "paper"
        How the language potential averages task effects (module docstring).

    Raises
    ------
    DisparityError
        Fewer than 2 models, too few records, a failed fit, or a language-task
        pair whose potential is not positive (PRR is then undefined).

    Examples
    --------
    >>> t = pd.DataFrame({"model": list("aabbcc") * 2, "language": ["en", "sw"] * 6,
    ...                   "task": ["x"] * 6 + ["y"] * 6,
    ...                   "score": [80, 60, 70, 52, 90, 71, 60, 41, 50, 30, 70, 49]})
    >>> res = analyse(t)
    >>> round(float(res.models.set_index("model").loc["c", "mean_prr"]), 3)
    1.17
    """
    if task_mean not in TASK_MEANS:
        raise ValueError(f"task_mean must be one of {TASK_MEANS}, found {task_mean!r}")
    grid, info = fit_potentials(table)
    records = table.reset_index(drop=True).copy()
    pp = grid.set_index(["language", "task"])["potential"]
    records["potential"] = pp.reindex(pd.MultiIndex.from_frame(records[["language", "task"]])).to_numpy()
    bad = records[records["potential"] <= 0]
    if len(bad):
        first = bad.iloc[0]
        raise DisparityError(f"the performance potential of language {first.language!r} on task "
                             f"{first.task!r} is {first.potential:.4g}, not positive, so PRR is undefined; "
                             f"PRR needs higher-is-better scores on a positive scale")
    records["prr"] = records["score"].astype(float) / records["potential"]
    counts = records.groupby(["language", "task"]).size().rename("n_records")
    observed = grid.merge(counts.reset_index(), on=["language", "task"], how="inner")
    return DisparityResult(records=records, models=model_summary(records),
                           languages=language_potentials(grid, records, task_mean),
                           potentials=observed.reset_index(drop=True), fit=info, task_mean=task_mean,
                           grid=grid)
