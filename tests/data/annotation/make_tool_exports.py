"""Write the annotation-tool fixtures beside this file from sib_small_long.csv (run: python make_tool_exports.py).

The 48 ratings of sib_small_long.csv (12 items x ann1..ann4) are written in
each tool's documented export layout, so a test can check that every export
gives the same judgements and the same Fleiss' kappa as the long CSV:

* ls_export.json: Label Studio's JSON export ("Label Studio JSON format of
  annotated tasks", docs/source/guide/export.md): tasks with ``data`` and
  ``annotations[].result[]`` of type ``choices``, ``completed_by`` (user id
  1-4 for ann1-ann4), ``was_cancelled``. Added: user 5 skipped two tasks
  (``was_cancelled: true``, empty result), left a draft on one, and gave
  one bad annotation with two choices (``multiple_labels``).
* ls_export_min.json and ls_export.csv: the converter's JSON-MIN and CSV
  exports of the same project (one row per annotation: task data, ``id``,
  the ``topic`` control's choice, ``annotator``, ``annotation_id``,
  ``created_at``, ``updated_at``, ``lead_time``; CSV columns sorted and
  quoted as non-numeric, annotators by e-mail). Skipped annotations and
  drafts are not in these exports; the bad two-choice annotation is.
* argilla_records.json: Argilla v2 ``Dataset.records.to_json`` records
  (``id``, ``status``, ``fields``, ``metadata``, ``suggestions``,
  ``responses: {topic: [{value, user_id, status}]}``, ``vectors``,
  ``_server_id``); ann1-ann4 are user UUIDs. Added: a fifth user discarded
  two records and left a draft on one; one submitted response has no
  ``user_id`` (``missing_annotator``).

* ls_adjudicated_export.json: what Label Studio exports (JSON) from a project
  that imported builder's adjudication_tasks.json for these ratings: the
  tasks' data and predictions as imported, plus the lead's (user 9)
  annotations: 1325 science, 60 technology, 1007 health; 182 skipped.
  The tasks are made by annotation.adjudicate.label_studio_tasks, so this
  script needs the repository on sys.path (it puts it there).

tests/annotation/test_annotation_tools.py also builds such an export at test
time from the tasks the command writes.
"""
from __future__ import annotations

import csv
import io
import json
import uuid
from pathlib import Path

HERE = Path(__file__).parent
LEAD = {"1325": "science", "60": "technology", "1007": "health", "182": None}  # None: the lead pressed Skip
STAMP = "2026-11-20T10:{:02d}:00.000000Z"


def _long():
    with open(HERE / "sib_small_long.csv", encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    items: dict[str, dict] = {}
    for r in rows:
        items.setdefault(r["item_id"], {"text": r["text"], "ratings": []})["ratings"].append((r["annotator"],
                                                                                              r["label"]))
    return items


def _result(rid: str, labels):
    return [{"id": rid, "type": "choices", "value": {"choices": list(labels)}, "origin": "manual",
             "to_name": "text", "from_name": "topic"}]


def label_studio(items):
    tasks, rows = [], []
    annotation_id = 0
    for t, (item, it) in enumerate(items.items()):
        task_id = 101 + t
        anns = []
        extra = []
        for annotator, label in it["ratings"]:
            user = int(annotator[3:])
            annotation_id += 1
            anns.append(_annotation(annotation_id, task_id, user, _result(f"r{annotation_id}", [label]), False))
            rows.append({"id": task_id, "index_id": item, "text": it["text"], "topic": label,
                         "annotator": user, "annotation_id": annotation_id})
        if t in (1, 4):  # user 5 pressed Skip
            annotation_id += 1
            extra.append(_annotation(annotation_id, task_id, 5, [], True))
        if t == 8:  # one annotation with two choices: a bad record
            annotation_id += 1
            extra.append(_annotation(annotation_id, task_id, 5, _result(f"r{annotation_id}", ["sports", "travel"]),
                                     False))
            rows.append({"id": task_id, "index_id": item, "text": it["text"],
                         "topic": {"choices": ["sports", "travel"]}, "annotator": 5,
                         "annotation_id": annotation_id})
        task = {"id": task_id, "data": {"index_id": item, "text": it["text"]}, "annotations": anns + extra,
                "predictions": [], "created_at": STAMP.format(0), "updated_at": STAMP.format(t), "project": 7}
        if t == 6:  # user 5 started, did not submit
            task["drafts"] = [{"id": 31, "user": 5, "result": _result("d31", ["politics"]), "lead_time": 4.1,
                               "was_postponed": False, "created_at": STAMP.format(t), "task": task_id}]
        tasks.append(task)
    for r in rows:
        r.update({"created_at": STAMP.format(r["annotation_id"] % 60), "updated_at": STAMP.format(
            r["annotation_id"] % 60), "lead_time": round(3.0 + r["annotation_id"] / 10, 3)})
    return tasks, rows


def _annotation(aid, task_id, user, result, cancelled):
    return {"id": aid, "completed_by": user, "result": result, "was_cancelled": cancelled, "ground_truth": False,
            "created_at": STAMP.format(aid % 60), "updated_at": STAMP.format(aid % 60),
            "lead_time": round(3.0 + aid / 10, 3), "result_count": len(result), "task": task_id}


def ls_csv(rows):
    keys = sorted({"annotator", "annotation_id", "created_at", "updated_at", "lead_time", "was_cancelled", "id",
                   "index_id", "text", "topic"})
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=keys, quoting=csv.QUOTE_NONNUMERIC, lineterminator="\n")
    w.writeheader()
    for r in rows:
        out = dict(r, annotator=f"ann{r['annotator']}@example.org", was_cancelled=False)
        if isinstance(out["topic"], dict):
            out["topic"] = json.dumps(out["topic"], ensure_ascii=False)
        w.writerow(out)
    return buf.getvalue()


