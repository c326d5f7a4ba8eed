"""Check ``contamination``: does a training set contain passages of a given test set?

With ``builder qc TRAIN --contamination-against TEST``, every passage of the
training variant is compared with the passages of the matching test variant
(same name, or the only one) by word ``n``-grams (default 13, the
contamination test of Brown et al. 2020): a training passage is contaminated
when it shares at least one ``n``-gram with any test passage. The set fails
when the contaminated share exceeds ``max_share`` (default 0).

>>> from qc.tokens import TokenCache
>>> hashes = passage_ngrams(["one two three four five"], "eng_Latn", 3, TokenCache())
>>> len(hashes)
3
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from schemas.codes import flores_code

from .result import CheckResult, VariantData, skipped
from .textnorm import word_ngram_hashes
from .tokens import TokenCache

NAME = "contamination"
KINDS = ("mc", "topic")


def passage_ngrams(texts, language: str | None, n: int, cache: TokenCache) -> np.ndarray:
    """Distinct ``n``-gram hashes of the words of all ``texts``."""
    texts = list(dict.fromkeys(map(str, texts)))
    cache.fill(texts, language)
    parts = [word_ngram_hashes(cache.get(t, language), n) for t in texts]
    return np.unique(np.concatenate(parts)) if parts else np.zeros(0, dtype=np.uint64)


def text_column(kind: str) -> str:
    return "text" if kind == "topic" else "passage"


def run(data: VariantData, params: dict) -> list[CheckResult]:
    if data.against is None:
        return [skipped(data.variant, NAME, "no --contamination-against set given")]
    against = data.against.get(data.variant)
    if against is None and len(data.against) == 1:
        against = next(iter(data.against.values()))
    if against is None:
        return [skipped(data.variant, NAME, "the --contamination-against set has no variant of this name")]
    language = flores_code(data.variant)
    texts = pd.unique(data.combined[text_column(data.kind)].astype(str))
    data.cache.fill(texts, language)
    n = params["ngram"]
    hits, short = [], 0
    for t in texts:
        grams = word_ngram_hashes(data.cache.get(t, language), n)
        if not len(grams):
            short += 1
            continue
        if np.isin(grams, against, assume_unique=True).any():
            hits.append(t)
    share = len(hits) / len(texts) if len(texts) else 0.0
    passed = share <= params["max_share"]
    return [CheckResult(
        data.variant, NAME, passed, value=share, threshold=params["max_share"],
        reason=None if passed else "test_ngrams_in_train",
        detail=(f"{len(hits)}/{len(texts)} passages share a {n}-gram with the test set "
                f"({short} shorter than {n} words not compared)"),
        paper="Belebele is test-only (§3.4); 13-gram overlap test of Brown et al. 2020",
        extra={"contaminated": len(hits), "passages": int(len(texts)), "too_short": short, "ngram": n,
               "examples": [h[:80] for h in hits[:3]]})]
