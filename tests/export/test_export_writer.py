"""`builder export`: layout, manifest, byte-identical re-export, atomicity, license stops, HF loading."""
from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from builder.cli.main import cli
from schemas.dataset import load_dataset_dir
from builder.tasks.export import ExportOptions, run_export
from schemas.errors import LicenseError, UsageError

EXPORT_DATA = Path(__file__).parents[1] / "data" / "export"
ANNOTATED = Path(__file__).parents[1] / "data" / "sib200" / "annotated"


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_layout_manifest_and_byte_identical_reexport(tmp_path):
    out = tmp_path / "out"
    res = CliRunner().invoke(cli, ["export", str(EXPORT_DATA / "mc_small"), "--out", str(out), "--lm-eval"])
    assert res.exit_code == 0, res.output
    assert "exported 1 variant(s)" in res.output
    first = _tree(out)
    assert {"README.md", "LICENSE", "ATTRIBUTION.md", "manifest.json", "eng_Latn/train.parquet",
            "eng_Latn/dev.parquet", "lm_eval/belebele_train_eng_Latn.yaml"} <= set(first)
    manifest = json.loads(first["manifest.json"])
    assert set(manifest["files"]) == set(first) - {"manifest.json"}
    for rel, entry in manifest["files"].items():
        assert entry["sha256"] == hashlib.sha256(first[rel]).hexdigest()
        assert entry["bytes"] == len(first[rel])
    assert manifest["files"]["eng_Latn/train.parquet"]["rows"] == 10
    assert manifest["variants"] == {"eng_Latn": {"dev": 8, "train": 10}}
    assert manifest["license_override"]["reason"].startswith("The set combines")
    assert manifest["build"]["seed"] == 0
    res = CliRunner().invoke(cli, ["export", str(EXPORT_DATA / "mc_small"), "--out", str(out), "--lm-eval"])
    assert res.exit_code == 0
    assert _tree(out) == first


def test_export_round_trips_through_the_loader_and_keeps_licenses(tmp_path):
    out = tmp_path / "out"
    run_export(ExportOptions(EXPORT_DATA / "mc_small", out))
    src = load_dataset_dir(EXPORT_DATA / "mc_small")
    back = load_dataset_dir(out)
    assert back.kind == "mc" and back.variants == ["eng_Latn"]
    for split in ("train", "dev"):
        a, b = src.tables["eng_Latn"][split], back.tables["eng_Latn"][split]
        assert list(b["question_id"]) == list(a["question_id"])
        assert list(b["license"]) == list(a["license"])
        assert list(b["correct_answer_num"]) == list(a["correct_answer_num"])
    # An export is itself exportable, with the same terms and override.
    again = run_export(ExportOptions(out, tmp_path / "again"))
    assert again.terms == "CC-BY-NC-3.0 AND MSR-LA AND RACE-research AND ReClor-research AND unknown"
    assert (tmp_path / "again" / "LICENSE").read_text() == (out / "LICENSE").read_text()


def test_topic_export_adds_the_license_column(tmp_path):
    out = tmp_path / "out"
    run_export(ExportOptions(EXPORT_DATA / "sib_small", out))
    table = pq.read_table(out / "hin_Latn" / "test.parquet")
    assert table.column_names == ["index_id", "category", "text", "license"]
    assert str(table.schema.field("index_id").type) == "int64"
    assert set(table.column("license").to_pylist()) == {"CC-BY-SA-4.0"}


def test_conflict_stops_the_export_and_leaves_the_previous_one(tmp_path):
    d = tmp_path / "mc"
    shutil.copytree(EXPORT_DATA / "mc_small", d)
    out = tmp_path / "out"
    run_export(ExportOptions(d, out))
    before = _tree(out)
    m = json.loads((d / "manifest.json").read_text())
    m["license_override"] = None
    (d / "manifest.json").write_text(json.dumps(m))
    with pytest.raises(LicenseError, match="2 split\\(s\\) have unresolved license conflicts, first eng_Latn/train"):
        run_export(ExportOptions(d, out))
    assert _tree(out) == before
    res = CliRunner().invoke(cli, ["export", str(d), "--out", str(out)])
    assert res.exit_code == 1
    assert "license_override" in res.output
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".out.")]  # no staging left behind


