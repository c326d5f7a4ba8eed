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

The conflicts go to the lead as a CSV sheet and as Label Studio import tasks
(:func:`label_studio_tasks`, with :func:`label_config` for the project): each
task shows the text and the annotators' labels, and carries the top-voted
label as a prediction, so the lead adjudicates in the tool; the project's JSON
export is then merged like a filled sheet (:func:`merge_sheet`).
"""
from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from schemas.io import atomic_path, csv_line, read_text_utf8, require_path
from schemas.tables import parse_table
from schemas.errors import AnnotationError
from schemas.records import Decision

from . import tools
from .importer import Annotations

if TYPE_CHECKING:  # a release plans with POLICIES only: NumPy is imported where masks are computed
    import numpy as np

POLICIES = ("sib200", "plurality", "absolute", "unanimous")
SHEET_LABEL = "lead_label"
LS_CONTROL, LS_OBJECT = "topic", "text"  # the Choices control and the Text object of the adjudication project


def majority_mask(counts: np.ndarray, policy: str = "sib200") -> np.ndarray:
    """Boolean mask of items that get their top label under ``policy``.

    >>> import numpy as np
    >>> c = np.array([[2, 1, 1, 0], [2, 2, 0, 0], [1, 1, 1, 1], [3, 1, 0, 0], [1, 0, 0, 0]])
    >>> majority_mask(c, "sib200").tolist()
    [True, False, False, True, False]
    >>> majority_mask(c, "plurality").tolist()
    [True, False, False, True, True]
    """
    if policy not in POLICIES:
        raise AnnotationError(f"unknown tie policy {policy!r}; allowed: {', '.join(POLICIES)}")
    import numpy as np

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
    lines = [csv_line(header)]
    for d in decisions:
        if d.rule != "unresolved":
            continue
        i = index[d.item_id]
        row = [d.item_id] + ([ann.texts.get(d.item_id, "")] if has_text else [])
        row += [ann.labels[c] if c >= 0 else "" for c in ann.codes[i]]
        lines.append(csv_line(row + [""]))
    return "".join(lines)


def write_sheet(path, ann: Annotations, decisions: Sequence[Decision]) -> int:
    """Write the adjudication sheet atomically; return the number of rows."""
    text = sheet_text(ann, decisions)
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8", newline="")
    return sum(1 for d in decisions if d.rule == "unresolved")


def merge_sheet(decisions: Sequence[Decision], sheet, labels: Sequence[str]) -> tuple[list[Decision], dict]:
    """Apply the lead's filled-in sheet: a filled ``lead_label`` makes the item ``adjudicated``.

    ``sheet`` is the CSV sheet, or the Label Studio JSON export of the tasks from
    :func:`label_studio_tasks`, where the lead's annotation is the label (a task
    left unlabelled, or skipped, counts as an empty ``lead_label``; the
    prediction never counts). An empty ``lead_label`` leaves the item
    ``unresolved`` (kept and counted). An unknown label, an unknown or
    already-decided item, or a repeated item is an :class:`AnnotationError`
    naming the sheet and line (or task).

    Returns the new decisions and counts: ``rows``, ``adjudicated``,
    ``left_empty``, ``not_in_sheet``.
    """
    p = require_path(sheet, what="adjudication sheet", kind="file")
    rows = _lead_rows(p)
    by_id = {d.item_id: k for k, d in enumerate(decisions)}
    out = list(decisions)
    seen: dict[str, str] = {}
    stats = {"rows": 0, "adjudicated": 0, "left_empty": 0, "not_in_sheet": 0}
    allowed = set(labels)
    for line, item, label in rows:
        where = {"file": p, "record": f"{line} (item {item})"}
        if item not in by_id:
            raise AnnotationError(f"item {item!r} is not in the annotations", **where, field="item_id")
        if item in seen:
            raise AnnotationError(f"item {item!r} appears twice in the sheet (first on {seen[item]})",
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


def _lead_rows(p: Path) -> list[tuple[str, str, str]]:
    """``(where, item, lead label)`` of a filled CSV sheet or of a Label Studio JSON export of the tasks."""
    text = read_text_utf8(p)
    if p.suffix.lower() == ".json":
        try:
            tasks = json.loads(text)
        except json.JSONDecodeError as err:
            raise AnnotationError(f"malformed JSON ({err.msg}, column {err.colno})", file=p,
                                  record=f"line {err.lineno}") from None
        if not isinstance(tasks, list):
            raise AnnotationError("expected a Label Studio JSON export (a list of tasks)", file=p)
        return tools.lead_labels(tasks, p)
    table = parse_table(text, p, delimiter=",", error=AnnotationError, skip_blank=True,
                        empty="empty sheet; expected a header with item_id and lead_label")
    header = [h.strip() for h in table.header]
    for col in ("item_id", SHEET_LABEL):
        if col not in header:
            raise AnnotationError(f"sheet lacks column {col!r}; found {', '.join(header)}", file=p,
                                  record="line 1")
    id_at, label_at = header.index("item_id"), header.index(SHEET_LABEL)
    return [(f"line {r.line}", r.fields[id_at].strip(), r.fields[label_at].strip()) for r in table.rows]


def label_studio_tasks(ann: Annotations, decisions: Sequence[Decision], policy: str = "sib200") -> list[dict]:
    """Label Studio import tasks for the unresolved items, the top-voted label as each one's prediction.

    ``data`` holds ``item_id``, ``text``, ``ratings`` (``annotator: label; ...``) and ``candidates``
    (the labels tied at the top); ``predictions`` holds one ``choices`` result for the first
    candidate in label order, scored by its share of the item's ratings.

    >>> from annotation.importer import from_judgements
    >>> from schemas.records import Judgement as J
    >>> ann = from_judgements([J("7", "a", "sports"), J("7", "b", "travel")], labels=["sports", "travel"])
    >>> task = label_studio_tasks(ann, decide(ann))[0]
    >>> task["data"]["ratings"], task["predictions"][0]["result"][0]["value"], task["predictions"][0]["score"]
    ('a: sports; b: travel', {'choices': ['sports']}, 0.5)
    """
    counts = ann.counts()
    index = {item: i for i, item in enumerate(ann.item_ids)}
    tasks = []
    for d in decisions:
        if d.rule != "unresolved":
            continue
        i = index[d.item_id]
        top = int(counts[i].max())
        candidates = [lab for k, lab in enumerate(ann.labels) if top and counts[i, k] == top]
        ratings = "; ".join(f"{a}: {ann.labels[c]}" for a, c in zip(ann.annotators, ann.codes[i]) if c >= 0)
        task = {"data": {"item_id": d.item_id, "text": ann.texts.get(d.item_id, ""), "ratings": ratings,
                         "candidates": ", ".join(candidates)}}
        if candidates:
            task["predictions"] = [{"model_version": f"{policy}-vote", "score": round(top / int(counts[i].sum()), 6),
                                    "result": [{"from_name": LS_CONTROL, "to_name": LS_OBJECT, "type": "choices",
                                                "value": {"choices": [candidates[0]]}}]}]
        tasks.append(task)
    return tasks


def label_config(labels: Sequence[str]) -> str:
    """The Label Studio labeling config of the adjudication project: the ratings, the text, one choice.

    >>> print(label_config(["sports", "travel"]))  # doctest: +NORMALIZE_WHITESPACE
    <View><Header value="$ratings" /><Text name="text" value="$text" /><Choices name="topic" toName="text"
    choice="single" showInline="true"><Choice value="sports" /><Choice value="travel" /></Choices></View>
    """
    view = ET.Element("View")
    ET.SubElement(view, "Header", value="$ratings")
    ET.SubElement(view, "Text", name=LS_OBJECT, value="$text")
    choices = ET.SubElement(view, "Choices", name=LS_CONTROL, toName=LS_OBJECT, choice="single", showInline="true")
    for lab in labels:
        ET.SubElement(choices, "Choice", value=lab)
    return ET.tostring(view, encoding="unicode")


def write_label_studio_tasks(path, ann: Annotations, decisions: Sequence[Decision], policy: str = "sib200") -> int:
    """Write :func:`label_studio_tasks` as a JSON list atomically; return the number of tasks."""
    tasks = label_studio_tasks(ann, decisions, policy)
    with atomic_path(path) as tmp:
        tmp.write_text(json.dumps(tasks, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return len(tasks)


def decisions_text(decisions: Sequence[Decision], texts=None) -> str:
    """CSV of the final labels: item_id, label, rule, votes, text.

    >>> print(decisions_text([Decision("7", "sports", "majority", 3)]), end="")
    item_id,label,rule,votes,text
    7,sports,majority,3,
    """
    texts = texts or {}
    return csv_line(["item_id", "label", "rule", "votes", "text"]) + "".join(
        csv_line([d.item_id, d.label or "", d.rule, d.votes, texts.get(d.item_id, "")]) for d in decisions)


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
