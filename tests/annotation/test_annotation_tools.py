"""Label Studio and Argilla exports give the long CSV's judgements; the adjudication round trip through Label Studio.

The fixtures are the 48 ratings of sib_small_long.csv written in each tool's
documented export layout (tests/data/annotation/make_tool_exports.py says
which document and what was added: skipped, draft and discarded ratings by a
fifth annotator, and one bad record each).
"""
from __future__ import annotations

import csv
import json
import uuid
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner

from annotation.adjudicate import decide, label_config, label_studio_tasks
from annotation.importer import read_annotations, read_labels
from annotation.tools import argilla_nested
from builder.cli.main import cli
from schemas.errors import AnnotationError, SourceError

D = Path(__file__).parents[1] / "data" / "annotation"
LABELS = D / "labels.txt"

# fixture -> (detected format, reasons counted under --on-error skip, the bad record's error line)
EXPORTS = {
    "ls_export.json": ("label-studio", {"cancelled": 2, "draft": 1, "multiple_labels": 1},
                       "ls_export.json, task 9, annotation 5 (item 1809): 2 labels (sports, travel) where a topic "
                       "takes one"),
    "ls_export_min.json": ("label-studio-min", {"multiple_labels": 1},
                           "ls_export_min.json, record 37 (item 1809): 2 labels (sports, travel)"),
    "ls_export.csv": ("label-studio-csv", {"multiple_labels": 1},
                      "ls_export.csv, line 38 (item 1809): 2 labels (sports, travel)"),
    "argilla_records.json": ("argilla", {"discarded": 2, "draft": 1, "missing_annotator": 1},
                             "argilla_records.json, record 10, response 5 (item 1022): submitted response has no "
                             "user_id"),
}


def _ann_name(annotator: str) -> str:
    """The long CSV's name of a tool's user: LS id 3, ann3@example.org, or Argilla's UUID(int=0xA0 + 3)."""
    if annotator.isdigit():
        return f"ann{annotator}"
    if annotator.startswith("ann"):
        return annotator.split("@")[0]
    return f"ann{uuid.UUID(annotator).int - 0xA0}"


def _judgements(ann):
    return {(j.item_id, _ann_name(j.annotator), j.label) for j in ann.judgements()}


@pytest.fixture(scope="module")
def long_csv():
    return read_annotations(D / "sib_small_long.csv", labels=read_labels(LABELS))


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


@pytest.mark.parametrize("name", sorted(EXPORTS))
def test_each_export_is_the_long_csv_with_its_exclusions_counted_by_reason(name, long_csv):
    fmt, skipped, _ = EXPORTS[name]
    for given in ("auto", fmt):
        ann = read_annotations(D / name, format=given, labels=read_labels(LABELS), on_error="skip")
        assert _judgements(ann) == _judgements(long_csv)
        assert ann.item_ids == long_csv.item_ids and ann.texts == long_csv.texts
        assert ann.skipped == skipped


@pytest.mark.parametrize("name", sorted(EXPORTS))
def test_the_bad_record_is_one_line_naming_file_and_task_or_record(name):
    with pytest.raises(AnnotationError) as err:
        read_annotations(D / name, labels=read_labels(LABELS))
    assert str(err.value).startswith(str(D / EXPORTS[name][2].split(",")[0]))
    assert EXPORTS[name][2] in str(err.value) and "\n" not in str(err.value)


def test_agreement_cli_gives_the_long_csv_kappa_and_the_counts_by_reason(tmp_path):
    common = ["--labels", LABELS, "--n-boot", 0, "--no-plot"]
    res = run("annotate", "agreement", D / "sib_small_long.csv", *common, "--out", tmp_path / "long")
    assert res.exit_code == 0, res.output
    want = json.loads((tmp_path / "long" / "agreement.json").read_text(encoding="utf-8"))
    for k, name in enumerate(sorted(EXPORTS)):
        res = run("annotate", "agreement", D / name, *common, "--on-error", "skip", "--out", tmp_path / str(k))
        assert res.exit_code == 0, res.output
        got = json.loads((tmp_path / str(k) / "agreement.json").read_text(encoding="utf-8"))
        for measure in ("fleiss_kappa", "krippendorff_alpha", "mean_cohen_kappa", "gwet_ac1"):
            assert got[measure] == want[measure], (name, measure)
        assert got["n_items"] == 12 and got["n_annotators"] == 4
        assert got["skipped"] == EXPORTS[name][1]
        assert res.stdout.startswith(f"12 items, 4 annotators: fleiss_kappa {want['fleiss_kappa']:.3f}")
        for reason, n in EXPORTS[name][1].items():
            assert f"skipped {n} ({reason}): " in res.stderr
        if name == "argilla_records.json":
            assert got["skipped_ids"] == {"discarded": ["1325", "658"], "draft": ["1232"],
                                          "missing_annotator": ["1022"]}


