"""The linear baselines' solver (``builder.evaluation.ridge``): exact one-vs-rest ridge on the Gram matrix.

``RidgePath`` must be scikit-learn's ``RidgeClassifier`` (intercept not penalised, +1/-1 targets,
the label of the highest score) for any matrix and any alpha; the Gram matrix must be ``X @ X.T``
whichever columns go through the dense product; and the conjugate-gradient path for large splits
must give the same predictions as the exact one on a real variant.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import RidgeClassifier

from builder.evaluation import ridge
from builder.evaluation.ridge import RidgePath, gram
from schemas.io import read_sib_tsv

SIB = Path(__file__).parents[2] / "tests" / "data" / "sib200" / "annotated"


@st.composite
def _problems(draw):
    """A small sparse non-negative matrix (TF-IDF-like), labels from 2-4 classes, one alpha."""
    rows = draw(st.integers(3, 9))
    cols = draw(st.integers(1, 12))
    values = draw(st.lists(st.sampled_from([0.0, 0.0, 0.0, 0.3, 1.0, 2.5]), min_size=rows * cols,
                           max_size=rows * cols))
    classes = draw(st.integers(2, 4))
    labels = draw(st.lists(st.sampled_from("abcd"[:classes]), min_size=rows, max_size=rows)
                  .filter(lambda ys: len(set(ys)) >= 2))
    alpha = draw(st.sampled_from([0.01, 0.1, 1.0, 10.0]))
    return sp.csr_matrix(np.array(values).reshape(rows, cols)), labels, alpha


@settings(max_examples=60, deadline=None)
@given(_problems())
def test_scores_are_scikit_learns_ridge_classifier(problem):
    X, y, alpha = problem
    path = RidgePath(X, y)
    ours = path.scores(path.solve(alpha), X)
    ref = RidgeClassifier(alpha=alpha, solver="svd").fit(X.toarray(), y)  # dense, exact
    expected = ref.decision_function(X.toarray())
    if expected.ndim == 1:  # two classes: scikit-learn keeps one column, +1 for the second label
        expected = np.column_stack([-expected, expected])
    np.testing.assert_allclose(ours, expected, atol=1e-8)
    assert path.classes_.tolist() == ref.classes_.tolist()


@settings(max_examples=40, deadline=None)
@given(_problems(), st.integers(0, 3))
def test_the_gram_matrix_is_x_times_x_transposed_whatever_goes_dense(problem, threshold):
    X = problem[0]
    ridge_dense_df = ridge._DENSE_DF
    try:
        ridge._DENSE_DF = threshold  # columns in more than `threshold` rows take the dense product
        np.testing.assert_allclose(gram(X), (X @ X.T).toarray(), atol=1e-12)
    finally:
        ridge._DENSE_DF = ridge_dense_df


def _split(variant, split):
    rows = read_sib_tsv(SIB / variant / f"{split}.tsv")
    return [r["text"] for r in rows], [r["category"] for r in rows]


@pytest.mark.parametrize("variant", ["eng_Latn", "bod_Tibt"])
def test_the_feature_space_solver_for_large_splits_predicts_the_same(variant):
    from sklearn.feature_extraction.text import TfidfVectorizer

    (tx, ty), (sx, _) = _split(variant, "train"), _split(variant, "test")
    vec = TfidfVectorizer(analyzer="char_wb", ngram_range=(1, 5), sublinear_tf=True)
    X, Xs = vec.fit_transform(tx), vec.transform(sx)
    exact = RidgePath(X, ty)
    assert exact.kernel and len(ty) <= ridge.MAX_KERNEL_ROWS
    iterative = RidgePath(X, ty, max_kernel_rows=len(ty) - 1)
    assert not iterative.kernel
    for alpha in (0.03, 1.0):
        a, b = exact.solve(alpha), iterative.solve(alpha)
        np.testing.assert_allclose(exact.scores(a, Xs), iterative.scores(b, Xs), atol=1e-5)
        assert exact.predict(a, Xs).tolist() == iterative.predict(b, Xs).tolist()


def test_alpha_must_be_positive():
    path = RidgePath(sp.csr_matrix(np.eye(3)), ["a", "b", "a"])
    for alpha in (0.0, -1.0, float("nan")):
        with pytest.raises(ValueError, match="alpha must be > 0"):
            path.solve(alpha)


def test_ties_between_scores_go_to_the_label_that_sorts_first():
    path = RidgePath(sp.csr_matrix(np.array([[1.0, 0.0], [0.0, 1.0]])), ["b", "a"])
    tied = (np.zeros((2, 2)), np.zeros(2))  # every label scores 0
    assert path.classes_.tolist() == ["a", "b"]
    assert path.predict(tied, sp.csr_matrix(np.array([[1.0, 1.0]]))).tolist() == ["a"]
