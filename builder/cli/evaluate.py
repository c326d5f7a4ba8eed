"""``builder evaluate``: baselines on built splits, LLM answer scoring, Belebele prompts.

Three modes, one command (see docs/evaluate.md):

* ``builder evaluate DATASET --out DIR`` trains and scores the baselines of
  the dataset's kind (topic: majority, mlp, char_tfidf; mc: chance,
  sliding_window, bow_lr) on every variant -> results.csv/.json/.md, accuracy.png.
* ``builder evaluate --predictions FILE... --task topic|mc --out DIR`` parses
  and scores LLM answers -> results.csv/.json/.md, items.jsonl.
* ``builder evaluate DATASET --render-prompts five-shot|zero-shot --out DIR``
  writes Belebele's prompts for an MC split -> prompts/<variant>.<mode>.jsonl.
"""
from __future__ import annotations

import os
from pathlib import Path

import click

from schemas.errors import UsageError

from .common import pass_app


def _csv_list(value: str | None) -> tuple[str, ...]:
    return tuple(x.strip() for x in value.split(",") if x.strip()) if value else ()


def _read_labels(path: Path) -> list[str]:
    from schemas.io import read_text_utf8

    labels = [line.strip() for line in read_text_utf8(path).splitlines() if line.strip()]
    if not labels:
        raise UsageError(f"{path}: the labels file is empty; expected one label per line")
    return labels


def _run_baselines(app, dataset_path, out, baselines, variants, ngram_unit, jobs, seed, split, transfer_from,
                   mlp_max_iter, ci):
    from schemas.dataset import load_dataset_dir
    from builder.evaluation import report, runner

    ds = load_dataset_dir(dataset_path, variants=variants or None)
    chosen = baselines or runner.default_baselines(ds.kind)
    cfg = runner.RunConfig(baselines=chosen, split=split, seed=seed, ngram_unit=ngram_unit,
                           mlp_max_iter=mlp_max_iter, transfer_from=transfer_from, ci_method=ci,
                           jobs=jobs or os.cpu_count() or 1)
    app.info(f"evaluating {len(chosen)} baseline(s) on {len(ds.variants)} {ds.kind} variant(s) "
             f"with {min(cfg.jobs, len(chosen) * len(ds.variants))} worker(s)")
    rows = runner.run(ds, cfg)
    settings = cfg.to_dict()
    if ds.kind == "mc":
        settings.pop("ngram_unit"), settings.pop("mlp_max_iter")
    dataset = {"path": str(dataset_path), "kind": ds.kind, "variants": ds.variants}
    report.write_baseline_report(out, rows, chosen, settings, dataset)
    means = report.baseline_means(rows, chosen)
    click.echo(report.baseline_markdown(rows, chosen, settings), nl=False)
    app.info(f"wrote {out / 'results.csv'}; mean accuracy: "
             + ", ".join(f"{b} {report.pct(m)}" for b, m in means.items()))


def _score_predictions(app, files, out, task, gold, labels_path, model, answer_column, lenient, split, ci):
    from builder.evaluation import llm_scoring, report
    from builder.evaluation.parsing import FAILURE_KINDS_MC, FAILURE_KINDS_TOPIC

    if task is None:
        raise UsageError("--predictions needs --task topic or --task mc")
    if lenient and task != "mc":
        raise UsageError("--lenient applies to --task mc only (Belebele's first-character fallback)")
    items = llm_scoring.load_items(files, task, model=model, answer_column=answer_column)
    if gold is not None:
        from schemas.dataset import load_dataset_dir

        items = llm_scoring.attach_gold(items.drop(columns=["gold"], errors="ignore"), load_dataset_dir(gold),
                                        task, split)
    labels = _read_labels(labels_path) if labels_path else None
    summary, per_item = llm_scoring.score(items, task, labels=labels, lenient=lenient, ci_method=ci)
    kinds = FAILURE_KINDS_TOPIC if task == "topic" else FAILURE_KINDS_MC
    settings = {"task": task, "lenient": lenient, "labels": labels, "files": [str(f) for f in files],
                "gold": None if gold is None else str(gold), "split": split, "ci_method": ci, "ci_level": 0.95,
                "accuracy": "correct / n, parse failures count as wrong"}
    summary = [{k: (None if isinstance(v, float) and v != v else v) for k, v in r.items()} for r in summary]
    report.write_llm_report(out, summary, per_item, kinds, settings)
    click.echo(report.llm_markdown(summary, kinds), nl=False)
    app.info(f"wrote {out / 'results.csv'} and {out / 'items.jsonl'} ({len(per_item)} answers)")


