"""Run baselines over the variants of a loaded dataset, in parallel, into result rows.

One task is one (variant, baseline) pair, so the slow MLP runs spread evenly
over the workers. The tasks fan out with :func:`schemas.runtime.fanout.fan_out`: local
worker processes or a Ray cluster (``RunConfig.backend``), one BLAS/OpenMP
thread each; tasks are independent and seeded, so the rows are the same
whatever the backend and the number of workers. Each row carries its n, the 95%
confidence interval (Wilson by default) and the seed.

>>> row = score_row("eng_Latn", "majority", "test", 1, 2, seed=0)
>>> row["accuracy"], row["n"], row["script"], row["ci_low"]
(0.5, 2, 'Latn', 0.094531)
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from schemas.codes import variant_script
from schemas.errors import SchemaError, UsageError
from schemas.runtime.fanout import fan_out

from . import mc_baselines, topic_baselines
from .stats import accuracy_ci

if TYPE_CHECKING:  # the loader imports pandas; planning a release asks only the baseline names here
    from schemas.dataset import LoadedDataset

@dataclass(frozen=True)
class RunConfig:
    """Settings of one evaluation run (recorded in results.json)."""

    baselines: tuple[str, ...]
    split: str = "test"
    seed: int = 0
    ngram_unit: str = topic_baselines.DEFAULT_NGRAM_UNIT
    mlp_max_iter: int = topic_baselines.MLP_MAX_ITER
    transfer_from: str | None = None
    ci_method: str = "wilson"
    jobs: int = 1
    backend: str = "local"  # how the tasks fan out (schemas.runtime.fanout); not recorded: the rows do not depend on it
    address: str | None = None  # a Ray cluster's address (backend "ray")
    extra: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"baselines": list(self.baselines), "split": self.split, "seed": self.seed,
                "ngram_unit": self.ngram_unit, "mlp_max_iter": self.mlp_max_iter,
                "transfer_from": self.transfer_from, "ci_method": self.ci_method, "ci_level": 0.95}


#: what runs when no baseline is named: every one but the MLP, which costs about ten times char_linear's CPU
#: time for lower accuracy (BENCHMARKS.md) and runs only when asked (``--baseline mlp``; issue 25)
DEFAULT_TOPIC_BASELINES = tuple(b for b in topic_baselines.TOPIC_BASELINES if b != "mlp")


def known_baselines(kind: str) -> tuple[str, ...]:
    """Every baseline known for a dataset kind ("topic" or "mc")."""
    return topic_baselines.TOPIC_BASELINES if kind == "topic" else mc_baselines.MC_BASELINES


def default_baselines(kind: str) -> tuple[str, ...]:
    """The baselines run when none is named: the known ones of ``kind`` less the topic MLP.

    >>> default_baselines("topic")
    ('majority', 'char_tfidf', 'char_linear')
    """
    return DEFAULT_TOPIC_BASELINES if kind == "topic" else mc_baselines.MC_BASELINES


def check_baseline_names(names) -> None:
    """A usage error (exit 2) for a name that is a baseline of neither kind, before any data is read; a
    baseline of the other kind is refused by :func:`run`, once the dataset's kind is known."""
    known = (*topic_baselines.TOPIC_BASELINES, *mc_baselines.MC_BASELINES)
    unknown = [b for b in names or () if b not in known]
    if unknown:
        raise UsageError(f"unknown baseline(s) {', '.join(unknown)}; known: topic {', '.join(topic_baselines.TOPIC_BASELINES)}; "
                         f"multiple-choice {', '.join(mc_baselines.MC_BASELINES)}", field="--baseline")


def score_row(variant: str, baseline: str, split: str, correct: int, n: int, *, seed: int,
              train_variant: str | None = None, params: dict | None = None, ci_method: str = "wilson") -> dict:
    """One result row: ``correct / n`` with n and its 95% CI."""
    low, high = accuracy_ci(correct, n, method=ci_method)
    return {"variant": variant, "script": variant_script(variant) or "", "baseline": baseline, "split": split,
            "train_variant": train_variant or variant, "n": n, "correct": correct,
            "accuracy": round(correct / n, 6) if n else float("nan"), "ci_low": round(low, 6),
            "ci_high": round(high, 6), "seed": seed, "params": json.dumps(params or {}, sort_keys=True)}


def _task(cfg: RunConfig, task: dict) -> dict:
    """One (variant, baseline) task, in a worker (one BLAS thread: :func:`schemas.runtime.fanout.fan_out`)."""
    return _topic_task(task, cfg) if "train" in task else _mc_task(task, cfg)


def _topic_task(task: dict, cfg: RunConfig) -> dict:
    preds, params = topic_baselines.fit_predict(
        task["baseline"], task["train"]["text"], task["train"]["category"], task["dev"]["text"],
        task["dev"]["category"], task["test"]["text"], seed=cfg.seed, unit=cfg.ngram_unit,
        mlp_max_iter=cfg.mlp_max_iter, where=f"variant {task['train_variant']}, split train")
    import numpy as np

    gold = np.asarray(task["test"]["category"], dtype=object)
    correct = int(np.sum(preds == gold))
    return score_row(task["variant"], task["baseline"], cfg.split, correct, len(gold), seed=cfg.seed,
                     train_variant=task["train_variant"], params=params, ci_method=cfg.ci_method)


