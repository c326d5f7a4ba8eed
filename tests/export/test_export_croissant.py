"""``croissant.json``: valid under mlcroissant, its records read back, the license of every split stated.

mlcroissant is in the ``test`` extra: a missing one is an import error here,
never a skip.
"""
from __future__ import annotations

import hashlib
import json
import logging
import re
import shutil
from pathlib import Path

from oracles import mlc
import pandas as pd
import pytest

from builder.tasks.export import ExportOptions, run_export

TESTS = Path(__file__).parents[1]
EXPORT_DATA = TESTS / "data" / "export"


@pytest.fixture(scope="module")
def exports(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("croissant")
    run_export(ExportOptions(EXPORT_DATA / "sib_small", root / "sib", name="sib_sample"))
    run_export(ExportOptions(EXPORT_DATA / "mc_small", root / "mc", schema="belebele",
                             hub_repo="my-org/belebele-train"))
    return {"sib": root / "sib", "mc": root / "mc"}


def _dataset(path: Path, caplog) -> mlc.Dataset:
    with caplog.at_level(logging.WARNING):
        ds = mlc.Dataset(jsonld=path / "croissant.json")  # raises on any validation error
    warnings = [line.strip() for r in caplog.records if "warning" in r.getMessage().lower()
                for line in r.getMessage().splitlines()[1:]]
    # the one warning: no datePublished, left out on purpose (the same input gives the same bytes)
    assert len(warnings) == 1 and 'Property "https://schema.org/datePublished" is recommended' in warnings[0], \
        warnings
    return ds


@pytest.mark.parametrize("which", ["sib", "mc"])
def test_croissant_is_valid_and_its_records_match_the_parquet_files(exports, which, caplog):
    out = exports[which]
    ds = _dataset(out, caplog)
    configs = [p.name for p in sorted(out.iterdir()) if p.is_dir() and p.name != "lm_eval"]
    ids = [r.id for r in ds.metadata.record_sets]
    assert [i for i in ids if i != "labels"] == configs
    for config in configs:
        records = list(ds.records(config))
        files = sorted((out / config).glob("*.parquet"))
        assert len(records) == sum(len(pd.read_parquet(f)) for f in files)
        by_split = {}
        for r in records:
            split = r[f"{config}/split"].decode()
            by_split[split] = by_split.get(split, 0) + 1
        assert by_split == {f.stem: len(pd.read_parquet(f)) for f in files}


def test_class_label_references_the_labels_record_set(exports, caplog):
    ds = _dataset(exports["sib"], caplog)
    doc = json.loads((exports["sib"] / "croissant.json").read_text(encoding="utf-8"))
    labels = (EXPORT_DATA / "sib_small" / "hin_Deva" / "labels.txt").read_text(encoding="utf-8").split()
    (label_set,) = [r for r in doc["recordSet"] if r["@id"] == "labels"]
    assert [d["labels/name"] for d in label_set["data"]] == labels
    field = next(f for r in doc["recordSet"] if r["@id"] == "hin_Deva" for f in r["field"]
                 if f["name"] == "category")
    assert field["references"] == {"field": {"@id": "labels/index"}}
    record = next(iter(ds.records("hin_Deva")))
    first = pd.read_parquet(exports["sib"] / "hin_Deva" / "dev.parquet").iloc[0]  # dev sorts first: d < te < tr
    assert labels[record["hin_Deva/category"]] == labels[first.category]


def test_every_split_states_its_license_and_every_file_its_sha256(exports):
    doc = json.loads((exports["mc"] / "croissant.json").read_text(encoding="utf-8"))
    manifest = json.loads((exports["mc"] / "manifest.json").read_text(encoding="utf-8"))
    covered = [s for lic in doc["license"] for s in lic["description"].removeprefix("Applies to the splits ")
               .rstrip(".").split(", ")]
    assert sorted(covered) == sorted(f"{s['variant']}/{s['split']}" for s in manifest["splits"])
    assert {lic["name"] for lic in doc["license"]} == {s["terms"] for s in manifest["splits"]}
    files = [d for d in doc["distribution"] if d["@type"] == "cr:FileObject"]
    for f in files:
        data = (exports["mc"] / f["contentUrl"]).read_bytes()
        assert f["sha256"] == hashlib.sha256(data).hexdigest() and f["contentSize"] == f"{len(data)} B"
    assert doc["url"] == "https://huggingface.co/datasets/my-org/belebele-train"
    sib = json.loads((exports["sib"] / "croissant.json").read_text(encoding="utf-8"))
    (lic,) = sib["license"]
    assert (lic["name"], lic["url"]) == ("CC-BY-SA-4.0", "https://creativecommons.org/licenses/by-sa/4.0/")


def test_croissant_is_deterministic(exports, tmp_path):
    shutil.copytree(EXPORT_DATA / "sib_small", tmp_path / "in")
    run_export(ExportOptions(tmp_path / "in", tmp_path / "again", name="sib_sample"))
    assert (tmp_path / "again" / "croissant.json").read_bytes() == (exports["sib"] / "croissant.json").read_bytes()


def test_the_dataset_entry_names_the_export_and_its_card(exports, tmp_path):
    for which, url in (("sib", None), ("mc", "https://huggingface.co/datasets/my-org/belebele-train")):
        out = exports[which]
        doc = json.loads((out / "croissant.json").read_text(encoding="utf-8"))
        manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
        card = (out / "README.md").read_text(encoding="utf-8")
        assert (doc["name"], doc["alternateName"]) == (manifest["name"], manifest["pretty_name"])
        assert doc.get("url") == url  # only with a Hub repository
        assert doc["version"] == "1.0.0"  # the build manifest has none
        assert len(doc["description"]) > 40 and doc["description"] in card
        refs = doc["citeAs"].split("\n")  # each source's reference once, as ATTRIBUTION.md gives it
        attribution = (out / "ATTRIBUTION.md").read_text(encoding="utf-8")
        assert len(refs) == len(set(refs)) and all(f"- Reference: {ref}\n" in attribution for ref in refs), refs
    assert (exports["sib"] / "croissant.json").read_bytes().endswith(b"]\n}\n")  # LF, one final newline
    # a build manifest with a version: the Croissant file carries it
    src = tmp_path / "mc"
    shutil.copytree(EXPORT_DATA / "mc_small", src)
    manifest = json.loads((src / "manifest.json").read_text(encoding="utf-8"))
    (src / "manifest.json").write_text(json.dumps({**manifest, "version": "2.1.0"}), encoding="utf-8")
    run_export(ExportOptions(src, tmp_path / "out", schema="belebele"))
    assert json.loads((tmp_path / "out" / "croissant.json").read_text(encoding="utf-8"))["version"] == "2.1.0"


def test_every_arrow_value_type_has_its_schema_org_data_type():
    from datasets import ClassLabel, Features, Value

    from builder.export.croissant import _data_type, _record_set

    kinds = {"int8": "sc:Integer", "int64": "sc:Integer", "uint8": "sc:Integer", "uint64": "sc:Integer",
             "float16": "sc:Float", "float32": "sc:Float", "float64": "sc:Float", "bool": "sc:Boolean",
             "string": "sc:Text", "large_string": "sc:Text"}
    assert {k: _data_type(Value(k)) for k in kinds} == kinds
    assert _data_type(ClassLabel(names=["a", "b"])) == "sc:Integer"
    assert _data_type({"corpus": Value("string")}) is None  # a struct: not described
    features = Features({"text": Value("string"), "n": Value("int32"), "category": ClassLabel(names=["a", "b"])})
    rs = _record_set("hin_Deva", features)
    assert [(f["@id"], f["name"], f["dataType"]) for f in rs["field"]] == [
        ("hin_Deva/split", "split", "sc:Text"), ("hin_Deva/text", "text", "sc:Text"),
        ("hin_Deva/n", "n", "sc:Integer"), ("hin_Deva/category", "category", "sc:Integer")]
    assert rs["field"][0]["source"]["extract"] == {"fileProperty": "filename"}
    assert [f["source"]["extract"] for f in rs["field"][1:]] == [{"column": c} for c in ("text", "n", "category")]
    assert rs["field"][3]["references"] == {"field": {"@id": "labels/index"}}
    assert (rs["@id"], rs["name"]) == ("hin_Deva", "hin_Deva")
    assembled = _record_set("mc", Features({"split": Value("string"), "question": Value("string")}))
    assert [f["name"] for f in assembled["field"]] == ["split", "question"]  # its own split column
    nested = _record_set("mc", Features({"provenance": {"corpus": Value("string")}, "question": Value("string")}))
    assert [f["name"] for f in nested["field"]] == ["split", "question"]  # a struct is passed over, not the end


def test_the_label_record_set_keys_each_name_by_its_index(exports):
    doc = json.loads((exports["sib"] / "croissant.json").read_text(encoding="utf-8"))
    labels = next(rs for rs in doc["recordSet"] if rs["@id"] == "labels")
    assert (labels["name"], labels["key"]) == ("labels", {"@id": "labels/index"})
    assert [(f["@id"], f["name"], f["dataType"]) for f in labels["field"]] == [
        ("labels/index", "index", "sc:Integer"), ("labels/name", "name", "sc:Text")]
    names = (EXPORT_DATA / "sib_small" / "hin_Deva" / "labels.txt").read_text(encoding="utf-8").split()
    assert [(d["labels/index"], d["labels/name"]) for d in labels["data"]] == list(enumerate(names))


def test_the_license_entry_names_the_terms_and_every_split_they_cover(exports):
    doc = json.loads((exports["sib"] / "croissant.json").read_text(encoding="utf-8"))
    manifest = json.loads((exports["sib"] / "manifest.json").read_text(encoding="utf-8"))
    splits = [f"{v}/{s}" for v in ("hin_Deva", "hin_Latn") for s in ("train", "dev", "test")]
    assert doc["license"] == [{"@type": "sc:CreativeWork", "name": manifest["terms"]["terms"],
                               "description": "Applies to the splits " + ", ".join(splits) + ".",
                               "url": "https://creativecommons.org/licenses/by-sa/4.0/"}]


def test_splits_of_the_same_terms_share_one_license_entry_and_combined_terms_link_no_single_license():
    """One CreativeWork per distinct terms, in the order first seen, naming its splits; a url only where
    the terms are one license (combined terms have no one text to link)."""
    from builder.export.croissant import _license_entries
    from schemas.license_terms import combine

    sa = combine([("SIB-200", "CC-BY-SA-4.0", 3)])
    mixed = combine([("RACE", "RACE-research", 2), ("SciQ", "CC-BY-NC-3.0", 1)])
    unknown = combine([("scraped", "unknown", 1)])
    entries = _license_entries([("eng", "train", sa), ("eng", "dev", mixed), ("fra", "train", sa),
                                ("fra", "dev", unknown)])
    assert entries == [
        {"@type": "sc:CreativeWork", "name": "CC-BY-SA-4.0",
         "description": "Applies to the splits eng/train, fra/train.",
         "url": "https://creativecommons.org/licenses/by-sa/4.0/"},
        {"@type": "sc:CreativeWork", "name": "CC-BY-NC-3.0 AND RACE-research",
         "description": "Applies to the splits eng/dev."},
        {"@type": "sc:CreativeWork", "name": "unknown", "description": "Applies to the splits fra/dev."},
    ]


def test_the_croissant_file_is_the_golden_one_but_for_the_parquet_bytes(exports, golden):
    """Every name, id and description a reader of ``croissant.json`` sees; the Parquet files' sizes and digests
    (which change with the pyarrow that wrote them) are checked against the files above, not here."""
    text = (exports["sib"] / "croissant.json").read_text(encoding="utf-8")
    text = re.sub(r'"sha256": "[0-9a-f]{64}"', '"sha256": "<sha256 of the file>"', text)
    golden("export/sib_small/croissant.json", re.sub(r'"contentSize": "\d+ B"', '"contentSize": "<bytes> B"', text))


def test_the_croissant_text_keeps_non_ascii_as_written_and_labels_only_a_class_label_column():
    from datasets import ClassLabel, Features, Value

    from builder.export.croissant import croissant
    from schemas.license_terms import combine

    def doc(features, labels):
        text = croissant(name="d", pretty_name="Sätze", description="Téléchargé.", files={"a/t.parquet": {
            "bytes": 1, "sha256": "0" * 64}}, split_files={"a": {"test": "a/t.parquet"}}, features={"a": features},
            splits=[("a", "test", combine([("s", "MIT", 1)]))], cite_as=None, url=None, labels=labels)
        return text, json.loads(text)

    text, plain = doc(Features({"text": Value("string")}), ["x", "y"])
    assert '\n  "alternateName": "Sätze",\n  "description": "Téléchargé.",\n' in text  # UTF-8, two spaces
    assert plain["version"] == "1.0.0"  # no version given
    assert [rs["@id"] for rs in plain["recordSet"]] == ["a"]  # labels, but no ClassLabel column to describe
    _, labelled = doc(Features({"text": Value("string"), "category": ClassLabel(names=["x", "y"])}), ["x", "y"])
    assert [rs["@id"] for rs in labelled["recordSet"]] == ["labels", "a"]
