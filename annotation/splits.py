"""Stratified, seeded, grouped train/dev/test splits in the SIB-200 layout.

Rows are grouped by item id (one id never lands in two splits) and stratified
by the group's label (the label of its first row). Within each label the groups
are shuffled with ``numpy.random.default_rng(seed)`` (labels visited in sorted
order) and cut by largest-remainder rounding of ``ratio * n``, so every split
holds ``floor`` or ``ceil`` of its exact share of every label: within one item
of the target proportion. SIB-200 split 70/10/20 (Adelani et al. 2023).
"""
from __future__ import annotations

import math

from collections import defaultdict
from pathlib import Path
from typing import Sequence

from schemas.io import staging_dir, write_json_atomic, write_parquet_atomic, write_sib_tsv, write_text_atomic
from schemas.errors import AnnotationError, UsageError

from .labelled import LabelledItem

SPLITS = ("train", "dev", "test")
DEFAULT_RATIOS = (0.7, 0.1, 0.2)


def check_ratios(ratios: Sequence[float]) -> tuple[float, ...]:
    """Three non-negative ratios summing to 1.

    >>> check_ratios([0.7, 0.1, 0.2])
    (0.7, 0.1, 0.2)
    """
    r = tuple(float(x) for x in ratios)
    if len(r) != len(SPLITS) or any(not math.isfinite(x) or x < 0 for x in r) or abs(sum(r) - 1.0) > 1e-9:
        raise UsageError(f"ratios must be three non-negative numbers (train, dev, test) summing to 1, "
                         f"found {', '.join(map(str, ratios))}")
    return r


def allocate(n: int, ratios: Sequence[float]) -> list[int]:
    """Largest-remainder split of ``n`` items by ``ratios`` (ties go to the earlier split).

    >>> allocate(83, (0.7, 0.1, 0.2)), allocate(1, (0.7, 0.1, 0.2))
    ([58, 8, 17], [1, 0, 0])
    """
    quotas = [n * r for r in ratios]
    base = [math.floor(q + 1e-9) for q in quotas]
    rest = n - sum(base)
    order = sorted(range(len(ratios)), key=lambda s: (-(quotas[s] - base[s]), s))
    for s in order[:rest]:
        base[s] += 1
    return base


def split_items(items: Sequence[LabelledItem], ratios: Sequence[float] = DEFAULT_RATIOS,
                seed: int = 0) -> dict[str, list[LabelledItem]]:
    """Assign every item to train, dev or test; rows keep their input order within a split.

    >>> items = [LabelledItem(str(k), "ab"[k % 2], "") for k in range(20)]
    >>> out = split_items(items, seed=0)
    >>> [len(out[s]) for s in ("train", "dev", "test")]
    [14, 2, 4]
    """
    ratios = check_ratios(ratios)
    groups: dict[str, list[int]] = {}
    for k, item in enumerate(items):
        groups.setdefault(item.item_id, []).append(k)
    by_label: dict[str, list[str]] = defaultdict(list)
    for gid, rows in groups.items():
        by_label[items[rows[0]].label].append(gid)
    import numpy as np  # here: a release checks its ratios with this module while it plans

    rng = np.random.default_rng(seed)
    assign: dict[str, str] = {}
    for label in sorted(by_label, key=str):
        gids = by_label[label]
        perm = rng.permutation(len(gids))
        sizes = allocate(len(gids), ratios)
        start = 0
        for split, size in zip(SPLITS, sizes):
            for p in perm[start:start + size]:
                assign[gids[p]] = split
            start += size
    out: dict[str, list[LabelledItem]] = {s: [] for s in SPLITS}
    for item in items:
        out[assign[item.item_id]].append(item)
    return out


def require_labels(items: Sequence[LabelledItem], *, file=None) -> None:
    """Refuse unresolved items, and no items (naming ``file``, the input): a split needs a label for every row.

    >>> require_labels([LabelledItem("1", "sports", "")])
    """
    for item in items:
        if item.label is None:
            raise AnnotationError(f"item {item.item_id!r} has no label (unresolved); adjudicate it, or run "
                                  "`builder annotate curate`, which drops and logs unresolved items",
                                  record=item.where, field="label")
    if not items:
        raise AnnotationError("no items to split", file=file)


def write_splits(splits: dict[str, list[LabelledItem]], out_dir, *, labels: Sequence[str],
                 info: dict) -> Path:
    """Write ``{train,dev,test}.{tsv,parquet}``, ``labels.txt`` and ``split.json`` as one folder, atomically."""
    import pyarrow as pa

    with staging_dir(out_dir, marker="split.json", what="annotate split") as tmp:
        all_ids = [i.item_id for rows in splits.values() for i in rows]
        numeric = bool(all_ids) and all(i.isdigit() for i in all_ids)
        for split in SPLITS:
            rows = splits[split]
            write_sib_tsv(tmp / f"{split}.tsv",
                          [{"index_id": i.item_id, "category": i.label, "text": i.text} for i in rows])
            ids = [int(i.item_id) for i in rows] if numeric else [i.item_id for i in rows]
            table = pa.table({"index_id": pa.array(ids, type=pa.int64() if numeric else pa.string()),
                              "category": pa.array([i.label for i in rows], type=pa.string()),
                              "text": pa.array([i.text for i in rows], type=pa.string())})
            write_parquet_atomic(tmp / f"{split}.parquet", table)
        write_text_atomic(tmp / "labels.txt", "".join(f"{lab}\n" for lab in labels))
        write_json_atomic(tmp / "split.json", info)
    return Path(out_dir)


def split_summary(splits: dict[str, list[LabelledItem]], ratios, seed: int) -> dict:
    """Counts per split and label, with the settings that produced them.

    >>> parts = split_items([LabelledItem(str(k), "a", "") for k in range(10)])
    >>> split_summary(parts, DEFAULT_RATIOS, 0)["label_counts"]
    {'train': {'a': 7}, 'dev': {'a': 1}, 'test': {'a': 2}}
    """
    labels = sorted({i.label for rows in splits.values() for i in rows}, key=str)
    return {
        "seed": seed,
        "ratios": dict(zip(SPLITS, ratios)),
        "stratified_by": "label",
        "grouped_by": "item_id",
        "n_items": sum(len(v) for v in splits.values()),
        "counts": {s: len(splits[s]) for s in SPLITS},
        "label_counts": {s: {lab: sum(1 for i in splits[s] if i.label == lab) for lab in labels}
                         for s in SPLITS},
    }
