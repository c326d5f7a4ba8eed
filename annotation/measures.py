"""Agreement measures as functions of per-item sums, so a bootstrap is one matrix product.

Every coefficient here is a ratio of sums over items. :func:`item_features`
turns the per-item label counts ``n_ik`` (and the pairwise code columns for
Cohen's kappa) into a features matrix ``X`` (items x features);
``S = W @ X`` sums it under item weights ``W`` (one row of ones for the point
estimate, one row of multinomial resample counts per bootstrap replicate), and
:func:`measures_from_sums` evaluates the formulas on ``S``. Names follow the
references:

* Fleiss (1971): ``P_i``, ``P_bar``, ``p_j``, ``P_e``; category kappa
  ``kappa_j = 1 - sum_i n_ij (n - n_ij) / (N n (n-1) p_j q_j)``.
* Krippendorff (2011), nominal: pairable units (``m_u >= 2``), observed
  agreement ``A_o = sum_u sum_c n_uc (n_uc - 1) / (m_u - 1) / n``, expected
  ``A_e = sum_c n_c (n_c - 1) / (n (n - 1))``, ``alpha = (A_o - A_e) / (1 - A_e)``.
* Gwet (2008), AC1 for several raters with missing ratings (as in irrCAC's
  ``gwet.ac1.raw``): ``p_a`` over items with ``r_i >= 2``,
  ``pi_k = mean_i n_ik / r_i`` over items with ``r_i >= 1``,
  ``p_e = sum_k pi_k (1 - pi_k) / (q - 1)``.
* Cohen (1960) for each annotator pair on the items both rated.

The library values (statsmodels, krippendorff, scikit-learn) are the point
estimates reported; this module is the fast path for the bootstrap, and
``tests/annotation`` checks that both agree on the full data.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np


@dataclass(frozen=True)
class FeatureLayout:
    """Where each group of features sits in the columns of ``X``."""

    n_labels: int
    pairs: tuple  # (a, b) annotator index pairs for Cohen's kappa
    constant_raters: int  # raters per item when constant, else 0
    slices: dict


def item_features(codes: np.ndarray, n_labels: int) -> tuple[np.ndarray, FeatureLayout]:
    """Per-item features for all measures; see the module docstring.

    >>> X, layout = item_features(np.array([[0, 0], [0, 1]]), 2)
    >>> X.shape[0], layout.constant_raters
    (2, 2)
    """
    from .importer import code_counts

    codes = np.asarray(codes)
    K = n_labels
    n = code_counts(codes, K).astype(np.float64)  # n_ik
    r = n.sum(axis=1)  # r_i, ratings per item
    has1 = (r >= 1).astype(np.float64)
    m2 = (r >= 2).astype(np.float64)
    r_safe = np.where(r >= 1, r, 1.0)
    rm1_safe = np.where(r >= 2, r - 1.0, 1.0)
    pair_agree = (n * (n - 1.0)).sum(axis=1)  # sum_k n_ik (n_ik - 1): ordered agreeing pairs
    rated = r[r >= 1]
    constant = int(rated[0]) if rated.size and np.all(rated == rated[0]) and rated[0] >= 2 else 0

    cols: list[np.ndarray] = []
    slices: dict[str, slice] = {}

    def add(name: str, block: np.ndarray) -> None:
        block = block.reshape(len(r), -1)
        start = sum(c.shape[1] for c in cols)
        cols.append(block)
        slices[name] = slice(start, start + block.shape[1])

    add("one", np.ones_like(r))
    # Fleiss (constant raters n): P_i and n_ij; category kappa needs n_ij (n - n_ij)
    add("fleiss_Pi", (pair_agree / (r_safe * rm1_safe)) * m2)
    add("n", n)
    add("fleiss_cat", n * (r[:, None] - n))
    # Krippendorff nominal: only pairable units
    add("kr_Ao", m2 * pair_agree / rm1_safe)
    add("kr_n", m2 * r)
    add("kr_nc", m2[:, None] * n)
    rest = r[:, None] - n
    add("kr_cat_Ao", m2[:, None] * (n * (n - 1.0) + rest * (rest - 1.0)) / rm1_safe[:, None])
    # Gwet AC1
    add("ac1_pa", m2 * pair_agree / (r_safe * rm1_safe))
    add("m2", m2)
    add("ac1_pi", has1[:, None] * n / r_safe[:, None])
    add("has1", has1)
    # Cohen's kappa per annotator pair: both, agree, one-hot of a and b on shared items
    pairs = tuple(combinations(range(codes.shape[1]), 2))
    eye = np.eye(K, dtype=np.float64)
    for a, b in pairs:
        ca, cb = codes[:, a], codes[:, b]
        both = (ca >= 0) & (cb >= 0)
        add(f"pair{a}_{b}_both", both.astype(np.float64))
        add(f"pair{a}_{b}_agree", (both & (ca == cb)).astype(np.float64))
        add(f"pair{a}_{b}_a", eye[np.where(both, ca, 0)] * both[:, None])
        add(f"pair{a}_{b}_b", eye[np.where(both, cb, 0)] * both[:, None])
    X = np.hstack(cols)
    return X, FeatureLayout(K, pairs, constant, slices)


def _ratio(num, den):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den != 0, num / np.where(den != 0, den, 1.0), np.nan)


def _chance_corrected(po, pe):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(pe < 1.0 - 1e-12, (po - pe) / np.where(pe < 1.0 - 1e-12, 1.0 - pe, 1.0), np.nan)


def measures_from_sums(S: np.ndarray, layout: FeatureLayout) -> dict[str, np.ndarray]:
    """Evaluate every measure on summed features ``S`` (replicates x features).

    Returns arrays of shape (replicates,) for scalar measures and
    (replicates, n_labels) for ``per_category``; undefined values are NaN.

    >>> X, layout = item_features(np.array([[0, 0], [1, 1], [0, 1]]), 2)
    >>> out = measures_from_sums(X.sum(axis=0, keepdims=True), layout)
    >>> round(float(out["krippendorff_alpha"][0]), 4), round(float(out["gwet_ac1"][0]), 4)
    (0.4444, 0.3333)
    """
    S = np.atleast_2d(S)
    g = {name: S[:, sl] for name, sl in layout.slices.items()}
    K = layout.n_labels
    out: dict[str, np.ndarray] = {}

    # Fleiss
    N = g["one"][:, 0]
    if layout.constant_raters:
        nr = float(layout.constant_raters)
        P_bar = g["fleiss_Pi"][:, 0] / N
        p_j = g["n"] / (N[:, None] * nr)
        P_e = (p_j ** 2).sum(axis=1)
        out["fleiss_kappa"] = _chance_corrected(P_bar, P_e)
        out["fleiss_observed"], out["fleiss_expected"] = P_bar, P_e
        pq = p_j * (1.0 - p_j)
        out["fleiss_per_category"] = 1.0 - _ratio(g["fleiss_cat"], N[:, None] * nr * (nr - 1.0) * pq)
    else:
        nan = np.full(S.shape[0], np.nan)
        out["fleiss_kappa"] = out["fleiss_observed"] = out["fleiss_expected"] = nan
        out["fleiss_per_category"] = np.full((S.shape[0], K), np.nan)

    # Krippendorff nominal
    n_tot = g["kr_n"][:, 0]
    n_c = g["kr_nc"]
    A_o = _ratio(g["kr_Ao"][:, 0], n_tot)
    A_e = _ratio((n_c * (n_c - 1.0)).sum(axis=1), n_tot * (n_tot - 1.0))
    out["krippendorff_alpha"] = _chance_corrected(A_o, A_e)
    out["krippendorff_observed"], out["krippendorff_expected"] = A_o, A_e
    A_o_cat = _ratio(g["kr_cat_Ao"], n_tot[:, None])
    rest_c = n_tot[:, None] - n_c
    A_e_cat = _ratio(n_c * (n_c - 1.0) + rest_c * (rest_c - 1.0), (n_tot * (n_tot - 1.0))[:, None])
    out["krippendorff_per_category"] = _chance_corrected(A_o_cat, A_e_cat)

    # Gwet AC1
    pa = _ratio(g["ac1_pa"][:, 0], g["m2"][:, 0])
    pi = _ratio(g["ac1_pi"], g["has1"][:, :1])
    pe = (pi * (1.0 - pi)).sum(axis=1) / (K - 1) if K > 1 else np.full(S.shape[0], np.nan)
    out["gwet_ac1"] = _chance_corrected(pa, pe)
    out["gwet_observed"], out["gwet_expected"] = pa, pe
    out["percent_agreement"] = pa

    # Cohen per pair, then the mean over pairs
    kappas = []
    for a, b in layout.pairs:
        both = g[f"pair{a}_{b}_both"][:, 0]
        po = _ratio(g[f"pair{a}_{b}_agree"][:, 0], both)
        pe_ab = _ratio((g[f"pair{a}_{b}_a"] * g[f"pair{a}_{b}_b"]).sum(axis=1), both ** 2)
        kappas.append(_chance_corrected(po, pe_ab))
    if kappas:
        k = np.vstack(kappas).T
        out["pairwise_cohen_kappa"] = k
        with np.errstate(invalid="ignore"), _quiet():
            out["mean_cohen_kappa"] = np.nanmean(k, axis=1)
    else:
        out["pairwise_cohen_kappa"] = np.empty((S.shape[0], 0))
        out["mean_cohen_kappa"] = np.full(S.shape[0], np.nan)
    return out


class _quiet:
    """Silence numpy's 'Mean of empty slice' warning (an all-NaN row stays NaN)."""

    def __enter__(self):
        import warnings

        self._ctx = warnings.catch_warnings()
        self._ctx.__enter__()
        warnings.simplefilter("ignore", RuntimeWarning)

    def __exit__(self, *exc):
        return self._ctx.__exit__(*exc)


