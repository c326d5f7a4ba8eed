"""Behaviours of a release that no other test pinned down (issue 27), in-process and fast.

- the re-split of a variant to the pivot (:func:`builder.release.steps.align_to_pivot`): the count of
  items dropped as not in the pivot is exact (input = kept + dropped), and a pivot item missing from the
  variant stops the stage with an error naming it (it does not vanish from the release);
- the release summary's drop ledger (:func:`builder.release.summary.build_summary`): for any ledger, the
  rows of ``release.json`` are the stages' rows summed once each by (stage, source, reason), so a row
  counted twice changes a total and fails here.

Each was checked against a one-line bug in the production code: docs/testing.md, "Behaviours pinned
for issue 27".
"""
from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from builder.release import findings, steps
from builder.release.plan import Plan
from builder.release.stages import STAGE_JSON, Stage
from builder.release.summary import build_summary, write_summary
from schemas.errors import AlignmentError, SchemaError, UsageError
from schemas.io import read_sib_tsv, sib_tsv_text
from schemas.ledger import DropRow
from schemas.runtime.outputs import MARKER
from schemas.variant import VariantInfo

LABELS = ("sports", "travel", "health")
DATA = Path(__file__).resolve().parents[1] / "data"
MINI = DATA / "release" / "mini-release.yaml"


def _folder(path: Path, splits: dict[str, list[int]], prefix: str) -> Path:
    path.mkdir(parents=True)
    for split, items in splits.items():
        rows = [{"index_id": str(i), "category": LABELS[i % 3], "text": f"{prefix} {i}"} for i in items]
        (path / f"{split}.tsv").write_text(sib_tsv_text(rows), encoding="utf-8")
    (path / "labels.txt").write_text("\n".join(LABELS) + "\n", encoding="utf-8")
    return path


def _align(root: Path, pivot: dict[str, list[int]], variant: dict[str, list[int]]):
    piv = _folder(root / "eng_Latn", pivot, "en")
    var = _folder(root / "src" / "hin_Deva", variant, "hi")
    out = root / "out"
    facts = steps.align_to_pivot(piv, var, "hin_Deva")(out)
    return out, facts


def test_items_not_in_the_pivot_are_dropped_and_counted_exactly(tmp_path):
    # the variant holds 9 items; the pivot (curated) keeps 6 of them, re-split otherwise
    out, facts = _align(tmp_path, {"train": [1, 2, 3], "dev": [4], "test": [5, 6]},
                        {"train": [1, 2, 7, 8], "dev": [3, 4, 9], "test": [5, 6]})
    info = json.loads((out / "hin_Deva" / "variant.json").read_text(encoding="utf-8"))
    assert info["aligned"]["dropped_not_in_pivot"] == 3
    assert info["aligned"]["counts"] == {"train": 3, "dev": 1, "test": 2}
    assert facts == {"drops": [{"source": "align hin_Deva", "reason": "not_in_pivot", "count": 3}]}
    # every item lands in the pivot's split, with the variant's own text
    got = {s: [(r["index_id"], r["text"]) for r in read_sib_tsv(out / "hin_Deva" / f"{s}.tsv")]
           for s in ("train", "dev", "test")}
    assert got == {"train": [("1", "hi 1"), ("2", "hi 2"), ("3", "hi 3")], "dev": [("4", "hi 4")],
                   "test": [("5", "hi 5"), ("6", "hi 6")]}


def test_nothing_dropped_is_no_drop_row(tmp_path):
    out, facts = _align(tmp_path, {"train": [1, 2], "test": [3]}, {"train": [3, 1], "test": [2]})
    info = json.loads((out / "hin_Deva" / "variant.json").read_text(encoding="utf-8"))
    assert info["aligned"]["dropped_not_in_pivot"] == 0 and facts == {"drops": []}


def test_a_pivot_item_missing_from_the_variant_stops_the_stage_naming_it(tmp_path):
    with pytest.raises(AlignmentError) as err:
        _align(tmp_path, {"train": [1, 2], "test": [3, 4]}, {"train": [1, 2], "test": [3]})
    assert "pivot item 4 (test) is missing from hin_Deva" in str(err.value)
    assert not (tmp_path / "out").exists()  # nothing written: the release cannot name a variant without it


def test_the_aligned_variant_keeps_the_pivots_labels_and_its_record_says_how_it_was_made(tmp_path):
    piv = _folder(tmp_path / "eng_Latn", {"train": [1], "test": [2]}, "en")
    var = _folder(tmp_path / "src" / "hin_Deva", {"train": [2, 1]}, "hi")
    (piv / "labels.txt").write_text("travel\nsports\nhealth\n", encoding="utf-8")  # the pivot's order wins
    VariantInfo(license="CC-BY-SA-4.0", source_name="SIB-200").write(var)
    out = tmp_path / "out"
    steps.align_to_pivot(piv, var, "hin_Deva")(out)
    assert (out / "hin_Deva" / "labels.txt").read_bytes() == (piv / "labels.txt").read_bytes()
    info = json.loads((out / "hin_Deva" / "variant.json").read_text(encoding="utf-8"))
    assert (info["variant"], info["kind"], info["method"]) == ("hin_Deva", "topic", "aligned to the pivot's split")
    assert info["aligned"] == {"pivot": "eng_Latn", "counts": {"train": 1, "test": 1}, "dropped_not_in_pivot": 0}
    assert (info["license"], info["source_name"]) == ("CC-BY-SA-4.0", "SIB-200")  # the source's record is kept
    assert json.loads((out / MARKER).read_text(encoding="utf-8")) == {"command": "release"}


def test_aligning_into_a_folder_that_is_not_a_release_output_is_refused(tmp_path):
    piv = _folder(tmp_path / "eng_Latn", {"train": [1]}, "en")
    var = _folder(tmp_path / "src" / "hin_Deva", {"train": [1]}, "hi")
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine\n", encoding="utf-8")
    with pytest.raises(UsageError, match="not an earlier release output"):
        steps.align_to_pivot(piv, var, "hin_Deva")(out)
    assert [f.name for f in out.iterdir()] == ["notes.txt"]


def test_every_alignment_error_is_one_message_naming_the_file(tmp_path):
    piv = _folder(tmp_path / "eng_Latn", {"train": [1, 2], "test": [3]}, "en")
    var = _folder(tmp_path / "src" / "hin_Deva", {"train": [1, 2]}, "hi")
    with pytest.raises(AlignmentError) as err:  # a pivot item the variant lacks: the variant's folder
        steps.align_to_pivot(piv, var, "hin_Deva")(tmp_path / "o1")
    assert (err.value.message, err.value.file) == ("pivot item 3 (test) is missing from hin_Deva", str(var))
    rows = [{"index_id": "1", "category": "health", "text": "hi 1"}, {"index_id": "2", "category": "health",
                                                                       "text": "hi 2"}]
    (var / "train.tsv").write_text(sib_tsv_text(rows), encoding="utf-8")
    (var / "test.tsv").write_text(sib_tsv_text([{"index_id": "3", "category": "sports", "text": "x"}]),
                                  encoding="utf-8")
    with pytest.raises(AlignmentError) as err:  # another label: the variant's file that holds the item
        steps.align_to_pivot(piv, var, "hin_Deva")(tmp_path / "o2")
    assert (err.value.message, err.value.file) == ("item 1: label 'health' here, 'travel' in the pivot",
                                                   str(var / "train.tsv"))
    jsonl = _folder(tmp_path / "src2" / "hin_Deva", {}, "hi")
    (jsonl / "train.jsonl").write_text('{"index_id": "1", "category": "travel", "text": "hi"}\n', encoding="utf-8")
    with pytest.raises(SchemaError) as err:
        steps.align_to_pivot(piv, jsonl, "hin_Deva")(tmp_path / "o3")
    assert (err.value.message, err.value.file) == ("align: pivot re-split reads SIB-200 TSV files",
                                                   str(jsonl / "train.jsonl"))
    assert not any((tmp_path / o).exists() for o in ("o1", "o2", "o3"))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.booleans(), st.sampled_from(["train", "dev", "test"]),
                          st.sampled_from(["train", "dev", "test"])), min_size=1, max_size=20))
def test_input_is_kept_plus_dropped_for_any_curation(items):
    """``items[i]``: (kept by the pivot, its pivot split, its split in the variant)."""
    pivot: dict[str, list[int]] = {}
    variant: dict[str, list[int]] = {}
    for i, (kept, p_split, v_split) in enumerate(items):
        kept = kept or i == 0  # a pivot holds at least one item
        variant.setdefault(v_split, []).append(i)
        if kept:
            pivot.setdefault(p_split, []).append(i)
    with tempfile.TemporaryDirectory() as tmp:
        out, facts = _align(Path(tmp), pivot, variant)
        info = json.loads((out / "hin_Deva" / "variant.json").read_text(encoding="utf-8"))
    n_in = sum(len(v) for v in variant.values())
    kept = sum(info["aligned"]["counts"].values())
    dropped = info["aligned"]["dropped_not_in_pivot"]
    assert kept == sum(len(v) for v in pivot.values())
    assert n_in == kept + dropped
    assert sum(d["count"] for d in facts["drops"]) == dropped


# -- the summary's drop ledger --------------------------------------------------------------------------------

def _plan(root: Path, ledger: dict[str, list[dict]]) -> Plan:
    recipe = SimpleNamespace(name="demo", pretty_name=None, citation=None, pivot="eng_Latn")
    plan = Plan(root=root, recipe=recipe)
    for name, rows in ledger.items():
        folder = root / "stages" / name
        folder.mkdir(parents=True)
        (folder / STAGE_JSON).write_text(json.dumps({"facts": {"drops": rows}}), encoding="utf-8")
        plan.stages.append(Stage(name=name, inputs={}, options={}, action=lambda out: {}, output=folder / "output"))
    return plan


_ROW = st.fixed_dictionaries(
    {"source": st.sampled_from(["race", "sciq", "curation"]), "reason": st.sampled_from(["a", "b"]),
     "count": st.integers(0, 40)},
    optional={"split": st.sampled_from(["train", "dev", "test"])})
_LEDGER = st.dictionaries(st.sampled_from(["assemble", "curate-hin_Deva", "align-hin_Deva", "adjudicate"]),
                          st.lists(_ROW, max_size=6), min_size=1)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_LEDGER)
def test_the_summary_sums_every_ledger_row_once(ledger):
    with tempfile.TemporaryDirectory() as tmp:
        summary = build_summary(_plan(Path(tmp), ledger), gate_failing_allowed=False, stopped_at_gate=False)
    drops = summary["drops"]
    expected: dict[tuple, int] = {}
    for stage, rows in ledger.items():
        for r in rows:
            if r["count"]:
                key = (stage, r["source"], r["reason"])
                expected[key] = expected.get(key, 0) + r["count"]
    keys = [(d["stage"], d["source"], d["reason"]) for d in drops]
    assert len(keys) == len(set(keys)), "a (stage, source, reason) row appears twice"
    assert {k: d["count"] for k, d in zip(keys, drops)} == expected
    for stage, rows in ledger.items():  # per stage: the stage's dropped records, counted once
        assert sum(d["count"] for d in drops if d["stage"] == stage) == sum(r["count"] for r in rows)
    assert sum(d["count"] for d in drops) == sum(r["count"] for rows in ledger.values() for r in rows)


def test_release_json_holds_the_ledger_summed_once(tmp_path):
    ledger = {"assemble": [{"source": "race", "reason": "too_many_sentences", "count": 4, "split": "train"},
                           {"source": "race", "reason": "too_many_sentences", "count": 1, "split": "dev"}],
              "align-hin_Deva": [{"source": "align hin_Deva", "reason": "not_in_pivot", "count": 3}]}
    write_summary(_plan(tmp_path, ledger), gate_failing_allowed=False, stopped_at_gate=False)
    summary = json.loads((tmp_path / "release.json").read_text(encoding="utf-8"))
    assert [(d["stage"], d["source"], d["reason"], d["count"]) for d in summary["drops"]] == [
        ("assemble", "race", "too_many_sentences", 5), ("align-hin_Deva", "align hin_Deva", "not_in_pivot", 3)]
    assert "8 records dropped from the dataset" in (tmp_path / "report.html").read_text(encoding="utf-8")


# -- which stages the released dataset is made from, and the labels a curation step dropped ----------------------

def _stage(root: Path, name: str, reads: list[str]) -> Stage:
    return Stage(name=name, inputs={f"in{i}": root / "stages" / r / "output" / "part" for i, r in enumerate(reads)},
                 options={}, action=lambda out: {}, output=root / "stages" / name / "output")


