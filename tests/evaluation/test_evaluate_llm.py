"""`builder evaluate predictions`: scoring LLM answers, failures by kind, errors."""
from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from builder.cli.main import cli

TESTS = Path(__file__).parents[1]
DATA = TESTS / "data"
LLM = DATA / "sib200" / "llm-outputs"
LABELS = DATA / "sib200" / "eng" / "labels.txt"
SHIPPED = sorted(LLM.glob("*/*.tsv"))


def _invoke(*args):
    return CliRunner().invoke(cli, list(map(str, args)))


def _csv(path: Path) -> list[dict]:
    with open(path, encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


@pytest.fixture(scope="module")
def shipped_scores(tmp_path_factory):
    out = tmp_path_factory.mktemp("llm")
    result = CliRunner().invoke(cli, ["evaluate", "predictions", *map(str, SHIPPED), "--task", "topic",
                                      "--labels", str(LABELS), "--out", str(out)])
    return result, out


def test_shipped_gpt_answers_are_scored_per_variant(shipped_scores, golden):
    result, out = shipped_scores
    assert result.exit_code == 0, result.output
    rows = {(r["variant"], r["model"]): r for r in _csv(out / "results.csv")}
    assert len(rows) == 12 and {m for _, m in rows} == {"gpt-3.5", "gpt-4"}
    for r in rows.values():
        assert {"variant", "model", "n", "accuracy", "parse_failure_rate"} <= set(r)
        assert int(r["n"]) == 204
        fails = sum(int(r[f"fail_{k}"]) for k in ("empty", "refusal", "other_language", "no_label"))
        assert fails == int(r["parse_failures"]) == round(float(r["parse_failure_rate"]) * 204)
    # English, against the paper's 71.8 (GPT-3.5) and 76.6 (GPT-4): our parser reads 73.5 and 80.4
    assert float(rows[("eng_Latn", "gpt-3.5")]["accuracy"]) == pytest.approx(150 / 204, abs=1e-6)
    assert float(rows[("eng_Latn", "gpt-4")]["accuracy"]) == pytest.approx(164 / 204, abs=1e-6)
    # GPT-4 refuses most Yoruba items
    assert int(rows[("yor_Latn", "gpt-4")]["fail_refusal"]) > 100
    assert "| eng_Latn | gpt-4 | 204 | 80.4 |" in result.output  # printed per variant
    golden("evaluation/llm_results.md", (out / "results.md").read_text(encoding="utf-8"))


def test_items_file_explains_every_answer(shipped_scores):
    _, out = shipped_scores
    items = [json.loads(line) for line in (out / "items.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(items) == 12 * 204
    first = next(i for i in items if i["model"] == "gpt-4" and i["variant"] == "eng_Latn" and i["id"] == "1523")
    assert first["parsed"] == "science/technology" and first["correct"] and first["failure"] is None
    assert all((i["parsed"] is None) == (i["failure"] is not None) for i in items)


def test_mc_answers_with_gold_from_a_built_dataset(tmp_path):
    result = _invoke("evaluate", "predictions", DATA / "evaluation" / "mc_predictions.jsonl", "--task", "mc",
                     "--gold", DATA / "qc" / "pivot", "--out", tmp_path / "strict")
    assert result.exit_code == 0, result.output
    (row,) = _csv(tmp_path / "strict" / "results.csv")
    assert (row["model"], row["n"], row["correct"], row["parse_failures"]) == ("toy-llm", "8", "4", "3")
    assert (row["fail_empty"], row["fail_no_letter"], row["lenient"]) == ("1", "2", "0")
    assert float(row["accuracy"]) == 0.5 and float(row["accuracy_parsed"]) == 0.8

    result = _invoke("evaluate", "predictions", DATA / "evaluation" / "mc_predictions.jsonl", "--task", "mc",
                     "--gold", DATA / "qc" / "pivot", "--lenient", "--out", tmp_path / "lenient")
    assert result.exit_code == 0, result.output
    (row,) = _csv(tmp_path / "lenient" / "results.csv")
    # Belebele's answer[0] reads two more answers (one right, one wrong); they are counted apart
    assert (row["correct"], row["parse_failures"], row["lenient"]) == ("5", "1", "2")


def test_topic_answers_with_gold_by_index_id(tmp_path):
    result = _invoke("evaluate", "predictions", DATA / "evaluation" / "topic_predictions.jsonl", "--task",
                     "topic", "--gold", DATA / "sib200" / "annotated", "--labels", LABELS, "--model", "toy",
                     "--out", tmp_path)
    assert result.exit_code == 0, result.output
    (row,) = _csv(tmp_path / "results.csv")
    assert (row["variant"], row["model"], row["n"], row["correct"]) == ("eng_Latn", "toy", "6", "2")
    assert (row["fail_refusal"], row["fail_empty"], row["fail_no_label"]) == ("1", "1", "1")


@pytest.mark.parametrize("args,message", [
    (["predictions", DATA / "evaluation" / "no_id.jsonl", "--task", "mc"], "no id column"),
    (["predictions", DATA / "evaluation" / "broken.jsonl", "--task", "mc"], "broken.jsonl, line 2"),
    (["predictions", DATA / "evaluation" / "topic_predictions.jsonl", "--task", "topic"], "--gold DATASET"),
    (["predictions", SHIPPED[0], "--task", "topic", "--lenient"], "--task mc only"),
    (["predictions", SHIPPED[0]], "Missing option '--task'"),
    (["predictions", SHIPPED[0], SHIPPED[0], "--task", "topic"], "duplicate prediction"),
    (["predictions", DATA / "evaluation" / "mc_predictions.jsonl", "--task", "mc", "--gold",
      DATA / "qc" / "pivot", "--split", "dev"], "variant eng_Latn split dev is not in the gold dataset"),
])
def test_bad_prediction_input_gives_one_line(tmp_path, args, message):
    result = _invoke("evaluate", *args, "--out", tmp_path)
    assert result.exit_code in (1, 2)
    assert message in result.output
    assert "Traceback" not in result.output


def test_console_script_scores_answers(tmp_path):
    exe = Path(sys.executable).with_name("builder")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "builder"]
    proc = subprocess.run([*cmd, "evaluate", "predictions", str(LLM / "gpt-4" / "eng_Latn.tsv"), "--task",
                           "topic", "--labels", str(LABELS), "--out", str(tmp_path)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "| eng_Latn | gpt-4 | 204 | 80.4 |" in proc.stdout
    assert (tmp_path / "results.csv").exists() and (tmp_path / "items.jsonl").exists()


# --- lm-evaluation-harness --log_samples files (tests/data/export/lm-eval-output, real lm-eval 0.4.13 output) ---

LM_EVAL_OUT = DATA / "export" / "lm-eval-output"


def _lm_eval_acc() -> dict[tuple[str, str], float]:
    """``(model, task) -> acc`` from lm-eval's own results files (the independent figure)."""
    out = {}
    for path in LM_EVAL_OUT.glob("*/results_*.json"):
        data = json.loads(path.read_text(encoding="utf-8"))
        out.update({(path.parent.name, task): r["acc,none"] for task, r in data["results"].items()})
    return out


def test_lm_eval_samples_score_as_lm_eval_counts_acc(tmp_path):
    files = sorted(LM_EVAL_OUT.glob("*/samples_*sib*.jsonl"))
    result = _invoke("evaluate", "predictions", *files, "--task", "topic", "--out", tmp_path)
    assert result.exit_code == 0, result.output
    rows = {(r["model"], r["variant"]): r for r in _csv(tmp_path / "results.csv")}
    assert len(rows) == 6 and all(r["n"] == "5" and r["parse_failures"] == "0" for r in rows.values())
    acc = _lm_eval_acc()
    # the highest log-likelihood choice is what lm-eval's acc counts: the same accuracy, task by task
    for (model, variant), r in rows.items():
        who, family = model.split("@")
        assert float(r["accuracy"]) == pytest.approx(acc[(who, f"{family}_{variant}")]), (model, variant)
    items = [json.loads(x) for x in (tmp_path / "items.jsonl").read_text(encoding="utf-8").splitlines()]
    line = json.loads((sorted(LM_EVAL_OUT.glob("dummy-a/samples_sib_eng_Latn_*.jsonl"))[0])
                      .read_text(encoding="utf-8").splitlines()[0])
    first = next(i for i in items if i["model"] == "dummy-a@sib" and i["id"] == str(line["doc"]["index_id"]))
    labels = (DATA / "sib200" / "annotated" / "eng_Latn" / "labels.txt").read_text(encoding="utf-8").split()
    # the ClassLabel target is logged as an index; the gold is the label it points at
    assert line["target"] == str(labels.index(first["gold"]))


def test_lm_eval_belebele_samples_give_letters(tmp_path):
    (path,) = LM_EVAL_OUT.glob("dummy-a/samples_belebele_eng_Latn_local_*.jsonl")
    result = _invoke("evaluate", "predictions", path, "--task", "mc", "--out", tmp_path)
    assert result.exit_code == 0, result.output
    (row,) = _csv(tmp_path / "results.csv")
    assert (row["variant"], row["model"], row["n"]) == ("eng_Latn", "dummy-a@belebele_local", "5")
    assert float(row["accuracy"]) == pytest.approx(_lm_eval_acc()[("dummy-a", "belebele_eng_Latn_local")])
    samples = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]
    items = {i["id"]: i for i in map(json.loads, (tmp_path / "items.jsonl").read_text().splitlines())}
    for s in samples:  # gold = Belebele's correct_answer_num as a letter; the id is our question_id
        assert items[s["doc"]["question_id"]]["gold"] == "ABCD"[int(s["doc"]["correct_answer_num"]) - 1]


def test_malformed_lm_eval_sample_names_the_line(tmp_path):
    (path,) = LM_EVAL_OUT.glob("dummy-a/samples_sib_eng_Latn_*.jsonl")
    lines = path.read_text(encoding="utf-8").splitlines()
    bad = json.loads(lines[1])
    bad["filtered_resps"] = [["not a number", "False"]] * len(bad["filtered_resps"])
    broken = tmp_path / path.name
    broken.write_text("\n".join([lines[0], json.dumps(bad)]) + "\n", encoding="utf-8")
    result = _invoke("evaluate", "predictions", broken, "--task", "topic", "--out", tmp_path / "out")
    assert result.exit_code == 1
    assert f"{broken}, line 2: cannot read filtered_resps" in result.output and "Traceback" not in result.output
