"""Majority vote with a named tie policy, the adjudication sheet, and merging the lead's answers.

Policies (name -> when an item gets a label without adjudication):

* ``sib200`` (default): the top label has at least 2 votes and a strict
  plurality, so a 2-2 split is a conflict. This is SIB-200's rule (Adelani et
  al. 2023, section 2.3: "we assign a label to a sentence if at least two
  annotators agree on the category, but we excluded the situation, where any
  two annotators conflicted with the other two annotators").
* ``plurality``: a strict plurality, even of one vote.
* ``absolute``: more than half of the item's ratings.
* ``unanimous``: every rating agrees and there are at least two.

Every item gets a :class:`schemas.records.Decision` whose ``rule`` is
``majority``, ``adjudicated`` (from the lead's sheet) or ``unresolved``
(label None). Nothing is dropped: unresolved items stay in the output.
"""
from __future__ import annotations

import csv
import io
from dataclasses import replace
from pathlib import Path
from typing import Sequence

import numpy as np

from schemas.io import atomic_path, read_text_utf8, require_path
from schemas.tables import parse_table
from schemas.errors import AnnotationError
from schemas.records import Decision

from .importer import Annotations

POLICIES = ("sib200", "plurality", "absolute", "unanimous")
SHEET_LABEL = "lead_label"


def majority_mask(counts: np.ndarray, policy: str = "sib200") -> np.ndarray:
    """Boolean mask of items that get their top label under ``policy``.

    >>> c = np.array([[2, 1, 1, 0], [2, 2, 0, 0], [1, 1, 1, 1], [3, 1, 0, 0], [1, 0, 0, 0]])
    >>> majority_mask(c, "sib200").tolist()
    [True, False, False, True, False]
    >>> majority_mask(c, "plurality").tolist()
    [True, False, False, True, True]
    """
    if policy not in POLICIES:
        raise AnnotationError(f"unknown tie policy {policy!r}; allowed: {', '.join(POLICIES)}")
    srt = np.sort(counts, axis=1)
    top = srt[:, -1]
    second = srt[:, -2] if counts.shape[1] > 1 else np.zeros_like(top)
    total = counts.sum(axis=1)
    if policy == "sib200":
        return (top >= 2) & (top > second)
    if policy == "plurality":
        return (top >= 1) & (top > second)
    if policy == "absolute":
        return 2 * top > total
    return (top == total) & (total >= 2)


def decide(ann: Annotations, policy: str = "sib200") -> list[Decision]:
    """One :class:`Decision` per item, in input order.

    >>> from annotation.importer import from_judgements
    >>> from schemas.records import Judgement as J
    >>> ann = from_judgements([J("1", a, lab) for a, lab in zip("abcd", ["science", "science", "health",
    ...                        "health"])] + [J("2", a, "sports") for a in "abc"])
    >>> [(d.item_id, d.label, d.rule, d.votes) for d in decide(ann)]
    [('1', None, 'unresolved', 2), ('2', 'sports', 'majority', 3)]
    """
    counts = ann.counts()
    ok = majority_mask(counts, policy)
    top = counts.argmax(axis=1)
    votes = counts.max(axis=1)
    return [Decision(item, ann.labels[top[i]] if ok[i] else None, "majority" if ok[i] else "unresolved",
                     int(votes[i])) for i, item in enumerate(ann.item_ids)]


def sheet_text(ann: Annotations, decisions: Sequence[Decision]) -> str:
    """CSV of the unresolved items: item_id, text (when known), one column per annotator, lead_label."""
    has_text = bool(ann.texts)
    header = ["item_id"] + (["text"] if has_text else []) + list(ann.annotators) + [SHEET_LABEL]
    index = {item: i for i, item in enumerate(ann.item_ids)}
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    for d in decisions:
        if d.rule != "unresolved":
            continue
        i = index[d.item_id]
        row = [d.item_id] + ([ann.texts.get(d.item_id, "")] if has_text else [])
        row += [ann.labels[c] if c >= 0 else "" for c in ann.codes[i]]
        w.writerow(row + [""])
    return buf.getvalue()


