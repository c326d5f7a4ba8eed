"""Confidence intervals against Newcombe (1998), Table I, and their invariants."""
from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from builder.evaluation.stats import accuracy_ci, chance_ci
from schemas.errors import SchemaError

# Newcombe RG (1998), Two-sided confidence intervals for the single proportion, Stat Med 17:857-872,
# Table I: method 3 (Wilson score) and method 5 (Clopper-Pearson "exact").
NEWCOMBE = [
    # r, n, wilson, exact
    (81, 263, (0.2553, 0.3662), (0.2527, 0.3676)),
    (15, 148, (0.0624, 0.1605), (0.0578, 0.1617)),
    (0, 20, (0.0000, 0.1611), (0.0000, 0.1684)),
    (1, 29, (0.0061, 0.1718), (0.0009, 0.1776)),
    (29, 29, (0.8830, 1.0000), (0.8806, 1.0000)),
]


@pytest.mark.parametrize("r,n,wilson,exact", NEWCOMBE)
def test_intervals_match_newcombe_table_1(r, n, wilson, exact):
    assert accuracy_ci(r, n) == pytest.approx(wilson, abs=5e-5)
    assert accuracy_ci(r, n, method="clopper-pearson") == pytest.approx(exact, abs=5e-5)


def test_chance_interval_is_the_binomial_central_interval():
    # Belebele's 900 questions: a guesser scores 0.25 +- about 2.8 points
    assert chance_ci(900) == pytest.approx((200 / 900, 251 / 900))
    low, high = chance_ci(204)
    assert low < 0.25 < high


def test_bad_inputs_name_what_was_allowed():
    with pytest.raises(SchemaError, match="0 <= correct <= n"):
        accuracy_ci(5, 4)
    with pytest.raises(SchemaError, match="wilson, clopper-pearson"):
        accuracy_ci(1, 4, method="wald")
    assert all(math.isnan(x) for x in accuracy_ci(0, 0))


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 2000).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))),
       st.sampled_from(["wilson", "clopper-pearson"]))
def test_interval_contains_the_estimate_and_stays_in_0_1(kn, method):
    k, n = kn
    low, high = accuracy_ci(k, n, method=method)
    assert 0.0 <= low <= k / n <= high <= 1.0


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 200), st.sampled_from(["wilson", "clopper-pearson"]))
def test_interval_narrows_with_more_data(n, method):
    low1, high1 = accuracy_ci(n, 2 * n, method=method)
    low4, high4 = accuracy_ci(4 * n, 8 * n, method=method)
    assert high4 - low4 < high1 - low1


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 500).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_wilson_is_symmetric_under_swapping_correct_and_wrong(kn):
    k, n = kn
    low, high = accuracy_ci(k, n)
    low2, high2 = accuracy_ci(n - k, n)
    assert low == pytest.approx(1 - high2, abs=1e-9) and high == pytest.approx(1 - low2, abs=1e-9)


@settings(max_examples=200, deadline=None)
@given(data=st.data(), n=st.integers(1, 5000), level=st.sampled_from([0.5, 0.8, 0.9, 0.95, 0.99, 0.999]))
def test_intervals_are_scipys_binomtest_intervals(data, n, level):
    """Wilson is computed with the standard library and Clopper-Pearson from scipy.special: both
    equal scipy.stats.binomtest(...).proportion_ci to rounding, at any n, count and level."""
    from scipy.stats import binomtest

    correct = data.draw(st.integers(0, n))
    for ours, theirs in (("wilson", "wilson"), ("clopper-pearson", "exact")):
        ci = binomtest(correct, n).proportion_ci(confidence_level=level, method=theirs)
        expected = (0.0 if correct == 0 else max(0.0, ci.low), 1.0 if correct == n else min(1.0, ci.high))
        assert accuracy_ci(correct, n, level=level, method=ours) == pytest.approx(expected, abs=1e-9)
