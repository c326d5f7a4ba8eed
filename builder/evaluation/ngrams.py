"""Character n-gram counts, the same matrix as scikit-learn's ``CountVectorizer``, faster.

``CountVectorizer`` builds n-grams as Python strings and counts them in a
Python loop over a dict, which is most of the cost of the character baselines
on 205 variants. :class:`CharNgramCounts` applies scikit-learn's preprocessing
(lower-case, runs of white space to one space; for ``char_wb`` also the split
into words padded with one space on each side) and then works on code points
with NumPy: the characters of the training texts form an alphabet (sorted by
code point, numbered from 1), every n-gram is one integer key (the numbers of
its characters packed into a uint64, zeros after the end of a shorter
n-gram), the vocabulary is the distinct keys, sorted (code-point order,
which is the order of ``CountVectorizer``'s sorted vocabulary), and unseen
n-grams are dropped with ``searchsorted``. The result is the same matrix as
``CountVectorizer(analyzer=..., ngram_range=...)`` (the tests compare them on
real sentences in several scripts); only the storage order of the entries
inside a row differs (sorted here), which can change float rounding
downstream. That is why the SIB-200 MLP keeps ``CountVectorizer`` and only the
linear baselines use this counter.

When the packed n-grams do not fit 64 bits (``max_n`` times the bits of the
alphabet size: 5-grams need an alphabet under 4,095 characters; SIB-200's
largest, Chinese, has 1,950), the counter falls back to ``CountVectorizer``
itself, so the matrix is the same in every case.

>>> counts = CharNgramCounts(ngram_range=(1, 2)).fit(["abab"])
>>> counts.get_feature_names_out().tolist()
['a', 'ab', 'b', 'ba']
>>> counts.transform(["abc"]).toarray().tolist()
[[1, 1, 1, 0]]
>>> CharNgramCounts((2, 3), analyzer="char_wb").fit(["to be"]).get_feature_names_out().tolist()
[' b', ' be', ' t', ' to', 'be', 'be ', 'e ', 'o ', 'to', 'to ']
"""
from __future__ import annotations

import re

import numpy as np
import scipy.sparse as sp

_WHITE_SPACES = re.compile(r"\s\s+")  # scikit-learn's whitespace normalisation of the char analyzers
ANALYZERS = ("char", "char_wb")


