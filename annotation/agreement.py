"""Inter-annotator agreement: the library estimates, pairwise tables and bootstrap intervals.

Point estimates are the libraries': Fleiss' kappa as
``statsmodels.stats.inter_rater.fleiss_kappa`` computes it (written out in
:func:`library_fleiss`, which also takes the one-vs-rest tables), Cohen's kappa
per annotator pair as ``sklearn.metrics.cohen_kappa_score`` does (the fast path's
``pairwise_cohen_kappa``, :mod:`annotation.measures`), both tested against those
libraries (importing them cost each report about 3 CPU s), and Krippendorff's
alpha (nominal) from the ``krippendorff`` package. Gwet's AC1 is in none of them and is
computed from its definition (Gwet 2008) in :mod:`annotation.measures`.
Intervals are percentile bootstraps over items (:mod:`annotation.bootstrap`).

Fleiss' kappa assumes the same number of raters for every item; when that does
not hold it is reported as ``None`` with ``fleiss_kappa_reason``, and alpha,
which handles missing ratings, is the measure to read.
"""
from __future__ import annotations

import math
import warnings
from itertools import combinations
from pathlib import Path

import numpy as np

from .bootstrap import bootstrap
from .importer import Annotations
from .measures import point_estimates, scalars

DIGITS = 6


def _num(x):
    """A JSON-friendly float: rounded, ``None`` for NaN or infinity."""
    if x is None:
        return None
    x = float(x)
    return None if not math.isfinite(x) else round(x, DIGITS)


def library_fleiss(counts: np.ndarray):
    """Fleiss' kappa as statsmodels' ``fleiss_kappa(method="fleiss")`` computes it, or (None, reason)
    when raters per item differ.

    The formula is written here (the observed agreement per item against the squared label shares):
    importing statsmodels for it cost every ``annotate agreement`` and every release with an
    annotation step about 2 CPU s. ``tests/annotation/test_annotation_measures.py`` holds it to
    statsmodels on random tables.

    Fleiss (1971) as printed on Wikipedia's "Fleiss' kappa" page: 10 subjects,
    14 raters, 5 categories, kappa 0.210.

    >>> t = np.array([[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0],
    ...               [2, 2, 8, 1, 1], [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2],
    ...               [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]])
    >>> kappa, reason = library_fleiss(t)
    >>> round(kappa, 3), reason
    (0.21, None)
    """
    r = counts.sum(axis=1)
    if r.size == 0:
        return None, "no items"
    if r.min() != r.max():
        return None, (f"raters per item differ (min {int(r.min())}, max {int(r.max())}); Fleiss' kappa "
                      "needs the same number of raters for every item: read krippendorff_alpha instead")
    if r[0] < 2:
        return None, "every item has a single rating"
    table = np.asarray(counts, dtype=float)
    n = table[0].sum()  # raters per item, the same for every item
    shares = table.sum(axis=0) / table.sum()
    observed = ((table * table).sum(axis=1) - n) / (n * (n - 1))
    chance = float((shares * shares).sum())
    with np.errstate(divide="ignore", invalid="ignore"):
        value = float((observed.mean() - chance) / (1 - chance))
    return (value, None) if math.isfinite(value) else (None, "undefined: all ratings use one label")


def library_alpha(counts: np.ndarray):
    """Krippendorff's alpha (nominal) from the ``krippendorff`` package, or None if undefined.

    >>> round(library_alpha(np.array([[2, 0], [0, 2], [1, 1]])), 4)
    0.4444
    """
    import krippendorff

    pairable = counts[counts.sum(axis=1) >= 2]
    if pairable.size == 0 or np.count_nonzero(pairable.sum(axis=0)) < 2:
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            value = krippendorff.alpha(value_counts=pairable, level_of_measurement="nominal")
    except (ValueError, ZeroDivisionError):
        return None
    return float(value) if math.isfinite(value) else None