def test_the_dataset_is_made_from_every_stage_it_reads_directly_or_not(tmp_path):
    recipe = SimpleNamespace(name="demo", pretty_name=None, citation=None, pivot="eng_Latn")
    plan = Plan(root=tmp_path, recipe=recipe)
    # g, a and b feed c (b reads a too: a is met twice, g must still be found); side reads a only
    plan.stages = [_stage(tmp_path, "g", []), _stage(tmp_path, "a", []), _stage(tmp_path, "b", ["a"]),
                   _stage(tmp_path, "side", ["a"]), _stage(tmp_path, "c", ["g", "a", "b"])]
    plan.dataset = tmp_path / "stages" / "c" / "output" / "dataset"
    assert findings.dataset_stages(plan) == {"g", "a", "b", "c"}
    plan.dataset = tmp_path / "stages" / "b" / "output"
    assert findings.dataset_stages(plan) == {"a", "b"}
    plan.dataset = tmp_path / "elsewhere"  # made by no stage: every stage counts
    assert findings.dataset_stages(plan) == {"g", "a", "b", "side", "c"}


def test_the_qc_notes_group_skipped_checks_by_reason_and_list_the_warnings():
    checks = [
        {"variant": "hin_Deva", "check": "bow_probe", "skipped": True, "detail": "only  one\npassage"},
        "not a check",  # skipped, and the checks after it still read
        {"variant": "arb_Arab", "check": "bow_probe", "skipped": True, "detail": "only one passage"},
        {"variant": "eng_Latn", "check": "bow_probe", "skipped": True, "reason": "no rows"},  # no detail: the reason
        {"variant": "eng_Latn", "check": "leakage", "skipped": True},  # neither
        {"variant": "fra_Latn", "check": "duplicates", "passed": False, "gate": False, "detail": "2 near\tpairs"},
        {"variant": "fra_Latn", "check": "leakage", "passed": False, "gate": True, "detail": "gated: a failure"},
        {"variant": "fra_Latn", "check": "length_bias", "passed": True, "gate": False, "detail": "fine"},
        {"variant": "deu_Latn", "check": "script", "passed": None, "gate": False, "detail": "not decided"},
    ]
    skipped, warned = findings.qc_notes({"checks": checks})
    assert skipped == [{"check": "bow_probe", "why": "no rows", "variants": ["eng_Latn"]},
                       {"check": "bow_probe", "why": "only one passage", "variants": ["arb_Arab", "hin_Deva"]},
                       {"check": "leakage", "why": "no reason given", "variants": ["eng_Latn"]}]
    assert warned == [{"variant": "fra_Latn", "check": "duplicates", "detail": "2 near pairs"}]
    assert findings.qc_notes(None) == findings.qc_notes({}) == findings.qc_notes({"checks": None}) == ([], [])


def test_the_labels_each_curation_step_dropped_are_summed_from_its_log(tmp_path):
    log = {"steps": [
        {"step": "dropped_label", "dropped_labels": {"science": 3, "geography": 1}},
        {"step": "dropped_label", "dropped_labels": {"science": 2}},           # the same step again: summed
        {"step": "merged", "dropped_labels": {}},                               # nothing dropped: no entry
        {"step": "odd", "dropped_labels": {"a": True, "b": "2", "c": 4}},      # only whole counts
        {"step": "no labels"}, "not a step",
    ]}
    (tmp_path / "curation_log.json").write_text(json.dumps(log), encoding="utf-8")
    assert findings._dropped_labels(tmp_path) == {"dropped_label": {"science": 5, "geography": 1}, "odd": {"c": 4}}
    assert findings._dropped_labels(tmp_path / "none") == {}
    (tmp_path / "curation_log.json").write_text("{", encoding="utf-8")
    assert findings._dropped_labels(tmp_path) == {}


# -- collecting the variants: what each variant.json credits, and the kind of each folder ------------------------

CREDIT = {"license": "CC-BY-SA-4.0", "source_name": "SIB-200", "citation": "Adelani et al. (2024)"}


def test_collect_credits_only_what_a_variant_does_not_declare(tmp_path):
    own = _folder(tmp_path / "in" / "hin_Deva", {"train": [1], "test": [2]}, "hi")
    VariantInfo(license="CC-BY-4.0", license_from="its translators", source_name="FLORES-200").write(own)
    bare = _folder(tmp_path / "in" / "eng_Latn", {"train": [1]}, "en")
    steps.collect({"hin_Deva": (own, False), "eng_Latn": (bare, False)}, CREDIT)(tmp_path / "out")
    got = {v: json.loads((tmp_path / "out" / v / "variant.json").read_text(encoding="utf-8"))
           for v in ("hin_Deva", "eng_Latn")}
    # a declared license is never replaced by the recipe's; only the missing citation is added
    assert {k: got["hin_Deva"].get(k) for k in ("variant", "kind", "license", "license_from", "source_name",
                                                "citation")} == {
        "variant": "hin_Deva", "kind": "topic", "license": "CC-BY-4.0", "license_from": "its translators",
        "source_name": "FLORES-200", "citation": "Adelani et al. (2024)"}
    # nothing declared: all of the recipe's credit, the license said to come from the recipe
    assert {k: got["eng_Latn"].get(k) for k in ("variant", "kind", "license", "license_from", "source_name",
                                                "citation")} == {
        "variant": "eng_Latn", "kind": "topic", "license": "CC-BY-SA-4.0", "license_from": "release recipe",
        "source_name": "SIB-200", "citation": "Adelani et al. (2024)"}
    for v, src in (("hin_Deva", own), ("eng_Latn", bare)):  # the splits and labels, linked, not rewritten
        for name in [p.name for p in src.iterdir() if p.suffix in (".tsv", ".txt")]:
            assert (tmp_path / "out" / v / name).stat().st_ino == (src / name).stat().st_ino, (v, name)


def test_collect_takes_an_assembled_set_as_a_multiple_choice_variant_and_marks_its_output(tmp_path):
    import pandas as pd

    from schemas.runtime.outputs import written_by

    assembled = tmp_path / "assembled"
    assembled.mkdir()
    for split in ("train", "dev"):  # the three formats an assembly writes: the Parquet files are the variant's
        pd.DataFrame({"question": ["Q?"]}).to_parquet(assembled / f"{split}.parquet")
        (assembled / f"{split}.jsonl").write_text('{"question": "Q?"}\n', encoding="utf-8")
        (assembled / f"{split}.tsv").write_text("question\nQ?\n", encoding="utf-8")
    topic = _folder(tmp_path / "in" / "hin_Deva", {"train": [1], "test": [2]}, "hi")
    action = steps.collect({"eng_Latn": (assembled, True), "hin_Deva": (topic, False)}, CREDIT)
    out = tmp_path / "stages" / "dataset" / "output"
    assert action(out) == {}
    assert written_by(out) == steps.WHAT
    assert sorted(p.name for p in (out / "eng_Latn").iterdir()) == ["dev.parquet", "train.parquet", "variant.json"]
    kinds = {v: json.loads((out / v / "variant.json").read_text(encoding="utf-8"))["kind"]
             for v in ("eng_Latn", "hin_Deva")}
    assert kinds == {"eng_Latn": "mc", "hin_Deva": "topic"}
    assert action(out) == {}  # the release's own earlier output is replaced


def test_an_empty_credit_value_adds_nothing(tmp_path):
    bare = _folder(tmp_path / "in" / "eng_Latn", {"train": [1]}, "en")
    steps.collect({"eng_Latn": (bare, False)}, {"license": None, "citation": ""})(tmp_path / "out")
    got = json.loads((tmp_path / "out" / "eng_Latn" / "variant.json").read_text(encoding="utf-8"))
    assert "license" not in got and "license_from" not in got and "citation" not in got


def test_variant_folders_finds_each_variant_and_its_kind(tmp_path):
    import pandas as pd

    topic = _folder(tmp_path / "ds" / "hin_Deva", {"train": [1]}, "hi")
    mc = tmp_path / "ds" / "fra_Latn"
    mc.mkdir()
    pd.DataFrame({"passage": ["p"], "question": ["q"]}).to_parquet(mc / "test.parquet")
    tsv_mc = tmp_path / "ds" / "deu_Latn"
    tsv_mc.mkdir()
    (tsv_mc / "dev.tsv").write_text("\ufeffpassage\tquestion\np\tq\n", encoding="utf-8")
    parquet_topic = tmp_path / "ds" / "zho_Hans"
    parquet_topic.mkdir()
    pd.DataFrame({"index_id": [1], "category": ["x"], "text": ["t"]}).to_parquet(parquet_topic / "test.parquet")
    declared = _folder(tmp_path / "ds" / "yor_Latn", {"train": [1]}, "yo")
    VariantInfo(kind="mc").write(declared)  # variant.json's kind wins over the columns
    _folder(tmp_path / "ds" / "notes", {"train": [1]}, "hi")  # split files, but not a variant code: not a variant
    (tmp_path / "ds" / "amh_Ethi").mkdir()       # no split file: not a variant
    (tmp_path / "ds" / "test.tsv").write_text("index_id\tcategory\ttext\n", encoding="utf-8")  # not a code
    (tmp_path / "ds" / "kor_Hang").write_text("a file named as a variant\n", encoding="utf-8")  # not a folder
    found = steps.variant_folders(tmp_path / "ds")
    assert {code: kind for code, (_, kind) in found.items()} == {
        "deu_Latn": "mc", "fra_Latn": "mc", "hin_Deva": "topic", "yor_Latn": "mc", "zho_Hans": "topic"}
    assert list(found) == sorted(found) and found["hin_Deva"][0] == topic
    assert steps.variant_folders(topic) == {"hin_Deva": (topic, "topic")}  # a variant folder itself


def test_the_ledger_rows_say_whether_the_dataset_is_made_from_them_and_which_labels_went(tmp_path):
    recipe = SimpleNamespace(name="demo", pretty_name=None, citation=None, pivot="eng_Latn")
    plan = Plan(root=tmp_path, recipe=recipe)
    plan.stages = [_stage(tmp_path, "adjudicate", []), _stage(tmp_path, "curate", []),
                   _stage(tmp_path, "split", ["curate"])]
    plan.dataset = tmp_path / "stages" / "split" / "output"
    curate_out = tmp_path / "stages" / "curate" / "output"
    curate_out.mkdir(parents=True)
    (curate_out / "curation_log.json").write_text(json.dumps({"steps": [
        {"step": "dropped_label", "dropped_labels": {"science": 2, "geography": 5, "arts": 2}}]}), encoding="utf-8")
    records = [
        ("adjudicate", {"facts": {"drops": [{"source": "sample", "reason": "tie", "count": 4}]}}),
        ("curate", {"facts": {"drops": [{"source": "eng_Latn", "reason": "dropped_label", "count": 6, "split": "a"},
                                        {"source": "eng_Latn", "reason": "dropped_label", "count": 3, "split": "b"},
                                        {"source": "eng_Latn", "reason": "empty", "count": 0}]}}),
        ("split", {"facts": {}}),
    ]
    rows = findings.drops(plan, records)
    assert list(rows[1]["labels"].items()) == [("geography", 5), ("arts", 2), ("science", 2)]  # most first
    assert rows == [
        {"stage": "adjudicate", "source": "sample", "reason": "tie", "count": 4, "in_dataset": False,
         "part": findings.SIDE},
        {"stage": "curate", "source": "eng_Latn", "reason": "dropped_label", "count": 9, "in_dataset": True,
         "labels": {"geography": 5, "arts": 2, "science": 2}},  # most first, then by name
    ]
    with pytest.raises(SchemaError) as err:
        findings.drops(plan, [("curate", {"facts": {"drops": [{"source": "x", "count": 1}]}})])
    assert err.value.file == os.path.join("stages", "curate", STAGE_JSON)


# -- the agreement stage's label x label matrix ---------------------------------------------------------------

def test_co_assignments_count_ordered_pairs_of_annotators_in_the_order_asked():
    from annotation.importer import from_judgements
    from schemas.records import Judgement

    # item 1: three annotators say A; item 2: one says A, one B. Ordered pairs of two annotators of one item:
    # A-A 3*2 = 6 (item 1), A-B and B-A 1 each (item 2), B-B none
    ann = from_judgements([Judgement("1", a, "A") for a in "xyz"]
                          + [Judgement("2", "x", "A"), Judgement("2", "y", "B")], labels=["A", "B"])
    assert steps.co_assignments(ann, ["A", "B"]) == [[6, 1], [1, 0]]
    assert steps.co_assignments(ann, ["B", "A"]) == [[0, 1], [1, 6]]   # the order asked, rows and columns
    assert steps.co_assignments(ann, ["A"]) == [[6]]                    # a subset
    assert steps.co_assignments(ann, ["A", "C"]) is None                # a label the ratings do not have
    assert json.dumps(steps.co_assignments(ann, ["A", "B"])) == "[[6, 1], [1, 0]]"  # whole numbers in release.json


