"""Check ``length_bias``: is the correct option the longest (or shortest) too often?

Among questions whose longest option (in characters) is unique, the share
where it is the correct one should be 1/4 if length says nothing; a one-sided
:func:`scipy.stats.binomtest` against 1/4 tests it, and the share is given with
its Clopper-Pearson interval. The same for the shortest option. Each is one
hypothesis test of the run (:mod:`qc.decision`): it fails as
``correct_is_longest`` (``_shortest``) when its adjusted p-value is below
``decision.alpha`` *and* the share exceeds ``chance`` + ``margin``.

>>> frame = __import__("pandas").DataFrame([{"answer1": "a much longer answer", "answer2": "no",
...     "answer3": "nope", "answer4": "nah", "correct_answer_num": 1}] * 12)
>>> extreme_test(frame, "longest")["share"]
1.0
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .result import CheckResult, VariantData, skipped

NAME = "length_bias"
KINDS = ("mc",)
OPTION_COLUMNS = ("answer1", "answer2", "answer3", "answer4")


def extreme_test(frame: pd.DataFrame, which: str, confidence: float = 0.95) -> dict:
    """How often the unique longest/shortest option is the correct one, with a binomial test vs 1/4."""
    from scipy import stats

    lengths = np.column_stack([frame[c].fillna("").astype(str).str.strip().str.len() for c in OPTION_COLUMNS])
    target = lengths.max(axis=1) if which == "longest" else lengths.min(axis=1)
    hit = lengths == target[:, None]
    unique = hit.sum(axis=1) == 1
    correct = pd.to_numeric(frame["correct_answer_num"], errors="coerce").fillna(0).astype(int).to_numpy()
    position = hit.argmax(axis=1) + 1
    n = int(unique.sum())
    k = int((position[unique] == correct[unique]).sum())
    if n == 0:
        return {"n": 0, "k": 0, "share": None, "p_value": None, "ci": None}
    res = stats.binomtest(k, n, 0.25, alternative="greater")
    ci = stats.binomtest(k, n, 0.25).proportion_ci(confidence_level=confidence, method="exact")
    return {"n": n, "k": k, "share": k / n, "p_value": float(res.pvalue), "ci": (float(ci.low), float(ci.high))}


def run(data: VariantData, params: dict) -> list[CheckResult]:
    frame = data.combined
    out = []
    floor = params["chance"] + params["margin"]
    for which in ("longest", "shortest"):
        name = f"{NAME}:{which}"
        r = extreme_test(frame, which, data.confidence) if len(frame) else {"n": 0}
        if not r["n"]:
            out.append(skipped(data.variant, name, f"no question has a unique {which} option"))
            continue
        out.append(CheckResult(
            data.variant, name, True, statistic=r["share"], p_value=r["p_value"], value=r["share"],
            threshold=floor, fails_as=f"correct_is_{which}", effect=r["share"], effect_ci=r["ci"],
            effect_name="share", floor=floor,
            detail=f"correct option is the unique {which} in {r['k']}/{r['n']} questions vs chance 1/4",
            extra={"k": r["k"], "n": r["n"], "chance": 0.25}))
    return out