def test_agreement_cli_stops_at_the_bad_record_with_one_error_line(tmp_path):
    res = run("annotate", "agreement", D / "ls_export.json", "--labels", LABELS, "--n-boot", 0, "--no-plot",
              "--out", tmp_path / "rep")
    assert res.exit_code == 1
    assert res.stderr.strip().splitlines() == [f"error: {D / 'ls_export.json'}, task 9, annotation 5 (item 1809): "
                                               f"2 labels (sports, travel) where a topic takes one"]
    assert not (tmp_path / "rep").exists()


def _flat(record: dict) -> dict:
    """Argilla's flattened layout of a record (to_datasets / to_hub): fields as columns, question.responses*."""
    answers = record["responses"]["topic"]
    return {"id": record["id"], "status": record["status"], "_server_id": record["_server_id"],
            **record["fields"], "topic.responses": [a["value"] for a in answers],
            "topic.responses.users": [a["user_id"] for a in answers],
            "topic.responses.status": [a["status"] for a in answers], "topic.suggestion": None}


def test_argilla_as_a_saved_hugging_face_dataset_and_parquet(tmp_path, long_csv):
    import datasets

    records = json.loads((D / "argilla_records.json").read_text(encoding="utf-8"))
    assert argilla_nested(_flat(records[0]))["responses"]["topic"] == records[0]["responses"]["topic"]
    ds = datasets.Dataset.from_list([_flat(r) for r in records])
    ds.save_to_disk(str(tmp_path / "hf"))
    ds.to_parquet(str(tmp_path / "records.parquet"))
    for path in (tmp_path / "hf", tmp_path / "records.parquet"):
        ann = read_annotations(path, labels=read_labels(LABELS), on_error="skip")
        assert _judgements(ann) == _judgements(long_csv)
        assert ann.skipped == EXPORTS["argilla_records.json"][1]
    (tmp_path / "disk").mkdir()  # rg.Dataset.to_disk: settings.json, dataset.json, records.json
    (tmp_path / "disk" / "records.json").write_text(json.dumps(records), encoding="utf-8")
    assert _judgements(read_annotations(tmp_path / "disk", on_error="skip")) == _judgements(long_csv)


def _ls_file(tmp_path, tasks, name="export.json"):
    p = tmp_path / name
    p.write_text(json.dumps(tasks), encoding="utf-8")
    return p


def _task(item, *annotations):
    return {"id": 1, "data": {"index_id": item, "text": "t"}, "annotations": list(annotations)}


def _choice(user, label, control="topic"):
    return {"completed_by": user, "was_cancelled": False,
            "result": [{"from_name": control, "to_name": "text", "type": "choices", "value": {"choices": [label]}}]}


def test_malformed_exports_name_the_place(tmp_path):
    bad = _ls_file(tmp_path, [_task("1", _choice(1, "a"), _choice(2, "a")), "not a task"])
    with pytest.raises(AnnotationError, match=r"export.json, task 2: expected a task object with a data object"):
        read_annotations(bad)
    assert read_annotations(bad, on_error="skip").skipped == {"malformed_record": 1}
    broken = tmp_path / "broken.json"
    broken.write_text('[{"data": {"index_id": "1"},\n "annotations": [}]', encoding="utf-8")
    with pytest.raises(SourceError, match=r"broken.json, line 2: malformed JSON"):
        read_annotations(broken)
    two = _ls_file(tmp_path, [_task("1", _choice(1, "a"), _choice(2, "b", control="mood"))], "two.json")
    with pytest.raises(AnnotationError, match=r"several Choices control \(from_name\)s could hold the label "
                       r"\(mood, topic\); name one with --label-field"):
        read_annotations(two, min_ratings=1)
    assert read_annotations(two, label_field="topic", min_ratings=1, on_error="skip").skipped == {"empty_label": 1}
    odd = tmp_path / "odd.json"
    answers = [{"value": "a", "user_id": "u1", "status": "submitted"},
               {"value": "a", "user_id": "u2", "status": "pending"}]
    odd.write_text(json.dumps([{"id": "1", "fields": {"text": "t"}, "responses": {"topic": answers}}]),
                   encoding="utf-8")
    with pytest.raises(AnnotationError, match=r"record 1, response 2 \(item 1\): unknown response status 'pending'"):
        read_annotations(odd, min_ratings=1)


