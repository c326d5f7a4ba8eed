"""The decision rule on hand-made p-values and effects, against statsmodels' ``multipletests``.

Every test here would fail if the correction were a no-op (raw p-values
taken as adjusted), if the family split or the effect floor were dropped, or
if a family's alpha were applied on the wrong scale.
"""
from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from oracles import multipletests

from qc.config import load_config
from qc.decision import adjust, compare_with_pivot, decide, family_alphas
from qc.result import CheckResult, skipped

PIVOT = "eng_Latn"
QC_DATA = Path(__file__).resolve().parents[1] / "data" / "qc"
RULE = {"method": "holm", "alpha": 0.05, "pivot_share": 0.5, "confidence": 0.95}


_NAMES = itertools.count()


def _test(variant, p, effect=0.5, floor=0.2, check=None, gate=True):
    """A measured hypothesis test, undecided (passed until :func:`decide` says otherwise)."""
    return CheckResult(variant, check or f"t{next(_NAMES)}", True, p_value=p, fails_as="separates", effect=effect,
                       floor=floor, gate=gate)


def _decide(results, **rule):
    return decide(results, {**RULE, **rule}, pivot=PIVOT)


def test_the_shipped_rule_is_holm_at_005_with_half_for_the_pivot():
    assert {k: v for k, v in load_config()["decision"].items()} == RULE


@pytest.mark.parametrize("method", ["holm", "fdr_bh", "bonferroni"])
def test_adjusted_p_values_are_statsmodels(method):
    rng = np.random.default_rng(1)
    families = [rng.uniform(0, 0.02, size=25),  # small p-values: no cap reached
                rng.uniform(0, 1, size=25),  # adjusted values above 1 are capped at 1
                np.repeat(rng.uniform(0, 0.1, size=5), 3),  # ties, in any order the sort leaves them
                np.array([0.3]), np.array([0.04, 0.04])]
    for p in families:
        assert adjust(p, method).tolist() == multipletests(p, method=method)[1].tolist()  # to the last bit
    if method != "fdr_bh":  # Benjamini-Hochberg's largest adjusted value is the largest p-value: never above 1
        assert max(adjust(families[1], method)) == 1.0
    assert adjust([], method).tolist() == []
    with pytest.raises(ValueError, match="holm, fdr_bh, bonferroni"):
        adjust(p, "none")


@settings(max_examples=60, deadline=None)
@given(pivot=st.lists(st.floats(1e-9, 1.0), min_size=1, max_size=15),
       others=st.lists(st.floats(1e-9, 1.0), min_size=1, max_size=60),
       method=st.sampled_from(["holm", "fdr_bh", "bonferroni"]))
# 0.01 * 5 / 2 is 0.025 and 0.01 / (2 / 5) is 0.0249...98: an adjusted p-value at alpha must round as
# statsmodels rounds it, or the gate and multipletests disagree on the boundary (found by this test)
@example(pivot=[1.0], others=[1.0, 1.0, 1.0, 0.0078125, 0.01], method="fdr_bh")
def test_verdicts_are_multipletests_rejections_at_each_familys_alpha(pivot, others, method):
    """Effects above the floor: a test fails exactly when multipletests rejects it at its family's alpha."""
    piv = [_test(PIVOT, p) for p in pivot]
    oth = [_test(f"v{i % 7}_Latn", p) for i, p in enumerate(others)]
    summary = _decide(piv + oth, method=method)
    assert summary["families"] == {"pivot": {"size": len(pivot), "alpha": 0.025},
                                   "variants": {"size": len(others), "alpha": 0.025}}
    for rs, ps in ((piv, pivot), (oth, others)):
        reject, corrected, _, _ = multipletests(ps, alpha=0.025, method=method)
        assert [not r.passed for r in rs] == (corrected < 0.025).tolist()  # the gate's rule is strict: p < alpha
        ties = corrected == 0.025
        assert (reject[~ties] == (corrected < 0.025)[~ties]).all()
        assert np.allclose([r.p_adjusted for r in rs], np.minimum(1, corrected / 0.5))
        assert all(r.family_size == len(ps) and r.family_alpha == 0.025 for r in rs)


