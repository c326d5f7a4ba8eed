"""The shared loader reads the layouts the toolkit writes."""
from pathlib import Path

import pandas as pd
import pytest

from schemas.codes import variant_script
from schemas.dataset import load_dataset_dir
from schemas.io import write_parquet_atomic
from schemas import SchemaError, SourceError

SIB = Path(__file__).parents[1] / "data" / "sib200"


def test_variant_folders_of_sib200():
    ds = load_dataset_dir(SIB / "annotated", variants=["eng_Latn", "hin_Deva"])
    assert ds.kind == "topic"
    assert ds.variants == ["eng_Latn", "hin_Deva"]
    assert ds.splits("hin_Deva") == ["train", "dev", "test"]
    assert [len(ds.tables["hin_Deva"][s]) for s in ("train", "dev", "test")] == [701, 99, 204]
    assert ds.tables["hin_Deva"]["test"]["index_id"].dtype == "int64"


def test_single_variant_folder_is_named_after_the_folder():
    ds = load_dataset_dir(SIB / "annotated" / "nqo_Nkoo")
    assert ds.variants == ["nqo_Nkoo"]


def test_assembled_layout_groups_by_language(tmp_path):
    row = dict(dataset="race", split="train", passage_id="p", question_id="q", passage="P", question="Q",
               answer1="a", answer2="b", answer3="c", answer4="d", correct_answer="a", correct_answer_num=1,
               license="RACE-research")
    frame = pd.DataFrame([{**row, "language": "eng_Latn"}, {**row, "language": "fra_Latn"}])
    write_parquet_atomic(tmp_path / "train.parquet", frame)
    (tmp_path / "dropped.jsonl").write_text("")
    ds = load_dataset_dir(tmp_path)
    assert ds.kind == "mc"
    assert ds.variants == ["eng_Latn", "fra_Latn"]
    assert len(ds.tables["fra_Latn"]["train"]) == 1


def test_unknown_variant_names_the_nearest_known(tmp_path):
    """A folder of 24 variants (a release holds hundreds): the nearest ones and the count, not the list;
    a case typo finds its variant first."""
    with pytest.raises(SchemaError, match=r"unknown variant\(s\) eng_latn; nearest: eng_Latn, .*; 24 variants in"):
        load_dataset_dir(SIB / "annotated", variants=["eng_latn"])
    with pytest.raises(SchemaError, match=r"unknown variant\(s\) xxx_Latn; nearest: .*_Latn"):
        load_dataset_dir(SIB / "annotated", variants=["xxx_Latn"])
    small = tmp_path / "two"
    for v in ("eng_Latn", "hin_Deva"):
        (small / v).mkdir(parents=True)
        (small / v / "test.tsv").write_text((SIB / "annotated" / v / "test.tsv").read_text(encoding="utf-8"),
                                            encoding="utf-8")
    with pytest.raises(SchemaError, match=r"unknown variant\(s\) xxx_Latn; known: eng_Latn, hin_Deva$"):
        load_dataset_dir(small, variants=["xxx_Latn"])


def test_empty_folder_is_a_clear_error(tmp_path):
    with pytest.raises(SourceError, match="no split files found"):
        load_dataset_dir(tmp_path)


def test_variant_script():
    assert variant_script("hin_Deva") == "Deva"
    assert variant_script("results") is None


def test_lazy_load_reads_a_variant_when_first_used(tmp_path):
    from schemas.dataset import LazyTables

    src = SIB / "annotated"
    eager = load_dataset_dir(src)
    lazy = load_dataset_dir(src, lazy=True)
    assert isinstance(lazy.tables, LazyTables) and lazy.kind == eager.kind == "topic"
    assert lazy.variants == eager.variants and lazy.files == eager.files
    assert set(lazy.tables._loaded) == {lazy.variants[0]}  # only the first variant, to tell the kind
    assert lazy.splits("hin_Deva") == eager.splits("hin_Deva")
    assert "hin_Deva" not in lazy.tables._loaded
    fresh = lazy.tables.read("hin_Deva")  # read, not kept
    assert "hin_Deva" not in lazy.tables._loaded
    for split, frame in eager.tables["hin_Deva"].items():
        pd.testing.assert_frame_equal(fresh[split], frame)
        pd.testing.assert_frame_equal(lazy.tables["hin_Deva"][split], frame)
    assert "hin_Deva" in lazy.tables._loaded


def test_variant_filter_reads_only_the_variants_asked_for(tmp_path):
    src = SIB / "annotated"
    for name in ("eng_Latn", "fra_Latn"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "dev.tsv").write_bytes((src / name / "dev.tsv").read_bytes())
    (tmp_path / "zzz_Latn").mkdir()
    (tmp_path / "zzz_Latn" / "dev.parquet").write_bytes(b"not parquet")
    with pytest.raises(SourceError, match=r"zzz_Latn.*dev\.parquet.*cannot read Parquet"):
        load_dataset_dir(tmp_path)
    ds = load_dataset_dir(tmp_path, variants=["fra_Latn"])  # the broken variant is never read
    assert ds.variants == ["fra_Latn"] and len(ds.tables["fra_Latn"]["dev"]) > 0
    lazy = load_dataset_dir(tmp_path, lazy=True)
    assert lazy.variants == ["eng_Latn", "fra_Latn", "zzz_Latn"]
    with pytest.raises(SourceError, match=r"zzz_Latn.*dev\.parquet"):
        lazy.tables["zzz_Latn"]
