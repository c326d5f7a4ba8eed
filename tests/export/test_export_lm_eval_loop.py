"""The closed loop with lm-evaluation-harness, end to end.

Export shipped data in the published layout (``--schema sib200`` / ``belebele``)
with our task YAMLs, MOVE the export folder, run lm-eval's own shipped task
configs (AfroBench's SIB prompt 1, the Belebele template; only ``dataset_path``
is pointed at the moved folder) and our generated tasks with lm-eval's
``dummy`` model and ``log_samples``, saved as ``lm_eval run --output_path ...
--log_samples`` saves them; then ``builder evaluate predictions`` scores the
``samples_*.jsonl`` files (the accuracy must equal lm-eval's own ``acc``) and
``builder disparity`` reads the ``results_*.json`` files, one per model.

Marked ``integration``; lm-eval is in the ``lmeval`` extra that CI installs, so a
missing one fails under CI (``CI`` set) and skips elsewhere, as in
``test_export_lmeval.py``.
"""
from __future__ import annotations

import csv
import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from builder.cli.main import cli

TESTS = Path(__file__).parents[1]
SIB = TESTS / "data" / "sib200" / "annotated"
MC = TESTS / "data" / "export" / "mc_small"
MODELS = (("dummy-a", 1), ("dummy-b", 2))

pytestmark = pytest.mark.integration


def _lm_eval():
    try:
        import lm_eval
        from lm_eval.loggers import EvaluationTracker
        from lm_eval.tasks import TaskManager
    except ImportError as err:
        message = f"lm-eval is needed for this test ({err}); install it with pip install -e '.[test,lmeval]'"
        if os.environ.get("CI"):  # CI installs the extra (.ci/run sets CI): a missing one fails, never skips
            pytest.fail(message)
        pytest.skip(message)
    return lm_eval, EvaluationTracker, TaskManager


def _invoke(*args) -> str:
    res = CliRunner().invoke(cli, [str(a) for a in args])
    assert res.exit_code == 0, res.output
    return res.output


def _run(include: list[Path], tasks: list[str], out: Path, limit: int) -> None:
    """Both dummy models on ``tasks``, saved as lm-eval's CLI saves them (``--output_path out --log_samples``)."""
    lm_eval, EvaluationTracker, TaskManager = _lm_eval()
    tm = TaskManager(include_path=[str(p) for p in include], include_defaults=False)
    for model, seed in MODELS:
        tracker = EvaluationTracker(output_path=str(out))
        res = lm_eval.simple_evaluate(model="dummy", model_args=f"pretrained={model}", tasks=tasks,
                                      task_manager=tm, limit=limit, log_samples=True, random_seed=seed,
                                      numpy_random_seed=seed, torch_random_seed=seed, evaluation_tracker=tracker)
        samples = res.pop("samples")
        tracker.save_results_aggregated(results=res, samples=samples)
        for task in res["configs"]:
            tracker.save_results_samples(task_name=task, samples=samples[task])


def _shipped(relative: str) -> Path:
    lm_eval, _, _ = _lm_eval()
    path = Path(lm_eval.__file__).parent / "tasks" / relative
    assert path.is_file(), f"lm-eval no longer ships {relative}"
    return path


def _acc(out: Path) -> dict[tuple[str, str], float]:
    acc = {}
    for path in out.glob("*/results_*.json"):
        data = json.loads(path.read_text(encoding="utf-8"))
        acc.update({(path.parent.name, t): r["acc,none"] for t, r in data["results"].items()
                    if t in data["configs"]})
    return acc


