"""``builder evaluate``: baselines on built splits, LLM answer scoring, Belebele prompts.

A group of four subcommands, each with its own options (see docs/evaluate.md):

* ``builder evaluate baselines DATASET --out DIR`` trains and scores the
  baselines of the dataset's kind (topic: majority, char_tfidf, char_linear, and mlp
  when named; mc: chance, sliding_window, bow_lr) on every variant -> results.csv/.json/.md,
  accuracy.png.
* ``builder evaluate predictions FILE... --task topic|mc --out DIR`` parses
  and scores LLM answers -> results.csv/.json/.md, items.jsonl.
* ``builder evaluate prompts DATASET --mode five-shot|zero-shot --out DIR``
  writes Belebele's prompts for an MC split -> prompts/<variant>.<mode>.jsonl.
* ``builder evaluate lm EXPORT --model PATH --out DIR`` runs a language model
  (a model folder or a GGUF file) on the export's lm-eval tasks, in process,
  and scores its samples -> lm_eval/<model>/, results.csv/.json/.md.

The bodies are :mod:`builder.tasks.evaluate`.
"""
from __future__ import annotations

from pathlib import Path

import click

from .common import OutputFolder, backend_option, jobs_option, names_option, pass_app, variant_option


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
@names_option("--baseline", "baselines", help="Baseline to run [default: every one of the dataset's kind but the MLP; "
              "topic: majority,char_tfidf,char_linear (mlp when named); mc: chance,sliding_window,bow_lr].")
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
    from builder.tasks.evaluate import BaselinesOptions, run_baselines

    result = run_baselines(BaselinesOptions(dataset, out, baselines=baselines, variants=variants,
                                            ngram_unit=ngram_unit, jobs=jobs, backend=backend, address=address,
                                            seed=seed, split=split, transfer_from=transfer_from,
                                            mlp_max_iter=mlp_max_iter, ci=ci), app.reporter())
    app.show(result)


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
    from builder.tasks.evaluate import PredictionsOptions, run_predictions

    result = run_predictions(PredictionsOptions(files, task, out, gold=gold, labels=labels_path, model=model,
                                                answer_column=answer_column, lenient=lenient, split=split, ci=ci),
                             app.reporter())
    app.show(result)


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
    from builder.tasks.evaluate import PromptsOptions, run_prompts

    result = run_prompts(PromptsOptions(dataset, out, mode, shots_from=shots_from, variants=variants, split=split,
                                        seed=seed), app.reporter())
    app.show(result)


@evaluate.command("lm", short_help="Run a language model on an export's lm-eval tasks.")
@click.argument("export", type=click.Path(path_type=Path))
@click.option("--model", required=True, type=click.Path(path_type=Path),
              help="A Hugging Face model folder (with config.json) or a GGUF file (or a folder holding one).")
@_out_option
@names_option("--task", "tasks", help="lm-eval task or variant to run [default: every task of the export].")
@click.option("--limit", type=click.IntRange(min=1), help="Items per task, spread over the labels (seeded) "
              "[default: the whole test split].")
@click.option("--batch-size", type=click.IntRange(min=1), default=1, show_default=True)
@click.option("--device", default="cpu", show_default=True, help="torch device (cpu, cuda, cuda:0, mps).")
@click.option("--num-fewshot", type=click.IntRange(min=0), help="Few-shot examples from each task's "
              "few-shot split [default: the task's, 0].")
@_seed_option("Seed of the limited items' draw and of lm-eval.")
@pass_app
def lm_cmd(app, export, model, out, tasks, limit, batch_size, device, num_fewshot, seed):
    """Run MODEL on the lm-eval tasks of EXPORT (a `builder export --lm-eval` folder), in process.

    lm-eval's results_*.json and samples_*.jsonl are kept under
    OUT/lm_eval/<model>/; the samples are scored as `builder evaluate
    predictions` scores them (the choice of highest log-likelihood, lm-eval's
    acc, checked equal to lm-eval's own) -> OUT/results.csv/.json/.md,
    items.jsonl, selection.json (the items scored) and records.csv (for
    `builder disparity`). Nothing is downloaded.
    """
    from builder.tasks.evaluate import LmOptions, run_lm

    result = run_lm(LmOptions(export=export, model=model, out=out, tasks=tuple(tasks) or ("all",), limit=limit,
                              batch_size=batch_size, device=device, seed=seed, num_fewshot=num_fewshot),
                    app.reporter())
    app.show(result)