def test_a_warning_of_a_variant_check_carries_the_records_its_variant_json_flagged(tmp_path):
    from builder.release.plan import Variant

    recipe = SimpleNamespace(name="demo", pretty_name=None, citation=None, pivot="eng_Latn")
    plan = Plan(root=tmp_path, recipe=recipe)
    plan.stages = [_stage(tmp_path, "extend-nqo_Nkoo", []), _stage(tmp_path, "qc", [])]
    folder = tmp_path / "stages" / "extend-nqo_Nkoo" / "output" / "nqo_Nkoo"
    folder.mkdir(parents=True)
    plan.variants["nqo_Nkoo"] = Variant("nqo_Nkoo", folder, "extend")
    (folder / "variant.json").write_text(json.dumps({"variant": "nqo_Nkoo", "checks": {
        "length_outliers": {"status": "warning", "items": [{"index_id": 556, "z": -3.84}]},
        "numbers": {"status": "passed", "items": [{"index_id": 1}]}}}), encoding="utf-8")
    plan.stages.append(_stage(tmp_path, "extend-yor_Latn", []))  # a variant folder without variant.json
    plan.variants["yor_Latn"] = Variant("yor_Latn", tmp_path / "stages" / "extend-yor_Latn" / "output" / "yor_Latn",
                                        "extend")
    records = [("extend-nqo_Nkoo", {"facts": {"warnings": ["length_outliers: 1 flagged\n (see variant.json)",
                                                          "numbers: fine"]}}),
               ("extend-yor_Latn", {"facts": {"warnings": ["length_outliers: 2 flagged"]}}),
               ("qc", {"facts": {"warnings": ["length_outliers: a qc note"]}})]
    assert findings.warnings(plan, records) == [
        {"stage": "extend-nqo_Nkoo", "variant": "nqo_Nkoo", "message": "length_outliers: 1 flagged (see variant.json)",
         "items": ["index_id 556 (z = -3.84)"]},
        {"stage": "extend-nqo_Nkoo", "variant": "nqo_Nkoo", "message": "numbers: fine", "items": []},  # not a warning
        {"stage": "extend-yor_Latn", "variant": "yor_Latn", "message": "length_outliers: 2 flagged", "items": []},
        {"stage": "qc", "variant": None, "message": "length_outliers: a qc note", "items": []},  # makes no variant
    ]


@pytest.mark.parametrize("item, text", [
    ({"index_id": 556, "z": -3.84}, "index_id 556 (z = -3.84)"),
    ({"ids": "3, 9", "line": 4, "score": 0.91, "z": 2.5}, "ids 3, 9, line 4 (z = 2.5, score = 0.91)"),
    ({"index_id": 7}, "index_id 7"),
    ({"score": 0.5}, "score = 0.5"),
    ({"z": 1.0, "score": 0.5}, "z = 1.0, score = 0.5"),
    ({}, ""),
    ("index_id 12", "index_id 12"),
    (12, "12"),
])
def test_a_flagged_record_reads_as_its_fields_then_its_scores(item, text):
    assert findings._item_text(item) == text


def test_the_extend_stage_records_its_inputs_by_name():
    from builder.release.plan import make_plan
    from builder.release.recipe import load_release_recipe

    with tempfile.TemporaryDirectory() as tmp:
        plan = make_plan(load_release_recipe(MINI), Path(tmp),
                         jobs=1, quiet=True)
    extend = next(st for st in plan.stages if st.name == "extend-nqo_Nkoo")
    assert sorted(extend.inputs) == ["parallel[0]", "parallel[1]", "source"]  # no translations nor config given
    assert extend.inputs["source"] == plan.variants["eng_Latn"].folder


def test_the_credit_a_recipe_gives_fills_only_what_a_variant_lacks():
    from builder.release.steps import _fill_credit

    new = _fill_credit(None, "hin_Deva", "topic", {"license": "CC-BY-4.0", "source_name": "SIB-200", "citation": None})
    assert new.to_dict() == {"variant": "hin_Deva", "kind": "topic", "source_name": "SIB-200",
                             "license": "CC-BY-4.0", "license_from": "release recipe"}
    # no license given: no license_from either
    assert _fill_credit(None, "yor_Latn", "mc", {"source_name": "Belebele"}).to_dict() == {
        "variant": "yor_Latn", "kind": "mc", "source_name": "Belebele"}
    declared = VariantInfo.from_dict({"variant": "hin_Latn", "kind": "topic", "license": "MIT",
                                      "method": "romanization"})
    assert _fill_credit(declared, "hin_Latn", "topic", {"license": "CC-BY-4.0", "citation": "C."}).to_dict() == {
        "variant": "hin_Latn", "kind": "topic", "license": "MIT", "method": "romanization", "citation": "C."}


def test_a_variant_copied_into_the_release_keeps_its_splits_and_records_how_it_was_made(tmp_path):
    import pandas as pd

    from builder.release.steps import _copy_variant

    src = tmp_path / "assembled"
    src.mkdir()
    for split in ("train", "dev"):
        pd.DataFrame({"question": ["Q?"]}).to_parquet(src / f"{split}.parquet")
        (src / f"{split}.tsv").write_text("question\nQ?\n", encoding="utf-8")
    (src / "test.jsonl").write_text('{"question": "Q?"}\n', encoding="utf-8")  # no Parquet file of its own
    out = tmp_path / "deep" / "er" / "eng_Latn"  # its parents are made too
    _copy_variant(src, out, "eng_Latn", "mc", {"license": "MIT"}, assembled=True, method="assembly")
    assert sorted(p.name for p in out.iterdir()) == ["dev.parquet", "train.parquet", "variant.json"]
    info = json.loads((out / "variant.json").read_text(encoding="utf-8"))
    assert (info["method"], info["kind"], info["license"]) == ("assembly", "mc", "MIT")
    # a variant folder (not assembled): TSV first; no method given keeps the one variant.json declares
    VariantInfo.from_dict({"variant": "hin_Latn", "kind": "topic", "method": "romanization"}).write(src)
    _copy_variant(src, tmp_path / "v" / "hin_Latn", "hin_Latn", "topic", {})
    got = tmp_path / "v" / "hin_Latn"
    assert sorted(p.name for p in got.iterdir()) == ["dev.tsv", "test.jsonl", "train.tsv", "variant.json"]
    assert json.loads((got / "variant.json").read_text(encoding="utf-8"))["method"] == "romanization"


def test_a_stage_records_its_tasks_drops_and_warnings_and_passes_its_lines_to_the_reporter():
    from builder.release.plan import _facts

    said = []
    result = SimpleNamespace(lines=["wrote x"], notes=["note: y"], warnings=["w"],
                             drops=[DropRow(source="eng_Latn", reason="empty", count=2, split="train")])
    facts = _facts(SimpleNamespace(info=said.append), result, matrix=[[1]])
    assert said == ["wrote x", "note: y"]
    assert facts == {"drops": [{"source": "eng_Latn", "reason": "empty", "count": 2, "split": "train"}],
                     "warnings": ["w"], "matrix": [[1]]}


def test_the_extend_stage_passes_every_option_of_its_entry_to_the_task(tmp_path, monkeypatch):
    """The stage names each input and option of its recipe entry, and its task gets each of them (in
    process: the whole-release tests run the task in a subprocess, where a dropped option goes unseen
    when the mini recipe does not set it)."""
    import dataclasses

    from builder.release.plan import make_plan
    from builder.release.recipe import load_release_recipe
    from builder.tasks import variants as t
    from builder.tasks.base import TaskResult
    from schemas.runtime.provenance import recorded_path

    recipe = load_release_recipe(MINI)
    entry = recipe.variants[1]
    given = dict(translations=tmp_path / "translations.jsonl", config=tmp_path / "checks.yaml",
                 expected_lines=(997, 1012), license="CC-BY-4.0")
    recipe = dataclasses.replace(recipe, variants=(recipe.variants[0], dataclasses.replace(entry, **given),
                                                   *recipe.variants[2:]))
    plan = make_plan(recipe, tmp_path / "rel", jobs=1, quiet=True)
    extend = next(st for st in plan.stages if st.name == "extend-nqo_Nkoo")
    assert sorted(extend.inputs) == ["config", "parallel[0]", "parallel[1]", "source", "translations"]
    assert extend.inputs["translations"] == given["translations"] and extend.inputs["config"] == given["config"]
    assert extend.options == {"variant": "nqo_Nkoo", "expected_lines": [997, 1012], "license": "CC-BY-4.0"}
    made = plan.variants["nqo_Nkoo"]
    assert made.folder == extend.output / "nqo_Nkoo" and made.kind == plan.variants["eng_Latn"].kind
    assert made.origin == "projected from eng_Latn"

    seen = {}

    def run_extend(options, report):
        seen["options"], seen["report"] = options, report
        seen["recorded"] = recorded_path(recipe.file.parent / "x.tsv"), recorded_path(tmp_path / "rel" / "y")
        return TaskResult(lines=["extended"], drops=[], warnings=[])

    monkeypatch.setattr(t, "run_extend", run_extend)
    out = tmp_path / "rel" / "stages" / "extend-nqo_Nkoo" / "output"
    facts = extend.action(out)
    assert seen["options"] == t.ExtendOptions(source=plan.variants["eng_Latn"].folder, variant="nqo_Nkoo", out=out,
                                               parallel=entry.parallel, **given)
    assert seen["report"] is not None and seen["recorded"] == ("x.tsv", "y")
    assert facts == {"drops": [], "warnings": []}


def test_a_variant_kind_is_carried_by_the_extend_stage(tmp_path):
    """A multiple-choice variant projected stays multiple-choice (the plan asks its base's kind)."""
    from builder.release.plan import Variant, _extend
    from builder.release.recipe import ExtendEntry

    plan = Plan(root=tmp_path, recipe=SimpleNamespace(file=tmp_path / "r.yaml", license=None), quiet=True)
    plan.variants["eng_Latn"] = Variant("eng_Latn", tmp_path / "eng", "dataset", kind="mc")
    _extend(plan, ExtendEntry(index=1, variant="fra_Latn", source="eng_Latn", translations=tmp_path / "t.jsonl"))
    assert plan.variants["fra_Latn"].kind == "mc"


def test_the_agreement_stage_runs_in_process_and_leaves_its_skips_to_the_adjudication(tmp_path, capsys):
    """Its inputs and options by name, and what it records: the label x label counts of ordered pairs of
    annotators (labels.txt's order) and no drops, since the adjudication stage reads the same ratings and
    counts their skips once (here two cancelled Label Studio ratings)."""
    import dataclasses

    from builder.release.plan import make_plan
    from builder.release.recipe import load_release_recipe

    tasks = json.loads((DATA / "annotation" / "ls_export.json").read_text(encoding="utf-8"))[:3]
    tasks[0]["annotations"][2]["was_cancelled"] = True
    (tmp_path / "judgements.json").write_text(json.dumps(tasks), encoding="utf-8")
    recipe = load_release_recipe(MINI)
    entry = dataclasses.replace(recipe.variants[0], judgements=tmp_path / "judgements.json", labelled=None)
    recipe = dataclasses.replace(recipe, variants=(entry, *recipe.variants[1:]))
    plan = make_plan(recipe, tmp_path / "rel", jobs=1)
    agreement = next(st for st in plan.stages if st.name == "agreement-eng_Latn")
    assert agreement.inputs == {"judgements": tmp_path / "judgements.json", "labels": entry.labels}
    assert agreement.options == {"format": "auto"}

    labels = entry.labels.read_text(encoding="utf-8").split()
    expected = [[0] * len(labels) for _ in labels]
    for task in tasks:
        said = [a["result"][0]["value"]["choices"][0] for a in task["annotations"] if not a["was_cancelled"]]
        for i, first in enumerate(said):
            for j, second in enumerate(said):
                if i != j:
                    expected[labels.index(first)][labels.index(second)] += 1
    assert sum(map(sum, expected)) > 0
    facts = agreement.action(tmp_path / "rel" / "stages" / agreement.name / "output")
    assert facts == {"drops": [], "warnings": [], "matrix": expected}
    assert "skipped 2 (cancelled)" in capsys.readouterr().err  # the task reports to the release's reporter
    adjudicate = next(st for st in plan.stages if st.name == "adjudicate-eng_Latn")
    skipped = adjudicate.action(tmp_path / "rel" / "stages" / adjudicate.name / "output")["drops"]
    assert [(d["source"], d["reason"], d["count"]) for d in skipped] == [
        ("adjudication", "cancelled", 2), ("adjudication", "unresolved", 1)]  # 1066 had one cancelled already


