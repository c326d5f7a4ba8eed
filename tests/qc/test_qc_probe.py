"""The bag-of-words probe against a direct scikit-learn computation."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from oracles import stats
from oracles import CountVectorizer, GroupKFold, LogisticRegression

from qc.bow_probe import probe_accuracy
from qc.tokens import tokenize, words


def _direct(frame: pd.DataFrame, seed: int, folds: int, with_question: bool) -> tuple[int, int]:
    """The probe written out with a scikit-learn pipeline, one option per row: (hits, questions scored).

    Forward-chained (issue 28): fold k is answered by a model of folds 0..k-1, fold 0 only trains.
    """
    docs, y, qrow = [], [], []
    for i, r in enumerate(frame.itertuples(index=False)):
        q = words(tokenize(r.question)) if with_question else []
        for k in range(1, 5):
            docs.append(q + words(tokenize(getattr(r, f"answer{k}"))))
            y.append(int(k == r.correct_answer_num))
            qrow.append(i)
    y, qrow = np.array(y), np.array(qrow)
    codes, uniques = pd.factorize(frame["passage_id"].astype(str), sort=True)
    groups = np.random.default_rng(seed).permutation(len(uniques))[codes]
    x = CountVectorizer(analyzer=lambda d: d, max_features=20000).fit_transform(docs)
    pred = np.zeros(len(frame), dtype=int)
    fold_sets = [test_q for _, test_q in GroupKFold(n_splits=folds).split(np.zeros(len(frame)), groups=groups)]
    for k in range(1, folds):
        tr, te = np.isin(qrow, np.concatenate(fold_sets[:k])), np.isin(qrow, fold_sets[k])
        model = LogisticRegression(solver="liblinear", random_state=seed).fit(x[tr], y[tr])
        scores = model.decision_function(x[te]).reshape(-1, 4)
        pred[np.sort(fold_sets[k])] = scores.argmax(axis=1) + 1
    scored = np.isin(np.arange(len(frame)), np.concatenate(fold_sets[1:]))
    return int((pred == frame["correct_answer_num"].to_numpy())[scored].sum()), int(scored.sum())


@pytest.mark.parametrize("features", ["question+option", "option"])
def test_probe_matches_sklearn_on_mctest(mctest_frame, features):
    got = probe_accuracy(mctest_frame, seed=0, folds=5, features=features)
    k, n = _direct(mctest_frame, 0, 5, features == "question+option")
    assert n < len(mctest_frame)  # the first fold only trains
    assert (got["correct"], got["n"]) == (k, n)
    assert got["accuracy"] == pytest.approx(k / n)
    ref = stats.binomtest(k, n, 0.25, alternative="greater")
    ci = stats.binomtest(k, n, 0.25).proportion_ci(0.95, method="exact")
    assert got["p_value"] == pytest.approx(ref.pvalue)
    assert (got["ci_low"], got["ci_high"]) == pytest.approx((ci.low, ci.high))


def test_probe_is_seeded_and_groups_passages(mctest_frame):
    a = probe_accuracy(mctest_frame, seed=3)
    assert a == probe_accuracy(mctest_frame, seed=3)
    assert a["seed"] == 3 and a["folds"] == 5


def test_probe_needs_two_passages():
    frame = pd.DataFrame([{"passage_id": "p", "question": "q", "answer1": "a", "answer2": "b", "answer3": "c",
                           "answer4": "d", "correct_answer_num": 1}] * 4)
    with pytest.raises(ValueError, match="at least 2 passages"):
        probe_accuracy(frame)


def test_unknown_feature_set_is_refused(mctest_frame):
    with pytest.raises(ValueError, match="question\\+option, option"):
        probe_accuracy(mctest_frame, features="passage")


def test_a_fold_whose_training_has_one_class_answers_1_and_the_later_folds_are_still_scored():
    # no question names a valid answer: every training set is all negatives, so no fold fits a model,
    # each answers option 1, and folds 1..4 are all scored (fold 0 only trains)
    frame = pd.DataFrame([{"passage_id": f"p{p}", "question": f"q{p}{i}", "answer1": "a", "answer2": "b",
                           "answer3": "c", "answer4": "d", "correct_answer_num": ""}
                          for p in range(5) for i in range(2)])
    got = probe_accuracy(frame, folds=5)
    assert (got["n"], got["correct"], got["folds"]) == (8, 0, 5)


def test_a_direct_call_caps_the_vocabulary_at_20000_words_by_default(mctest_frame, monkeypatch):
    import qc.bow_probe as probe

    seen = []
    real = probe.count_matrix
    monkeypatch.setattr(probe, "count_matrix", lambda flat, lengths, cap: seen.append(cap) or real(flat, lengths, cap))
    probe_accuracy(mctest_frame)
    probe_accuracy(mctest_frame, max_features=None)
    assert seen == [20000, None]
