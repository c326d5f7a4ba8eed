"""The overlap t-test check, exactly (issue 17, mutation testing phase 2).

``qc.overlap_ttest`` measures, for each overlap feature, Welch's t-test of
correct vs wrong options and Hedges' g with its interval; ``qc.decision``
decides. These tests recompute every number with scipy and statsmodels (and
Hedges' formula written out here) on small hand-made feature tables, and pin
the result's fields and detail lines, the constant-feature rule and the
too-few-options rule.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from oracles import stats
from oracles import effectsize_smd

from qc import overlap_ttest as O
from qc.result import VariantData

X = [0.9, 0.8, 1.0, 0.7]
Y = [0.1, 0.3, 0.2, 0.4, 0.0, 0.5]


def _hedges(x, y):
    x, y = np.asarray(x, float), np.asarray(y, float)
    n1, n2 = len(x), len(y)
    pooled = math.sqrt(((n1 - 1) * x.var(ddof=1) + (n2 - 1) * y.var(ddof=1)) / (n1 + n2 - 2))
    d = (x.mean() - y.mean()) / pooled
    return d, d * (1 - 3 / (4 * (n1 + n2) - 9))


def test_cohen_d_and_hedges_g_by_the_formula():
    d, g = _hedges(X, Y)
    assert O.cohen_d(X, Y) == pytest.approx(d, rel=1e-12)
    assert O.hedges_g(X, Y) == pytest.approx(g, rel=1e-12)
    assert O.cohen_d(Y, X) == pytest.approx(-d, rel=1e-12)
    # statsmodels' bias-corrected estimate is the same g
    g_sm, _ = effectsize_smd(np.mean(X), np.std(X, ddof=1), len(X), np.mean(Y), np.std(Y, ddof=1), len(Y))
    assert O.hedges_g(X, Y) == pytest.approx(g_sm, rel=1e-9)


@pytest.mark.parametrize("x,y", [([1.0], [1.0, 2.0]), ([1.0, 2.0], [3.0]), ([1.0, 1.0], [2.0, 2.0])])
def test_cohen_d_is_nan_with_one_value_or_no_spread(x, y):
    assert math.isnan(O.cohen_d(x, y))


def test_cohen_d_with_exactly_two_values_per_group():
    assert O.cohen_d([1.0, 3.0], [0.0, 2.0]) == pytest.approx(1 / math.sqrt(2))


@pytest.mark.parametrize("confidence", [0.95, 0.8])
def test_the_interval_of_g_is_statsmodels_variance_at_the_confidence(confidence):
    g, low, high = O.hedges_g_ci(X, Y, confidence)
    _, var = effectsize_smd(np.mean(X), np.std(X, ddof=1), len(X), np.mean(Y), np.std(Y, ddof=1), len(Y))
    half = stats.norm.ppf(1 - (1 - confidence) / 2) * math.sqrt(var)
    assert (g, low, high) == (pytest.approx(_hedges(X, Y)[1]), pytest.approx(g - half), pytest.approx(g + half))
    g, low, high = O.hedges_g_ci([1.0, 1.0], [2.0, 2.0])
    assert math.isnan(g) and math.isnan(low) and math.isnan(high)


def _features(correct_values, wrong_values, name="f"):
    values = list(correct_values) + list(wrong_values)
    return pd.DataFrame({"correct": [True] * len(correct_values) + [False] * len(wrong_values), name: values})


W = Y + [0.6, 0.35, 0.15, 0.45, 0.25, 0.05]  # three wrong options for each of X's four questions


def _questions(correct_values, wrong_values, name="f"):
    """Four rows per question (option 1 correct), as qc.overlap.option_features lays them out."""
    rows = []
    for i, c in enumerate(correct_values):
        for k, v in enumerate([c, *wrong_values[3 * i:3 * i + 3]]):
            rows.append({"option": k + 1, "correct": k == 0, name: v})
    return pd.DataFrame(rows)


def test_feature_ttest_is_welch_with_every_number():
    # issue 28: the statistic is Welch's t, the p-value the randomization p-value of the answer key
    t = O.feature_ttest(_questions(X, W), "f", confidence=0.9)
    res = stats.ttest_ind(X, W, equal_var=False)
    g, low, high = O.hedges_g_ci(X, W, 0.9)
    values = np.array([[c, *W[3 * i:3 * i + 3]] for i, c in enumerate(X)])
    key = np.arange(4)[None, :] == 0
    p = O.randomization_pvalue(values, np.repeat(key, 4, axis=0))
    assert t == {"t": pytest.approx(res.statistic), "p": p,
                 "d": pytest.approx(_hedges(X, W)[0]), "g": pytest.approx(g), "g_low": pytest.approx(low),
                 "g_high": pytest.approx(high), "n_correct": 4, "n_wrong": 12, "mean_correct": pytest.approx(0.85),
                 "mean_wrong": pytest.approx(np.mean(W)), "df": pytest.approx(res.df)}
    # every question's correct option is its largest: only that key of 4^4 reaches the difference
    assert p == pytest.approx(4.0 ** -4) and p > res.pvalue  # Welch's t distribution claimed far less
    default = O.feature_ttest(_questions(X, W), "f")
    g, low, high = O.hedges_g_ci(X, W, 0.95)
    assert (default["g_low"], default["g_high"]) == (pytest.approx(low), pytest.approx(high))
    # without four options per question the key cannot be randomized: not tested (statistics still given)
    loose = O.feature_ttest(_features(X, Y), "f")
    assert loose["p"] is None and loose["t"] == pytest.approx(stats.ttest_ind(X, Y, equal_var=False).statistic)


def test_feature_ttest_with_too_few_options():
    t = O.feature_ttest(_features([0.5], Y), "f")
    assert t == {"n_correct": 1, "n_wrong": 6, "mean_correct": 0.5, "mean_wrong": pytest.approx(0.25), "d": None,
                 "g": None, "g_low": None, "g_high": None, "t": None, "p": None}
    t = O.feature_ttest(_features([], []), "f")
    assert (t["mean_correct"], t["mean_wrong"], t["p"], t["n_correct"]) == (None, None, None, 0)
    assert O.feature_ttest(_features(X, [0.2]), "f")["p"] is None
    assert O.feature_ttest(_questions([0.2, 0.3], [0.1, 0.5, 0.4, 0.2, 0.6, 0.0]), "f")["p"] is not None


@pytest.mark.parametrize("correct,wrong,p", [([1.0, 1.0], [1.0, 1.0, 1.0], 1.0), ([1.0, 1.0], [0.0, 0.0], 0.0)])
def test_a_feature_constant_in_both_groups(correct, wrong, p):
    t = O.feature_ttest(_features(correct, wrong), "f")
    assert (t["p"], t["t"], t["constant"], t["g"], t["d"]) == (p, None, True, None, None)
    assert t["mean_correct"] == correct[0] and t["mean_wrong"] == wrong[0]


def test_constant_in_one_group_only_is_tested():
    wrong = [0.0, 0.5, 1.0] * 3
    t = O.feature_ttest(_questions([1.0, 1.0, 1.0], wrong), "f")
    values = np.array([[1.0, 0.0, 0.5, 1.0]] * 3)
    assert "constant" not in t and t["p"] == O.randomization_pvalue(values, values * 0 + (np.arange(4) == 0))
    assert 0 < t["p"] < 1


CHINESE = [("小猫坐在垫子上。小狗跑了。", "小猫坐在哪里？", ["在垫子上", "在车里", "在家里", "在树下"], 1),
           ("鲍勃去市场买苹果。", "鲍勃买了什么？", ["梨", "在市场买苹果", "面包", "牛奶"], 2),
           ("小镇下了一整天的雨。", "下了一整天的是什么？", ["雪", "太阳", "小镇的雨", "冰雹"], 3)]


def _mc(texts=None, variant="eng_Latn") -> VariantData:
    rows = []
    texts = texts or [("The cat sat on the mat. The dog ran.", "Where did the cat sit?",
              ["on the mat", "in the car", "at home", "under a tree"], 1),
             ("Bob went to the market to buy apples.", "What did Bob buy?",
              ["pears", "apples at the market", "bread", "milk"], 2),
             ("Rain fell all day in the small town.", "What fell all day?", ["snow", "sun", "rain in the town", "hail"],
              3)]
    for i, (p, q, a, c) in enumerate(texts):
        rows.append({"passage": p, "question": q, "answer1": a[0], "answer2": a[1], "answer3": a[2],
                     "answer4": a[3], "correct_answer_num": c, "correct_answer": a[c - 1], "question_id": str(i),
                     "passage_id": str(i)})
    return VariantData(variant, "mc", {"test": pd.DataFrame(rows)})


def test_run_gives_one_test_per_feature_and_the_reported_share():
    data = _mc()
    results = O.run(data, {"features": ["token_share", "lcs_substring"], "min_g": 0.3})
    assert [r.check for r in results] == ["overlap_ttest:token_share", "overlap_ttest:lcs_substring",
                                          "overlap_ttest:question_passage_share"]
    feats = O.variant_features(data)
    assert O.variant_features(data) is feats  # computed once per variant
    assert all(r.variant == "eng_Latn" for r in results)
    for r, name in zip(results, ["token_share", "lcs_substring"]):
        t = O.feature_ttest(feats, name, data.confidence)
        x = feats.loc[feats["correct"], name].to_numpy(float)
        y = feats.loc[~feats["correct"], name].to_numpy(float)
        res = stats.ttest_ind(x, y, equal_var=False)
        key = feats["correct"].to_numpy().reshape(-1, 4)
        p = O.randomization_pvalue(feats[name].to_numpy(float).reshape(-1, 4), key, seed=data.seed)
        assert (r.statistic, r.p_value) == (pytest.approx(res.statistic), p)
        assert r.value == r.effect == pytest.approx(_hedges(x, y)[1])
        assert r.effect_ci == (t["g_low"], t["g_high"])
        assert (r.threshold, r.floor, r.fails_as, r.effect_name, r.gate, r.passed) == (
            0.3, 0.3, "separates", "Hedges' g", True, True)
        assert r.paper == "Belebele final set p = 0.81; MCTest p < 0.01 (§3.2)"
        assert r.extra == {"effect_size": t["g"], "cohen_d": t["d"], "n_correct": 3, "n_wrong": 9,
                           "mean_correct": t["mean_correct"], "mean_wrong": t["mean_wrong"], "df": t["df"]}
        assert r.detail == (f"correct options mean {x.mean():.3f} vs wrong {y.mean():.3f} (higher); "
                            f"Hedges' g = {t['g']:.3f}")
    share = results[-1]
    qp = feats.loc[feats["option"] == 1, "question_passage_share"]
    assert share.value == pytest.approx(qp.mean()) and share.extra == {"n_questions": 3}
    assert (share.gate, share.paper, share.passed, share.fails_as, share.p_value) == (False, None, True, None, None)
    assert share.detail == "mean share of question words in the passage (same for all options; not tested)"


def test_run_details_for_lower_and_constant_features():
    data = _mc()
    feats = O.variant_features(data)
    correct = feats["correct"].to_numpy(bool)
    feats["low"] = np.where(correct, 0.0, 1.0) + np.arange(len(feats)) * 0.01
    feats["same"] = 0.5
    feats["apart"] = np.where(correct, 1.0, 0.0)
    r_low, r_same, r_apart, _ = O.run(data, {"features": ["low", "same", "apart"], "min_g": 0.2})
    x, y = feats.loc[correct, "low"], feats.loc[~correct, "low"]
    assert r_low.detail == (f"correct options mean {x.mean():.3f} vs wrong {y.mean():.3f} (lower); "
                            f"Hedges' g = {_hedges(x, y)[1]:.3f}")
    assert r_low.effect < 0
    assert r_same.detail == "constant within groups: correct 0.500, wrong 0.500"
    assert (r_same.p_value, r_same.effect, r_same.effect_ci, r_same.statistic) == (1.0, None, None, None)
    assert r_apart.detail == "constant within groups: correct 1.000, wrong 0.000; separates perfectly"
    assert r_apart.p_value == 0.0 and r_apart.is_test


def test_run_needs_two_questions_and_says_when_a_feature_is_not_tested():
    one = VariantData("eng_Latn", "mc", {"test": _mc().tables["test"].iloc[:1]})
    (r,) = O.run(one, {"features": ["token_share"], "min_g": 0.2})
    assert (r.variant, r.check, r.skipped, r.detail) == ("eng_Latn", "overlap_ttest", True,
                                                         "needs at least 2 questions, found 1")
    two = VariantData("eng_Latn", "mc", {"test": _mc().tables["test"].iloc[:2]})
    token, share = O.run(two, {"features": ["token_share"], "min_g": 0.2})
    assert not token.skipped and token.check == "overlap_ttest:token_share" and share.extra == {"n_questions": 2}
    data = _mc()
    feats = O.variant_features(data)
    feats["correct"] = False  # no correct option at all
    (r, _) = O.run(data, {"features": ["token_share"], "min_g": 0.2})
    assert r.detail == "fewer than 2 correct or wrong options; not tested"
    assert (r.p_value, r.effect_ci, r.statistic, r.is_test) == (None, None, None, False)


def test_the_features_are_tokenised_in_the_variants_language():
    from qc.overlap import option_features

    data = _mc(CHINESE, "zho_Hans")
    frame = data.tables["test"]
    feats = O.variant_features(data)
    pd.testing.assert_frame_equal(feats, option_features(frame, language="zho_Hans"))
    assert not feats["token_share"].equals(option_features(frame, language=None)["token_share"])


def test_the_interval_uses_the_variants_confidence_and_equal_means_read_lower():
    data = _mc()
    data.confidence = 0.8
    feats = O.variant_features(data)
    correct = feats["correct"].to_numpy(bool)
    feats["eq"] = 0.0
    feats.loc[correct, "eq"] = [0.0, 1.0, 0.5]
    feats.loc[~correct, "eq"] = [0.25, 0.75] * 4 + [0.5]  # both means exactly 0.5
    (r, _) = O.run(data, {"features": ["eq"], "min_g": 0.2})
    x, y = feats.loc[correct, "eq"].to_numpy(), feats.loc[~correct, "eq"].to_numpy()
    g, low, high = O.hedges_g_ci(x, y, 0.8)
    assert r.effect_ci == (pytest.approx(low), pytest.approx(high))
    assert r.detail == f"correct options mean 0.500 vs wrong 0.500 (lower); Hedges' g = {g:.3f}"


def test_run_samples_the_randomization_with_the_variants_seed_and_the_checks_draws():
    """The p-value is sampled: the gate's seed and ``draws`` option decide it (a report reruns to the same bytes)."""
    base = _mc().tables["test"]
    data = VariantData("eng_Latn", "mc", {"test": pd.concat([base] * 10, ignore_index=True)}, seed=5)
    feats = O.variant_features(data)
    correct = feats["correct"].to_numpy(bool)
    feats["mild"] = np.where(correct, 0.6, 0.5) + np.random.default_rng(1).normal(0, 0.3, len(feats))
    (r, _) = O.run(data, {"features": ["mild"], "min_g": 0.2, "draws": 300})
    values, key = feats["mild"].to_numpy(float).reshape(-1, 4), correct.reshape(-1, 4)
    assert r.p_value == O.randomization_pvalue(values, key, seed=5, draws=300)
    others = {O.randomization_pvalue(values, key, seed=seed, draws=draws) for seed, draws in [(0, 300), (5, 1000)]}
    assert r.p_value not in others and 0 < r.p_value < 1