def test_an_annotation_entry_names_each_stage_and_passes_its_options_to_each_task(tmp_path, monkeypatch):
    """agreement, adjudication, curation, split and the variant folder: each stage's inputs and options by
    name, and each task's options in full (the tasks replaced, run in process), policy, format, ratios and
    seed other than the defaults."""
    import dataclasses

    from builder.release.plan import make_plan
    from builder.release.recipe import load_release_recipe
    from builder.tasks import annotate as t
    from builder.tasks.base import TaskResult

    from builder.release import steps

    recipe = load_release_recipe(MINI)
    given = make_plan(recipe, tmp_path / "given", jobs=1, quiet=True)  # labelled items given: curated as they are
    assert next(st for st in given.stages if st.name == "curate-eng_Latn").inputs["labelled"] == \
        recipe.variants[0].labelled
    entry = dataclasses.replace(recipe.variants[0], labelled=None, format="long", policy="majority",
                                ratios=(0.6, 0.2, 0.2), seed=7)
    recipe = dataclasses.replace(recipe, variants=(entry, *recipe.variants[1:]))
    folders = []

    def variant_folder(*args, **kwargs):
        folders.append((args, kwargs))
        return variant_folder

    monkeypatch.setattr(steps, "variant_folder", variant_folder)
    plan = make_plan(recipe, tmp_path / "rel", jobs=1, quiet=True)
    stage = {st.name: st for st in plan.stages}
    judged = {"judgements": entry.judgements, "labels": entry.labels}
    adjudicate, curate, split = stage["adjudicate-eng_Latn"], stage["curate-eng_Latn"], stage["split-eng_Latn"]
    assert (stage["agreement-eng_Latn"].inputs, stage["agreement-eng_Latn"].options) == (judged, {"format": "long"})
    assert (adjudicate.inputs, adjudicate.options) == (judged, {"format": "long", "policy": "majority"})
    decisions = adjudicate.output / "decisions.csv"
    assert (curate.inputs, curate.options) == ({"labelled": decisions, "curation": entry.curation}, {})
    assert (split.inputs, split.options) == ({"curated": curate.output / "curated.tsv"}, {"ratios": "0.6,0.2,0.2",
                                                                                          "seed": 7})
    variant = stage["variant-eng_Latn"]
    assert variant.inputs == {"split": split.output}
    assert variant.options == {"variant": "eng_Latn", "license": "CC-BY-SA-4.0", "source_name": "SIB-200",
                               "citation": "Adelani et al. (2024), SIB-200."}
    assert plan.variants["eng_Latn"].folder == variant.output / "eng_Latn"
    assert plan.variants["eng_Latn"].origin == "annotation (curated and split)"
    credit = {k: variant.options[k] for k in ("license", "source_name", "citation")}
    assert variant.action is variant_folder and folders == [((split.output, "eng_Latn", credit),
                                                             {"method": "annotation"})]

    seen = []

    def task(name):
        def run(options, report):
            assert report is not None
            seen.append((name, options))
            return TaskResult(lines=[f"{name} done"], drops=[], warnings=[])  # the lines go to the reporter
        return run

    for name in ("run_adjudicate", "run_curate", "run_split"):
        monkeypatch.setattr(t, name, task(name))
    for st in (adjudicate, curate, split):
        assert st.action(st.output) == {"drops": [], "warnings": []}
    assert seen == [
        ("run_adjudicate", t.AdjudicateOptions(annotations=entry.judgements, labels=entry.labels, format="long",
                                               out=adjudicate.output, policy="majority")),
        ("run_curate", t.CurateOptions(labelled=decisions, recipe=entry.curation, out=curate.output)),
        ("run_split", t.SplitOptions(labelled=curate.output / "curated.tsv", ratios=(0.6, 0.2, 0.2), seed=7,
                                     out=split.output))]


def _mini_plan_with_every_stage(tmp_path, monkeypatch, quiet=True, **recipe_changes):
    """The mini recipe's plan with a model run, a qc config and baselines options other than the defaults, every
    step factory of :mod:`builder.release.steps` replaced by one that records its arguments."""
    import dataclasses

    from builder.release import steps
    from builder.release.plan import make_plan
    from builder.release.recipe import load_release_recipe
    from builder.tasks.evaluate import LmSettings

    made = {}

    def factory(name):
        def make(*args, **kwargs):
            made[name] = (args, kwargs)
            return made  # any callable stands for the stage's action
        return make

    for name in ("collect", "license_audit", "export", "align_to_pivot", "lm_eval", "disparity"):
        monkeypatch.setattr(steps, name, factory(name))
    recipe = load_release_recipe(MINI)
    changes = {"lm_eval": LmSettings(model=tmp_path / "model.gguf", tasks=("hin_Deva",), limit=5, batch_size=2,
                                     seed=3, num_fewshot=1),
               "baselines": dataclasses.replace(recipe.baselines, names=("char_linear", "majority"), split="dev",
                                                seed=4, ngram_unit="word", mlp_max_iter=50),
               "qc": dataclasses.replace(recipe.qc, config=tmp_path / "qc.yaml")}
    recipe = dataclasses.replace(recipe, **{**changes, **recipe_changes})
    plan = make_plan(recipe, tmp_path / "rel", jobs=3, quiet=quiet, backend="ray", address="auto",
                     allow_failing_gate=True)
    return plan, made


def test_the_plan_names_every_stage_after_the_variants_with_its_inputs_and_options(tmp_path, monkeypatch):
    plan, made = _mini_plan_with_every_stage(tmp_path, monkeypatch)
    rel, r = tmp_path / "rel", plan.recipe
    out = {name: rel / "stages" / name / "output" for name in ("dataset", "qc", "baselines", "lm_eval")}
    variants = {"eng_Latn": out["dataset"].parent.parent / "variant-eng_Latn" / "output" / "eng_Latn",
                "hin_Deva": rel / "stages" / "align-hin_Deva" / "output" / "hin_Deva",
                "nqo_Nkoo": rel / "stages" / "extend-nqo_Nkoo" / "output" / "nqo_Nkoo"}
    credit = {"license": "CC-BY-SA-4.0", "source_name": "SIB-200", "citation": "Adelani et al. (2024), SIB-200."}
    named = {"name": "mini-release", "pretty_name": "Mini release", "license": "CC-BY-SA-4.0"}
    models = out["lm_eval"] / "results" / "results.json"
    reports = {"agreement": rel / "stages" / "agreement-eng_Latn" / "output" / "agreement.json",
               "qc": out["qc"] / "qc_report.json", "baselines": out["baselines"] / "results.json", "models": models}
    after = [(st.name, st.inputs, st.options, st.describe) for st in plan.stages][7:]
    assert after == [
        ("dataset", {f"variant:{c}": p for c, p in variants.items()}, {"variants": list(variants), **credit},
         "dataset"),
        ("qc", {"dataset": out["dataset"], "config": tmp_path / "qc.yaml"}, {"pivot": "eng_Latn"},
         "qc (the release gate)"),
        ("licenses", {"dataset": out["dataset"]}, {"license": "CC-BY-SA-4.0"}, "licenses"),
        ("baselines", {"dataset": out["dataset"]}, {"names": ["char_linear", "majority"], "split": "dev", "seed": 4,
                                                     "ngram_unit": "word", "mlp_max_iter": 50}, "baselines"),
        ("lm_eval", {"dataset": out["dataset"], "model": tmp_path / "model.gguf"},
         {**named, "tasks": ["hin_Deva"], "limit": 5, "batch_size": 2, "device": "cpu", "seed": 3, "num_fewshot": 1},
         "lm_eval (model.gguf)"),
        ("disparity", {"lm": models, "baselines": out["baselines"] / "results.json"}, {}, "disparity"),
        ("export", {"dataset": out["dataset"], **{f"report:{k}": p for k, p in reports.items()}},
         {**named, "lm_eval": True, "citation": credit["citation"], "qc": True, "allow_failing_gate": True},
         "export")]
    assert plan.export == rel / "export" and plan.stages[-1].output == rel / "export"
    # only the stages that read the pivot alone run together (extend, align)
    assert [st.name for st in plan.stages if st.parallel] == ["extend-nqo_Nkoo", "align-hin_Deva"]
    assert plan.dataset == out["dataset"] and plan.qc is plan.stages[8] and plan.kind == "topic"
    where = {"jobs": 3, "backend": "ray", "address": "auto"}
    assert plan.where == where
    assert made["collect"] == (({c: (p, False) for c, p in variants.items()}, credit), {})
    assert made["license_audit"] == ((out["dataset"], "CC-BY-SA-4.0"), {})
    hin = DATA / "sib200" / "annotated" / "hin_Deva"
    assert made["align_to_pivot"] == ((variants["eng_Latn"], hin, "hin_Deva"), {})
    (dataset, settings, options, lm_where, reporter), _ = made["lm_eval"]
    assert (dataset, settings, options, lm_where) == (out["dataset"], r.lm_eval, named, where) and reporter is not None
    (records, reporter), _ = made["disparity"]
    assert records == {"lm": models, "baselines": out["baselines"] / "results.json"} and reporter is not None
    (dataset, given, options, export_where, reporter), _ = made["export"]
    assert (dataset, given, export_where) == (out["dataset"], reports, where) and reporter is not None
    assert options == {**named, "lm_eval": True, "citation": credit["citation"], "qc": True,
                       "allow_failing_gate": True}


def test_the_gate_and_the_baselines_pass_the_recipe_and_where_they_run_to_their_tasks(tmp_path, monkeypatch,
                                                                                       capsys):
    from builder.tasks import evaluate, qc
    from builder.tasks.base import TaskResult
    from schemas.runtime.provenance import recorded_path

    plan, _ = _mini_plan_with_every_stage(tmp_path, monkeypatch, quiet=False)
    stage = {st.name: st for st in plan.stages}
    seen = {}

    def run_qc(options, report):
        assert report is not None
        seen["qc"] = options
        return SimpleNamespace(lines=["qc: 3 variants"], warnings=["hin_Deva: near duplicates"], passed=1)

    def run_baselines(options, report):
        assert report is not None
        seen["baselines"] = options
        seen["recorded"] = recorded_path(tmp_path / "rel" / "x"), recorded_path(plan.recipe_dir / "y")
        return TaskResult(lines=["baselines done"], drops=[], warnings=["a warning"])

    monkeypatch.setattr(qc, "run_qc", run_qc)
    monkeypatch.setattr(evaluate, "run_baselines", run_baselines)
    where = {"jobs": 3, "backend": "ray", "address": "auto"}
    gate = stage["qc"].action(stage["qc"].output)
    assert gate == {"passed": True, "warnings": ["hin_Deva: near duplicates"]}
    assert seen["qc"] == qc.QCOptions(dataset=plan.dataset, config=tmp_path / "qc.yaml", out=stage["qc"].output,
                                      junit=stage["qc"].output / "junit.xml", pivot="eng_Latn", **where)
    err = capsys.readouterr().err
    assert "warning: hin_Deva: near duplicates" in err and "qc: 3 variants" in err
    facts = stage["baselines"].action(stage["baselines"].output)
    assert facts == {"drops": [], "warnings": ["a warning"]}
    assert seen["baselines"] == evaluate.BaselinesOptions(
        dataset=plan.dataset, out=stage["baselines"].output, baselines=("char_linear", "majority"), split="dev",
        seed=4, ngram_unit="word", mlp_max_iter=50, **where)
    assert seen["recorded"] == ("x", "y")


def test_a_recipe_without_gate_baselines_or_model_plans_none_of_them_and_says_so(tmp_path, monkeypatch, capsys):
    from builder.release.plan import BASELINES_NOT_RUN, make_plan

    plan, made = _mini_plan_with_every_stage(tmp_path, monkeypatch, lm_eval=None, baselines=None,
                                             qc=SimpleNamespace(enabled=False, config=None))
    assert capsys.readouterr().err == ""  # quiet
    assert [st.name for st in plan.stages][7:] == ["dataset", "licenses", "export"]
    assert plan.qc is None and plan.not_run == {"baselines": BASELINES_NOT_RUN}
    dataset = tmp_path / "rel" / "stages" / "dataset" / "output"
    agreement = tmp_path / "rel" / "stages" / "agreement-eng_Latn" / "output" / "agreement.json"
    assert plan.stages[-1].inputs == {"dataset": dataset, "report:agreement": agreement}
    assert made["export"][0][1] == {"agreement": agreement, "qc": None, "baselines": None, "models": None}
    assert plan.stages[-1].options["qc"] is False
    make_plan(plan.recipe, tmp_path / "loud", jobs=1)
    assert capsys.readouterr().err == f"release: baselines: {BASELINES_NOT_RUN}\n"


