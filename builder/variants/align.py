"""Length-ratio statistics against English, and locating where alignment breaks.

A translation's length is roughly proportional to the English sentence's, so
the log length ratio ``log((len(target)+1) / (len(english)+1))`` of aligned
lines has a narrow spread around a language-specific median, while a
target line compared with the *wrong* English sentence lands far out. The
length, the ratio, the robust z-score and the numbers of a line are
:mod:`schemas.textstats`'s (the gate's ``length_ratio`` and ``numbers``
checks read them the same way). Two uses:

* :func:`schemas.textstats.robust_z` scores every aligned pair with the robust
  z-score of Iglewicz & Hoaglin (1993): ``(x - median) / (1.4826 * MAD)``;
  pairs with ``|z| > 3.5`` (their recommended cut-off) are reported as length
  outliers, never dropped.
* :func:`locate_misalignment` finds where a file stops lining up. It runs a
  banded dynamic-programming alignment in the spirit of Gale & Church (1993):
  each target line either matches the next English line, or is extra, or an
  English line has no target line (a fixed penalty each). A match costs minus
  the log-likelihood ratio "aligned vs. unrelated pair": aligned pairs follow
  N(0, 1) in z with a few (3 %) off anyway, unrelated pairs spread much wider
  (their scale is measured on pairs five lines apart), so one odd translation
  cannot outweigh its neighbours. Numbers add evidence (same digit strings:
  aligned; different: not; :func:`schemas.textstats.numbers`, so
  ``1,000`` and ``१,०००`` are one number). English is known only for the annotated lines;
  other lines are neutral (cost 0), and an empty target line costs
  :data:`EMPTY_COST`, so an extra blank line is found exactly. Where English is
  missing around a break, the break cannot be pinned to one line: every
  position whose total cost is within :data:`BREAK_SLACK` of the best is
  reported as the plausible range.

>>> import numpy as np
>>> from schemas.textstats import robust_z
>>> z = robust_z(np.log([1.0, 1.1, 0.9, 1.05, 0.95, 3.0]))
>>> int(np.argmax(np.abs(z)))
5
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from schemas.textstats import numbers, robust_scale, text_length

__all__ = ["Break", "RatioModel", "align_path", "fit_ratio_model", "locate_misalignment"]

#: Share of aligned pairs whose length ratio is off anyway (the mixture weight of the wide component).
OUTLIER_SHARE = 0.03
#: Cost of matching an empty target line (an empty line never translates anything).
EMPTY_COST = 10.0
#: Cost of one extra or missing line.
INDEL_PENALTY = 15.0
#: Log-likelihood ratios of the number evidence (aligned vs. unrelated pair): same numbers,
#: different numbers, numbers on one side only.
NUMBER_SAME, NUMBER_DIFFERENT, NUMBER_ONE_SIDED = 3.0, -2.0, -1.4
#: A break position is plausible while its cost is within this of the best one (likelihood ratio ~ e^3).
BREAK_SLACK = 3.0

_MATCH, _EXTRA, _MISSING = 0, 1, 2


@dataclass(frozen=True)
class RatioModel:
    """Median and scale of the log length ratio of aligned pairs (``shift`` used to estimate them)."""

    center: float
    scale: float
    shift: int
    n_pairs: int
    random_scale: float = 3.0  # spread of unrelated pairs, in units of ``scale``


def _log_lengths(texts: Sequence[str]) -> np.ndarray:
    return np.log(np.fromiter((text_length(t) + 1 for t in texts), dtype=float, count=len(texts)))


def fit_ratio_model(target: Sequence[str], english: Mapping[int, str], *, max_shift: int = 3) -> RatioModel:
    """Estimate the ratio model from the shift (-max_shift..max_shift) whose pairs spread least.

    When part of a file is shifted, the shift covering most lines gives the
    smallest MAD, and median and MAD stay sound while under half the pairs are off.
    """
    n = len(target)
    if not english or not n:
        return RatioModel(0.0, 1.0, 0, 0)
    tl = _log_lengths(target)
    nonempty = np.fromiter((bool(t.strip()) for t in target), dtype=bool, count=n)
    e_idx = np.array(sorted(english), dtype=int)
    el = _log_lengths([english[j] for j in e_idx])

    def pairs(shift: int) -> np.ndarray:
        i = e_idx - shift
        keep = (i >= 0) & (i < n)
        keep[keep] &= nonempty[i[keep]]
        return tl[i[keep]] - el[keep]

    best = None
    for shift in sorted(range(-max_shift, max_shift + 1), key=abs):
        arr = pairs(shift)
        if arr.size < 3:
            continue
        scale = robust_scale(arr)
        cand = RatioModel(float(np.median(arr)), scale if scale > 0 else 1e-6, shift, int(arr.size))
        if best is None or cand.scale < best.scale:
            best = cand
    if best is None:
        return RatioModel(0.0, 1.0, 0, 0)
    far = pairs(best.shift + 5)
    if far.size >= 3:
        spread = robust_scale(far) / best.scale
        best = RatioModel(best.center, best.scale, best.shift, best.n_pairs, max(spread, 2.0))
    return best


class _Costs:
    """Per-line features and the match cost of target line i against English line j."""

    def __init__(self, target: Sequence[str], english: Mapping[int, str], model: RatioModel,
                 n_expected: int | None = None):
        self.n = len(target)
        self.model = model
        self.empty = np.fromiter((not t.strip() for t in target), dtype=bool, count=self.n)
        self.tlen = _log_lengths(target)
        ids: dict[frozenset, int] = {frozenset(): 0}
        self.tnum = np.fromiter((ids.setdefault(frozenset(numbers(t)), len(ids)) for t in target), dtype=int,
                                count=self.n)
        m = max([self.n, n_expected or 0, *(j + 1 for j in english)])
        self.elen = np.full(m, np.nan)
        self.enum = np.zeros(m, dtype=int)
        for j, e in english.items():
            if j >= 0:
                self.elen[j] = math.log(text_length(e) + 1)
                self.enum[j] = ids.setdefault(frozenset(numbers(e)), len(ids))

    def _llr(self, z, a, b):
        r = self.model.random_scale
        llr = np.log((1 - OUTLIER_SHARE) * r * np.exp(-0.5 * z * z * (1 - 1 / (r * r))) + OUTLIER_SHARE)
        both = (a > 0) & (b > 0)
        llr = llr + np.where(both, np.where(a == b, NUMBER_SAME, NUMBER_DIFFERENT),
                             np.where((a > 0) | (b > 0), NUMBER_ONE_SIDED, 0.0))
        return llr

    def cost(self, i: int, j: int) -> float:
        """Minus the log-likelihood ratio that target line i translates English line j."""
        if self.empty[i]:
            return EMPTY_COST
        if j >= len(self.elen) or math.isnan(self.elen[j]):
            return 0.0
        z = (self.tlen[i] - self.elen[j] - self.model.center) / self.model.scale
        return -float(self._llr(np.asarray(z), self.tnum[i], self.enum[j]))

    def shifted(self, shift: int, n_expected: int) -> np.ndarray:
        """Cost of every target line i against English line i + shift (EMPTY_COST when out of range)."""
        i = np.arange(self.n)
        j = i + shift
        inside = (j >= 0) & (j < n_expected) & (j < len(self.elen))
        out = np.full(self.n, EMPTY_COST)
        jj = np.where(inside, j, 0)
        el = self.elen[jj]
        known = inside & ~np.isnan(el)
        z = (self.tlen - np.where(known, el, 0.0) - self.model.center) / self.model.scale
        llr = self._llr(z, self.tnum, self.enum[jj])
        out[inside] = 0.0
        out[known] = -llr[known]
        out[self.empty] = EMPTY_COST
        return out


def align_path(target: Sequence[str], english: Mapping[int, str], n_expected: int, *,
               model: RatioModel | None = None, band: int | None = None) -> list[tuple[int, int, int]]:
    """Best path of ``(move, target index, English index)`` aligning ``target`` to ``n_expected`` lines.

    ``move`` is 0 (match), 1 (target line extra) or 2 (English line missing).
    ``english`` maps English line index (0-based, within this file) to text
    for the lines that are known. ``band`` bounds ``|i - j|`` (default: the
    count difference plus 10).
    """
    costs = _Costs(target, english, model or fit_ratio_model(target, english), n_expected)
    return _best_path(costs, len(target), n_expected, band)


def _best_path(costs: "_Costs", n: int, m: int, band: int | None) -> list[tuple[int, int, int]]:
    """:func:`align_path` over the match costs already built (``n`` target lines, ``m`` expected)."""
    k = band if band is not None else abs(n - m) + 10
    width = 2 * k + 1
    inf = math.inf
    cost = [[inf] * width for _ in range(n + 1)]
    back = [[-1] * width for _ in range(n + 1)]
    cost[0][k] = 0.0  # state (i, j) sits at column j - i + k
    for i in range(n + 1):
        row, prev = cost[i], cost[i - 1] if i else None
        brow = back[i]
        for d in range(width):
            j = i + d - k
            if j < 0 or j > m or (i == 0 and j == 0):
                continue
            best, move = inf, -1
            if i and j and prev[d] < inf:  # target i-1 matches English j-1
                c = prev[d] + costs.cost(i - 1, j - 1)
                if c < best:
                    best, move = c, _MATCH
            if j and d > 0 and row[d - 1] < inf:  # English j-1 has no target line
                c = row[d - 1] + INDEL_PENALTY
                if c < best:
                    best, move = c, _MISSING
            if i and d + 1 < width and prev[d + 1] < inf:  # target i-1 is extra
                c = prev[d + 1] + INDEL_PENALTY
                if c < best:
                    best, move = c, _EXTRA
            row[d], brow[d] = best, move
    d_end = m - n + k
    if not 0 <= d_end < width or cost[n][d_end] == inf:
        return []
    path = []
    i, d = n, d_end
    while i or d != k:
        move = back[i][d]
        j = i + d - k
        path.append((move, i if move == _MISSING else i - 1, j if move == _EXTRA else j - 1))
        if move == _MATCH:
            i -= 1
        elif move == _MISSING:
            d -= 1
        else:
            i, d = i - 1, d + 1
    path.reverse()
    return path


def _max_subarray(values: np.ndarray) -> float:
    """Largest sum of a run of consecutive values (0 for none), via prefix sums."""
    prefix = np.concatenate([[0.0], np.cumsum(values)])
    return float(np.max(prefix - np.minimum.accumulate(prefix)))


def _may_be_shifted(costs: "_Costs", n: int) -> bool:
    """Cheap gate for equal counts: could any block shifted by one line pay for two breaks?"""
    c0 = costs.shifted(0, n)
    return any(_max_subarray(c0 - costs.shifted(s, n)) > 2 * INDEL_PENALTY for s in (-1, 1))


@dataclass(frozen=True)
class Break:
    """One place where a file leaves the diagonal alignment.

    ``kind`` is ``"missing"`` (an expected line is absent: from ``line`` on,
    target lines translate later English lines) or ``"extra"`` (``line`` has
    no English counterpart). Indexes are 0-based within the file. ``line`` is
    the earliest plausible position and ``last`` the latest (equal when the
    evidence pins it down); ``expected`` is the English line expected at
    ``line``, ``found`` the English line that ``line`` translates under the
    shifted alignment (None for an extra line).
    """

    kind: str
    line: int
    last: int
    expected: int
    found: int | None


def locate_misalignment(target: Sequence[str], english: Mapping[int, str], n_expected: int, *,
                        max_difference: int = 50) -> list[Break]:
    """Breaks in the alignment of ``target`` against ``n_expected`` English lines (empty list: aligned).

    Returns ``[]`` when the counts differ by more than ``max_difference``
    (too far off to locate; the count check reports it).

    >>> eng = {i: "x" * (10 + (i * 37) % 90) for i in range(40)}
    >>> tgt = [eng[i] for i in range(40) if i != 20]
    >>> [(b.kind, b.line, b.last, b.expected, b.found) for b in locate_misalignment(tgt, eng, 40)]
    [('missing', 20, 20, 20, 21)]
    """
    n = len(target)
    if abs(n - n_expected) > max_difference:
        return []
    costs = _Costs(target, english, fit_ratio_model(target, english), n_expected)
    if n == n_expected and not _may_be_shifted(costs, n):
        return []
    path = _best_path(costs, n, n_expected, None)  # the costs built once, for the path and the breaks
    events = [(pos, mv, i, j) for pos, (mv, i, j) in enumerate(path) if mv != _MATCH]
    if not events:
        return []
    cache: dict[int, np.ndarray] = {}

    def prefix(shift: int) -> np.ndarray:
        if shift not in cache:
            cache[shift] = np.concatenate([[0.0], np.cumsum(costs.shifted(shift, n_expected))])
        return cache[shift]

    breaks = []
    shift = 0
    for e, (pos, mv, i, j) in enumerate(events):
        lo = min(events[e - 1][2] + 1, i) if e else 0  # window: between the neighbouring breaks (a line can hold two)
        hi = events[e + 1][2] if e + 1 < len(events) else n
        p0 = prefix(shift)
        if mv == _MISSING:
            p1 = prefix(shift + 1)
            cand = np.arange(max(lo, 0), min(hi, n) + 1)
            total = (p0[cand] - p0[lo]) + (p1[hi] - p1[cand])
        else:
            p1 = prefix(shift - 1)
            cand = np.arange(max(lo, 0), min(hi, n - 1) + 1)
            total = (p0[cand] - p0[lo]) + (p1[hi] - p1[np.minimum(cand + 1, hi)])
        ok = cand[total <= total.min() + BREAK_SLACK] if cand.size else np.array([i])
        first, last = int(ok.min()), int(ok.max())
        if mv == _MISSING:
            shift += 1
            breaks.append(Break("missing", first, last, first + shift - 1, first + shift if first < n else None))
        else:
            breaks.append(Break("extra", first, last, first + shift, None))
            shift -= 1
    return breaks
