"""builder.tasks.qc.run_qc called directly (no click): a verdict, not an exception; the pivot override."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from builder.tasks.base import Reporter
from builder.tasks.qc import QCOptions, run_qc
from schemas.errors import GateInputError

QC_DATA = Path(__file__).resolve().parents[1] / "data" / "qc"


def test_a_clean_set_passes_and_says_so_in_lines(tmp_path):
    clean = tmp_path / "clean"
    clean.mkdir()
    shutil.copy(QC_DATA / "clean" / "test.jsonl", clean / "test.jsonl")
    info: list[str] = []
    result = run_qc(QCOptions(clean, out=tmp_path / "r"), Reporter(write=info.append, terminal=False))
    written = json.loads((tmp_path / "r" / "qc_report.json").read_text(encoding="utf-8"))
    assert result.passed is True and written["passed"] is True and result.message is None
    assert (result.json_path, result.md_path) == (tmp_path / "r" / "qc_report.json", tmp_path / "r" / "qc_report.md")
    assert len(result.lines) == 1 and result.lines[0].startswith("qc passed: ")
    assert result.lines[0].endswith(f"report {result.md_path}")
    assert info[0] == f"qc: 1 variant(s) of mc data in {clean}" and info[-1].startswith("qc: 1/1 variants checked")
    assert result.drops == [] and result.warnings == []


def test_a_failed_gate_is_a_result_with_the_message_and_github_lines(tmp_path):
    result = run_qc(QCOptions(QC_DATA / "always_a", out=tmp_path, annotations="github", junit=tmp_path / "j.xml"))
    assert result.passed is False and result.report.passed is False
    assert result.message.startswith("qc gate failed: 1 of ") and result.message.endswith(f"see {result.md_path}")
    assert result.lines and all(line.startswith(("::error", "::warning")) for line in result.lines)
    assert (tmp_path / "j.xml").is_file()


def test_pivot_overrides_the_config_as_a_config_file_would(tmp_path):
    config = tmp_path / "c.yaml"
    config.write_text("pivot: fra_Latn\n", encoding="utf-8")
    by_file = run_qc(QCOptions(QC_DATA / "pivot", config=config, out=tmp_path / "file"))
    by_option = run_qc(QCOptions(QC_DATA / "pivot", out=tmp_path / "option", pivot="fra_Latn"))
    assert by_option.report.config["pivot"] == "fra_Latn"
    for name in ("qc_report.json", "qc_report.md"):
        assert (tmp_path / "file" / name).read_bytes() == (tmp_path / "option" / name).read_bytes()
    # with a config file too, the file's other settings stay and the pivot is the option's
    seeded = tmp_path / "s.yaml"
    seeded.write_text("seed: 7\npivot: eng_Latn\n", encoding="utf-8")
    both = run_qc(QCOptions(QC_DATA / "pivot", config=seeded, out=tmp_path / "both", pivot="hin_Deva"))
    assert (both.report.config["pivot"], both.report.config["seed"]) == ("hin_Deva", 7)


def test_an_unreadable_config_is_still_an_input_error(tmp_path):
    with pytest.raises(GateInputError):
        run_qc(QCOptions(QC_DATA / "clean", config=QC_DATA / "bad_config.yaml", out=tmp_path))