@pytest.mark.parametrize("kind, names, split", [("topic", ["majority", "char_linear"], "test"),
                                                ("mc", ["chance", "sliding_window", "bow_lr"], "dev")])
def test_baselines_named_by_no_one_are_the_defaults_of_the_kind_on_its_split(tmp_path, kind, names, split):
    from builder.release.plan import _baselines
    from builder.release.recipe import BaselineSettings

    plan = Plan(root=tmp_path, recipe=SimpleNamespace(baselines=BaselineSettings(), file=tmp_path / "r.yaml"),
                kind=kind, dataset=tmp_path / "dataset", quiet=True)
    _baselines(plan)
    [st] = plan.stages
    assert (st.name, st.inputs) == ("baselines", {"dataset": tmp_path / "dataset"})
    assert st.options == {"names": names, "split": split, "seed": 0, "ngram_unit": None, "mlp_max_iter": None}


def test_one_assembled_variant_is_the_dataset_folder_itself(tmp_path):
    from builder.release.plan import Variant, _dataset

    plan = Plan(root=tmp_path, recipe=SimpleNamespace(license=None, source_name=None, citation=None))
    plan.variants["eng_Latn"] = Variant("eng_Latn", tmp_path / "assembled", "assembled (bench)", assembled=True,
                                        kind="mc")
    _dataset(plan)
    assert plan.dataset == tmp_path / "assembled" and plan.stages == []
    one = Plan(root=tmp_path, recipe=SimpleNamespace(license=None, source_name=None, citation=None))
    one.variants["eng_Latn"] = Variant("eng_Latn", tmp_path / "eng_Latn", "dataset folder eng_Latn")
    _dataset(one)  # one variant folder, not assembled: still collected into a dataset folder
    assert [st.name for st in one.stages] == ["dataset"] and one.dataset == one.stages[0].output


def test_an_export_without_agreement_gate_baselines_or_model_reads_the_dataset_alone(tmp_path, monkeypatch):
    from builder.release import steps
    from builder.release.plan import _export

    monkeypatch.setattr(steps, "export", lambda *args: args)
    recipe = SimpleNamespace(name="r", pretty_name=None, citation=None, export_license="MIT", baselines=None,
                             lm_eval=None, export=SimpleNamespace(lm_eval=False), qc=SimpleNamespace(enabled=False))
    plan = Plan(root=tmp_path, recipe=recipe, dataset=tmp_path / "dataset")
    _export(plan, False)
    [st] = plan.stages
    assert st.inputs == {"dataset": tmp_path / "dataset"} and st.output == tmp_path / "export"
    assert st.action[1] == {"agreement": None, "qc": None, "baselines": None, "models": None}


def test_a_model_run_without_baselines_compares_the_model_alone(tmp_path, monkeypatch):
    plan, made = _mini_plan_with_every_stage(tmp_path, monkeypatch, baselines=None)
    models = tmp_path / "rel" / "stages" / "lm_eval" / "output" / "results" / "results.json"
    disparity = next(st for st in plan.stages if st.name == "disparity")
    assert disparity.inputs == {"lm": models}
    assert made["disparity"][0][0] == {"lm": models, "baselines": None}


def _dataset_plan(tmp_path):
    from builder.release.plan import Variant

    plan = Plan(root=tmp_path / "rel", recipe=SimpleNamespace(file=tmp_path / "r.yaml", pivot="eng_Latn"))
    plan.variants["eng_Latn"] = Variant("eng_Latn", tmp_path / "pivot", "annotation (curated and split)")
    return plan


def test_a_dataset_entry_adds_each_folder_or_only_those_named(tmp_path):
    from builder.release.plan import _dataset_source
    from builder.release.recipe import DatasetEntry
    from schemas.errors import RecipeError

    annotated = DATA / "sib200" / "annotated"
    plan = _dataset_plan(tmp_path)
    _dataset_source(plan, DatasetEntry(index=1, path=annotated, only=("hin_Deva", "kas_Arab")))
    assert plan.stages == [] and list(plan.variants) == ["eng_Latn", "hin_Deva", "kas_Arab"]
    hin = plan.variants["hin_Deva"]
    assert (hin.folder, hin.origin, hin.kind, hin.assembled) == (annotated / "hin_Deva", "dataset folder hin_Deva",
                                                                  "topic", False)
    every = Plan(root=tmp_path / "rel", recipe=SimpleNamespace(file=tmp_path / "r.yaml", pivot="eng_Latn"))
    _dataset_source(every, DatasetEntry(index=0, path=annotated))
    assert sorted(every.variants) == sorted(p.name for p in annotated.iterdir() if p.is_dir())
    with pytest.raises(RecipeError) as err:
        _dataset_source(_dataset_plan(tmp_path), DatasetEntry(index=2, path=annotated, only=("hin_Deva", "xho_Latn")))
    assert (err.value.file, err.value.field) == (str(tmp_path / "r.yaml"), "variants[2].dataset.only")
    assert err.value.message.startswith(f"{annotated} holds no variant xho_Latn (it holds: amh_Ethi, arb_Arab, ")
    (tmp_path / "empty").mkdir()
    with pytest.raises(RecipeError) as err:
        _dataset_source(_dataset_plan(tmp_path), DatasetEntry(index=2, path=tmp_path / "empty", only=("hin_Deva",)))
    assert err.value.message == f"{tmp_path / 'empty'} holds no variant hin_Deva (it holds: none)"


def test_a_dataset_entry_aligned_to_the_pivot_is_one_stage_per_variant(tmp_path, monkeypatch):
    from builder.release import steps
    from builder.release.plan import _dataset_source
    from builder.release.recipe import DatasetEntry
    from schemas.errors import RecipeError

    monkeypatch.setattr(steps, "align_to_pivot", lambda *args: args)
    annotated = DATA / "sib200" / "annotated"
    plan = _dataset_plan(tmp_path)
    _dataset_source(plan, DatasetEntry(index=1, path=annotated, only=("hin_Deva", "npi_Deva"), align="pivot"))
    assert [(st.name, st.inputs, st.options, st.parallel, st.action) for st in plan.stages] == [
        (f"align-{c}", {"pivot": tmp_path / "pivot", "variant": annotated / c}, {"variant": c}, True,
         (tmp_path / "pivot", annotated / c, c)) for c in ("hin_Deva", "npi_Deva")]
    npi = plan.variants["npi_Deva"]
    assert (npi.folder, npi.origin, npi.kind) == (plan.stages[1].output / "npi_Deva", "aligned to eng_Latn (npi_Deva)",
                                                  "topic")
    with pytest.raises(RecipeError) as err:  # the pivot made by no earlier entry
        _dataset_source(Plan(root=tmp_path, recipe=plan.recipe), DatasetEntry(index=0, path=annotated,
                                                                              only=("hin_Deva",), align="pivot"))
    assert err.value.field == "variants[0].dataset.align"


def test_a_dataset_entry_keeps_each_folders_kind_and_refuses_a_variant_made_before(tmp_path, monkeypatch):
    from builder.release import steps
    from builder.release.plan import _dataset_source
    from builder.release.recipe import DatasetEntry
    from schemas.errors import RecipeError

    monkeypatch.setattr(steps, "align_to_pivot", lambda *args: args)
    mc = DATA / "qc" / "pivot"  # multiple-choice variant folders
    plan = _dataset_plan(tmp_path)
    _dataset_source(plan, DatasetEntry(index=1, path=mc, only=("fra_Latn",)))
    _dataset_source(plan, DatasetEntry(index=2, path=mc, only=("hin_Deva",), align="pivot"))
    assert (plan.variants["fra_Latn"].kind, plan.variants["hin_Deva"].kind) == ("mc", "mc")
    with pytest.raises(RecipeError) as err:
        _dataset_source(plan, DatasetEntry(index=3, path=mc, only=("eng_Latn",)))
    assert (err.value.message, err.value.file, err.value.field) == (
        "variant eng_Latn is made twice (first by annotation (curated and split))", str(tmp_path / "r.yaml"),
        "variants[3].dataset")


def test_one_assembly_recipe_twice_is_refused_as_a_variant_made_twice_before_its_stage_is_named(tmp_path):
    """The second entry is refused for its variant, naming its key, not by the stage-name guard below."""
    from builder.release.plan import _assemble
    from builder.release.recipe import AssembleEntry
    from schemas.errors import RecipeError

    recipe = DATA.parent.parent / "examples" / "belebele-train.yaml"
    plan = Plan(root=tmp_path / "rel", recipe=SimpleNamespace(file=tmp_path / "r.yaml"))
    _assemble(plan, AssembleEntry(index=0, recipe=recipe))
    with pytest.raises(RecipeError) as err:
        _assemble(plan, AssembleEntry(index=1, recipe=recipe, seed=3))
    assert (err.value.message, err.value.file, err.value.field) == (
        "variant eng_Latn is made twice (first by assembled (belebele-train))", str(tmp_path / "r.yaml"),
        "variants[1].assemble")
    assert [st.name for st in plan.stages] == ["assemble-belebele-train"]


def test_two_stages_of_one_name_are_refused_naming_the_recipe(tmp_path):
    """The guard behind the variant checks: two assemblies of recipes with one name would share a stage."""
    from schemas.errors import RecipeError

    plan = Plan(root=tmp_path, recipe=SimpleNamespace(file=tmp_path / "r.yaml"))
    plan.stage("assemble-bench", {}, {}, print)
    with pytest.raises(RecipeError) as err:
        plan.stage("assemble-bench", {}, {}, print)
    assert (err.value.message, err.value.file) == (
        "two stages would be named 'assemble-bench': a variant is made twice", str(tmp_path / "r.yaml"))


def test_make_plan_runs_here_by_default_and_refuses_two_kinds_of_data(tmp_path):
    import dataclasses

    from builder.release.plan import make_plan
    from builder.release.recipe import DatasetEntry, load_release_recipe
    from schemas.errors import RecipeError

    recipe = load_release_recipe(MINI)
    plan = make_plan(recipe, tmp_path / "rel", jobs=1, quiet=True)
    assert plan.where == {"jobs": 1, "backend": "local", "address": None}
    assert plan.stages[-1].options["allow_failing_gate"] is False
    mixed = dataclasses.replace(recipe, variants=(
        DatasetEntry(index=0, path=DATA / "sib200" / "annotated", only=("eng_Latn",)),
        DatasetEntry(index=1, path=DATA / "qc" / "pivot", only=("fra_Latn",))))
    with pytest.raises(RecipeError) as err:
        make_plan(mixed, tmp_path / "mixed", jobs=1, quiet=True)
    assert (err.value.message, err.value.file, err.value.field) == (
        "a release holds one kind of data; these entries make both topic and multiple-choice variants",
        str(recipe.file), "variants")
    no_pivot = dataclasses.replace(recipe, pivot="fra_Latn", variants=recipe.variants[:2])
    with pytest.raises(RecipeError) as err:
        make_plan(no_pivot, tmp_path / "no-pivot", jobs=1, quiet=True)
    assert (err.value.message, err.value.file, err.value.field) == (
        "the pivot fra_Latn is not made by any entry (made: eng_Latn, nqo_Nkoo)", str(recipe.file), "pivot")


def test_a_variant_is_derived_by_its_variant_json_first_then_by_how_the_release_made_it(tmp_path):
    """release.json's ``derived`` of each variant: what its ``variant.json`` says (aligned to the pivot; a method
    and another variant as its source), else the stage that made it (``romanized from``, ``projected from``,
    ``aligned to``); nothing for an assembled variant, a variant as found, or none at all."""
    from builder.release.plan import Variant
    from builder.release.summary import _derived

    def folder(name: str, info) -> Path:
        path = tmp_path / name
        path.mkdir()
        (path / "variant.json").write_text(info if isinstance(info, str) else json.dumps(info), encoding="utf-8")
        return path

    romanized = {"method": "romanization", "source_variant": "hin_Deva"}
    assert _derived("hin_Latn", None, "eng_Latn") is None
    assert _derived("hin_Latn", Variant("hin_Latn", folder("asm", romanized), "assembled", assembled=True),
                    "eng_Latn") is None
    found = Variant("hin_Latn", folder("found", romanized), "dataset d")
    assert _derived("hin_Latn", found, "eng_Latn") == {"method": "romanization", "from": "hin_Deva"}
    aligned = Variant("npi_Deva", folder("aligned", {"aligned": {"dropped": 1}}), "dataset d")
    assert _derived("npi_Deva", aligned, "eng_Latn") == {"method": "alignment", "from": "eng_Latn"}
    own = Variant("hin_Latn", folder("own", {"method": "romanization", "source_variant": "hin_Latn"}),
                  "romanized from hin_Deva (uroman)")
    assert _derived("hin_Latn", own, "eng_Latn") == {"method": "romanization", "from": "hin_Deva"}
    made = Variant("fra_Latn", tmp_path / "not-yet", "projected from eng_Latn (2 rows)")
    assert _derived("fra_Latn", made, "eng_Latn") == {"method": "projection", "from": "eng_Latn"}
    broken = Variant("hin_Latn", folder("broken", "[]"), "dataset d")  # a variant.json that is no object
    assert _derived("hin_Latn", broken, "eng_Latn") is None


