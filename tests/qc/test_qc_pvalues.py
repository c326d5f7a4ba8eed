"""Each gated test's p-value is valid under its own null (issue 28): small simulations with fixed seeds.

The null of the gate's tests about options is the random answer key: the
options of every question fixed, the correct position uniform and independent
across questions. Under it a valid p-value is uniform or stochastically larger,
so over R replicates the number of p < alpha is at most Binomial(R, alpha);
each test allows its 0.999 quantile. The old tests fail these bounds: the
binomial test on cross-validated probe accuracy (folds are not independent
trials: the variance of the hits was 1.65 times the binomial one here and 21
of 200 keys gave p < 0.05, bound 19) and Welch's t on options that compete
within a question (38 of 400 p < 0.05, bound 35; 19 p < 0.01, bound 11).
"""
from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from oracles import stats

from qc import overlap_ttest as O
from qc.bow_probe import probe_accuracy
from qc.tokens import TokenCache


def _bound(replicates: int, alpha: float) -> int:
    return int(stats.binom.ppf(0.999, replicates, alpha))


def _key_frame(values: np.ndarray, key: np.ndarray) -> pd.DataFrame:
    """The (question, option) rows qc.overlap.option_features gives, for one feature ``f``."""
    n = len(values)
    correct = (np.arange(4)[None, :] == key[:, None]).ravel()
    return pd.DataFrame({"option": np.tile(np.arange(1, 5), n), "correct": correct, "f": values.ravel()})


def test_probe_hits_are_binomial_under_random_keys():
    # six one-word options: a word's chance association with the key is learnt by every fold (old CV: 1.65)
    rng = np.random.default_rng(0)
    n, keys = 80, 200
    opts = rng.choice(["alpha", "bravo", "charlie", "delta", "echo", "foxtrot"], size=(n, 4))
    base = pd.DataFrame({"passage_id": [f"p{i // 2}" for i in range(n)], "passage": "x", "question": "which one",
                         **{f"answer{k + 1}": opts[:, k] for k in range(4)}})
    cache = TokenCache()
    hits, ps = [], []
    for k in range(keys):
        frame = base.assign(correct_answer_num=np.random.default_rng(k).integers(1, 5, size=n))
        r = probe_accuracy(frame, seed=0, features="option", cache=cache, language="eng_Latn")
        hits.append(r["correct"])
        ps.append(r["p_value"])
    scored = r["n"]
    ratio = np.var(hits, ddof=1) / (scored * 0.25 * 0.75)
    assert ratio < 1.4, ratio  # chi2(199)/199 exceeds 1.4 with probability < 1e-4
    assert sum(p < 0.05 for p in ps) <= _bound(keys, 0.05)


def test_competing_options_keep_the_overlap_test_at_its_level():
    # one option of each question has the feature, the others not: correct and wrong compete, so Welch's
    # variance (options as independent observations) is 3/4 of the true one
    rng = np.random.default_rng(1)
    n, keys = 60, 400
    values = (np.arange(4)[None, :] == rng.integers(4, size=n)[:, None]).astype(float)
    values += rng.random((n, 4)) * 0.01
    ps = [O.feature_ttest(_key_frame(values, np.random.default_rng(k).integers(4, size=n)), "f", seed=k)["p"]
          for k in range(keys)]
    assert sum(p < 0.05 for p in ps) <= _bound(keys, 0.05)
    assert sum(p < 0.01 for p in ps) <= _bound(keys, 0.01)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_overlap_pvalue_is_at_least_the_exact_randomization_pvalue(seed):
    # six questions, skewed values: the exact p-value by enumerating all 4^6 keys
    rng = np.random.default_rng(seed)
    values = np.where(rng.random((6, 4)) < 0.2, rng.exponential(3, (6, 4)), rng.random((6, 4)))
    d = 4 / 3 * (values - values.mean(axis=1, keepdims=True))
    sums = np.array([d[np.arange(6), list(key)].sum() for key in itertools.product(range(4), repeat=6)])
    for key in (np.argmax(values, axis=1), rng.integers(4, size=6)):
        observed = d[np.arange(6), key].sum()
        exact = np.mean(np.abs(sums) >= abs(observed) - 1e-12)
        p = O.feature_ttest(_key_frame(values, key), "f")["p"]
        assert exact <= p <= 1.3 * exact + 0.02, (p, exact)


def test_randomization_pvalue_tail_matches_monte_carlo():
    # skewed values: the importance-sampled upper tail against plain Monte Carlo of 200000 keys
    rng = np.random.default_rng(1)
    values = np.where(rng.random((120, 4)) < 0.1, rng.exponential(5, (120, 4)), rng.random((120, 4)))
    d = 4 / 3 * (values - values.mean(axis=1, keepdims=True))
    keys = rng.integers(4, size=(200_000, 120))
    sums = d[np.arange(120), keys].sum(axis=1)
    target = 3.5 * np.sqrt((d ** 2).mean(axis=1).sum())
    monte_carlo = np.mean(sums >= target)
    est, se = O._upper_tail(d, target, np.random.default_rng(0), 1000)
    assert est == pytest.approx(monte_carlo, rel=0.3) and se < 0.1 * est
    assert monte_carlo > 2 * stats.norm.sf(3.5)  # the normal (or t) tail is far too small here
