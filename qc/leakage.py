"""Check ``leakage``: the same passage or question in two splits, exactly or nearly.

Belebele is a test set only (§3.4): a passage or question of the test split
that also sits in train (or dev) lets a model memorise its answer. Texts are
compared after :func:`qc.textnorm.normalize`; a question is its text with its
four options. Every pair of splits is checked.

Exact: the same normalised text in both splits. Near (issue 28): a passage
(topic: a text) of one split whose character 5-shingle Jaccard with a
passage of the other is at least ``near_jaccard`` (0.7) without being equal:
a misaligned translation, or the same sentence edited by a few characters.
The pairs come from the MinHash/LSH search of :mod:`qc.duplicates`
(:func:`qc.duplicates.near_duplicate_pairs` with ``others``), in its own
``num_perm``/``bands``. Questions are compared exactly only: short questions
such as "What is the main idea?" are near each other legitimately. The set
fails when more than ``max_shared`` texts are shared, exactly or nearly (each
near pair counts one); without ``near_jaccard`` in the parameters only exact
matches count. The result names the first pairs: split:id and both texts.

>>> import pandas as pd
>>> shared_texts({"train": pd.Series(["A cat.", "A dog."]), "test": pd.Series(["a  cat."])})
{('train', 'test'): ['a cat.']}
"""
from __future__ import annotations

from itertools import combinations

import pandas as pd

from schemas.names import shorten

from .duplicates import around_difference, near_duplicate_pairs
from .result import CheckResult, VariantData, skipped
from .textnorm import normalize

NAME = "leakage"
KINDS = ("mc", "topic")
NAMED = 10  # pairs named in a result, with ids and shortened texts


def shared_texts(by_split: dict[str, pd.Series]) -> dict[tuple[str, str], list[str]]:
    """Normalised texts found in both splits of each pair (pairs with none left out)."""
    sets = {s: set(v.map(normalize).tolist()) - {""} for s, v in by_split.items()}
    out = {}
    for a, b in combinations(list(by_split), 2):
        common = sorted(sets[a] & sets[b])
        if common:
            out[(a, b)] = common
    return out


def near_shared(by_split: dict[str, pd.Series], ids: dict[str, pd.Series], params: dict) -> list[dict]:
    """Near pairs across every pair of splits: ``{"ids", "jaccard", "texts", "full"}``, closest first.

    ``ids[split]`` holds each row's id (aligned with ``by_split[split]``);
    rows of one split with the same normalised text are one text (the first id
    is named; ``texts`` are shortened, ``full`` the two normalised texts). All
    splits go through one MinHash/LSH search, in which only pairs of
    different splits count.
    """
    texts, names, splits = [], [], []
    for split, column in by_split.items():
        seen: set[str] = set()
        for text, id_ in zip(column.map(normalize).tolist(), ids[split].astype(str).tolist()):
            if text and text not in seen:
                seen.add(text)
                texts.append(text)
                names.append(f"{split}:{id_}")
                splits.append(split)
    pairs = near_duplicate_pairs(texts, groups=splits, threshold=params["near_jaccard"], k=params["shingle"],
                                 num_perm=params["num_perm"], bands=params["bands"], normalized=True)
    out = [{"ids": [names[i], names[j]], "jaccard": jac, "texts": [shorten(texts[i]), shorten(texts[j])],
            "full": (texts[i], texts[j])} for i, j, jac in pairs]
    return sorted(out, key=lambda p: -p["jaccard"])


def exact_pairs(shared: dict[tuple[str, str], list[str]], by_split: dict[str, pd.Series],
                ids: dict[str, pd.Series]) -> list[dict]:
    """Each text shared by two splits as ``{"ids": ["train:ID", "test:ID"], "texts": [shortened]}`` (the first
    row of each split holding it), in the order of :func:`shared_texts`: what a reviewer must find."""
    first: dict[str, dict[str, str]] = {}
    for split, column in by_split.items():
        seen = first.setdefault(split, {})
        for text, id_ in zip(column.map(normalize).tolist(), ids[split].astype(str).tolist()):
            seen.setdefault(text, id_)
    return [{"ids": [f"{a}:{first[a][t]}", f"{b}:{first[b][t]}"], "texts": [shorten(t)]}
            for (a, b), texts in shared.items() for t in texts]


def _question_text(frame: pd.DataFrame) -> pd.Series:
    text = frame["question"].astype(str)
    for c in ("answer1", "answer2", "answer3", "answer4"):
        text = text + " | " + frame[c].astype(str)
    return text


def _ids(frame: pd.DataFrame, *columns: str) -> pd.Series:
    """The row ids: the first of ``columns`` present, else the row position."""
    for c in columns:
        if c in frame:
            return frame[c].astype(str)
    return pd.Series(range(len(frame)), index=frame.index).astype(str)


def run(data: VariantData, params: dict) -> list[CheckResult]:
    if len(data.tables) < 2:
        return [skipped(data.variant, NAME, f"only one split ({', '.join(data.tables)})")]
    if data.kind == "topic":
        units = {"texts": ({s: f["text"].astype(str) for s, f in data.tables.items()},
                           {s: _ids(f, "index_id") for s, f in data.tables.items()}, True)}
    else:
        units = {"passages": ({s: f["passage"].astype(str) for s, f in data.tables.items()},
                              {s: _ids(f, "passage_id") for s, f in data.tables.items()}, True),
                 "questions": ({s: _question_text(f) for s, f in data.tables.items()},
                               {s: _ids(f, "question_id") for s, f in data.tables.items()}, False)}
    near_on = params.get("near_jaccard") is not None
    out = []
    for unit, (by_split, ids, near_unit) in units.items():
        shared = shared_texts(by_split)
        near = near_shared(by_split, ids, params) if near_on and near_unit else []
        n_exact = sum(len(v) for v in shared.values())
        total = n_exact + len(near)
        passed = total <= params["max_shared"]
        exact = exact_pairs(shared, by_split, ids)
        pairs = "; ".join(f"{a}/{b}: {len(v)}" for (a, b), v in shared.items()) or "none"
        detail = f"{unit} in two splits: {pairs}"
        extra = {"pairs": {f"{a}/{b}": len(v) for (a, b), v in shared.items()},
                 "examples": [t[:80] for v in shared.values() for t in v[:2]][:4],
                 "exact_pairs": exact[:NAMED]}
        if near_on and near_unit:
            detail += f"; {len(near)} near pair(s) at Jaccard >= {params['near_jaccard']}"
            if near:
                detail += ": " + "; ".join(f"{p['ids'][0]} ~ {p['ids'][1]} ({p['jaccard']:.2f}: {a!r} / {b!r})"
                                           for p in near[:2] for a, b in [around_difference(*p["full"])])
            extra.update(exact=n_exact, near=len(near),
                         near_pairs=[{k: v for k, v in p.items() if k != "full"} for p in near[:NAMED]])
        reason = None
        if not passed:
            reason = "shared_across_splits" if n_exact else "near_shared_across_splits"
        out.append(CheckResult(
            data.variant, f"{NAME}:{unit}", passed, value=total, threshold=params["max_shared"],
            reason=reason, detail=detail,
            paper="Belebele is test-only (§3.4): no test passage may be trained on", extra=extra))
    return out