def test_the_key_pvalue_needs_four_options_in_order_and_one_correct_option():
    values = np.array([0.9, 0.1, 0.2, 0.3, 0.8, 0.2, 0.1, 0.3])
    correct = np.array([True, False, False, False, True, False, False, False])
    laid_out = pd.DataFrame({"option": [1, 2, 3, 4] * 2})
    assert O._key_pvalue(laid_out, values, correct, 0, 200) == O.randomization_pvalue(
        values.reshape(-1, 4), correct.reshape(-1, 4), seed=0, draws=200)
    swapped = pd.DataFrame({"option": [1, 2, 3, 4, 2, 1, 3, 4]})  # rows not as qc.overlap lays them out
    assert O._key_pvalue(swapped, values, correct, 0, 200) is None
    assert O._key_pvalue(laid_out.iloc[:7], values[:7], correct[:7], 0, 200) is None  # not four per question
    none_single = np.array([True, True, False, False, False, False, False, False])  # two correct, then none
    assert O._key_pvalue(laid_out, values, none_single, 0, 200) == 1.0


# --- the randomization p-value at its edges (mutation testing, list T1) ---------------------------------

def _rows(spec: str, unit: float = 1.0) -> np.ndarray:
    """Option values written as digits, one group of four per question ("1300 1310" is two questions)."""
    return np.array([[int(c) for c in r] for r in spec.split()], float) * unit


