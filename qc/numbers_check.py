"""Check ``numbers``: the numbers of a variant's unit differ from the pivot's at the same id.

(The module is not called ``numbers``: that would shadow the standard library's on a path.)

Numbers are read by :func:`schemas.textstats.numbers` (every script's decimal
digits and Ethiopic numerals as ASCII, group and decimal marks joined; the
reading ``builder extend`` aligns with) and
compared as multisets: the order may change in translation, the numbers may
not. A warning, never gated by default (``gate: false``): a translation may
legitimately write a number as a word ("two"), convert a unit or a date, or
drop a redundant digit. A *conflict* (each side has a number the other lacks:
``2019`` for ``2009``, or numbers of another sentence) is likelier an error
than a number written out; conflicts are counted and listed first. The
detail names the first ids with both lists; the
value is the share of the units with numbers on either side that differ, and
the check passes at or below ``max_share``. Where more than
``letter_digit_share`` of a variant's digits are single digits touching a
Latin letter, its digits are letters (Arabizi: ``Ma3a``, ``3an``), and such
digits are not numbers, in the variant nor in the pivot (``8th`` then reads
as no number on both sides).

>>> import pandas as pd
>>> piv = {"test": pd.DataFrame({"index_id": [1, 2], "text": ["In 1994, 12 men.", "None here."]})}
>>> mine = {"test": pd.DataFrame({"index_id": [1, 2], "text": ["En १९९४, 13 hommes.", "Rien."]})}
>>> r = run(VariantData("fra_Latn", "topic", mine, pivot=piv), {"max_share": 0.0, "letter_digit_share": 0.5})[0]
>>> r.passed, r.extra["examples"]
(False, [{'id': 'texts:test/1', 'variant': ['13', '1994'], 'pivot': ['12', '1994'], 'conflict': True}])
"""
from __future__ import annotations

from collections import Counter

from schemas.textstats import letter_digit_share, numbers

from .result import CheckResult, VariantData, skipped
from .translation import why_not_compared

NAME = "numbers"
KINDS = ("mc", "topic")


def run(data: VariantData, params: dict) -> list[CheckResult]:
    pairs, why = why_not_compared(data)
    if why:
        return [skipped(data.variant, NAME, why)]
    letters = letter_digit_share(t for frame in pairs.values() for t in frame["text"].tolist())
    as_letters = letters > params["letter_digit_share"]
    with_numbers, differ = 0, []
    for unit, frame in pairs.items():
        for key, text, ref in zip(frame["id"].tolist(), frame["text"].tolist(), frame["pivot_text"].tolist()):
            mine, theirs = numbers(text, letter_digits=as_letters), numbers(ref, letter_digits=as_letters)
            if not mine and not theirs:
                continue
            with_numbers += 1
            a, b = Counter(mine), Counter(theirs)
            if a != b:
                differ.append({"id": f"{unit}:{key}", "variant": sorted(mine, key=_order),
                               "pivot": sorted(theirs, key=_order), "conflict": bool(a - b) and bool(b - a)})
    differ.sort(key=lambda d: not d["conflict"])  # stable: the conflicts first, each group in table order
    conflicts = sum(d["conflict"] for d in differ)
    share = len(differ) / with_numbers if with_numbers else 0.0
    passed = share <= params["max_share"]
    shown = "; ".join(f"{d['id']}: {_list(d['variant'])} vs {_list(d['pivot'])}" for d in differ[:5])
    return [CheckResult(
        data.variant, NAME, passed, value=share, threshold=params["max_share"],
        reason=None if passed else "numbers_differ",
        detail=(f"vs {data.pivot_name}: {len(differ)} of {with_numbers} units with numbers have other numbers "
                f"({share:.1%}, max {params['max_share']:.0%}); {conflicts} with a number of each side missing "
                "on the other (a changed number, or another sentence)"
                + (f"; {letters:.0%} of the digits are single digits in Latin words, read as letters (Arabizi) "
                   "on both sides" if as_letters else "")
                + (f"; first (here vs pivot): {shown}" if shown else "")),
        extra={"pivot": data.pivot_name, "units_with_numbers": with_numbers, "differ": len(differ),
               "conflicts": conflicts,
               "letter_digit_share": letters, "digits_as_letters": as_letters, "examples": differ[:20]})]


def _order(n: str) -> tuple[int, str]:
    return (len(n), n)


def _list(values: list[str]) -> str:
    return "[" + ", ".join(values) + "]" if values else "[]"
