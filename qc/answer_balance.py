"""Check ``answer_balance``: is the correct answer spread evenly over positions A-D?

A chi-square goodness-of-fit test (:func:`scipy.stats.chisquare`) compares the
count of correct answers at each position with a uniform spread; the set fails
at ``p < alpha``. A set whose answer is always A gives p close to 0.

>>> round(position_test([1, 2, 3, 4] * 25)["p_value"], 3)
1.0
>>> position_test([1] * 40)["p_value"] < 1e-10
True
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from .result import CheckResult, VariantData, skipped

NAME = "answer_balance"
KINDS = ("mc",)


def position_test(correct) -> dict:
    """Counts per position 1-4 and the chi-square test against a uniform spread."""
    values = pd.to_numeric(pd.Series(list(correct)), errors="coerce")
    counts = np.array([(values == k).sum() for k in range(1, 5)], dtype=float)
    res = stats.chisquare(counts)
    return {"counts": counts.astype(int).tolist(), "chi2": float(res.statistic), "p_value": float(res.pvalue),
            "max_share": float(counts.max() / counts.sum()) if counts.sum() else 0.0}


def run(data: VariantData, params: dict) -> list[CheckResult]:
    frame = data.combined
    if len(frame) == 0:
        return [skipped(data.variant, NAME, "no questions")]
    r = position_test(frame["correct_answer_num"])
    if sum(r["counts"]) == 0:
        return [skipped(data.variant, NAME, "no valid correct_answer_num")]
    passed = bool(r["p_value"] >= params["alpha"])
    counts = ", ".join(f"{letter}={c}" for letter, c in zip("ABCD", r["counts"]))
    return [CheckResult(data.variant, NAME, passed, statistic=r["chi2"], p_value=r["p_value"],
                        value=r["max_share"], threshold=params["alpha"], reason=None if passed else "unbalanced",
                        detail=f"correct answers per position {counts}; chi-square vs uniform",
                        paper="Belebele shuffles answer positions (assembly code, NumPy seed 0)",
                        extra={"counts": r["counts"]})]