def _key(spec: str) -> np.ndarray:
    """The correct options written as digits 1-4, one per question."""
    return np.arange(1, 5)[None, :] == np.array([int(c) for c in spec])[:, None]


def _key_of(positions) -> np.ndarray:
    return np.arange(4)[None, :] == np.asarray(positions)[:, None]


def test_symmetric_options_without_a_third_moment_still_get_their_tail_sampled():
    # pins that the gate and the first Newton step use the variance (sum of d**2), not the zero sum of d**3
    values = np.array([[0, 1, 0, 1]] * 20, float)
    correct = np.zeros((20, 4), bool)
    correct[:17, 1] = True
    correct[17:, 0] = True
    p = O.randomization_pvalue(values, correct)
    assert p == pytest.approx(0.00272211362356607, rel=1e-6)
    assert 0 < p < 0.01


def test_a_saddlepoint_where_the_tilted_variance_vanishes_falls_back_to_the_bracket():
    # pins that Newton is taken only where K'' > 0: at K'' == 0 the step is the bisection/expansion, not 0 / 0
    values = np.array([[1, 0, 0, 0]] * 4, float)
    values[0] = [1, 1 - 1e-9, 0, 0]
    correct = np.zeros((4, 4), bool)
    correct[0, 1] = True
    correct[1:, 0] = True
    p = O.randomization_pvalue(values, correct)
    assert p == pytest.approx(0.0078125000107, rel=1e-6)  # about 2 keys of 4^4 reach it: 2 / 256
    assert 0 < p <= 1