def write_sheet(path, ann: Annotations, decisions: Sequence[Decision]) -> int:
    """Write the adjudication sheet atomically; return the number of rows."""
    text = sheet_text(ann, decisions)
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8", newline="")
    return sum(1 for d in decisions if d.rule == "unresolved")


def merge_sheet(decisions: Sequence[Decision], sheet, labels: Sequence[str]) -> tuple[list[Decision], dict]:
    """Apply the lead's filled-in sheet: a filled ``lead_label`` makes the item ``adjudicated``.

    An empty ``lead_label`` leaves the item ``unresolved`` (kept and counted). An
    unknown label, an unknown or already-decided item, or a repeated item is an
    :class:`AnnotationError` naming the sheet and line.

    Returns the new decisions and counts: ``rows``, ``adjudicated``,
    ``left_empty``, ``not_in_sheet``.
    """
    p = require_path(sheet, what="adjudication sheet", kind="file")
    table = parse_table(read_text_utf8(p), p, delimiter=",", error=AnnotationError, skip_blank=True,
                        empty="empty sheet; expected a header with item_id and lead_label")
    header = [h.strip() for h in table.header]
    for col in ("item_id", SHEET_LABEL):
        if col not in header:
            raise AnnotationError(f"sheet lacks column {col!r}; found {', '.join(header)}", file=p,
                                  record="line 1")
    id_at, label_at = header.index("item_id"), header.index(SHEET_LABEL)
    by_id = {d.item_id: k for k, d in enumerate(decisions)}
    out = list(decisions)
    seen: dict[str, int] = {}
    stats = {"rows": 0, "adjudicated": 0, "left_empty": 0, "not_in_sheet": 0}
    allowed = set(labels)
    for line, row in ((r.line, r.fields) for r in table.rows):
        item, label = row[id_at].strip(), row[label_at].strip()
        where = {"file": p, "record": f"line {line} (item {item})"}
        if item not in by_id:
            raise AnnotationError(f"item {item!r} is not in the annotations", **where, field="item_id")
        if item in seen:
            raise AnnotationError(f"item {item!r} appears twice in the sheet (first on line {seen[item]})",
                                  **where, field="item_id")
        seen[item] = line
        stats["rows"] += 1
        d = out[by_id[item]]
        if d.rule != "unresolved":
            raise AnnotationError(f"item {item!r} is not a conflict (it has rule {d.rule!r}, label "
                                  f"{d.label!r})", **where, field="item_id")
        if not label:
            stats["left_empty"] += 1
            continue
        if label not in allowed:
            raise AnnotationError(f"unknown label {label!r}; allowed: {', '.join(labels)}", **where,
                                  field=SHEET_LABEL)
        out[by_id[item]] = replace(d, label=label, rule="adjudicated")
        stats["adjudicated"] += 1
    stats["not_in_sheet"] = sum(1 for d in decisions if d.rule == "unresolved" and d.item_id not in seen)
    return out, stats


def decisions_text(decisions: Sequence[Decision], texts=None) -> str:
    """CSV of the final labels: item_id, label, rule, votes, text.

    >>> print(decisions_text([Decision("7", "sports", "majority", 3)]), end="")
    item_id,label,rule,votes,text
    7,sports,majority,3,
    """
    texts = texts or {}
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["item_id", "label", "rule", "votes", "text"])
    for d in decisions:
        w.writerow([d.item_id, d.label or "", d.rule, d.votes, texts.get(d.item_id, "")])
    return buf.getvalue()


def rule_counts(decisions: Sequence[Decision]) -> dict[str, int]:
    """How many items each rule decided (every rule listed, zeros included).

    >>> rule_counts([Decision("1", "sports", "majority", 3), Decision("2", None, "unresolved", 2)])
    {'majority': 1, 'adjudicated': 0, 'unresolved': 1}
    """
    from schemas.records import DECISION_RULES

    counts = {r: 0 for r in DECISION_RULES}
    for d in decisions:
        counts[d.rule] += 1
    return counts


def write_decisions(path, decisions: Sequence[Decision], texts=None) -> Path:
    with atomic_path(path) as tmp:
        tmp.write_text(decisions_text(decisions, texts), encoding="utf-8", newline="")
    return Path(path)
