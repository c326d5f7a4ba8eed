"""Tokenization, overlap features and the sliding-window baseline."""
from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import stats

from qc import overlap
from qc.overlap import FEATURES, option_features, sliding_window_choice, sliding_window_scores
from qc.overlap_ttest import cohen_d, feature_ttest, hedges_g
from qc.tokens import TokenCache, moses_language, tokenize, tokenize_many


def test_tokenize_uses_the_items_language():
    assert tokenize("l'homme", "fra_Latn") == ["l'", "homme"]
    assert tokenize("l'homme", "eng_Latn") == ["l", "'homme"]
    assert moses_language("hau_Latn") == "en"  # unknown to sacremoses: English rules
    assert moses_language("zho_Hans") == "zh"


def test_batched_tokenization_equals_one_call_per_text(mctest_frame):
    texts = list(pd.unique(mctest_frame[["passage", "question", "answer1", "answer2"]].to_numpy().ravel()))
    assert tokenize_many(texts, "eng_Latn") == [tokenize(t, "eng_Latn") for t in texts]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.text(alphabet="ab .,'\"-()Mr!?1", max_size=30), max_size=6))
def test_batched_tokenization_property(texts):
    assert tokenize_many(texts, "eng_Latn") == [tokenize(t, "eng_Latn") for t in texts]


def _lcs_subseq(a, b):
    d = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a)):
        for j in range(len(b)):
            d[i + 1][j + 1] = d[i][j] + 1 if a[i] == b[j] else max(d[i][j + 1], d[i + 1][j])
    return d[-1][-1]


def _lcs_substr(a, b):
    best = 0
    for i in range(len(a)):
        for j in range(len(b)):
            k = 0
            while i + k < len(a) and j + k < len(b) and a[i + k] == b[j + k]:
                k += 1
            best = max(best, k)
    return best


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 4), max_size=25), st.lists(st.lists(st.integers(0, 5), max_size=6), min_size=1,
                                                          max_size=4))
def test_vectorised_lcs_matches_the_textbook_recurrence(passage, options):
    subseq, substr = overlap._lcs(np.array(passage, dtype=np.int64), [np.array(o, dtype=np.int64) for o in options])
    assert subseq.tolist() == [_lcs_subseq(o, passage) for o in options]
    assert substr.tolist() == [_lcs_substr(o, passage) for o in options]


def test_sliding_window_follows_richardson_algorithm_1():
    passage = "Tom fed the cat . Then Tom went to school ."
    # words: tom fed the cat then tom went to school; C(tom) = 2, others 1
    ic = {w: np.log1p(1 / (2 if w == "tom" else 1)) for w in "tom fed the cat then went to school".split()}
    scores = sliding_window_scores(passage, "Where did Tom go?", ["to school", "home", "the cat", "a dog"])
    assert np.isclose(scores[0], ic["tom"] + ic["to"] + ic["school"])  # window "tom went to school"
    assert np.isclose(scores[1], ic["tom"])
    assert sliding_window_choice(passage, "Where did Tom go?", ["home", "to school", "a cat", "a dog"]) == 1


def test_features_shape_and_ranges(mctest_frame):
    f = option_features(mctest_frame)
    assert len(f) == 4 * len(mctest_frame)
    assert f.groupby("row")["correct"].sum().eq(1).all()
    for name in FEATURES[:-1]:
        assert f[name].between(0, 1).all(), name
    assert (f["sliding_window"] >= 0).all()


def test_cache_tokenises_each_passage_once(mctest_frame):
    cache = TokenCache()
    option_features(mctest_frame, cache=cache)
    distinct = pd.unique(mctest_frame[["passage", "question", "answer1", "answer2", "answer3",
                                       "answer4"]].to_numpy().ravel())
    assert cache.size == len(distinct)


def test_ttest_matches_scipy_on_mctest(mctest_frame):
    # the statistic is Welch's; the p-value is the answer key's randomization p-value (issue 28)
    from qc.overlap_ttest import randomization_pvalue

    f = option_features(mctest_frame)
    key = f["correct"].to_numpy().reshape(-1, 4)
    for name in FEATURES:
        x, y = f.loc[f.correct, name], f.loc[~f.correct, name]
        ref = stats.ttest_ind(x, y, equal_var=False)
        got = feature_ttest(f, name)
        assert np.isclose(got["t"], ref.statistic), name
        assert got["p"] == randomization_pvalue(f[name].to_numpy(float).reshape(-1, 4), key), name
    # MCTest fails the overlap t-test, as Belebele reports (p < 0.01)
    assert feature_ttest(f, "token_share")["p"] < 0.01


def test_effect_sizes_against_a_worked_example():
    # Lakens (2013), Table 1 style: means 1 apart, pooled SD 1.2247 -> d = -0.8165
    x, y = [1.0, 2.0, 3.0, 2.0], [2.0, 3.0, 4.0, 3.0]
    assert np.isclose(cohen_d(x, y), -1 / np.sqrt(2 / 3))
    assert np.isclose(hedges_g(x, y), cohen_d(x, y) * (1 - 3 / (4 * 8 - 9)))


def _naive_sw(passage, target):
    counts = {w: passage.count(w) for w in passage}
    w = len(target)
    best = 0.0
    for j in range(len(passage)):
        window = passage[j:j + w]
        best = max(best, sum(np.log1p(1 / counts[t]) for t in window if t in target))
    return best


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 6), max_size=20), st.lists(st.sets(st.integers(0, 8), max_size=5), min_size=1,
                                                          max_size=4))
def test_batched_sliding_window_matches_a_direct_loop(passage, targets):
    p = overlap._Passage(np.array(passage, dtype=np.int64))
    got = overlap._sw([(p, t) for t in targets])
    assert np.allclose(got, [_naive_sw(passage, t) for t in targets])
