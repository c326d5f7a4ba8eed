"""The gate: run every enabled check on every variant, in parallel across variants, then decide.

Workers measure (statistics, p-values, effects); the parent process decides
the hypothesis tests of the whole run together (:mod:`qc.decision`: Holm over
every gated test of every variant, effect floors) and compares each variant's
effects with the pivot's. A derived variant (its ``variant.json`` names a
``source_variant`` of the same run: romanized from it, projected or aligned
from it) is compared with its source check by check (:func:`compare_with_sources`):
a failure the source shares is *inherited* from it.

>>> from schemas.dataset import LoadedDataset
>>> import pandas as pd
>>> ds = LoadedDataset(root=__import__("pathlib").Path("x"), kind="topic", tables={"eng_Latn": {
...     "train": pd.DataFrame({"index_id": [1, 2], "category": ["a", "b"], "text": ["A cat.", "A dog."],
...                            "license": ["CC-BY-SA-4.0"] * 2})}})
>>> report = run_gate(ds, load_config())
>>> report.passed, [r.check for r in report.results][:2]
(True, ['duplicates:texts', 'leakage'])
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from schemas.codes import flores_code
from schemas.dataset import LazyTables, LoadedDataset
from schemas.licensing import license_contexts, variant_infos
from schemas.runtime.fanout import default_jobs  # noqa: F401  (re-exported: the CLI's default --jobs)
from schemas.runtime.fanout import fan_out

from .config import load_config  # noqa: F401  (re-exported for the doctest and callers)
from .contamination import passage_ngrams, text_column
from .decision import VS_PIVOT, compare_with_pivot, decide
from .registry import CHECKS
from .result import CheckResult, VariantData
from .tokens import TokenCache


@dataclass
class QCReport:
    """All results of one gate run, plus what produced them."""

    results: list[CheckResult]
    variants: list[str]
    kind: str
    config: dict
    input_name: str = ""
    against_name: str | None = None
    meta: dict = field(default_factory=dict)
    decision: dict = field(default_factory=dict)
    pivot_comparison: list[dict] = field(default_factory=list)
    source_comparison: list[dict] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not any(r.blocks for r in self.results)

    @property
    def failures(self) -> list[CheckResult]:
        return [r for r in self.results if r.blocks]

    def to_dict(self) -> dict:
        return {
            "passed": self.passed,
            "input": self.input_name,
            "kind": self.kind,
            "variants": self.variants,
            "contamination_against": self.against_name,
            "config_version": self.config["version"],
            "seed": self.config["seed"],
            "pivot": self.config["pivot"],
            "decision": self.decision,
            "pivot_comparison": self.pivot_comparison,
            "source_comparison": self.source_comparison,
            "failed": [{"variant": r.variant, "check": r.check, "reason": r.reason} for r in self.failures],
            "checks": [r.to_dict() for r in self.results],
        }


def run_variant(data: VariantData, config: dict) -> list[CheckResult]:
    """Every enabled check that applies to the variant's kind, in registry order."""
    out: list[CheckResult] = []
    for name, module in CHECKS.items():
        params = config["checks"][name]
        if not params["enabled"] or data.kind not in module.KINDS:
            continue
        for r in module.run(data, params):
            r.gate = r.gate and params["gate"]
            out.append(r)
    return out


def _work(shared, task) -> list[CheckResult]:
    """Run the checks of one variant (in a worker); a task sent to Ray carries the variant's tables."""
    ds, config, pivot = shared
    variant, against, licenses, *sent = task
    if sent:  # read by the driver (Ray: the workers need not see the dataset's files)
        tables = sent[0]
    else:  # read here, in the worker, when the dataset was loaded lazily (and not kept: the worker moves on)
        splits = ds.tables.read(variant) if isinstance(ds.tables, LazyTables) else ds.tables[variant]
        tables = {s: splits[s] for s in ds.splits(variant)}
    data = VariantData(variant=variant, kind=ds.kind, tables=tables,
                       pivot_name=config["pivot"], pivot=pivot, against=against,
                       licenses=licenses, seed=config["seed"], confidence=config["decision"]["confidence"])
    return run_variant(data, config)


def _against_hashes(against: LoadedDataset, n: int) -> dict[str, np.ndarray]:
    out = {}
    cache = TokenCache()
    col = text_column(against.kind)
    for variant, splits in sorted(against.tables.items()):
        texts = [t for frame in splits.values() for t in frame[col].astype(str)]
        out[variant] = passage_ngrams(texts, flores_code(variant), n, cache)
    return out


def _prewarm(variants) -> None:
    """Build tokenizers (their regexes take seconds to compile) and import sklearn and scipy.stats before
    forking (the checks import them where they run)."""
    from scipy import stats  # noqa: F401
    from sklearn.feature_extraction.text import CountVectorizer  # noqa: F401
    from sklearn.linear_model import LogisticRegression  # noqa: F401
    from statsmodels.stats.meta_analysis import effectsize_smd  # noqa: F401

    from .tokens import prepare

    for variant in variants:
        prepare(flores_code(variant))