SADDLE_CASES = [("1300 1310 1220 0233 0003 2222", "222241", 0.008563124453639487),
                ("0032 2130 1011 3200 0230 3300", "344131", 0.08719170452736541),
                ("3320 1202 1030 3333 2333 2010 1030 0021 2131 2332 2121 3002 2132 2230", "13312133321133",
                 6.385671056945522e-05)]


@pytest.mark.parametrize("values,key,p", SADDLE_CASES)
def test_the_saddlepoint_is_the_root_of_k_prime_and_gives_the_sampled_pvalue(values, key, p):
    # pins the safeguarded Newton search: bisection at the midpoint, expansion 2t + 1, ending at K'(t) = s
    v = _rows(values)
    d = 4 / 3 * (v - v.mean(axis=1, keepdims=True))
    s = abs(float(d[_key(key)].sum()))
    for side in (d, -d):
        if s < side.max(axis=1).sum():  # the tails that _upper_tail samples at a saddlepoint
            t = O._saddlepoint(side, s)
            assert t > 0 and O._tilted(side, t)[1] == pytest.approx(s, abs=1e-8)
    assert O.randomization_pvalue(v, _key(key)) == pytest.approx(p, rel=1e-6)


def test_the_largest_sum_in_small_units_is_the_product_of_the_best_options_shares():
    # pins the tolerance scale sum|d| + 1 (never negative): with units of 0.01 only the all-best key reaches s
    values = np.array([[0.01, 0, 0, 0]] * 6)
    assert O.randomization_pvalue(values, values > 0) == pytest.approx(4.0 ** -6, rel=1e-12)


