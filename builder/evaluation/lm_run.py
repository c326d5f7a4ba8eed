"""Run a language model on an export's lm-eval tasks with lm-evaluation-harness, in process.

``builder evaluate lm EXPORT --model PATH`` and the release's ``lm_eval:`` stage
call :func:`run_lm_eval`. The tasks are the export's own (``EXPORT/lm_eval``,
written by :mod:`builder.export.lmeval`): one per variant, found from the task
files themselves (:func:`export_tasks`), so a task list never goes out of step
with what the export holds. The model is a Hugging Face model folder, or a GGUF
file (or a folder holding one), which transformers de-quantizes on load
(:func:`model_args`); nothing is downloaded (the Hub and datasets run offline).

A limit takes ``limit`` items of each task's test split, **spread over the
labels** (:func:`spread_sample`): SIB-200's test split is ordered by label, so
the first ``limit`` items would score one or two topics only. The items are
drawn round-robin across the labels, each label's items in a seeded shuffled
order, and passed to lm-eval by index (its ``samples`` argument), so the run
says exactly which documents it scored (``selection.json``).

lm-eval's own files are kept as it writes them (``lm_eval/<model>/results_<date>.json``
and ``samples_<task>_<date>.jsonl``; what it and transformers print, progress bars
included, in ``lm_eval/run.log``); the scores are then read back from the
samples through the one scoring path of ``builder evaluate predictions``
(:mod:`builder.evaluation.llm_scoring`), and each variant's accuracy is checked
against lm-eval's ``acc`` of its task: a difference is an error, not a footnote.
"""
from __future__ import annotations

import contextlib
import copy
import functools
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from schemas.errors import SchemaError, ToolkitError, UsageError

#: The label column of the test split, by kind of data (the lm-eval templates' ``doc_to_target`` field).
TARGET_COLUMN = {"topic": "category", "mc": "correct_answer_num"}


class LmEvalError(ToolkitError):
    """lm-eval ran, but what it reports disagrees with the samples it logged (or it could not run)."""


@dataclass(frozen=True)
class ExportTask:
    """One lm-eval task of an export: its name, the variant it scores and its test split file."""

    task: str
    variant: str
    test_file: Path


def read_export(export: Path) -> dict:
    """The export's ``manifest.json``, its variant folders verified against it (a changed split file is the
    loader's :class:`~schemas.errors.IntegrityError`); a folder without one is a usage error."""
    from schemas.manifest import read_manifest, verify_against_manifest

    export = Path(export)
    manifest = read_manifest(export)
    if manifest is None:
        raise UsageError(f"{export}: not an export (no manifest.json); expected the folder `builder export` wrote")
    for variant in manifest.get("variants") or {}:
        verify_against_manifest(export / variant)
    return manifest


def export_tasks(export: Path, manifest: dict) -> list[ExportTask]:
    """The lm-eval tasks of the export whose manifest is ``manifest`` (:func:`read_export`), in the order of
    its ``lm_eval_tasks``.

    Each task's variant and test file come from its own YAML (``dataset_kwargs.data_files``, the
    ``test_split`` key), so they are what lm-eval reads.
    """
    from schemas.io import read_yaml

    export = Path(export)
    names = manifest.get("lm_eval_tasks") or []
    if not names:
        raise UsageError(f"{export}: the export has no lm-eval tasks; export it with `--lm-eval` "
                         f"(in a release: `export: {{lm_eval: true}}`)")
    tasks = []
    for name in names:
        path = export / "lm_eval" / f"{name}.yaml"
        if not path.is_file():
            raise SchemaError(f"manifest.json lists lm-eval task {name!r} but {path.name} is missing",
                              file=export / "manifest.json", record="lm_eval_tasks")
        doc = read_yaml(path) or {}
        files = ((doc.get("dataset_kwargs") or {}).get("data_files") or {})
        split = doc.get("test_split") or "test"
        if split not in files:
            raise SchemaError(f"task {name!r} has no data file for its test split {split!r}", file=path,
                              record="dataset_kwargs.data_files")
        test = (path.parent / str(files[split])).resolve()
        tasks.append(ExportTask(task=name, variant=test.parent.name, test_file=test))
    return tasks


