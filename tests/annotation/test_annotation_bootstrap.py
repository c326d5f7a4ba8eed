"""The vectorised item bootstrap: seeded, deterministic, consistent with the point estimates."""
from __future__ import annotations

import numpy as np
import pytest

from annotation.bootstrap import BLOCK, bootstrap, resample_weights
from annotation.measures import fast_measures, item_features, measures_from_sums


def _codes(n=600, raters=4, k=6, seed=3, missing=0.0):
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, k, n)
    codes = np.where(rng.random((n, raters)) < 0.6, truth[:, None], rng.integers(0, k, (n, raters)))
    if missing:
        codes[rng.random((n, raters)) < missing] = -1
        codes[:, 0] = np.where((codes >= 0).sum(axis=1) < 2, truth, codes[:, 0])
        codes[:, 1] = np.where((codes >= 0).sum(axis=1) < 2, truth, codes[:, 1])
    return codes.astype(np.int32), k


def test_same_seed_same_interval_other_seed_other_interval():
    codes, k = _codes()
    a = bootstrap(codes, k, n_resamples=300, seed=0)
    b = bootstrap(codes, k, n_resamples=300, seed=0)
    c = bootstrap(codes, k, n_resamples=300, seed=1)
    assert a.ci == b.ci
    assert a.ci["krippendorff_alpha"] != c.ci["krippendorff_alpha"]
    assert a.n_valid["gwet_ac1"] == 300 and a.seed == 0 and a.level == 0.95


def test_intervals_bracket_the_point_estimates():
    codes, k = _codes(missing=0.2)
    point = fast_measures(codes, k)
    res = bootstrap(codes, k, n_resamples=400, seed=0)
    for m in ("krippendorff_alpha", "mean_cohen_kappa", "gwet_ac1", "percent_agreement"):
        lo, hi = res.ci[m]
        assert lo < point[m] < hi, m
    assert res.ci["fleiss_kappa"] is None  # raters per item differ


def test_weighted_sums_equal_a_materialised_resample():
    """W @ X for one replicate equals the measures on the explicitly resampled items."""
    codes, k = _codes(n=200)
    rng = np.random.default_rng(5)
    w = resample_weights(rng, 1, len(codes))[0]
    X, layout = item_features(codes, k)
    fast = {m: v[0] for m, v in measures_from_sums((w @ X)[None, :], layout).items() if v.ndim == 1}
    explicit = fast_measures(np.repeat(codes, w, axis=0), k)
    for m in ("fleiss_kappa", "krippendorff_alpha", "mean_cohen_kappa", "gwet_ac1"):
        assert fast[m] == pytest.approx(explicit[m], abs=1e-12), m


def test_blocks_do_not_change_the_replicate_count():
    codes, k = _codes(n=50)
    res = bootstrap(codes, k, n_resamples=BLOCK + 7, seed=0)
    assert res.n_valid["krippendorff_alpha"] == BLOCK + 7


def test_zero_resamples_gives_no_interval():
    codes, k = _codes(n=50)
    res = bootstrap(codes, k, n_resamples=0)
    assert res.ci["gwet_ac1"] is None and res.n_valid["gwet_ac1"] == 0
