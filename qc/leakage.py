"""Check ``leakage``: the same passage or question in two splits.

Belebele is a test set only (§3.4): a passage or question of the test split
that also sits in train (or dev) lets a model memorise its answer. Texts are
compared after :func:`qc.textnorm.normalize`; a question is its text with its
four options. Every pair of splits is checked; the set fails when more than
``max_shared`` texts are shared.

>>> import pandas as pd
>>> shared_texts({"train": pd.Series(["A cat.", "A dog."]), "test": pd.Series(["a  cat."])})
{('train', 'test'): ['a cat.']}
"""
from __future__ import annotations

from itertools import combinations

import pandas as pd

from .result import CheckResult, VariantData, skipped
from .textnorm import normalize

NAME = "leakage"
KINDS = ("mc", "topic")


def shared_texts(by_split: dict[str, pd.Series]) -> dict[tuple[str, str], list[str]]:
    """Normalised texts found in both splits of each pair (pairs with none left out)."""
    sets = {s: set(v.map(normalize)) - {""} for s, v in by_split.items()}
    out = {}
    for a, b in combinations(list(by_split), 2):
        common = sorted(sets[a] & sets[b])
        if common:
            out[(a, b)] = common
    return out


def _question_text(frame: pd.DataFrame) -> pd.Series:
    text = frame["question"].astype(str)
    for c in ("answer1", "answer2", "answer3", "answer4"):
        text = text + " | " + frame[c].astype(str)
    return text


def run(data: VariantData, params: dict) -> list[CheckResult]:
    if len(data.tables) < 2:
        return [skipped(data.variant, NAME, f"only one split ({', '.join(data.tables)})")]
    if data.kind == "topic":
        units = {"texts": {s: f["text"].astype(str) for s, f in data.tables.items()}}
    else:
        units = {"passages": {s: f["passage"].astype(str) for s, f in data.tables.items()},
                 "questions": {s: _question_text(f) for s, f in data.tables.items()}}
    out = []
    for unit, by_split in units.items():
        shared = shared_texts(by_split)
        total = sum(len(v) for v in shared.values())
        passed = total <= params["max_shared"]
        pairs = "; ".join(f"{a}/{b}: {len(v)}" for (a, b), v in shared.items()) or "none"
        out.append(CheckResult(
            data.variant, f"{NAME}:{unit}", passed, value=total, threshold=params["max_shared"],
            reason=None if passed else "shared_across_splits",
            detail=f"{unit} in two splits: {pairs}",
            paper="Belebele is test-only (§3.4): no test passage may be trained on",
            extra={"pairs": {f"{a}/{b}": len(v) for (a, b), v in shared.items()},
                   "examples": [t[:80] for v in shared.values() for t in v[:2]][:4]}))
    return out