def test_raw_significance_is_not_enough():
    """20 tests at p = 0.01: all significant on their own, none after Holm (0.2). A no-op correction fails here."""
    tests = [_test(PIVOT, 0.01) for _ in range(20)]
    summary = _decide(tests)
    assert all(r.passed for r in tests)
    assert [r.p_adjusted for r in tests] == pytest.approx([0.2] * 20)
    assert summary["raw_significant"] == 20


@pytest.mark.parametrize("method", ["holm", "bonferroni", "fdr_bh"])
def test_the_smallest_p_just_below_and_just_above_its_threshold(method):
    """One family of m = 10 at alpha 0.05: the smallest p-value fails just below alpha / m, passes just above."""
    m = 10
    threshold = 0.05 / m
    for factor, fails in ((1 - 1e-9, True), (1 + 1e-9, False)):
        tests = [_test(PIVOT, threshold * factor)] + [_test(PIVOT, 0.9) for _ in range(m - 1)]
        _decide(tests, method=method)
        assert (not tests[0].passed) is fails, (method, factor)
        assert all(r.passed for r in tests[1:])


def test_two_families_split_alpha_and_the_pivot_keeps_its_power():
    """Pivot: 13 tests at 0.025; the variants: 247 tests at 0.025. Thresholds 0.025/13 and 0.025/247."""
    def run(p_pivot, p_variant):
        piv = [_test(PIVOT, p_pivot)] + [_test(PIVOT, 0.9) for _ in range(12)]
        oth = [_test("hin_Deva", p_variant)] + [_test(f"v{i}_Latn", 0.9) for i in range(246)]
        _decide(piv + oth)
        return piv[0], oth[0]

    piv, oth = run(0.025 / 13 * 0.999, 0.025 / 247 * 0.999)
    assert not piv.passed and not oth.passed
    assert piv.p_adjusted == pytest.approx(0.999 * 0.05) and piv.family == "pivot"
    piv, oth = run(0.025 / 13 * 1.001, 0.025 / 247 * 1.001)
    assert piv.passed and oth.passed
    # the same p-value that fails the pivot passes a translation: the pivot's family is smaller
    piv, oth = run(0.001, 0.001)
    assert not piv.passed and oth.passed


def test_an_empty_family_leaves_the_whole_alpha_to_the_other():
    assert family_alphas({"pivot": 13}, 0.05, 0.5) == {"pivot": 0.05}
    assert family_alphas({"variants": 40}, 0.05, 0.5) == {"variants": 0.05}
    assert family_alphas({"pivot": 13, "variants": 40, "reported": 3}, 0.05, 0.3) == pytest.approx(
        {"pivot": 0.015, "variants": 0.035, "reported": 0.05})
    tests = [_test("hin_Deva", 0.05 / 4 * 0.99)] + [_test("hin_Deva", 0.9) for _ in range(3)]
    _decide(tests)  # no pivot in the run: the variants' family gets all of alpha
    assert not tests[0].passed and tests[0].family_alpha == 0.05


@pytest.mark.parametrize("effect, fails", [(0.5, True), (-0.5, True), (0.2, False), (-0.2, False), (0.19, False),
                                           (0.2000001, True), (None, True)])
def test_the_effect_floor(effect, fails):
    """Significant everywhere; fails only when |effect| exceeds the floor (no effect size: p alone)."""
    tests = [_test(PIVOT, 1e-12, effect=effect, floor=0.2)]
    _decide(tests)
    assert (not tests[0].passed) is fails
    assert tests[0].reason == ("separates" if fails else None)
    assert tests[0].extra["above_floor"] is fails and tests[0].extra["significant"] is True


