"""Check ``label_distribution`` (topic data): every label present often enough in every split.

The label set is the union of the labels of the variant's splits (and of the
pivot's, when there is one). The check fails when a label has fewer than
``min_count`` items in some split. The chi-square test of homogeneity across
splits (:func:`scipy.stats.chi2_contingency`) is reported, not gated:
SIB-200 splits are stratified, so a small p is worth a look. On a table it is
not defined for (one split, one label, a split with no rows or a label in no
split: an expected frequency of zero) it is not computed and
``extra["chi2_skipped"]`` says why (the detail too, for a split with no rows,
which once raised scipy's ValueError); the check's verdict does not depend on it.

>>> import pandas as pd
>>> label_counts({"train": pd.DataFrame({"category": ["a", "a", "b"]}),
...               "test": pd.DataFrame({"category": ["a"]})}).to_dict()
{'test': {'a': 1, 'b': 0}, 'train': {'a': 2, 'b': 1}}
"""
from __future__ import annotations

import pandas as pd

from .result import CheckResult, VariantData, skipped

NAME = "label_distribution"
KINDS = ("topic",)


def label_counts(tables: dict[str, pd.DataFrame], labels=()) -> pd.DataFrame:
    """Counts per label (rows) and split (columns), zeros included."""
    counts = {s: f["category"].astype(str).value_counts() for s, f in tables.items()}
    frame = pd.DataFrame(counts).fillna(0).astype(int)
    for lab in labels:
        if lab not in frame.index:
            frame.loc[lab] = 0
    return frame.sort_index()[sorted(frame.columns)]


def chi2_undefined(counts: pd.DataFrame) -> str | None:
    """Why the chi-square test of homogeneity is not defined on ``counts`` (labels x splits), or None.

    >>> chi2_undefined(pd.DataFrame({"test": [0, 0], "train": [2, 1]}, index=["a", "b"]))
    "split 'test' has no rows"
    >>> chi2_undefined(pd.DataFrame({"test": [1, 1], "train": [2, 1]}, index=["a", "b"])) is None
    True
    """
    if counts.shape[1] < 2:
        return "one split only"
    if counts.shape[0] < 2:
        return "one label only"
    empty = [str(s) for s in counts.columns if counts[s].sum() == 0]
    if empty:
        return f"split {', '.join(map(repr, empty))} has no rows"
    unused = [str(lab) for lab in counts.index if counts.loc[lab].sum() == 0]
    if unused:
        return f"label {', '.join(map(repr, unused[:4]))} is in no split"
    return None


def run(data: VariantData, params: dict) -> list[CheckResult]:
    from scipy import stats

    if not data.tables or all(len(f) == 0 for f in data.tables.values()):
        return [skipped(data.variant, NAME, "no rows")]
    labels = set()
    if data.pivot:
        for f in data.pivot.values():
            labels |= set(f["category"].astype(str).tolist())
    counts = label_counts(data.tables, sorted(labels))
    low = [(lab, split, int(counts.loc[lab, split])) for lab in counts.index for split in counts.columns
           if counts.loc[lab, split] < params["min_count"]]
    statistic = p = None
    undefined = chi2_undefined(counts)
    if undefined is None:
        res = stats.chi2_contingency(counts.to_numpy())
        statistic, p = float(res.statistic), float(res.pvalue)
    passed = not low
    detail = (f"{counts.shape[0]} labels; min count {int(counts.to_numpy().min())} (needs {params['min_count']})"
              + (f"; low: {', '.join(f'{lab}@{s}={c}' for lab, s, c in low[:4])}" if low else "")
              + (f"; chi-square not computed: {undefined}" if undefined and "no rows" in undefined else ""))
    return [CheckResult(
        data.variant, NAME, passed, statistic=statistic, p_value=p, value=int(counts.to_numpy().min()),
        threshold=params["min_count"], reason=None if passed else "label_too_rare", detail=detail,
        paper="SIB-200: 7 topic labels, stratified train/dev/test",
        extra={"counts": {s: counts[s].to_dict() for s in counts.columns},
               **({"chi2_skipped": undefined} if undefined else {})})]
