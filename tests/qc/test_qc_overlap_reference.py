"""The vectorised overlap features equal a plain per-question implementation of their definitions.

The reference below tokenises each text on its own (``words(tokenize(...))``)
and computes every feature with Python loops straight from the definitions in
:mod:`qc.overlap`; the batched NumPy computation must give the same numbers
(exactly for shares and LCS ratios, which are integer counts over integer
lengths; to rounding for the sliding window, whose sums run in another order).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from schemas.dataset import load_dataset_dir
from qc.bow_probe import _documents, _identity, count_matrix
from qc.overlap import FEATURES, option_features
from qc.tokens import TokenCache, tokenize, words

EXACT = [f for f in FEATURES if f != "sliding_window"]


def _share(items, pool):
    return sum(1 for x in items if x in pool) / len(items) if items else 0.0


def _lcs_subsequence(a, b):
    d = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a)):
        for j in range(len(b)):
            d[i + 1][j + 1] = d[i][j] + 1 if a[i] == b[j] else max(d[i][j + 1], d[i + 1][j])
    return d[-1][-1]


def _lcs_substring(a, b):
    best = 0
    prev = [0] * (len(b) + 1)
    for i in range(len(a)):
        cur = [0] * (len(b) + 1)
        for j in range(len(b)):
            if a[i] == b[j]:
                cur[j + 1] = prev[j] + 1
                best = max(best, cur[j + 1])
        prev = cur
    return best


def _sliding_window(passage, target):
    counts = {w: passage.count(w) for w in passage}
    best = 0.0
    for j in range(len(passage)):
        window = passage[j:j + len(target)]
        best = max(best, sum(np.log1p(1 / counts[w]) for w in window if w in target))
    return best


def reference_features(frame: pd.DataFrame, language: str = "eng_Latn") -> pd.DataFrame:
    memo: dict[str, list[str]] = {}

    def w(text):
        if text not in memo:
            memo[text] = words(tokenize(str(text), language))
        return memo[text]

    rows = []
    for r in frame.itertuples(index=False):
        p, q = w(r.passage), w(r.question)
        p_set, q_set = set(p), set(q)
        p_bigrams = set(zip(p[:-1], p[1:]))
        for k in range(1, 5):
            o = w(getattr(r, f"answer{k}"))
            n = len(o)
            rows.append({
                "token_share": _share(o, p_set),
                "bigram_share": _share(list(zip(o[:-1], o[1:])), p_bigrams),
                "lcs_subsequence": _lcs_subsequence(o, p) / n if n else 0.0,
                "lcs_substring": _lcs_substring(o, p) / n if n else 0.0,
                "option_question_share": _share(o, q_set),
                "question_option_passage_share": _share(q + o, p_set),
                "sliding_window": _sliding_window(p, q_set | set(o)),
                "question_passage_share": _share(q, p_set),
            })
    return pd.DataFrame(rows)


def _compare(frame):
    got = option_features(frame, language="eng_Latn")
    ref = reference_features(frame)
    for name in EXACT + ["question_passage_share"]:
        assert got[name].tolist() == ref[name].tolist(), name
    assert np.allclose(got["sliding_window"], ref["sliding_window"], rtol=1e-12, atol=1e-12)


def test_vectorised_features_equal_the_reference_on_mctest(mctest_frame):
    _compare(mctest_frame)


def test_vectorised_features_equal_the_reference_on_the_assembled_set(assembled_dir):
    ds = load_dataset_dir(assembled_dir)
    frame = pd.concat([ds.tables["eng_Latn"][s] for s in ds.splits("eng_Latn")], ignore_index=True)
    _compare(frame.sample(n=min(len(frame), 150), random_state=0).reset_index(drop=True))


def test_features_of_a_row_do_not_depend_on_the_other_rows(mctest_frame):
    whole = option_features(mctest_frame, language="eng_Latn")
    part = option_features(mctest_frame.iloc[10:30].reset_index(drop=True), language="eng_Latn")
    assert np.array_equal(whole[list(FEATURES)].to_numpy()[40:120], part[list(FEATURES)].to_numpy())


@pytest.mark.parametrize("features", ["question+option", "option"])
def test_probe_matrix_is_countvectorizers_matrix(mctest_frame, features):
    from sklearn.feature_extraction.text import CountVectorizer

    flat, lengths = _documents(mctest_frame, features, TokenCache(), "eng_Latn")
    starts = np.concatenate(([0], np.cumsum(lengths)))
    docs = [flat[a:b] for a, b in zip(starts[:-1], starts[1:])]
    ref = CountVectorizer(analyzer=_identity, max_features=20000).fit_transform(docs).tocsr()
    for cap in (20000, 50):  # 50: fewer than the vocabulary, CountVectorizer itself picks the columns
        got = count_matrix(flat, lengths, cap)
        want = ref if cap == 20000 else CountVectorizer(analyzer=_identity, max_features=cap).fit_transform(docs)
        assert type(got) is type(want) and got.shape == want.shape
        for part in ("indptr", "indices", "data"):  # same entries in the same order (liblinear follows it)
            a, b = getattr(got, part), getattr(want, part)
            assert a.dtype == b.dtype and np.array_equal(a, b), part
