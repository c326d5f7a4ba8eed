"""The gate's decision rule: multiplicity control over the whole run, then effect floors.

Every check that is a hypothesis test (:attr:`qc.result.CheckResult.is_test`:
the overlap t-tests, the sliding-window baseline, the two bag-of-words probes,
answer balance, length bias) only *measures*: a raw p-value and an effect with
its interval. :func:`decide` gives the verdicts once every variant has been
checked. A test fails when both

1. its p-value, adjusted over its family with ``decision.method`` (Holm by
   default), is below ``decision.alpha``; and
2. ``|effect|`` exceeds the check's floor (``min_g``, chance + ``margin``,
   ``max_deviation``); a test without an effect size (a feature constant in
   both groups) is judged by its p-value alone.

The families: every *gated* test of the pivot variant (``pivot``, at
``pivot_share * alpha``) and every gated test of all other variants
(``variants``, at the rest of alpha). By the union bound the chance that a
clean release fails any of them is at most ``alpha``, whatever the dependence
between the tests (translations of one question set are positively dependent).
A family that is empty (no pivot in the run, or only the pivot) leaves the
whole of alpha to the other. Tests whose check has ``gate: false`` form a third
family (``reported``, at alpha) that cannot fail the release. The reported
adjusted p-value is on alpha's scale: the family's adjusted p-value divided by
the family's share of alpha, so ``p_adjusted < alpha`` is the rule for every
family.

>>> from qc.result import CheckResult
>>> tests = [CheckResult("eng_Latn", f"t{i}", True, p_value=p, fails_as="x", effect=e, floor=0.2)
...          for i, (p, e) in enumerate([(0.001, 0.5), (0.03, 0.5), (0.04, 0.5), (0.0001, 0.1)])]
>>> summary = decide(tests, {"method": "holm", "alpha": 0.05, "pivot_share": 0.5}, pivot="eng_Latn")
>>> [(r.passed, round(r.p_adjusted, 4)) for r in tests]  # the last: significant, but below the floor
[(False, 0.003), (True, 0.06), (True, 0.06), (True, 0.0004)]
>>> summary["families"], summary["raw_significant"]
({'pivot': {'size': 4, 'alpha': 0.05}}, 4)
"""
from __future__ import annotations

from typing import Iterable

import numpy as np

from .result import CheckResult

METHODS = ("holm", "fdr_bh", "bonferroni")
METHOD_NAMES = {"holm": "Holm", "fdr_bh": "Benjamini-Hochberg", "bonferroni": "Bonferroni"}


def adjust(pvalues: Iterable[float], method: str = "holm") -> np.ndarray:
    """Adjusted p-values of one family, as statsmodels' ``multipletests`` gives them.

    Holm's step-down, Benjamini-Hochberg's step-up and Bonferroni's are a sort and a running
    maximum or minimum; they are written here rather than called from statsmodels, whose Holm
    runs a full ``gc.collect()`` on every call and whose import costs a gate run about 3 s.
    ``tests/qc/test_qc_decision.py`` checks them against ``multipletests`` on random families.

    >>> adjust([0.01, 0.02, 0.03, 0.5]).round(3).tolist()
    [0.04, 0.06, 0.06, 0.5]
    >>> adjust([0.01, 0.02, 0.03, 0.5], "fdr_bh").round(3).tolist()
    [0.04, 0.04, 0.04, 0.5]
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, found {method!r}")
    p = np.asarray(list(pvalues), dtype=float)
    m = len(p)
    if m == 0:
        return p
    if method == "bonferroni":
        return np.minimum(1.0, p * m)
    order = np.argsort(p, kind="stable")
    ranked = p[order]
    if method == "holm":  # step-down: (m - i) * p_(i), never smaller than an earlier one
        adjusted = np.maximum.accumulate(ranked * np.arange(m, 0, -1))
    else:  # fdr_bh, step-up: p_(i) / ((i + 1) / m), never larger than a later one; divided as statsmodels
        # divides (p * m / (i + 1) rounds differently: 0.01 * 5 / 2 is 0.025, 0.01 / 0.4 just below it)
        adjusted = np.minimum.accumulate((ranked / (np.arange(1, m + 1) / m))[::-1])[::-1]
    out = np.empty(m)
    out[order] = np.minimum(1.0, adjusted)
    return out


def family_of(r: CheckResult, pivot: str) -> str:
    """``pivot``, ``variants`` (gated tests) or ``reported`` (tests of a check with ``gate: false``)."""
    if not r.gate:
        return "reported"
    return "pivot" if r.variant == pivot else "variants"


def family_alphas(sizes: dict[str, int], alpha: float, pivot_share: float) -> dict[str, float]:
    """Each non-empty family's share of alpha: the pivot's and the variants' split it, reported has its own."""
    both = sizes.get("pivot", 0) and sizes.get("variants", 0)
    out = {}
    if sizes.get("pivot"):
        out["pivot"] = alpha * pivot_share if both else alpha
    if sizes.get("variants"):
        out["variants"] = alpha * (1 - pivot_share) if both else alpha
    if sizes.get("reported"):
        out["reported"] = alpha
    return out


