"""`builder qc` exit codes, reports and the golden Markdown report."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from builder.cli.main import cli

QC_DATA = Path(__file__).resolve().parents[1] / "data" / "qc"


def _run(*args):
    return CliRunner().invoke(cli, ["qc", *map(str, args)])


def test_clean_set_exits_0_and_writes_both_reports(tmp_path):
    result = _run(QC_DATA / "clean", "--out", tmp_path, "-j", "1")
    assert result.exit_code == 0, result.output
    assert "qc passed" in result.output
    report = json.loads((tmp_path / "qc_report.json").read_text(encoding="utf-8"))
    assert report["passed"] is True and report["failed"] == []
    for entry in report["checks"]:
        assert {"variant", "check", "passed", "statistic", "p_value", "value", "threshold"} <= set(entry)
    names = {c["check"] for c in report["checks"]}
    assert "bow_probe" in names and "overlap_ttest:token_share" in names
    assert (tmp_path / "qc_report.md").read_text(encoding="utf-8").startswith("# QC report")


def test_failed_gate_exits_1_with_one_line(tmp_path):
    result = _run(QC_DATA / "always_a", "--out", tmp_path, "-j", "1")
    assert result.exit_code == 1
    assert result.output.strip().splitlines()[-1].startswith("error: qc gate failed: 1 of ")
    assert json.loads((tmp_path / "qc_report.json").read_text(encoding="utf-8"))["passed"] is False


@pytest.mark.parametrize("args", [
    [QC_DATA / "broken"],                                       # malformed JSONL line
    [QC_DATA / "does-not-exist"],                               # missing folder
    [QC_DATA / "clean", "--config", QC_DATA / "bad_config.yaml"],  # unknown config key
    [QC_DATA / "clean", "--config", QC_DATA / "missing.yaml"],     # missing config
    [QC_DATA / "clean", "--contamination-against", QC_DATA / "nowhere"],
])
def test_unreadable_input_or_config_exits_2(tmp_path, args):
    result = _run(*args, "--out", tmp_path)
    assert result.exit_code == 2, result.output
    assert result.output.strip().startswith("error: ")
    assert "Traceback" not in result.output
    assert not (tmp_path / "qc_report.json").exists()


def test_a_loader_error_exits_2_with_the_loaders_own_line(tmp_path):
    """The gate converts the read error to GateInputError (exit 2); the line names the same file and line."""
    from schemas.dataset import load_dataset_dir
    from schemas.errors import GateInputError, SchemaError

    with pytest.raises(SchemaError) as raised:
        load_dataset_dir(QC_DATA / "broken")
    result = _run(QC_DATA / "broken", "--out", tmp_path, "-j", "1")
    assert result.exit_code == 2, result.output
    assert result.output.strip().splitlines()[-1] == f"error: {raised.value}"
    assert "test.jsonl, line 5: malformed JSON" in result.output

    result = CliRunner().invoke(cli, ["--traceback", "qc", str(QC_DATA / "broken"), "--out", str(tmp_path)])
    assert isinstance(result.exception, GateInputError) and isinstance(result.exception.__cause__, SchemaError)
    assert result.exception.exit_code == 2


def test_a_failed_gate_is_qcgatefailed_exit_1(tmp_path):
    from schemas.errors import QCGateFailed

    result = CliRunner().invoke(cli, ["--traceback", "qc", str(QC_DATA / "always_a"), "--out", str(tmp_path),
                                      "-j", "1"])
    assert isinstance(result.exception, QCGateFailed) and result.exception.exit_code == 1


def test_variant_comma_list_and_repeated_option_check_the_same_variants(tmp_path):
    comma, repeat = tmp_path / "comma", tmp_path / "repeat"
    a = _run(QC_DATA / "pivot", "--variant", "eng_Latn,hin_Deva", "--out", comma, "-j", "1")
    b = _run(QC_DATA / "pivot", "--variant", "eng_Latn", "--variant", "hin_Deva", "--out", repeat, "-j", "1")
    assert a.exit_code == b.exit_code == 1, a.output  # hin_Deva:script_consistency fails in both
    assert "qc: 2 variant(s)" in a.output and "qc: 2 variant(s)" in b.output
    report = json.loads((comma / "qc_report.json").read_text(encoding="utf-8"))
    assert {c["variant"] for c in report["checks"]} == {"eng_Latn", "hin_Deva"}
    for name in ("qc_report.json", "qc_report.md"):
        assert (comma / name).read_bytes() == (repeat / name).read_bytes()


def test_reports_are_byte_identical_on_rerun(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    assert _run(QC_DATA / "pivot", "--out", a, "-j", "2").exit_code == 1
    assert _run(QC_DATA / "pivot", "--out", b, "-j", "1").exit_code == 1
    for name in ("qc_report.json", "qc_report.md"):
        assert (a / name).read_bytes() == (b / name).read_bytes()


def test_markdown_report_golden(tmp_path, golden):
    assert _run(QC_DATA / "longest", "--out", tmp_path, "-j", "1").exit_code == 1
    text = (tmp_path / "qc_report.md").read_text(encoding="utf-8")
    lines = text.splitlines()
    first_row = next(i for i, ln in enumerate(lines) if ln.startswith("| FAIL"))
    assert "`length_bias:longest`" in text and "Belebele probe 0.28 vs chance 0.25" in text
    assert all(not ln.startswith("| pass") for ln in lines[first_row:first_row + 3])  # failing first
    golden("qc/longest_qc_report.md", text)


def test_ci_subprocess_exit_codes(tmp_path):
    """What a CI job does: run the console script and branch on its exit code."""
    exe = shutil.which("builder")
    cmd = [exe] if exe else [sys.executable, "-m", "builder"]
    clean = tmp_path / "clean-test"
    clean.mkdir()
    shutil.copy(QC_DATA / "clean" / "test.jsonl", clean / "test.jsonl")  # the test split alone: faster
    codes = {}
    for name, folder in (("clean", clean), ("always_a", QC_DATA / "always_a"), ("broken", QC_DATA / "broken")):
        proc = subprocess.run([*cmd, "qc", str(folder), "--out", str(tmp_path / name), "-j", "1"],
                              capture_output=True, text=True, timeout=300)
        codes[name] = proc.returncode
    assert codes == {"clean": 0, "always_a": 1, "broken": 2}


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_variant_read_by_its_worker_still_exits_2_naming_the_file(tmp_path, jobs):
    """Variants are read where they are checked; a broken one is an input error, not a crash or a report."""
    data = tmp_path / "data"
    shutil.copytree(QC_DATA / "pivot", data)
    (data / "zul_Latn").mkdir()
    (data / "zul_Latn" / "test.parquet").write_bytes(b"PAR1 truncated")
    result = _run(data, "--out", tmp_path / "out", "-j", jobs)
    assert result.exit_code == 2, result.output
    line = result.output.strip().splitlines()[-1]
    assert line.startswith("error: ") and "zul_Latn/test.parquet" in line and "cannot read Parquet" in line
    assert not (tmp_path / "out" / "qc_report.json").exists()
