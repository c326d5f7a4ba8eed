"""`builder licenses`: the per-split audit and its exit-code contract."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from builder.cli.main import cli

EXPORT_DATA = Path(__file__).parents[1] / "data" / "export"
ANNOTATED = Path(__file__).parents[1] / "data" / "sib200" / "annotated"
REPO = Path(__file__).parents[2]


def run(*args):
    return CliRunner().invoke(cli, list(map(str, args)))


@pytest.fixture(scope="module")
def assembled(tmp_path_factory) -> Path:
    """The Belebele-style training set, assembled from the shipped samples by the real recipe."""
    out = tmp_path_factory.mktemp("assembled") / "train"
    res = CliRunner().invoke(cli, ["-q", "assemble", str(REPO / "examples" / "belebele-train.yaml"),
                                   "--out", str(out)])
    assert res.exit_code == 0, res.output
    return out


def test_json_interface_on_the_assembled_training_set(assembled):
    res = run("licenses", assembled, "--json")
    assert res.exit_code == 0, res.output
    rows = json.loads(res.stdout)
    assert [(r["variant"], r["split"]) for r in rows] == [("eng_Latn", "train"), ("eng_Latn", "dev")]
    for r in rows:
        assert {"variant", "split", "terms", "commercial_use", "share_alike", "conflicts", "sources"} <= set(r)
        assert r["commercial_use"] is False
        assert all(set(s) == {"name", "license", "records"} for s in r["sources"])
        assert sum(s["records"] for s in r["sources"]) == r["records"]
        assert r["conflicts"] and all(c["overridden"] for c in r["conflicts"])  # the recipe's override
    dev = {s["name"]: s["license"] for s in rows[1]["sources"]}
    assert dev["ReClor"] == "ReClor-research" and dev["MCTest_500"] == "MSR-LA"


def test_intended_use_commercial_exits_1_on_the_assembled_training_set(assembled):
    res = run("licenses", assembled, "--intended-use", "commercial")
    assert res.exit_code == 1
    assert "do not allow commercial use: eng_Latn/train, eng_Latn/dev" in res.output
    assert run("licenses", assembled, "--intended-use", "research").exit_code == 0


def test_without_the_override_research_use_fails_too(tmp_path):
    d = tmp_path / "mc"
    shutil.copytree(EXPORT_DATA / "mc_small", d)
    m = json.loads((d / "manifest.json").read_text())
    m["license_override"] = None
    (d / "manifest.json").write_text(json.dumps(m))
    res = run("licenses", d, "--json")
    assert res.exit_code == 0  # conflicts are reported, not failed
    assert any(not c["overridden"] for r in json.loads(res.stdout) for c in r["conflicts"])
    res = run("licenses", d, "--intended-use", "research")
    assert res.exit_code == 1
    assert "(UNRESOLVED)" in res.output


def test_sib_folder_commercial_use_passes_with_license_option():
    res = run("licenses", ANNOTATED, "--license", "CC-BY-SA-4.0", "--intended-use", "commercial", "--json")
    assert res.exit_code == 0, res.output
    rows = json.loads(res.stdout)
    assert len(rows) == 24 * 3
    assert {r["terms"] for r in rows} == {"CC-BY-SA-4.0"} and all(r["share_alike"] for r in rows)


def test_variant_json_supplies_the_license():
    res = run("licenses", EXPORT_DATA / "sib_small")
    assert res.exit_code == 0, res.output
    assert "hin_Latn/test: 2 records" in res.output
    assert "SIB-200  CC-BY-SA-4.0" in res.output


def test_no_license_information_is_unreadable_exit_2():
    res = run("licenses", ANNOTATED)
    assert res.exit_code == 2
    assert "no license information" in res.output and "known ids: Apache-2.0" in res.output


def test_unknown_license_id_exit_2_lists_known_ids():
    res = run("licenses", ANNOTATED, "--license", "CC-BY-SA")
    assert res.exit_code == 2
    assert "unknown license id 'CC-BY-SA'; known ids:" in res.output and "RACE-research" in res.output


def test_unknown_id_in_a_record_names_file_and_row(tmp_path):
    d = tmp_path / "mc"
    shutil.copytree(EXPORT_DATA / "mc_small", d)
    lines = (d / "dev.jsonl").read_text().splitlines()
    row = json.loads(lines[3])
    row["license"] = "CC-BY-NC"
    lines[3] = json.dumps(row)
    (d / "dev.jsonl").write_text("\n".join(lines) + "\n")
    res = run("licenses", d)
    assert res.exit_code == 2
    assert "dev.jsonl, row 4, field license: unknown license id 'CC-BY-NC'" in res.output


def test_missing_folder_exit_2(tmp_path):
    res = run("licenses", tmp_path / "nope", "--intended-use", "commercial")
    assert res.exit_code == 2
    assert "not found" in res.output


def test_real_console_script(tmp_path):
    exe = shutil.which("builder") or [sys.executable, "-m", "builder"]
    cmd = ([exe] if isinstance(exe, str) else exe) + ["licenses", str(EXPORT_DATA / "mc_small"), "--json",
                                                      "--intended-use", "commercial"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, proc.stderr
    rows = json.loads(proc.stdout)
    assert all(r["commercial_use"] is False for r in rows)
    assert proc.stderr.startswith("error: 2 of 2 split(s) do not allow commercial use")
