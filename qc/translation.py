"""What the translation checks share: a variant's texts paired with the pivot's at the same id, and numbers.

A *unit* is what a translator translated as one piece: a topic text (keyed
``split/index_id``), a passage (``split/passage_id``) and an item's question
with its four options (``split/passage_id/question_id``), the keys of
:mod:`qc.pivot_consistency`. :func:`pivot_pairs` joins a variant's units with
the pivot's on the key; units on one side only are ``pivot_consistency``'s.

:func:`numbers` reads the numbers of a text whatever script its digits are
written in: every Unicode decimal digit (general category Nd: ASCII,
Arabic-Indic, Extended Arabic-Indic, Devanagari, Bengali, N'Ko, Thai, Tibetan,
fullwidth...) by its :func:`unicodedata.decimal` value, and Ethiopic numerals
(category No: additive, not positional) by their value. A group or decimal
mark (``,`` ``.`` ``'``, Arabic ``،`` ``٫`` ``٬``, Urdu ``۔`` as in
``3۔7``; a space, no-break or thin, between thousands only) between two
digits joins them, so ``1,000``, ``1.000``, ``1 000`` and ``1,00,000``
(lakh grouping) read as ``1000`` and ``100000``: translations regroup
digits and swap decimal marks, which is not a different number. A colon
does not join: ``9:00`` is 9 and 0 (and ``9.00`` is 900), since ``6:6`` is a
score where English writes ``6-6``; times written both ways are a warning.

>>> numbers("In 1994, ߁߉߉߄ and ١٢ or 12; ፲፪፻፴፬ km, 19،500")
['1994', '1994', '12', '12', '1234', '19500']
>>> numbers("3,5 km vs 3.5 km, at 09:00")
['35', '35', '9', '0']
"""
from __future__ import annotations

import unicodedata
from functools import lru_cache

import pandas as pd

from .result import VariantData

#: Characters that join the digits on either side into one number (group and decimal marks).
SEPARATORS = frozenset(",.'\u060c\u066b\u066c\u06d4 \u00a0\u202f\u2009")
_SPACES = frozenset(" \u00a0\u202f\u2009")
#: Ethiopic numerals (U+1369-U+137C): their numeric values.
_ETHIOPIC = {chr(cp): int(unicodedata.numeric(chr(cp))) for cp in range(0x1369, 0x137D)}


@lru_cache(maxsize=1 << 16)
def digit_value(char: str) -> int | None:
    """The value of a decimal digit of any script (Unicode Nd), None for anything else.

    >>> digit_value("७"), digit_value("߃"), digit_value("a"), digit_value("²")
    (7, 3, None, None)
    """
    return unicodedata.decimal(char, None)


def ethiopic_value(numeral: str) -> int:
    """The value of a run of Ethiopic numerals (``፲፪፻፴፬`` = 12 x 100 + 34 = 1234).

    Units and tens add up; ``፻`` (100) multiplies what stands before it since
    the last ``፼`` (10 000), or 1; ``፼`` multiplies everything before it.

    >>> [ethiopic_value(x) for x in ("፲፪፼፴፬፻፶፮", "፻፼", "፼፼", "፪፻፭")]
    [123456, 1000000, 100000000, 205]
    """
    total = section = cur = 0
    for c in numeral:
        v = _ETHIOPIC[c]
        if v < 100:
            cur += v
        elif v == 100:
            section += (cur or 1) * 100
            cur = 0
        else:
            total = (total + section + cur or 1) * 10000
            section = cur = 0
    return total + section + cur


def _latin(char: str) -> bool:
    return char.isalpha() and unicodedata.name(char, "").startswith("LATIN")


def _run_length(text: str, i: int) -> int:
    """How many decimal digits start at ``text[i]``."""
    j = i
    while j < len(text) and digit_value(text[j]) is not None:
        j += 1
    return j - i


def numbers(text: str, *, letter_digits: bool = False) -> list[str]:
    """The numbers of ``text`` in order, as ASCII decimal strings without leading zeros (a multiset).

    A space (plain, no-break or thin) joins digit groups only as a thousands
    separator (a group of one to three digits, then exactly three), so
    ``19 500`` is one number and ``5 2021`` (a day and a year) two. With
    ``letter_digits`` a single digit touching a Latin letter is a letter, not a
    number: Arabizi writes ع as 3 and ح as 7 (``Ma3a``, ``3an``).

    >>> numbers("Ma3a 3an 35 mm, 19 500 km, 5 2021", letter_digits=True)
    ['35', '19500', '5', '2021']
    """
    text = str(text)
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in _ETHIOPIC:
            j = i
            while j < n and text[j] in _ETHIOPIC:
                j += 1
            out.append(str(ethiopic_value(text[i:j])))
            i = j
            continue
        if digit_value(c) is None:
            i += 1
            continue
        digits: list[str] = []
        j = i
        while True:
            k = j + _run_length(text, j)
            digits += [str(digit_value(x)) for x in text[j:k]]
            j = k
            if j + 1 < n and text[j] in SEPARATORS and digit_value(text[j + 1]) is not None:
                if text[j] in _SPACES and not (k - _group_start(text, k) <= 3 and _run_length(text, j + 1) == 3):
                    break  # a space joins only thousands: 19 500, not 5 2021
                j += 1
                continue
            break
        if letter_digits and len(digits) == 1 and ((i > 0 and _latin(text[i - 1])) or (j < n and _latin(text[j]))):
            i = j
            continue
        out.append(str(int("".join(digits))))
        i = j
    return out


def _group_start(text: str, k: int) -> int:
    """Where the digit group that ends at ``k`` starts."""
    while k > 0 and digit_value(text[k - 1]) is not None:
        k -= 1
    return k


def letter_digit_share(texts) -> float:
    """Share of a variant's digits that are single digits touching a Latin letter (Arabizi's letters).

    >>> letter_digit_share(["Ma3a taraju3 alma3rifa 3an judhurih", "in 1994"])
    0.8
    """
    single = total = 0
    for t in texts:
        t = str(t)
        for i, c in enumerate(t):
            if digit_value(c) is None or (i > 0 and digit_value(t[i - 1]) is not None):
                continue
            total += 1
            length = _run_length(t, i)
            end = i + length
            if length == 1 and ((i > 0 and _latin(t[i - 1])) or (end < len(t) and _latin(t[end]))):
                single += 1
    return single / total if total else 0.0


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
    mine, ref = _units(data.tables, data.kind), _units(data.pivot, data.kind)
    out = {}
    for unit, texts in mine.items():
        if unit not in ref:
            continue
        both = texts[texts.index.isin(ref[unit].index)]
        out[unit] = pd.DataFrame({"id": both.index.to_numpy(), "text": both.to_numpy(),
                                  "pivot_text": ref[unit].reindex(both.index).to_numpy()})
    return out


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
    if data.pivot_missing or data.pivot is None:
        return f"pivot variant {data.pivot_name} is not in the dataset"
    return None