def select_tasks(tasks: list[ExportTask], wanted) -> list[ExportTask]:
    """``wanted``: "all" (or empty) or task names / variant codes; an unknown one is a usage error."""
    if not wanted or wanted == "all" or list(wanted) == ["all"]:
        return list(tasks)
    by = {t.task: t for t in tasks} | {t.variant: t for t in tasks}
    unknown = [w for w in wanted if w not in by]
    if unknown:
        raise UsageError(f"no lm-eval task or variant {', '.join(map(repr, unknown))} in the export "
                         f"(it has: {', '.join(t.variant for t in tasks)})")
    return list(dict.fromkeys(by[w] for w in wanted))


def spread_sample(labels: list, limit: int | None, seed: int) -> list[int]:
    """Indices of ``limit`` items spread over the labels (all items when ``limit`` is None or too big).

    Round-robin over the labels (in order of first appearance), each label's items in a seeded
    shuffled order; the indices come back sorted, as the documents are.

    >>> spread_sample(["a"] * 4 + ["b"] * 4 + ["c"] * 2, 6, seed=0)  # two of each label
    [0, 2, 6, 7, 8, 9]
    >>> spread_sample(["a", "b"], None, seed=0)
    [0, 1]
    """
    import numpy as np

    n = len(labels)
    if limit is None or limit >= n:
        return list(range(n))
    rng = np.random.default_rng(seed)
    groups: dict = {}
    for i, label in enumerate(labels):
        groups.setdefault(label, []).append(i)
    queues = [list(rng.permutation(idx)) for idx in groups.values()]
    chosen: list[int] = []
    while len(chosen) < limit:
        for q in queues:
            if q and len(chosen) < limit:
                chosen.append(int(q.pop(0)))
    return sorted(chosen)


def task_labels(task: ExportTask, kind: str) -> list:
    """The label of every test item of ``task``, in document order."""
    import pyarrow.parquet as pq

    column = TARGET_COLUMN[kind]
    table = pq.read_table(task.test_file, columns=[column])
    return table.column(column).to_pylist()


def model_args(model: Path) -> tuple[dict, str]:
    """lm-eval ``hf`` model arguments for ``model`` and the model's name in results.

    A ``.gguf`` file (or a folder holding exactly one and no ``config.json``) loads through
    transformers' GGUF reader; a folder with ``config.json`` is a Hugging Face model folder.
    """
    model = Path(model)
    if model.is_file() and model.suffix.lower() == ".gguf":
        return {"pretrained": str(model.parent), "gguf_file": model.name}, model.stem
    if model.is_dir():
        if (model / "config.json").is_file():
            return {"pretrained": str(model)}, model.name
        ggufs = sorted(model.glob("*.gguf"))
        if len(ggufs) == 1:
            return model_args(ggufs[0])
        if len(ggufs) > 1:
            raise UsageError(f"{model}: holds {len(ggufs)} GGUF files ({', '.join(g.name for g in ggufs)}); "
                             f"pass the one to load")
    raise UsageError(f"{model}: expected a model folder (with config.json) or a .gguf file")


@dataclass
class LmRun:
    """What one run scored: lm-eval's files, our summary rows, lm-eval's ``acc`` per task, the selection."""

    model: str
    files: list[Path]
    summary: list[dict]
    per_item: list[dict]
    lm_acc: dict[str, float]
    selection: dict[str, dict]


