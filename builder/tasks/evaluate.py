"""The bodies of ``builder evaluate baselines|predictions|prompts`` (docs/evaluate.md).

* :func:`run_baselines` trains and scores the baselines of the dataset's kind
  on every variant -> ``results.csv/.json/.md``, ``accuracy.png``;
* :func:`run_predictions` parses and scores LLM answers ->
  ``results.csv/.json/.md``, ``items.jsonl``;
* :func:`run_prompts` writes Belebele's prompts for an MC split ->
  ``prompts/<variant>.<mode>.jsonl``, ``prompts.json``;
* :func:`run_lm` runs a language model on an export's lm-eval tasks and scores
  its samples -> ``lm_eval/<model>/`` (lm-eval's own files),
  ``results.csv/.json/.md``, ``items.jsonl``, ``records.csv``, ``selection.json``.

Each writes one folder that replaces ``out`` whole (an existing one must be
an earlier output of the same subcommand and hold none of its inputs).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from schemas.names import path_under
from schemas.runtime.provenance import recorded_path
from schemas.errors import UsageError

from .base import QUIET, Reporter, TaskResult, check_output, output_folder


def _lines(text: str) -> list[str]:
    """A printed block (ending in a newline) as the lines :class:`TaskResult` carries."""
    return text[:-1].split("\n") if text.endswith("\n") else text.split("\n")


# -- baselines -----------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class BaselinesOptions:
    """``builder evaluate baselines``; ``baselines`` [default: every one of the dataset's kind], ``variants``
    [default: all]; the rest as :class:`builder.evaluation.runner.RunConfig`."""

    dataset: Path
    out: Path
    baselines: tuple[str, ...] = ()
    variants: tuple[str, ...] = ()
    ngram_unit: str = "char"
    jobs: int = 1
    backend: str = "local"
    address: str | None = None
    seed: int = 0
    split: str = "test"
    transfer_from: str | None = None
    mlp_max_iter: int = 300
    ci: str = "wilson"


@dataclass
class BaselinesResult(TaskResult):
    """``rows``: one per baseline x variant (results.json ``results``); ``baselines``: those run; ``settings``;
    ``means``: baseline -> mean accuracy over the variants."""

    rows: list = field(default_factory=list)
    baselines: list = field(default_factory=list)
    settings: dict = field(default_factory=dict)
    means: dict = field(default_factory=dict)


def run_baselines(options: BaselinesOptions, report: Reporter = QUIET) -> BaselinesResult:
    """Train and score the baselines of the dataset's kind on every variant; ``lines``: the Markdown table."""
    from builder.evaluation import report as evaluation_report
    from builder.evaluation import runner
    from schemas.dataset import load_dataset_dir

    from schemas.dataset import UnknownVariantError

    o = options
    check_output(o.out, "evaluate baselines", inputs=[o.dataset], legacy="results.json")
    runner.check_baseline_names(o.baselines)  # before the dataset is read
    try:
        ds = load_dataset_dir(o.dataset, variants=o.variants or None)
    except UnknownVariantError as err:  # the option named it: a usage error, as docs/evaluate.md says
        raise UsageError(err.message, file=err.file, field="--variant") from None
    chosen = o.baselines or runner.default_baselines(ds.kind)
    cfg = runner.RunConfig(baselines=chosen, split=o.split, seed=o.seed, ngram_unit=o.ngram_unit,
                           mlp_max_iter=o.mlp_max_iter, transfer_from=o.transfer_from, ci_method=o.ci,
                           jobs=o.jobs, backend=o.backend, address=o.address)
    n_tasks = len(chosen) * len(ds.variants)
    where = (f"on Ray ({o.address})" if o.address else "on Ray") if o.backend == "ray" else \
        f"with {min(cfg.jobs, n_tasks)} worker(s)"
    report.info(f"evaluating {len(chosen)} baseline(s) on {len(ds.variants)} {ds.kind} variant(s) {where}")
    with report.progress("evaluate", n_tasks, "baseline runs done") as progress:
        rows = runner.run(ds, cfg, progress=progress)
    settings = cfg.to_dict()
    if ds.kind == "mc":
        settings.pop("ngram_unit"), settings.pop("mlp_max_iter")
    dataset = {"path": recorded_path(o.dataset), "kind": ds.kind, "variants": ds.variants}
    with output_folder(o.out, "evaluate baselines", inputs=[o.dataset], legacy="results.json") as stage:
        evaluation_report.write_baseline_report(stage, rows, chosen, settings, dataset)
    means = evaluation_report.baseline_means(rows, chosen)
    note = (f"wrote {o.out / 'results.csv'}; mean accuracy: "
            + ", ".join(f"{b} {evaluation_report.pct(m)}" for b, m in means.items()))
    return BaselinesResult(lines=_lines(evaluation_report.baseline_markdown(rows, chosen, settings)), notes=[note],
                           rows=rows, baselines=chosen, settings=settings, means=means)


# -- predictions ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class PredictionsOptions:
    """``builder evaluate predictions``: answer ``files`` parsed as ``task`` (topic or mc); gold labels from
    ``gold`` (a built dataset, by id) when the files carry none; ``labels``: a label-set file."""

    files: tuple[Path, ...]
    task: str
    out: Path
    gold: Path | None = None
    labels: Path | None = None
    model: str | None = None
    answer_column: str | None = None
    lenient: bool = False
    split: str = "test"
    ci: str = "wilson"


@dataclass
class PredictionsResult(TaskResult):
    """``summary``: one row per system and variant (results.json); ``n_answers``: the answers scored."""

    summary: list = field(default_factory=list)
    n_answers: int = 0


def _read_labels(path: Path) -> list[str]:
    from schemas.io import read_text_utf8

    labels = [line.strip() for line in read_text_utf8(path).splitlines() if line.strip()]
    if not labels:
        raise UsageError(f"{path}: the labels file is empty; expected one label per line")
    return labels


def run_predictions(options: PredictionsOptions, report: Reporter = QUIET) -> PredictionsResult:
    """Parse and score LLM answers; ``lines``: the Markdown table of accuracies and parse failures."""
    from builder.evaluation import llm_scoring
    from builder.evaluation import report as evaluation_report
    from builder.evaluation.parsing import FAILURE_KINDS_MC, FAILURE_KINDS_TOPIC

    o = options
    if o.lenient and o.task != "mc":
        raise UsageError("--lenient applies to --task mc only (Belebele's first-character fallback)")
    inputs = [*o.files, o.gold, o.labels]
    check_output(o.out, "evaluate predictions", inputs=inputs, legacy="items.jsonl")
    items = llm_scoring.load_items(o.files, o.task, model=o.model, answer_column=o.answer_column)
    if o.gold is not None:
        from schemas.dataset import load_dataset_dir

        items = llm_scoring.attach_gold(items, load_dataset_dir(o.gold), o.task, o.split)  # replaces any gold
    labels = _read_labels(o.labels) if o.labels else None
    summary, per_item = llm_scoring.score(items, o.task, labels=labels, lenient=o.lenient, ci_method=o.ci)
    kinds = FAILURE_KINDS_TOPIC if o.task == "topic" else FAILURE_KINDS_MC
    settings = {"task": o.task, "lenient": o.lenient, "labels": labels, "files": [str(f) for f in o.files],
                "gold": None if o.gold is None else str(o.gold), "split": o.split, "ci_method": o.ci,
                "ci_level": 0.95, "accuracy": "correct / n, parse failures count as wrong"}
    summary = [{k: (None if isinstance(v, float) and v != v else v) for k, v in r.items()} for r in summary]
    with output_folder(o.out, "evaluate predictions", inputs=inputs, legacy="items.jsonl") as stage:
        evaluation_report.write_llm_report(stage, summary, per_item, kinds, settings)
    note = f"wrote {o.out / 'results.csv'} and {o.out / 'items.jsonl'} ({len(per_item)} answers)"
    return PredictionsResult(lines=_lines(evaluation_report.llm_markdown(summary, kinds)), notes=[note],
                             summary=summary, n_answers=len(per_item))


# -- prompts -------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class PromptsOptions:
    """``builder evaluate prompts``: ``mode`` five-shot or zero-shot; ``shots_from``: the dataset whose English
    train split gives the five shots [default: ``dataset``]."""

    dataset: Path
    out: Path
    mode: str
    shots_from: Path | None = None
    variants: tuple[str, ...] = ()
    split: str = "test"
    seed: int = 0


@dataclass
class PromptsResult(TaskResult):
    """``written``: variant -> {file (relative to ``out``), n}; ``shots``: where the five shots came from."""

    written: dict = field(default_factory=dict)
    shots: dict | None = None


def run_prompts(options: PromptsOptions, report: Reporter = QUIET) -> PromptsResult:
    """Write Belebele's prompts for a multiple-choice dataset -> OUT/prompts/<variant>.<mode>.jsonl, prompts.json."""
    from builder.evaluation import prompts
    from schemas.dataset import load_dataset_dir
    from schemas.io import write_json_atomic, write_jsonl_atomic

    o = options
    inputs = [o.dataset, o.shots_from]
    check_output(o.out, "evaluate prompts", inputs=inputs, legacy="prompts.json")
    ds = load_dataset_dir(o.dataset, variants=o.variants or None)
    if ds.kind != "mc":
        raise UsageError(f"prompts need a multiple-choice dataset; {o.dataset} holds {ds.kind} records")
    shots, shot_source = [], None
    if o.mode == "five-shot":
        source = load_dataset_dir(o.shots_from) if o.shots_from else load_dataset_dir(o.dataset)
        variant = "eng_Latn" if "eng_Latn" in source.tables else source.variants[0]
        if "train" not in source.tables[variant]:
            raise UsageError(f"five-shot prompts need English training items: {variant} in "
                             f"{o.shots_from or o.dataset} has no train split (pass --shots-from DIR)")
        shots = prompts.pick_shots(source.tables[variant]["train"], seed=o.seed)
        shot_source = {"dataset": str(o.shots_from or o.dataset), "variant": variant, "split": "train",
                       "ids": [str(s.get("question_id", "")) for s in shots], "seed": o.seed}
    written = {}
    with output_folder(o.out, "evaluate prompts", inputs=inputs, legacy="prompts.json") as stage:
        for v in ds.variants:
            if o.split not in ds.tables[v]:
                raise UsageError(f"variant {v} has no {o.split!r} split; found {', '.join(ds.splits(v))}")
            rows = prompts.render(ds.tables[v][o.split], o.mode, shots=shots)
            path = write_jsonl_atomic(path_under(stage, "prompts", f"{v}.{o.mode}.jsonl"), rows)
            written[v] = {"file": str(path.relative_to(stage)), "n": len(rows)}
        write_json_atomic(stage / "prompts.json", {"mode": o.mode, "split": o.split, "shots": shot_source,
                                                   "variants": written, "parse_with": "builder evaluate "
                                                   "predictions FILE... --task mc (add --lenient for Belebele's "
                                                   "fallback)"})
    line = (f"wrote {sum(w['n'] for w in written.values())} {o.mode} prompts for {len(written)} variant(s) "
            f"to {o.out / 'prompts'}")
    return PromptsResult(lines=[line], written=written, shots=shot_source)


# -- a language model through lm-eval ------------------------------------------------------------------------

@dataclass(frozen=True)
class LmSettings:
    """A language-model run: ``model`` (a model folder or a GGUF file) on an export's lm-eval tasks
    (``tasks``: "all", or task names / variant codes), the test split of each, ``limit`` items of each spread
    over the labels (seeded; None: every test item). A release recipe's ``lm_eval:`` is one."""

    model: Path
    tasks: tuple[str, ...] = ("all",)
    limit: int | None = None
    batch_size: int = 1
    device: str = "cpu"
    seed: int = 0
    num_fewshot: int | None = None


@dataclass(frozen=True, kw_only=True)
class LmOptions(LmSettings):
    """``builder evaluate lm``: the run of :class:`LmSettings` on the tasks of ``export``, written to ``out``."""

    export: Path
    out: Path


@dataclass
class LmResult(TaskResult):
    """``summary``: one row per variant (results.json); ``lm_acc``: lm-eval's acc per task (equal to ours)."""

    summary: list = field(default_factory=list)
    lm_acc: dict = field(default_factory=dict)
    model: str = ""


def disparity_records(rows) -> str:
    """``records.csv`` for ``builder disparity``: model, language (the variant), task, score (accuracy)."""
    from builder.evaluation.report import csv_text

    return csv_text([{"model": r["model"], "language": r["variant"], "task": r.get("task_name") or "accuracy",
                      "score": r["accuracy"]} for r in rows], ("model", "language", "task", "score"))


def run_lm(options: LmOptions, report: Reporter = QUIET) -> LmResult:
    """Run lm-eval with ``model`` on the export's tasks in process; score the samples as `evaluate predictions`."""
    from builder.evaluation import report as evaluation_report
    from builder.evaluation.lm_run import read_export, run_lm_eval
    from builder.evaluation.parsing import FAILURE_KINDS_MC, FAILURE_KINDS_TOPIC
    from schemas.io import write_json_atomic, write_text_atomic

    o = options
    inputs = [o.export, o.model]
    check_output(o.out, "evaluate lm", inputs=inputs)
    if o.limit is not None and o.limit < 1:
        raise UsageError(f"--limit must be at least 1; found {o.limit}")
    manifest = read_export(o.export)
    kind = manifest.get("kind", "topic")
    with output_folder(o.out, "evaluate lm", inputs=inputs) as stage:
        report.info(f"lm-eval: {o.model} on {o.export}" + (f", {o.limit} item(s) per task" if o.limit else ""))
        run = run_lm_eval(o.export, o.model, stage, manifest=manifest, tasks=o.tasks, limit=o.limit,
                          batch_size=o.batch_size, device=o.device, seed=o.seed, num_fewshot=o.num_fewshot)
        by_variant = {sel["variant"]: (task, sel) for task, sel in run.selection.items()}
        summary = []
        for row in run.summary:
            task, sel = by_variant[row["variant"]]
            row = {k: (None if isinstance(v, float) and v != v else v) for k, v in row.items()}
            summary.append({**row, "lm_eval_task": task, "lm_eval_acc": run.lm_acc[task],
                            "items": sel["items"], "labels_scored": sel["labels_scored"]})
        kinds = FAILURE_KINDS_TOPIC if kind == "topic" else FAILURE_KINDS_MC
        settings = {"task": kind, "model": run.model, "model_path": recorded_path(o.model),
                    "export": recorded_path(o.export), "limit": o.limit, "seed": o.seed,
                    "num_fewshot": o.num_fewshot, "split": "test", "ci_method": "wilson", "ci_level": 0.95,
                    "selection": "every test item" if o.limit is None else
                    f"{o.limit} test items per task, round-robin over the labels, seeded shuffles (seed {o.seed})",
                    "accuracy": "lm-eval's acc: the choice of highest log-likelihood; equal to lm-eval's own"}
        evaluation_report.write_llm_report(stage, summary, run.per_item, kinds, settings)
        write_json_atomic(stage / "selection.json", run.selection)
        write_text_atomic(stage / "records.csv", disparity_records(summary))
    lines = [f"{r['variant']}: {r['accuracy']:.3f} [{r['ci_low']:.3f}, {r['ci_high']:.3f}] "
             f"({r['correct']}/{r['n']}; lm-eval acc {r['lm_eval_acc']:.3f})" for r in summary]
    note = f"wrote {o.out / 'results.csv'} and lm-eval's files in {o.out / 'lm_eval' / run.model}"
    return LmResult(lines=lines, notes=[note], summary=summary, lm_acc=run.lm_acc, model=run.model)