# -- outputs set aside: stages the plan no longer has (in process; the release tests run it as a subprocess) -----

def test_a_stage_folder_the_plan_no_longer_has_is_set_aside_whole_and_hidden_names_are_left(tmp_path):
    from builder.release.pipeline import RunResult, set_aside
    from builder.release.superseded import NOT_PLANNED

    plan = _plan(tmp_path, {"qc": []})  # a plan without an export stage
    old = tmp_path / "stages" / "baselines"
    (old / "output").mkdir(parents=True)
    (old / "output" / "results.json").write_text("{}", encoding="utf-8")
    (old / STAGE_JSON).write_text(json.dumps({"options": {"name": "demo"}}), encoding="utf-8")
    kept = tmp_path / "stages" / "notes"  # not a stage's: a file someone put there stays with its folder
    (kept / "output").mkdir(parents=True)
    (kept / "README.txt").write_text("mine", encoding="utf-8")
    hidden = tmp_path / "stages" / f".baselines.{os.getpid()}.0123abcd.staging"  # a live run's temporary name
    hidden.mkdir()
    said: list[str] = []
    set_aside(plan, RunResult(stages=[("qc", "ran", 0.0)]), said.append)
    assert not old.exists() and hidden.is_dir() and (tmp_path / "stages" / "qc" / STAGE_JSON).is_file()
    moved = tmp_path / "superseded" / "baselines"
    assert sorted(p.name for p in moved.iterdir()) == ["output", STAGE_JSON, "superseded.json"]
    assert json.loads((moved / "superseded.json").read_text(encoding="utf-8"))["reason"] == NOT_PLANNED
    assert (kept / "README.txt").is_file() and not (kept / "output").exists()
    assert sorted(p.name for p in (tmp_path / "superseded").iterdir()) == ["baselines", "notes"]
    assert len(said) == 2


def test_setting_aside_in_a_release_folder_without_stages_does_nothing(tmp_path):
    from builder.release.pipeline import RunResult, set_aside

    plan = Plan(root=tmp_path / "rel", recipe=SimpleNamespace(name="demo"))
    (tmp_path / "rel").mkdir()
    set_aside(plan, RunResult(), print)
    assert list((tmp_path / "rel").iterdir()) == []


# -- the summary's agreement section, and the stages it reads --------------------------------------------------

_MEASURES = {"fleiss_kappa": 0.61, "krippendorff_alpha": 0.6, "mean_cohen_kappa": 0.58, "gwet_ac1": 0.66,
             "percent_agreement": 0.875}


def _agreement_plan(root: Path, *, sample: bool, more: tuple[str, ...] = ()) -> Plan:
    """An agreement, a dataset, a license audit and a baselines stage, and the stages named in ``more``."""
    plan = _plan(root, {name: [] for name in ("agreement-eng_Latn", "dataset", "licenses", "baselines", *more)})
    plan.agreement = plan.stages[0]
    plan.agreement.inputs["judgements"] = root / "labels" / "judged.tsv"
    (root / "stages" / "agreement-eng_Latn" / STAGE_JSON).write_text(
        json.dumps({"facts": {"drops": [], "matrix": [[3, 1], [0, 4]]}}), encoding="utf-8")
    out = plan.agreement.output
    out.mkdir(parents=True)
    (out / "agreement.json").write_text(json.dumps(
        {"labels": ["sports", "travel"], "n_annotators": 3, "n_items": 8, **_MEASURES,
         "per_label": {"sports": 0.5}}), encoding="utf-8")
    if sample:  # the dataset is the dataset stage's output, which reads nothing the agreement stage wrote
        plan.dataset = plan.stages[1].output
    # the released rows, as the license audit counts them, and a baseline's score
    licenses = plan.stages[2].output
    licenses.mkdir(parents=True)
    (licenses / "licenses.json").write_text(json.dumps(
        [{"variant": "eng_Latn", "split": split, "records": n, "terms": "CC-BY-SA-4.0", "commercial_use": True}
         for split, n in (("train", 70), ("test", 30))]), encoding="utf-8")
    baselines = plan.stages[3].output
    baselines.mkdir(parents=True)
    (baselines / "results.json").write_text(json.dumps({"results": [
        {"variant": "eng_Latn", "baseline": "majority", "accuracy": 0.25, "ci_low": 0.12, "ci_high": 0.43, "n": 30,
         "split": "test"}]}), encoding="utf-8")
    return plan


@pytest.mark.parametrize("sample", [True, False])
def test_the_summary_names_the_agreement_measures_and_what_they_were_measured_on(tmp_path, sample):
    plan = _agreement_plan(tmp_path, sample=sample)
    summary = build_summary(plan, gate_failing_allowed=False, stopped_at_gate=False,
                            current={"agreement-eng_Latn", "dataset", "licenses", "baselines"})
    assert summary["agreement"] == {
        "labels": ["sports", "travel"], "annotators": 3, "items": 8, "measures": _MEASURES,
        "matrix": [[3, 1], [0, 4]], "variant": "eng_Latn", "sample": sample, "released_rows": 100,
        "judgements": "judged.tsv"}
    [variant] = summary["variants"]
    assert (variant["variant"], variant["rows"]) == ("eng_Latn", {"train": 70, "test": 30})
    assert variant["baselines"] == [{"baseline": "majority", "accuracy": 0.25, "ci_low": 0.12, "ci_high": 0.43,
                                     "n": 30}]
    # without the baselines stage in this run, no score is read
    assert build_summary(plan, gate_failing_allowed=False, stopped_at_gate=False,
                         current={"agreement-eng_Latn", "dataset", "licenses"})["variants"][0]["baselines"] == []


def test_a_stage_not_in_this_run_is_read_from_nowhere_not_from_the_working_folder(tmp_path, monkeypatch):
    # a stage this run did not reach once read "-/licenses.json" and "-/results.json" in the working folder
    plan = _agreement_plan(tmp_path / "release", sample=True)
    stray = tmp_path / "cwd" / "-"
    stray.mkdir(parents=True)
    (stray / "licenses.json").write_text(json.dumps([{"variant": "fra_Latn", "split": "test", "records": 9,
                                                      "terms": "MIT"}]), encoding="utf-8")
    (stray / "results.json").write_text(json.dumps({"results": [{"variant": "eng_Latn", "baseline": "stray"}]}),
                                        encoding="utf-8")
    monkeypatch.chdir(tmp_path / "cwd")
    summary = build_summary(plan, gate_failing_allowed=False, stopped_at_gate=False, current={"dataset"})
    assert [(v["variant"], v["rows"], v["baselines"]) for v in summary["variants"]] == [
        (code, {}, []) for code in sorted(plan.variants)]  # none of the stray files' rows, licenses or scores


def test_an_agreement_stage_without_a_judgements_file_names_none(tmp_path):
    plan = _agreement_plan(tmp_path, sample=True)
    del plan.agreement.inputs["judgements"]
    summary = build_summary(plan, gate_failing_allowed=False, stopped_at_gate=False,
                            current={"agreement-eng_Latn", "dataset"})
    assert summary["agreement"]["judgements"] is None and summary["agreement"]["released_rows"] is None


def test_no_agreement_section_without_the_stage_this_run_or_its_report(tmp_path):
    plan = _agreement_plan(tmp_path, sample=True)
    summary = build_summary(plan, gate_failing_allowed=False, stopped_at_gate=False, current={"dataset"})
    assert summary["agreement"] is None  # the stage did not run or was not found up to date
    (plan.agreement.output / "agreement.json").unlink()
    summary = build_summary(plan, gate_failing_allowed=False, stopped_at_gate=False,
                            current={"agreement-eng_Latn", "dataset"})
    assert summary["agreement"] is None


def test_the_summary_reads_every_current_stage_after_one_this_run_did_not_reach(tmp_path):
    plan = _plan(tmp_path, {"assemble": [{"source": "race", "reason": "a", "count": 2}],
                            "curate-hin_Deva": [{"source": "curation", "reason": "b", "count": 3}]})
    summary = build_summary(plan, gate_failing_allowed=False, stopped_at_gate=False, current={"curate-hin_Deva"})
    assert [(d["stage"], d["count"]) for d in summary["drops"]] == [("curate-hin_Deva", 3)]


def test_a_path_is_recorded_relative_to_the_release_folder_which_is_dot(tmp_path):
    from builder.release.stages import Recorder

    rec = Recorder(tmp_path / "rel", tmp_path / "recipes", {"name": "t"})
    assert rec.rel(tmp_path / "rel") == "."
    assert rec.rel(tmp_path / "rel" / "stages" / "qc") == "stages/qc"
    assert rec.rel(tmp_path / "data" / "x.tsv") == "../data/x.tsv"


# -- the annotation's variant folder, and the fan-out of stages run together -------------------------------------

def test_the_annotation_split_becomes_a_marked_variant_folder_that_names_how_it_was_made(tmp_path):
    from builder.release.steps import WHAT, variant_folder
    from schemas.runtime.outputs import written_by

    split_out = tmp_path / "split"
    split_out.mkdir()
    for split in ("train", "dev", "test"):
        (split_out / f"{split}.tsv").write_text("index_id\tcategory\ttext\n1\tsports\tA goal.\n", encoding="utf-8")
    (split_out / "labels.txt").write_text("sports\n", encoding="utf-8")
    action = variant_folder(split_out, "eng_Latn", {"license": "CC-BY-SA-4.0", "source": "a sample"},
                            method="annotation")
    out = tmp_path / "stages" / "variant-eng_Latn" / "output"
    assert action(out) == {}
    assert written_by(out) == WHAT == "release"  # the next run may replace it
    variant = out / "eng_Latn"
    assert sorted(p.name for p in variant.iterdir()) == ["dev.tsv", "labels.txt", "test.tsv", "train.tsv",
                                                        "variant.json"]
    info = json.loads((variant / "variant.json").read_text(encoding="utf-8"))
    assert (info["variant"], info["kind"], info["method"], info["license"]) == (
        "eng_Latn", "topic", "annotation", "CC-BY-SA-4.0")
    assert action(out) == {}  # an earlier output of the release is replaced, not refused


def test_stages_run_together_get_the_releases_workers_backend_and_address(tmp_path, monkeypatch):
    from builder.release import pipeline
    from builder.release.stages import Recorder
    from schemas.runtime import fanout

    plan = _plan(tmp_path, {"extend-nqo_Nkoo": [], "align-hin_Deva": []})
    for st in plan.stages:
        st.action = lambda out, name=st.name: {"drops": [{"source": name, "reason": "r", "count": 1}]}
        st.describe = st.name
    plan.where = {"jobs": 3, "backend": "ray", "address": "ray://10.0.0.1:10001"}
    seen = {}

    def fake_fan_out(fn, tasks, *, shared, **where):
        seen.update(where)
        return [fn(shared, task) for task in tasks]

    monkeypatch.setattr(fanout, "fan_out", fake_fan_out)
    recorder = Recorder(tmp_path, tmp_path, {"name": "t"})
    result, said = pipeline.RunResult(), []
    pipeline._run(plan, plan.stages, [recorder.expected(st) for st in plan.stages], recorder, result,
                  {id(st): i for i, st in enumerate(plan.stages)}, said.append)
    assert seen == {"jobs": 3, "backend": "ray", "address": "ray://10.0.0.1:10001",
                    "labels": ["extend-nqo_Nkoo", "align-hin_Deva"]}
    assert [(name, status) for name, status, _ in result.stages] == [("extend-nqo_Nkoo", "ran"),
                                                                      ("align-hin_Deva", "ran")]
    assert [line.split(": done in")[0] for line in said if "done in" in line] == [
        "release: [1/2] extend-nqo_Nkoo", "release: [2/2] align-hin_Deva"]
    assert all(line.endswith("(1 of 2 run together)") for line in said if "done in" in line)


