"""The gate's small decision checks, exactly (issue 17, mutation testing phase 2).

``answer_balance``, ``label_distribution`` and ``leakage`` decide
pass/fail on counts; ``qc.result`` says which results block a release and
which are hypothesis tests (the ``license`` check: tests/qc/test_qc_license.py); ``qc.gate.run_variant`` applies ``enabled`` and
``gate`` from the config. These tests call each one in-process on frames small
enough to count by hand, and check the statistics against scipy and
statsmodels called here, so that a changed boundary, count, tie rule or
message fails.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from oracles import stats
from oracles import proportion_confint
from sklearn.feature_extraction.text import CountVectorizer

from qc import answer_balance, bow_probe, duplicates, label_distribution, leakage
from qc.config import default_config
from qc.gate import QCReport, run_variant
from qc.result import CheckResult, VariantData, skipped
from qc.tokens import TokenCache


def _mc(**splits) -> VariantData:
    return VariantData("hin_Deva", "mc", {s: pd.DataFrame(v) for s, v in splits.items()})


# --- answer_balance ------------------------------------------------------------------------------------

def test_position_test_counts_tests_and_picks_the_first_largest_deviation():
    r = answer_balance.position_test([1, 2, 2, 3, 3, 4])  # every position deviates by 1/12: A is the first
    assert r["counts"] == [1, 2, 2, 1] and r["position"] == 1
    assert r["deviation"] == pytest.approx(1 / 6 - 1 / 4)
    res = stats.chisquare([1, 2, 2, 1])
    assert (r["chi2"], r["p_value"]) == (pytest.approx(res.statistic), pytest.approx(res.pvalue))
    assert r["max_share"] == pytest.approx(2 / 6)
    low, high = proportion_confint(1, 6, alpha=0.05, method="beta")
    assert r["ci"] == (pytest.approx(low - 0.25), pytest.approx(high - 0.25))


def test_position_test_of_no_answer_is_every_key_with_no_test():
    assert answer_balance.position_test(["x", None, 7]) == {
        "counts": [0, 0, 0, 0], "chi2": None, "p_value": None, "max_share": 0.0, "position": None,
        "deviation": None, "ci": None}


def test_position_test_ignores_values_outside_1_to_4_and_uses_the_confidence():
    r = answer_balance.position_test(["1", 1, 4, 4, 4, "x", 5, 0, None], confidence=0.9)
    assert r["counts"] == [2, 0, 0, 3]
    assert r["position"] == 4 and r["deviation"] == pytest.approx(0.35)  # |4*3 - 5| = 7 is the largest
    low, high = proportion_confint(3, 5, alpha=0.1, method="beta")
    assert r["ci"] == (pytest.approx(low - 0.25), pytest.approx(high - 0.25))


def test_position_test_with_no_valid_answer():
    r = answer_balance.position_test(["x", 7])
    assert r["counts"] == [0, 0, 0, 0] and r["max_share"] == 0.0
    assert (r["position"], r["deviation"], r["ci"]) == (None, None, None)


def test_answer_balance_result_is_a_test_with_every_field():
    data = _mc(train={"correct_answer_num": [1, 1, 1, 2]}, test={"correct_answer_num": [3, 4, "x", 5]})
    (r,) = answer_balance.run(data, {"max_deviation": 0.07})
    res = stats.chisquare([3, 1, 1, 1])
    assert (r.variant, r.check, r.passed, r.gate, r.skipped) == ("hin_Deva", "answer_balance", True, True, False)
    assert r.statistic == pytest.approx(res.statistic) and r.p_value == pytest.approx(res.pvalue)
    assert r.value == r.effect == pytest.approx(0.25)
    assert r.threshold == r.floor == 0.07
    assert r.fails_as == "unbalanced" and r.effect_name == "largest deviation from 1/4"
    low, high = proportion_confint(3, 6, alpha=0.05, method="beta")
    assert r.effect_ci == (pytest.approx(low - 0.25), pytest.approx(high - 0.25))
    assert r.detail == ("correct answers per position A=3, B=1, C=1, D=1; chi-square vs uniform; "
                        "largest deviation A: +0.250")
    assert r.extra == {"counts": [3, 1, 1, 1], "max_share": 0.5, "position": "A"}
    assert r.paper == "Belebele shuffles answer positions (assembly code, NumPy seed 0)"
    assert r.is_test


def test_answer_balance_uses_the_variant_confidence_and_names_the_letter():
    data = _mc(train={"correct_answer_num": [4, 4, 4, 1]})
    data.confidence = 0.8
    (r,) = answer_balance.run(data, {"max_deviation": 0.05})
    low, high = proportion_confint(3, 4, alpha=0.2, method="beta")
    assert r.effect_ci == (pytest.approx(low - 0.25), pytest.approx(high - 0.25))
    assert r.extra["position"] == "D" and r.detail.endswith("largest deviation D: +0.500")


@pytest.mark.parametrize("rows,why", [({"correct_answer_num": []}, "no questions"),
                                      ({"correct_answer_num": ["x", 9]}, "no valid correct_answer_num")])
def test_answer_balance_skips_with_a_reason(rows, why):
    (r,) = answer_balance.run(_mc(train=rows), {"max_deviation": 0.05})
    assert (r.variant, r.check, r.passed, r.skipped, r.detail) == ("hin_Deva", "answer_balance", True, True, why)
    assert not r.is_test and not r.blocks


# --- label_distribution ----------------------------------------------------------------------------------

def _topic(tables, pivot=None) -> VariantData:
    return VariantData("hin_Deva", "topic", {s: pd.DataFrame({"category": c}) for s, c in tables.items()},
                       pivot=None if pivot is None else {s: pd.DataFrame({"category": c}) for s, c in pivot.items()})


def test_label_counts_adds_missing_labels_and_sorts():
    counts = label_distribution.label_counts({"train": pd.DataFrame({"category": ["b", "a", "a"]}),
                                              "dev": pd.DataFrame({"category": ["b"]})}, ["c", "a"])
    assert list(counts.index) == ["a", "b", "c"] and list(counts.columns) == ["dev", "train"]
    assert counts.to_dict() == {"dev": {"a": 0, "b": 1, "c": 0}, "train": {"a": 2, "b": 1, "c": 0}}
    assert all(str(t) == "int64" for t in counts.dtypes)


def test_label_distribution_passes_at_min_count_and_tests_homogeneity():
    data = _topic({"train": ["a", "a", "b", "b", "b"], "test": ["a", "b", "b"]})
    (r,) = label_distribution.run(data, {"min_count": 1})
    res = stats.chi2_contingency([[1, 2], [2, 3]])  # labels a, b (rows) x splits test, train (columns)
    assert (r.variant, r.check, r.passed, r.reason, r.value, r.threshold) == (
        "hin_Deva", "label_distribution", True, None, 1, 1)
    assert r.statistic == pytest.approx(res.statistic) and r.p_value == pytest.approx(res.pvalue)
    assert r.detail == "2 labels; min count 1 (needs 1)"
    assert r.extra == {"counts": {"test": {"a": 1, "b": 2}, "train": {"a": 2, "b": 3}}}
    assert r.paper == "SIB-200: 7 topic labels, stratified train/dev/test"
    assert r.fails_as is None and not r.is_test


def test_label_distribution_fails_below_min_count_and_lists_the_first_four():
    data = _topic({"train": ["a", "a", "b", "c", "d", "e"], "test": ["a", "a", "f"]})
    (r,) = label_distribution.run(data, {"min_count": 2})
    assert (r.passed, r.reason, r.value, r.threshold) == (False, "label_too_rare", 0, 2)
    assert r.detail == ("6 labels; min count 0 (needs 2); low: b@test=0, b@train=1, c@test=0, c@train=1")
    assert r.blocks


def test_a_label_only_the_pivot_has_is_missing_from_the_variant():
    data = _topic({"train": ["a", "b"], "test": ["a", "b"]}, pivot={"train": ["a", "b", "z"]})
    (r,) = label_distribution.run(data, {"min_count": 1})
    assert not r.passed and r.value == 0
    assert r.detail == "3 labels; min count 0 (needs 1); low: z@test=0, z@train=0"
    assert r.statistic is None and r.p_value is None  # a label with no rows at all: no chi-square test


def test_the_labels_of_every_pivot_split_count():
    data = _topic({"train": ["a", "b"], "test": ["a", "b"]}, pivot={"train": ["a", "y"], "test": ["b", "z"]})
    (r,) = label_distribution.run(data, {"min_count": 1})
    assert r.detail == "4 labels; min count 0 (needs 1); low: y@test=0, y@train=0, z@test=0, z@train=0"


def test_a_label_seen_once_still_gets_the_homogeneity_test():
    data = _topic({"train": ["a", "a", "b"], "test": ["a", "c"]})  # c: one row in all
    (r,) = label_distribution.run(data, {"min_count": 1})
    res = stats.chi2_contingency([[1, 2], [0, 1], [1, 0]])
    assert r.statistic == pytest.approx(res.statistic) and r.p_value == pytest.approx(res.pvalue)


def test_label_distribution_needs_two_splits_and_two_labels_for_the_test():
    (one_split,) = label_distribution.run(_topic({"train": ["a", "b"]}), {"min_count": 1})
    assert one_split.passed and one_split.statistic is None and one_split.p_value is None
    (one_label,) = label_distribution.run(_topic({"train": ["a"], "test": ["a"]}), {"min_count": 1})
    assert one_label.passed and one_label.statistic is None
    (empty,) = label_distribution.run(_topic({"train": []}), {"min_count": 1})
    assert empty.skipped and empty.detail == "no rows" and empty.passed
    assert (empty.variant, empty.check) == ("hin_Deva", "label_distribution")
    (none,) = label_distribution.run(VariantData("x", "topic", {}), {"min_count": 1})
    assert none.skipped and none.detail == "no rows"


# --- leakage -----------------------------------------------------------------------------------------------

def test_shared_texts_every_pair_normalised_without_empty_texts():
    shared = leakage.shared_texts({"train": pd.Series(["A cat.", "", "B", "dog"]),
                                   "dev": pd.Series(["a  cat.", " ", "dog"]),
                                   "test": pd.Series(["b", "DOG", "x"])})
    assert shared == {("train", "dev"): ["a cat.", "dog"], ("train", "test"): ["b", "dog"],
                      ("dev", "test"): ["dog"]}


def _mc_rows(passages, questions, answer="o"):
    return {"passage": passages, "question": questions, "answer1": [answer] * len(passages),
            "answer2": ["p"] * len(passages), "answer3": ["q"] * len(passages), "answer4": ["r"] * len(passages)}


def test_leakage_counts_passages_and_questions_with_their_options():
    data = _mc(train=_mc_rows(["P one.", "P two.", "P three."], ["Q1?", "Q2?", "Q3?"]),
               test=_mc_rows(["p one.", "P two.", "Other."], ["Q1?", "Q2?", "Q9?"], answer="other"))
    passages, questions = leakage.run(data, {"max_shared": 1})
    assert (passages.variant, questions.variant) == ("hin_Deva", "hin_Deva")
    assert (passages.check, passages.passed, passages.value, passages.threshold) == ("leakage:passages", False,
                                                                                      2, 1)
    assert passages.reason == "shared_across_splits"
    assert passages.detail == "passages in two splits: train/test: 2"
    assert passages.extra == {"pairs": {"train/test": 2}, "examples": ["p one.", "p two."],
                              "exact_pairs": [{"ids": ["train:0", "test:0"], "texts": ["p one."]},
                                              {"ids": ["train:1", "test:1"], "texts": ["p two."]}]}
    assert passages.paper == "Belebele is test-only (§3.4): no test passage may be trained on"
    # the questions differ in their first option, so none is shared
    assert (questions.check, questions.passed, questions.value, questions.reason) == ("leakage:questions", True,
                                                                                       0, None)
    assert questions.detail == "questions in two splits: none" and questions.extra == {"pairs": {}, "examples": [],
                                                                                      "exact_pairs": []}


def test_leakage_at_the_limit_passes_and_examples_are_capped():
    texts = [f"text {i}" for i in range(5)]
    data = VariantData("x", "topic", {"train": pd.DataFrame({"text": texts}), "dev": pd.DataFrame({"text": texts}),
                                      "test": pd.DataFrame({"text": texts[:1]})})
    (r,) = leakage.run(data, {"max_shared": 7})
    assert (r.check, r.value, r.passed) == ("leakage:texts", 7, True)  # 5 + 1 + 1 shared
    assert r.detail == "texts in two splits: train/dev: 5; train/test: 1; dev/test: 1"
    assert r.extra["examples"] == ["text 0", "text 1", "text 0", "text 0"]
    (r,) = leakage.run(data, {"max_shared": 6})
    assert not r.passed and r.reason == "shared_across_splits"


def test_leakage_of_one_split_is_skipped():
    (r,) = leakage.run(_mc(test=_mc_rows(["a"], ["b"])), {"max_shared": 0})
    assert (r.variant, r.check, r.skipped, r.passed, r.detail) == ("hin_Deva", "leakage", True, True,
                                                                   "only one split (test)")


def test_leakage_examples_are_the_first_two_of_each_pair_cut_at_80_characters_at_most_four():
    long = "word " * 30
    texts = [long + "1", long + "2", long + "3"]
    data = VariantData("x", "topic", {s: pd.DataFrame({"text": texts}) for s in ("train", "dev", "test")})
    (r,) = leakage.run(data, {"max_shared": 0})
    assert r.value == 9 and r.extra["pairs"] == {"train/dev": 3, "train/test": 3, "dev/test": 3}
    cut = (long + "1")[:80]
    assert len(cut) == 80 and r.extra["examples"] == [cut, cut, cut, cut]  # 2 of train/dev, 2 of train/test


def test_a_question_is_its_text_with_its_four_options():
    frame = pd.DataFrame(_mc_rows(["p"], ["Why?"]))
    assert leakage._question_text(frame).tolist() == ["Why? | o | p | q | r"]


# --- qc.result and the gate's use of the config ---------------------------------------------------------

def test_which_results_are_tests_and_which_block():
    assert CheckResult("v", "c", False).blocks
    assert not CheckResult("v", "c", False, gate=False).blocks
    assert not CheckResult("v", "c", True).blocks
    assert CheckResult("v", "c", True, p_value=0.5, fails_as="x").is_test
    assert not CheckResult("v", "c", True, p_value=None, fails_as="x").is_test
    assert not CheckResult("v", "c", True, p_value=0.5).is_test
    assert not CheckResult("v", "c", True, p_value=0.5, fails_as="x", skipped=True).is_test
    assert CheckResult("v", "c", True, p_value=0.0, fails_as="x").is_test
    s = skipped("v", "c", "why")
    assert (s.variant, s.check, s.passed, s.skipped, s.detail, s.gate) == ("v", "c", True, True, "why", True)


def test_to_dict_of_a_test_and_of_a_plain_check():
    r = CheckResult("v", "c", False, p_value=0.01, fails_as="x", effect=float("nan"), effect_ci=(0.1, 0.3),
                    floor=0.2, extra={"k": 1})
    d = r.to_dict()
    assert d["test"] is True and d["effect"] is None and (d["effect_ci_low"], d["effect_ci_high"]) == (0.1, 0.3)
    assert d["k"] == 1 and d["passed"] is False and d["floor"] == 0.2
    assert "test" not in CheckResult("v", "c", True, value=math.inf).to_dict()
    assert CheckResult("v", "c", True, value=math.inf).to_dict()["value"] is None


def test_run_variant_applies_enabled_and_gate_in_registry_order():
    config = default_config()
    data = VariantData("x", "topic", {"train": pd.DataFrame({"index_id": [1, 2], "category": ["a", "b"],
                                                              "text": ["A cat.", "A dog."], "license": ["MIT"] * 2}),
                                      "test": pd.DataFrame({"index_id": [3], "category": ["a"], "text": ["A cat."],
                                                            "license": ["MIT"]})})
    names = [r.check for r in run_variant(data, config)]
    assert names == ["duplicates:texts", "leakage:texts", "label_conflict:texts", "contamination", "pivot_consistency",
                     "untranslated", "numbers", "length_ratio", "empty_fields", "label_distribution",
                     "script_consistency", "license"]
    config["checks"]["leakage"]["gate"] = False
    config["checks"]["license"]["enabled"] = False
    results = {r.check: r for r in run_variant(data, config)}
    assert "license" not in results
    assert results["leakage:texts"].passed is False and results["leakage:texts"].gate is False
    assert not results["leakage:texts"].blocks and results["label_distribution"].gate is True


def test_the_report_passes_unless_a_gated_result_fails():
    ok, warn, bad = (CheckResult("v", "a", True), CheckResult("v", "b", False, gate=False),
                     CheckResult("v", "c", False, reason="r"))
    report = QCReport([ok, warn], ["v"], "topic", {})
    assert report.passed and report.failures == []
    report = QCReport([ok, warn, bad], ["v"], "topic", {})
    assert not report.passed and report.failures == [bad]


def test_why_the_chi_square_is_undefined_names_every_empty_split_and_four_unused_labels():
    two_empty = pd.DataFrame({"dev": [0, 0], "test": [0, 0], "train": [2, 1]}, index=["a", "b"])
    assert label_distribution.chi2_undefined(two_empty) == "split 'dev', 'test' has no rows"
    unused = pd.DataFrame({"test": [1, 0, 0, 0, 0, 0], "train": [2, 0, 0, 0, 0, 0]}, index=list("abcdef"))
    assert label_distribution.chi2_undefined(unused) == "label 'b', 'c', 'd', 'e' is in no split"


# --- bow_probe -----------------------------------------------------------------------------------------

def test_the_probe_tokenises_each_distinct_text_once_in_the_variant_language():
    # the words are cached under the variant's language (French), not under English and then again in French
    rows = pd.DataFrame([{"passage_id": f"p{i}", "passage": "x", "question": "Laquelle ?", "answer1": "l'eau",
                          "answer2": "le feu", "answer3": "la terre", "answer4": "l'air", "correct_answer_num": 1}
                         for i in range(8)])
    cache = TokenCache()
    flat, lengths = bow_probe._documents(rows, "option", cache, "fra_Latn")  # what probe_accuracy reads
    assert cache.size == 5  # the question and four options, each once
    assert flat[:5] == ["l'", "eau", "le", "feu", "la"] and lengths.tolist() == [2, 2, 2, 2] * 8


def test_count_matrix_keeps_words_that_differ_only_by_a_trailing_nul_apart_as_countvectorizer_does():
    # the words are compared as Python strings (NumPy's fixed-width strings drop trailing NULs)
    words = ["a\x00", "a"]
    x = bow_probe.count_matrix(words, np.array([1, 1]))
    ref = CountVectorizer(analyzer=lambda doc: doc).fit_transform([[w] for w in words])
    assert x.shape == (2, 2) and x.toarray().tolist() == ref.toarray().tolist() == [[0, 1], [1, 0]]


# --- duplicates ----------------------------------------------------------------------------------------

DUP = {"max_exact": 0, "near_jaccard": 0.8, "max_near_share": 0.01, "shingle": 5, "num_perm": 32, "bands": 8}
QUESTION = {"passage_id": "p1", "passage": "A short passage about a cat.", "question": "Who?", "answer1": "a",
            "answer2": "b", "answer3": "c", "answer4": "d", "correct_answer_num": 1}


def _shingle_jaccard(a: str, b: str, k: int = 5) -> float:
    sa, sb = ({t[i:i + k] for i in range(len(t) - k + 1)} for t in (a, b))
    return len(sa & sb) / len(sa | sb)


def test_questions_without_a_question_id_are_numbered_by_row():
    # a question's id is passage_id/row number when the rows have no question_id
    data = VariantData("eng_Latn", "mc", {"test": pd.DataFrame([QUESTION, QUESTION])})
    _, questions = duplicates.run(data, DUP)
    assert questions.extra["exact_examples"] == [["test:p1/0", "test:p1/1"]]
    assert questions.detail.startswith("1 exact duplicate(s) (max 0), first: test:p1/0 = test:p1/1; ")


def test_a_passage_id_seen_twice_in_a_split_is_one_passage_even_with_two_texts():
    # passages are told apart by their id: the first row's text stands for the id
    rows = [QUESTION, {**QUESTION, "passage": "Another passage, a different one."}]
    passages, _ = duplicates.run(VariantData("eng_Latn", "mc", {"test": pd.DataFrame(rows)}), DUP)
    assert (passages.extra["distinct"], passages.extra["exact"]) == (1, 0)
    assert passages.detail.endswith("involving 0.0% of 1 distinct passages (max 1%, within splits)")


def test_a_group_of_twenty_texts_is_compared_pair_by_pair():
    # up to 20 texts under one passage every pair is measured (no LSH, which can miss a pair)
    base = "the quick brown fox jumps over the lazy dog near the river bank today"
    texts = [base, base + "!"] + [f"filler sentence {i} " + "zq" * i for i in range(18)]
    every = sorted((i, j) for i in range(20) for j in range(i + 1, 20) if _shingle_jaccard(texts[i], texts[j]) >= 0.5)
    pairs = duplicates._within_groups(texts, ["p1"] * 20, {**DUP, "near_jaccard": 0.5})
    assert sorted((i, j) for i, j, _ in pairs) == every
    assert (2, 13, 0.5217) in pairs


def test_exact_duplicate_groups_are_listed_in_the_order_of_their_text():
    # groups of equal texts come sorted by text (alpha before beta), not in the order they first appear
    frame = pd.DataFrame({"index_id": range(4), "text": ["beta text"] * 2 + ["alpha text"] * 2, "category": ["a"] * 4})
    [r] = duplicates.run(VariantData("eng_Latn", "topic", {"test": frame}), DUP)
    assert r.extra["exact_examples"] == [["test:2", "test:3"], ["test:0", "test:1"]]
    assert r.detail.startswith("2 exact duplicate(s) (max 0), first: test:2 = test:3; test:0 = test:1; ")
