"""Check ``answer_balance``: is the correct answer spread evenly over positions A-D?

A chi-square goodness-of-fit test (:func:`scipy.stats.chisquare`) compares the
count of correct answers at each position with a uniform spread. The effect is
the largest deviation of a position's share from 1/4 (signed, with the
Clopper-Pearson interval of that share minus 1/4): a model that always picks
the most common position gains exactly that much over chance. It is one
hypothesis test of the run (:mod:`qc.decision`): the variant fails as
``unbalanced`` when the adjusted p-value is below ``decision.alpha`` *and*
``|deviation|`` exceeds ``max_deviation``. A set whose answer is always A
gives p close to 0 and a deviation of 0.75.

>>> round(position_test([1, 2, 3, 4] * 25)["p_value"], 3)
1.0
>>> r = position_test([1] * 40)
>>> r["p_value"] < 1e-10, r["position"], r["deviation"]
(True, 1, 0.75)
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .result import CheckResult, VariantData, skipped

NAME = "answer_balance"
KINDS = ("mc",)


def position_test(correct, confidence: float = 0.95) -> dict:
    """Counts per position 1-4, the chi-square test against a uniform spread, and the largest deviation."""
    from scipy import stats

    values = pd.to_numeric(pd.Series(list(correct)), errors="coerce")
    counts = np.array([(values == k).sum() for k in range(1, 5)], dtype=float)
    total = int(counts.sum())
    out = {"counts": counts.astype(int).tolist(), "chi2": None, "p_value": None,  # no answer: no test
           "max_share": float(counts.max() / total) if total else 0.0, "position": None, "deviation": None,
           "ci": None}
    if total:
        res = stats.chisquare(counts)
        out.update(chi2=float(res.statistic), p_value=float(res.pvalue))
        k = int(np.argmax(np.abs(4 * counts - total)))  # the first position with the largest deviation (exact)
        ci = stats.binomtest(int(counts[k]), total).proportion_ci(confidence_level=confidence, method="exact")
        out.update(position=k + 1, deviation=float(counts[k] / total - 0.25),
                   ci=(float(ci.low) - 0.25, float(ci.high) - 0.25))
    return out


def run(data: VariantData, params: dict) -> list[CheckResult]:
    frame = data.combined
    if len(frame) == 0:
        return [skipped(data.variant, NAME, "no questions")]
    r = position_test(frame["correct_answer_num"], data.confidence)
    if sum(r["counts"]) == 0:
        return [skipped(data.variant, NAME, "no valid correct_answer_num")]
    counts = ", ".join(f"{letter}={c}" for letter, c in zip("ABCD", r["counts"]))
    letter = "ABCD"[r["position"] - 1]
    detail = (f"correct answers per position {counts}; chi-square vs uniform; largest deviation {letter}: "
              f"{r['deviation']:+.3f}")
    return [CheckResult(data.variant, NAME, True, statistic=r["chi2"], p_value=r["p_value"],
                        value=r["deviation"], threshold=params["max_deviation"], fails_as="unbalanced",
                        effect=r["deviation"], effect_ci=r["ci"], effect_name="largest deviation from 1/4",
                        floor=params["max_deviation"],
                        detail=detail,
                        paper="Belebele shuffles answer positions (assembly code, NumPy seed 0)",
                        extra={"counts": r["counts"], "max_share": r["max_share"], "position": letter})]
