"""Text normalisation and stable hashes shared by the duplicate, leakage and contamination checks.

>>> normalize("  The  Cat\\u00a0sat. ")
'the cat sat.'
>>> int(char_shingles("abcdef", 5).size)
2
>>> word_ngram_hashes(["a", "b", "c"], 2).tolist() == word_ngram_hashes(["a", "b", "c"], 2).tolist()
True
"""
from __future__ import annotations

import hashlib
import unicodedata
from functools import lru_cache

import numpy as np
import regex

_SPACE = regex.compile(r"\s+")
_SPLIT_ONLY = "\x1c\x1d\x1e\x1f"  # whitespace to str.split (and str.strip), not to regex's \s
_BASE = np.uint64(1099511628211)  # FNV prime: any odd 64-bit multiplier works for a rolling hash


def normalize(text) -> str:
    """NFKC, case-folded (then NFKC again where folding undid it), whitespace collapsed and stripped: the key
    for exact duplicates, which normalizing again leaves as it is.

    The gate's checks each compare a variant's texts in this form (duplicates, leakage, label
    conflicts, untranslated items, ...), so the same text is asked for about nine times in a run:
    the last :data:`_CACHED` texts are remembered (a variant's texts and its pivot's fit).
    """
    if text is None:
        return ""
    return _normalized(text if type(text) is str else str(text))


_CACHED = 1 << 14


@lru_cache(maxsize=_CACHED)
def _normalized(text: str) -> str:
    text = unicodedata.normalize("NFKC", text)
    if any(c in text for c in _SPLIT_ONLY):
        folded = _SPACE.sub(" ", text).strip().casefold()
    else:
        folded = " ".join(text.split()).casefold()  # the same where str.split's whitespace is regex's \s
    # case folding can undo NFKC ("ß" and a combining dot fold to "ss" and the dot, which NFKC composes to
    # "sṡ"): composed again, so a normalized text normalizes to itself (NFKC returns a text its quick check
    # finds normalized as it is)
    return unicodedata.normalize("NFKC", folded)


def rolling_hashes(values: np.ndarray, k: int) -> np.ndarray:
    """64-bit polynomial hash of every window of ``k`` consecutive ``values`` (uint64), in order.

    >>> rolling_hashes(np.array([1, 2, 3], dtype=np.uint64), 2).tolist() == [1 * int(_BASE) + 2, 2 * int(_BASE) + 3]
    True
    """
    n = len(values) - k + 1
    h = np.zeros(n, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for j in range(k):
            h = h * _BASE + values[j:j + n]
    return h


def char_shingles(text: str, k: int) -> np.ndarray:
    """Distinct 64-bit rolling hashes of the ``k``-character substrings of ``text`` (deterministic)."""
    cp = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32).astype(np.uint64)
    if len(cp) < k:
        cp = np.concatenate([cp, np.zeros(k - len(cp), dtype=np.uint64)])
    return np.unique(rolling_hashes(cp, k))


def char_shingles_many(texts: list[str], k: int) -> list[np.ndarray]:
    """:func:`char_shingles` of every text, computed in one pass over all of them.

    >>> a, b = char_shingles_many(["abcdef", "ab"], 5)
    >>> a.tolist() == char_shingles("abcdef", 5).tolist(), b.tolist() == char_shingles("ab", 5).tolist()
    (True, True)
    """
    if not texts:
        return []
    lengths = np.array([max(len(t), k) for t in texts], dtype=np.int64)
    padded = "".join(t if len(t) >= k else t + "\0" * (k - len(t)) for t in texts)
    cp = np.frombuffer(padded.encode("utf-32-le"), dtype=np.uint32).astype(np.uint64)
    h = rolling_hashes(cp, k)
    counts = lengths - k + 1
    starts = np.cumsum(lengths) - lengths
    owner = np.repeat(np.arange(len(texts)), counts)
    h = h[np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts) + starts[owner]]
    bounds = np.cumsum(counts).tolist()
    for a, b in zip([0] + bounds[:-1], bounds):  # each text's hashes sorted in place (small sorts are cheap)
        h[a:b].sort()
    keep = np.ones(len(h), dtype=bool)
    keep[1:] = (h[1:] != h[:-1]) | (owner[1:] != owner[:-1])
    h, owner = h[keep], owner[keep]
    return np.split(h, np.cumsum(np.bincount(owner, minlength=len(texts)))[:-1])


@lru_cache(maxsize=1 << 18)
def word_hash(word: str) -> int:
    """A stable 64-bit hash of one word (blake2b; Python's ``hash`` is salted per process)."""
    return int.from_bytes(hashlib.blake2b(word.encode("utf-8"), digest_size=8).digest(), "little")


def word_ngram_hashes(words: list[str], n: int) -> np.ndarray:
    """Distinct stable hashes of the word ``n``-grams (empty when there are fewer than ``n`` words)."""
    if len(words) < n:
        return np.zeros(0, dtype=np.uint64)
    return np.unique(rolling_hashes(np.array([word_hash(x) for x in words], dtype=np.uint64), n))