def _render_prompts(app, dataset_path, out, mode, shots_from, variants, split, seed):
    from schemas.dataset import load_dataset_dir
    from builder.evaluation import prompts
    from schemas.io import write_json_atomic, write_jsonl_atomic

    ds = load_dataset_dir(dataset_path, variants=variants or None)
    if ds.kind != "mc":
        raise UsageError(f"--render-prompts needs a multiple-choice dataset; {dataset_path} holds {ds.kind} records")
    shots, shot_source = [], None
    if mode == "five-shot":
        source = load_dataset_dir(shots_from) if shots_from else load_dataset_dir(dataset_path)
        variant = "eng_Latn" if "eng_Latn" in source.tables else source.variants[0]
        if "train" not in source.tables[variant]:
            raise UsageError(f"five-shot prompts need English training items: {variant} in "
                             f"{shots_from or dataset_path} has no train split (pass --shots-from DIR)")
        shots = prompts.pick_shots(source.tables[variant]["train"], seed=seed)
        shot_source = {"dataset": str(shots_from or dataset_path), "variant": variant, "split": "train",
                       "ids": [str(s.get("question_id", "")) for s in shots], "seed": seed}
    written = {}
    for v in ds.variants:
        if split not in ds.tables[v]:
            raise UsageError(f"variant {v} has no {split!r} split; found {', '.join(ds.splits(v))}")
        rows = prompts.render(ds.tables[v][split], mode, shots=shots)
        path = write_jsonl_atomic(out / "prompts" / f"{v}.{mode}.jsonl", rows)
        written[v] = {"file": str(path.relative_to(out)), "n": len(rows)}
    write_json_atomic(out / "prompts.json", {"mode": mode, "split": split, "shots": shot_source,
                                             "variants": written, "parse_with": "builder evaluate --predictions "
                                             "FILE... --task mc (add --lenient for Belebele's fallback)"})
    click.echo(f"wrote {sum(w['n'] for w in written.values())} {mode} prompts for {len(written)} variant(s) "
               f"to {out / 'prompts'}")


@click.command("evaluate")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--out", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Output folder (files in it are replaced one by one, atomically).")
@click.option("--baselines", help="Comma list; default all of the dataset's kind "
              "(topic: majority,mlp,char_tfidf; mc: chance,sliding_window,bow_lr).")
@click.option("--variants", help="Comma list of variants to evaluate (default: all).")
@click.option("--ngram-unit", type=click.Choice(["char", "word"]), default="char", show_default=True,
              help="n-gram unit of the MLP's 1-3-gram counts (char reproduces SIB-200 Table 8).")
@click.option("--jobs", type=click.IntRange(min=0), default=0, show_default=True,
              help="Worker processes (0: one per core).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of every model and tie-break.")
@click.option("--split", default="test", show_default=True, help="Split to score.")
@click.option("--transfer-from", metavar="VARIANT", help="Topic: train on this variant, test on every variant.")
@click.option("--mlp-max-iter", type=click.IntRange(min=1), default=300, show_default=True,
              help="MLP iterations (300 = the paper; lower only for quick checks).")
@click.option("--ci", type=click.Choice(["wilson", "clopper-pearson"]), default="wilson", show_default=True,
              help="95% confidence interval of each accuracy.")
@click.option("--predictions", is_flag=True, help="Score LLM answers: PATHS are prediction files.")
@click.option("--task", type=click.Choice(["topic", "mc"]), help="With --predictions: how to parse answers.")
@click.option("--gold", type=click.Path(path_type=Path), help="With --predictions: built dataset to take gold "
              "labels from, by id, when the files carry none.")
@click.option("--labels", "labels_path", type=click.Path(path_type=Path),
              help="With --task topic: label set, one per line (default: the gold labels seen).")
@click.option("--model", help="With --predictions: model name when files have no model column "
              "(default: the file's folder name).")
@click.option("--answer-column", help="With --predictions: column holding the free-text answer.")
@click.option("--lenient", is_flag=True, help="With --task mc: Belebele's first-character fallback, counted apart.")
@click.option("--render-prompts", type=click.Choice(["five-shot", "zero-shot"]),
              help="Write Belebele's prompts for the MC split instead of scoring.")
@click.option("--shots-from", type=click.Path(path_type=Path),
              help="With --render-prompts five-shot: dataset whose English train split gives the 5 shots.")
@pass_app
def evaluate(app, paths, out, baselines, variants, ngram_unit, jobs, seed, split, transfer_from, mlp_max_iter, ci,
             predictions, task, gold, labels_path, model, answer_column, lenient, render_prompts, shots_from):
    """Score baselines on a built dataset, score LLM answers, or render Belebele prompts.

    \b
    builder evaluate DATASET --out DIR [--baselines majority,mlp,char_tfidf] [--variants ...]
    builder evaluate --predictions FILE [FILE ...] --task topic|mc --out DIR [--lenient]
    builder evaluate DATASET --render-prompts five-shot|zero-shot --out DIR [--shots-from DIR]
    """
    if predictions and render_prompts:
        raise UsageError("--predictions and --render-prompts are different modes; use one")
    if not paths:
        raise UsageError("give a dataset folder, or prediction files with --predictions")
    if predictions:
        _score_predictions(app, paths, out, task, gold, labels_path, model, answer_column, lenient, split, ci)
        return
    if len(paths) != 1:
        raise UsageError(f"expected one dataset folder, found {len(paths)} paths (prediction files need --predictions)")
    if task or gold or lenient:
        raise UsageError("--task, --gold and --lenient apply to --predictions only")
    if render_prompts:
        _render_prompts(app, paths[0], out, render_prompts, shots_from, _csv_list(variants), split, seed)
        return
    _run_baselines(app, paths[0], out, _csv_list(baselines), _csv_list(variants), ngram_unit, jobs, seed, split,
                   transfer_from, mlp_max_iter, ci)
