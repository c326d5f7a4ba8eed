"""Regenerate ``lm-eval-output/``: real lm-evaluation-harness output files for the reader tests.

Run from the repository root (needs the ``lmeval`` extra; nothing is downloaded)::

    HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 python tests/data/export/make_lm_eval_fixtures.py

It exports two SIB-200 variants (``eng_Latn``, ``hau_Latn`` of ``tests/data/sib200/annotated``,
CC BY-SA 4.0) and ``mc_small`` (with ``--schema belebele``), then runs lm-eval's ``dummy`` model
(random log-likelihoods, seeded) twice, as ``pretrained=dummy-a`` and ``pretrained=dummy-b``,
on five documents of each task, with ``log_samples``, and saves the files as ``lm_eval run
--output_path lm-eval-output --log_samples`` does (``EvaluationTracker``):

- ``sib_eng_Latn``, ``sib_hau_Latn``: our generated topic tasks (``ClassLabel`` targets, logged as indices);
- ``afrobench_sib_prompt_1_eng_Latn``: lm-eval's shipped AfroBench ``sib_eng`` prompt 1 pointed at an
  export of the same variants with ``--schema sib200`` (the label text as target);
- ``belebele_eng_Latn_local`` (dummy-a only): lm-eval's shipped Belebele template pointed at the
  ``--schema belebele`` export's ``validation`` split (the target as an index into A-D).

The output keeps lm-eval's own layout: ``<output>/<model>/results_<date>.json`` and
``samples_<task>_<date>.jsonl``.
"""
from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).parent
ROOT = HERE.parents[2]
OUT = HERE / "lm-eval-output"


def main() -> None:
    import lm_eval
    from lm_eval.loggers import EvaluationTracker
    from lm_eval.tasks import TaskManager

    from builder.tasks.export import ExportOptions, run_export

    tasks_dir = Path(lm_eval.__file__).parent / "tasks"
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        for v in ("eng_Latn", "hau_Latn"):
            shutil.copytree(ROOT / "tests/data/sib200/annotated" / v, tmp / "sib_in" / v)
        run_export(ExportOptions(tmp / "sib_in", tmp / "sib", lm_eval=True, name="sib", license="CC-BY-SA-4.0",
                                 source="SIB-200"))
        run_export(ExportOptions(tmp / "sib_in", tmp / "sib200", license="CC-BY-SA-4.0", source="SIB-200",
                                 schema="sib200"))
        run_export(ExportOptions(HERE / "mc_small", tmp / "mc", lm_eval=True, name="bb", schema="belebele"))
        wrappers = tmp / "wrappers"
        wrappers.mkdir()
        (wrappers / "afrobench.yaml").write_text(
            f"include: {tasks_dir / 'afrobench/sib/prompt_1/sib_eng.yaml'}\n"
            f"task: afrobench_sib_prompt_1_eng_Latn\ndataset_path: {tmp / 'sib200'}\n", encoding="utf-8")
        (wrappers / "belebele.yaml").write_text(
            f"include: {tasks_dir / 'belebele/_default_template_yaml'}\ntask: belebele_eng_Latn_local\n"
            f"dataset_path: {tmp / 'mc'}\ndataset_name: eng_Latn\ntest_split: validation\n"
            "fewshot_split: train\n", encoding="utf-8")
        tm = TaskManager(include_path=[str(wrappers), str(tmp / "sib" / "lm_eval")], include_defaults=False)
        if OUT.exists():
            shutil.rmtree(OUT)
        for seed, model in ((1, "dummy-a"), (2, "dummy-b")):
            names = ["sib_eng_Latn", "sib_hau_Latn", "afrobench_sib_prompt_1_eng_Latn"]
            if model == "dummy-a":
                names.append("belebele_eng_Latn_local")
            tracker = EvaluationTracker(output_path=str(OUT))
            res = lm_eval.simple_evaluate(model="dummy", model_args=f"pretrained={model}", tasks=names,
                                          task_manager=tm, limit=5, log_samples=True, random_seed=seed,
                                          numpy_random_seed=seed, torch_random_seed=seed,
                                          evaluation_tracker=tracker)
            samples = res.pop("samples")
            tracker.save_results_aggregated(results=res, samples=samples)
            for task in res["configs"]:
                tracker.save_results_samples(task_name=task, samples=samples[task])
    print(f"wrote {OUT}", file=sys.stderr)


if __name__ == "__main__":
    main()
