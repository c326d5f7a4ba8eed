"""Exact expectations for the decision layer's edges, written against mutants mutmut found alive.

Each test says which mutation of ``qc/decision.py`` it kills (``docs/testing.md``).
"""
from __future__ import annotations

import pytest

from qc.decision import compare_with_pivot, decide
from qc.result import CheckResult

RULE = {"method": "holm", "alpha": 0.05, "pivot_share": 0.5, "confidence": 0.95}


def test(variant, check, p, effect=0.5, *, gate=True, floor=0.2, name="hedges_g"):
    return CheckResult(variant, check, True, p_value=p, fails_as="separates", effect=effect, floor=floor,
                       gate=gate, effect_name=name)


test.__test__ = False  # a factory, not a test


def test_an_adjusted_p_value_equal_to_alpha_passes():
    """``p_adjusted < alpha`` is strict (kills ``<=``): a lone test at exactly alpha passes."""
    r = test("eng_Latn", "t", 0.05)
    decide([r], RULE, pivot="eng_Latn")
    assert r.family_size == 1 and r.p_adjusted == 0.05
    assert r.passed and r.extra["significant"] is False


def test_raw_significant_counts_gated_tests_strictly_below_alpha():
    """Kills ``r.gate or ...`` and ``p_value <= alpha`` in the raw count."""
    rs = [test("eng_Latn", "a", 0.01), test("eng_Latn", "b", 0.05), test("eng_Latn", "c", 0.2),
          test("eng_Latn", "d", 0.001, gate=False)]
    summary = decide(rs, RULE, pivot="eng_Latn")
    assert summary["raw_significant"] == 1


def test_the_summary_names_every_field_of_the_rule():
    rs = [test("eng_Latn", "a", 0.01), test("hin_Deva", "a", 0.02)]
    summary = decide(rs, RULE, pivot="eng_Latn")
    assert summary == {
        "method": "holm", "method_name": "Holm", "alpha": 0.05, "pivot_share": 0.5, "confidence": 0.95,
        "pivot": "eng_Latn", "raw_significant": 2,
        "families": {"pivot": {"size": 1, "alpha": 0.025}, "variants": {"size": 1, "alpha": 0.025}},
    }


def _release():
    """A pivot and three translations of two checks, with hand-picked verdicts and effects."""
    rs = [
        test("eng_Latn", "overlap", 1e-6, 0.6),    # pivot fails overlap
        test("eng_Latn", "probe", 0.5, 0.01),      # pivot passes the probe
        test("fra_Latn", "overlap", 1e-6, 0.5),    # inherited
        test("fra_Latn", "probe", 1e-6, 0.4),      # introduced
        test("hin_Deva", "overlap", 0.9, 0.05),    # pivot only
        test("hin_Deva", "probe", 0.9, -0.02),     # ok
        test("zul_Latn", "overlap", 0.9, None),    # no effect size
        test("zul_Latn", "probe", 1e-6, -0.3),     # introduced, negative effect
    ]
    decide(rs, RULE, pivot="eng_Latn")
    return rs


def test_each_variant_is_compared_with_the_pivot_exactly():
    rs = _release()
    rows = compare_with_pivot(rs, "eng_Latn")
    by = {(r.variant, r.check): r.extra for r in rs}
    pivot = by["eng_Latn", "overlap"]
    assert (pivot["vs_pivot"], pivot["pivot_effect"], pivot["effect_minus_pivot"]) == ("pivot", 0.6, 0.0)
    assert by["fra_Latn", "overlap"]["vs_pivot"] == "inherited"
    assert by["fra_Latn", "overlap"]["pivot_effect"] == 0.6
    assert by["fra_Latn", "overlap"]["effect_minus_pivot"] == pytest.approx(-0.1)
    assert by["fra_Latn", "probe"]["vs_pivot"] == "introduced"
    assert by["fra_Latn", "probe"]["effect_minus_pivot"] == pytest.approx(0.39)
    assert by["hin_Deva", "overlap"]["vs_pivot"] == "pivot only"
    assert by["hin_Deva", "probe"]["vs_pivot"] == "ok"
    assert by["zul_Latn", "overlap"]["effect_minus_pivot"] is None and by["zul_Latn", "overlap"]["pivot_effect"] == 0.6
    assert by["zul_Latn", "probe"]["vs_pivot"] == "introduced"

    assert rows == [
        {"check": "overlap", "effect_name": "hedges_g", "failing": ["fra_Latn"], "introduced": [],
         "inherited": ["fra_Latn"], "variants": 3, "pivot_effect": 0.6, "pivot_passed": False,
         "median_effect": pytest.approx(0.275), "largest_effect": 0.5, "largest_variant": "fra_Latn"},
        {"check": "probe", "effect_name": "hedges_g", "failing": ["fra_Latn", "zul_Latn"],
         "introduced": ["fra_Latn", "zul_Latn"], "inherited": [], "variants": 3, "pivot_effect": 0.01,
         "pivot_passed": True, "median_effect": pytest.approx(-0.02), "largest_effect": 0.4,
         "largest_variant": "fra_Latn"},
    ]


def test_the_largest_effect_is_the_largest_in_absolute_value():
    """Kills sorting effects by signed value: -0.7 is larger than 0.4."""
    rs = [test("eng_Latn", "probe", 0.5, 0.0), test("fra_Latn", "probe", 0.5, 0.4),
          test("hin_Deva", "probe", 0.5, -0.7)]
    decide(rs, RULE, pivot="eng_Latn")
    (row,) = compare_with_pivot(rs, "eng_Latn")
    assert (row["largest_effect"], row["largest_variant"]) == (-0.7, "hin_Deva")


def test_a_pivot_without_an_effect_and_a_check_the_pivot_lacks():
    rs = [test("eng_Latn", "overlap", 0.5, None), test("fra_Latn", "overlap", 0.5, 0.3),
          test("fra_Latn", "extra_check", 0.5, 0.3)]
    decide(rs, RULE, pivot="eng_Latn")
    rows = {row["check"]: row for row in compare_with_pivot(rs, "eng_Latn")}
    assert rs[0].extra["pivot_effect"] is None and rs[0].extra["effect_minus_pivot"] is None
    assert rs[0].extra["vs_pivot"] == "pivot"
    assert rs[1].extra["effect_minus_pivot"] is None
    assert rs[2].extra["vs_pivot"] is None and rs[2].extra["pivot_effect"] is None
    assert rs[2].extra["effect_minus_pivot"] is None
    assert rows["extra_check"]["pivot_effect"] is None and rows["extra_check"]["pivot_passed"] is None
    assert "eng_Latn" not in rows["overlap"]["failing"] and rows["overlap"]["variants"] == 1
