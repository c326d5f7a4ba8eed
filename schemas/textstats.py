"""Text statistics every stage reads the same way: lengths and their ratios, robust z-scores, numbers.

One owner for what ``builder extend`` (:mod:`builder.variants.align`) and the
gate's translation checks (:mod:`qc.length_ratio`, :mod:`qc.numbers_check`)
both measure, so a variant is judged by the same definition when it is made
and when it is released.

**Lengths.** :func:`text_length` counts characters without surrounding
whitespace; :func:`log_ratio` is ``log((len(target) + 1) / (len(pivot) + 1))``.
A translation's length is roughly proportional to its source's, so the log
ratios of one variant's aligned units have a narrow spread around a
language-specific median; a unit compared with the wrong sentence, or a
truncated one, lands far out. :func:`robust_z` scores each value with the
robust z-score of Iglewicz & Hoaglin (1993), ``(x - median) / (1.4826 * MAD)``;
they recommend ``|z| > 3.5`` as the outlier cut-off (:data:`OUTLIER_Z`).

**Numbers.** :func:`numbers` reads the numbers of a text whatever script its
digits are written in: every Unicode decimal digit (general category Nd:
ASCII, Arabic-Indic, Extended Arabic-Indic, Devanagari, Bengali, N'Ko, Thai,
Tibetan, Myanmar, fullwidth...) by its :func:`unicodedata.decimal` value
(:func:`digit_value`), and Ethiopic numerals (category No: additive, not
positional) by their value. Digits are found by Python's own Unicode
database, never by a regular-expression engine's (the ``regex`` package
knows newer digits, such as Kawi's, that Python 3.11's ``unicodedata`` has
no value for). A group or decimal mark (``,`` ``.`` ``'``, Arabic ``،``
``٫`` ``٬``, Urdu ``۔`` as in ``3۔7``; a space, no-break or thin, between
thousands only) between two digits joins them, so ``1,000``, ``1.000``,
``1 000`` and ``1,00,000`` (lakh grouping) read as ``1000`` and ``100000``:
translations regroup digits and swap decimal marks, which is not a different
number. A colon does not join: ``9:00`` is 9 and 0 (and ``9.00`` is 900),
since ``6:6`` is a score where English writes ``6-6``.

>>> numbers("In 1994, ߁߉߉߄ and ١٢ or 12; ፲፪፻፴፬ km, 19،500")
['1994', '1994', '12', '12', '1234', '19500']
>>> numbers("3,5 km vs 3.5 km, at 09:00")
['35', '35', '9', '0']
>>> z = robust_z(np.log([1.0, 1.1, 0.9, 1.05, 0.95, 3.0]))
>>> int(np.argmax(np.abs(z))), round(float(z[5]), 1)
(5, 9.9)
"""
from __future__ import annotations

import math
import re
import unicodedata
from functools import lru_cache
from typing import Iterable

import numpy as np

#: |robust z| above this is an outlier (Iglewicz & Hoaglin 1993, "How to detect and handle outliers", §3.2).
OUTLIER_Z = 3.5

#: Characters that join the digits on either side into one number (group and decimal marks).
SEPARATORS = frozenset(",.'\u060c\u066b\u066c\u06d4 \u00a0\u202f\u2009")
_SPACES = frozenset(" \u00a0\u202f\u2009")
#: Ethiopic numerals (U+1369-U+137C): their numeric values.
_ETHIOPIC = {chr(cp): int(unicodedata.numeric(chr(cp))) for cp in range(0x1369, 0x137D)}
#: Where a number may start. The standard library's ``re`` reads ``\d`` from Python's own Unicode
#: database (the one ``unicodedata.decimal`` uses); it only skips ahead, :func:`digit_value` decides.
_START = re.compile(r"[\d\u1369-\u137c]")
_DIGIT_RUNS = re.compile(r"\d+")  # \d is Unicode Nd, the characters digit_value reads


# --- lengths -------------------------------------------------------------------------------------------------


def text_length(text: str) -> int:
    """Characters of ``text`` without surrounding whitespace (the unit of length ratios).

    >>> text_length("  नमस्ते  ")
    6
    """
    return len(str(text).strip())


def log_ratio(target: str, pivot: str) -> float:
    """``log((len(target) + 1) / (len(pivot) + 1))``: 0 for equal lengths, +1 when ``target`` is e times longer.

    >>> round(log_ratio("abc", "abc"), 3), round(log_ratio("", "abc"), 3)
    (0.0, -1.386)
    """
    return math.log((text_length(target) + 1) / (text_length(pivot) + 1))


def robust_scale(values) -> float:
    """The normal-consistent MAD, ``1.4826 * median(|x - median(x)|)`` (scipy's ``scale="normal"``).

    >>> round(robust_scale([1.0, 2.0, 3.0, 4.0, 100.0]), 4)
    1.4826
    """
    from scipy.stats import median_abs_deviation

    return float(median_abs_deviation(np.asarray(values, dtype=float), scale="normal"))


def robust_z(values, *, center: float | None = None, scale: float | None = None) -> np.ndarray:
    """Robust z-scores ``(x - median) / (1.4826 * MAD)`` (Iglewicz & Hoaglin 1993).

    ``center`` and ``scale`` default to the median and :func:`robust_scale` of
    ``values``. A zero scale (more than half the values equal) gives z = 0 for
    values at the centre and +/-inf elsewhere.

    >>> robust_z([1.0, 2.0, 3.0, 4.0, 100.0]).round(2).tolist()
    [-1.35, -0.67, 0.0, 0.67, 65.43]
    >>> robust_z([2.0, 2.0, 2.0, 1.0, 5.0]).tolist()
    [0.0, 0.0, 0.0, -inf, inf]
    """
    values = np.asarray(values, dtype=float)
    if values.size == 0:
        return values
    if center is None:
        center = float(np.median(values))
    if scale is None:
        scale = robust_scale(values)
    diff = values - center
    if scale == 0:
        return np.select([diff > 0, diff < 0], [np.inf, -np.inf], 0.0)
    return diff / scale


# --- numbers -------------------------------------------------------------------------------------------------


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


def _group_start(text: str, k: int) -> int:
    """Where the digit group that ends at ``k`` starts."""
    while k > 0 and digit_value(text[k - 1]) is not None:
        k -= 1
    return k


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
        found = _START.search(text, i)
        if found is None:
            break
        i = found.start()
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


def letter_digit_share(texts: Iterable[str]) -> float:
    """Share of a variant's digits that are single digits touching a Latin letter (Arabizi's letters).

    >>> letter_digit_share(["Ma3a taraju3 alma3rifa 3an judhurih", "in 1994"])
    0.8
    """
    single = total = 0
    for t in texts:
        t = str(t)
        for run in _DIGIT_RUNS.finditer(t):  # each maximal run of decimal digits
            total += 1
            i, end = run.span()
            if end - i == 1 and ((i > 0 and _latin(t[i - 1])) or (end < len(t) and _latin(t[end]))):
                single += 1
    return single / total if total else 0.0