def test_adjudication_round_trip_through_label_studio(tmp_path, long_csv):
    res = run("annotate", "adjudicate", D / "sib_small_long.csv", "--labels", LABELS, "--out", tmp_path / "adj")
    assert res.exit_code == 0, res.output
    tasks = json.loads((tmp_path / "adj" / "adjudication_tasks.json").read_text(encoding="utf-8"))
    with open(tmp_path / "adj" / "adjudication_sheet.csv", encoding="utf-8") as f:
        sheet = [r["item_id"] for r in csv.DictReader(f)]
    assert [t["data"]["item_id"] for t in tasks] == sheet == ["1325", "60", "1007", "182"]
    first = tasks[0]
    assert first["data"]["ratings"] == "ann1: science; ann2: technology; ann3: science; ann4: technology"
    assert first["data"]["candidates"] == "science, technology"
    assert first["predictions"][0]["result"][0]["value"] == {"choices": ["science"]}  # first tied label, labels order
    assert first["predictions"][0]["score"] == 0.5
    config = ET.fromstring((tmp_path / "adj" / "label_studio_config.xml").read_text(encoding="utf-8"))
    control = config.find("Choices")
    assert [c.get("value") for c in control] == list(read_labels(LABELS))
    assert (control.get("name"), control.get("toName")) == (first["predictions"][0]["result"][0]["from_name"],
                                                           first["predictions"][0]["result"][0]["to_name"])
    # the lead adjudicates in Label Studio: its export keeps the tasks' data and predictions and adds annotations
    lead = {"1325": "science", "182": "health", "60": None}  # 60 skipped; 1007 not opened
    exported = []
    for k, task in enumerate(tasks, start=1):
        item = task["data"]["item_id"]
        annotations = []
        if item in lead:
            annotations = [{"id": 900 + k, "completed_by": 9, "task": k, "lead_time": 7.5, "ground_truth": False,
                            "was_cancelled": lead[item] is None,
                            "result": [] if lead[item] is None else [
                                {"id": f"x{k}", "from_name": "topic", "to_name": "text", "type": "choices",
                                 "value": {"choices": [lead[item]]}, "origin": "manual"}]}]
        exported.append({"id": k, "data": task["data"], "annotations": annotations, "drafts": [],
                         "predictions": [dict(p, id=k, task=k) for p in task.get("predictions", [])], "project": 3})
    export = _ls_file(tmp_path, exported, "project-3-export.json")
    res = run("annotate", "adjudicate", D / "sib_small_long.csv", "--labels", LABELS, "--sheet", export,
              "--out", tmp_path / "merged")
    assert res.exit_code == 0, res.output
    with open(tmp_path / "merged" / "decisions.csv", encoding="utf-8") as f:
        got = {r["item_id"]: (r["label"], r["rule"]) for r in csv.DictReader(f)}
    assert got["1325"] == ("science", "adjudicated") and got["182"] == ("health", "adjudicated")
    assert got["60"] == ("", "unresolved") and got["1007"] == ("", "unresolved")  # a skip or a prediction is no label
    summary = json.loads((tmp_path / "merged" / "adjudication.json").read_text(encoding="utf-8"))
    assert summary["sheet"] == {"file": export.name, "rows": 4, "adjudicated": 2, "left_empty": 2, "not_in_sheet": 0}
    left = json.loads((tmp_path / "merged" / "unresolved_tasks.json").read_text(encoding="utf-8"))
    assert [t["data"]["item_id"] for t in left] == ["60", "1007"]


def test_the_label_studio_tasks_name_the_policy_that_left_them_unresolved(tmp_path, long_csv):
    from annotation.adjudicate import write_label_studio_tasks

    decisions = decide(long_csv)
    for policy, path in (("plurality", tmp_path / "a.json"), (None, tmp_path / "b.json")):
        n = (write_label_studio_tasks(path, long_csv, decisions, policy) if policy
             else write_label_studio_tasks(path, long_csv, decisions))
        tasks = json.loads(path.read_text(encoding="utf-8"))
        assert n == len(tasks) == 4
        assert {p["model_version"] for t in tasks for p in t["predictions"]} == {f"{policy or 'sib200'}-vote"}
    # the file a curator opens: indented by two, non-ASCII text as it is (an annotator named Zoë), one final newline
    from annotation.importer import from_judgements
    from schemas.records import Judgement

    tie = from_judgements([Judgement("7", "zoë", "sports"), Judgement("7", "b", "travel")], labels=["sports", "travel"])
    write_label_studio_tasks(tmp_path / "c.json", tie, decide(tie))
    text = (tmp_path / "c.json").read_text(encoding="utf-8")
    assert text == json.dumps(json.loads(text), ensure_ascii=False, indent=2) + "\n" and "b: travel; zoë: sports" in text