def run_gate(ds: LoadedDataset, config: dict, *, against: LoadedDataset | None = None,
             jobs: int = 1, progress: Callable[[str, int, int], None] | None = None, backend: str = "local",
             address: str | None = None) -> QCReport:
    """Run the gate on a loaded dataset; ``jobs`` worker processes share the variants.

    The variants fan out with :func:`schemas.runtime.fanout.fan_out` (``backend``
    "local" or "ray", ``address`` of a Ray cluster); the report is the same
    whatever the backend and the number of workers. ``progress(variant,
    done, total)`` is called in this process as each variant's checks finish
    (in the order they finish when ``jobs > 1``).
    """
    pivot_name = config["pivot"]
    pivot_tables = ds.tables.get(pivot_name)
    if pivot_tables is not None:  # only the columns the cross-variant checks read
        keep = ("split", "passage_id", "question_id", "correct_answer_num", "index_id", "category",
                "text", "passage", "question", "answer1", "answer2", "answer3", "answer4")  # texts: qc.translation
        pivot_tables = {s: f[[c for c in keep if c in f.columns]] for s, f in pivot_tables.items()}
    hashes = None
    if against is not None and config["checks"]["contamination"]["enabled"]:
        hashes = _against_hashes(against, config["checks"]["contamination"]["ngram"])
    tasks = []
    infos = variant_infos(ds)  # a malformed variant.json or override stops the gate (cannot read)
    licenses = license_contexts(ds, infos=infos)
    for variant in ds.variants:
        against_v = None
        if hashes is not None:
            against_v = {variant: hashes[variant]} if variant in hashes else (hashes if len(hashes) == 1 else {})
        tasks.append((variant, against_v, licenses[variant]))
    jobs = max(1, min(jobs, len(tasks)))
    if backend == "local":
        shared, prepare = (ds, config, pivot_tables), None
        if jobs > 1:
            _prewarm(ds.variants)
    else:  # only what a worker needs travels: the kind, not the dataset; each variant's tables with its task
        shared = (LoadedDataset(root=ds.root, kind=ds.kind, tables={}), config, pivot_tables)

        def prepare(task):
            splits = ds.tables.read(task[0]) if isinstance(ds.tables, LazyTables) else ds.tables[task[0]]
            return (*task, {s: splits[s] for s in ds.splits(task[0])})
    per_variant = fan_out(_work, tasks, shared=shared, jobs=jobs, backend=backend, address=address,
                          progress=progress, labels=[t[0] for t in tasks], prepare=prepare)
    results = [r for rs in per_variant for r in rs]
    pivot = config["pivot"]
    decision = decide(results, config["decision"], pivot=pivot)
    comparison = compare_with_pivot(results, pivot) if pivot in ds.variants else []
    by_source = compare_with_sources(results, source_variants(infos, ds.variants))
    return QCReport(results=results, variants=ds.variants, kind=ds.kind, config=config,
                    input_name=Path(ds.root).name, against_name=None if against is None else Path(against.root).name,
                    decision=decision, pivot_comparison=comparison, source_comparison=by_source)


def source_variants(infos: dict, variants: list[str]) -> dict[str, str]:
    """Each derived variant's source, where its ``variant.json`` names one that is in the run.

    ``source_variant`` is what ``builder romanize`` (hin_Deva for hin_Latn) and
    ``builder extend`` (the variant projected from) record; a variant aligned to
    the pivot's split keeps its source's record.

    >>> from schemas.variant import VariantInfo
    >>> source_variants({"hin_Latn": VariantInfo(source_variant="hin_Deva"), "x_Latn": VariantInfo()},
    ...                 ["hin_Deva", "hin_Latn", "x_Latn"])
    {'hin_Latn': 'hin_Deva'}
    """
    out = {}
    for variant, info in infos.items():
        source = getattr(info, "source_variant", None)
        if source and source != variant and source in variants:
            out[variant] = source
    return out


def compare_with_sources(results: list[CheckResult], sources: dict[str, str]) -> list[dict]:
    """Mark each result of a derived variant against its source's result of the same check.

    Per result: ``source_variant`` and ``vs_source`` (the words of
    :data:`qc.decision.VS_PIVOT`: ``inherited`` when both fail, ``introduced``
    when only the derived variant fails; None when either was skipped or the
    source has no such result). A failure's detail starts with where it comes
    from (``inherited from hin_Deva``), so every report says it. Returns one row
    per derived variant: its source and the checks it inherits or introduces.
    Runs after :func:`qc.decision.decide`: a test fails by its decided verdict.

    >>> a = CheckResult("hin_Deva", "untranslated", False, detail="2 units")
    >>> b = CheckResult("hin_Latn", "untranslated", False, detail="2 units")
    >>> compare_with_sources([a, b], {"hin_Latn": "hin_Deva"})[0]["inherited"], b.detail
    (['untranslated'], 'inherited from hin_Deva (it fails untranslated too); 2 units')
    """
    of = {(r.variant, r.check): r for r in results}
    rows: dict[str, dict] = {}
    for r in results:
        source = sources.get(r.variant)
        if source is None:
            continue
        row = rows.setdefault(r.variant, {"variant": r.variant, "source_variant": source, "inherited": [],
                                          "introduced": []})
        ref = of.get((source, r.check))
        if ref is None or ref.skipped or r.skipped:
            r.extra.update(source_variant=source, vs_source=None)
            continue
        verdict = VS_PIVOT[(bool(r.passed), bool(ref.passed))]
        r.extra.update(source_variant=source, vs_source=verdict)
        if verdict == "inherited":
            r.detail = f"inherited from {source} (it fails {r.check} too); {r.detail}"
        elif verdict == "introduced":
            r.detail = f"introduced here ({source} passes {r.check}); {r.detail}"
        if verdict in ("inherited", "introduced"):
            row[verdict].append(r.check)
    return list(rows.values())
