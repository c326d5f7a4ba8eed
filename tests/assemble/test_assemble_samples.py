"""End to end on the real shipped samples (tests/data/sources/) through the example recipe."""
from __future__ import annotations

import csv
import glob
import json
from collections import Counter, defaultdict
from pathlib import Path

import pandas as pd
import pytest

import builder.assemble.stream as stream
from builder.assemble import InternalError, assemble
from schemas.dataset import load_dataset_dir
from builder.recipe import load_recipe, recipe_from_dict
from builder.readers import get_reader
from schemas.errors import SourceError, UsageError
from schemas.records import mc_item_from_dict

ROOT = Path(__file__).parents[2]
EXAMPLE = ROOT / "examples" / "belebele-train.yaml"
SOURCES = ROOT / "tests" / "data" / "sources"
CRAFTED = ROOT / "tests" / "data" / "assemble"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("assemble") / "out"
    result, manifest = assemble(load_recipe(EXAMPLE), out)
    frames = {split: pd.read_parquet(out / f"{split}.parquet") for split in ("train", "dev")}
    ledger = [json.loads(line) for line in (out / "dropped.jsonl").read_text(encoding="utf-8").splitlines()]
    return out, result, manifest, frames, ledger


def race_blank_questions(splits):
    n = 0
    for split in splits:
        for f in glob.glob(str(SOURCES / "race" / "RACE" / split / "*" / "*.txt")):
            n += sum("_" in q for q in json.loads(Path(f).read_text(encoding="utf-8"))["questions"])
    return n


def test_race_fill_in_blank_drops_match_the_sample(built, tmp_path):
    _, _, manifest, _, ledger = built
    dropped = sum(d["count"] for d in manifest["dropped"] if d["source"] == "RACE" and d["reason"] == "fill_in_blank")
    assert dropped == race_blank_questions(["train", "dev"]) == 21
    assert sum(1 for d in ledger if d["source"] == "RACE" and d["reason"] == "fill_in_blank") == 21
    # taking test too (never done by Belebele) would drop 29
    data = {"name": "race-all", "sources": [{"name": "RACE", "reader": "race", "path": str(SOURCES / "race"),
            "splits": {"train": "train", "dev": "dev", "test": "test"}, "filters": ["fill_in_blank"]}]}
    result, _ = assemble(recipe_from_dict(data), tmp_path / "race-all")
    assert sum(n for (_, _, r), n in result.ledger.counts.items() if r == "fill_in_blank") == 29 \
        == race_blank_questions(["train", "dev", "test"])


def test_never_takes_test_and_mcscript_train_only(built):
    _, _, manifest, frames, _ = built
    assert {(c["source"], c["split"]) for c in manifest["counts"]} == {
        ("RACE", "train"), ("RACE", "dev"), ("SciQ", "train"), ("SciQ", "dev"), ("MCTest_500", "train"),
        ("MCTest_500", "dev"), ("MCScript", "train"), ("ReClor", "dev"), ("MultiRC", "train"), ("MultiRC", "dev")}
    for frame in frames.values():
        assert not frame["provenance"].map(lambda p: "test" in p["file"]).any()
    assert not (frames["dev"]["dataset"] == "MCScript").any()


def test_mctest_four_questions_per_story_and_letters_mapped(built):
    _, _, _, frames, _ = built
    truth = {}
    for split in ("train", "dev"):
        folder = SOURCES / "mctest" / "MCTest"
        stories = (folder / f"mc500.{split}.tsv").read_text(encoding="utf-8").splitlines()
        keys = (folder / f"mc500.{split}.ans").read_text(encoding="utf-8").splitlines()
        for story, key in zip(stories, keys):
            fields, letters = story.split("\t"), key.split("\t")
            for q in range(4):
                block = fields[3 + 5 * q: 8 + 5 * q]
                truth[(fields[0], q)] = block[1 + "ABCD".index(letters[q])]
    raw = list(get_reader("mctest")(SOURCES / "mctest", ["train", "dev"]))
    per_story = Counter(r.passage_id for r in raw)
    assert len(per_story) == 24 and set(per_story.values()) == {4}
    mct = pd.concat(frames.values())
    mct = mct[mct["dataset"] == "MCTest_500"]
    assert set(Counter(mct["passage_id"]).values()) == {4}  # a story is kept or dropped whole
    for row in mct.itertuples():
        q = int(row.question_id.rsplit("#", 1)[1])
        assert row.correct_answer == truth[(row.passage_id, q)]
        assert not row.question.startswith(("one:", "multiple:"))


