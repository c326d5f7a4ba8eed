"""Check ``overlap_ttest``: do lexical-overlap features separate correct from wrong options?

For each feature of :data:`qc.overlap.FEATURES`, Welch's t statistic
(:func:`scipy.stats.ttest_ind` with ``equal_var=False``) compares the values
of the correct options with those of the wrong options: Belebele's final
question set gave p = 0.81 on such features, MCTest p < 0.01 (Belebele §3.2).

The p-value is not Welch's t distribution (issue 28). The four options of a
question are not independent observations (they share a passage and a
question, and compete), and overlap features are skewed and discrete, so
Welch's tail probabilities were too small where the gate looks (Holm over a
whole release needs p near 1e-4): on clean data with the options fixed and
the answer key drawn at random, 9 times too many p < 1e-4 for ``token_share``.
The null the gate tests is exactly that random key: the correct position of
each question uniform, the options exchangeable. Under it the difference of
the means (correct minus wrong) is a sum over questions of independent terms
``4/3 (x_ic - mean_j x_ij)``, each uniform over the question's four options,
and :func:`randomization_pvalue` gives its two-sided tail probability:
importance sampling from the exponentially tilted key distribution at the
saddlepoint (unbiased at any tail depth, relative error a few percent with
the default 1000 draws), plus two standard errors, so the p-value is the
exact randomization p-value or slightly above it. A tail whose Chernoff
bound exp(K(t) - t d) is below :data:`CHERNOFF` (1e-8) is given as that
bound, an upper bound on the exact tail, without sampling. A first look at 200 plain
random keys settles the body of the distribution: when at least
:data:`BODY` (15%) of them reach the observed difference, their share plus
two standard errors is the p-value (at least 0.15, so no test is rejected
there) and nothing more is sampled, which keeps the check at a few tens of
milliseconds per clean variant of 900 questions. Questions without exactly
one correct option are left out of the p-value (not of the statistic).
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
    from scipy import stats
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


def _tilted(d: np.ndarray, t: float) -> tuple[float, float, float, np.ndarray]:
    """Cumulant generating function of the key sum at ``t``, its two derivatives, the tilted key probabilities."""
    a = t * d
    top = a.max(axis=1, keepdims=True)
    e = np.exp(a - top)
    lse = top + np.log(e.sum(axis=1, keepdims=True))
    q = e / e.sum(axis=1, keepdims=True)
    m1 = (q * d).sum(axis=1)
    m2 = (q * d * d).sum(axis=1) - m1 ** 2
    return float((lse[:, 0] - np.log(d.shape[1])).sum()), float(m1.sum()), float(m2.sum()), q


def _saddlepoint(d: np.ndarray, s: float) -> float:
    """The ``t`` with K'(t) = s (safeguarded Newton on the increasing K')."""
    var0 = float((d ** 2).mean(axis=1).sum())
    t, lo, hi = s / var0, 0.0, np.inf
    for _ in range(200):
        _, k1, k2, _ = _tilted(d, t)
        if k1 > s:
            hi = t
        else:
            lo = t
        new = t - (k1 - s) / k2 if k2 > 0 else np.inf
        if not lo < new < hi:
            new = (lo + hi) / 2 if np.isfinite(hi) else 2 * max(t, 1e-12) + 1.0
        if abs(new - t) <= 1e-10 * max(1.0, abs(t)):
            return new
        t = new
    return t


def _upper_tail(d: np.ndarray, s: float, rng: np.random.Generator, draws: int) -> tuple[float, float]:
    """P(sum_i d[i, key_i] >= s) for uniform keys, by importance sampling at the saddlepoint: (estimate, se)."""
    top = float(d.max(axis=1).sum())
    scale = float(np.abs(d).sum()) + 1.0
    if s > top + 1e-12 * scale:
        return 0.0, 0.0
    if s >= top - 1e-12 * scale:  # the largest possible sum: every question at its best option
        return float(np.prod((d >= d.max(axis=1, keepdims=True) - 1e-12 * scale).mean(axis=1))), 0.0
    t = _saddlepoint(d, s) if s > 0 else 0.0
    k, _, _, q = _tilted(d, t)
    chernoff = float(np.exp(k - t * s))  # P(sum >= s) <= exp(K(t) - t s): an upper bound, nothing sampled
    if chernoff < CHERNOFF:
        return chernoff, 0.0
    # inverse CDF: key_i > k where u_i exceeds the first k+1 tilted probabilities; the sum follows by steps
    # in double precision: discrete features put much of the tilted mass exactly on ``s``, and single
    # precision rounded those keys below it (the tail came out low by some 2.7 standard errors)
    u = rng.random((draws, len(d)))
    cum = np.cumsum(q, axis=1)[:, :-1]
    steps = np.diff(d, axis=1)
    total = d[:, 0].sum() + sum((u > cum[:, j]) @ steps[:, j] for j in range(d.shape[1] - 1))
    # likelihood ratio of the uniform keys to the tilted ones: exp(K(t) - t * total), at most 1 where counted
    w = np.where(total >= s - 1e-12 * scale, np.exp(np.minimum(k - t * total, 50.0)), 0.0)
    return float(w.mean()), float(w.std() / np.sqrt(draws))


#: A tail whose Chernoff bound is below this is given as the bound (conservative, and far below what Holm
#: asks of a release of thousands of variants); nothing is sampled.
CHERNOFF = 1e-8

#: A first look of ``draws // 5`` plain random keys: when at least this share of them reach the observed
#: difference, the p-value is that share plus two standard errors (at least 0.15: no test is rejected
#: there, and it errs on the large side) and the tail is not sampled.
BODY = 0.15


def randomization_pvalue(values: np.ndarray, correct: np.ndarray, *, seed: int = 0, draws: int = 1000) -> float:
    """Two-sided p-value of correct-minus-wrong mean difference when each question's answer key is uniform.

    ``values`` and ``correct`` are (questions, 4): one feature of each option
    and whether it is the correct one (exactly one per question). The p-value
    is the importance-sampled tail probability of the observed difference,
    both tails, plus two standard errors (so it errs on the large side).

    >>> x = np.array([[1.0, 0, 0, 0]] * 6)
    >>> randomization_pvalue(x, x == 1)  # only the key of the best options reaches it: (1/4)^6
    0.000244140625
    """
    values = np.asarray(values, float)
    d = 4 / 3 * (values - values.mean(axis=1, keepdims=True))
    s = abs(float(d[np.asarray(correct, bool)].sum()))
    if not len(d) or float((d ** 2).sum()) == 0.0:
        return 1.0
    rng = np.random.default_rng(seed)
    look = max(1, draws // 5)
    keys = rng.integers(d.shape[1], size=(look, len(d)))
    share = float(np.mean(np.abs(d[np.arange(len(d)), keys].sum(axis=1)) >= s - 1e-12 * (np.abs(d).sum() + 1)))
    if share >= BODY:  # far from any rejection: plain Monte Carlo is enough
        return float(min(1.0, share + 2 * np.sqrt(share * (1 - share) / look)))
    up, up_se = _upper_tail(d, s, rng, draws)
    low, low_se = _upper_tail(-d, s, rng, draws)
    return float(min(1.0, up + low + 2 * np.hypot(up_se, low_se)))


def feature_ttest(features: pd.DataFrame, feature: str, confidence: float = 0.95, *, seed: int = 0,
                  draws: int = 1000) -> dict:
    """Welch's t of one feature, correct vs wrong options, its randomization p-value, effect sizes (g, interval)."""
    from scipy import stats

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
    p = _key_pvalue(features, values, correct, seed, draws)
    undefined = np.isnan(g)
    return {"t": float(res.statistic), "p": p, "d": cohen_d(x, y), "g": None if undefined else g,
            "g_low": None if undefined else low, "g_high": None if undefined else high,
            "n_correct": len(x), "n_wrong": len(y), "mean_correct": float(x.mean()),
            "mean_wrong": float(y.mean()), "df": float(res.df)}


def _key_pvalue(features: pd.DataFrame, values: np.ndarray, correct: np.ndarray, seed: int,
                draws: int) -> float | None:
    """:func:`randomization_pvalue` over the questions that have exactly one correct option among four rows."""
    if len(values) % 4 or ("option" in features.columns
                           and not (features["option"].to_numpy().reshape(-1, 4) == np.arange(1, 5)).all()):
        return None  # not four options per question (as qc.overlap.option_features lays them out): not tested
    v, c = values.reshape(-1, 4), correct.reshape(-1, 4)
    keep = c.sum(axis=1) == 1
    return randomization_pvalue(v[keep], c[keep], seed=seed, draws=draws) if keep.any() else 1.0


def run(data: VariantData, params: dict) -> list[CheckResult]:
    frame = data.combined
    if len(frame) < 2:
        return [skipped(data.variant, NAME, f"needs at least 2 questions, found {len(frame)}")]
    feats = variant_features(data)
    out = []
    for feature in params["features"]:
        t = feature_ttest(feats, feature, data.confidence, seed=data.seed, draws=params.get("draws", 1000))
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
                           gate=False,
                           detail="mean share of question words in the passage (same for all options; not tested)",
                           extra={"n_questions": int(len(qp))}))
    return out
