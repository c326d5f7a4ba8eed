"""The gate's remaining checks, exactly (issue 17, mutation testing phase 3).

``script_consistency``, ``empty_fields``, ``sliding_window``, ``length_bias``,
``pivot_consistency``, ``contamination``, ``bow_probe`` and ``duplicates``
are called in-process on frames small enough to count by hand; boundaries are
tested on both sides and every field of the result is checked, so that a
changed comparison, count, default or message fails. The statistics are
checked against scipy called here.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from oracles import stats

from qc import (bow_probe, contamination, duplicates, empty_fields, label_conflict, leakage, length_bias,
                pivot_consistency, script_consistency, sliding_window)
from qc.result import VariantData
from qc.textnorm import normalize, word_ngram_hashes
from qc.tokens import TokenCache

SCRIPT = {"min_share": 0.5, "min_line_share": 0.5, "max_bad_share": 0.5}


def _data(variant: str, kind: str, **splits) -> VariantData:
    return VariantData(variant, kind, {s: pd.DataFrame(v) for s, v in splits.items()})


# --- script_consistency ---------------------------------------------------------------------------------

def test_script_check_skips_a_variant_name_that_is_not_a_flores_code():
    [r] = script_consistency.run(_data("english", "topic", test={"text": ["abc"]}), SCRIPT)
    assert (r.variant, r.check, r.passed, r.skipped) == ("english", "script_consistency", True, True)
    assert r.detail == "variant name is not a FLORES code like hin_Deva"


def test_script_check_fails_an_unknown_script_code():
    [r] = script_consistency.run(_data("nqo_Nkko", "topic", test={"text": ["abc"]}), SCRIPT)
    assert (r.variant, r.check, r.passed, r.skipped) == ("nqo_Nkko", "script_consistency", False, False)
    assert r.reason == "unknown_script" and r.extra == {"script": "Nkko"}
    assert r.detail.endswith(": cannot check the script of nqo_Nkko; use a code of ISO 15924 that Unicode "
                             "knows (e.g. Nkoo for N'Ko)")
    assert "Nkko" in r.detail.split(":")[0]


def _script_frame():
    # distinct texts: "abcd" (4 Latin letters), "абвг" (4 Cyrillic), "" (from the missing value)
    return {"passage": ["abcd", "abcd"], "question": ["абвг", None], "answer1": ["abcd"] * 2,
            "answer2": ["abcd"] * 2, "answer3": ["abcd"] * 2, "answer4": ["abcd"] * 2}


def test_script_check_counts_distinct_texts_and_passes_at_both_boundaries():
    [r] = script_consistency.run(_data("eng_Latn", "mc", test=_script_frame()),
                                 {"min_share": 0.5, "min_line_share": 0.5, "max_bad_share": 1 / 3})
    assert (r.variant, r.check, r.passed, r.reason, r.skipped) == ("eng_Latn", "script_consistency", True, None,
                                                                   False)
    assert r.value == 0.5 and r.threshold == 0.5
    assert r.extra == {"script": "Latn", "letters": 8, "bad_texts": 1, "texts": 3, "bad_share": 1 / 3,
                       "examples": ["абвг"]}
    assert r.detail == "50.0% of 8 letters in Latn; 1 of 3 texts below 50% (max 33%)"


def test_script_check_fails_just_above_each_boundary():
    frame = _data("eng_Latn", "mc", test=_script_frame())
    [r] = script_consistency.run(frame, {"min_share": 0.51, "min_line_share": 0.5, "max_bad_share": 1.0})
    assert (r.passed, r.reason, r.threshold) == (False, "wrong_script", 0.51)
    [r] = script_consistency.run(frame, {"min_share": 0.5, "min_line_share": 0.5, "max_bad_share": 0.33})
    assert (r.passed, r.reason) == (False, "bad_lines")
    # both exceeded: the letter share is named
    [r] = script_consistency.run(frame, {"min_share": 0.9, "min_line_share": 0.5, "max_bad_share": 0.0})
    assert (r.passed, r.reason) == (False, "wrong_script")


def test_script_check_passes_min_line_share_on():
    frame = _data("eng_Latn", "mc", test=_script_frame())
    [r] = script_consistency.run(frame, {"min_share": 0.5, "min_line_share": 0.0, "max_bad_share": 0.0})
    assert r.passed and r.extra["bad_texts"] == 0 and r.extra["examples"] == []
    assert r.detail == "50.0% of 8 letters in Latn; 0 of 3 texts below 0% (max 0%)"


def test_script_check_reads_only_the_kinds_text_columns():
    # a topic variant reads ``text`` only: the Cyrillic category and the answer column are not its texts
    data = _data("eng_Latn", "topic", test={"text": ["abcd", "efgh"], "category": ["абвг"] * 2,
                                            "answer1": ["абвг"] * 2})
    [r] = script_consistency.run(data, SCRIPT)
    assert r.passed and r.value == 1.0 and r.extra["letters"] == 8 and r.extra["texts"] == 2


def test_script_check_with_no_text_column_has_no_texts_and_passes():
    [r] = script_consistency.run(_data("eng_Latn", "mc", test={"index_id": [1]}),
                                 {"min_share": 0.9, "min_line_share": 0.5, "max_bad_share": 0.0})
    assert r.passed and r.value == 1.0
    assert r.extra == {"script": "Latn", "letters": 0, "bad_texts": 0, "texts": 0, "bad_share": 0.0,
                       "examples": []}


def test_script_check_examples_are_the_first_three_bad_texts_cut_at_60():
    bad = ["я" * 70, "бб", "вв", "гг"]
    [r] = script_consistency.run(_data("eng_Latn", "topic", test={"text": ["abcd"] + bad}),
                                 {"min_share": 0.0, "min_line_share": 0.5, "max_bad_share": 1.0})
    assert r.extra["examples"] == ["я" * 60, "бб", "вв"] and r.extra["bad_texts"] == 4
    assert r.extra["bad_share"] == 4 / 5 and r.passed


# --- empty_fields ---------------------------------------------------------------------------------------

EMPTY = {"max_empty": 0}


def test_empty_counts_per_field_for_multiple_choice():
    frame = pd.DataFrame({"passage": ["p", " ", None, "p", "p"], "question": ["q", "q", "q", "", "\t"],
                          "answer1": ["a"] * 5, "answer2": ["a"] * 5, "answer3": ["a", "a", "a", "a", None],
                          "correct_answer_num": ["2", 1, 4, 5, "x"]})
    # answer4 is missing (every row counts), 5 and "x" are not 1-4; "2" reads as 2
    assert empty_fields.empty_counts(frame, "mc") == {"passage": 2, "question": 2, "answer3": 1, "answer4": 5,
                                                     "correct_answer_num": 2}


def test_empty_counts_of_a_clean_frame_is_empty_and_fields_with_none_are_left_out():
    frame = pd.DataFrame({"passage": ["p"], "question": ["q"], "answer1": ["a"], "answer2": ["b"],
                          "answer3": ["c"], "answer4": ["d"], "correct_answer_num": [3]})
    assert empty_fields.empty_counts(frame, "mc") == {}
    assert empty_fields.empty_counts(pd.DataFrame({"text": ["t", "u"], "category": [None, "c"]}),
                                     "topic") == {"category": 1}
    assert empty_fields.empty_counts(pd.DataFrame({"text": ["t", "u"]}), "topic") == {"category": 2}


def test_empty_counts_reads_0_and_nan_labels_as_invalid():
    frame = pd.DataFrame({"passage": ["p"] * 3, "question": ["q"] * 3, "answer1": ["a"] * 3, "answer2": ["b"] * 3,
                          "answer3": ["c"] * 3, "answer4": ["d"] * 3, "correct_answer_num": [0, None, 4.0]})
    assert empty_fields.empty_counts(frame, "mc") == {"correct_answer_num": 2}


def test_empty_counts_without_a_label_column_counts_every_row():
    frame = pd.DataFrame({"passage": ["p"] * 2, "question": ["q"] * 2, "answer1": ["a"] * 2, "answer2": ["b"] * 2,
                          "answer3": ["c"] * 2, "answer4": ["d"] * 2})
    assert empty_fields.empty_counts(frame, "mc") == {"correct_answer_num": 2}


def test_empty_fields_skips_a_variant_without_rows():
    [r] = empty_fields.run(VariantData("eng_Latn", "topic", {}), EMPTY)
    assert (r.variant, r.check, r.passed, r.skipped, r.detail) == ("eng_Latn", "empty_fields", True, True, "no rows")


def test_empty_fields_passes_a_clean_variant_with_every_field():
    [r] = empty_fields.run(_data("eng_Latn", "topic", train={"text": ["a"], "category": ["x"]},
                                 test={"text": ["b"], "category": ["y"]}), EMPTY)
    assert (r.variant, r.check, r.passed, r.skipped, r.reason) == ("eng_Latn", "empty_fields", True, False, None)
    assert (r.value, r.threshold, r.detail) == (0, 0, "no empty fields")
    assert r.extra == {"counts": {}, "rows": 2}


def test_empty_fields_fails_above_max_empty_and_passes_at_it():
    data = _data("eng_Latn", "topic", train={"text": ["", "b", None], "category": ["x", " ", "z"]})
    [r] = empty_fields.run(data, {"max_empty": 2})
    assert (r.passed, r.reason, r.value, r.threshold) == (False, "empty_field", 3, 2)
    assert r.detail == "empty or invalid: category=1, text=2"
    assert r.extra == {"counts": {"text": 2, "category": 1}, "rows": 3}
    [r] = empty_fields.run(data, {"max_empty": 3})
    assert (r.passed, r.reason, r.value) == (True, None, 3)
    assert r.detail == "empty or invalid: category=1, text=2"


# --- sliding_window -------------------------------------------------------------------------------------

SW = {"chance": 0.25, "margin": 0.05}
PASSAGE = "Tom went to school with his dog. Later the cat sat on a red mat near the old barn."


def test_pick_with_ties_takes_the_maximum_and_breaks_ties_by_the_generators_noise():
    scores = np.array([[1.0, 3.0, 3.0, 0.0], [0.0, 0.0, 5.0, 1.0], [2.0, 2.0, 2.0, 2.0], [4.0, 1.0, 1.0, 1.0]])
    noise = np.random.default_rng(7).random(scores.shape)
    expected = [1 + int(noise[0, 1] < noise[0, 2]) if noise[0, 1] != noise[0, 2] else 1, 2,
                int(np.argmax(noise[2])), 0]
    assert sliding_window.pick_with_ties(scores, np.random.default_rng(7)).tolist() == expected


def test_pick_with_ties_reaches_every_tied_column_and_no_other():
    scores = np.tile([[0.5, 2.0, 2.0, 2.0]], (400, 1))
    picks = sliding_window.pick_with_ties(scores, np.random.default_rng(0))
    assert set(picks.tolist()) == {1, 2, 3}
    # a strict maximum is always picked, whatever the noise
    assert set(sliding_window.pick_with_ties(-scores, np.random.default_rng(0)).tolist()) == {0}


def _sw_rows(correct_positions, label=None):
    rows = []
    for i, pos in enumerate(correct_positions):
        opts = ["the moon", "a blue car", "some green tree", "a big ship"]
        opts[pos - 1] = "to school"  # the only option whose words are in the passage
        rows.append({"index_id": i, "passage": PASSAGE, "question": "Where did Tom go?", "answer1": opts[0],
                     "answer2": opts[1], "answer3": opts[2], "answer4": opts[3],
                     "correct_answer_num": pos if label is None else label})
    return rows


def test_sliding_window_skips_an_empty_variant_and_one_without_valid_labels():
    [r] = sliding_window.run(_data("eng_Latn", "mc", test={"passage": []}), SW)
    assert (r.variant, r.check, r.passed, r.skipped, r.detail) == ("eng_Latn", "sliding_window", True, True,
                                                                   "no questions")
    [r] = sliding_window.run(_data("eng_Latn", "mc", test=pd.DataFrame(_sw_rows([1, 2], label=0))), SW)
    assert (r.variant, r.check, r.skipped, r.detail) == ("eng_Latn", "sliding_window", True,
                                                         "no question has a valid correct_answer_num")


def test_sliding_window_counts_the_baseline_answers_and_tests_them_against_chance():
    # 5 questions the baseline answers (its pick is the correct one), 2 where the label points elsewhere,
    # 1 with an invalid label (left out of n)
    rows = _sw_rows([1, 2, 3, 4, 2]) + _sw_rows([3, 1])
    rows[5]["correct_answer_num"], rows[6]["correct_answer_num"] = 1, 4
    rows += _sw_rows([2], label="x")
    data = VariantData("eng_Latn", "mc", {"test": pd.DataFrame(rows)}, confidence=0.9)
    [r] = sliding_window.run(data, {"chance": 0.2, "margin": 0.1})
    k, n = 5, 7
    test = stats.binomtest(k, n, 0.2, alternative="greater")
    ci = stats.binomtest(k, n, 0.2).proportion_ci(confidence_level=0.9, method="exact")
    assert (r.variant, r.check, r.passed, r.skipped) == ("eng_Latn", "sliding_window", True, False)
    assert r.statistic == r.value == r.effect == k / n
    assert r.p_value == pytest.approx(test.pvalue, rel=1e-12) and r.p_value < 0.01
    assert r.threshold == r.floor == pytest.approx(0.3)
    assert r.effect_ci == (pytest.approx(ci.low), pytest.approx(ci.high))
    assert (r.fails_as, r.effect_name, r.paper) == ("above_chance", "accuracy", sliding_window.PAPER)
    assert r.extra == {"accuracy": k / n, "correct": k, "n": n, "ci_low": pytest.approx(ci.low),
                       "ci_high": pytest.approx(ci.high), "chance": 0.2}
    assert r.detail == (f"SW baseline answers 5/7 = 0.714 (90% CI {ci.low:.3f}-{ci.high:.3f}) vs chance 0.2")
    assert r.is_test


def test_sliding_window_breaks_ties_with_the_variants_seed():
    # every option scores 0: the pick is the seeded tie break, the same for the same seed
    rows = []
    for i in range(40):
        rows.append({"index_id": i, "passage": PASSAGE, "question": "Who flew?", "answer1": "xq", "answer2": "zv",
                     "answer3": "wk", "answer4": "jy", "correct_answer_num": 1 + i % 4})
    frame = pd.DataFrame(rows)
    truth = frame["correct_answer_num"].to_numpy()
    for seed in (0, 1, 2):
        picks = sliding_window.pick_with_ties(np.zeros((40, 4)), np.random.default_rng(seed)) + 1
        [r] = sliding_window.run(VariantData("eng_Latn", "mc", {"test": frame}, seed=seed), SW)
        k = int((picks == truth).sum())
        assert r.extra["correct"] == k and r.extra["n"] == 40
        # one-sided: near chance the two-sided p-value is about twice as large
        assert r.p_value == pytest.approx(stats.binomtest(k, 40, 0.25, alternative="greater").pvalue, rel=1e-12)
    ks = {sliding_window.run(VariantData("eng_Latn", "mc", {"test": frame}, seed=s), SW)[0].extra["correct"]
          for s in range(6)}
    assert len(ks) > 1


# --- length_bias ----------------------------------------------------------------------------------------

def _lb(rows):
    return pd.DataFrame(rows, columns=["answer1", "answer2", "answer3", "answer4", "correct_answer_num"])


LB_ROWS = [
    ["a long one", "b", "cc", "dd", 1],    # longest unique (1, correct); shortest unique (2)
    ["aa", "bbbbbb", "c", "dd", 2],        # longest 2 (correct); shortest 3
    ["aa", "bb", "cc", "dd", 1],           # no unique longest or shortest
    ["aaaa", "  b  ", "cccc", None, 4],    # longest tied (1, 3); shortest: "" (4, correct) once stripped
    ["aaa", "b", "ccccc", "dddd", "x"],    # label not a number: never correct; longest 3, shortest 2
    ["aaaaaaa", "bb", "c", "ddd", 3],      # longest 1; shortest 3 (correct)
    ["aaaaaa", "bb", "cc", "d", None],     # no label: never correct, not even for the unique longest (1)
]


def test_extreme_test_counts_unique_extremes_exactly():
    frame = _lb(LB_ROWS)
    longest = length_bias.extreme_test(frame, "longest")
    assert (longest["n"], longest["k"], longest["share"]) == (5, 2, 0.4)
    res = stats.binomtest(2, 5, 0.25, alternative="greater")
    ci = stats.binomtest(2, 5, 0.25).proportion_ci(confidence_level=0.95, method="exact")
    assert longest["p_value"] == pytest.approx(res.pvalue, rel=1e-12)
    assert longest["ci"] == (pytest.approx(ci.low), pytest.approx(ci.high))
    shortest = length_bias.extreme_test(frame, "shortest", confidence=0.8)
    assert (shortest["n"], shortest["k"], shortest["share"]) == (6, 2, 2 / 6)
    ci = stats.binomtest(2, 6, 0.25).proportion_ci(confidence_level=0.8, method="exact")
    assert shortest["ci"] == (pytest.approx(ci.low), pytest.approx(ci.high))
    assert shortest["p_value"] == pytest.approx(stats.binomtest(2, 6, 0.25, alternative="greater").pvalue)


def test_extreme_test_without_a_unique_extreme():
    r = length_bias.extreme_test(_lb([["a", "b", "c", "d", 1]]), "longest")
    assert r == {"n": 0, "k": 0, "share": None, "p_value": None, "ci": None}


def test_length_bias_gives_one_test_for_each_extreme():
    data = VariantData("eng_Latn", "mc", {"train": _lb(LB_ROWS[:3]), "test": _lb(LB_ROWS[3:])}, confidence=0.9)
    longest, shortest = length_bias.run(data, {"chance": 0.2, "margin": 0.1})
    for r, which, k, n in ((longest, "longest", 2, 5), (shortest, "shortest", 2, 6)):
        ci = stats.binomtest(k, n, 0.25).proportion_ci(confidence_level=0.9, method="exact")
        assert (r.variant, r.check, r.passed, r.skipped) == ("eng_Latn", f"length_bias:{which}", True, False)
        assert r.statistic == r.value == r.effect == k / n
        assert r.p_value == pytest.approx(stats.binomtest(k, n, 0.25, alternative="greater").pvalue, rel=1e-12)
        assert r.threshold == r.floor == pytest.approx(0.3)
        assert r.effect_ci == (pytest.approx(ci.low), pytest.approx(ci.high))
        assert (r.fails_as, r.effect_name) == (f"correct_is_{which}", "share")
        assert r.detail == f"correct option is the unique {which} in {k}/{n} questions vs chance 1/4"
        assert r.extra == {"k": k, "n": n, "chance": 0.25}


def test_length_bias_skips_each_extreme_without_a_unique_option():
    longest, shortest = length_bias.run(_data("eng_Latn", "mc", test=_lb([["a", "b", "cc", "dd", 4]])), SW)
    assert (longest.variant, longest.skipped, longest.check, longest.detail) == ("eng_Latn",
        True, "length_bias:longest", "no question has a unique longest option")
    assert not longest.is_test and longest.passed
    assert (shortest.variant, shortest.skipped, shortest.check, shortest.detail) == ("eng_Latn",
        True, "length_bias:shortest", "no question has a unique shortest option")
    results = length_bias.run(VariantData("eng_Latn", "mc", {}), SW)
    assert [(r.check, r.skipped) for r in results] == [("length_bias:longest", True),
                                                       ("length_bias:shortest", True)]


def test_empty_counts_goes_on_after_a_missing_field():
    frame = pd.DataFrame({"category": ["x", " ", None]})
    assert empty_fields.empty_counts(frame, "topic") == {"text": 3, "category": 2}
    frame = pd.DataFrame({"question": ["q", ""], "answer1": ["a"] * 2, "answer2": ["b"] * 2, "answer3": ["c"] * 2,
                          "answer4": [None, "d"], "correct_answer_num": [1, 2]})
    assert empty_fields.empty_counts(frame, "mc") == {"passage": 2, "question": 1, "answer4": 1}


# --- pivot_consistency ----------------------------------------------------------------------------------

def _pv(variant="fra_Latn", kind="mc", tables=None, pivot=None, **kw) -> VariantData:
    return VariantData(variant, kind, {s: pd.DataFrame(v) for s, v in (tables or {}).items()},
                       pivot=None if pivot is None else {s: pd.DataFrame(v) for s, v in pivot.items()}, **kw)


MC_PIVOT = {"test": {"passage_id": [1, 1, 2], "question_id": [1, 2, 1], "correct_answer_num": [1, 2, 3]}}


def test_pivot_check_skips_the_pivot_itself_and_a_missing_pivot():
    [r] = pivot_consistency.run(_pv("eng_Latn", tables=MC_PIVOT, pivot=MC_PIVOT), {})
    assert (r.variant, r.check, r.skipped, r.passed, r.detail) == (
        "eng_Latn", "pivot_consistency", True, True, "this is the pivot variant")
    [r] = pivot_consistency.run(_pv("fra_Latn", tables=MC_PIVOT, pivot=None), {})
    assert (r.skipped, r.detail) == (True, "pivot variant eng_Latn is not in the dataset")
    [r] = pivot_consistency.run(_pv("fra_Latn", tables=MC_PIVOT, pivot=None, pivot_name="deu_Latn"), {})
    assert (r.skipped, r.detail) == (True, "pivot variant deu_Latn is not in the dataset")
    # the pivot's own name decides, not eng_Latn
    [r] = pivot_consistency.run(_pv("eng_Latn", tables=MC_PIVOT, pivot=MC_PIVOT, pivot_name="deu_Latn"), {})
    assert not r.skipped and r.passed


def test_pivot_check_skips_when_any_split_lacks_the_key_columns():
    tables = {"train": MC_PIVOT["test"], "test": {"correct_answer_num": [1]}}
    [r] = pivot_consistency.run(_pv(tables=tables, pivot=MC_PIVOT), {})
    assert (r.skipped, r.detail) == (True, "split test has no passage_id, question_id column")
    tables = {"dev": {"index_id": [1], "category": ["a"]}, "test": {"index_id": [1], "text": ["t"]}}
    [r] = pivot_consistency.run(_pv(kind="topic", tables=tables, pivot=tables), {})
    assert (r.skipped, r.detail) == (True, "split test has no category column")


def test_compare_to_pivot_counts_missing_extra_and_changed_and_names_three_of_each():
    pivot = {"test": pd.DataFrame({"index_id": range(10), "category": list("aaaaaaaaaa")})}
    mine = {"test": pd.DataFrame({"index_id": [9, 8, 7, 6, 5, 11, 12, 13, 14],
                                  "category": ["b", "b", "b", "b", "a", "a", "a", "a", "a"]})}
    r = pivot_consistency.compare_to_pivot(mine, pivot, "topic")
    assert (r["missing"], r["extra"], r["changed"]) == (5, 4, 4)
    assert r["examples"] == ["missing test/0", "missing test/1", "missing test/2", "extra test/11", "extra test/12",
                             "extra test/13", "changed test/6", "changed test/7", "changed test/8"]


def test_compare_to_pivot_keys_by_split_and_reads_answers_as_numbers():
    pivot = {"train": pd.DataFrame({"passage_id": [1], "question_id": [1], "correct_answer_num": [2]}),
             "test": pd.DataFrame({"passage_id": [1, 1], "question_id": [1, 2], "correct_answer_num": [1, 3]})}
    mine = {"train": pd.DataFrame({"passage_id": ["1"], "question_id": [1], "correct_answer_num": ["2"]}),
            "test": pd.DataFrame({"passage_id": [1, 1, 1], "question_id": [1, 2, 1],
                                  "correct_answer_num": [1.0, "3", 4]})}  # the repeated key keeps its first row
    assert pivot_consistency.compare_to_pivot(mine, pivot, "mc") == {"missing": 0, "extra": 0, "changed": 0,
                                                                     "examples": []}
    mine["test"].loc[0, "correct_answer_num"] = 3
    r = pivot_consistency.compare_to_pivot(mine, pivot, "mc")
    assert (r["changed"], r["examples"]) == (1, ["changed test/1/1"])
    # the same ids in another split are other items
    r = pivot_consistency.compare_to_pivot({"dev": mine["train"]}, {"train": pivot["train"]}, "mc")
    assert r == {"missing": 1, "extra": 1, "changed": 0, "examples": ["missing train/1/1", "extra dev/1/1"]}
    assert pivot_consistency.compare_to_pivot({}, {}, "mc") == {"missing": 0, "extra": 0, "changed": 0,
                                                               "examples": []}


def test_pivot_check_results_with_every_field():
    params = {}
    [r] = pivot_consistency.run(_pv(tables=MC_PIVOT, pivot=MC_PIVOT), params)
    assert (r.variant, r.check, r.passed, r.skipped, r.reason, r.value, r.threshold) == (
        "fra_Latn", "pivot_consistency", True, False, None, 0, 0)
    assert r.detail == "vs eng_Latn: 0 item(s) missing, 0 extra, 0 with a different correct answer"
    assert r.paper == "Belebele §3.3: every variant aligned to the English questions"
    assert r.extra == {"missing": 0, "extra": 0, "changed": 0, "examples": [], "pivot": "eng_Latn"}
    moved = {"test": {**MC_PIVOT["test"], "correct_answer_num": [1, 3, 3]}}
    [r] = pivot_consistency.run(_pv(tables=moved, pivot=MC_PIVOT), params)
    assert (r.passed, r.reason, r.value) == (False, "answer_moved", 1)
    fewer = {"test": {"passage_id": [1, 1], "question_id": [1, 2], "correct_answer_num": [1, 3]}}
    [r] = pivot_consistency.run(_pv(tables=fewer, pivot=MC_PIVOT, pivot_name="deu_Latn"), params)
    assert (r.passed, r.reason, r.value) == (False, "answer_moved", 2)
    assert r.detail == "vs deu_Latn: 1 item(s) missing, 0 extra, 1 with a different correct answer"
    assert r.extra["pivot"] == "deu_Latn"
    topic = {"test": {"index_id": [1, 2], "category": ["a", "b"]}}
    [r] = pivot_consistency.run(_pv(kind="topic", tables={"test": {"index_id": [1], "category": ["a"]}},
                                    pivot=topic), params)
    assert (r.passed, r.reason, r.value) == (False, "items_differ", 1)
    assert r.detail == "vs eng_Latn: 1 item(s) missing, 0 extra, 0 with a different label"


# --- contamination --------------------------------------------------------------------------------------

TEST_PASSAGES = ["the quick brown fox jumps over the lazy dog", "a b c d e"]
CONT = {"ngram": 3, "max_share": 0.0}


def _against(n=3):
    return {"eng_Latn": contamination.passage_ngrams(TEST_PASSAGES, "eng_Latn", n, TokenCache())}


def test_passage_ngrams_are_the_distinct_hashes_of_every_text():
    cache = TokenCache()
    h = contamination.passage_ngrams(["one two three four", "one two three four", "two three four"],
                                     "eng_Latn", 3, cache)
    expected = np.unique(np.concatenate([word_ngram_hashes(["one", "two", "three", "four"], 3)]))
    assert h.tolist() == expected.tolist() and len(h) == 2
    empty = contamination.passage_ngrams([], "eng_Latn", 3, cache)
    assert empty.dtype == np.uint64 and len(empty) == 0
    assert contamination.text_column("topic") == "text" and contamination.text_column("mc") == "passage"


def test_contamination_skips_without_a_matching_test_variant():
    data = _data("eng_Latn", "mc", test={"passage": ["x"]})
    [r] = contamination.run(data, CONT)
    assert (r.check, r.skipped, r.detail) == ("contamination", True, "no --contamination-against set given")
    data.against = {"fra_Latn": np.zeros(0, np.uint64), "deu_Latn": np.zeros(0, np.uint64)}
    [r] = contamination.run(data, CONT)
    assert (r.skipped, r.detail) == (True, "the --contamination-against set has no variant of this name")


def _cont_passages():
    return ["quick brown fox ran home", "over the lazy dog " + "x" * 90, "nothing to see here at all",
            "jumps over the lazy cat", "a b c", "two words", "the quick brown fox"]


def test_contamination_counts_passages_sharing_an_ngram():
    data = _data("eng_Latn", "mc", train={"passage": _cont_passages()[:4]},
                 test={"passage": _cont_passages()[3:] + ["two words"]})
    data.against = _against()
    [r] = contamination.run(data, CONT)
    hits = ["quick brown fox ran home", "over the lazy dog " + "x" * 90, "jumps over the lazy cat",
            "a b c", "the quick brown fox"]
    assert (r.variant, r.check, r.passed, r.skipped, r.reason) == (
        "eng_Latn", "contamination", False, False, "test_ngrams_in_train")
    assert (r.value, r.threshold) == (5 / 7, 0.0)
    assert r.extra == {"contaminated": 5, "passages": 7, "too_short": 1, "ngram": 3,
                       "examples": [hits[0], hits[1][:80], hits[2]]}
    assert r.detail == "5/7 passages share a 3-gram with the test set (1 shorter than 3 words not compared)"
    assert r.paper == "Belebele is test-only (§3.4); 13-gram overlap test of Brown et al. 2020"
    [r] = contamination.run(data, {"ngram": 3, "max_share": 5 / 7})
    assert (r.passed, r.reason) == (True, None)


def test_contamination_uses_the_only_test_variant_and_the_ngram_size():
    data = _data("fra_Latn", "topic", test={"text": ["nothing to see", "quick brown fox ran", "lazy dog"]})
    data.against = _against(2)
    [r] = contamination.run(data, {"ngram": 2, "max_share": 0.5})
    assert r.extra == {"contaminated": 2, "passages": 3, "too_short": 0, "ngram": 2,
                       "examples": ["quick brown fox ran", "lazy dog"]}
    assert (r.passed, r.value) == (False, 2 / 3)
    # the variant's own name wins over the only-one rule
    data.against = {"fra_Latn": np.zeros(0, np.uint64), "eng_Latn": _against(2)["eng_Latn"]}
    [r] = contamination.run(data, {"ngram": 2, "max_share": 0.0})
    assert r.passed and r.extra["contaminated"] == 0 and r.value == 0.0


def test_pivot_check_names_the_variant_in_every_skip():
    for data, detail in ((_pv(tables=MC_PIVOT, pivot=None),
                          "pivot variant eng_Latn is not in the dataset"),
                         (_pv(tables={"test": {"question_id": [1]}}, pivot=MC_PIVOT),
                          "split test has no passage_id column")):
        [r] = pivot_consistency.run(data, {})
        assert (r.variant, r.check, r.skipped, r.detail) == ("fra_Latn", "pivot_consistency", True, detail)


def test_pivot_check_counts_extra_items_as_differences():
    more = {"test": {"passage_id": [1, 1, 2, 3], "question_id": [1, 2, 1, 1], "correct_answer_num": [1, 2, 3, 4]}}
    [r] = pivot_consistency.run(_pv(tables=more, pivot=MC_PIVOT), {})
    assert (r.passed, r.reason, r.value) == (False, "items_differ", 1)
    assert r.extra["examples"] == ["extra test/3/1"]


def test_pivot_answers_compare_as_numbers_and_missing_answers_match():
    def frame(answers):
        return {"test": pd.DataFrame({"passage_id": [1] * len(answers), "question_id": range(len(answers)),
                                      "correct_answer_num": answers})}

    # 1.0 is 1; a missing or unreadable answer on both sides is no change (empty_fields reports it)
    same = pivot_consistency.compare_to_pivot(frame([1.0, 2.0, None, "x"]), frame([1, 2, None, None]), "mc")
    assert same["changed"] == 0
    # a fractional answer is not the pivot's (this raised a TypeError before), a missing one is not 2
    r = pivot_consistency.compare_to_pivot(frame([2.5, None, "x", 3]), frame([2, 2, 2, 3]), "mc")
    assert (r["changed"], r["examples"]) == (3, ["changed test/1/0", "changed test/1/1", "changed test/1/2"])
    topic = {"test": pd.DataFrame({"index_id": [1, 2], "category": ["a", None]})}
    assert pivot_consistency.compare_to_pivot(topic, topic, "topic")["changed"] == 0
    blank = {"test": pd.DataFrame({"index_id": [1, 2], "category": ["a", ""]})}
    assert pivot_consistency.compare_to_pivot(blank, topic, "topic")["changed"] == 0


def test_contamination_names_the_variant_in_every_skip():
    data = _data("eng_Latn", "mc", test={"passage": ["x"]})
    [r] = contamination.run(data, CONT)
    assert (r.variant, r.check) == ("eng_Latn", "contamination")
    data.against = {"fra_Latn": np.zeros(0, np.uint64), "deu_Latn": np.zeros(0, np.uint64)}
    [r] = contamination.run(data, CONT)
    assert (r.variant, r.check, r.skipped) == ("eng_Latn", "contamination", True)


FRENCH = "l'homme qu'il aime"  # Moses French keeps the apostrophe on the left word, English on the right


def test_contamination_tokenizes_in_the_variants_language():
    french = word_ngram_hashes(["l'", "homme", "qu'", "il", "aime"], 2)
    assert contamination.passage_ngrams([FRENCH], "fra_Latn", 2, TokenCache()).tolist() == french.tolist()
    data = _data("fra_Latn", "mc", test={"passage": [FRENCH, "le chat"]})
    data.against = {"fra_Latn": word_ngram_hashes(["l'", "homme"], 2)}
    [r] = contamination.run(data, {"ngram": 2, "max_share": 0.0})
    assert r.extra["contaminated"] == 1 and r.extra["examples"] == [FRENCH]


def test_contamination_counts_every_short_passage_and_passes_an_empty_variant():
    data = _data("eng_Latn", "mc", test={"passage": ["one", "two words", "the quick brown fox"]})
    data.against = _against()
    [r] = contamination.run(data, CONT)
    assert r.extra["too_short"] == 2 and r.extra["contaminated"] == 1 and r.value == 1 / 3
    data = _data("eng_Latn", "mc", test={"passage": []})
    data.against = _against()
    [r] = contamination.run(data, CONT)
    assert (r.passed, r.value, r.skipped) == (True, 0.0, False)
    assert r.extra["passages"] == 0


# --- bow_probe ------------------------------------------------------------------------------------------

PROBE = {"features": ["question+option", "option"], "folds": 4, "chance": 0.2, "margin": 0.1, "max_features": 0}


def _probe_frame(n=24):
    rows = []
    for i in range(n):
        opts = ["wrong", "bad", "no", "nope"]
        pos = 1 + (i * 7) % 4
        opts[pos - 1] = "right answer" if i % 3 else "maybe this"
        rows.append({"passage_id": f"p{i // 2}", "passage": "x", "question": f"Which one {i % 5}?",
                     "answer1": opts[0], "answer2": opts[1], "answer3": opts[2], "answer4": opts[3],
                     "correct_answer_num": pos})
    return pd.DataFrame(rows)


def test_bow_probe_results_are_the_probes_with_every_field():
    data = VariantData("eng_Latn", "mc", {"train": _probe_frame()[:12], "test": _probe_frame()[12:]},
                       seed=5, confidence=0.9)
    results = bow_probe.run(data, PROBE)
    assert [r.check for r in results] == ["bow_probe", "bow_probe:option_only"]
    for r, features in zip(results, ("question+option", "option")):
        ref = bow_probe.probe_accuracy(data.combined, seed=5, folds=4, features=features, language="eng_Latn",
                                       chance=0.2, confidence=0.9, max_features=None)
        assert (r.variant, r.passed, r.skipped) == ("eng_Latn", True, False)
        assert r.statistic == r.value == r.effect == ref["accuracy"]
        assert r.p_value == ref["p_value"] and r.effect_ci == (ref["ci_low"], ref["ci_high"])
        assert r.threshold == r.floor == pytest.approx(0.3)
        assert (r.paper, r.fails_as, r.effect_name) == (bow_probe.PAPER, "above_chance", "accuracy")
        assert r.extra == {k: ref[k] for k in ("accuracy", "correct", "n", "ci_low", "ci_high", "folds", "seed",
                                                "features", "chance")}
        assert r.extra["seed"] == 5 and r.extra["folds"] == 4 and r.extra["chance"] == 0.2
        assert ref["n"] == 18  # forward-chained (issue 28): the first of 4 folds (3 of 12 passages) only trains
        assert r.detail == (f"{features}: {ref['correct']}/18 = {ref['accuracy']:.3f} (90% CI "
                            f"{ref['ci_low']:.3f}-{ref['ci_high']:.3f}) vs chance 0.2")
        assert r.is_test


def test_bow_probe_passes_the_vocabulary_cap_and_the_feature_sets_on():
    data = VariantData("eng_Latn", "mc", {"test": _probe_frame()})
    [r] = bow_probe.run(data, {**PROBE, "features": ["option"], "max_features": 1})
    ref = bow_probe.probe_accuracy(data.combined, folds=4, features="option", chance=0.2, max_features=1)
    assert r.check == "bow_probe:option_only" and r.extra["correct"] == ref["correct"]
    assert ref["correct"] != bow_probe.probe_accuracy(data.combined, folds=4, features="option")["correct"]


def test_bow_probe_skips_each_probe_that_cannot_run():
    one = _probe_frame(4).assign(passage_id="p")
    results = bow_probe.run(VariantData("eng_Latn", "mc", {"test": one}), PROBE)
    assert [(r.variant, r.check, r.skipped, r.passed) for r in results] == [
        ("eng_Latn", "bow_probe", True, True), ("eng_Latn", "bow_probe:option_only", True, True)]
    assert results[0].detail == "the probe needs at least 2 passages for grouped folds, found 1"


# --- duplicates -----------------------------------------------------------------------------------------

DUP = {"max_exact": 0, "near_jaccard": 0.8, "max_near_share": 0.01, "shingle": 5, "num_perm": 32, "bands": 8}
BASE = "the quick brown fox jumps over the lazy dog near the river bank today"


def _jaccard(a: str, b: str, k: int = 5) -> float:
    """Jaccard of the character k-shingle sets, written out."""
    sa, sb = ({t[i:i + k] for i in range(len(t) - k + 1)} for t in (a, b))
    return len(sa & sb) / len(sa | sb)


def test_ids_and_members():
    assert duplicates._ids([["a", "b"], ["c", "d", "e"], ["f", 1], ["h", "i"]]) == "a = b; c = d = e; f = 1"
    codes, ids = np.array([1, 0, 1, 2, 1]), np.array(["a", "b", "c", "d", "e"], dtype=object)
    assert duplicates._members(codes, ids, 3) == [["b"], ["a", "c", "e"], ["d"]]
    assert duplicates._members(codes, ids, 4) == [["b"], ["a", "c", "e"], ["d"], []]


def test_minhash_is_the_minimum_of_the_multiply_shift_hashes_in_any_chunking():
    from qc.textnorm import char_shingles_many
    sh = char_shingles_many(["the cat sat on the mat", "", "a dog", "another text about the cat"], 5)
    a, b = duplicates._P[0, :8], duplicates._P[1, :8]
    with np.errstate(over="ignore"):
        naive = [[int(min(((a[p] * s + b[p]) >> np.uint64(16)) for s in x)) if len(x) else 2 ** 64 - 1
                  for p in range(8)] for x in sh]
    for chunk in (1, 5, 20, 1 << 13):
        assert duplicates.minhash(sh, 8, chunk=chunk).tolist() == naive
    assert duplicates.minhash(sh, 8).dtype == np.uint64


#: The near-text search's shingle, signature and bands as the duplicates check ships them.
LSH = {"k": 5, "num_perm": 32, "bands": 8}


def test_near_duplicate_pairs_are_the_pairs_at_or_above_the_threshold():
    texts = [BASE, BASE + "!", "something else entirely written here", BASE.replace("today", "tonight")]
    j01, j03, j13 = _jaccard(BASE, BASE + "!"), _jaccard(BASE, texts[3]), _jaccard(texts[1], texts[3])
    assert 0.8 < j03 < j01
    pairs = duplicates.near_duplicate_pairs(texts, threshold=0.8, **LSH)
    assert pairs == [(0, 1, round(j01, 4)), (0, 3, round(j03, 4)), (1, 3, round(j13, 4))]
    at = duplicates.near_duplicate_pairs(texts, threshold=j03, **LSH)
    assert (0, 3, round(j03, 4)) in at
    assert duplicates.near_duplicate_pairs(texts, threshold=j03 + 1e-9, **LSH)[:1] == [(0, 1, round(j01, 4))]
    # texts are normalised unless they say they are
    assert duplicates.near_duplicate_pairs(["ABCDEFGHIJ", "abcdefghij"], threshold=1.0, **LSH) == [(0, 1, 1.0)]
    assert duplicates.near_duplicate_pairs(["ABCDEFGHIJ", "abcdefghij"], threshold=0.1, normalized=True,
                                           **LSH) == []


def test_near_duplicate_pairs_skip_a_degenerate_bucket():
    assert len(duplicates.near_duplicate_pairs([BASE] * 50, threshold=0.8, **LSH)) == 50 * 49 // 2
    assert duplicates.near_duplicate_pairs([BASE] * 51, threshold=0.8, **LSH) == []
    assert duplicates.near_duplicate_pairs(["abc", "abc", ""], threshold=0.0, **LSH) == [(0, 1, 1.0)]


def test_within_groups_compares_only_inside_a_group():
    texts = [BASE, BASE + "!", BASE, "other words here"]
    pairs = duplicates._within_groups(texts, ["g1", "g1", "g2", "g1"], DUP)
    assert pairs == [(0, 1, round(_jaccard(BASE, BASE + "!"), 4))]
    assert duplicates._within_groups(texts, ["g1", "g2", "g3", "g4"], DUP) == []
    # more than 20 texts in a group go through the LSH search and give the same pairs
    rng = np.random.default_rng(1)
    many = ["".join(rng.choice(list("abcdefghij klmnop"), 60)) for _ in range(21)] + [BASE, BASE + "!"]
    got = duplicates._within_groups(many, ["g"] * 23, DUP)
    assert got == [(21, 22, round(_jaccard(BASE, BASE + "!"), 4))]


def _dup_rows():
    q = {"question": "Who jumps?", "answer1": "fox", "answer2": "dog", "answer3": "cat", "answer4": "cow",
         "correct_answer_num": 1}
    return [{"passage_id": "p1", "question_id": 1, "passage": BASE, **q},
            {"passage_id": "p2", "question_id": 1, "passage": BASE.upper(), **q, "question": "Who sleeps?"},
            {"passage_id": "p3", "question_id": 1, "passage": BASE + "!", **q, "question": "Where?",
             "answer4": "sky"},
            {"passage_id": "p3", "question_id": 2, "passage": BASE + "!", **q, "question": "Where?",
             "answer4": "skies"},
            {"passage_id": "p4", "question_id": 1, "passage": "something else entirely written here", **q}]


def test_duplicates_reports_exact_and_near_duplicates_of_passages_and_questions():
    passages, questions = duplicates.run(_data("eng_Latn", "mc", test=_dup_rows()), DUP)
    assert (passages.variant, passages.check, passages.passed, passages.reason) == (
        "eng_Latn", "duplicates:passages", False, "exact_duplicate")
    assert (passages.value, passages.threshold) == (1, 0)
    assert passages.detail == ("1 exact duplicate(s) (max 0), first: test:p1 = test:p2; 1 near-duplicate pair(s) at "
                               "Jaccard >= 0.8 involving 66.7% of 3 distinct passages (max 1%, within splits), "
                               "closest: test:p1 ~ test:p3 (0.98)")
    cut = BASE[:59] + "\u2026"
    assert passages.extra == {"exact": 1, "near_pairs": 1, "distinct": 3, "near_share": 2 / 3,
                              "examples": [["test:p1", "test:p2"], ["test:p1", "test:p3"]],
                              "exact_examples": [["test:p1", "test:p2"]], "near_examples": [["test:p1", "test:p3"]],
                              "near_named": [{"ids": ["test:p1", "test:p3"], "texts": [cut, cut],
                                              "jaccard": round(_jaccard(BASE, BASE + "!"), 4)}]}
    assert (questions.check, questions.passed, questions.reason) == ("duplicates:questions", False, "near_duplicate")
    assert (questions.value, questions.threshold) == (0.4, 0.01)
    assert questions.detail == ("0 exact duplicate(s) (max 0); 1 near-duplicate pair(s) at Jaccard >= 0.8 "
                                "involving 40.0% of 5 distinct questions (max 1%, within splits), "
                                "closest: test:p3/2 ~ test:p3/1 (0.86)")
    assert questions.extra["exact_examples"] == [] and questions.extra["near_pairs"] == 1
    # a near question is named with its question and options (not the passage)
    assert questions.extra["near_named"] == [{"ids": ["test:p3/2", "test:p3/1"], "jaccard": 0.8621,
                                              "texts": ["where? | fox | dog | cat | skies",
                                                        "where? | fox | dog | cat | sky"]}]


def test_duplicates_boundaries_of_max_exact_and_max_near_share():
    data = _data("eng_Latn", "mc", test=_dup_rows())
    passages, questions = duplicates.run(data, {**DUP, "max_exact": 1, "max_near_share": 0.4})
    assert (passages.passed, passages.reason, passages.value, passages.threshold) == (
        False, "near_duplicate", 2 / 3, 0.4)
    assert (questions.passed, questions.reason, questions.value) == (True, None, 0.4)
    passages, _ = duplicates.run(data, {**DUP, "max_exact": 1, "max_near_share": 2 / 3})
    assert (passages.passed, passages.reason) == (True, None)


def test_duplicates_are_counted_within_splits_only():
    rows = _dup_rows()
    data = _data("eng_Latn", "mc", train=rows[:1], test=rows[1:2])
    passages, questions = duplicates.run(data, DUP)
    assert passages.passed and passages.extra["exact"] == 0 and passages.extra["distinct"] == 2
    assert passages.detail.startswith("0 exact duplicate(s) (max 0); 0 near-duplicate pair(s)")
    # three copies are two duplicates; the groups of each split are named, three at most
    data = _data("eng_Latn", "topic",
                 train={"index_id": [1, 2, 3, 4, 5, 6, 7, 8], "text": ["a b", "A B", "a  b", "c d", "c d", "e", "e",
                                                                         "f"], "category": ["x"] * 8},
                 test={"index_id": [1, 2], "text": ["g h", "G H"], "category": ["x"] * 2})
    [r] = duplicates.run(data, DUP)
    assert (r.check, r.value, r.reason) == ("duplicates:texts", 5, "exact_duplicate")
    assert r.extra["exact_examples"] == [["train:1", "train:2", "train:3"], ["train:4", "train:5"],
                                         ["train:6", "train:7"]]
    assert r.extra["distinct"] == 5 and r.extra["near_share"] == 0.0
    assert r.detail.startswith("5 exact duplicate(s) (max 0), first: train:1 = train:2 = train:3; train:4 = train:5; "
                               "train:6 = train:7; 0 near-duplicate pair(s)")


def test_duplicates_ids_without_id_columns_and_an_empty_variant():
    data = _data("eng_Latn", "topic", test={"text": ["same text", "Same text!", "x"], "category": ["a"] * 3})
    [r] = duplicates.run(data, DUP)
    assert r.extra["exact_examples"] == [] and r.extra["distinct"] == 3
    data = _data("eng_Latn", "topic", test={"text": ["same text", "same  text"], "category": ["a"] * 2})
    [r] = duplicates.run(data, DUP)
    assert r.extra["exact_examples"] == [["test:0", "test:1"]]
    rows = [{k: v for k, v in row.items() if k not in ("passage_id", "question_id")} for row in _dup_rows()[:2]]
    passages, questions = duplicates.run(_data("eng_Latn", "mc", test=rows), DUP)
    # the passage text is the passage's id: the two spellings are two passages with one normalised text
    assert passages.extra["exact"] == 1 and passages.extra["distinct"] == 1
    assert passages.extra["exact_examples"] == [["test:" + BASE, "test:" + BASE.upper()]]
    assert questions.extra["distinct"] == 2
    [r] = duplicates.run(VariantData("eng_Latn", "topic", {}), DUP)
    assert (r.variant, r.check, r.skipped, r.detail) == ("eng_Latn", "duplicates", True, "no rows")


def test_count_matrix_is_countvectorizers_with_and_without_the_cap():
    from sklearn.feature_extraction.text import CountVectorizer
    docs = [["b", "a", "b"], ["c"], ["a", "d", "d", "b"], []]
    flat, lengths = [w for d in docs for w in d], np.array([len(d) for d in docs])
    for cap in (None, 4, 3, 2):
        ref = CountVectorizer(analyzer=lambda d: d, max_features=cap).fit_transform(docs).tocsr()
        got = bow_probe.count_matrix(flat, lengths, cap)
        assert got.shape == ref.shape and got.toarray().tolist() == ref.toarray().tolist()
        assert got.indices.tolist() == ref.indices.tolist() and got.indptr.tolist() == ref.indptr.tolist()


def test_documents_tokenize_in_each_rows_language():
    frame = pd.DataFrame({"question": ["l'homme"], "answer1": ["a"], "answer2": ["b"], "answer3": ["c"],
                          "answer4": ["qu'il"], "language": ["fra_Latn"]})
    flat, lengths = bow_probe._documents(frame, "question+option", TokenCache(), None)
    assert flat == ["l'", "homme", "a", "l'", "homme", "b", "l'", "homme", "c", "l'", "homme", "qu'", "il"]
    assert lengths.tolist() == [3, 3, 3, 4] and lengths.dtype == np.int64
    # a language given wins over the column; without either, English
    english = ["l", "'homme", "a", "l", "'homme", "b", "l", "'homme", "c", "l", "'homme", "qu", "'il"]
    assert bow_probe._documents(frame, "question+option", TokenCache(), "eng_Latn")[0] == english
    assert bow_probe._documents(frame.drop(columns="language"), "question+option", TokenCache(), None)[0] == english
    flat, lengths = bow_probe._documents(frame, "option", TokenCache(), "fra_Latn")
    assert flat == ["a", "b", "c", "qu'", "il"] and lengths.tolist() == [1, 1, 1, 2]


def _one_class_frame():
    # p0's questions have no valid label (no positive row), p1's answer 1: the fold trained on p0 alone
    # cannot fit a model and answers 1
    rows = []
    for pid, label in (("p0", "x"), ("p1", 1)):
        for q in range(2):
            rows.append({"passage": pid, "question": f"q{q}", "answer1": "yes", "answer2": "no", "answer3": "maybe",
                         "answer4": "never", "correct_answer_num": label})
    return pd.DataFrame(rows)


def test_probe_answers_1_for_a_fold_without_both_classes_and_groups_by_passage_text():
    # forward-chained (issue 28): with seed 3 p0 is the first fold (trains only), p1 is answered by p0's model
    r = bow_probe.probe_accuracy(_one_class_frame(), seed=3, folds=5, confidence=0.8, chance=0.3)
    assert (r["correct"], r["n"], r["folds"]) == (2, 2, 2)
    assert bow_probe.probe_accuracy(_one_class_frame(), seed=0, folds=5)["correct"] == 0  # p1 trains, p0 unlabelled
    assert (r["confidence"], r["features"], r["chance"]) == (0.8, "question+option", 0.3)
    ci = stats.binomtest(2, 2, 0.3).proportion_ci(confidence_level=0.8, method="exact")
    assert (r["ci_low"], r["ci_high"]) == (pytest.approx(ci.low), pytest.approx(ci.high))
    assert r["p_value"] == pytest.approx(stats.binomtest(2, 2, 0.3, alternative="greater").pvalue)


def test_bow_probe_without_any_word_is_skipped_with_the_reason():
    rows = [{"passage_id": f"p{i}", "question": "?", "answer1": "!", "answer2": ".", "answer3": ",", "answer4": ";",
             "correct_answer_num": 1} for i in range(4)]
    results = bow_probe.run(VariantData("eng_Latn", "mc", {"test": pd.DataFrame(rows)}), PROBE)
    assert [(r.check, r.skipped) for r in results] == [("bow_probe", True), ("bow_probe:option_only", True)]
    assert results[1].detail == "empty vocabulary; perhaps the documents only contain stop words"


def test_bow_probe_tokenizes_in_the_variants_language_into_the_runs_cache():
    frame = _probe_frame(8).assign(question="l'homme qu'il aime")
    data = VariantData("fra_Latn", "mc", {"test": frame})
    bow_probe.run(data, {**PROBE, "features": ["question+option"]})
    size = data.cache.size
    assert size > 0
    data.cache.get("l'homme qu'il aime", "fra_Latn")  # already there: tokenised as French
    assert data.cache.size == size
    cache = TokenCache()
    bow_probe.probe_accuracy(frame, folds=2, cache=cache, language="fra_Latn")
    size = cache.size
    cache.get("l'homme qu'il aime", "fra_Latn")
    assert cache.size == size > 0


def test_members_keep_table_order_in_large_groups():
    codes = np.random.default_rng(3).integers(0, 3, 300)
    ids = np.arange(300).astype(object)
    assert duplicates._members(codes, ids, 3) == [[i for i in range(300) if codes[i] == c] for c in range(3)]


def _texts_with_similarities():
    rng = np.random.default_rng(4)
    base = "".join(rng.choice(list("abcdefghijklmnopqrstuvwxyz "), 120))
    out = [base]
    for n in (2, 5, 9, 14, 20, 30):  # more and more characters changed
        t = list(base)
        for i in rng.choice(len(t), n, replace=False):
            t[i] = "#"
        out.append("".join(t))
    return out


#: Parameter sets of the near-text search other than the shipped ones: another shingle, and a lower threshold
#: with more bands (each check must pass every one of them to the search).
NEAR_PARAMS = [{"near_jaccard": 0.6, "shingle": 5, "num_perm": 32, "bands": 8},
               {"near_jaccard": 0.6, "shingle": 3, "num_perm": 32, "bands": 8},
               {"near_jaccard": 0.4, "shingle": 5, "num_perm": 128, "bands": 64}]


def _brute_pairs(texts, k, threshold):
    return sum(_jaccard(a, b, k) >= threshold for i, a in enumerate(texts) for b in texts[i + 1:])


@pytest.mark.parametrize("params", NEAR_PARAMS)
def test_duplicates_use_the_configured_near_duplicate_search(params):
    texts = _texts_with_similarities()
    expected = _brute_pairs(texts, params["shingle"], params["near_jaccard"])
    assert expected != _brute_pairs(texts, 8 - params["shingle"], params["near_jaccard"])  # k matters here
    data = _data("eng_Latn", "topic", test={"text": texts, "category": ["a"] * len(texts)})
    [r] = duplicates.run(data, {**DUP, **params})
    assert r.extra["near_pairs"] == expected
    # the same texts as questions of one passage (7 distinct) are compared pairwise with the same parameters
    rows = [{"passage_id": "p", "question_id": i, "passage": "one passage", "question": t, "answer1": "a",
             "answer2": "b", "answer3": "c", "answer4": "d", "correct_answer_num": 1}
            for i, t in enumerate(texts * 3)]
    _, questions = duplicates.run(_data("eng_Latn", "mc", test=rows), {**DUP, **params})
    item = [normalize(f"{t} | a | b | c | d") for t in texts]
    assert questions.extra["near_pairs"] == _brute_pairs(item, params["shingle"], params["near_jaccard"])
    assert questions.extra["exact"] == 14


@pytest.mark.parametrize("params", NEAR_PARAMS)
def test_a_group_of_more_than_20_is_searched_with_the_configured_parameters(params):
    """The LSH path of a large group (25 questions on one passage) finds the pairs brute force finds."""
    rng = np.random.default_rng(9)
    texts = _texts_with_similarities() + ["".join(rng.choice(list("abcdefghijklmnopqrstuvwxyz "), 120))
                                          for _ in range(18)]
    k, threshold = params["shingle"], params["near_jaccard"]
    expected = [(i, j, round(_jaccard(a, b, k), 4)) for i, a in enumerate(texts) for j, b in enumerate(texts)
                if i < j and _jaccard(a, b, k) >= threshold]
    assert len(expected) >= 2
    got = duplicates._within_groups(texts, ["p"] * len(texts), {**DUP, **params})
    assert sorted(got) == expected


@pytest.mark.parametrize("params", NEAR_PARAMS)
def test_leakage_searches_across_splits_with_the_configured_parameters_and_names_the_closest_first(params):
    base, *changed = _texts_with_similarities()
    # train: the base text twice (named by its first row), an empty text and an unrelated one
    train = {"index_id": [10, 11, 12, 13], "category": ["a"] * 4, "text": [base, "", base, "zzzz " * 20]}
    test = {"index_id": [20 + i for i in range(len(changed))], "category": ["a"] * len(changed), "text": changed}
    [r] = leakage.run(_data("eng_Latn", "topic", train=train, test=test), {"max_shared": 0, **params})
    k, threshold = params["shingle"], params["near_jaccard"]
    jaccard = [_jaccard(normalize(base), normalize(t), k) for t in changed]  # of the texts as the check compares them
    expected = sorted(((round(j, 4), 20 + i) for i, j in enumerate(jaccard) if j >= threshold), reverse=True)
    assert len(expected) >= 2
    assert [(p["ids"], p["jaccard"]) for p in r.extra["near_pairs"]] == [
        (["train:10", f"test:{i}"], jac) for jac, i in expected]
    assert (r.value, r.extra["near"], r.extra["exact"], r.passed) == (len(expected), len(expected), 0, False)
    assert all(set(p) == {"ids", "jaccard", "texts"} for p in r.extra["near_pairs"])  # not the whole texts
    # the detail names the two closest pairs, each with the place where its texts differ
    head = f"texts in two splits: none; {len(expected)} near pair(s) at Jaccard >= {threshold}: "
    assert r.detail.startswith(head), r.detail
    named = [part.split(" (")[0] for part in r.detail[len(head):].split("; ")]
    assert named == [f"train:10 ~ test:{i}" for _, i in expected[:2]]


def test_a_question_in_two_splits_is_named_by_its_question_ids():
    row = {"passage": "p", "answer1": "a", "answer2": "b", "answer3": "c", "answer4": "d", "correct_answer_num": 1}
    train = pd.DataFrame([{**row, "passage_id": "P1", "question_id": "Q1", "question": "Who?"},
                          {**row, "passage_id": "P2", "question_id": "Q2", "question": "Why?"}])
    test = pd.DataFrame([{**row, "passage": "other", "passage_id": "P9", "question_id": "Q9", "question": "Why?"}])
    results = leakage.run(VariantData("eng_Latn", "mc", {"train": train, "test": test}), {"max_shared": 5})
    by_unit = {r.check: r for r in results}
    assert by_unit["leakage:questions"].extra["exact_pairs"] == [{"ids": ["train:Q2", "test:Q9"],
                                                                 "texts": ["why? | a | b | c | d"]}]
    assert by_unit["leakage:passages"].extra["exact_pairs"] == []


@pytest.mark.parametrize("params", NEAR_PARAMS)
def test_label_conflicts_search_near_texts_with_the_configured_parameters(params):
    texts = _texts_with_similarities()
    labels = ["a", "b", "b", "a", "b", "a", "b"]
    test = {"index_id": list(range(len(texts))), "category": labels, "text": texts}
    [r] = label_conflict.run(_data("eng_Latn", "topic", test=test), {"max_conflicts": 0, **params})
    k, threshold = params["shingle"], params["near_jaccard"]
    norm = [normalize(t) for t in texts]
    expected = sorted(((round(_jaccard(norm[i], norm[j], k), 4), i, j) for i in range(len(texts))
                       for j in range(i + 1, len(texts)) if labels[i] != labels[j]
                       and _jaccard(norm[i], norm[j], k) >= threshold), key=lambda p: -p[0])
    assert len(expected) >= 2
    assert [(c["ids"], c["labels"], c["jaccard"]) for c in r.extra["conflicts"]] == [
        ([f"test:{i}", f"test:{j}"], [labels[i], labels[j]], jac) for jac, i, j in expected]


def test_a_pair_exactly_at_the_near_threshold_is_near():
    a, b = "abcdefgh", "abcdefxy"  # 3-shingles: 6 and 6, 4 shared: 4 / 8
    assert _jaccard(a, b, 3) == 0.5
    assert duplicates._within_groups([a, b], ["p", "p"], {**DUP, "shingle": 3, "near_jaccard": 0.5}) == [(0, 1, 0.5)]


def test_within_groups_at_20_and_21_members_and_after_a_large_group():
    texts = [f"text number {i} " + "x" * (i % 7) + "y" * i for i in range(20)] + [BASE, BASE + "!"]
    for size in (20, 21):
        members = texts[:size - 2] + texts[20:]
        assert duplicates._within_groups(members, ["g"] * size, DUP) == [
            (size - 2, size - 1, round(_jaccard(BASE, BASE + "!"), 4))]
    # a large group, then a small one: both are searched
    big = texts[:19] + [BASE, BASE + "!"]
    got = duplicates._within_groups(big + [BASE, BASE + "?"], ["g"] * 21 + ["h", "h"], DUP)
    assert got == [(19, 20, round(_jaccard(BASE, BASE + "!"), 4)), (21, 22, round(_jaccard(BASE, BASE + "?"), 4))]
    got = duplicates._within_groups(big + big, ["g"] * 21 + ["h"] * 21, DUP)
    assert [(a, b) for a, b, _ in got] == [(19, 20), (40, 41)]


def test_duplicates_name_three_groups_and_split_ids_at_the_first_colon():
    texts = ["a b", "a  b", "c d", "c  d", "e f", "e  f", "g h", "g  h", "g   h", "i j", "i  j"]
    [r] = duplicates.run(_data("eng_Latn", "topic", test={"index_id": range(11), "text": texts,
                                                          "category": ["a"] * 11}), DUP)
    assert r.extra["exact_examples"] == [["test:0", "test:1"], ["test:2", "test:3"], ["test:4", "test:5"]]
    assert r.extra["examples"] == r.extra["exact_examples"] and r.extra["exact"] == 6
    near = [BASE + s for s in ("", "!", "?", ".", ",")]  # 10 near pairs
    [r] = duplicates.run(_data("eng_Latn", "topic", test={"index_id": range(5), "text": near,
                                                          "category": ["a"] * 5}), DUP)
    assert len(r.extra["near_examples"]) == 3 and r.extra["near_pairs"] == 10
    assert len(r.extra["examples"]) == 3
    [r] = duplicates.run(_data("eng_Latn", "topic", train={"index_id": range(5), "text": near, "category": ["a"] * 5},
                               test={"index_id": range(5), "text": near, "category": ["a"] * 5}), DUP)
    assert len(r.extra["near_examples"]) == 3 and len(r.extra["examples"]) == 3
    rows = _dup_rows()[:2]
    rows[0]["passage_id"], rows[1]["passage_id"] = "a:1", "a:2"
    passages, _ = duplicates.run(_data("eng_Latn", "mc", test=rows), DUP)
    assert passages.extra["exact"] == 1 and passages.extra["exact_examples"] == [["test:a:1", "test:a:2"]]


def test_the_gate_builds_the_tokenizer_of_each_variants_language_before_its_workers_fork():
    """Forked workers inherit what the parent built; a tokenizer built in each worker costs every worker."""
    from qc import gate, tokens

    tokens._moses.cache_clear()
    gate._prewarm(["fra_Latn", "deu_Latn", "hin_Deva", "hin_Latn"])
    built = tokens._moses.cache_info()
    assert built.currsize == 3  # French, German, Hindi (its two scripts share one)
    for language in ("fr", "de", "hi"):
        tokens._moses(language)
    assert tokens._moses.cache_info().misses == built.misses  # each was built already


def test_a_passage_or_question_holding_the_old_separator_keeps_its_questions_apart():
    """Questions were keyed as ``passage || question``, cut at the first `` || ``: a passage holding one
    (code, a table) moved its tail into every question's text, and two different questions under it were
    near duplicates (Jaccard 0.85, the gate failed); two passages agreeing up to one were one group."""
    tail = " ".join(f"word{i} stands here" for i in range(60))
    row = {"answer1": "one", "answer2": "two", "answer3": "three", "answer4": "four", "correct_answer_num": 1}
    test = pd.DataFrame([
        {**row, "passage_id": "p1", "passage": "a || " + tail, "question_id": "q1", "question": "Who moved?"},
        {**row, "passage_id": "p1", "passage": "a || " + tail, "question_id": "q2", "question": "When did it rise?"},
        {**row, "passage_id": "p2", "passage": "a || other", "question_id": "q1", "question": "Who moved?"},
        {**row, "passage_id": "p2", "passage": "a || other", "question_id": "q2", "question": "x || y?"},
        {**row, "passage_id": "p2", "passage": "a || other", "question_id": "q3", "question": "x || y?"}])
    params = {**DUP, "max_near_share": 0.0}
    by_unit = {r.check: r for r in duplicates.run(VariantData("eng_Latn", "mc", {"test": test}), params)}
    questions = by_unit["duplicates:questions"]
    assert (questions.extra["near_pairs"], questions.extra["exact"], questions.extra["distinct"]) == (0, 1, 4)
    assert questions.extra["exact_examples"] == [["test:p2/q2", "test:p2/q3"]]
    assert questions.passed is False and questions.reason == "exact_duplicate"


def test_passage_ids_holding_a_colon_stay_in_their_split():
    """The split of a unit was cut from its id at the last colon in one mutant of the check: ids are
    ``split:passage_id``, and a passage id may hold a colon (``doc:1``). Two copies of a passage in one
    split are one exact duplicate, whatever their ids hold."""
    row = {"question": "q?", "answer1": "a", "answer2": "b", "answer3": "c", "answer4": "d", "correct_answer_num": 1}
    train = pd.DataFrame([{**row, "passage_id": "x:1", "question_id": "1", "passage": "the same passage text"},
                          {**row, "passage_id": "y:1", "question_id": "1", "passage": "the same passage text"}])
    test = pd.DataFrame([{**row, "passage_id": "x:1", "question_id": "1", "passage": "another passage"}])
    by_unit = {r.check: r for r in duplicates.run(VariantData("eng_Latn", "mc", {"train": train, "test": test}), DUP)}
    assert by_unit["duplicates:passages"].extra["exact_examples"] == [["train:x:1", "train:y:1"]]
    assert by_unit["duplicates:passages"].extra["distinct"] == 2


def test_the_duplicates_result_names_the_closest_pairs_first_and_cuts_each_list():
    """Near pairs in two splits, more than are named (10), and four exact groups of four texts: the named
    pairs are the closest of both splits, in order; the detail shows three of them; the examples are the
    first three exact groups (three ids each) and three near pairs."""
    similar = _texts_with_similarities()  # a text and six copies, more and more characters changed
    train = similar + [str(g) * 30 for g in range(4) for _ in range(4)]  # no shingle in common
    test = [t.replace("a", "e") for t in similar]
    params = {**DUP, "near_jaccard": 0.3, "max_near_share": 1.0, "max_exact": 100, "num_perm": 64,
              "bands": 64}  # a band per row: every pair that shares one MinHash value is compared
    data = _data("eng_Latn", "topic", train={"index_id": range(len(train)), "category": ["a"] * len(train),
                                             "text": train},
                 test={"index_id": range(len(test)), "category": ["a"] * len(test), "text": test})
    [r] = duplicates.run(data, params)
    expected = sorted((round(_jaccard(normalize(t[i]), normalize(t[j])), 4), f"{s}:{i}", f"{s}:{j}")
                      for s, t in (("train", similar), ("test", test)) for i in range(7) for j in range(i + 1, 7)
                      if _jaccard(normalize(t[i]), normalize(t[j])) >= 0.3)
    assert len(expected) > 10
    named = r.extra["near_named"]
    assert [n["jaccard"] for n in named] == sorted((e[0] for e in expected), reverse=True)[:10]
    by_pair = {frozenset(e[1:]): e[0] for e in expected}
    assert all(by_pair[frozenset(n["ids"])] == n["jaccard"] for n in named)
    closest = r.detail.split(", closest: ")[1].split("; ")
    assert closest == [f"{n['ids'][0]} ~ {n['ids'][1]} ({n['jaccard']:.2f})" for n in named[:3]]
    assert [len(g) for g in r.extra["exact_examples"]] == [3, 3, 3] and len(r.extra["near_examples"]) == 3
    assert r.extra["examples"] == r.extra["exact_examples"] + r.extra["near_examples"]


def test_the_closest_near_pairs_are_named_even_when_their_texts_sort_last():
    """More near pairs in one split than are named (10), the closest one between the two texts that sort
    last (the pairs come in the order of the sorted texts): it is named first, and the ten named are the ten
    closest, not the first ten in text order."""
    similar = _texts_with_similarities()  # seven texts, 21 pairs, all but the closest sorting before "z"
    twins = ["zz" + similar[0][::-1], "zz" + similar[0][::-1][:-1] + "q"]  # one character apart
    train = similar + twins
    params = {**DUP, "near_jaccard": 0.2, "max_near_share": 1.0, "num_perm": 64, "bands": 64}
    data = _data("eng_Latn", "topic", train={"index_id": range(len(train)), "category": ["a"] * len(train),
                                             "text": train})
    [r] = duplicates.run(data, params)
    pairs = sorted(((round(_jaccard(normalize(train[i]), normalize(train[j])), 4), {f"train:{i}", f"train:{j}"})
                    for i in range(len(train)) for j in range(i + 1, len(train))
                    if _jaccard(normalize(train[i]), normalize(train[j])) >= 0.2), key=lambda p: -p[0])
    assert len(pairs) > 10 and pairs[0][1] == {"train:7", "train:8"}
    named = r.extra["near_named"]
    assert set(named[0]["ids"]) == {"train:7", "train:8"}
    assert [n["jaccard"] for n in named] == [p[0] for p in pairs[:10]]


def test_pivot_answers_read_a_nullable_integer_column_with_a_missing_answer():
    # pins that pd.NA (an Int64 column as read back from parquet) reads as a missing answer, not float(pd.NA)
    def frame(answers):
        return {"test": pd.DataFrame({"passage_id": [1, 1], "question_id": [1, 2], "correct_answer_num": answers})}

    nullable = frame(pd.array([2, None], dtype="Int64"))
    assert pivot_consistency.compare_to_pivot(nullable, nullable, "mc") == {"missing": 0, "extra": 0, "changed": 0,
                                                                           "examples": []}
    assert pivot_consistency.compare_to_pivot(nullable, frame([2.0, None]), "mc")["changed"] == 0
    r = pivot_consistency.compare_to_pivot(nullable, frame([2, 3]), "mc")
    assert (r["changed"], r["examples"]) == (1, ["changed test/1/2"])