def test_mcscript_ends_with_four_options_one_correct(built):
    _, _, _, frames, _ = built
    mcs = frames["train"][frames["train"]["dataset"] == "MCScript"]
    raw = {r.question_id: r for r in get_reader("mcscript")(SOURCES / "mcscript", ["train"])}
    assert len(mcs) == 43
    for row in mcs.itertuples():
        answers = [row.answer1, row.answer2, row.answer3, row.answer4]
        r = raw[row.question_id]
        assert len(set(answers)) == 4 and answers.count(row.correct_answer) == 1
        assert row.correct_answer == r.options[r.correct[0]]
        assert set(r.options) <= set(answers)
        added = set(answers) - set(r.options)
        same_passage = {o for q in raw.values() if q.passage_id == r.passage_id and q is not r for o in q.options}
        assert added <= same_passage


def test_every_kept_item_is_a_valid_mcitem(built):
    out, _, manifest, frames, _ = built
    for split, frame in frames.items():
        assert (frame["split"] == split).all()
        for rec in frame.to_dict("records"):
            item = mc_item_from_dict(rec, file=f"{split}.parquet", record=rec["question_id"])
            assert item.correct_answer == item.options[item.correct_answer_num - 1]
            assert list(item.options).count(item.correct_answer) == 1
            assert item.language == "eng_Latn" and item.license
            assert item.provenance.file and item.provenance.record
    licenses = {s["name"]: s["license"] for s in manifest["sources"]}
    assert licenses["RACE"] == "RACE-research" and licenses["SciQ"] == "CC-BY-NC-3.0"
    both = pd.concat(frames.values())
    assert (both.groupby("dataset")["license"].nunique() == 1).all()
    loaded = load_dataset_dir(out)
    assert loaded.kind == "mc" and loaded.splits("eng_Latn") == ["train", "dev"]


def test_manifest_and_ledger_shape(built):
    out, result, manifest, frames, ledger = built
    assert manifest["seed"] == 0 and manifest["recipe"] == "belebele-train"
    for c in manifest["counts"]:
        assert set(c) == {"source", "split", "read", "kept", "dropped"}
        assert c["read"] == c["kept"] + c["dropped"]
    for d in manifest["dropped"]:
        assert set(d) == {"source", "split", "reason", "count"} and d["count"] > 0
    assert sum(c["kept"] for c in manifest["counts"]) == sum(len(f) for f in frames.values())
    assert sum(c["dropped"] for c in manifest["counts"]) == len(ledger) == sum(d["count"] for d in manifest["dropped"])
    for entry in ledger:
        assert {"source", "split", "file", "record_id", "reason"} <= set(entry)
    assert sorted(manifest["files"]) == sorted(p.name for p in out.iterdir()
                                               if p.name not in ("manifest.json", ".builder.json"))
    from schemas.io import sha256_file
    for name, digest in manifest["files"].items():
        assert sha256_file(out / name) == digest
    assert {"python", "toolkit", "numpy", "pyarrow"} <= set(manifest["versions"])
    assert [s["name"] for s in manifest["sources"]] == ["RACE", "SciQ", "MCTest_500", "MCScript", "ReClor", "MultiRC"]
    assert manifest["sources"][0]["path"] == "../tests/data/sources/race"
    assert set(manifest["license_override"]) == {"terms", "reason"}


