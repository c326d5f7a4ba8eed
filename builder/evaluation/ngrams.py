"""Character n-gram counts, the same matrix as scikit-learn's ``CountVectorizer``, faster.

``CountVectorizer`` builds n-grams as Python strings and counts them in a
Python loop over a dict, which is most of the cost of the TF-IDF baseline on
205 variants. :class:`CharNgramCounts` applies scikit-learn's preprocessing
(lower-case, runs of white space to one space) and then works on code points
with NumPy: every n-gram is one integer key, the vocabulary is
``numpy.unique`` of the keys (code-point order, which is the order of
``CountVectorizer``'s sorted vocabulary), and unseen n-grams are dropped with
``searchsorted``. The result is the same matrix as
``CountVectorizer(analyzer="char", ngram_range=...)`` (the tests compare them
on real sentences in several scripts); only the storage order of the entries
inside a row differs (sorted here), which can change float rounding
downstream. That is why the SIB-200 MLP keeps ``CountVectorizer`` and only the
TF-IDF baseline uses this counter.

>>> counts = CharNgramCounts(ngram_range=(1, 2)).fit(["abab"])
>>> counts.get_feature_names_out().tolist()
['a', 'ab', 'b', 'ba']
>>> counts.transform(["abc"]).toarray().tolist()
[[1, 1, 1, 0]]
"""
from __future__ import annotations

import re

import numpy as np
import scipy.sparse as sp

_WHITE_SPACES = re.compile(r"\s\s+")  # scikit-learn's whitespace normalisation of the char analyzer
_BITS = 21  # every Unicode code point fits in 21 bits, so three fit in one uint64


class CharNgramCounts:
    """Counts of character 1..3-grams (``analyzer="char"``, lower-cased) as a CSR matrix.

    Each n-gram is packed into one uint64 (three 21-bit code points, zeros
    after the end of a shorter n-gram), so sorting the keys sorts the n-grams
    in code-point order, as ``CountVectorizer`` sorts its vocabulary.

    Parameters
    ----------
    ngram_range : (int, int), default (1, 3)
        ``1 <= min_n <= max_n <= 3``.
    dtype : numpy dtype, default numpy.int64
    """

    def __init__(self, ngram_range: tuple[int, int] = (1, 3), dtype=np.int64):
        min_n, max_n = ngram_range
        if not 1 <= min_n <= max_n <= 3:
            raise ValueError(f"ngram_range must satisfy 1 <= min_n <= max_n <= 3; found {ngram_range}")
        self.ngram_range = (min_n, max_n)
        self.dtype = dtype
        self.vocabulary_: np.ndarray | None = None  # sorted uint64 keys

    def _keys(self, docs):
        texts = [_WHITE_SPACES.sub(" ", str(d).lower()) for d in docs]
        lens = np.fromiter((len(t) for t in texts), dtype=np.int64, count=len(texts))
        total = int(lens.sum())
        cps = np.frombuffer("".join(texts).encode("utf-32-le"), dtype=np.uint32).astype(np.uint64)
        cps = np.concatenate([cps, np.zeros(2, dtype=np.uint64)])
        rows = np.repeat(np.arange(len(texts)), lens)
        left = np.repeat(lens, lens) - (np.arange(total) - np.repeat(np.cumsum(lens) - lens, lens))
        key = np.zeros(total, dtype=np.uint64)
        keys, key_rows = [], []
        for n in range(1, self.ngram_range[1] + 1):
            key |= cps[n - 1:n - 1 + total] << np.uint64(_BITS * (3 - n))
            if n >= self.ngram_range[0]:
                ok = left >= n
                keys.append(key[ok])
                key_rows.append(rows[ok])
        return np.concatenate(keys), np.concatenate(key_rows), len(texts)

    def _matrix(self, cols, rows, n_docs):
        data = np.ones(len(cols), dtype=self.dtype)
        m = sp.csr_matrix((data, (rows, cols)), shape=(n_docs, len(self.vocabulary_)), dtype=self.dtype)
        m.sum_duplicates()
        m.sort_indices()
        return m

    def fit_transform(self, docs):
        keys, rows, n_docs = self._keys(docs)
        self.vocabulary_, cols = np.unique(keys, return_inverse=True)
        return self._matrix(cols.ravel(), rows, n_docs)

    def fit(self, docs):
        self.fit_transform(docs)
        return self

    def transform(self, docs):
        if self.vocabulary_ is None:
            raise ValueError("CharNgramCounts is not fitted")
        keys, rows, n_docs = self._keys(docs)
        if len(self.vocabulary_) == 0:
            return self._matrix(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), n_docs)
        cols = np.minimum(np.searchsorted(self.vocabulary_, keys), len(self.vocabulary_) - 1)
        known = self.vocabulary_[cols] == keys
        return self._matrix(cols[known], rows[known], n_docs)

    def get_feature_names_out(self) -> np.ndarray:
        """The n-grams as strings, in column order."""
        mask = np.uint64((1 << _BITS) - 1)
        names = []
        for k in self.vocabulary_:
            cps = [int((k >> np.uint64(_BITS * (2 - i))) & mask) for i in range(3)]
            names.append("".join(chr(c) for c in cps if c))
        return np.array(names, dtype=object)
