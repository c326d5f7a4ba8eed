"""One line for every failure (click's usage errors, OS errors, interruptions) and output folders written whole."""
from __future__ import annotations

import errno
import shutil
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from builder.cli import main as cli_main
from schemas.runtime.outputs import MARKER, written_by

DATA = Path(__file__).parents[1] / "data"
PREDICTIONS = DATA / "evaluation" / "topic_predictions.jsonl"


def invoke(*args):
    return CliRunner().invoke(cli_main.cli, [str(a) for a in args])


@pytest.mark.parametrize("args, line", [
    (["--bogus"], "error: No such option '--bogus'; see 'builder --help'"),
    (["frobnicate"], "error: No such command 'frobnicate'; see 'builder --help'"),
    (["assemble"], "error: Missing argument 'RECIPE'; see 'builder assemble --help'"),
    (["evaluate", "predictions", PREDICTIONS, "--task", "colour", "--out", "x"],
     "error: Invalid value for '--task': 'colour' is not one of 'topic', 'mc'; "
     "see 'builder evaluate predictions --help'"),
    (["annotate", "split", PREDICTIONS, "--ratios", "a,b", "--out", "x"],
     "error: Invalid value for '--ratios': expected three comma-separated numbers, found 'a,b'; "
     "see 'builder annotate split --help'"),
])
def test_click_usage_errors_are_one_line_with_exit_code_2(args, line):
    result = invoke(*args)
    assert result.exit_code == 2
    assert result.stderr == line + "\n" and result.stdout == ""


def test_a_group_without_its_subcommand_still_shows_its_help():
    result = invoke("annotate")
    assert result.exit_code in (0, 2) and "Commands:" in result.output


def _group_raising(monkeypatch, exc):
    @click.command()
    def boom():
        raise exc

    monkeypatch.setattr(cli_main.ToolkitGroup, "get_command", lambda self, ctx, name: boom if name == "boom" else None)


def test_an_os_error_no_stage_turned_into_a_toolkit_error_is_still_one_line_and_never_exit_1(monkeypatch):
    _group_raising(monkeypatch, PermissionError(errno.EACCES, "Permission denied", "/data/corpus.tsv"))
    result = invoke("boom")
    assert (result.exit_code, result.stderr) == (2, "error: /data/corpus.tsv: permission denied\n")
    assert isinstance(invoke("--traceback", "boom").exception, PermissionError)


def test_ctrl_c_exits_130_with_one_line(monkeypatch):
    _group_raising(monkeypatch, KeyboardInterrupt())
    result = invoke("boom")
    assert result.exit_code == 130
    assert result.stderr == ("error: interrupted by Ctrl-C; workers stopped, temporary files removed, "
                             "no output left half-written\n")


def test_no_verify_is_a_documented_global_option():
    result = invoke("--help")
    assert "--no-verify" in result.output and "manifest.json" in result.output


# -- output folders are written whole, by one command ----------------------------------------------------------

def test_a_later_evaluate_run_replaces_its_folder_whole(tmp_path):
    out = tmp_path / "llm"
    result = invoke("evaluate", "predictions", PREDICTIONS, "--task", "topic", "--gold", DATA / "sib200" / "annotated",
                    "--out", out)
    assert result.exit_code == 0, result.stderr
    first = sorted(p.name for p in out.iterdir())
    assert first == [MARKER, "items.jsonl", "results.csv", "results.json", "results.md"]
    assert written_by(out) == "evaluate predictions"

    # another subcommand may not take the folder over (it would delete items.jsonl or leave it stale)
    result = invoke("evaluate", "baselines", DATA / "sib200" / "annotated", "--variant", "eng_Latn",
                    "--baseline", "majority", "--out", out)
    assert result.exit_code == 2 and "holding the output of 'builder evaluate predictions'" in result.stderr
    assert sorted(p.name for p in out.iterdir()) == first

    # an output folder of an earlier version (no marker): replaced whole, nothing stale left beside the results
    legacy = tmp_path / "legacy"
    shutil.copytree(out, legacy)
    (legacy / MARKER).unlink()
    result = invoke("evaluate", "baselines", DATA / "sib200" / "annotated", "--variant", "eng_Latn",
                    "--baseline", "majority", "--out", legacy)
    assert result.exit_code == 0, result.stderr
    assert "items.jsonl" not in {p.name for p in legacy.iterdir()}
    assert written_by(legacy) == "evaluate baselines"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_adjudicate_refuses_an_out_folder_that_holds_its_filled_sheet(tmp_path):
    ratings = DATA / "annotation" / "sib_small_long.csv"
    out = tmp_path / "adj"
    assert invoke("annotate", "adjudicate", ratings, "--out", out).exit_code == 0
    sheet = out / "adjudication_sheet.csv"
    filled = sheet.read_bytes()
    result = invoke("annotate", "adjudicate", ratings, "--sheet", sheet, "--out", out)
    assert result.exit_code == 2
    assert result.stderr == f"error: --out {out} would replace the folder that holds the input {sheet}; " \
                            "choose another --out\n"
    assert sheet.read_bytes() == filled


def test_qc_writes_its_report_pair_into_the_dataset_folder_and_refuses_a_foreign_one(tmp_path):
    dataset = tmp_path / "sib_small"
    shutil.copytree(DATA / "export" / "sib_small", dataset)
    before = sorted(p.name for p in dataset.iterdir())
    result = invoke("-q", "qc", dataset, "-j", "1")
    assert result.exit_code in (0, 1), result.stderr
    assert sorted(p.name for p in dataset.iterdir()) == sorted({*before, "qc_report.json", "qc_report.md"})
    foreign = tmp_path / "notes"
    foreign.mkdir()
    (foreign / "todo.txt").write_text("mine\n")
    result = invoke("-q", "qc", dataset, "-j", "1", "--out", foreign)
    assert result.exit_code == 2 and "not an earlier qc output folder" in result.stderr
    assert [p.name for p in foreign.iterdir()] == ["todo.txt"]
