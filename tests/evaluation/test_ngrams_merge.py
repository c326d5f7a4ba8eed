"""Merging identical feature columns (``ngrams.identical_columns``) leaves the linear baselines' model as it was.

The char n-gram baselines train liblinear on ``X @ P`` instead of ``X``: one column per group of columns
that hold the same values, scaled so every dot product between rows is kept. These tests hold the
algebra (any matrix, hash collisions included) and the result on real sentences: the same predictions,
variant by variant, as the unmerged matrix.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import LinearSVC

from builder.evaluation import ngrams, topic_baselines
from builder.evaluation.ngrams import CharNgramCounts, identical_columns
from schemas.io import read_sib_tsv

SIB = Path(__file__).parents[2] / "tests" / "data" / "sib200" / "annotated"


@st.composite
def _matrices(draw):
    """A small sparse matrix whose columns repeat a few distinct ones (some exactly, some off by one value)."""
    rows = draw(st.integers(1, 6))
    base = draw(st.lists(st.lists(st.sampled_from([0.0, 0.0, 1.0, 0.5, 2.0]), min_size=rows, max_size=rows),
                         min_size=1, max_size=5))
    picks = draw(st.lists(st.integers(0, len(base) - 1), min_size=1, max_size=12))
    return sp.csr_matrix(np.array([base[i] for i in picks]).T)


def _groups_are_identical_columns(X, P):
    dense, group = X.toarray(), P.tocsr().indices  # one entry per row of P: its group
    for g in np.unique(group):
        members = dense[:, group == g]
        assert (members == members[:, :1]).all(), "a group holds columns that differ"
    firsts = [int(np.flatnonzero(group == g)[0]) for g in range(P.shape[1])]
    assert firsts == sorted(firsts)  # numbered in the order of their first column


@settings(max_examples=150, deadline=None)
@given(_matrices())
def test_dot_products_are_kept_and_only_equal_columns_merge(X):
    P = identical_columns(X)
    Xm = (X @ P).toarray()
    assert np.allclose(Xm @ Xm.T, (X @ X.T).toarray())
    _groups_are_identical_columns(X, P)
    distinct = {tuple(c) for c in X.toarray().T}
    assert P.shape == (X.shape[1], len(distinct))  # every repeat merged
    # any other row scores the same under the merged model: w' = w @ P, x . w == (x @ P) . w'
    w = X.T @ np.arange(1, X.shape[0] + 1, dtype=float)  # a weight vector in the span of the rows
    x = np.arange(X.shape[1], dtype=float)
    assert np.isclose(x @ w, (x @ P) @ (P.T @ w))


@settings(max_examples=60, deadline=None)
@given(_matrices())
def test_a_hash_collision_never_merges_different_columns(X):
    real = ngrams._mix64
    ngrams._mix64 = lambda x: np.zeros_like(x)  # every column of one length gets the same key
    try:
        P = identical_columns(X)
    finally:
        ngrams._mix64 = real
    Xm = (X @ P).toarray()
    assert np.allclose(Xm @ Xm.T, (X @ X.T).toarray())
    _groups_are_identical_columns(X, P)


def _split(variant, split):
    rows = read_sib_tsv(SIB / variant / f"{split}.tsv")
    return [r["text"] for r in rows], [r["category"] for r in rows]


@pytest.mark.parametrize("variant", ["eng_Latn", "zho_Hans", "bod_Tibt", "kas_Deva"])
def test_real_variants_merge_three_columns_in_four_and_predict_the_same(variant):
    (tx, ty), (dx, dy), (sx, _) = (_split(variant, s) for s in ("train", "dev", "test"))
    analyzer, ngram_range = topic_baselines.CHAR_LINEAR_NGRAMS
    from sklearn.feature_extraction.text import TfidfTransformer

    counts = CharNgramCounts(ngram_range, dtype=np.float64, analyzer=analyzer)
    tfidf = TfidfTransformer(sublinear_tf=True)
    X = tfidf.fit_transform(counts.fit_transform(tx))
    Xd, Xs = (tfidf.transform(counts.transform(t)) for t in (dx, sx))
    P = identical_columns(X)
    assert P.shape[1] < X.shape[1] / 2 and (X @ P).nnz < 0.9 * X.nnz
    preds, params = topic_baselines.fit_predict("char_linear", tx, ty, dx, dy, sx)
    dev = {C: LinearSVC(C=C, tol=topic_baselines.LINEAR_SVC_TOL, random_state=0).fit(X, ty)
           for C in topic_baselines.CHAR_LINEAR_C_GRID}  # the unmerged matrix, as before the merge
    acc = {C: float(np.mean(m.predict(Xd) == np.asarray(dy))) for C, m in dev.items()}
    chosen = next(C for C in topic_baselines.CHAR_LINEAR_C_GRID if acc[C] == max(acc.values()))
    assert params["C"] == chosen and params["n_features"] == X.shape[1]
    assert preds.tolist() == dev[chosen].predict(Xs).tolist()