@contextlib.contextmanager
def _quiet_libraries(log: Path):
    """Offline, and lm-eval's, transformers' and datasets' progress bars and log lines in ``log``, for the run only.

    They write to the process's stderr (file descriptor 2, some through tqdm); it points at ``log`` while
    the run lasts, so the terminal and a CI log get the command's own lines and the run's chatter is kept.

    lm-eval records the git commit of the working directory and lets ``git`` print ``fatal: not a git
    repository`` to stderr outside one; the same lookup runs here with git's stderr discarded.
    """
    import logging
    import subprocess
    from unittest import mock

    import lm_eval.evaluator

    def git_hash():
        try:
            return subprocess.check_output(["git", "describe", "--always"], stderr=subprocess.DEVNULL).strip().decode()
        except (subprocess.CalledProcessError, OSError):
            return None

    # HF_EVALUATE_OFFLINE: lm-eval looks some metrics up in the evaluate library, which ignores the Hub's
    # flag and retries HTTP with sleeps
    env = {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_EVALUATE_OFFLINE": "1",
           "TRANSFORMERS_VERBOSITY": "error", "TOKENIZERS_PARALLELISM": "false", "TQDM_DISABLE": "1"}
    loggers = {name: logging.getLogger(name) for name in
               ("lm_eval", "lm-eval", "transformers", "datasets", "accelerate", "huggingface_hub", "gguf")}
    levels = {name: lg.level for name, lg in loggers.items()}
    import datasets.config
    import huggingface_hub.constants

    log.parent.mkdir(parents=True, exist_ok=True)
    sys.stderr.flush()
    saved = os.dup(2)
    with contextlib.ExitStack() as stack:
        sink = stack.enter_context(open(log, "ab"))
        stack.enter_context(mock.patch.dict(os.environ, env))
        stack.enter_context(mock.patch.object(lm_eval.evaluator, "get_git_commit_hash", git_hash))
        # the libraries read the offline flags once, when first imported (an earlier stage's export may
        # have imported datasets): set where they keep them, or a missing file becomes Hub requests
        kept = [(huggingface_hub.constants, ("HF_HUB_OFFLINE",)),
                (datasets.config, ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE"))]
        if "evaluate.config" in sys.modules:  # imported before: it read its flag then
            kept.append((sys.modules["evaluate.config"], ("HF_EVALUATE_OFFLINE", "HF_HUB_OFFLINE")))
        for module, names in kept:
            for name in names:
                if hasattr(module, name):
                    stack.enter_context(mock.patch.object(module, name, True))
        os.dup2(sink.fileno(), 2)
        for lg in loggers.values():
            lg.setLevel(logging.WARNING)
        try:
            yield
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            for name, lg in loggers.items():
                lg.setLevel(levels[name])


@contextlib.contextmanager
def _gguf_read_once():
    """While lm-eval runs, each GGUF file is parsed once: transformers opens a ``gguf.GGUFReader`` for the
    config, again for the tokenizer and again for the weights (lm-eval asks for the config twice), and
    building one costs about 3 CPU s for SmolLM2-135M (its 49,152-token vocabulary). The reader only
    maps the file and lists its fields and tensors, which the loaders read without changing. Likewise
    gguf's tensor-name map of an architecture is built once, not once per module (about 5 CPU s), and
    transformers' parse of the file's fields without its tensors once, not three times."""
    from unittest import mock

    try:
        import gguf
    except ImportError:  # a Hugging Face folder needs no gguf
        yield
        return
    real, readers = gguf.GGUFReader, {}
    # transformers asks for an architecture's tensor-name map once per module of the model (397 times for
    # SmolLM2), and each is built from gguf's whole table of tensor names (20 ms); it is only read
    name_map = functools.cache(gguf.get_tensor_name_map)

    def reader(path, mode="r"):
        key = (os.path.abspath(os.fspath(path)), mode)
        if key not in readers:
            readers[key] = real(path, mode)
        return readers[key]

    patches = [mock.patch.object(gguf, "GGUFReader", reader), mock.patch.object(gguf, "get_tensor_name_map", name_map)]
    try:  # transformers parses every field of the file (the vocabulary: 1.2 million values) for the config,
        # twice, and for the tokenizer: about 1.7 CPU s each for SmolLM2. Parsed once; each caller gets a copy
        from transformers import modeling_gguf_pytorch_utils as gguf_utils
    except ImportError:
        gguf_utils = None
    if gguf_utils is not None:
        load, parsed = gguf_utils.load_gguf_checkpoint, {}

        def load_once(path, *args, **kwargs):
            if args or kwargs not in ({}, {"return_tensors": False}):  # the weights: as transformers does
                return load(path, *args, **kwargs)
            key = os.path.abspath(os.fspath(path))
            if key not in parsed:
                parsed[key] = load(path, return_tensors=False)
            return copy.deepcopy(parsed[key])  # the callers may change what they get

        patches.append(mock.patch.object(gguf_utils, "load_gguf_checkpoint", load_once))
    with contextlib.ExitStack() as stack:
        for patch in patches:
            stack.enter_context(patch)
        yield


def run_lm_eval(export: Path, model: Path, out: Path, *, manifest: dict, tasks=("all",), limit: int | None = None,
                batch_size: int = 1, device: str = "cpu", seed: int = 0, num_fewshot: int | None = None) -> LmRun:
    """Run lm-eval on the tasks of the export whose manifest is ``manifest`` (:func:`read_export`) and score its
    samples back; lm-eval's files go under ``out/lm_eval``."""
    from . import llm_scoring

    export, out = Path(export), Path(out)
    kind = manifest.get("kind", "topic")
    chosen = select_tasks(export_tasks(export, manifest), tasks)  # the export and the model are checked
    args, label = model_args(model)                                  # before lm-eval is looked for
    try:
        import lm_eval
        from lm_eval.loggers import EvaluationTracker
        from lm_eval.tasks import TaskManager
    except ImportError:
        raise UsageError("lm-evaluation-harness is not installed: pip install 'mc-dataset-builder[lmeval]'") from None
    selection = {}
    for t in chosen:
        labels = task_labels(t, kind)
        picked = spread_sample(labels, limit, seed)
        covered = sorted({str(labels[i]) for i in picked})
        selection[t.task] = {"variant": t.variant, "items": len(labels), "scored": len(picked),
                             "labels_scored": covered, "indices": picked}
    staging = out / "lm_eval" / ".run"
    with _quiet_libraries(out / "lm_eval" / "run.log"), _gguf_read_once():
        manager = TaskManager(include_path=str(export / "lm_eval"), include_defaults=False, verbosity="ERROR")
        tracker = EvaluationTracker(output_path=str(staging))
        try:
            results = lm_eval.simple_evaluate(
                model="hf", model_args=args, tasks=[t.task for t in chosen],
                num_fewshot=num_fewshot, batch_size=batch_size, device=device, task_manager=manager,
                samples={t.task: selection[t.task]["indices"] for t in chosen} if limit is not None else None,
                log_samples=True, evaluation_tracker=tracker, random_seed=seed, numpy_random_seed=seed,
                torch_random_seed=seed, fewshot_random_seed=seed, bootstrap_iters=0, verbosity="ERROR")
        except (OSError, ValueError, RuntimeError) as err:
            raise LmEvalError(f"lm-eval could not run {label} on {export}: {' '.join(str(err).split())}") from None
        samples = results.pop("samples")
        tracker.save_results_aggregated(results=results, samples=samples)
        for task in results["configs"]:
            tracker.save_results_samples(task_name=task, samples=samples[task])
    # lm-eval names its folder after the model's path (``__root__...``); here it is named after the model
    (written,) = [p for p in staging.iterdir() if p.is_dir()]
    target = out / "lm_eval" / label
    shutil.move(str(written), str(target))
    staging.rmdir()
    files = sorted(target.glob("*.json*"))
    sample_files = [f for f in files if f.name.startswith("samples_")]
    items = llm_scoring.load_items(sample_files, kind, model=label)
    summary, per_item = llm_scoring.score(items, kind)
    lm_acc = {t.task: float(results["results"][t.task]["acc,none"]) for t in chosen}
    ours = {row["variant"]: row for row in summary}
    for t in chosen:
        row = ours.get(t.variant)
        if row is None or abs(row["correct"] / row["n"] - lm_acc[t.task]) > 1e-9:
            mine = "none" if row is None else f"{row['correct']}/{row['n']}"
            raise LmEvalError(f"lm-eval's acc of {t.task} is {lm_acc[t.task]:.6f} but its logged samples "
                              f"score {mine}; the samples and the results disagree")
    return LmRun(model=label, files=files, summary=summary, per_item=per_item, lm_acc=lm_acc, selection=selection)
