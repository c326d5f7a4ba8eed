"""Check ``label_conflict``: the same text with two different labels (issue 28).

A text that carries two labels is a defect of its own, whatever the
duplicates allowance says: one of the two labels is wrong (or the text is a
misaligned translation of another item), and a model is scored against both.

* Topic data: texts equal after :func:`qc.textnorm.normalize`, or near each
  other (character 5-shingle Jaccard >= ``near_jaccard``, found with the
  MinHash/LSH search of :func:`qc.duplicates.near_duplicate_pairs`), whose
  ``category`` differs; inside one split or across splits (all splits are
  searched together).
* Multiple-choice data: the same normalised passage, question and set of
  options whose correct option (its normalised text, so a reordering of the
  options is no conflict) differs. Near-same MC items are not compared: two
  near questions legitimately ask different things.

The check fails when more than ``max_conflicts`` conflicting groups (exact)
plus pairs (near) are found; the result names the ids (``split:id``), the
labels and the text of the first ones.

>>> import pandas as pd
>>> from qc.result import VariantData
>>> t = pd.DataFrame({"index_id": [1, 2], "category": ["a", "b"], "text": ["Same text.", "same  text."]})
>>> [r] = run(VariantData("x", "topic", {"train": t}), {"max_conflicts": 0})
>>> r.passed, r.extra["conflicts"][0]["ids"], r.extra["conflicts"][0]["labels"]
(False, ['train:1', 'train:2'], ['a', 'b'])
"""
from __future__ import annotations

import pandas as pd

from schemas.names import shorten

from .duplicates import near_duplicate_pairs
from .result import CheckResult, VariantData, skipped
from .textnorm import normalize

NAME = "label_conflict"
KINDS = ("mc", "topic")
NAMED = 10  # conflicts named in a result


def _ids(frame: pd.DataFrame, column: str) -> pd.Series:
    if column in frame:
        return frame["split"] + ":" + frame[column].astype(str)
    return frame["split"] + ":" + pd.Series(range(len(frame)), index=frame.index).astype(str)


def exact_conflicts(keys: pd.Series, labels: pd.Series, ids: pd.Series, shown: pd.Series) -> list[dict]:
    """Groups of rows with the same key and more than one label, in order of first appearance."""
    frame = pd.DataFrame({"key": keys.to_numpy(), "label": labels.to_numpy(), "id": ids.to_numpy(),
                          "shown": shown.to_numpy()})
    frame = frame[frame["key"] != ""]
    spread = frame.groupby("key", sort=False)["label"].nunique()
    out = []
    for key in spread.index[spread.to_numpy() > 1]:  # few keys: only the conflicting ones are gathered
        group = frame[frame["key"] == key]
        out.append({"kind": "exact", "ids": group["id"].tolist(), "labels": group["label"].tolist(),
                    "text": shorten(group["shown"].iloc[0])})
    return out


def near_conflicts(texts: pd.Series, labels: pd.Series, ids: pd.Series, params: dict) -> list[dict]:
    """Pairs of distinct near texts (Jaccard >= ``near_jaccard``) whose labels differ, closest first."""
    first = pd.DataFrame({"text": texts.to_numpy(), "label": labels.to_numpy(), "id": ids.to_numpy()})
    first = first[first["text"] != ""].drop_duplicates("text")
    text, label, id_ = (first[c].tolist() for c in ("text", "label", "id"))
    pairs = near_duplicate_pairs(text, threshold=params["near_jaccard"], k=params["shingle"],
                                 num_perm=params["num_perm"], bands=params["bands"], normalized=True)
    return [{"kind": "near", "ids": [id_[i], id_[j]], "labels": [label[i], label[j]], "jaccard": jac,
             "texts": [shorten(text[i]), shorten(text[j])]}
            for i, j, jac in sorted(pairs, key=lambda p: -p[2]) if label[i] != label[j]]


def _describe(c: dict) -> str:
    labels = " / ".join(map(str, c["labels"]))
    if c["kind"] == "exact":
        return f"{' = '.join(map(str, c['ids'][:3]))} ({labels}): {c['text'][:40]!r}"
    return f"{c['ids'][0]} ~ {c['ids'][1]} ({c['jaccard']:.2f}; {labels}): {c['texts'][0][:40]!r}"


def run(data: VariantData, params: dict) -> list[CheckResult]:
    frame = data.combined
    if len(frame) == 0:
        return [skipped(data.variant, NAME, "no rows")]
    if data.kind == "topic":
        if "category" not in frame:
            return [skipped(data.variant, NAME, "no category column")]
        unit, what = "texts", "category"
        text = frame["text"].astype(str).map(normalize)
        labels = frame["category"].astype(str)
        ids = _ids(frame, "index_id")
        conflicts = exact_conflicts(text, labels, ids, text)
        if params.get("near_jaccard") is not None:
            conflicts += near_conflicts(text, labels, ids, params)
    else:
        unit, what = "questions", "correct answer"
        options = [frame[f"answer{k}"].astype(str).map(normalize) for k in range(1, 5)]
        option_set = pd.Series([" | ".join(sorted(o)) for o in zip(*options)], index=frame.index)
        passage = frame["passage"].astype(str).map(normalize)
        question = frame["question"].astype(str).map(normalize)
        key = passage + " || " + question + " || " + option_set
        num = pd.to_numeric(frame["correct_answer_num"], errors="coerce")
        correct = pd.Series([options[int(n) - 1][i] if n == n and 1 <= n <= 4 else f"#{n}"
                             for i, n in zip(frame.index, num)], index=frame.index)
        ids = _ids(frame, "question_id") if "passage_id" not in frame else (
            frame["split"] + ":" + frame["passage_id"].astype(str) + "/"
            + (frame["question_id"].astype(str) if "question_id" in frame else pd.Series(
                range(len(frame)), index=frame.index).astype(str)))
        conflicts = exact_conflicts(key, correct, ids, question)
    n = len(conflicts)
    passed = n <= params["max_conflicts"]
    exact = sum(c["kind"] == "exact" for c in conflicts)
    near = (f", {n - exact} near at Jaccard >= {params['near_jaccard']}" if data.kind == "topic"
            and params.get("near_jaccard") is not None else "")
    detail = f"{n} conflict(s), {unit} with different {what} ({exact} exact{near}; max {params['max_conflicts']})"
    if conflicts:
        detail += ": " + "; ".join(_describe(c) for c in conflicts[:2])
    return [CheckResult(data.variant, f"{NAME}:{unit}", passed, value=n, threshold=params["max_conflicts"],
                        reason=None if passed else "conflicting_labels", detail=detail,
                        extra={"exact": exact, "near": n - exact, "conflicts": conflicts[:NAMED]})]
