"""Check ``sliding_window``: does the MCTest sliding-window baseline beat chance?

The baseline of Richardson et al. (2013) picks the option with the best
sliding-window score (:func:`qc.overlap.sliding_window_scores`); ties are
broken at random with the run's seed. Its accuracy is tested against chance
(0.25) with a one-sided :func:`scipy.stats.binomtest`, with its
Clopper-Pearson interval. It is one hypothesis test of the run
(:mod:`qc.decision`): the variant fails as ``above_chance`` when the adjusted
p-value is below ``decision.alpha`` *and* the accuracy exceeds chance +
``margin``, i.e. when word matching alone answers the questions.

>>> import numpy as np
>>> pick_with_ties(np.array([[1.0, 3.0, 3.0, 0.0], [0.0, 0.0, 5.0, 1.0]]), np.random.default_rng(2)).tolist()
[2, 2]
"""
from __future__ import annotations

import numpy as np

from .overlap_ttest import variant_features
from .result import CheckResult, VariantData, skipped

NAME = "sliding_window"
KINDS = ("mc",)
PAPER = "MCTest SW baseline well above chance (Richardson et al. 2013); chance 0.25"


def pick_with_ties(scores: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Index of the best column of each row, ties broken uniformly at random."""
    noise = rng.random(scores.shape)
    best = scores == scores.max(axis=1, keepdims=True)
    return np.where(best, noise, -1.0).argmax(axis=1)


def run(data: VariantData, params: dict) -> list[CheckResult]:
    from scipy import stats

    frame = data.combined
    if len(frame) == 0:
        return [skipped(data.variant, NAME, "no questions")]
    feats = variant_features(data)
    scores = feats["sliding_window"].to_numpy(float).reshape(-1, 4)
    truth = feats["option"].to_numpy().reshape(-1, 4)[feats["correct"].to_numpy().reshape(-1, 4)]
    valid = feats["correct"].to_numpy().reshape(-1, 4).any(axis=1)
    rng = np.random.default_rng(data.seed)
    choice = pick_with_ties(scores, rng) + 1
    k = int((choice[valid] == truth).sum())
    n = int(valid.sum())
    if n == 0:
        return [skipped(data.variant, NAME, "no question has a valid correct_answer_num")]
    test = stats.binomtest(k, n, params["chance"], alternative="greater")
    ci = stats.binomtest(k, n, params["chance"]).proportion_ci(confidence_level=data.confidence, method="exact")
    floor = params["chance"] + params["margin"]
    return [CheckResult(
        data.variant, NAME, True, statistic=k / n, p_value=float(test.pvalue), value=k / n, threshold=floor,
        paper=PAPER, fails_as="above_chance", effect=k / n, effect_ci=(float(ci.low), float(ci.high)),
        effect_name="accuracy", floor=floor,
        detail=f"SW baseline answers {k}/{n} = {k / n:.3f} ({data.confidence:.0%} CI {ci.low:.3f}-{ci.high:.3f}) "
               f"vs chance {params['chance']}",
        extra={"accuracy": k / n, "correct": k, "n": n, "ci_low": float(ci.low), "ci_high": float(ci.high),
               "chance": params["chance"]})]