def pairwise_tables(ann: Annotations, point: dict | None = None) -> tuple[dict, list]:
    """Cohen's kappa, percent agreement and shared items for every annotator pair.

    The kappas are :mod:`annotation.measures`' (``pairwise_cohen_kappa`` of ``point``, the
    :func:`annotation.measures.point_estimates` of ``ann``; computed when not given), scikit-learn's
    ``cohen_kappa_score`` to rounding (``tests/annotation`` holds them to it). Returns the tables
    (values rounded for the report) and the unrounded defined kappas.

    >>> from annotation.importer import from_judgements
    >>> from schemas.records import Judgement as J
    >>> ann = from_judgements([J(str(i), a, "xy"[(i * (a == "b")) % 2]) for i in range(4) for a in "ab"])
    >>> tables, kappas = pairwise_tables(ann)
    >>> tables["n_shared"], kappas
    ([[4, 4], [4, 4]], [0.0])
    """
    point = point_estimates(ann.codes, len(ann.labels)) if point is None else point
    cohen = dict(zip(combinations(range(len(ann.annotators)), 2), point["pairwise_cohen_kappa"][0]))
    m = len(ann.annotators)
    kappa = [[None] * m for _ in range(m)]
    agree = [[None] * m for _ in range(m)]
    shared = [[0] * m for _ in range(m)]
    raw: list[float] = []
    for a in range(m):
        n_a = int((ann.codes[:, a] >= 0).sum())
        kappa[a][a], agree[a][a], shared[a][a] = 1.0, 1.0, n_a
    for a, b in combinations(range(m), 2):
        both = (ann.codes[:, a] >= 0) & (ann.codes[:, b] >= 0)
        n = int(both.sum())
        shared[a][b] = shared[b][a] = n
        if n == 0:
            continue
        ya, yb = ann.codes[both, a], ann.codes[both, b]
        agree[a][b] = agree[b][a] = _num((ya == yb).mean())
        k = float(cohen[a, b])  # undefined (one shared label): NaN -> None
        kappa[a][b] = kappa[b][a] = _num(k)
        if math.isfinite(k):
            raw.append(float(k))
    return {"annotators": list(ann.annotators), "cohen_kappa": kappa, "percent_agreement": agree,
            "n_shared": shared}, raw


def confusions(ann: Annotations, top: int = 10) -> list[dict]:
    """The most often confused label pairs, summed over annotator pairs on shared items.

    >>> from annotation.importer import from_judgements
    >>> from schemas.records import Judgement as J
    >>> ann = from_judgements([J("1", "a", "x"), J("1", "b", "y"), J("2", "a", "x"), J("2", "b", "x")])
    >>> confusions(ann)
    [{'labels': ['x', 'y'], 'count': 1}]
    """
    K = len(ann.labels)
    table = np.zeros((K, K), dtype=np.int64)
    for a, b in combinations(range(len(ann.annotators)), 2):
        ca, cb = ann.codes[:, a], ann.codes[:, b]
        diff = (ca >= 0) & (cb >= 0) & (ca != cb)
        np.add.at(table, (np.minimum(ca[diff], cb[diff]), np.maximum(ca[diff], cb[diff])), 1)
    rows = [(-int(table[i, j]), ann.labels[i], ann.labels[j]) for i in range(K) for j in range(i + 1, K)
            if table[i, j] > 0]
    rows.sort(key=lambda t: (t[0], sorted(t[1:])))
    return [{"labels": sorted([x, y]), "count": -c} for c, x, y in rows[:top]]


def per_category(ann: Annotations, counts: np.ndarray, constant: bool) -> tuple[str, dict]:
    """One-vs-rest agreement per label: Fleiss' kappa (statsmodels) when raters per item are
    constant, else nominal alpha (krippendorff) on the binarised counts."""
    r = counts.sum(axis=1, keepdims=True)
    out = {}
    for k, label in enumerate(ann.labels):
        binary = np.hstack([counts[:, k:k + 1], r - counts[:, k:k + 1]])
        if constant:
            value, _ = library_fleiss(binary)
        else:
            value = library_alpha(binary)
        out[label] = _num(value)
    measure = "fleiss_kappa_one_vs_rest" if constant else "krippendorff_alpha_one_vs_rest"
    return measure, out