def test_tsv_and_jsonl_match_parquet(built):
    out, _, _, frames, _ = built
    for split, frame in frames.items():
        with open(out / f"{split}.tsv", encoding="utf-8", newline="") as fh:
            rows = list(csv.DictReader(fh, delimiter="\t"))
        header = list(rows[0])
        assert header[:12] == ["dataset", "split", "passage_id", "question_id", "passage", "question", "answer1",
                               "answer2", "answer3", "answer4", "correct_answer", "correct_answer_num"]
        assert [r["passage"] for r in rows] == frame["passage"].tolist()  # newlines survive the quoting
        assert [int(r["correct_answer_num"]) for r in rows] == frame["correct_answer_num"].tolist()
        lines = (out / f"{split}.jsonl").read_text(encoding="utf-8").splitlines()
        assert [json.loads(x)["question_id"] for x in lines] == frame["question_id"].tolist()


def test_rerun_is_byte_identical(built, tmp_path):
    out, _, manifest, _, _ = built
    again = tmp_path / "again"
    _, manifest2 = assemble(load_recipe(EXAMPLE), again)
    assert manifest2 == manifest
    for name in [*manifest["files"], "manifest.json"]:
        assert (again / name).read_bytes() == (out / name).read_bytes(), name


def test_seed_changes_the_order_and_is_recorded(built, tmp_path):
    _, _, manifest, frames, _ = built
    result, man = assemble(load_recipe(EXAMPLE), tmp_path / "s7", seed=7)
    assert man["seed"] == 7
    other = pd.read_parquet(tmp_path / "s7" / "train.parquet")
    assert other["question_id"].tolist() == frames["train"]["question_id"].tolist()
    assert other["correct_answer"].tolist() == frames["train"]["correct_answer"].tolist()
    assert other["correct_answer_num"].tolist() != frames["train"]["correct_answer_num"].tolist()


def test_on_error_raise_and_skip_with_a_crafted_bad_file(tmp_path):
    recipe = load_recipe(CRAFTED / "bad-race.yaml")
    with pytest.raises(SourceError, match=r"2\.txt, line 1: malformed JSON.*\[malformed_json\]"):
        assemble(recipe, tmp_path / "raise")
    assert not (tmp_path / "raise").exists()
    _, manifest = assemble(recipe, tmp_path / "skip", on_error="skip")
    assert manifest["counts"] == [{"source": "RACE", "split": "train", "read": 6, "kept": 4, "dropped": 2}]
    assert {(d["reason"], d["count"]) for d in manifest["dropped"]} == {("malformed_json", 1), ("fill_in_blank", 1)}
    ledger = [json.loads(x) for x in (tmp_path / "skip" / "dropped.jsonl").read_text().splitlines()]
    bad = next(d for d in ledger if d["reason"] == "malformed_json")
    assert bad["file"].endswith("2.txt") and bad["step"] == "reader" and bad["record_id"] == "line 1"


def test_counts_are_checked_before_anything_is_written(tmp_path, monkeypatch):
    real, once = stream._SplitRun.take, []

    def take(self, payload):  # simulate a record that vanished
        real(self, payload)
        if not once:
            self.count.read += 1
            once.append(1)

    monkeypatch.setattr(stream._SplitRun, "take", take)
    with pytest.raises(InternalError, match="read 7 records but kept 4 and dropped 2; nothing was written"):
        assemble(load_recipe(CRAFTED / "bad-race.yaml"), tmp_path / "out", on_error="skip")
    assert not (tmp_path / "out").exists()


def test_out_folder_that_is_not_an_assembly_is_refused(tmp_path):
    precious = tmp_path / "home"
    precious.mkdir()
    (precious / "thesis.tex").write_text("keep me")
    with pytest.raises(UsageError, match="non-empty folder without manifest.json: it is not an earlier assemble "
                                         "output, and the output folder is replaced as a whole"):
        assemble(load_recipe(CRAFTED / "bad-race.yaml"), precious, on_error="skip")
    assert (precious / "thesis.tex").read_text() == "keep me"


