"""``builder evaluate``: baselines on built splits, LLM answer scoring, Belebele prompts.

A group of three subcommands, each with its own options (see docs/evaluate.md):

* ``builder evaluate baselines DATASET --out DIR`` trains and scores the
  baselines of the dataset's kind (topic: majority, mlp, char_tfidf, char_linear; mc:
  chance, sliding_window, bow_lr) on every variant -> results.csv/.json/.md,
  accuracy.png.
* ``builder evaluate predictions FILE... --task topic|mc --out DIR`` parses
  and scores LLM answers -> results.csv/.json/.md, items.jsonl.
* ``builder evaluate prompts DATASET --mode five-shot|zero-shot --out DIR``
  writes Belebele's prompts for an MC split -> prompts/<variant>.<mode>.jsonl.
"""
from __future__ import annotations

from pathlib import Path

import click

from schemas.errors import UsageError

from builder.tasks.base import check_output, output_folder

from .common import OutputFolder, backend_option, jobs_option, names_option, pass_app, stage_progress, variant_option


def _read_labels(path: Path) -> list[str]:
    from schemas.io import read_text_utf8

    labels = [line.strip() for line in read_text_utf8(path).splitlines() if line.strip()]
    if not labels:
        raise UsageError(f"{path}: the labels file is empty; expected one label per line")
    return labels


def _run_baselines(app, dataset_path, out, baselines, variants, ngram_unit, jobs, seed, split, transfer_from,
                   mlp_max_iter, ci, backend="local", address=None):
    from schemas.dataset import load_dataset_dir
    from builder.evaluation import report, runner

    check_output(out, "evaluate baselines", inputs=[dataset_path], legacy="results.json")
    ds = load_dataset_dir(dataset_path, variants=variants or None)
    chosen = baselines or runner.default_baselines(ds.kind)
    cfg = runner.RunConfig(baselines=chosen, split=split, seed=seed, ngram_unit=ngram_unit,
                           mlp_max_iter=mlp_max_iter, transfer_from=transfer_from, ci_method=ci,
                           jobs=jobs, backend=backend, address=address)
    n_tasks = len(chosen) * len(ds.variants)
    where = (f"on Ray ({address})" if address else "on Ray") if backend == "ray" else \
        f"with {min(cfg.jobs, n_tasks)} worker(s)"
    app.info(f"evaluating {len(chosen)} baseline(s) on {len(ds.variants)} {ds.kind} variant(s) {where}")
    with stage_progress(app, "evaluate", n_tasks, "baseline runs done") as progress:
        rows = runner.run(ds, cfg, progress=progress)
    settings = cfg.to_dict()
    if ds.kind == "mc":
        settings.pop("ngram_unit"), settings.pop("mlp_max_iter")
    dataset = {"path": str(dataset_path), "kind": ds.kind, "variants": ds.variants}
    with output_folder(out, "evaluate baselines", inputs=[dataset_path], legacy="results.json") as stage:
        report.write_baseline_report(stage, rows, chosen, settings, dataset)
    means = report.baseline_means(rows, chosen)
    click.echo(report.baseline_markdown(rows, chosen, settings), nl=False)
    app.info(f"wrote {out / 'results.csv'}; mean accuracy: "
             + ", ".join(f"{b} {report.pct(m)}" for b, m in means.items()))


def _score_predictions(app, files, out, task, gold, labels_path, model, answer_column, lenient, split, ci):
    from builder.evaluation import llm_scoring, report
    from builder.evaluation.parsing import FAILURE_KINDS_MC, FAILURE_KINDS_TOPIC

    if lenient and task != "mc":
        raise UsageError("--lenient applies to --task mc only (Belebele's first-character fallback)")
    inputs = [*files, gold, labels_path]
    check_output(out, "evaluate predictions", inputs=inputs, legacy="items.jsonl")
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
    with output_folder(out, "evaluate predictions", inputs=inputs, legacy="items.jsonl") as stage:
        report.write_llm_report(stage, summary, per_item, kinds, settings)
    click.echo(report.llm_markdown(summary, kinds), nl=False)
    app.info(f"wrote {out / 'results.csv'} and {out / 'items.jsonl'} ({len(per_item)} answers)")


def _render_prompts(app, dataset_path, out, mode, shots_from, variants, split, seed):
    from schemas.dataset import load_dataset_dir
    from builder.evaluation import prompts
    from schemas.io import write_json_atomic, write_jsonl_atomic

    check_output(out, "evaluate prompts", inputs=[dataset_path, shots_from], legacy="prompts.json")
    ds = load_dataset_dir(dataset_path, variants=variants or None)
    if ds.kind != "mc":
        raise UsageError(f"prompts need a multiple-choice dataset; {dataset_path} holds {ds.kind} records")
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
    with output_folder(out, "evaluate prompts", inputs=[dataset_path, shots_from], legacy="prompts.json") as stage:
        for v in ds.variants:
            if split not in ds.tables[v]:
                raise UsageError(f"variant {v} has no {split!r} split; found {', '.join(ds.splits(v))}")
            rows = prompts.render(ds.tables[v][split], mode, shots=shots)
            path = write_jsonl_atomic(stage / "prompts" / f"{v}.{mode}.jsonl", rows)
            written[v] = {"file": str(path.relative_to(stage)), "n": len(rows)}
        write_json_atomic(stage / "prompts.json", {"mode": mode, "split": split, "shots": shot_source,
                                                   "variants": written, "parse_with": "builder evaluate "
                                                   "predictions FILE... --task mc (add --lenient for Belebele's "
                                                   "fallback)"})
    click.echo(f"wrote {sum(w['n'] for w in written.values())} {mode} prompts for {len(written)} variant(s) "
               f"to {out / 'prompts'}")