def test_a_large_effect_without_significance_passes():
    tests = [_test(PIVOT, 0.3, effect=3.0)]
    _decide(tests)
    assert tests[0].passed and tests[0].extra["significant"] is False


def test_bh_rejects_more_than_holm_on_the_same_p_values():
    p = [0.01, 0.02, 0.03, 0.04]
    holm = [_test(PIVOT, x) for x in p]
    bh = [_test(PIVOT, x) for x in p]
    _decide(holm, method="holm")
    _decide(bh, method="fdr_bh")
    assert [r.passed for r in holm] == [False, True, True, True]
    assert [r.passed for r in bh] == [False, False, False, False]


def test_only_gated_tests_that_ran_are_in_the_run_family():
    gated = [_test(PIVOT, 0.001) for _ in range(3)]
    warn = _test(PIVOT, 0.001, gate=False)
    not_tested = CheckResult(PIVOT, "x", True, p_value=None, fails_as="separates", floor=0.2)
    skip = skipped(PIVOT, "y", "no questions")
    plain = CheckResult(PIVOT, "label_distribution", True, p_value=0.0001)  # a p-value, but not a gated test
    summary = _decide(gated + [warn, not_tested, skip, plain])
    assert summary["families"] == {"pivot": {"size": 3, "alpha": 0.05}, "reported": {"size": 1, "alpha": 0.05}}
    assert all(not r.passed for r in gated)
    assert not warn.passed and not warn.blocks  # a WARN: reported, never fails the release
    assert not_tested.passed and not_tested.p_adjusted is None and skip.passed and plain.p_adjusted is None


def test_every_statistical_check_of_the_gate_is_a_test_with_a_floor(tmp_path):
    from qc.gate import run_gate
    from schemas.dataset import load_dataset_dir

    report = run_gate(load_dataset_dir(QC_DATA / "pivot"), load_config(), jobs=1)
    tests = [r for r in report.results if r.is_test]
    names = {r.check.split(":")[0] for r in tests}
    assert names == {"overlap_ttest", "sliding_window", "bow_probe", "answer_balance", "length_bias"}
    assert all(r.floor is not None and r.effect_name for r in tests)
    fam = report.decision["families"]
    assert fam["pivot"]["size"] == sum(r.variant == PIVOT for r in tests)
    assert fam["variants"]["size"] == sum(r.variant != PIVOT for r in tests)
    assert {r.family_size for r in tests if r.variant != PIVOT} == {fam["variants"]["size"]}


def test_pivot_comparison_names_introduced_and_inherited():
    piv = [_test(PIVOT, 1e-10, effect=0.8, check="a"), _test(PIVOT, 0.5, effect=0.0, check="b")]
    fra = [_test("fra_Latn", 1e-10, effect=0.9, check="a"), _test("fra_Latn", 1e-10, effect=0.7, check="b")]
    deu = [_test("deu_Latn", 0.5, effect=0.1, check="a"), _test("deu_Latn", 0.5, effect=0.05, check="b")]
    results = piv + fra + deu
    _decide(results)
    rows = {row["check"]: row for row in compare_with_pivot(results, PIVOT)}
    assert [r.extra["vs_pivot"] for r in results] == ["pivot", "pivot", "inherited", "introduced", "pivot only",
                                                      "ok"]
    assert fra[1].extra["pivot_effect"] == 0.0 and fra[1].extra["effect_minus_pivot"] == pytest.approx(0.7)
    assert rows["a"]["pivot_passed"] is False and rows["a"]["inherited"] == ["fra_Latn"]
    assert rows["b"]["introduced"] == ["fra_Latn"] and rows["b"]["failing"] == ["fra_Latn"]
    assert rows["b"]["largest_variant"] == "fra_Latn" and rows["b"]["largest_effect"] == 0.7
    assert rows["a"]["variants"] == 2 and rows["a"]["median_effect"] == pytest.approx(0.5)