def _scores(folder: Path) -> list[dict]:
    with open(folder / "results.csv", encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def test_sib200_export_runs_lm_evals_afrobench_task_and_ours_after_a_move(tmp_path):
    languages = ("eng_Latn", "hau_Latn", "yor_Latn")  # AfroBench ships sib_eng, sib_hau, sib_yor
    for v in languages:
        shutil.copytree(SIB / v, tmp_path / "in" / v)
    _invoke("export", tmp_path / "in", "--out", tmp_path / "built", "--schema", "sib200", "--lm-eval",
            "--name", "sibx", "--license", "CC-BY-SA-4.0", "--source-name", "SIB-200")
    moved = tmp_path / "moved" / "sib200"
    moved.parent.mkdir()
    (tmp_path / "built").rename(moved)
    assert not (tmp_path / "built").exists()
    wrappers = tmp_path / "wrappers"
    wrappers.mkdir()
    for v in languages:  # the shipped config as it is; only dataset_path points at the moved export
        (wrappers / f"{v}.yaml").write_text(
            f"include: {_shipped(f'afrobench/sib/prompt_1/sib_{v[:3]}.yaml')}\n"
            f"task: afrobench_sib_prompt_1_{v}\ndataset_path: {moved}\n", encoding="utf-8")
    out = tmp_path / "lm-eval-out"
    _run([wrappers, moved / "lm_eval"], ["sibx", *(f"afrobench_sib_prompt_1_{v}" for v in languages)], out,
         limit=25)

    samples = sorted(out.glob("*/samples_*.jsonl"))
    assert len(samples) == 2 * 2 * len(languages)
    _invoke("evaluate", "predictions", *samples, "--task", "topic", "--out", tmp_path / "scores")
    rows = _scores(tmp_path / "scores")
    assert len(rows) == 2 * 2 * len(languages)
    acc = _acc(out)
    for r in rows:  # the same accuracy as lm-eval's acc, task by task
        model, family = r["model"].split("@")
        task = f"{family}_{r['variant']}"
        assert r["n"] == "25" and r["parse_failures"] == "0"
        assert float(r["accuracy"]) == pytest.approx(acc[(model, task)]), (model, task)

    results = sorted(out.glob("*/results_*.json"))
    text = _invoke("disparity", *results, "--out", tmp_path / "disparity")
    assert "2 models, 3 languages" in text
    with open(tmp_path / "disparity" / "records.csv", encoding="utf-8", newline="") as fh:
        records = list(csv.DictReader(fh))
    assert {r["task"] for r in records} == {"sibx_acc", "sibx_acc_norm", "afrobench_sib_prompt_1_acc",
                                            "afrobench_sib_prompt_1_f1"}
    assert {r["language"] for r in records} == set(languages)


def test_belebele_export_runs_lm_evals_belebele_template_and_ours_after_a_move(tmp_path):
    _invoke("export", MC, "--out", tmp_path / "built", "--schema", "belebele", "--lm-eval", "--name", "bb")
    moved = tmp_path / "moved" / "belebele"
    moved.parent.mkdir()
    (tmp_path / "built").rename(moved)
    wrappers = tmp_path / "wrappers"
    wrappers.mkdir()
    # lm-eval's own Belebele template (published columns); our set has train and validation, no test
    (wrappers / "belebele.yaml").write_text(
        f"include: {_shipped('belebele/_default_template_yaml')}\ntask: belebele_eng_Latn_ours\n"
        f"dataset_path: {moved}\ndataset_name: eng_Latn\ntest_split: validation\nfewshot_split: train\n",
        encoding="utf-8")
    out = tmp_path / "lm-eval-out"
    _run([wrappers, moved / "lm_eval"], ["bb", "belebele_eng_Latn_ours"], out, limit=8)

    samples = sorted(out.glob("*/samples_*.jsonl"))
    assert len(samples) == 2 * 2
    _invoke("evaluate", "predictions", *samples, "--task", "mc", "--out", tmp_path / "scores")
    rows = _scores(tmp_path / "scores")
    acc = _acc(out)
    assert {r["model"] for r in rows} == {"dummy-a@bb", "dummy-b@bb", "dummy-a@belebele_ours",
                                          "dummy-b@belebele_ours"}
    for r in rows:
        model, family = r["model"].split("@")
        task = "bb_eng_Latn" if family == "bb" else "belebele_eng_Latn_ours"
        assert (r["variant"], r["n"], r["parse_failures"]) == ("eng_Latn", "8", "0")
        assert float(r["accuracy"]) == pytest.approx(acc[(model, task)])
    # both prompts read the same rows: our template on the published columns is lm-eval's own
    items = [json.loads(x) for x in (tmp_path / "scores" / "items.jsonl").read_text(encoding="utf-8").splitlines()]
    golds = {}
    for i in items:
        golds.setdefault(i["id"], set()).add(i["gold"])
    assert len(golds) == 8 and all(len(g) == 1 for g in golds.values())

    text = _invoke("disparity", *sorted(out.glob("*/results_*.json")), "--out", tmp_path / "disparity")
    assert "8 records: 2 models, 1 languages, 4 tasks" in text
    with open(tmp_path / "disparity" / "records.csv", encoding="utf-8", newline="") as fh:
        records = list(csv.DictReader(fh))
    assert {r["model"] for r in records} == {"dummy-a", "dummy-b"} and {r["language"] for r in records} == {
        "eng_Latn"}
    assert {r["task"] for r in records} == {"bb_acc", "bb_acc_norm", "belebele_ours_acc", "belebele_ours_acc_norm"}