def argilla(items):
    users = {f"ann{k}": str(uuid.UUID(int=0xA0 + k)) for k in range(1, 6)}
    records = []
    for t, (item, it) in enumerate(items.items()):
        responses = [{"value": label, "user_id": users[a], "status": "submitted"} for a, label in it["ratings"]]
        if t in (2, 5):
            responses.append({"value": None, "user_id": users["ann5"], "status": "discarded"})
        if t == 7:
            responses.append({"value": "health", "user_id": users["ann5"], "status": "draft"})
        if t == 9:
            responses.append({"value": "sports", "user_id": None, "status": "submitted"})
        records.append({"id": item, "status": "completed", "_server_id": str(uuid.UUID(int=0x5000 + t)),
                        "fields": {"text": it["text"]}, "metadata": {"language": "eng_Latn"},
                        "suggestions": {}, "responses": {"topic": responses}, "vectors": {}})
    return records


def adjudicated(tasks):
    out = []
    for k, task in enumerate(tasks, start=1):
        label = LEAD[task["data"]["item_id"]]
        result = [] if label is None else _result(f"lead{k}", [label])
        out.append({"id": 200 + k, "data": task["data"],
                    "annotations": [_annotation(900 + k, 200 + k, 9, result, label is None)],
                    "predictions": [dict(p, id=300 + k, task=200 + k, created_ago="1 hour")
                                    for p in task.get("predictions", [])],
                    "created_at": STAMP.format(0), "updated_at": STAMP.format(k), "project": 8})
    return out


def main():
    items = _long()
    tasks, rows = label_studio(items)
    (HERE / "ls_export.json").write_text(json.dumps(tasks, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    minimal = [{"index_id": r["index_id"], "text": r["text"], "id": r["id"], "topic": r["topic"],
                "annotator": r["annotator"], "annotation_id": r["annotation_id"], "created_at": r["created_at"],
                "updated_at": r["updated_at"], "lead_time": r["lead_time"]} for r in rows]
    (HERE / "ls_export_min.json").write_text(json.dumps(minimal, indent=2, ensure_ascii=False) + "\n",
                                             encoding="utf-8")
    (HERE / "ls_export.csv").write_text(ls_csv(rows), encoding="utf-8", newline="")
    import sys

    sys.path.insert(0, str(HERE.parents[2]))
    from annotation.adjudicate import decide, label_studio_tasks
    from annotation.importer import read_annotations, read_labels

    ann = read_annotations(HERE / "sib_small_long.csv", labels=read_labels(HERE / "labels.txt"))
    (HERE / "ls_adjudicated_export.json").write_text(
        json.dumps(adjudicated(label_studio_tasks(ann, decide(ann))), indent=2, ensure_ascii=False) + "\n",
        encoding="utf-8")
    (HERE / "argilla_records.json").write_text(json.dumps(argilla(items), ensure_ascii=False) + "\n",
                                               encoding="utf-8")


if __name__ == "__main__":
    main()
