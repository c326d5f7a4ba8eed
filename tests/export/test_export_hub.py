"""Hub-native exports: typed features, card metadata the Hub reads, the published schemas.

The checks read the export back with the libraries the Hub and its users use
(``datasets``, ``huggingface_hub``, pyarrow) and compare with independent
sources: the fixture files, pycountry's ISO 639 tables, the column lists of
the published datasets (lm-eval's Belebele template, the AfroBench SIB task).
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from oracles import DatasetCard, DatasetCardData, datasets
import pyarrow.parquet as pq
import pycountry
import pytest
from click.testing import CliRunner

from builder.cli.main import cli
from builder.tasks.export import ExportOptions, run_export
from schemas.dataset import load_dataset_dir
from schemas.errors import SchemaError, UsageError

TESTS = Path(__file__).parents[1]
EXPORT_DATA = TESTS / "data" / "export"
SIB = TESTS / "data" / "sib200" / "annotated"
LABELS = (SIB / "eng_Latn" / "labels.txt").read_text(encoding="utf-8").split()


@pytest.fixture(scope="module")
def sib(tmp_path_factory) -> Path:
    """Three shipped SIB-200 variants (Latin, Devanagari, Arabic script) exported with our schema."""
    root = tmp_path_factory.mktemp("hub")
    for v in ("eng_Latn", "hin_Deva", "arb_Arab"):
        shutil.copytree(SIB / v, root / "in" / v)
    run_export(ExportOptions(root / "in", root / "out", license="CC-BY-SA-4.0", source="SIB-200", name="sib"))
    return root / "out"


@pytest.fixture(scope="module")
def published(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("pub")
    shutil.copytree(SIB / "eng_Latn", root / "in" / "eng_Latn")
    run_export(ExportOptions(root / "in", root / "sib200", license="CC-BY-SA-4.0", source="SIB-200", schema="sib200"))
    run_export(ExportOptions(EXPORT_DATA / "mc_small", root / "belebele", schema="belebele"))
    return {"sib200": root / "sib200", "belebele": root / "belebele"}


def test_category_is_a_class_label_with_the_curated_names(sib):
    ds = datasets.load_dataset(str(sib), "eng_Latn")
    feature = ds["train"].features["category"]
    assert isinstance(feature, datasets.ClassLabel) and feature.names == LABELS
    # the stored indices decode to the labels of the source TSV, row by row
    source = (SIB / "eng_Latn" / "train.tsv").read_text(encoding="utf-8").splitlines()[1:]
    assert [feature.int2str(i) for i in ds["train"]["category"]] == [line.split("\t")[1] for line in source]
    assert ds["train"].features["index_id"] == datasets.Value("int64")
    # the Parquet file itself carries the features, where datasets reads them
    meta = json.loads(pq.read_schema(sib / "eng_Latn" / "dev.parquet").metadata[b"huggingface"])
    assert meta["info"]["features"]["category"] == {"names": LABELS, "_type": "ClassLabel"}


def test_an_export_reads_back_with_label_names(sib, tmp_path):
    ds = load_dataset_dir(sib)
    assert list(ds.tables["hin_Deva"]["test"]["category"][:2]) == [
        line.split("\t")[1] for line in (SIB / "hin_Deva" / "test.tsv").read_text(encoding="utf-8").splitlines()[1:3]]
    again = run_export(ExportOptions(sib, tmp_path / "again"))  # an export is a valid input: same bytes of every split
    for rel, entry in again.files.items():
        if rel.endswith(".parquet"):
            assert entry["sha256"] == json.loads((sib / "manifest.json").read_text())["files"][rel]["sha256"]


def test_card_round_trips_through_huggingface_hub(sib):
    text = (sib / "README.md").read_text(encoding="utf-8")
    card = DatasetCard(text)
    assert isinstance(card.data, DatasetCardData._target())
    assert DatasetCard(str(card)).data.to_dict() == card.data.to_dict()
    data = card.data
    # ISO 639-1 where pycountry has one for the code (eng, hin), else ISO 639-3 (arb: Standard Arabic)
    expected = sorted(getattr(pycountry.languages.get(alpha_3=c), "alpha_2", c) for c in ("eng", "hin", "arb"))
    assert data.language == expected == ["arb", "en", "hi"]
    assert data.language_details == ["arb-Arab", "en-Latn", "hi-Deva"]
    assert data.license == "cc-by-sa-4.0" and data.size_categories == ["1K<n<10K"]
    assert data.task_categories == ["text-classification"] and data.multilinguality == ["multilingual"]
    configs = {c["config_name"]: c["data_files"] for c in data.configs}
    assert configs["hin_Deva"] == [{"split": s, "path": f"hin_Deva/{s}.parquet"} for s in ("train", "dev", "test")]


def test_dataset_info_parses_with_datasets_and_matches_the_files(sib):
    from datasets.info import DatasetInfosDict

    card = DatasetCard.load(sib / "README.md")
    infos = DatasetInfosDict.from_dataset_card_data(card.data)
    assert sorted(infos) == ["arb_Arab", "eng_Latn", "hin_Deva"]
    info = infos["hin_Deva"]
    assert info.features["category"].names == LABELS
    for split, n in info.splits.items():
        rows = (SIB / "hin_Deva" / f"{split}.tsv").read_text(encoding="utf-8").count("\n") - 1
        assert n.num_examples == rows == pq.read_metadata(sib / "hin_Deva" / f"{split}.parquet").num_rows
        table = pq.read_table(sib / "hin_Deva" / f"{split}.parquet")
        # Arrow size counted by hand: 8 bytes per int64, 4-byte offsets plus the UTF-8 bytes per string
        # (within one offset per string column: the cast from pandas' large_string may share its buffer)
        strings = sum(4 * (rows + 1) + sum(len(x.encode()) for x in table[c].to_pylist())
                      for c in ("text", "license"))
        assert abs(n.num_bytes - (8 * rows * 2 + strings)) <= 8
    assert info.dataset_size == sum(s.num_bytes for s in info.splits.values())


def test_sib200_schema_uses_the_published_split_names(published):
    # lm-eval's AfroBench sib task: validation_split: validation, doc_to_target: category (the label text)
    ds = datasets.load_dataset(str(published["sib200"]), "eng_Latn")
    assert sorted(ds) == ["test", "train", "validation"]
    assert list(ds["validation"].features)[:3] == ["index_id", "category", "text"]
    assert ds["validation"].features["category"] == datasets.Value("string")
    manifest = json.loads((published["sib200"] / "manifest.json").read_text())
    assert manifest["schema"] == "sib200" and "eng_Latn/validation.parquet" in manifest["files"]
    assert {s["split"] for s in manifest["splits"]} == {"train", "validation", "test"}


def test_belebele_schema_uses_the_published_columns(published):
    ds = datasets.load_dataset(str(published["belebele"]), "eng_Latn")
    assert sorted(ds) == ["train", "validation"]
    cols = list(ds["validation"].features)
    # facebook/belebele's columns (lm-eval's _default_template_yaml reads flores_passage, mc_answer1-4)
    assert cols[:10] == ["link", "question_number", "flores_passage", "question", "mc_answer1", "mc_answer2",
                         "mc_answer3", "mc_answer4", "correct_answer_num", "dialect"]
    assert "license" in cols and "passage" not in cols and "answer1" not in cols
    rows = [json.loads(line) for line in (EXPORT_DATA / "mc_small" / "dev.jsonl").read_text().splitlines()]
    got = ds["validation"]
    assert got["correct_answer_num"] == [str(r["correct_answer_num"]) for r in rows]  # '1'-'4', as published
    assert got["flores_passage"] == [r["passage"] for r in rows] and got["link"] == [r["passage_id"] for r in rows]
    numbers, seen = [], {}
    for r in rows:  # 1, 2, ... per passage in file order
        seen[r["passage_id"]] = seen.get(r["passage_id"], 0) + 1
        numbers.append(seen[r["passage_id"]])
    assert got["question_number"] == numbers and set(got["split"]) == {"validation"}


@pytest.mark.parametrize("kwargs, message", [
    ({"schema": "belebele"}, "belebele is the layout of multiple-choice records; this dataset holds topic records"),
    ({"schema": "squad"}, "expected one of ours, belebele, sib200"),
    ({"hub_repo": "https://huggingface.co/x"}, "expected a Hub dataset id ORG/NAME"),
    ({"hub_repo": "org/x", "lm_eval_data_root": "/srv"}, "give one"),
])
def test_bad_hub_options_are_usage_errors(tmp_path, kwargs, message):
    with pytest.raises(UsageError, match=message):
        run_export(ExportOptions(EXPORT_DATA / "sib_small", tmp_path / "out", **kwargs))
    assert not (tmp_path / "out").exists()


def test_schema_needs_flores_config_names(tmp_path):
    shutil.copytree(EXPORT_DATA / "sib_small" / "hin_Deva", tmp_path / "in" / "hindi")
    with pytest.raises(UsageError, match="configs are FLORES-200 codes .* variant 'hindi' is not one"):
        run_export(ExportOptions(tmp_path / "in", tmp_path / "out", schema="sib200"))


def test_label_outside_the_curated_list_names_the_row(tmp_path):
    shutil.copytree(EXPORT_DATA / "sib_small", tmp_path / "in")
    test = tmp_path / "in" / "hin_Latn" / "test.tsv"
    lines = test.read_text(encoding="utf-8").splitlines()
    index_id, _, text = lines[2].split("\t")
    lines[2] = "\t".join([index_id, "weather", text])
    test.write_text("\n".join(lines) + "\n", encoding="utf-8")
    # lines[2]: the second record after the header line
    with pytest.raises(SchemaError, match=r"hin_Latn/test.tsv, row 2, field category: label 'weather' is not in "
                                          r"the curated label list"):
        run_export(ExportOptions(tmp_path / "in", tmp_path / "out"))


def test_cli_options_reach_the_export(tmp_path):
    res = CliRunner().invoke(cli, ["export", str(EXPORT_DATA / "sib_small"), "--out", str(tmp_path / "e"),
                                   "--schema", "sib200", "--hub-repo", "my-org/sib-hi", "--lm-eval"])
    assert res.exit_code == 0, res.output
    assert (tmp_path / "e" / "hin_Deva" / "validation.parquet").is_file()
    task = (tmp_path / "e" / "lm_eval" / "sib_small_hin_Deva.yaml").read_text(encoding="utf-8")
    assert "dataset_path: my-org/sib-hi\ndataset_name: hin_Deva\n" in task
    res = CliRunner().invoke(cli, ["export", str(EXPORT_DATA / "sib_small"), "--out", str(tmp_path / "f"),
                                   "--schema", "belebele"])
    assert res.exit_code == 2 and res.output.startswith("error: field --schema: belebele is the layout")


# --- invariants (hypothesis) ----------------------------------------------------------------------------

from hypothesis import given, settings, strategies as st  # noqa: E402

_labels = st.lists(st.text(min_size=1, max_size=12), min_size=1, max_size=8, unique=True)


@settings(max_examples=60, deadline=None)
@given(data=st.data(), labels=_labels)
def test_class_labels_round_trip_through_the_stored_indices(data, labels):
    import pyarrow as pa

    from builder.export.hub import typed_table as _typed
    from schemas.features import decode_class_labels

    values = data.draw(st.lists(st.sampled_from(labels), min_size=0, max_size=20))
    table = pa.table({"index_id": pa.array(range(len(values)), pa.int64()), "category": pa.array(values, pa.string()),
                      "text": pa.array(["t"] * len(values), pa.string())})
    typed, features = _typed(table, "topic", labels, Path("x.tsv"))
    assert typed.column("category").to_pylist() == [labels.index(v) for v in values]
    assert features["category"].names == labels
    assert list(decode_class_labels(typed.to_pandas(), typed.schema)["category"]) == values


@settings(max_examples=60, deadline=None)
@given(passages=st.lists(st.sampled_from(["p1", "p2", "p3"]), min_size=1, max_size=15),
       answers=st.data())
def test_belebele_layout_keeps_every_row_and_numbers_questions_per_passage(passages, answers):
    import pyarrow as pa

    from builder.export.published import SCHEMA

    n = len(passages)
    nums = answers.draw(st.lists(st.integers(1, 4), min_size=n, max_size=n))
    cols = {c: pa.array([f"{c}{i}" for i in range(n)], pa.string()) for c in
            ("dataset", "split", "question_id", "passage", "question", "answer1", "answer2", "answer3", "answer4",
             "correct_answer", "language", "license")}
    cols["passage_id"] = pa.array(passages, pa.string())
    cols["split"] = pa.array(["dev"] * n, pa.string())
    cols["correct_answer_num"] = pa.array(nums, pa.int64())
    out = SCHEMA["belebele"].apply(pa.table(cols))
    assert out.num_rows == n and out.column("license").to_pylist() == [f"license{i}" for i in range(n)]
    assert out.column("correct_answer_num").to_pylist() == [str(x) for x in nums]
    assert set(out.column("split").to_pylist()) == {"validation"}
    numbers = out.column("question_number").to_pylist()
    for p in set(passages):  # 1, 2, ..., k within each passage, in row order
        assert [q for q, pp in zip(numbers, passages) if pp == p] == list(range(1, passages.count(p) + 1))
    assert out.column("link").to_pylist() == passages
