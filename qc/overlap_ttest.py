"""Check ``overlap_ttest``: do lexical-overlap features separate correct from wrong options?

For each feature of :data:`qc.overlap.FEATURES`, Welch's t-test
(:func:`scipy.stats.ttest_ind` with ``equal_var=False``) compares the values
of the correct options with those of the wrong options: Belebele's final
question set gave p = 0.81 on such features, MCTest p < 0.01 (Belebele §3.2).
The effect size is Hedges' *g* (Cohen's *d* with the pooled standard deviation
and the small-sample correction), with a normal-approximation confidence
interval from the variance of :func:`statsmodels.stats.meta_analysis.effectsize_smd`
(Borenstein et al. 2009).

Each feature is one hypothesis test of the run (:mod:`qc.decision`): it fails
as ``separates`` when its p-value, adjusted over every gated test of every
variant, is below ``decision.alpha`` *and* ``|g|`` exceeds ``min_g``.

>>> round(hedges_g([1.0, 2.0, 3.0], [2.0, 3.0, 4.0]), 3)
-0.8
>>> [round(x, 3) for x in hedges_g_ci([1.0, 2.0, 3.0, 4.0], [2.0, 3.0, 4.0, 5.0])]
[-0.674, -2.135, 0.788]
"""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from scipy import stats

from schemas.codes import flores_code

from .overlap import option_features
from .result import CheckResult, VariantData, skipped

NAME = "overlap_ttest"
KINDS = ("mc",)
PAPER = "Belebele final set p = 0.81; MCTest p < 0.01 (§3.2)"


def cohen_d(x, y) -> float:
    """Cohen's d of ``x`` minus ``y`` with the pooled standard deviation (nan if it is 0)."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    n1, n2 = len(x), len(y)
    if n1 < 2 or n2 < 2:
        return float("nan")
    pooled = np.sqrt(((n1 - 1) * x.var(ddof=1) + (n2 - 1) * y.var(ddof=1)) / (n1 + n2 - 2))
    return float((x.mean() - y.mean()) / pooled) if pooled > 0 else float("nan")


def hedges_g(x, y) -> float:
    """Cohen's d times Hedges' correction ``1 - 3 / (4 (n1 + n2) - 9)``."""
    n = len(x) + len(y)
    return cohen_d(x, y) * (1 - 3 / (4 * n - 9))


def hedges_g_ci(x, y, confidence: float = 0.95) -> tuple[float, float, float]:
    """Hedges' g of ``x`` minus ``y`` with its normal-approximation interval at ``confidence``.

    The variance is statsmodels' ``effectsize_smd`` (whose bias-corrected
    estimate is :func:`hedges_g`); nan where g is undefined.
    """
    from statsmodels.stats.meta_analysis import effectsize_smd

    x, y = np.asarray(x, float), np.asarray(y, float)
    g = hedges_g(x, y)
    if np.isnan(g):
        return g, float("nan"), float("nan")
    _, var = effectsize_smd(x.mean(), x.std(ddof=1), len(x), y.mean(), y.std(ddof=1), len(y))
    half = float(stats.norm.ppf(0.5 + confidence / 2) * np.sqrt(var))
    return g, g - half, g + half


def variant_features(data: VariantData) -> pd.DataFrame:
    """Option features of all splits of the variant, computed once per variant."""
    if "features" not in data.memo:
        frame = data.combined
        data.memo["features"] = option_features(frame, language=flores_code(data.variant),
                                                cache=data.cache)
    return data.memo["features"]


def feature_ttest(features: pd.DataFrame, feature: str, confidence: float = 0.95) -> dict:
    """Welch's t-test of one feature, correct vs wrong options, with effect sizes (g with its interval)."""
    correct = features["correct"].to_numpy(bool)
    values = features[feature].to_numpy(float)
    x, y = values[correct], values[~correct]
    base = {"n_correct": len(x), "n_wrong": len(y), "mean_correct": float(x.mean()) if len(x) else None,
            "mean_wrong": float(y.mean()) if len(y) else None, "d": None, "g": None, "g_low": None,
            "g_high": None}
    if len(x) < 2 or len(y) < 2:
        return {**base, "t": None, "p": None}
    if np.ptp(x) == 0 and np.ptp(y) == 0:
        # constant in both groups: equal means separate nothing, different means separate perfectly
        return {**base, "t": None, "p": 1.0 if x[0] == y[0] else 0.0, "constant": True}
    with warnings.catch_warnings():  # near-constant features: scipy warns, the numbers stand
        warnings.simplefilter("ignore", RuntimeWarning)
        res = stats.ttest_ind(x, y, equal_var=False)
    g, low, high = hedges_g_ci(x, y, confidence)
    undefined = np.isnan(g)
    return {"t": float(res.statistic), "p": float(res.pvalue), "d": cohen_d(x, y), "g": None if undefined else g,
            "g_low": None if undefined else low, "g_high": None if undefined else high,
            "n_correct": len(x), "n_wrong": len(y), "mean_correct": float(x.mean()),
            "mean_wrong": float(y.mean()), "df": float(res.df)}


def run(data: VariantData, params: dict) -> list[CheckResult]:
    frame = data.combined
    if len(frame) < 2:
        return [skipped(data.variant, NAME, f"needs at least 2 questions, found {len(frame)}")]
    feats = variant_features(data)
    out = []
    for feature in params["features"]:
        t = feature_ttest(feats, feature, data.confidence)
        if t["p"] is None:
            detail = "fewer than 2 correct or wrong options; not tested"
        elif t.get("constant"):
            detail = (f"constant within groups: correct {t['mean_correct']:.3f}, wrong {t['mean_wrong']:.3f}"
                      + ("" if t["p"] else "; separates perfectly"))
        else:
            direction = "higher" if t["mean_correct"] > t["mean_wrong"] else "lower"
            detail = (f"correct options mean {t['mean_correct']:.3f} vs wrong {t['mean_wrong']:.3f} "
                      f"({direction}); Hedges' g = {t['g']:.3f}")
        extra = {"effect_size": t["g"], "cohen_d": t["d"], "n_correct": t["n_correct"], "n_wrong": t["n_wrong"],
                 "mean_correct": t["mean_correct"], "mean_wrong": t["mean_wrong"], "df": t.get("df")}
        ci = None if t["g_low"] is None else (t["g_low"], t["g_high"])
        out.append(CheckResult(data.variant, f"{NAME}:{feature}", True, statistic=t["t"], p_value=t["p"],
                               value=t["g"], threshold=params["min_g"], detail=detail, paper=PAPER, extra=extra,
                               fails_as="separates", effect=t["g"], effect_ci=ci, effect_name="Hedges' g",
                               floor=params["min_g"]))
    qp = feats.loc[feats["option"] == 1, "question_passage_share"]
    out.append(CheckResult(data.variant, f"{NAME}:question_passage_share", True, value=float(qp.mean()),
                           gate=False, paper=None,
                           detail="mean share of question words in the passage (same for all options; not tested)",
                           extra={"n_questions": int(len(qp))}))
    return out