class CharNgramCounts:
    """Counts of lower-cased character n-grams as a CSR matrix, as ``CountVectorizer`` counts them.

    ``analyzer="char"`` slides over the whole text; ``analyzer="char_wb"``
    slides inside each word padded with a space on both sides, and a padded
    word shorter than an n-gram is counted once, whole (scikit-learn's rule).

    Parameters
    ----------
    ngram_range : (int, int), default (1, 3)
        ``1 <= min_n <= max_n``.
    dtype : numpy dtype, default numpy.int64
    analyzer : {"char", "char_wb"}, default "char"
    """

    def __init__(self, ngram_range: tuple[int, int] = (1, 3), dtype=np.int64, analyzer: str = "char"):
        min_n, max_n = ngram_range
        if not 1 <= min_n <= max_n:
            raise ValueError(f"ngram_range must satisfy 1 <= min_n <= max_n; found {ngram_range}")
        if analyzer not in ANALYZERS:
            raise ValueError(f"analyzer must be one of {', '.join(ANALYZERS)}; found {analyzer!r}")
        self.ngram_range = (min_n, max_n)
        self.dtype = dtype
        self.analyzer = analyzer
        self.alphabet_: np.ndarray | None = None  # sorted code points of the training texts
        self.vocabulary_: np.ndarray | None = None  # sorted uint64 keys
        self._fallback = None  # CountVectorizer, when the keys do not fit 64 bits
        self.packed_: bool | None = None  # after fit: True if NumPy keys, False if the CountVectorizer fallback

    # -- text -> code points of the units the n-grams slide over ------------------------------------------

    def _units(self, docs):
        """Code points (uint32) of every unit, back to back, with each unit's length and document row."""
        texts = [_WHITE_SPACES.sub(" ", str(d).lower()) for d in docs]
        if self.analyzer == "char":
            units, rows = texts, np.arange(len(texts))
        else:  # one unit per word, padded with a space on both sides, as scikit-learn's _char_wb_ngrams
            words = [t.split() for t in texts]
            units = [f" {w} " for ws in words for w in ws]
            rows = np.repeat(np.arange(len(texts)), [len(ws) for ws in words])
        lens = np.fromiter((len(u) for u in units), dtype=np.int64, count=len(units))
        cps = np.frombuffer("".join(units).encode("utf-32-le"), dtype=np.uint32)
        return cps, lens, rows, len(texts)

    def _keys(self, cps, lens, rows, ids, bits):
        """Packed n-gram keys (uint64) and their document rows, in scikit-learn's counting rule."""
        min_n, max_n = self.ngram_range
        total = int(lens.sum())
        ids = np.concatenate([ids.astype(np.uint64), np.zeros(max_n, dtype=np.uint64)])
        starts = np.cumsum(lens) - lens
        pos_rows = np.repeat(rows, lens)
        unit_len = np.repeat(lens, lens)
        left = unit_len - (np.arange(total) - np.repeat(starts, lens))  # characters from here to the unit's end
        at_start = left == unit_len
        key = np.zeros(total, dtype=np.uint64)
        keys, key_rows = [], []
        for n in range(1, max_n + 1):
            key |= ids[n - 1:n - 1 + total] << np.uint64(bits * (max_n - n))
            if self.analyzer == "char":
                ok = left >= n if n >= min_n else None
            else:
                # windows of n < the padded word's length; a word of length <= max_n also once, whole
                ok = (left >= n) & (unit_len > n) if n >= min_n else np.zeros(total, dtype=bool)
                ok |= at_start & (unit_len == n)
            if ok is not None:
                keys.append(key[ok])
                key_rows.append(pos_rows[ok])
        if not keys:
            return np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=np.int64)
        return np.concatenate(keys), np.concatenate(key_rows)

    @staticmethod
    def _sorted_entries(keys, rows, n_docs):
        """The (n-gram key, row) pairs sorted by key, then row: what a CSC matrix lists, column by column.

        When the key's bits and the row's bits fit one 64-bit integer together,
        one vectorised ``numpy.sort`` of the packed pairs does it (a quarter of
        an ``argsort``'s cost, and the lookups into the vocabulary that follow
        run over sorted keys); otherwise the keys are numbered by
        ``numpy.unique`` and the (number, row) pairs sorted packed.
        """
        row_bits = max(int(n_docs) - 1, 0).bit_length()
        rows = rows.astype(np.uint64)
        if len(keys) == 0 or int(keys.max()).bit_length() + row_bits <= 64:
            packed = np.sort((keys << np.uint64(row_bits)) | rows)
            return packed >> np.uint64(row_bits), packed & np.uint64((1 << row_bits) - 1)
        distinct, number = np.unique(keys, return_inverse=True)
        packed = np.sort(number.ravel().astype(np.uint64) * np.uint64(n_docs) + rows)
        number, row = np.divmod(packed, np.uint64(n_docs))
        return distinct[number.astype(np.int64)], row

    def _matrix(self, cols, rows, n_docs):
        """The CSR matrix of the entries (``cols``, ``rows``) in column-then-row order, repeats summed."""
        n_cols = len(self.vocabulary_)
        first = np.ones(len(cols), dtype=bool)
        first[1:] = (cols[1:] != cols[:-1]) | (rows[1:] != rows[:-1])
        starts = np.flatnonzero(first)
        counts = np.diff(np.append(starts, len(cols))).astype(self.dtype)
        indptr = np.zeros(n_cols + 1, dtype=np.int64)
        np.cumsum(np.bincount(cols[starts], minlength=n_cols), out=indptr[1:])
        m = sp.csc_matrix((counts, rows[starts].astype(np.int64), indptr), shape=(n_docs, n_cols))
        m.has_sorted_indices = True
        return m.tocsr()  # the transpose lists every row's columns in order

    def _bits(self) -> int:
        return (len(self.alphabet_) + 1).bit_length()  # numbers 1..A, and A + 1 for unseen characters

    # -- the scikit-learn API -------------------------------------------------------------------------------

    def fit_transform(self, docs):
        docs = list(docs)
        cps, lens, rows, n_docs = self._units(docs)
        self.alphabet_, ids = np.unique(cps, return_inverse=True)
        if self.ngram_range[1] * self._bits() > 64:
            from sklearn.feature_extraction.text import CountVectorizer

            self._fallback = CountVectorizer(analyzer=self.analyzer, ngram_range=self.ngram_range, dtype=self.dtype)
            self.packed_ = False
            m = self._fallback.fit_transform(docs)
            m.sort_indices()
            return m
        self._fallback, self.packed_ = None, True
        keys, key_rows = self._sorted_entries(*self._keys(cps, lens, rows, ids.ravel() + 1, self._bits()), n_docs)
        first = np.ones(len(keys), dtype=bool)
        first[1:] = keys[1:] != keys[:-1]
        self.vocabulary_ = keys[first]
        return self._matrix(np.cumsum(first) - 1, key_rows, n_docs)

    def fit(self, docs):
        self.fit_transform(docs)
        return self

    def transform(self, docs):
        if self.alphabet_ is None:
            raise ValueError("CharNgramCounts is not fitted")
        if self._fallback is not None:
            m = self._fallback.transform(list(docs))
            m.sort_indices()
            return m
        cps, lens, rows, n_docs = self._units(docs)
        if len(self.vocabulary_) == 0:
            return self._matrix(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), n_docs)
        a = len(self.alphabet_)
        idx = np.searchsorted(self.alphabet_, cps)
        seen = self.alphabet_[np.minimum(idx, a - 1)] == cps
        ids = np.where(seen, idx + 1, a + 1)  # an unseen character makes every n-gram holding it unseen
        keys, key_rows = self._sorted_entries(*self._keys(cps, lens, rows, ids, self._bits()), n_docs)
        cols = np.minimum(np.searchsorted(self.vocabulary_, keys), len(self.vocabulary_) - 1)
        known = self.vocabulary_[cols] == keys
        return self._matrix(cols[known], key_rows[known], n_docs)

    def get_feature_names_out(self) -> np.ndarray:
        """The n-grams as strings, in column order."""
        if self._fallback is not None:
            return self._fallback.get_feature_names_out()
        bits, max_n = self._bits(), self.ngram_range[1]
        mask = np.uint64((1 << bits) - 1)
        names = []
        for k in self.vocabulary_:
            ids = [int((k >> np.uint64(bits * (max_n - 1 - i))) & mask) for i in range(max_n)]
            names.append("".join(chr(self.alphabet_[i - 1]) for i in ids if i))
        return np.array(names, dtype=object)