def _mc_task(task: dict, cfg: RunConfig) -> dict:
    result = mc_baselines.run(task["baseline"], task["test"], language=task["language"], seed=cfg.seed)
    if result.ci is not None:  # chance: the analytic interval of a random guesser
        row = score_row(task["variant"], task["baseline"], cfg.split, 0, result.n, seed=cfg.seed,
                        params=result.params, ci_method=cfg.ci_method)
        row.update(correct=None, accuracy=round(result.accuracy, 6), ci_low=round(result.ci[0], 6),
                   ci_high=round(result.ci[1], 6))
        return row
    return score_row(task["variant"], task["baseline"], cfg.split, result.correct, result.n, seed=cfg.seed,
                     params=result.params, ci_method=cfg.ci_method)


def _columns(frame, names, where):
    missing = [c for c in names if c not in frame.columns]
    if missing:
        raise SchemaError(f"split lacks column(s) {', '.join(missing)}; found {sorted(frame.columns)}", file=where)
    return {c: frame[c].astype(str).tolist() for c in names}


def _empty(names):
    return {c: [] for c in names}


def build_tasks(ds: LoadedDataset, cfg: RunConfig, variants=None) -> list[dict]:
    """The (variant, baseline) tasks of a run, with the columns each needs."""
    variants = list(variants or ds.variants)
    split = cfg.split
    for v in variants:
        if split not in ds.tables[v]:
            raise UsageError(f"variant {v} has no {split!r} split; found {', '.join(ds.splits(v))}")
    if cfg.transfer_from and ds.kind != "topic":
        raise UsageError("--transfer-from applies to topic baselines only; the MC baselines train on nothing "
                         "or cross-validate within the evaluated split")
    if cfg.transfer_from and cfg.transfer_from not in ds.tables:
        raise UsageError(f"--transfer-from {cfg.transfer_from}: unknown variant; known: {', '.join(ds.variants)}")
    cols = ("text", "category") if ds.kind == "topic" else None
    tasks = []
    for v in variants:
        source = cfg.transfer_from or v
        where = ds.files.get((v, split), ds.root)
        for b in cfg.baselines:
            if ds.kind == "topic":
                if "train" not in ds.tables[source]:
                    raise UsageError(f"topic baselines need a train split; variant {source} has "
                                     f"{', '.join(ds.splits(source))}")
                train = _columns(ds.tables[source]["train"], cols, ds.files.get((source, "train"), ds.root))
                dev = (_columns(ds.tables[source]["dev"], cols, ds.files.get((source, "dev"), ds.root))
                       if "dev" in ds.tables[source] else _empty(cols))
                test = _columns(ds.tables[v][split], cols, where)
                tasks.append({"variant": v, "baseline": b, "train_variant": source, "train": train, "dev": dev,
                              "test": test})
            else:
                tasks.append({"variant": v, "baseline": b, "train_variant": v, "test": ds.tables[v][split],
                              "language": v if variant_script(v) else None})
    return tasks


def run(ds: LoadedDataset, cfg: RunConfig, variants=None, *, progress=None) -> list[dict]:
    """Evaluate ``cfg.baselines`` on every variant; rows sorted by variant then baseline order.

    Parameters
    ----------
    ds : LoadedDataset
        From :func:`schemas.dataset.load_dataset_dir` (kind "topic" or "mc").
    cfg : RunConfig
        ``cfg.jobs``, ``cfg.backend`` and ``cfg.address`` say where the tasks run.
    variants : list of str, optional
        A subset of ``ds.variants``.
    progress : callable, optional
        ``progress("VARIANT BASELINE", done, total)``, called as each task finishes.
    """
    known = known_baselines(ds.kind)
    unknown = [b for b in cfg.baselines if b not in known]
    if unknown:
        raise UsageError(f"unknown {ds.kind} baseline(s) {', '.join(unknown)}; known: {', '.join(known)}")
    tasks = build_tasks(ds, cfg, variants)
    # MLP tasks first, so the long ones do not end up last on one worker (the rows are sorted below)
    tasks.sort(key=lambda t: t["baseline"] != "mlp")
    if ds.kind == "topic" and cfg.backend == "local" and min(cfg.jobs, len(tasks)) > 1:
        topic_baselines.prewarm(cfg.baselines)  # forked workers inherit scikit-learn instead of importing it
    rows = fan_out(_task, tasks, shared=cfg, jobs=cfg.jobs, backend=cfg.backend, address=cfg.address,
                   progress=progress, labels=[f"{t['variant']} {t['baseline']}" for t in tasks])
    rank = {b: i for i, b in enumerate(cfg.baselines)}
    return sorted(rows, key=lambda r: (r["variant"], rank[r["baseline"]]))