def agreement_report(ann: Annotations, *, n_resamples: int = 1000, seed: int = 0, level: float = 0.95,
                     top_confusions: int = 10) -> dict:
    """Everything ``agreement.json`` holds, as a plain dict (floats rounded to 6 digits).

    >>> from annotation.importer import from_judgements
    >>> from schemas.records import Judgement as J
    >>> ann = from_judgements([J(str(i), a, "x" if (i + (a == "b")) % 3 else "y")
    ...                        for i in range(30) for a in "ab"])
    >>> rep = agreement_report(ann, n_resamples=100)
    >>> rep["n_items"], rep["n_annotators"], rep["krippendorff_alpha"] is not None
    (30, 2, True)
    """
    counts = ann.counts()
    r = counts.sum(axis=1)
    fleiss, reason = library_fleiss(counts)
    constant = bool(r.min() == r.max() and r[0] >= 2)
    point = point_estimates(ann.codes, len(ann.labels))
    fast = scalars(point)
    pairs, pair_values = pairwise_tables(ann, point)
    cat_measure, cat_values = per_category(ann, counts, constant)
    boot = bootstrap(ann.codes, len(ann.labels), n_resamples=n_resamples, seed=seed, level=level)
    ci = {m: (None if v is None else [_num(v[0]), _num(v[1])]) for m, v in boot.ci.items()}
    if fleiss is None:
        ci["fleiss_kappa"] = None
    cat_key = "fleiss_per_category" if constant else "krippendorff_per_category"
    cat_ci = {ann.labels[k]: (None if v is None else [_num(v[0]), _num(v[1])])
              for k, v in boot.per_category_ci[cat_key].items()}
    report = {
        "source": Path(ann.source).name,
        "n_items": ann.n_items,
        "n_annotators": len(ann.annotators),
        "n_ratings": int(r.sum()),
        "ratings_per_item": {"min": int(r.min()), "max": int(r.max()), "mean": _num(r.mean())},
        "annotators": list(ann.annotators),
        "labels": list(ann.labels),
        "label_counts": {lab: int(c) for lab, c in zip(ann.labels, counts.sum(axis=0))},
        "fleiss_kappa": _num(fleiss),
        "krippendorff_alpha": _num(library_alpha(counts)),
        "mean_cohen_kappa": _num(np.mean(pair_values)) if pair_values else None,
        "gwet_ac1": _num(fast["gwet_ac1"]),
        "percent_agreement": _num(fast["percent_agreement"]),
        "observed_agreement": {
            "fleiss_kappa": _num(fast["fleiss_observed"]) if fleiss is not None else None,
            "krippendorff_alpha": _num(fast["krippendorff_observed"]),
            "gwet_ac1": _num(fast["gwet_observed"]),
        },
        "expected_agreement": {
            "fleiss_kappa": _num(fast["fleiss_expected"]) if fleiss is not None else None,
            "krippendorff_alpha": _num(fast["krippendorff_expected"]),
            "gwet_ac1": _num(fast["gwet_expected"]),
        },
        "per_category": cat_values,
        "per_category_measure": cat_measure,
        "ci": ci,
        "per_category_ci": cat_ci,
        "bootstrap": {"method": "percentile", "unit": "item", "n_resamples": boot.n_resamples,
                      "seed": boot.seed, "level": boot.level, "n_valid": boot.n_valid},
        "pairwise": pairs,
        "confusions": confusions(ann, top_confusions),
        "skipped": dict(ann.skipped),
        "skipped_ids": {k: list(v) for k, v in ann.skipped_ids.items()},
    }
    if fleiss is None:
        report["fleiss_kappa_reason"] = reason
    return report