def test_sib_cc_by_sa_with_one_nc_record_is_a_conflict(tmp_path):
    d = tmp_path / "v"
    shutil.copytree(EXPORT_DATA / "mc_small", d)  # reuse the MC rows: relabel them all CC-BY-SA, one NC
    rows = [json.loads(x) for x in (d / "train.jsonl").read_text().splitlines()]
    for i, r in enumerate(rows):
        r["license"] = "CC-BY-NC-4.0" if i == 0 else "CC-BY-SA-4.0"
    (d / "train.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (d / "dev.jsonl").unlink()
    m = json.loads((d / "manifest.json").read_text())
    m["license_override"] = None
    (d / "manifest.json").write_text(json.dumps(m))
    with pytest.raises(LicenseError, match="CC-BY-SA-4.0 requires the split to carry its own terms"):
        run_export(ExportOptions(d, tmp_path / "out"))


def test_unknown_license_without_option_stops(tmp_path):
    res = CliRunner().invoke(cli, ["export", str(ANNOTATED), "--out", str(tmp_path / "o")])
    assert res.exit_code == 1
    assert "no license information" in res.output
    assert not (tmp_path / "o").exists()


def test_out_inside_the_input_is_refused(tmp_path):
    d = tmp_path / "mc"
    shutil.copytree(EXPORT_DATA / "mc_small", d)
    with pytest.raises(UsageError):
        run_export(ExportOptions(d, d / "export"))
    with pytest.raises(UsageError):
        run_export(ExportOptions(d, d))


def test_datasets_load_dataset_offline(tmp_path, monkeypatch):
    """Installs nothing: loads the export with datasets.load_dataset, HF_HUB_OFFLINE=1 (conftest)."""
    import os

    import datasets

    assert os.environ["HF_HUB_OFFLINE"] == "1"
    out = tmp_path / "out"
    run_export(ExportOptions(EXPORT_DATA / "sib_small", out))
    ds = datasets.load_dataset(str(out), "hin_Latn", cache_dir=str(tmp_path / "cache"))
    assert sorted(ds) == ["dev", "test", "train"]
    assert ds["train"].num_rows == 4
    from schemas.io import read_sib_tsv

    first = read_sib_tsv(EXPORT_DATA / "sib_small" / "hin_Latn" / "test.tsv")[0]
    assert (ds["test"][0]["index_id"], ds["test"][0]["text"]) == (int(first["index_id"]), first["text"])
    assert ds["train"].features["index_id"].dtype == "int64"
    mc_out = tmp_path / "mc"
    run_export(ExportOptions(EXPORT_DATA / "mc_small", mc_out))
    mc = datasets.load_dataset(str(mc_out), "eng_Latn", cache_dir=str(tmp_path / "cache"))
    assert mc["dev"].num_rows == 8
    row = mc["train"][0]
    assert row[f"answer{row['correct_answer_num']}"] == row["correct_answer"]
    assert row["provenance"]["corpus"]


def test_empty_split_is_exported_without_terms(tmp_path):
    d = tmp_path / "v"
    shutil.copytree(EXPORT_DATA / "sib_small", d)
    (d / "hin_Deva" / "dev.tsv").write_text("index_id\tcategory\ttext\n", encoding="utf-8")
    res = CliRunner().invoke(cli, ["licenses", str(d), "--json", "--intended-use", "commercial"])
    assert res.exit_code == 0, res.output
    rows = {(r["variant"], r["split"]): r for r in json.loads(res.stdout)}
    assert rows[("hin_Deva", "dev")]["records"] == 0 and rows[("hin_Deva", "dev")]["sources"] == []
    res = CliRunner().invoke(cli, ["licenses", str(d)])
    assert res.exit_code == 0 and "hin_Deva/dev: 0 records" in res.output
    run_export(ExportOptions(d, tmp_path / "out"))
    assert pq.read_table(tmp_path / "out" / "hin_Deva" / "dev.parquet").num_rows == 0
