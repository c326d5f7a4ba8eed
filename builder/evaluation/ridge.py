"""One-vs-rest ridge classification over a grid of regularisation strengths, solved on the Gram matrix.

The linear topic baselines train one ridge regression per class on targets
+1 / -1 (scikit-learn's ``RidgeClassifier``: minimise
``||Y - X w - b||^2 + alpha ||w||^2``, the intercept ``b`` not penalised) and
predict the class of the highest score. Their training splits are small and
wide (SIB-200: 701 rows against 10,000-100,000 n-gram columns), so the
problem is solved in the space of the rows: with ``Kc``, the Gram matrix
``X X^T`` centred on both sides (which is what an unpenalised intercept
does), ``A = (Kc + alpha I)^-1 (Y - mean(Y))`` is one Cholesky solve, and
``w = X^T A``. ``Kc`` is computed once and serves every class and every
``alpha`` of the grid; the solution is exact (no iterations, no tolerance,
no random state), the same model as ``RidgeClassifier(alpha=alpha)`` with any
of its solvers run to convergence.

Above :data:`MAX_KERNEL_ROWS` training rows the Gram matrix would grow as
the square of the rows, so :class:`RidgePath` hands the same objective to
scikit-learn's conjugate-gradient solver on the features instead.

>>> import scipy.sparse as sp
>>> X = sp.csr_matrix(np.array([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0], [0.1, 1.0]]))
>>> path = RidgePath(X, ["a", "a", "b", "b"])
>>> path.predict(path.solve(0.1), sp.csr_matrix(np.array([[1.0, 0.2], [0.0, 0.7]]))).tolist()
['a', 'b']
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import scipy.sparse as sp

#: above this many training rows the n x n Gram matrix (8 n^2 bytes, twice that while it is factorised;
#: n^3 / 3 operations per alpha) is handed to the features' solver instead. On char_wb 1-5-grams of SIB-200
#: sentences the Gram path took 2.2 CPU s for the five alphas at 2,500 rows (the features' conjugate
#: gradients 7.2) and 12.6 at 5,000 (27.3); at 6,000 the matrix is 288 MB. SIB-200's splits have 701.
MAX_KERNEL_ROWS = 6000
#: columns present in more rows than this go through a dense product when the Gram matrix is built
#: (a sparse product costs the square of each column's rows)
_DENSE_DF = 30


def gram(X) -> np.ndarray:
    """``X @ X.T`` as a dense array: frequent columns through BLAS, the rest as a sparse product."""
    X = sp.csc_matrix(X, dtype=np.float64)
    frequent = np.diff(X.indptr) > _DENSE_DF
    dense = X[:, frequent].toarray()
    rare = X[:, ~frequent].tocsr()
    return dense @ dense.T + (rare @ rare.T).toarray()


class RidgePath:
    """One-vs-rest ridge regressions of ``X`` on the labels ``y``, ready to solve for any ``alpha``.

    Parameters
    ----------
    X : sparse matrix, shape (n_rows, n_features)
    y : sequence of labels, length n_rows
    max_kernel_rows : int, default :data:`MAX_KERNEL_ROWS`
        Solve on the Gram matrix up to this many rows; above it, scikit-learn's
        ``sparse_cg`` solver on the features (the same objective).

    Attributes
    ----------
    classes_ : ndarray
        The labels, sorted; a score column per label, ties to the first.
    """

    def __init__(self, X, y: Sequence, *, max_kernel_rows: int = MAX_KERNEL_ROWS):
        self.X = sp.csr_matrix(X, dtype=np.float64)
        y = np.asarray(y)
        self.classes_ = np.unique(y)
        self._targets = np.where(y[:, None] == self.classes_[None, :], 1.0, -1.0)  # +1/-1 per label
        self._mean_target = self._targets.mean(axis=0)
        self.kernel = self.X.shape[0] <= max_kernel_rows
        if self.kernel:
            K = gram(self.X)
            self._row_means = K.mean(axis=0)  # = X @ (the mean row of X)
            self._Kc = K - self._row_means[None, :] - self._row_means[:, None] + self._row_means.mean()

    def solve(self, alpha: float) -> tuple[np.ndarray, np.ndarray]:
        """``(w, b)``: weights (n_features x n_classes) and intercepts (n_classes) for ``alpha > 0``."""
        if not alpha > 0:
            raise ValueError(f"alpha must be > 0; found {alpha!r}")
        if not self.kernel:
            return self._solve_features(alpha)
        from scipy.linalg import cho_factor, cho_solve

        system = self._Kc.copy()
        system.flat[::len(system) + 1] += alpha
        A = cho_solve(cho_factor(system, overwrite_a=True), self._targets - self._mean_target)
        # the columns of A sum to zero (1^T Kc = 0), so X^T A is the weight of the centred rows
        w = self.X.T @ A
        return w, self._mean_target - self._row_means @ A

    def _solve_features(self, alpha: float):
        import warnings

        from sklearn.linear_model import Ridge

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "solver sparse_cg ... did not converge" is reported by its tol
            model = Ridge(alpha=alpha, solver="sparse_cg", tol=1e-8).fit(self.X, self._targets)
        return np.asarray(model.coef_).T, np.asarray(model.intercept_)

    def scores(self, solution, X) -> np.ndarray:
        """The class scores of the rows of ``X`` (n_rows x n_classes)."""
        w, b = solution
        return np.asarray(sp.csr_matrix(X) @ w) + b

    def predict(self, solution, X) -> np.ndarray:
        """The label of the highest score of each row of ``X`` (ties to the label that sorts first)."""
        return self.classes_[np.argmax(self.scores(solution, X), axis=1)]