def _out_option(f):
    return click.option("--out", required=True, type=OutputFolder(),
                        help="Output folder, replaced as a whole (an existing one must be an earlier output of "
                             "the same subcommand).")(f)


def _split_option(help: str):
    return click.option("--split", default="test", show_default=True, help=help)


def _ci_option(f):
    return click.option("--ci", type=click.Choice(["wilson", "clopper-pearson"]), default="wilson",
                        show_default=True, help="95% confidence interval of each accuracy.")(f)


def _seed_option(help: str):
    return click.option("--seed", type=int, default=0, show_default=True, help=help)


@click.group("evaluate", context_settings={"help_option_names": ["-h", "--help"]})
def evaluate():
    """Score baselines on built splits, score LLM answers, or render Belebele prompts.

    \b
    builder evaluate baselines DATASET --out DIR [--baseline NAME ...] [--variant NAME ...]
    builder evaluate predictions FILE... --task topic|mc --out DIR [--gold DATASET] [--lenient]
    builder evaluate prompts DATASET --mode five-shot|zero-shot --out DIR [--shots-from DATASET]

    Every accuracy comes with its n and a 95% confidence interval; see
    `builder evaluate COMMAND --help` and docs/evaluate.md.
    """


@evaluate.command("baselines", short_help="Topic and MC baselines on built splits.")
@click.argument("dataset", type=click.Path(path_type=Path))
@_out_option
@names_option("--baseline", "baselines", help="Baseline to run [default: every one of the dataset's kind; "
              "topic: majority,mlp,char_tfidf,char_linear; mc: chance,sliding_window,bow_lr].")
@variant_option
@click.option("--ngram-unit", type=click.Choice(["char", "word"]), default="char", show_default=True,
              help="n-gram unit of the MLP's 1-3-gram counts (char reproduces SIB-200 Table 8).")
@jobs_option
@backend_option
@_seed_option("Seed of every model and tie-break.")
@_split_option("Split to score.")
@click.option("--transfer-from", metavar="VARIANT", help="Topic: train on this variant, test on every variant.")
@click.option("--mlp-max-iter", type=click.IntRange(min=1), default=300, show_default=True,
              help="MLP iterations (300 = the paper; lower only for quick checks).")
@_ci_option
@pass_app
def baselines_cmd(app, dataset, out, baselines, variants, ngram_unit, jobs, backend, address, seed, split,
                  transfer_from, mlp_max_iter, ci):
    """Train and score the baselines of DATASET's kind on every variant.

    DATASET is an assembled folder, a folder of variant folders or an export.
    Writes OUT/results.csv, results.json, results.md and accuracy.png.
    """
    _run_baselines(app, dataset, out, baselines, variants, ngram_unit, jobs, seed, split, transfer_from,
                   mlp_max_iter, ci, backend, address)


@evaluate.command("predictions", short_help="Parse and score LLM answers.")
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--task", required=True, type=click.Choice(["topic", "mc"]), help="How to parse the answers.")
@_out_option
@click.option("--gold", type=click.Path(path_type=Path), help="Built dataset to take gold labels from, by id, "
              "when the files carry none.")
@_split_option("With --gold: the split the answers are for.")
@click.option("--labels", "labels_path", type=click.Path(path_type=Path),
              help="With --task topic: label set, one per line (default: the gold labels seen).")
@click.option("--model", help="Model name when files have no model column (default: the file's folder name).")
@click.option("--answer-column", help="Column holding the free-text answer.")
@click.option("--lenient", is_flag=True, help="With --task mc: Belebele's first-character fallback, counted apart.")
@_ci_option
@pass_app
def predictions_cmd(app, files, task, out, gold, split, labels_path, model, answer_column, lenient, ci):
    """Parse and score LLM answers in FILES (JSONL, JSON, CSV or TSV).

    lm-evaluation-harness samples_*.jsonl files (--log_samples) are read as
    they are: one system per model and task (MODEL@TASK), the answer lm-eval's
    highest-likelihood choice or the generated text (docs/export.md).

    Writes OUT/results.csv, results.json, results.md and items.jsonl (every
    answer with its parse).
    """
    _score_predictions(app, files, out, task, gold, labels_path, model, answer_column, lenient, split, ci)


@evaluate.command("prompts", short_help="Write Belebele's five-shot or zero-shot prompts.")
@click.argument("dataset", type=click.Path(path_type=Path))
@click.option("--mode", required=True, type=click.Choice(["five-shot", "zero-shot"]),
              help="five-shot: the paper's template; zero-shot: Belebele's instruction prompt.")
@_out_option
@click.option("--shots-from", type=click.Path(path_type=Path),
              help="With --mode five-shot: dataset whose English train split gives the 5 shots "
                   "[default: DATASET].")
@variant_option
@_split_option("Split to write prompts for.")
@_seed_option("Seed that draws the five shots.")
@pass_app
def prompts_cmd(app, dataset, mode, out, shots_from, variants, split, seed):
    """Write Belebele's prompts for the multiple-choice DATASET.

    Writes OUT/prompts/<variant>.<mode>.jsonl (id, prompt, gold letter) and
    OUT/prompts.json; score the model's outputs with
    `builder evaluate predictions FILE... --task mc`.
    """
    _render_prompts(app, dataset, out, mode, shots_from, variants, split, seed)
