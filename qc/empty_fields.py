"""Check ``empty_fields``: no required field may be missing or blank.

Multiple-choice rows need ``passage``, ``question``, ``answer1``-``answer4``
and a ``correct_answer_num`` of 1-4; topic rows need ``text`` and ``category``.

>>> import pandas as pd
>>> empty_counts(pd.DataFrame({"text": ["a", " ", None], "category": ["x", "y", "z"]}), "topic")
{'text': 2}
"""
from __future__ import annotations

import pandas as pd

from .result import CheckResult, VariantData, skipped

NAME = "empty_fields"
KINDS = ("mc", "topic")
REQUIRED = {
    "mc": ("passage", "question", "answer1", "answer2", "answer3", "answer4"),
    "topic": ("text", "category"),
}


def empty_counts(frame: pd.DataFrame, kind: str) -> dict[str, int]:
    """Number of missing or blank values per required field (fields with none left out)."""
    out = {}
    for col in REQUIRED[kind]:
        if col not in frame.columns:
            out[col] = len(frame)
            continue
        blank = frame[col].isna() | frame[col].astype(str).str.strip().eq("")
        if int(blank.sum()):
            out[col] = int(blank.sum())
    if kind == "mc":
        col = frame["correct_answer_num"] if "correct_answer_num" in frame.columns else None
        num = pd.to_numeric(col, errors="coerce") if col is not None else None
        bad = int((~num.isin([1, 2, 3, 4])).sum()) if num is not None else len(frame)
        if bad:
            out["correct_answer_num"] = bad
    return out


def run(data: VariantData, params: dict) -> list[CheckResult]:
    frame = data.combined
    if len(frame) == 0:
        return [skipped(data.variant, NAME, "no rows")]
    counts = empty_counts(frame, data.kind)
    total = sum(counts.values())
    passed = total <= params["max_empty"]
    detail = ("no empty fields" if not counts else
              "empty or invalid: " + ", ".join(f"{k}={v}" for k, v in sorted(counts.items())))
    return [CheckResult(data.variant, NAME, passed, value=total, threshold=params["max_empty"],
                        reason=None if passed else "empty_field", detail=detail,
                        extra={"counts": counts, "rows": int(len(frame))})]
