"""Check ``length_ratio``: a unit whose length against the pivot's is far from the variant's own ratios.

A translation's length is roughly proportional to its source's, with a
language-specific factor (Chinese about a third of English in characters,
Tamil longer), so the log length ratios of one variant's units against the
pivot's units at the same id (:func:`schemas.textstats.log_ratio`) spread
narrowly around the variant's median. A unit far out is likelier a
misaligned translation (the sentence of another id), a truncated one (half a
sentence) or an appended fragment than a free translation. Each unit kind
(topic texts; MC passages and questions with their options, see
:mod:`qc.translation`) is scored against its own distribution with the robust
z-score of Iglewicz & Hoaglin (1993), ``(x - median) / (1.4826 * MAD)``
(:func:`schemas.textstats.robust_z`, the score ``builder extend`` warns with);
a unit at ``|z| > max_z`` (their recommended 3.5) is an outlier. A warning,
never gated by default (``gate: false``): a real translation may legitimately
expand or compress a sentence (a name list, a unit conversion, an
explanation). The value is the largest ``|z|``; the detail and ``extra``
name the outliers, furthest first, with both texts shortened.

A unit kind with fewer than ``min_units`` pairs is not judged (a median and
MAD of a handful of ratios do not describe a language), nor one whose MAD is
0 (more than half the units with the same ratio: copies of the pivot, which
``untranslated`` finds).

>>> import pandas as pd
>>> eng = [f"Sentence number {i} of the pivot, of a middling length." for i in range(12)]
>>> fra = [f"La phrase numéro {i} du pivot, d'une longueur moyenne{'.' * (i % 3)}" for i in range(12)]
>>> fra[5] = "Court."
>>> piv = {"test": pd.DataFrame({"index_id": range(12), "text": eng})}
>>> mine = {"test": pd.DataFrame({"index_id": range(12), "text": fra})}
>>> r = run(VariantData("fra_Latn", "topic", mine, pivot=piv), {"max_z": 3.5, "min_units": 10})[0]
>>> r.passed, r.extra["outliers"], [e["id"] for e in r.extra["examples"]]
(False, 1, ['texts:test/5'])
"""
from __future__ import annotations

import math

import numpy as np

from schemas.textstats import log_ratio, robust_scale, robust_z, text_length

from schemas.names import shorten
from .result import CheckResult, VariantData, skipped
from .translation import why_not_compared

NAME = "length_ratio"
KINDS = ("mc", "topic")
NAMED = 10  # outliers named in extra (furthest first), with both texts shortened
SHOWN = 3  # outliers named in the detail


def score(texts: list[str], pivot_texts: list[str]) -> tuple[np.ndarray, np.ndarray, float, float]:
    """Log length ratios, their robust z-scores, and the median and robust scale they were scored with.

    >>> r, z, center, scale = score(["ab", "abc", "abcd", "abcdefghijklmnopqrst"], ["abc"] * 4)
    >>> z.round(2).tolist(), round(center, 3)
    ([-1.05, -0.29, 0.29, 4.08], 0.112)
    """
    ratios = np.array([log_ratio(t, p) for t, p in zip(texts, pivot_texts)], dtype=float)
    center = float(np.median(ratios)) if ratios.size else 0.0
    scale = robust_scale(ratios) if ratios.size else 0.0
    return ratios, robust_z(ratios, center=center, scale=scale), center, scale


def run(data: VariantData, params: dict) -> list[CheckResult]:
    pairs, why = why_not_compared(data)
    if why:
        return [skipped(data.variant, NAME, why)]
    max_z, min_units = params["max_z"], params["min_units"]
    found, per_unit, not_judged, n = [], {}, [], 0
    for unit, frame in pairs.items():
        texts, refs = frame["text"].tolist(), frame["pivot_text"].tolist()
        if len(texts) < min_units:
            not_judged.append(f"{unit}: {len(texts)} units, under {min_units}")
            continue
        ratios, z, center, scale = score(texts, refs)
        if scale == 0:
            not_judged.append(f"{unit}: over half the units have the same length ratio (MAD 0)")
            continue
        n += len(texts)
        far = np.flatnonzero(np.abs(z) > max_z)
        per_unit[unit] = {"units": len(texts), "outliers": int(far.size), "median_ratio": round(math.exp(center), 4),
                          "scale": round(scale, 4), "max_abs_z": round(float(np.abs(z).max()), 2)}
        found += [{"id": f"{unit}:{frame['id'].iloc[i]}", "z": round(float(z[i]), 2),
                   "chars": [text_length(texts[i]), text_length(refs[i])],
                   "texts": [shorten(texts[i]), shorten(refs[i])]} for i in far]
    if not per_unit:
        return [skipped(data.variant, NAME, "no unit kind to judge: " + "; ".join(not_judged))]
    found.sort(key=lambda e: -abs(e["z"]))  # stable: ties keep table order
    top = max(u["max_abs_z"] for u in per_unit.values())
    passed = not found
    kinds = ", ".join(f"{unit} {u['outliers']} of {u['units']} (median ratio {u['median_ratio']:.2f})"
                      for unit, u in per_unit.items())
    shown = "; ".join(f"{e['id']} (z {e['z']:+.1f}, {e['chars'][0]} vs {e['chars'][1]} chars: "
                      f"{e['texts'][0]!r} vs {e['texts'][1]!r})" for e in found[:SHOWN])
    return [CheckResult(
        data.variant, NAME, passed, value=top, threshold=max_z, reason=None if passed else "length_ratio_outlier",
        detail=(f"vs {data.pivot_name}: {len(found)} of {n} units with a length ratio at |robust z| > {max_z} "
                f"(a warning: misaligned, truncated or padded, or a free translation); {kinds}"
                + (f"; not judged: {'; '.join(not_judged)}" if not_judged else "")
                + (f"; furthest (here vs pivot): {shown}" if shown else "")),
        extra={"pivot": data.pivot_name, "units": n, "outliers": len(found), "max_z": max_z, "per_unit": per_unit,
               "not_judged": not_judged, "examples": found[:NAMED]})]
