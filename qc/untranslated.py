"""Check ``untranslated``: a variant's text that is the pivot's text, or nearly, at the same id.

Each unit of the variant (a topic text; a passage; a question with its
options, see :mod:`qc.translation`) is compared with the pivot's unit of the
same id by the Jaccard similarity of their character 5-shingles
(:func:`qc.textnorm.char_shingles_many` over :func:`qc.textnorm.normalize`d
text, the measure of :mod:`qc.duplicates`). The whole unit is compared, so
the names and numbers a translation legitimately keeps, and the tokens a
Latin-script language shares with English, lower the distance only in
proportion to their share of the sentence.

* Jaccard >= ``near_jaccard`` (0.8): the unit was not translated (or only a
  word of it); gated (reason ``untranslated``).
* ``warn_jaccard`` <= Jaccard < ``near_jaccard``: a warning (a second result,
  ``untranslated:partial``, never gated): much of the unit is the pivot's
  text, which a curator should look at (a loanword-heavy sentence, a name
  list, or half a sentence left in English).

Units whose pivot text is shorter than ``min_chars`` (normalised) are not
judged: a name or a number is the same in every language.

>>> import pandas as pd
>>> piv = {"test": pd.DataFrame({"index_id": [1, 2], "text": ["The cat sat on the mat all day.",
...                                                           "Dogs bark loudly at night."]})}
>>> mine = {"test": pd.DataFrame({"index_id": [1, 2], "text": ["The cat sat on the mat all day.",
...                                                            "Les chiens aboient fort la nuit."]})}
>>> data = VariantData("fra_Latn", "topic", mine, pivot=piv)
>>> [(r.check, r.passed, r.value) for r in run(data, {"near_jaccard": 0.8, "warn_jaccard": 0.5,
...                                                    "shingle": 5, "min_chars": 20})]
[('untranslated', False, 1), ('untranslated:partial', True, 0)]
"""
from __future__ import annotations

import numpy as np

from .result import CheckResult, VariantData, skipped
from .duplicates import signatures
from .textnorm import normalize
from .translation import why_not_compared

NAME = "untranslated"
KINDS = ("mc", "topic")


def similarities(texts: list[str], pivot_texts: list[str], k: int = 5) -> np.ndarray:
    """Character ``k``-shingle Jaccard of each normalised text with the pivot's text at the same position.

    >>> similarities(["Bonjour le monde", "Hello world"], ["Hello world", "Hello world"]).tolist()
    [0.0, 1.0]
    """
    # the shingles the near-duplicate checks keep (a variant's texts, and the pivot's for every variant)
    sh, _ = signatures([normalize(t) for t in texts] + [normalize(t) for t in pivot_texts], k, 1)
    n = len(texts)
    out = np.zeros(n)
    for i in range(n):
        a, b = sh[i], sh[n + i]
        inter = len(np.intersect1d(a, b, assume_unique=True))
        union = len(a) + len(b) - inter
        out[i] = inter / union if union else 0.0
    return out


def _examples(ids, sims, texts, idx) -> list[dict]:
    """The most similar of the units ``idx`` first (five at most), then by table order."""
    order = sorted(idx, key=lambda i: (-sims[i], i))[:5]
    return [{"id": ids[i], "jaccard": round(float(sims[i]), 4), "text": texts[i][:80]} for i in order]


def _first(examples: list[dict]) -> str:
    return "; first: " + ", ".join(f"{e['id']} ({e['jaccard']:.2f})" for e in examples[:3]) if examples else ""


def run(data: VariantData, params: dict) -> list[CheckResult]:
    pairs, why = why_not_compared(data)
    if why:
        return [skipped(data.variant, NAME, why)]
    near, warn, k = params["near_jaccard"], params["warn_jaccard"], params["shingle"]
    ids, sims, texts, same = [], [], [], []
    for unit, frame in pairs.items():
        # lists, not Series: the columns are Arrow strings, slow to iterate from Python
        text, pivot_text, key = frame["text"].tolist(), frame["pivot_text"].tolist(), frame["id"].tolist()
        mine, ref = [normalize(t) for t in text], [normalize(t) for t in pivot_text]
        judged = [i for i, r in enumerate(ref) if len(r) >= params["min_chars"]]
        ids += [f"{unit}:{key[i]}" for i in judged]
        sims += similarities([text[i] for i in judged], [pivot_text[i] for i in judged], k).tolist()
        texts += [text[i] for i in judged]
        same += [mine[i] == ref[i] for i in judged]
    sims_a, n = np.array(sims), len(sims)
    bad = [i for i in range(n) if sims_a[i] >= near]
    partial = [i for i in range(n) if warn <= sims_a[i] < near]
    identical = sum(1 for i in bad if same[i])
    top = float(sims_a.max()) if n else 0.0
    bad_examples, partial_examples = _examples(ids, sims_a, texts, bad), _examples(ids, sims_a, texts, partial)
    gated = CheckResult(
        data.variant, NAME, not bad, value=len(bad), threshold=0, reason="untranslated" if bad else None,
        detail=(f"vs {data.pivot_name}: {len(bad)} of {n} units at shingle Jaccard >= {near} "
                f"({identical} identical){_first(bad_examples)}; highest {top:.2f}"),
        extra={"pivot": data.pivot_name, "units": n, "untranslated": len(bad), "identical": identical,
               "max_jaccard": top, "examples": bad_examples})
    warning = CheckResult(
        data.variant, f"{NAME}:partial", not partial, value=len(partial), threshold=0, gate=False,
        reason="partly_untranslated" if partial else None,
        detail=(f"vs {data.pivot_name}: {len(partial)} of {n} units at {warn} <= Jaccard < {near} "
                f"(a warning: names, loans or a half-translated sentence){_first(partial_examples)}"),
        extra={"pivot": data.pivot_name, "units": n, "partial": len(partial), "examples": partial_examples})
    return [gated, warning]
