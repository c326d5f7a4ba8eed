"""Exports of annotation tools as rating events: Label Studio (JSON, JSON-MIN, CSV) and Argilla v2 records.

A reader here knows one tool's layout and nothing else; it turns each task or
record into events that :mod:`annotation.importer` applies with the same
collector (and the same checks and counters) as a long or wide CSV:

* :class:`Rating`: one annotator's label for one item (an empty label is the
  collector's ``empty_label``);
* :class:`Seen`: an item exists, with or without ratings (so an unrated task
  is ``too_few_ratings``, never silently absent);
* :class:`Excluded`: a rating the tool marks as not given, counted by reason
  under either error policy: ``cancelled`` (Label Studio ``was_cancelled``,
  its Skip button), ``draft`` (a Label Studio draft, an Argilla draft
  response), ``discarded`` (an Argilla discarded response);
* :class:`Bad`: a malformed record (``malformed_record``), an annotation with
  several labels (``multiple_labels``), no annotator (``missing_annotator``),
  an unknown Argilla status (``unknown_status``) -- an error, or skipped and
  counted under ``--on-error skip``.

The shapes follow the tools' documentation: Label Studio's "Label Studio JSON
format of annotated tasks" (``data``, ``annotations[].result[].value.choices``,
``completed_by``, ``was_cancelled``, ``drafts``), its converter's JSON-MIN and
CSV exports (one row per annotation: the task's data, ``id``, the control's
``from_name`` holding the choice, ``annotator``, ``annotation_id``,
``lead_time``; skipped annotations left out), and Argilla v2's
``Dataset.records.to_json`` / ``Dataset.to_disk`` (``id``, ``status``,
``fields``, ``responses: {question: [{value, user_id, status}]}``) and its
flattened ``to_datasets``/Hub layout (``question.responses``,
``question.responses.users``, ``question.responses.status``).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Sequence

from schemas.errors import AnnotationError
from schemas.io import WrongPathKind

TOOL_FORMATS = ("label-studio", "label-studio-min", "label-studio-csv", "argilla")
ID_KEYS = ("item_id", "index_id")
TEXT_KEY = "text"
# what Label Studio's converter adds to every JSON-MIN / CSV row besides the task's data and the controls
LS_ROW_KEYS = frozenset({"id", "annotator", "annotation_id", "created_at", "updated_at", "lead_time",
                         "was_cancelled", "agreement", "history"})
ARGILLA_RECORD_KEYS = frozenset({"id", "status", "_server_id", "inserted_at", "updated_at", "score"})


@dataclass(frozen=True)
class Rating:
    where: str
    item: str
    annotator: str
    label: str
    text: str | None = None


@dataclass(frozen=True)
class Seen:
    where: str
    item: str
    text: str | None = None


@dataclass(frozen=True)
class Excluded:
    where: str
    item: str
    reason: str


@dataclass(frozen=True)
class Bad:
    where: str
    item: str | None
    reason: str
    message: str


def detect(records: Sequence) -> str | None:
    """The tool format of a JSON list, judged from its first object; None if none fits.

    >>> detect([{"data": {"text": "x"}, "annotations": []}])
    'label-studio'
    >>> detect([{"id": "1", "fields": {"text": "x"}, "responses": {}}])
    'argilla'
    >>> detect([{"text": "x", "id": 3, "topic": "sports", "annotator": 1, "annotation_id": 7}])
    'label-studio-min'
    """
    first = next((r for r in records if isinstance(r, dict)), None)
    if first is None:
        return None
    keys = set(first)
    if "annotations" in keys or "completions" in keys or "data" in keys:
        return "label-studio"
    if "responses" in keys or "fields" in keys or any(k.endswith(".responses") for k in keys):
        return "argilla"
    if {"annotator", "annotation_id"} & keys:
        return "label-studio-min"
    return None


def is_label_studio_csv(columns: Sequence[str]) -> bool:
    """Label Studio's CSV export always has these converter columns."""
    return {"annotator", "annotation_id", "lead_time"} <= set(columns)


def pick_field(found: Sequence[str], label_field: str | None, what: str, path) -> str:
    """The one question/control holding the topic label: ``label_field``, or the only one found."""
    names = sorted(set(found))
    if label_field is not None:
        if names and label_field not in names:
            raise AnnotationError(f"no {what} {label_field!r} (--label-field); found {', '.join(names)}", file=path)
        return label_field
    if len(names) == 1:
        return names[0]
    if not names:
        raise AnnotationError(f"no {what} holding a label found", file=path)
    raise AnnotationError(f"several {what}s could hold the label ({', '.join(names)}); name one with "
                          f"--label-field", file=path)


def _text(value) -> str | None:
    return None if value is None else str(value)


def _item(data: dict, fallback) -> str:
    for key in ID_KEYS:
        if data.get(key) not in (None, ""):
            return str(data[key]).strip()
    return "" if fallback is None else str(fallback).strip()


