"""Behaviours of the export that no other test pinned down (issue 27), in-process.

- the ClassLabel round trip: ``labels.txt`` order -> the Parquet features -> the Croissant ``labels``
  enumeration -> ``datasets.load_dataset`` on the export folder (offline) -> our reader, so an
  off-by-one in any of them maps a stored index to another label;
- the lm-eval tasks' ``test_split``/``fewshot_split`` under each published schema (``dev`` stays ``dev``
  under ours; it is ``validation`` under sib200 and belebele), always a split the task's files hold;
- a variant folder that the export's ``manifest.json`` lists, deleted whole: an error naming it;
- the license audit's order: ``--license`` is a fallback and never replaces the license a variant's
  ``variant.json`` declares (through :func:`builder.export.audit.audit_dataset` and the export).

Each was checked against a one-line bug in the production code: docs/testing.md, "Behaviours pinned
for issue 27".
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from builder.export.audit import audit_dataset
from builder.export.croissant import croissant
from builder.tasks.export import ExportOptions, run_export
from schemas.dataset import load_dataset_dir
from schemas.errors import IntegrityError
from schemas.io import read_sib_tsv

EXPORT_DATA = Path(__file__).parents[1] / "data" / "export"
SIB, MC = EXPORT_DATA / "sib_small", EXPORT_DATA / "mc_small"


@pytest.fixture(scope="module")
def exports(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("pinned")
    run_export(ExportOptions(SIB, root / "sib", name="s", lm_eval=True, license="MIT"))
    run_export(ExportOptions(SIB, root / "sib200", name="s", lm_eval=True, schema="sib200"))
    run_export(ExportOptions(MC, root / "mc", name="m", lm_eval=True))
    run_export(ExportOptions(MC, root / "belebele", name="m", lm_eval=True, schema="belebele"))
    return {p.name: p for p in root.iterdir()}


# -- 3. the ClassLabel round trip ------------------------------------------------------------------------------

def test_class_labels_round_trip_from_labels_txt_to_datasets_and_back(exports):
    from datasets import load_dataset

    out = exports["sib"]
    labels = (SIB / "hin_Deva" / "labels.txt").read_text(encoding="utf-8").split("\n")
    labels = [x for x in labels if x]
    doc = json.loads((out / "croissant.json").read_text(encoding="utf-8"))
    (label_set,) = [r for r in doc["recordSet"] if r["@id"] == "labels"]
    by_index = {d["labels/index"]: d["labels/name"] for d in label_set["data"]}
    assert by_index == dict(enumerate(labels))  # Croissant: index i is labels.txt's line i
    ours = load_dataset_dir(out)
    for variant in ("hin_Deva", "hin_Latn"):
        source = {s: {r["index_id"]: r["category"] for r in read_sib_tsv(SIB / variant / f"{s}.tsv")}
                  for s in ("train", "dev", "test")}
        hf = load_dataset(str(out), variant)
        for split in ("train", "dev", "test"):
            table = pq.read_table(out / variant / f"{split}.parquet")
            meta = json.loads(table.schema.metadata[b"huggingface"])
            assert meta["info"]["features"]["category"]["names"] == labels  # Parquet: the same order
            assert hf[split].features["category"].names == labels
            stored = dict(zip(map(str, table.column("index_id").to_pylist()), table.column("category").to_pylist()))
            assert {i: by_index[n] for i, n in stored.items()} == source[split]  # Croissant names the source label
            assert {str(r["index_id"]): hf[split].features["category"].int2str(r["category"])
                    for r in hf[split]} == source[split]
            frame = ours.tables[variant][split]
            assert dict(zip(frame["index_id"].astype(str), frame["category"])) == source[split]


@settings(max_examples=30, deadline=None)
@given(st.lists(st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1, max_size=8),
                min_size=1, max_size=12, unique=True))
def test_the_croissant_enumeration_is_the_class_label_order_for_any_labels(labels):
    from datasets import ClassLabel, Features, Value

    feats = Features({"index_id": Value("int64"), "category": ClassLabel(names=labels), "text": Value("string")})
    doc = json.loads(croissant(
        name="d", pretty_name="d", description="d", files={"x/test.parquet": {"bytes": 1, "sha256": "0" * 64}},
        split_files={"x": {"test": "x/test.parquet"}}, features={"x": feats},
        splits=[("x", "test", type("T", (), {"terms": "MIT", "licenses": ("MIT",)})())],
        cite_as=None, url=None, labels=labels))
    (label_set,) = [r for r in doc["recordSet"] if r["@id"] == "labels"]
    got = [(d["labels/index"], d["labels/name"]) for d in label_set["data"]]
    assert got == [(feats["category"].str2int(n), n) for n in labels]


# -- 4. lm-eval splits under each published schema --------------------------------------------------------------

@pytest.mark.parametrize("which, task, splits", [
    ("sib", "s_hin_Deva", ("test", "dev")),
    ("sib200", "s_hin_Deva", ("test", "validation")),
    ("mc", "m_eng_Latn", ("dev", "train")),
    ("belebele", "m_eng_Latn", ("validation", "train")),
])
def test_the_lm_eval_test_and_fewshot_splits_are_the_schemas_names(exports, which, task, splits):
    out = exports[which]
    doc = yaml.safe_load((out / "lm_eval" / f"{task}.yaml").read_text(encoding="utf-8"))
    assert (doc["test_split"], doc["fewshot_split"]) == splits
    variant = task.split("_", 1)[1]
    files = doc["dataset_kwargs"]["data_files"]
    on_disk = {p.stem for p in (out / variant).glob("*.parquet")}
    assert set(files) == on_disk and set(splits) <= on_disk
    assert all(files[s] == f"../{variant}/{s}.parquet" for s in files)
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert {s["split"] for s in manifest["splits"] if s["variant"] == variant} == on_disk


# -- 5. a whole variant folder gone ------------------------------------------------------------------------------

def test_a_deleted_variant_folder_that_the_manifest_lists_is_an_error_naming_it(exports, tmp_path):
    copy = tmp_path / "sib"
    shutil.copytree(exports["sib"], copy)
    load_dataset_dir(copy)  # as written: reads
    shutil.rmtree(copy / "hin_Latn")
    with pytest.raises(IntegrityError) as err:
        load_dataset_dir(copy)
    message = str(err.value)
    assert f"{copy / 'hin_Latn'}" in message and "manifest.json lists this file, and it is missing" in message
    with pytest.raises(IntegrityError):
        load_dataset_dir(copy, lazy=True)
    assert list(load_dataset_dir(copy, variants=["hin_Deva"]).tables) == ["hin_Deva"]  # not asked for: not read


# -- 8. the license audit's order ----------------------------------------------------------------------------------

def test_a_license_fallback_never_replaces_what_variant_json_declares(tmp_path):
    folder = tmp_path / "ds"
    shutil.copytree(SIB, folder)
    path = folder / "hin_Latn" / "variant.json"
    info = json.loads(path.read_text(encoding="utf-8"))
    del info["license"]
    path.write_text(json.dumps(info), encoding="utf-8")
    audit = audit_dataset(folder, license_id="MIT")
    got = {(s.variant, s.split): (s.terms.terms, s.declared) for s in audit.splits}
    assert got == {**{("hin_Deva", s): ("CC-BY-SA-4.0", "CC-BY-SA-4.0") for s in ("train", "dev", "test")},
                   **{("hin_Latn", s): ("MIT", "MIT") for s in ("train", "dev", "test")}}


def test_the_export_with_a_license_fallback_keeps_the_declared_license(exports):
    manifest = json.loads((exports["sib"] / "manifest.json").read_text(encoding="utf-8"))
    assert {s["terms"] for s in manifest["splits"]} == {"CC-BY-SA-4.0"}  # --license MIT was given
    card = (exports["sib"] / "README.md").read_text(encoding="utf-8")
    assert "\nlicense: cc-by-sa-4.0\n" in card and "mit" not in card.split("---")[1].lower().split()