def test_a_lead_export_with_two_labels_or_an_unknown_label_is_one_error(tmp_path, long_csv):
    decisions = decide(long_csv)
    assert len(label_studio_tasks(long_csv, decisions)) == 4
    assert "<Choice value=\"science\" />" in label_config(long_csv.labels)
    two = _ls_file(tmp_path, [{"data": {"item_id": "1325"}, "annotations": [_choice(9, "science"),
                                                                              _choice(8, "technology")]}])
    res = run("annotate", "adjudicate", D / "sib_small_long.csv", "--labels", LABELS, "--sheet", two,
              "--out", tmp_path / "a")
    assert res.exit_code == 1
    assert res.stderr.strip() == (f"error: {two}, task 1, annotation 2: the task has two lead labels ('science', "
                                  f"'technology'); keep one annotation")
    unknown = _ls_file(tmp_path, [{"data": {"item_id": "1325"}, "annotations": [_choice(9, "sience")]}], "u.json")
    res = run("annotate", "adjudicate", D / "sib_small_long.csv", "--labels", LABELS, "--sheet", unknown,
              "--out", tmp_path / "b")
    assert res.exit_code == 1
    assert res.stderr.strip() == (f"error: {unknown}, task 1 (item 1325), field lead_label: unknown label 'sience'; "
                                  f"allowed: {', '.join(read_labels(LABELS))}")


def test_unrated_tasks_users_as_objects_and_a_changed_text(tmp_path):
    user = {"id": 4, "email": "lead@example.org", "first_name": "", "last_name": ""}  # completed_by expanded
    tasks = [_task("1", _choice(user, "a"), _choice(2, "a")), _task("2")]
    ann = read_annotations(_ls_file(tmp_path, tasks), on_error="skip")
    assert ann.annotators == ("2", "lead@example.org")
    assert ann.skipped == {"too_few_ratings": 1} and ann.skipped_ids == {"too_few_ratings": ["2"]}  # never silent
    minimal = [{"index_id": "1", "text": "t", "id": 1, "topic": "a", "annotator": 1, "annotation_id": 1},
               {"index_id": "1", "text": "t", "id": 1, "topic": "a", "annotator": 2, "annotation_id": 2},
               {"index_id": "2", "text": "u", "id": 2, "annotator": None, "annotation_id": None}]  # not annotated
    with pytest.raises(AnnotationError, match=r"min.json, record 3 \(item 2\): item '2' has 0 rating"):
        read_annotations(_ls_file(tmp_path, minimal, "min.json"))
    changed = [_task("1", _choice(1, "a"), _choice(2, "a")), dict(_task("1", _choice(3, "a")), data={
        "index_id": "1", "text": "another text"})]
    with pytest.raises(AnnotationError, match=r"changed.json, task 2 \(item 1\): item '1' has a different text "
                       r"than on task 1"):
        read_annotations(_ls_file(tmp_path, changed, "changed.json"))


def test_a_label_studio_task_is_the_documented_layout_in_full():
    """Every key of a task as Label Studio imports it: the text ("" where an item has none, never null),
    the ratings, the tied candidates, one ``choices`` prediction scored to six places."""
    from annotation.importer import from_judgements
    from schemas.records import Judgement as J

    ann = from_judgements([J("1", "a", "sports"), J("1", "b", "travel"), J("1", "c", "health"),
                           J("2", "a", "sports"), J("2", "b", "travel")],
                          labels=["health", "sports", "travel"], texts={"1": "Ein Spiel."})
    tasks = label_studio_tasks(ann, decide(ann))
    choice = {"from_name": "topic", "to_name": "text", "type": "choices"}
    assert tasks == [
        {"data": {"item_id": "1", "text": "Ein Spiel.", "ratings": "a: sports; b: travel; c: health",
                  "candidates": "health, sports, travel"},
         "predictions": [{"model_version": "sib200-vote", "score": 0.333333,
                          "result": [{**choice, "value": {"choices": ["health"]}}]}]},
        {"data": {"item_id": "2", "text": "", "ratings": "a: sports; b: travel", "candidates": "sports, travel"},
         "predictions": [{"model_version": "sib200-vote", "score": 0.5,
                          "result": [{**choice, "value": {"choices": ["sports"]}}]}]},
    ]