def test_the_summary_gives_each_variant_its_origin_gate_verdict_and_scores_and_names_the_model(tmp_path):
    """Every variant of the plan or of the license audit, with its language and script, how it was made, its
    gate verdict (a failing check named; "not run" without the qc stage) and its scores, the model's among
    them, as lm-eval's results name it."""
    from builder.release.plan import Variant

    plan = _agreement_plan(tmp_path, sample=True, more=("qc", "lm_eval"))
    plan.qc = plan.stages[-2]
    plan.qc.output.mkdir()
    (plan.qc.output / "qc_report.json").write_text(json.dumps({
        "passed": False, "failed": [{"variant": "hin_Latn", "check": "untranslated", "reason": "untranslated"}],
        "checks": [{"variant": "hin_Latn", "check": "untranslated", "passed": False, "gate": True,
                    "detail": "2 of 9 items"}]}), encoding="utf-8")
    results = plan.stages[-1].output / "results"
    results.mkdir(parents=True)
    (results / "results.json").write_text(json.dumps({
        "settings": {"model": "SmolLM2-135M", "limit": 5, "seed": 0, "num_fewshot": 0, "selection": "first"},
        "results": [{"variant": "eng_Latn", "accuracy": 0.4, "ci_low": 0.1, "ci_high": 0.8, "n": 5}]}),
        encoding="utf-8")
    aligned = tmp_path / "a"
    aligned.mkdir()
    VariantInfo.from_dict({"variant": "hin_Deva", "aligned": {"dropped_not_in_pivot": 0}}).write(aligned)
    plan.variants = {"eng_Latn": Variant("eng_Latn", tmp_path / "e", "annotation (curated and split)"),
                     "hin_Latn": Variant("hin_Latn", tmp_path / "h", "romanized from hin_Deva"),
                     "hin_Deva": Variant("hin_Deva", aligned, "dataset folder a")}  # aligned by an earlier release
    audit = json.loads((plan.stages[2].output / "licenses.json").read_text(encoding="utf-8"))
    audit.append({"variant": "fra_Latn", "split": "test", "records": 4, "terms": "CC-BY-SA-4.0",
                  "commercial_use": True})  # a variant the audit found that no entry of the plan made
    (plan.stages[2].output / "licenses.json").write_text(json.dumps(audit), encoding="utf-8")
    every = {st.name for st in plan.stages}
    summary = build_summary(plan, gate_failing_allowed=False, stopped_at_gate=False, current=every)
    by = {v["variant"]: v for v in summary["variants"]}
    assert sorted(by) == ["eng_Latn", "fra_Latn", "hin_Deva", "hin_Latn"]  # the audit's and the plan's variants
    assert (by["fra_Latn"]["origin"], by["fra_Latn"]["derived"], by["fra_Latn"]["rows"]) == ("", None, {"test": 4})
    assert by["hin_Deva"]["derived"] == {"method": "alignment", "from": "eng_Latn"}
    assert {k: by["hin_Latn"][k] for k in ("language", "script", "origin", "derived", "gate", "rows")} == {
        "language": "hin", "script": "Latn", "origin": "romanized from hin_Deva",
        "derived": {"method": "romanization", "from": "hin_Deva"},
        "gate": {"verdict": "fail", "failing": ["untranslated"]}, "rows": {}}
    assert by["eng_Latn"]["gate"] == {"verdict": "pass", "failing": []} and by["eng_Latn"]["derived"] is None
    assert by["eng_Latn"]["licenses"] == [{"split": "train", "license": "CC-BY-SA-4.0", "commercial": True},
                                          {"split": "test", "license": "CC-BY-SA-4.0", "commercial": True}]
    assert [b["baseline"] for b in by["eng_Latn"]["baselines"]] == ["majority", "SmolLM2-135M (lm-eval)"]
    assert by["eng_Latn"]["baselines"][1] == {"baseline": "SmolLM2-135M (lm-eval)", "accuracy": 0.4,
                                              "ci_low": 0.1, "ci_high": 0.8, "n": 5}
    assert summary["model"]["name"] == "SmolLM2-135M (lm-eval)" and summary["model"]["settings"]["limit"] == 5
    assert summary["gate"]["verdict"] == "fail"
    assert [(s["name"], s["status"], s["manifest"]) for s in summary["stages"]] == [
        (st.name, "done", f"stages/{st.name}/{STAGE_JSON}") for st in plan.stages]
    assert summary["released"] is False  # the plan has no export stage
    # a link for each report this run's stages wrote (the agreement's third), and the summary itself
    assert [(link["title"], link["path"]) for link in summary["links"]] == [
        ("QC report (JSON)", "stages/qc/output/qc_report.json"),
        ("License audit (JSON)", "stages/licenses/output/licenses.json"),
        ("Agreement report", "stages/agreement-eng_Latn/output/agreement.md"),
        ("Baselines (JSON)", "stages/baselines/output/results.json"), ("Release summary (JSON)", "release.json")]
    quiet = build_summary(plan, gate_failing_allowed=False, stopped_at_gate=False, current=every - {"qc", "lm_eval"})
    assert {v["gate"]["verdict"] for v in quiet["variants"]} == {"not run"}
    assert [(s["name"], s["status"], s["manifest"]) for s in quiet["stages"]][-2:] == [
        ("qc", "not reached", None), ("lm_eval", "not reached", None)]
    assert "QC report (JSON)" not in [link["title"] for link in quiet["links"]]
    assert quiet["model"] is None and [b["baseline"] for b in quiet["variants"][0]["baselines"]] == ["majority"]
    # results that do not name their model are still the model's
    model = json.loads((results / "results.json").read_text(encoding="utf-8"))
    del model["settings"]["model"]
    (results / "results.json").write_text(json.dumps(model), encoding="utf-8")
    unnamed = build_summary(plan, gate_failing_allowed=False, stopped_at_gate=False, current=every)
    assert unnamed["model"]["name"] == "model (lm-eval)"


_LINKS = [("Dataset card", "export/README.md"), ("Export manifest", "export/manifest.json"),
          ("QC report", "stages/qc/output/qc_report.md"), ("QC report (JSON)", "stages/qc/output/qc_report.json"),
          ("QC JUnit", "stages/qc/output/junit.xml"),
          ("License audit (JSON)", "stages/licenses/output/licenses.json"),
          ("Baselines", "stages/baselines/output/results.md"),
          ("Baselines (JSON)", "stages/baselines/output/results.json"),
          ("Language model (lm-eval)", "stages/lm_eval/output/results/results.md"),
          ("Disparity (PRR)", "stages/disparity/output/disparity/summary.md"),
          ("Disparity not fitted", "stages/disparity/output/not_fitted.txt")]


def test_the_summary_links_each_report_a_current_stage_wrote_and_the_export_only_when_released(tmp_path):
    plan = _agreement_plan(tmp_path, sample=True, more=("qc", "lm_eval", "disparity", "export"))
    plan.qc = next(st for st in plan.stages if st.name == "qc")
    for _, path in _LINKS:
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        if not (tmp_path / path).exists():
            (tmp_path / path).write_text("{}" if path.endswith(".json") else "x", encoding="utf-8")
    (tmp_path / "stages" / "qc" / "output" / "qc_report.json").write_text(
        json.dumps({"passed": True, "checks": []}), encoding="utf-8")
    every = {st.name for st in plan.stages}

    def links(current, at_gate=False, stopped=None):
        summary = build_summary(plan, gate_failing_allowed=False, stopped_at_gate=at_gate, current=current,
                                stopped=stopped)
        return summary["released"], [(link["title"], link["path"]) for link in summary["links"]]

    agreement = ("Agreement report", "stages/agreement-eng_Latn/output/agreement.md")
    assert links(every) == (True, _LINKS[:2] + [agreement] + _LINKS[2:] + [("Release summary (JSON)", "release.json")])
    # a stage this run did not reach links nothing it may have written in an earlier run
    for name, titles in (("export", 2), ("disparity", 2), ("lm_eval", 1), ("qc", 3)):
        released, got = links(every - {name})
        assert released == (name != "export")
        assert len(got) == len(_LINKS) + 2 - titles, (name, got)
    for kw in ({"at_gate": True}, {"stopped": {"stage": "export", "error": "disk full"}}):
        released, got = links(every, **kw)
        assert released is False and ("Dataset card", "export/README.md") not in got, kw
    (tmp_path / "stages" / "disparity" / "output" / "not_fitted.txt").unlink()
    assert ("Disparity not fitted", "stages/disparity/output/not_fitted.txt") not in links(every)[1]


def test_the_summary_gives_the_models_settings_its_disparity_and_what_the_recipe_left_out(tmp_path):
    plan = _agreement_plan(tmp_path, sample=True, more=("lm_eval", "disparity"))
    lm = next(st for st in plan.stages if st.name == "lm_eval").output / "results"
    lm.mkdir(parents=True)
    settings = {"model": "m", "limit": 5, "seed": 1, "num_fewshot": 3, "selection": "first", "batch": 8}
    (lm / "results.json").write_text(json.dumps({"settings": settings, "results": []}), encoding="utf-8")
    prr = {"m (lm-eval)": {"mean_prr": 0.41, "cv_prr": 0.2}}
    (tmp_path / "stages" / "disparity" / STAGE_JSON).write_text(json.dumps({"facts": {"models": prr}}),
                                                                  encoding="utf-8")
    plan.not_run["baselines"] = "the recipe has no baselines: key"
    summary = build_summary(plan, gate_failing_allowed=False, stopped_at_gate=False)
    assert summary["model"] == {"name": "m (lm-eval)", "settings": {k: v for k, v in settings.items() if k != "batch"},
                                "disparity": prr}
    assert summary["not_run"] == {"baselines": "the recipe has no baselines: key"}
    # without the disparity stage's record, no figure is made up
    (tmp_path / "stages" / "disparity" / STAGE_JSON).unlink()
    assert build_summary(plan, gate_failing_allowed=False, stopped_at_gate=False)["model"]["disparity"] is None


def test_the_summary_gate_names_each_failure_with_its_detail_its_skips_and_warnings():
    from builder.release.summary import RELEASE_SKIPS, _gate

    assert _gate(None, True) == {"verdict": "not run", "allowed_failing": False, "failing": [], "report": None,
                                 "skipped": [], "warnings": []}
    qc = {"passed": False,
          "failed": [{"variant": "hin_Deva", "check": "leakage", "reason": "from failed"},
                     {"variant": "urd_Arab", "check": "balance", "reason": "only  the\nreason"},
                     {"variant": "tha_Thai", "check": "script"}],
          "checks": [{"variant": "hin_Deva", "check": "leakage", "passed": False, "gate": True,
                      "detail": "3 test items\n in train"},
                     {"variant": "eng_Latn", "check": "contamination", "skipped": True, "detail": "no test set"},
                     {"variant": "eng_Latn", "check": "length", "passed": False, "gate": False, "detail": "long"}]}
    assert _gate(qc, False) == {
        "verdict": "fail", "allowed_failing": False, "report": "stages/qc/output/qc_report.md",
        "failing": [{"variant": "hin_Deva", "check": "leakage", "detail": "3 test items in train", "items": []},
                    {"variant": "urd_Arab", "check": "balance", "detail": "only the reason", "items": []},
                    {"variant": "tha_Thai", "check": "script", "detail": "", "items": []}],
        "skipped": [{"check": "contamination", "why": "no test set", "variants": ["eng_Latn"],
                     "release": RELEASE_SKIPS["contamination"]}],
        "warnings": [{"variant": "eng_Latn", "check": "length", "detail": "long"}]}
    passed = _gate({"passed": True}, True)
    assert (passed["verdict"], passed["allowed_failing"], passed["failing"]) == ("pass", True, [])


