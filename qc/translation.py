"""What the translation checks share: a variant's texts paired with the pivot's at the same id.

A *unit* is what a translator translated as one piece: a topic text (keyed
``split/index_id``), a passage (``split/passage_id``) and an item's question
with its four options (``split/passage_id/question_id``), the keys of
:mod:`qc.pivot_consistency`. :func:`pivot_pairs` joins a variant's units with
the pivot's on the key; units on one side only are ``pivot_consistency``'s.
What the checks measure on a pair (numbers in every script's digits, length
ratios, robust z) is :mod:`schemas.textstats`'s, the definitions ``builder
extend`` uses too.

>>> import pandas as pd
>>> piv = {"test": pd.DataFrame({"index_id": [1, 2], "text": ["One.", "Two."]})}
>>> mine = {"test": pd.DataFrame({"index_id": [2, 3], "text": ["Deux.", "Trois."]})}
>>> pivot_pairs(VariantData("fra_Latn", "topic", mine, pivot=piv))["texts"].to_dict("records")
[{'id': 'test/2', 'text': 'Deux.', 'pivot_text': 'Two.'}]
"""
from __future__ import annotations

import pandas as pd

from .result import VariantData


def _units(tables: dict[str, pd.DataFrame], kind: str) -> dict[str, pd.Series]:
    """Each unit's text keyed by its id (first occurrence of a key kept)."""
    out: dict[str, list[pd.Series]] = {}
    for split, frame in tables.items():
        if kind == "topic":
            if not {"index_id", "text"} <= set(frame.columns):
                continue
            key = split + "/" + frame["index_id"].astype(str)
            out.setdefault("texts", []).append(pd.Series(frame["text"].fillna("").astype(str).to_numpy(),
                                                         index=key.to_numpy()))
            continue
        if not {"passage_id", "question_id", "passage", "question"} <= set(frame.columns):
            continue
        pkey = split + "/" + frame["passage_id"].astype(str)
        out.setdefault("passages", []).append(pd.Series(frame["passage"].fillna("").astype(str).to_numpy(),
                                                        index=pkey.to_numpy()))
        item = frame["question"].fillna("").astype(str)
        for c in ("answer1", "answer2", "answer3", "answer4"):
            if c in frame.columns:
                item = item + " | " + frame[c].fillna("").astype(str)
        qkey = pkey + "/" + frame["question_id"].astype(str)
        out.setdefault("questions", []).append(pd.Series(item.to_numpy(), index=qkey.to_numpy()))
    return {unit: (lambda s: s[~s.index.duplicated()])(pd.concat(parts)) for unit, parts in out.items()}


def pivot_pairs(data: VariantData) -> dict[str, pd.DataFrame]:
    """Per unit (``texts``; or ``passages`` and ``questions``): ``id``, ``text``, ``pivot_text`` of shared ids.

    Rows keep the variant's order. Empty when there is no pivot to compare with.
    """
    if data.pivot is None:
        return {}
    if "pivot_pairs" in data.memo:  # three translation checks ask for the same pairs
        return data.memo["pivot_pairs"]
    mine, ref = _units(data.tables, data.kind), _pivot_units(data.pivot, data.kind)
    out = {}
    for unit, texts in mine.items():
        if unit not in ref:
            continue
        known = ref[unit].index
        # get_indexer hashes once; Index.isin on pandas' Arrow-backed strings compares row by row in Python
        # (16 ms against 0.3 ms for SIB-200's 1,004 ids, once per variant)
        both = texts[known.get_indexer(texts.index) >= 0 if known.is_unique else texts.index.isin(known)]
        out[unit] = pd.DataFrame({"id": both.index.to_numpy(), "text": both.to_numpy(),
                                  "pivot_text": ref[unit].reindex(both.index).to_numpy()})
    data.memo["pivot_pairs"] = out
    return out


_pivot_seen: list = [None, None, None]  # the last pivot's tables (held, so never another's id), kind, units


def _pivot_units(pivot: dict[str, pd.DataFrame], kind: str) -> dict[str, pd.Series]:
    """:func:`_units` of the pivot, which every variant a worker checks shares: built once, not per variant."""
    if _pivot_seen[0] is not pivot or _pivot_seen[1] != kind:
        _pivot_seen[:] = [pivot, kind, _units(pivot, kind)]
    return _pivot_seen[2]


def why_not_compared(data: VariantData) -> tuple[dict[str, pd.DataFrame], str | None]:
    """``(pivot_pairs(data), None)``, or ``({}, reason)`` when the variant cannot be compared with the pivot
    item by item: the skip of every translation check."""
    why = no_pivot_reason(data)
    if why:
        return {}, why
    pairs = pivot_pairs(data)
    return pairs, None if pairs else "no unit shares an id with the pivot"


def no_pivot_reason(data: VariantData) -> str | None:
    """Why a variant cannot be compared with the pivot (None when it can)."""
    if data.variant == data.pivot_name:
        return "this is the pivot variant"
    if data.pivot is None:
        return f"pivot variant {data.pivot_name} is not in the dataset"
    return None
