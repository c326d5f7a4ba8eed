"""Check ``overlap_ttest``: do lexical-overlap features separate correct from wrong options?

For each feature of :data:`qc.overlap.FEATURES`, Welch's t-test
(:func:`scipy.stats.ttest_ind` with ``equal_var=False``) compares the values
of the correct options with those of the wrong options. A feature passes when
``p >= alpha`` (default 0.05): Belebele's final question set gave p = 0.81 on
such features, MCTest p < 0.01 (Belebele §3.2). The effect size is Cohen's
*d* with the pooled standard deviation and Hedges' small-sample correction *g*.

>>> round(hedges_g([1.0, 2.0, 3.0], [2.0, 3.0, 4.0]), 3)
-0.8
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


def variant_features(data: VariantData) -> pd.DataFrame:
    """Option features of all splits of the variant, computed once per variant."""
    if "features" not in data.memo:
        frame = data.combined
        data.memo["features"] = option_features(frame, language=flores_code(data.variant),
                                                cache=data.cache)
    return data.memo["features"]


def feature_ttest(features: pd.DataFrame, feature: str) -> dict:
    """Welch's t-test of one feature, correct vs wrong options, with effect sizes."""
    correct = features["correct"].to_numpy(bool)
    values = features[feature].to_numpy(float)
    x, y = values[correct], values[~correct]
    base = {"n_correct": len(x), "n_wrong": len(y), "mean_correct": float(x.mean()) if len(x) else None,
            "mean_wrong": float(y.mean()) if len(y) else None, "d": None, "g": None}
    if len(x) < 2 or len(y) < 2:
        return {**base, "t": None, "p": None}
    if np.ptp(x) == 0 and np.ptp(y) == 0:
        # constant in both groups: equal means separate nothing, different means separate perfectly
        return {**base, "t": None, "p": 1.0 if x[0] == y[0] else 0.0, "constant": True}
    with warnings.catch_warnings():  # near-constant features: scipy warns, the numbers stand
        warnings.simplefilter("ignore", RuntimeWarning)
        res = stats.ttest_ind(x, y, equal_var=False)
    return {"t": float(res.statistic), "p": float(res.pvalue), "d": cohen_d(x, y), "g": hedges_g(x, y),
            "n_correct": len(x), "n_wrong": len(y), "mean_correct": float(x.mean()),
            "mean_wrong": float(y.mean()), "df": float(res.df)}


def run(data: VariantData, params: dict) -> list[CheckResult]:
    frame = data.combined
    if len(frame) < 2:
        return [skipped(data.variant, NAME, f"needs at least 2 questions, found {len(frame)}")]
    feats = variant_features(data)
    tests = {f: feature_ttest(feats, f) for f in params["features"]}
    raw = [t["p"] for t in tests.values()]
    adjusted = list(raw)
    if params["correction"] != "none" and any(p is not None for p in raw):
        from statsmodels.stats.multitest import multipletests

        idx = [i for i, p in enumerate(raw) if p is not None]
        adj = multipletests([raw[i] for i in idx], method=params["correction"])[1]
        for i, a in zip(idx, adj):
            adjusted[i] = float(a)
    alpha = params["alpha"]
    out = []
    for (feature, t), p_adj in zip(tests.items(), adjusted):
        if t["p"] is None:
            passed, reason = True, None
            detail = "fewer than 2 correct or wrong options; not tested"
        elif t.get("constant"):
            passed = p_adj >= alpha
            reason = None if passed else "separates"
            detail = (f"constant within groups: correct {t['mean_correct']:.3f}, wrong {t['mean_wrong']:.3f}"
                      + ("" if passed else "; separates perfectly"))
        else:
            passed = p_adj >= alpha
            reason = None if passed else "separates"
            direction = "higher" if t["mean_correct"] > t["mean_wrong"] else "lower"
            detail = (f"correct options mean {t['mean_correct']:.3f} vs wrong {t['mean_wrong']:.3f} "
                      f"({direction}); Hedges' g = {t['g']:.3f}")
        extra = {"effect_size": t["g"], "cohen_d": t["d"], "n_correct": t["n_correct"], "n_wrong": t["n_wrong"],
                 "mean_correct": t["mean_correct"], "mean_wrong": t["mean_wrong"], "df": t.get("df"),
                 "correction": params["correction"], "p_adjusted": p_adj}
        out.append(CheckResult(data.variant, f"{NAME}:{feature}", passed, statistic=t["t"], p_value=t["p"],
                               value=p_adj, threshold=alpha, reason=reason, detail=detail, paper=PAPER,
                               extra=extra))
    qp = feats.loc[feats["option"] == 1, "question_passage_share"]
    out.append(CheckResult(data.variant, f"{NAME}:question_passage_share", True, value=float(qp.mean()),
                           gate=False, paper=None,
                           detail="mean share of question words in the passage (same for all options; not tested)",
                           extra={"n_questions": int(len(qp))}))
    return out
