"""Percentile bootstrap over items, vectorised: one matrix product per block of replicates.

A replicate draws ``N`` items with replacement; item ``i`` then carries weight
``w_i`` (how often it was drawn). Every measure is a ratio of item sums
(:mod:`annotation.measures`), so ``W @ X`` gives the sums of all replicates of a
block at once. The draws come from ``numpy.random.default_rng(seed)`` in
blocks of fixed size, so a seed gives the same intervals on every run.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .measures import item_features, measures_from_sums

#: Replicates per matrix product; bounds memory to BLOCK x N float64 weights.
BLOCK = 200

SCALAR_MEASURES = ("fleiss_kappa", "krippendorff_alpha", "mean_cohen_kappa", "gwet_ac1",
                   "percent_agreement")


@dataclass(frozen=True)
class BootstrapResult:
    """Confidence intervals and how many replicates were defined for each measure."""

    ci: dict  # measure -> [low, high] or None
    per_category_ci: dict  # measure -> {label index: [low, high] or None}
    n_valid: dict  # measure -> number of replicates with a defined value
    n_resamples: int
    seed: int
    level: float


def resample_weights(rng: np.random.Generator, n_rep: int, n_items: int) -> np.ndarray:
    """``n_rep`` x ``n_items`` matrix of draw counts; each row sums to ``n_items``.

    >>> w = resample_weights(np.random.default_rng(0), 3, 5)
    >>> w.shape, w.sum(axis=1).tolist()
    ((3, 5), [5, 5, 5])
    """
    idx = rng.integers(0, n_items, size=(n_rep, n_items))
    idx += (np.arange(n_rep) * n_items)[:, None]
    return np.bincount(idx.ravel(), minlength=n_rep * n_items).reshape(n_rep, n_items)


def unique_columns(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Drop repeated feature columns: ``X == X_u[:, inverse]``.

    With complete ratings many features coincide (every pair's "both rated"
    column, each annotator's one-hot columns across its pairs), so the matrix
    product shrinks by about half. Columns are grouped by a fingerprint and
    compared exactly.

    >>> X = np.array([[1., 2., 1.], [0., 5., 0.]])
    >>> Xu, inv = unique_columns(X)
    >>> Xu.shape[1], inv.tolist()
    (2, [0, 1, 0])
    """
    probe = np.random.default_rng(12345).random(X.shape[0])
    keys = np.round(probe @ X, 9)
    first: dict = {}
    keep: list[int] = []
    inverse = np.empty(X.shape[1], dtype=np.int64)
    for f in range(X.shape[1]):
        for u in first.get(keys[f], ()):
            if np.array_equal(X[:, keep[u]], X[:, f]):
                inverse[f] = u
                break
        else:
            first.setdefault(keys[f], []).append(len(keep))
            inverse[f] = len(keep)
            keep.append(f)
    return np.ascontiguousarray(X[:, keep]), inverse


def _interval(values: np.ndarray, level: float):
    ok = values[np.isfinite(values)]
    if ok.size == 0:
        return None, 0
    tail = (1.0 - level) / 2.0 * 100.0
    lo, hi = np.percentile(ok, [tail, 100.0 - tail])
    return [float(lo), float(hi)], int(ok.size)


def bootstrap(codes: np.ndarray, n_labels: int, *, n_resamples: int = 1000, seed: int = 0,
              level: float = 0.95) -> BootstrapResult:
    """Percentile confidence intervals for the agreement measures, resampling items.

    Parameters
    ----------
    codes : ndarray of int, shape (n_items, n_annotators)
        Label codes, -1 for a missing rating.
    n_labels : int
        Size of the label set.
    n_resamples : int
        Bootstrap replicates (0 disables the bootstrap).
    seed : int
        Seed of ``numpy.random.default_rng``.
    level : float
        Coverage of the interval, e.g. 0.95.

    >>> c = np.array([[0, 0], [1, 1], [0, 1], [1, 1], [0, 0], [1, 0]])
    >>> res = bootstrap(c, 2, n_resamples=200, seed=0)
    >>> lo, hi = res.ci["krippendorff_alpha"]
    >>> lo < hi, res.seed
    (True, 0)
    """
    X, layout = item_features(codes, n_labels)
    Xu, inverse = unique_columns(X)
    rng = np.random.default_rng(seed)
    n_items = Xu.shape[0]
    scal: dict[str, list] = {m: [] for m in SCALAR_MEASURES}
    cats: dict[str, list] = {"fleiss_per_category": [], "krippendorff_per_category": []}
    done = 0
    while done < n_resamples:
        size = min(BLOCK, n_resamples - done)
        W = resample_weights(rng, size, n_items).astype(np.float64)
        out = measures_from_sums((W @ Xu)[:, inverse], layout)
        for m in scal:
            scal[m].append(out[m])
        for m in cats:
            cats[m].append(out[m])
        done += size
    ci, n_valid, per_cat = {}, {}, {}
    for m, parts in scal.items():
        values = np.concatenate(parts) if parts else np.empty(0)
        ci[m], n_valid[m] = _interval(values, level)
    for m, parts in cats.items():
        values = np.vstack(parts) if parts else np.empty((0, n_labels))
        per_cat[m] = {k: _interval(values[:, k], level)[0] for k in range(n_labels)}
    return BootstrapResult(ci, per_cat, n_valid, n_resamples, seed, level)