def test_a_stage_warning_that_names_a_check_of_its_variant_carries_the_first_ten_records(tmp_path):
    from builder.release.plan import Variant

    plan = _plan(tmp_path, {"extend-nqo_Nkoo": [], "qc": []})
    folder = plan.stages[0].output / "nqo_Nkoo"
    folder.mkdir(parents=True)
    items = [{"index_id": i, "z": -3.5} for i in range(11)]
    VariantInfo.from_dict({"variant": "nqo_Nkoo", "checks": {
        "length_outliers": {"status": "warning", "items": items}, "ok_check": {"status": "ok", "items": items}}
    }).write(folder)
    plan.variants = {"nqo_Nkoo": Variant("nqo_Nkoo", folder, "extended")}
    records = [("extend-nqo_Nkoo", {"facts": {"warnings": [
        "length_outliers: 11 lines flagged:  see  index 3", "ok_check: fine", "no check named"]}}),
        ("qc", {"facts": {"warnings": ["length_outliers: not this stage's variant"]}})]
    rows = findings.warnings(plan, records)
    assert [(r["stage"], r["variant"], r["message"], len(r["items"])) for r in rows] == [
        ("extend-nqo_Nkoo", "nqo_Nkoo", "length_outliers: 11 lines flagged: see index 3", 10),
        ("extend-nqo_Nkoo", "nqo_Nkoo", "ok_check: fine", 0), ("extend-nqo_Nkoo", "nqo_Nkoo", "no check named", 0),
        ("qc", None, "length_outliers: not this stage's variant", 0)]
    assert rows[0]["items"][:2] == ["index_id 0 (z = -3.5)", "index_id 1 (z = -3.5)"]
    # a variant folder that is gone (or never made) gives no records, and no error
    plan.variants = {"nqo_Nkoo": Variant("nqo_Nkoo", plan.stages[0].output / "gone", "extended")}
    assert findings.warnings(plan, records[:1])[0]["items"] == []


def test_the_external_inputs_are_the_recipe_the_dataset_folders_and_what_no_stage_makes(tmp_path):
    from builder.release.pipeline import external_inputs

    sources = [SimpleNamespace(kind="dataset", path=tmp_path / "given"), SimpleNamespace(kind="annotation",
                                                                                         path=tmp_path / "labels")]
    recipe = SimpleNamespace(file=tmp_path / "release.yaml", variants=sources)
    plan = Plan(root=tmp_path / "rel", recipe=recipe)
    made = tmp_path / "rel" / "stages" / "split" / "output"
    plan.stages = [Stage(name="split", inputs={"labels": tmp_path / "labels" / "a.tsv"}, options={},
                         action=lambda out: {}, output=made),
                   Stage(name="qc", inputs={"data": made / "hin_Deva", "pivot": tmp_path / "given" / "eng_Latn"},
                         options={}, action=lambda out: {}, output=tmp_path / "rel" / "stages" / "qc" / "output")]
    assert external_inputs(plan) == [tmp_path / "release.yaml", tmp_path / "given", tmp_path / "labels" / "a.tsv",
                                     tmp_path / "given" / "eng_Latn"]
    recipe.file = None  # a recipe given as an object, not read from a file
    assert external_inputs(plan)[0] == tmp_path / "given"


def test_a_release_makes_missing_parents_names_itself_in_its_lock_and_stops_at_a_failing_gate_unless_allowed(
        tmp_path):
    from builder.release.pipeline import StageStopped, run_release
    from schemas.runtime.outputs import lock_beside

    recipe = SimpleNamespace(name="demo", pretty_name=None, citation=None, pivot="eng_Latn", file=None, variants=[])
    plan = Plan(root=tmp_path / "a" / "b" / "rel", recipe=recipe)
    held = {}

    def action(out):  # what another run would read about the run holding the release
        held.update(json.loads(Path(lock_beside(plan.root)).read_text(encoding="utf-8")))
        out.mkdir(parents=True)
        return {}

    plan.stages.append(Stage(name="only", inputs={}, options={}, action=action,
                             output=plan.root / "stages" / "only" / "output"))
    result = run_release(plan, say=lambda line: None)
    assert [s[:2] for s in result.stages] == [("only", "ran")]
    assert (held["command"], held["pid"]) == ("release", os.getpid())
    # a failing gate stops the release before the export unless the caller allows it
    exported = []

    def export(out):
        exported.append(out)
        out.mkdir(parents=True)
        return {}

    def qc(out):  # a failing gate, as builder qc reports it
        out.mkdir(parents=True)
        (out / "qc_report.json").write_text(json.dumps({"passed": False, "checks": []}), encoding="utf-8")
        return {"passed": False}

    gated = Plan(root=tmp_path / "gated", recipe=recipe)
    gated.stages = [Stage(name="qc", inputs={}, options={}, action=qc, output=gated.root / "stages" / "qc" / "output"),
                    Stage(name="export", inputs={}, options={}, action=export,
                          output=gated.root / "stages" / "export" / "output")]
    gated.qc = gated.stages[0]
    stopped = run_release(gated, say=lambda line: None)
    assert (stopped.gate_passed, stopped.stopped_at_gate, exported) == (False, True, [])
    assert json.loads((gated.root / "release.json").read_text(encoding="utf-8"))["gate"]["allowed_failing"] is False
    allowed = run_release(gated, allow_failing_gate=True, say=lambda line: None)
    assert (allowed.stopped_at_gate, len(exported)) == (False, 1)
    assert json.loads((gated.root / "release.json").read_text(encoding="utf-8"))["gate"]["allowed_failing"] is True
    # the export going wrong after an allowed failing gate: release.json still says the gate was let through
    def broken(out):
        raise OSError("disk full")

    gated.stages[1] = Stage(name="export", inputs={"x": tmp_path / "changed"}, options={}, action=broken,
                            output=gated.root / "stages" / "export" / "output")
    with pytest.raises(StageStopped):
        run_release(gated, allow_failing_gate=True, say=lambda line: None)
    summary = json.loads((gated.root / "release.json").read_text(encoding="utf-8"))
    assert (summary["stopped"]["stage"], summary["gate"]["allowed_failing"]) == ("export", True)


def test_every_path_is_within_the_root_folder_and_a_folder_is_not_within_its_child():
    from builder.release.stages import within

    assert within("/srv/rel", "/") and within("/", "/") and not within("/srv", "/srv/rel")


@pytest.mark.parametrize("allow, passed, failing", [(True, False, True), (False, False, False), (True, True, False),
                                                    (True, None, False)])
def test_the_export_stage_hands_the_recipe_and_the_reports_to_the_export(tmp_path, monkeypatch, allow, passed,
                                                                         failing):
    import builder.tasks.export as task

    calls = []
    monkeypatch.setattr(task, "run_export", lambda opts, report: calls.append((opts, report)) or SimpleNamespace(
        warnings=["w1"]))
    qc = tmp_path / "qc_report.json"
    if passed is not None:
        qc.write_text(json.dumps({"passed": passed}), encoding="utf-8")
    options = {"allow_failing_gate": allow, "lm_eval": True, "license": "CC-BY-4.0", "name": "sib_mini",
               "pretty_name": "SIB mini"}
    where = {"jobs": 3, "backend": "ray", "address": "auto"}
    report = object()
    facts = steps.export(tmp_path / "data", {"qc": qc, "agreement": None}, options, where, report)(tmp_path / "out")
    assert facts == {"warnings": ["w1"]}
    [(opts, given)] = calls
    assert given is report
    assert (opts.built, opts.out, opts.lm_eval, opts.license, opts.name, opts.pretty_name) == (
        tmp_path / "data", tmp_path / "out", True, "CC-BY-4.0", "sib_mini", "SIB mini")
    assert (opts.jobs, opts.backend, opts.address, opts.gate_failing_allowed) == (3, "ray", "auto", failing)
    assert opts.card_reports == {"qc": None if passed is None else {"passed": passed}, "agreement": None}


def test_the_license_audit_stage_passes_the_recipes_fallback_and_marks_its_output(tmp_path, monkeypatch):
    import builder.export.audit as audit

    asked = []
    split = SimpleNamespace(to_dict=lambda: {"variant": "eng_Latn", "split": "test", "terms": "CC-BY-4.0"})
    monkeypatch.setattr(audit, "audit_dataset", lambda folder, license_id: asked.append((folder, license_id))
                        or SimpleNamespace(splits=[split]))
    out = tmp_path / "out"
    assert steps.license_audit(tmp_path / "data", "CC-BY-4.0")(out) == {}
    assert asked == [(tmp_path / "data", "CC-BY-4.0")]
    assert json.loads((out / "licenses.json").read_text(encoding="utf-8")) == [split.to_dict()]
    assert (out / MARKER).is_file()  # the release's own output: a rerun may replace it
    (out / "licenses.json").unlink()
    (out / MARKER).unlink()
    (out / "mine.txt").write_text("not the release's\n", encoding="utf-8")
    with pytest.raises(UsageError, match="not an earlier release output"):  # a folder it did not write is kept
        steps.license_audit(tmp_path / "data", None)(out)


def _one_stage_release(root: Path) -> Plan:
    recipe = SimpleNamespace(name="demo", pretty_name=None, citation=None, pivot="eng_Latn", file=None, variants=[])
    plan = Plan(root=root, recipe=recipe)
    plan.stages.append(Stage(name="only", inputs={}, options={}, action=lambda out: out.mkdir(parents=True) or {},
                             output=root / "stages" / "only" / "output"))
    return plan


def test_the_same_stop_after_a_failing_gate_with_and_then_without_the_allowance_writes_release_json_again(tmp_path):
    # pins that the summary's key holds whether this run let a failing gate through, not only the stop itself
    from builder.release.pipeline import StageStopped, run_release

    recipe = SimpleNamespace(name="demo", pretty_name=None, citation=None, pivot="eng_Latn", file=None, variants=[])
    plan = Plan(root=tmp_path / "rel", recipe=recipe)

    def qc(out):  # a failing gate, as builder qc reports it
        out.mkdir(parents=True)
        (out / "qc_report.json").write_text(json.dumps({"passed": False, "checks": []}), encoding="utf-8")
        return {"passed": False}

    def baselines(out):  # a stage between the gate and the export that fails every time
        raise OSError("disk full")

    plan.stages = [Stage(name=name, inputs={}, options={}, action=action,
                         output=plan.root / "stages" / name / "output")
                   for name, action in (("qc", qc), ("baselines", baselines), ("export", lambda out: {}))]
    plan.qc = plan.stages[0]
    for allow in (True, False):
        with pytest.raises(StageStopped):
            run_release(plan, allow_failing_gate=allow, say=lambda line: None)
        summary = json.loads((plan.root / "release.json").read_text(encoding="utf-8"))
        assert (summary["stopped"]["stage"], summary["gate"]["allowed_failing"]) == ("baselines", allow)


def test_a_release_json_that_is_no_object_is_written_again_though_its_stamp_is_unchanged(tmp_path):
    # pins that only a JSON object in release.json is taken as the last run's summary
    from builder.release.pipeline import run_release
    from builder.release.stages import stamp_or_none

    plan = _one_stage_release(tmp_path / "rel")
    written = run_release(plan, say=lambda line: None).summary
    release = plan.root / "release.json"
    stamp, before = stamp_or_none(release), release.stat()
    with open(release, "r+b") as f:  # the same inode and size, the mtime put back: a stamp that says unchanged
        f.write(b"[" + b" " * (before.st_size - 2) + b"]")
    os.utime(release, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert stamp_or_none(release) == stamp
    again = run_release(plan, say=lambda line: None)
    assert again.summary == written
    assert json.loads(release.read_text(encoding="utf-8")) == written


def test_temporary_files_of_a_killed_run_are_removed_before_any_stage_is_looked_at(tmp_path):
    # pins that a rerun cleans up the release's own files first, run.json's included, even if it goes no further
    from builder.release.pipeline import run_release

    plan = _one_stage_release(tmp_path / "rel")
    run_release(plan, say=lambda line: None)
    debris = [plan.root / f".{name}.4194305.0123abcd.tmp"  # a pid above Linux's largest: a run that is gone
              for name in ("release.json", "report.html", "run.json")]
    for path in debris:
        path.write_text("{", encoding="utf-8")

    def say(line):  # Ctrl-C at the first stage: the run ends before it writes anything
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_release(plan, say=say)
    assert [path.name for path in debris if path.exists()] == []


def test_a_variant_whose_variant_json_names_itself_as_its_source_is_not_derived_in_the_summary(tmp_path):
    # pins that build_summary hands each variant's own code to _derived: a source that is the variant itself
    # is no derivation, so a variant as found says none
    from builder.release.plan import Variant

    plan = _agreement_plan(tmp_path, sample=True)
    folder = tmp_path / "given" / "hin_Latn"
    folder.mkdir(parents=True)
    (folder / "variant.json").write_text(json.dumps({"method": "romanization", "source_variant": "hin_Latn"}),
                                         encoding="utf-8")
    plan.variants = {"hin_Latn": Variant("hin_Latn", folder, "dataset folder given")}
    summary = build_summary(plan, gate_failing_allowed=False, stopped_at_gate=False, current={"dataset"})
    assert [(v["variant"], v["origin"], v["derived"]) for v in summary["variants"]] == [
        ("hin_Latn", "dataset folder given", None)]