def _user(value) -> str:
    """Label Studio's ``completed_by``/``annotator``: a user id, or an object with ``email`` and ``id``."""
    if isinstance(value, dict):
        value = value.get("email") or value.get("id")
    return "" if value is None else str(value).strip()


def _one_label(value, where: str, item: str) -> Bad | str:
    """A label from a choices list, or the Bad event that says why not."""
    if isinstance(value, str):
        return value.strip()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        return Bad(where, item, "malformed_record", f"expected a list of label strings, found "
                   f"{json.dumps(value)[:80]}")
    if len(value) > 1:
        return Bad(where, item, "multiple_labels", f"{len(value)} labels ({', '.join(value)}) where a topic "
                   f"takes one")
    return value[0].strip() if value else ""


# -- Label Studio: the full JSON export --------------------------------------------------------------------

def _choices(result) -> list[tuple[str, object]]:
    return [(str(r.get("from_name", "")), (r.get("value") or {}).get("choices"))
            for r in result if isinstance(r, dict) and str(r.get("type", "")).lower() == "choices"]


def label_studio_controls(tasks: Sequence) -> list[str]:
    """The ``from_name`` of every Choices result in the export."""
    names = []
    for task in tasks:
        for ann in (task.get("annotations") or []) if isinstance(task, dict) else []:
            if isinstance(ann, dict) and isinstance(ann.get("result"), list):
                names += [name for name, _ in _choices(ann["result"])]
    return names


def label_studio(tasks: Sequence, label_field: str) -> Iterator:
    """Events of a Label Studio JSON export (a list of tasks)."""
    for t, task in enumerate(tasks, start=1):
        where = f"task {t}"
        if not isinstance(task, dict) or not isinstance(task.get("data"), dict):
            yield Bad(where, None, "malformed_record", "expected a task object with a data object")
            continue
        item = _item(task["data"], task.get("id"))
        annotations = task.get("annotations", task.get("completions", []))
        if not isinstance(annotations, list):
            yield Bad(where, item, "malformed_record", "annotations must be a list")
            continue
        yield Seen(where, item, _text(task["data"].get(TEXT_KEY)))
        for a, ann in enumerate(annotations, start=1):
            yield _ls_annotation(f"{where}, annotation {a}", item, ann, label_field)
        drafts = task.get("drafts") or []
        if not isinstance(drafts, list):
            yield Bad(where, item, "malformed_record", "drafts must be a list")
            continue
        for d in range(1, len(drafts) + 1):
            yield Excluded(f"{where}, draft {d}", item, "draft")


def _ls_annotation(where: str, item: str, ann, label_field: str):
    if not isinstance(ann, dict) or not isinstance(ann.get("result", []), list):
        return Bad(where, item, "malformed_record", "expected an annotation object with a result list")
    if ann.get("was_cancelled") or ann.get("skipped"):
        return Excluded(where, item, "cancelled")
    annotator = _user(ann.get("completed_by"))
    if not annotator:
        return Bad(where, item, "missing_annotator", "annotation has no completed_by")
    values = [v for name, v in _choices(ann.get("result", [])) if name == label_field]
    if len(values) > 1:
        return Bad(where, item, "multiple_labels", f"{len(values)} {label_field!r} results where a topic "
                   f"takes one")
    label = _one_label(values[0], where, item) if values else ""
    return label if isinstance(label, Bad) else Rating(where, item, annotator, label)


def lead_labels(tasks: Sequence, path) -> list[tuple[str, str, str]]:
    """``(where, item, label)`` per task of an adjudicated Label Studio export ("" where nobody labelled).

    The lead's annotation decides; cancelled annotations and predictions do not.
    A malformed task, or two annotations with different labels, is an :class:`AnnotationError`.
    """
    controls = label_studio_controls(tasks)
    field = pick_field(controls, None, "Choices control", path) if controls else ""
    out: list[list] = []
    for event in label_studio(tasks, field):
        if isinstance(event, Bad):
            raise AnnotationError(event.message, file=path, record=event.where)
        if isinstance(event, Seen):
            out.append([event.where, event.item, ""])
        elif isinstance(event, Rating) and event.label:
            task = out[-1]
            if task[2] not in ("", event.label):
                raise AnnotationError(f"the task has two lead labels ({task[2]!r}, {event.label!r}); keep one "
                                      f"annotation", file=path, record=event.where)
            task[2] = event.label
    return [tuple(t) for t in out]


# -- Label Studio: JSON-MIN and CSV (one row per annotation) ----------------------------------------------