def test_rerun_replaces_an_earlier_output_whole(tmp_path):
    out = tmp_path / "out"
    recipe = load_recipe(CRAFTED / "bad-race.yaml")
    assemble(recipe, out, on_error="skip")
    (out / "stale.txt").write_text("old")
    assemble(recipe, out, on_error="skip")
    assert not (out / "stale.txt").exists() and (out / "manifest.json").is_file()


def test_the_manifest_records_the_recipe_the_sources_their_licenses_and_the_versions(tmp_path):
    # its own assembly, not the module's fixture: mutmut links a test to what the test itself calls
    from builder.assemble import versions

    recipe = load_recipe(EXAMPLE)
    result, manifest = assemble(recipe, tmp_path / "out")
    frames = {split: pd.read_parquet(tmp_path / "out" / f"{split}.parquet") for split in ("train", "dev")}
    ledger = [json.loads(line) for line in (tmp_path / "out" / "dropped.jsonl").read_text(encoding="utf-8").splitlines()]
    assert sorted(manifest) == ["counts", "dropped", "dropped_by_reason", "files", "language", "license_override",
                                "max_sentences", "on_error", "recipe", "seed", "sources", "splits", "versions"]
    assert (manifest["recipe"], manifest["language"], manifest["max_sentences"], manifest["on_error"]) == (
        recipe.name, recipe.language, recipe.max_sentences, "raise")
    assert manifest["versions"] == versions() and {"toolkit", "python", "numpy", "pyarrow"} <= set(manifest["versions"])
    assert manifest["license_override"] == recipe.license_override.to_dict() and manifest["license_override"]["reason"]
    licenses = {name: set(frame.loc[frame["dataset"] == name, "license"]) for frame in frames.values()
                for name in set(frame["dataset"])}
    assert manifest["sources"] == [{**s.to_dict(), "license": result.licenses[s.name]} for s in recipe.sources]
    assert all(licenses.get(s["name"], {s["license"]}) == {s["license"]} for s in manifest["sources"])
    # each reason summed over every source and split (fill_in_blank: RACE train and dev, and SciQ)
    by_reason = Counter(d["reason"] for d in ledger)
    assert manifest["dropped_by_reason"] == dict(sorted(by_reason.items()))
    assert sum(1 for d in manifest["dropped"] if d["reason"] == "fill_in_blank") >= 2


def test_a_recipe_without_a_license_override_records_none(tmp_path):
    _, manifest = assemble(load_recipe(CRAFTED / "bad-race.yaml"), tmp_path / "out", on_error="skip")
    assert manifest["license_override"] is None


def test_parquet_files_are_zstd_with_statistics_the_required_schema_and_dictionaries_where_values_repeat(tmp_path):
    # what the Parquet writer is asked for, read back from the file's own metadata
    import pyarrow.parquet as pq

    from schemas.features import arrow_schema

    assemble(load_recipe(CRAFTED / "bad-race.yaml"), tmp_path / "out", on_error="skip")
    path = tmp_path / "out" / "train.parquet"
    assert pq.read_schema(path) == arrow_schema("mc", required=True).remove_metadata()
    assert not pq.read_schema(path).field("passage").nullable
    meta = pq.ParquetFile(path).metadata
    for i in range(meta.num_columns):
        column = meta.row_group(0).column(i)
        assert column.compression == "ZSTD" and column.statistics is not None and column.statistics.has_min_max
    # a dictionary page for the columns of one value per source and split only (output.DICTIONARY)
    dictionary = {meta.row_group(0).column(i).path_in_schema for i in range(meta.num_columns)
                  if "RLE_DICTIONARY" in meta.row_group(0).column(i).encodings}
    assert dictionary == {"dataset", "split", "language", "license", "provenance.corpus"}