def fast_measures(codes: np.ndarray, n_labels: int) -> dict[str, float]:
    """All scalar measures on the full data through the fast path (no bootstrap).

    Worked example: Krippendorff (2011), 4 coders x 12 units with missing values,
    nominal alpha 0.743; the same data is irrCAC's ``cac.raw4raters``, AC1 0.775.

    >>> c = np.array([[0, 0, -1, 0], [1, 1, 2, 1], [2, 2, 2, 2], [2, 2, 2, 2], [1, 1, 1, 1],
    ...               [0, 1, 2, 3], [3, 3, 3, 3], [0, 0, 1, 0], [1, 1, 1, 1], [-1, 4, 4, 4],
    ...               [-1, -1, 0, 0], [-1, 2, -1, -1]])
    >>> m = fast_measures(c, 5)
    >>> round(m["krippendorff_alpha"], 3), round(m["gwet_ac1"], 3)
    (0.743, 0.775)
    """
    return scalars(point_estimates(codes, n_labels))


def point_estimates(codes: np.ndarray, n_labels: int) -> dict[str, np.ndarray]:
    """Every measure on the full data, per-pair and per-category arrays included (one replicate)."""
    X, layout = item_features(codes, n_labels)
    return measures_from_sums(X.sum(axis=0, keepdims=True), layout)


def scalars(point: dict[str, np.ndarray]) -> dict[str, float]:
    """The scalar measures of :func:`point_estimates` as floats."""
    return {k: float(v[0]) for k, v in point.items() if v.ndim == 1}
