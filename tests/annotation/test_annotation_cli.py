"""`builder annotate ...` end to end: exit codes first, outputs second."""
from __future__ import annotations

import csv
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from builder.cli.main import cli

ROOT = Path(__file__).parents[2]
D = ROOT / "tests" / "data" / "annotation"
LABELS = D / "labels.txt"


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def test_agreement_writes_json_markdown_and_png(tmp_path, golden):
    res = run("annotate", "agreement", D / "sib_small_long.csv", "--labels", LABELS, "--n-boot", 200,
              "--out", tmp_path / "rep")
    assert res.exit_code == 0, res.output
    assert res.stdout.startswith("12 items, 4 annotators: fleiss_kappa ")
    rep = json.loads((tmp_path / "rep" / "agreement.json").read_text())
    for key in ("n_items", "n_annotators", "fleiss_kappa", "krippendorff_alpha", "mean_cohen_kappa", "gwet_ac1",
                "per_category", "ci", "observed_agreement", "expected_agreement", "bootstrap", "confusions"):
        assert key in rep, key
    assert rep["n_items"] == 12 and rep["n_annotators"] == 4
    assert set(rep["ci"]) >= {"fleiss_kappa", "krippendorff_alpha", "mean_cohen_kappa", "gwet_ac1"}
    assert all(len(v) == 2 and v[0] <= v[1] for v in rep["ci"].values() if v is not None)
    assert rep["bootstrap"]["seed"] == 0 and rep["bootstrap"]["n_resamples"] == 200
    assert set(rep["per_category"]) == set(LABELS.read_text().split())
    assert (tmp_path / "rep" / "agreement_matrix.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    golden("annotation/agreement_small.md", (tmp_path / "rep" / "agreement.md").read_text(encoding="utf-8"))


def test_agreement_reruns_are_byte_identical(tmp_path):
    for out in ("a", "b"):
        res = run("annotate", "agreement", D / "sib_small_wide.tsv", "--n-boot", 100, "--out", tmp_path / out)
        assert res.exit_code == 0, res.output
    for name in ("agreement.json", "agreement.md", "agreement_matrix.png"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name


def test_agreement_with_missing_ratings_reports_why_fleiss_is_null(tmp_path):
    res = run("annotate", "agreement", D / "wide_missing.csv", "--n-boot", 50, "--no-plot", "--out", tmp_path)
    assert res.exit_code == 0, res.output
    rep = json.loads((tmp_path / "agreement.json").read_text())
    assert rep["fleiss_kappa"] is None and rep["ci"]["fleiss_kappa"] is None
    assert rep["fleiss_kappa_reason"].startswith("raters per item differ (min 2, max 3)")
    assert rep["krippendorff_alpha"] is not None
    assert rep["per_category_measure"] == "krippendorff_alpha_one_vs_rest"
    assert "fleiss_kappa not reported" in res.stderr
    assert not (tmp_path / "agreement_matrix.png").exists()


def test_bad_input_is_one_line_and_exit_1(tmp_path):
    res = run("annotate", "agreement", D / "bad_unknown_label.csv", "--labels", LABELS, "--out", tmp_path)
    assert res.exit_code == 1
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("error: ")
    assert "bad_unknown_label.csv, line 5 (item 2): unknown label 'sience'" in lines[0]
    assert not (tmp_path / "agreement.json").exists()


def test_skip_reports_ids_and_counts(tmp_path):
    res = run("annotate", "agreement", D / "bad_unknown_label.csv", "--labels", LABELS, "--on-error", "skip",
              "--n-boot", 0, "--no-plot", "--out", tmp_path)
    assert res.exit_code == 0, res.output
    assert "skipped 1 (unknown_label): 2" in res.stderr
    rep = json.loads((tmp_path / "agreement.json").read_text())
    assert rep["skipped"] == {"too_few_ratings": 1, "unknown_label": 1}
    assert rep["skipped_ids"]["unknown_label"] == ["2"]


@pytest.mark.parametrize("args", [
    ["annotate", "agreement", "x.csv"],  # --out missing
    ["annotate", "agreement", "x.csv", "--format", "diagonal", "--out", "o"],
    ["annotate", "split", "x.tsv", "--ratios", "0.5,0.2,0.2", "--out", "o"],
    ["annotate", "adjudicate", "x.csv", "--policy", "coin", "--out", "o"],
    ["annotate", "nope"],
])
def test_usage_errors_exit_2(args):
    assert run(*args).exit_code == 2


def test_missing_input_file_is_bad_input(tmp_path):
    res = run("annotate", "agreement", tmp_path / "none.csv", "--out", tmp_path / "o")
    assert res.exit_code == 1 and "annotation file not found" in res.stderr


def test_adjudicate_then_merge_the_filled_sheet(tmp_path):
    out = tmp_path / "adj"
    res = run("annotate", "adjudicate", D / "sib_small_long.csv", "--labels", LABELS, "--out", out)
    assert res.exit_code == 0, res.output
    assert "8 majority, 0 adjudicated, 4 unresolved" in res.stdout
    summary = json.loads((out / "adjudication.json").read_text())
    assert summary["policy"] == "sib200" and summary["conflicts"] == 4
    rows = list(csv.reader(open(out / "adjudication_sheet.csv", encoding="utf-8")))
    assert rows[0][-1] == "lead_label" and len(rows) == 5
    answers = {"1325": "science", "60": "technology", "1007": "health"}
    for row in rows[1:]:
        row[-1] = answers.get(row[0], "")
    filled = tmp_path / "filled.csv"
    with open(filled, "w", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerows(rows)
    res = run("annotate", "adjudicate", D / "sib_small_long.csv", "--labels", LABELS, "--sheet", filled,
              "--out", out)
    assert res.exit_code == 0, res.output
    assert "8 majority, 3 adjudicated, 1 unresolved" in res.stdout
    decisions = list(csv.DictReader(open(out / "decisions.csv", encoding="utf-8")))
    assert len(decisions) == 12
    assert {d["item_id"]: d["rule"] for d in decisions}["182"] == "unresolved"
    assert [r[0] for r in csv.reader(open(out / "unresolved_sheet.csv", encoding="utf-8"))] == ["item_id", "182"]
    summary = json.loads((out / "adjudication.json").read_text())
    assert summary["sheet"] == {"file": "filled.csv", "rows": 4, "adjudicated": 3, "left_empty": 1,
                                "not_in_sheet": 0}
    assert summary["unresolved_ids"] == ["182"]
    # the filled sheet with a typo: one line naming sheet, line and item; exit 1
    rows[2][-1] = "tecnology"
    with open(filled, "w", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerows(rows)
    res = run("annotate", "adjudicate", D / "sib_small_long.csv", "--labels", LABELS, "--sheet", filled,
              "--out", out)
    assert res.exit_code == 1
    assert "filled.csv, line 3 (item 60), field lead_label: unknown label 'tecnology'" in res.stderr


def test_decisions_curate_split_pipeline(tmp_path):
    adj = tmp_path / "adj"
    assert run("annotate", "adjudicate", D / "sib_small_long.csv", "--out", adj).exit_code == 0
    recipe = tmp_path / "r.yaml"
    recipe.write_text("steps:\n  - drop_labels: [uncategorized]\n  - merge: {science/technology: [science, "
                      "technology]}\n", encoding="utf-8")
    res = run("annotate", "curate", adj, "--recipe", recipe, "--out", tmp_path / "cur")
    assert res.exit_code == 0, res.output
    log = json.loads((tmp_path / "cur" / "curation_log.json").read_text())
    assert log["steps"][0]["step"] == "drop_unresolved" and log["steps"][0]["items_dropped"] == 4
    assert log["items_in"] == 12 and log["items_out"] == 8
    res = run("annotate", "split", tmp_path / "cur" / "curated.tsv", "--out", tmp_path / "split")
    assert res.exit_code == 0, res.output
    info = json.loads((tmp_path / "split" / "split.json").read_text())
    assert sum(info["counts"].values()) == 8 and info["seed"] == 0
    # splitting unresolved items is refused with the item named
    res = run("annotate", "split", adj / "decisions.csv", "--out", tmp_path / "split2")
    assert res.exit_code == 1 and "item '1325' has no label (unresolved)" in res.stderr


def test_split_refuses_to_replace_its_input_folder(tmp_path):
    shutil.copytree(ROOT / "tests" / "data" / "sib200" / "eng", tmp_path / "eng")
    res = run("annotate", "split", tmp_path / "eng", "--out", tmp_path / "eng")
    assert res.exit_code == 2 and "would replace the folder" in res.stderr
    assert (tmp_path / "eng" / "train.tsv").exists()


def test_curate_bad_recipe_exit_1(tmp_path):
    recipe = tmp_path / "r.yaml"
    recipe.write_text("steps:\n  - min_count: many\n", encoding="utf-8")
    res = run("annotate", "curate", ROOT / "tests" / "data" / "sib200" / "eng_14", "--recipe", recipe,
              "--out", tmp_path / "o")
    assert res.exit_code == 1
    assert "r.yaml, field steps[0].min_count: expected an integer >= 0, found 'many'" in res.stderr


def test_console_script_reproduces_sib200_curation(tmp_path):
    exe = shutil.which("builder") or str(Path(sys.executable).parent / "builder")
    proc = subprocess.run([exe, "annotate", "curate", str(ROOT / "tests" / "data" / "sib200" / "eng_14"),
                           "--recipe", str(ROOT / "examples" / "sib200-curation.yaml"), "--out", str(tmp_path)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "1434 items -> 1004 items, 7 labels" in proc.stdout
    assert (tmp_path / "labels.txt").read_text() == (ROOT / "tests/data/sib200/eng/labels.txt").read_text()
    proc = subprocess.run([exe, "annotate", "agreement", str(D / "bad_duplicate.csv"), "--out",
                           str(tmp_path / "agreement")],  # tmp_path is now a curate output: refused (exit 2)
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    assert proc.stderr.count("\n") == 1 and "rated item '2' twice" in proc.stderr
