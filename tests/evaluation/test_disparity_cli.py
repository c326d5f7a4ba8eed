"""``builder disparity``: exit codes, outputs, golden summary, determinism."""
from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from builder.cli.main import cli

DATA = Path(__file__).parents[1] / "data" / "disparity"
SMALL = DATA / "small_records.csv"


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def header(path: Path) -> list[str]:
    with open(path, encoding="utf-8", newline="") as fh:
        return next(csv.reader(fh))


@pytest.fixture(scope="module")
def small_out(tmp_path_factory):
    out = tmp_path_factory.mktemp("disparity") / "out"
    res = CliRunner().invoke(cli, ["disparity", str(SMALL), "--out", str(out)])
    assert res.exit_code == 0, res.output
    return out, res


def test_success_writes_every_output_with_the_interface_columns(small_out):
    out, res = small_out
    assert sorted(p.name for p in out.iterdir()) == ["languages.csv", "models.csv", "potentials.csv",
                                                     "prr.png", "records.csv", "summary.json", "summary.md"]
    assert header(out / "models.csv") == ["model", "mean_prr", "std_prr", "cv_prr"]
    assert header(out / "languages.csv") == ["language", "potential", "rank_potential", "mean_score",
                                             "rank_mean_score"]
    assert header(out / "records.csv")[-2:] == ["potential", "prr"]
    assert (out / "prr.png").read_bytes()[:4] == b"\x89PNG"
    summary = json.loads((out / "summary.json").read_text())
    assert summary["counts"] == {"records": 54, "models": 4, "languages": 6, "tasks": 3}
    assert "54 records: 4 models, 6 languages, 3 tasks" in res.stdout
    assert "beta-xl" in res.stdout.splitlines()[2]  # highest Mean-PRR first


def test_summary_markdown_matches_golden(small_out, golden):
    out, _ = small_out
    golden("disparity/summary.md", (out / "summary.md").read_text(encoding="utf-8"))


def test_rerun_is_byte_identical(small_out, tmp_path):
    out, _ = small_out
    res = run("disparity", SMALL, "--out", tmp_path / "again")
    assert res.exit_code == 0, res.output
    for p in out.iterdir():
        assert (tmp_path / "again" / p.name).read_bytes() == p.read_bytes(), p.name


def test_the_papers_json_shape_gives_the_same_models_csv(small_out, tmp_path):
    # the other formats are compared record by record in test_disparity_io.py
    out, _ = small_out
    res = run("disparity", DATA / "small_records.json", "--out", tmp_path / "json")
    assert res.exit_code == 0, res.output
    assert (tmp_path / "json" / "models.csv").read_text() == (out / "models.csv").read_text()


def test_aggregate_row_exits_1_naming_file_and_row(tmp_path):
    bad = DATA / "bad" / "aggregate_avg.csv"
    res = run("disparity", bad, "--out", tmp_path / "out")
    assert res.exit_code == 1
    assert res.stderr == (f"error: {bad}, line 7, field language: language 'Avg' is an aggregate, not a "
                          f"language; remove the row or pass --drop-aggregates\n")
    assert not (tmp_path / "out").exists()


def test_drop_aggregates_drops_and_counts(tmp_path, small_out):
    res = run("disparity", DATA / "bad" / "aggregate_avg.csv", "--out", tmp_path / "out", "--drop-aggregates")
    assert res.exit_code == 0, res.output
    assert "1 aggregate rows dropped" in res.stdout
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["dropped"] == {"by_reason": {"aggregate:avg": 1}, "total": 1}
    assert "- Rows dropped: 1 (aggregate:avg x1)." in (tmp_path / "out" / "summary.md").read_text()
    assert (tmp_path / "out" / "models.csv").read_text() == (small_out[0] / "models.csv").read_text()


@pytest.mark.parametrize("name, words", [
    ("bad_score.csv", "line 5, field score: expected a finite number, found 'n/a'"),
    ("missing_column.csv", "missing column(s): score"),
    ("duplicate.jsonl", "line 3: duplicate record"),
    ("invalid.json", "line 2: invalid JSON"),
    ("no_such_file.csv", "records file not found"),
])
def test_bad_input_exits_1_with_one_line(tmp_path, name, words):
    res = run("disparity", DATA / "bad" / name, "--out", tmp_path / "out")
    assert res.exit_code == 1
    assert words in res.stderr and res.stderr.count("\n") == 1 and res.stderr.startswith("error: ")


def test_a_failed_run_leaves_the_previous_output_in_place(tmp_path):
    out = tmp_path / "out"
    assert run("disparity", SMALL, "--out", out).exit_code == 0
    before = (out / "models.csv").read_bytes()
    assert run("disparity", DATA / "bad" / "bad_score.csv", "--out", out).exit_code == 1
    assert (out / "models.csv").read_bytes() == before


@pytest.mark.parametrize("args", [
    ["disparity", SMALL],  # no --out
    ["disparity", SMALL, "--out", "x", "--task-mean", "median"],
    ["disparity"],
])
def test_usage_errors_exit_2(args):
    res = run(*args)
    assert res.exit_code == 2
    assert res.output.startswith("error: ") and res.output.endswith("; see 'builder disparity --help'\n")


def test_refuses_to_replace_an_unrelated_folder(tmp_path):
    (tmp_path / "keep.txt").write_text("mine")
    res = run("disparity", SMALL, "--out", tmp_path)
    assert res.exit_code == 2
    assert "is not an earlier disparity output" in res.stderr
    assert (tmp_path / "keep.txt").read_text() == "mine"


def test_task_mean_all_shifts_potentials_but_not_ranks(tmp_path, small_out):
    res = run("disparity", SMALL, "--out", tmp_path / "all", "--task-mean", "all")
    assert res.exit_code == 0, res.output
    rows = {r["language"]: r for r in csv.DictReader(open(tmp_path / "all" / "languages.csv"))}
    paper = {r["language"]: r for r in csv.DictReader(open(small_out[0] / "languages.csv"))}
    shifts = {round(float(paper[k]["potential"]) - float(rows[k]["potential"]), 4) for k in rows}
    assert len(shifts) == 1 and shifts != {0.0}
    assert all(rows[k]["rank_potential"] == paper[k]["rank_potential"] for k in rows)


def test_console_script_runs_as_a_subprocess(tmp_path, small_out):
    exe = Path(sys.executable).with_name("builder")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "builder"]
    env = {**os.environ, "MPLBACKEND": "Agg"}
    ok = subprocess.run([*cmd, "disparity", str(SMALL), "--out", str(tmp_path / "out")],
                        capture_output=True, text=True, env=env, timeout=300)
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.splitlines()[-1] == f"wrote {tmp_path / 'out'}"
    assert (tmp_path / "out" / "models.csv").read_text() == (small_out[0] / "models.csv").read_text()