def test_sampled_keys_that_reach_the_observed_sum_up_to_rounding_are_counted():
    # pins the tail's tolerance 1e-12 * scale: sums equal to s but for rounding count in the tail
    rng = np.random.default_rng(4)
    values = rng.integers(0, 2, (80, 4)).astype(float)
    key = rng.integers(0, 4, 80)
    key[:24] = values[:24].argmax(axis=1)
    assert O.randomization_pvalue(values, _key_of(key)) == pytest.approx(0.01612573080607235, rel=1e-6)


def test_first_look_keys_that_reach_the_observed_sum_up_to_rounding_are_counted():
    # pins the first look's tolerance 1e-12 * (sum|d| + 1): ties with s up to rounding count in the share
    rng = np.random.default_rng(2)
    values = rng.integers(0, 5, (60, 4)).astype(float)
    key = rng.integers(0, 4, 60)
    key[:6] = values[:6].argmax(axis=1)
    assert O.randomization_pvalue(values, _key_of(key)) == pytest.approx(0.48979971346646056, rel=1e-6)
    # in units of 1/1000 sum|d| + 1 stays positive: every tie counts, and the share is above 1 - 2 se
    small = _rows("1100 0000 2121 1221 1120 2201", 1e-3)
    assert O.randomization_pvalue(small, _key("434131")) == 1.0


