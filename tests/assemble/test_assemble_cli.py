"""`builder assemble`: exit codes first, output second; one real subprocess run."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from builder.cli.main import cli

ROOT = Path(__file__).parents[2]
EXAMPLE = ROOT / "examples" / "belebele-train.yaml"
CRAFTED = ROOT / "tests" / "data" / "assemble"


def invoke(*args):
    return CliRunner().invoke(cli, list(map(str, args)))


def test_example_prints_per_source_table(tmp_path, golden):
    result = invoke("assemble", EXAMPLE, "--out", tmp_path / "out")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    golden("assemble/belebele-train-table.txt", "\n".join(lines[:-1]) + "\n")  # last line names tmp_path
    assert lines[-1] == f"wrote {tmp_path / 'out'}: train 96, dev 102 rows; 41 dropped (dropped.jsonl); manifest.json"
    assert (tmp_path / "out" / "manifest.json").is_file()


def test_skip_counts_reader_reason(tmp_path):
    result = invoke("assemble", CRAFTED / "bad-race.yaml", "--out", tmp_path / "o", "--on-error", "skip",
                    "--seed", "3")
    assert result.exit_code == 0, result.output
    assert "malformed_json 1" in result.stdout and "fill_in_blank 1" in result.stdout
    manifest = json.loads((tmp_path / "o" / "manifest.json").read_text())
    assert manifest["seed"] == 3 and manifest["on_error"] == "skip"


def test_bad_input_is_exit_1_with_one_line(tmp_path):
    result = invoke("assemble", CRAFTED / "bad-race.yaml", "--out", tmp_path / "o")
    assert result.exit_code == 1
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: ")
    assert "2.txt, line 1: malformed JSON" in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "o").exists()


def test_missing_source_folder_is_exit_1(tmp_path):
    recipe = tmp_path / "r.yaml"
    recipe.write_text("name: x\nsources:\n  - {name: R, reader: race, path: nowhere, splits: {train: train}}\n")
    result = invoke("assemble", recipe, "--out", tmp_path / "o")
    assert result.exit_code == 1
    assert result.stderr.startswith("error: ") and "nowhere" in result.stderr


def test_recipe_errors_are_exit_1_naming_file_and_key(tmp_path):
    recipe = tmp_path / "r.yaml"
    recipe.write_text("name: x\nsources:\n  - {name: R, reader: race, path: p, splits: {train: train}, "
                      "filters: [blanks]}\n")
    result = invoke("assemble", recipe, "--out", tmp_path / "o")
    assert result.exit_code == 1
    assert result.stderr == (f"error: {recipe}, field sources[0].filters[0]: unknown filter 'blanks'; known: "
                             "complete_options, duplicate_question, empty_option, empty_passage, fill_in_blank, "
                             "sample_four_options, too_many_sentences\n")
    result = invoke("assemble", tmp_path / "missing.yaml", "--out", tmp_path / "o")
    assert result.exit_code == 1 and "recipe file not found" in result.stderr


def test_usage_errors_are_exit_2(tmp_path):
    assert invoke("assemble", EXAMPLE).exit_code == 2  # --out missing
    result = invoke("assemble", EXAMPLE, "--out", tmp_path / "o", "--on-error", "ignore")
    assert result.exit_code == 2 and "'ignore' is not one of 'raise', 'skip'" in result.stderr
    assert invoke("assemble", EXAMPLE, "--out", tmp_path / "o", "--seed", "-1").exit_code == 2
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "notes.txt").write_text("x")
    result = invoke("assemble", EXAMPLE, "--out", busy)
    assert result.exit_code == 2 and "without manifest.json" in result.stderr


def test_traceback_flag_shows_the_stack(tmp_path):
    result = invoke("--traceback", "assemble", CRAFTED / "bad-race.yaml", "--out", tmp_path / "o")
    assert result.exit_code != 0 and result.exception is not None


def test_console_script_runs_the_example(tmp_path):
    exe = shutil.which("builder") or str(Path(sys.executable).with_name("builder"))
    proc = subprocess.run([exe, "assemble", "examples/belebele-train.yaml", "--out", str(tmp_path / "out")],
                          cwd=ROOT, capture_output=True, text=True, timeout=120, env={**os.environ, "COLUMNS": "100"})
    assert proc.returncode == 0, proc.stderr
    assert "MCTest_500" in proc.stdout and "total" in proc.stdout
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [  # .builder.json: an assemble output
        ".builder.json", "dev.jsonl", "dev.parquet", "dev.tsv", "dropped.jsonl", "manifest.json", "train.jsonl",
        "train.parquet", "train.tsv"]


READER_FIXTURES = ROOT / "tests" / "data" / "readers"  # the readers' crafted bad inputs (read only)


@pytest.mark.parametrize("reader, folder", [
    ("mctest", "mctest_ans_mismatch"),
    ("mctest", "mctest_letter_out_of_range"),
    ("race", "race_letter_out_of_range"),
    ("mcscript", "mcscript_malformed_xml"),
    ("sciq", "sciq_missing_field"),
])
def test_reader_errors_exit_1_or_are_counted_under_skip(tmp_path, reader, folder):
    recipe = tmp_path / "r.yaml"
    recipe.write_text(f"name: bad\nsources:\n  - {{name: S, reader: {reader}, path: {READER_FIXTURES / folder}, "
                      "splits: {train: train}}\n", encoding="utf-8")
    result = invoke("assemble", recipe, "--out", tmp_path / "raise")
    assert result.exit_code == 1, result.output
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1
    assert "Traceback" not in result.stderr
    result = invoke("assemble", recipe, "--out", tmp_path / "skip", "--on-error", "skip")
    assert result.exit_code == 0, result.output
    manifest = json.loads((tmp_path / "skip" / "manifest.json").read_text())
    reader_reasons = {d["reason"] for d in map(json.loads, (tmp_path / "skip" / "dropped.jsonl").read_text().splitlines())
                      if d["step"] == "reader"}
    assert reader_reasons and reader_reasons <= {d["reason"] for d in manifest["dropped"]}
    assert all(c["read"] == c["kept"] + c["dropped"] for c in manifest["counts"])


# --- the task the command adapts (builder.tasks.assemble) ---------------------------------------------------

def test_the_task_returns_what_the_command_prints_and_the_drops_as_ledger_rows(tmp_path):
    import dataclasses

    from builder.tasks.assemble import AssembleOptions, AssembleResult, run_assemble
    from schemas.ledger import DropRow

    options = AssembleOptions(recipe=CRAFTED / "bad-race.yaml", out=tmp_path / "task", on_error="skip", seed=3, jobs=2)
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.seed = 4
    assert (AssembleOptions(EXAMPLE, tmp_path).on_error, AssembleOptions(EXAMPLE, tmp_path).seed,
            AssembleOptions(EXAMPLE, tmp_path).jobs) == ("raise", None, 1)
    done = run_assemble(options)
    assert isinstance(done, AssembleResult) and done.warnings == []
    assert done.drops == [DropRow("RACE", "fill_in_blank", 1, split="train"),
                          DropRow("RACE", "malformed_json", 1, split="train")]
    assert done.manifest == json.loads((tmp_path / "task" / "manifest.json").read_text(encoding="utf-8"))
    assert (done.manifest["seed"], done.manifest["on_error"], done.result.seed) == (3, "skip", 3)
    cli_run = invoke("assemble", CRAFTED / "bad-race.yaml", "--out", tmp_path / "task", "--on-error", "skip",
                     "--seed", "3", "-j", "1")
    assert cli_run.exit_code == 0, cli_run.output
    assert cli_run.stdout == "\n".join(done.lines) + "\n"  # the command prints the task's lines, byte for byte
    assert done.lines[-1] == f"wrote {tmp_path / 'task'}: train 4 rows; 2 dropped (dropped.jsonl); manifest.json"


def test_the_task_reports_no_progress_off_a_terminal(tmp_path):
    from builder.tasks.assemble import AssembleOptions, run_assemble
    from builder.tasks.base import Reporter

    lines = []
    run_assemble(AssembleOptions(CRAFTED / "bad-race.yaml", tmp_path / "o", on_error="skip"),
                 Reporter(write=lines.append, terminal=False))
    assert lines == []