def decide(results: list[CheckResult], decision: dict, *, pivot: str) -> dict:
    """Set ``passed``/``reason`` and the multiplicity fields of every hypothesis test in ``results``.

    ``decision`` is the config's ``decision`` mapping. Returns what the report
    prints about the rule: method, alpha, and each family's size and alpha.
    """
    alpha, method = decision["alpha"], decision["method"]
    members: dict[str, list[CheckResult]] = {}
    for r in results:
        if r.is_test:
            members.setdefault(family_of(r, pivot), []).append(r)
    sizes = {name: len(rs) for name, rs in members.items()}
    alphas = family_alphas(sizes, alpha, decision["pivot_share"])
    raw_significant = 0
    for name, rs in members.items():
        share = alphas[name] / alpha
        adjusted = adjust([r.p_value for r in rs], method)
        for r, q in zip(rs, adjusted):
            r.p_adjusted = float(min(1.0, q / share))
            r.family, r.family_size, r.family_alpha = name, len(rs), alphas[name]
            significant = r.p_adjusted < alpha
            above = r.effect is None or abs(r.effect) > r.floor
            r.passed = not (significant and above)
            r.reason = None if r.passed else r.fails_as
            r.extra.update(significant=significant, above_floor=above)
            raw_significant += bool(r.gate and r.p_value < alpha)
    return {"method": method, "method_name": METHOD_NAMES[method], "alpha": alpha,
            "pivot_share": decision["pivot_share"], "confidence": decision.get("confidence"), "pivot": pivot,
            "families": {name: {"size": sizes[name], "alpha": alphas[name]} for name in sorted(sizes)},
            "raw_significant": raw_significant}


#: How a variant's verdict on a test relates to the pivot's verdict on the same test.
VS_PIVOT = {
    (False, False): "inherited",   # both fail: the bias is in the source questions; fix the pivot
    (False, True): "introduced",   # the variant fails, the pivot passes: the translation added it
    (True, False): "pivot only",   # the pivot fails, this translation does not (the release fails anyway)
    (True, True): "ok",
}


def compare_with_pivot(results: list[CheckResult], pivot: str) -> list[dict]:
    """Put each test's pivot comparison in its ``extra``; return one summary row per check.

    Per result: ``pivot_effect``, ``effect_minus_pivot`` (this effect minus the
    pivot's, same units) and ``vs_pivot`` (:data:`VS_PIVOT`; ``pivot`` on the
    pivot itself, None when the pivot has no result for the check). Per check:
    the pivot's effect and verdict, the median and the largest effect of the
    other variants, and which of them fail (introduced or inherited).
    """
    tests = [r for r in results if r.is_test]
    of_pivot = {r.check: r for r in tests if r.variant == pivot}
    rows: dict[str, dict] = {}
    for r in tests:
        ref = of_pivot.get(r.check)
        if r.variant == pivot:
            r.extra.update(vs_pivot="pivot", pivot_effect=r.effect, effect_minus_pivot=0.0 if r.effect is not None
                           else None)
            continue
        if ref is None:
            r.extra.update(vs_pivot=None, pivot_effect=None, effect_minus_pivot=None)
        else:
            diff = None if r.effect is None or ref.effect is None else r.effect - ref.effect
            r.extra.update(vs_pivot=VS_PIVOT[(r.passed, ref.passed)], pivot_effect=ref.effect,
                           effect_minus_pivot=diff)
        row = rows.setdefault(r.check, {"check": r.check, "effect_name": r.effect_name, "effects": [],
                                        "failing": [], "introduced": [], "inherited": [], "variants": 0})
        row["variants"] += 1
        if r.effect is not None:
            row["effects"].append((r.effect, r.variant))
        if not r.passed:
            row["failing"].append(r.variant)
        if r.extra["vs_pivot"] in ("introduced", "inherited"):
            row[r.extra["vs_pivot"]].append(r.variant)
    out = []
    for check, row in rows.items():
        ref = of_pivot.get(check)
        effects = sorted(row.pop("effects"), key=lambda e: abs(e[0]))
        out.append({**row, "pivot_effect": None if ref is None else ref.effect,
                    "pivot_passed": None if ref is None else ref.passed,
                    "median_effect": float(np.median([e for e, _ in effects])) if effects else None,
                    "largest_effect": effects[-1][0] if effects else None,
                    "largest_variant": effects[-1][1] if effects else None})
    return out