def test_rows_without_variance_give_p_1():
    # pins the no-variance gate: sum of d**2 == 0 gives exactly 1.0, and a sum of d**2 of 1.0 is still tested
    values = np.array([[0.5] * 4, [0.2] * 4])
    correct = np.zeros((2, 4), bool)
    correct[:, 0] = True
    assert O.randomization_pvalue(values, correct) == 1.0
    assert O.randomization_pvalue(values[:0], correct[:0]) == 1.0
    # each question's option is constant, the groups are not: feature_ttest's p is the randomization 1.0
    feats = pd.DataFrame({"option": [1, 2, 3, 4] * 2, "correct": correct.ravel(), "f": values.ravel()})
    assert O.feature_ttest(feats, "f")["p"] == 1.0
    # d = +-0.25 in every question (sum of d**2 exactly 1.0): only all-high or all-low keys reach s, 2 / 2^4
    unit = np.array([[0, 0.375, 0, 0.375]] * 4)
    assert O.randomization_pvalue(unit, _key("2222")) == pytest.approx(0.125, rel=1e-12)


def test_the_first_look_takes_at_least_one_key_per_fifth_of_the_draws():
    # pins look = max(1, draws // 5): with 9 draws the first look is 1 key, and the tail is then sampled
    p = O.randomization_pvalue(_rows("1000 1000 1000 0100"), _key("1111"), draws=9)
    assert p == pytest.approx(0.07430190939257779, rel=1e-6)
    assert 0 < p < 1


def test_a_share_of_exactly_body_is_taken_from_the_first_look():
    # pins share >= BODY: 30 of 200 first-look keys reach s, so p is 0.15 plus two standard errors
    p = O.randomization_pvalue(_rows("2312 2003 2011 2202"), _key("3123"))
    assert p == pytest.approx(0.15 + 2 * math.sqrt(0.15 * 0.85 / 200), rel=1e-12)


def test_the_pvalue_is_capped_at_1_in_both_branches():
    # pins min(1.0, ...): a first-look share of 199/200 and a tail sampled with 2 draws both give exactly 1.0
    rng = np.random.default_rng(26)
    values = rng.normal(size=(8, 4))
    assert O.randomization_pvalue(values, _key_of(rng.integers(0, 4, 8))) == 1.0
    assert O.randomization_pvalue(_rows("3112 1223 0311 1001"), _key("1234"), draws=2) == 1.0