def label_studio_rows(rows: Sequence[tuple[str, dict]], label_field: str) -> Iterator:
    """Events of JSON-MIN objects or CSV rows, each ``(where, row)``; values of CSV rows are strings."""
    for where, row in rows:
        if not isinstance(row, dict):
            yield Bad(where, None, "malformed_record", "expected an object")
            continue
        item = _item(row, row.get("id"))
        text = _text(row.get(TEXT_KEY))
        value = row.get(label_field)
        if isinstance(value, str) and value.strip()[:1] in ("{", "["):  # CSV keeps a multi-choice value as JSON
            try:
                value = json.loads(value)
            except json.JSONDecodeError:
                pass
        if isinstance(value, dict):
            value = value.get("choices")
        annotator = _user(row.get("annotator"))
        if value in (None, "") and not annotator:  # a task nobody annotated
            yield Seen(where, item, text)
            continue
        if str(row.get("was_cancelled", "")).strip().lower() == "true":
            yield Excluded(where, item, "cancelled")
            continue
        if not annotator:
            yield Bad(where, item, "missing_annotator", "row has no annotator")
            continue
        label = _one_label("" if value is None else value, where, item)
        yield label if isinstance(label, Bad) else Rating(where, item, annotator, label, text)


def label_studio_row_fields(columns: Sequence[str]) -> list[str]:
    """Columns that may hold the label: neither converter columns nor item id nor text."""
    return [c for c in columns if c not in LS_ROW_KEYS and c not in ID_KEYS and c != TEXT_KEY]


# -- Argilla v2 records --------------------------------------------------------------------------------------

def argilla_nested(record: dict) -> dict:
    """A flattened record (``to_datasets``, Hub, parquet) in the nested ``to_json`` shape."""
    if "responses" in record or "fields" in record:
        return record
    fields, responses = {}, {}
    for key, value in record.items():
        if key.endswith(".responses"):
            q = key[: -len(".responses")]
            users = record.get(f"{key}.users") or []
            status = record.get(f"{key}.status") or []
            responses[q] = [{"value": v, "user_id": users[k] if k < len(users) else None,
                             "status": status[k] if k < len(status) else None}
                            for k, v in enumerate(value or [])]
        elif ".responses." in key or ".suggestion" in key or key in ARGILLA_RECORD_KEYS:
            continue
        else:
            fields[key] = value
    return {"id": record.get("id"), "status": record.get("status"), "fields": fields, "responses": responses}


def argilla_questions(records: Sequence) -> list[str]:
    return [q for r in records if isinstance(r, dict) and isinstance(r.get("responses"), dict)
            for q, answers in r["responses"].items() if answers]


ARGILLA_EXCLUDED = {"discarded": "discarded", "draft": "draft"}


def argilla(records: Sequence, label_field: str) -> Iterator:
    """Events of Argilla v2 records (nested shape; see :func:`argilla_nested`)."""
    for r, rec in enumerate(records, start=1):
        where = f"record {r}"
        if not isinstance(rec, dict) or not isinstance(rec.get("responses", {}), dict):
            yield Bad(where, None, "malformed_record", "expected a record object with a responses object")
            continue
        fields = rec.get("fields") if isinstance(rec.get("fields"), dict) else {}
        item = _item({**(rec.get("metadata") or {}), **fields}, rec.get("id"))
        if not item:
            yield Bad(where, None, "missing_item_id", "record has no id")
            continue
        yield Seen(where, item, _text(fields.get(TEXT_KEY)))
        answers = (rec.get("responses") or {}).get(label_field) or []
        if not isinstance(answers, list):
            yield Bad(where, item, "malformed_record", f"responses.{label_field} must be a list")
            continue
        for k, resp in enumerate(answers, start=1):
            at = f"{where}, response {k}"
            if not isinstance(resp, dict):
                yield Bad(at, item, "malformed_record", "expected a response object")
                continue
            status = resp.get("status") or "submitted"  # exports before v2.1 carry no status: submitted only
            if status in ARGILLA_EXCLUDED:
                yield Excluded(at, item, ARGILLA_EXCLUDED[status])
                continue
            if status != "submitted":
                yield Bad(at, item, "unknown_status", f"unknown response status {status!r}; allowed: "
                          f"submitted, discarded, draft")
                continue
            user = "" if resp.get("user_id") in (None, "", "None") else str(resp["user_id"]).strip()
            if not user:
                yield Bad(at, item, "missing_annotator", "submitted response has no user_id")
                continue
            label = _one_label("" if resp.get("value") is None else resp["value"], at, item)
            yield label if isinstance(label, Bad) else Rating(at, item, user, label)


def load_argilla(path: Path) -> list:
    """Records of an Argilla export that is not a JSON list: a ``to_disk`` folder, a ``save_to_disk``
    folder, or a parquet file (flattened rows are returned as they are)."""
    if path.is_dir():
        if (path / "records.json").is_file():  # rg.Dataset.to_disk
            return json.loads((path / "records.json").read_text(encoding="utf-8"))
        if (path / "state.json").is_file() or (path / "dataset_info.json").is_file():
            import datasets

            ds = datasets.load_from_disk(str(path))
            if isinstance(ds, datasets.DatasetDict):
                return [row for split in ds.values() for row in split.to_list()]
            return ds.to_list()
        # a folder where a file is meant, as everywhere else: a usage error (exit 2), not bad data
        raise WrongPathKind("expected an annotation file, found a folder that is neither an Argilla "
                            "to_disk export (records.json) nor a saved Hugging Face dataset (state.json)",
                            file=path)
    import pyarrow.parquet as pq

    return pq.read_table(path).to_pylist()
