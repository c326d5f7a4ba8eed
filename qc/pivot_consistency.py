"""Check ``pivot_consistency``: same items and answer key as the pivot variant.

Belebele wrote questions in English and aligned every translation to them
(§3.3): a variant must hold the same item ids per split as the pivot
(default ``eng_Latn``) and the same correct answer for each. Multiple-choice
items are keyed by ``(split, passage_id, question_id)`` and compared on
``correct_answer_num``; topic items by ``(split, index_id)`` and ``category``.

>>> import pandas as pd
>>> a = {"test": pd.DataFrame({"index_id": [1, 2], "category": ["x", "y"]})}
>>> b = {"test": pd.DataFrame({"index_id": [1], "category": ["z"]})}
>>> compare_to_pivot(b, a, "topic")
{'missing': 1, 'extra': 0, 'changed': 1, 'examples': ['missing test/2', 'changed test/1']}
"""
from __future__ import annotations

import pandas as pd

from .result import CheckResult, VariantData, skipped

NAME = "pivot_consistency"
KINDS = ("mc", "topic")


def _keyed(tables: dict[str, pd.DataFrame], kind: str) -> pd.Series:
    parts = []
    for split, frame in tables.items():
        if kind == "topic":
            key = split + "/" + frame["index_id"].astype(str)
            value = frame["category"].fillna("").astype(str)
        else:
            key = split + "/" + frame["passage_id"].astype(str) + "/" + frame["question_id"].astype(str)
            # 2, "2" and 2.0 are the same answer, 2.5 is not; a missing answer reads as "" on both sides
            num = pd.to_numeric(frame["correct_answer_num"], errors="coerce")
            value = num.map(lambda v: "" if pd.isna(v) else f"{float(v):g}")
        parts.append(pd.Series(value.to_numpy(), index=key.to_numpy()))
    s = pd.concat(parts) if parts else pd.Series(dtype=str)
    return s[~s.index.duplicated()]


def compare_to_pivot(tables: dict[str, pd.DataFrame], pivot: dict[str, pd.DataFrame], kind: str) -> dict:
    """Counts of pivot items missing here, items not in the pivot, and changed answers."""
    mine, ref = _keyed(tables, kind), _keyed(pivot, kind)
    mine_ids, ref_ids = set(mine.index.tolist()), set(ref.index.tolist())  # lists: Arrow strings iterate slowly
    missing = sorted(ref_ids - mine_ids)
    extra = sorted(mine_ids - ref_ids)
    both = sorted(ref_ids & mine_ids)
    mine_both, ref_both = mine.reindex(both).tolist(), ref.reindex(both).tolist()  # keys are unique
    changed = [k for k, a, b in zip(both, mine_both, ref_both) if a != b]
    examples = [f"missing {k}" for k in missing[:3]] + [f"extra {k}" for k in extra[:3]] + \
        [f"changed {k}" for k in changed[:3]]
    return {"missing": len(missing), "extra": len(extra), "changed": len(changed), "examples": examples}


def run(data: VariantData, params: dict) -> list[CheckResult]:
    if data.variant == data.pivot_name:
        return [skipped(data.variant, NAME, "this is the pivot variant")]
    if data.pivot is None:
        return [skipped(data.variant, NAME, f"pivot variant {data.pivot_name} is not in the dataset")]
    need = ("index_id", "category") if data.kind == "topic" else ("passage_id", "question_id")
    for split, frame in data.tables.items():
        absent = [c for c in need if c not in frame.columns]
        if absent:
            return [skipped(data.variant, NAME, f"split {split} has no {', '.join(absent)} column")]
    r = compare_to_pivot(data.tables, data.pivot, data.kind)
    bad = r["missing"] + r["extra"] + r["changed"]
    answer = "label" if data.kind == "topic" else "correct answer"
    return [CheckResult(
        data.variant, NAME, bad == 0, value=bad, threshold=0,
        reason=None if bad == 0 else ("answer_moved" if r["changed"] else "items_differ"),
        detail=(f"vs {data.pivot_name}: {r['missing']} item(s) missing, {r['extra']} extra, "
                f"{r['changed']} with a different {answer}"),
        paper="Belebele §3.3: every variant aligned to the English questions",
        extra={**r, "pivot": data.pivot_name})]
