"""The bodies of ``builder annotate agreement|adjudicate|curate|split``.

Each task reads its input, validates it at the door and writes its outputs as
one folder that replaces ``out`` whole and atomically (an existing ``out``
must be an earlier output of the same subcommand and hold none of its
inputs). Its result carries the summary line the command prints, what the
release reads next, and the drops (:class:`schemas.ledger.DropRow`): skipped
ratings by reason, unresolved items, items each curation step removed.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from schemas.ledger import DropRow

from .base import QUIET, Reporter, TaskResult, check_output, output_folder


@dataclass(frozen=True)
class _Ratings:
    """How to read an annotation export (:func:`annotation.importer.read_annotations`)."""

    annotations: Path
    out: Path
    format: str = "auto"
    labels: Path | None = None
    min_ratings: int = 2
    on_error: str = "raise"
    label_field: str | None = None


def _read(o: _Ratings, report: Reporter):
    from annotation.importer import read_annotations, read_labels

    labels = read_labels(o.labels) if o.labels else None
    ann = read_annotations(o.annotations, format=o.format, labels=labels, min_ratings=o.min_ratings,
                           on_error=o.on_error, label_field=o.label_field)
    for reason, n in sorted(ann.skipped.items()):
        ids = ann.skipped_ids.get(reason, [])
        shown = ", ".join(ids[:5]) + (" ..." if len(ids) > 5 else "")
        report.info(f"skipped {n} ({reason}): {shown}")
    return ann


def _skip_rows(source: str, skipped) -> list[DropRow]:
    return [DropRow(source, reason, int(n)) for reason, n in sorted(skipped.items()) if n]


# -- agreement -----------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class AgreementOptions(_Ratings):
    """``builder annotate agreement``: bootstrap resamples, seed, interval level, confusions listed, plot."""

    n_boot: int = 1000
    seed: int = 0
    ci_level: float = 0.95
    top_confusions: int = 10
    plot: bool = True


@dataclass
class AgreementResult(TaskResult):
    """``report``: the agreement.json content; ``annotations``: the parsed ratings (for the release's matrix).

    ``drops``: the skipped ratings by reason (source ``agreement``, as agreement.json ``skipped``).
    """

    report: dict = field(default_factory=dict)
    annotations: Any = None


def run_agreement(options: AgreementOptions, report: Reporter = QUIET) -> AgreementResult:
    """Fleiss' kappa, Krippendorff's alpha, Cohen's kappa and Gwet's AC1 -> OUT/agreement.json, .md, .png."""
    from annotation.agreement import agreement_report
    from annotation.report import write_report

    o = options
    inputs = [o.annotations, o.labels]
    check_output(o.out, "annotate agreement", inputs=inputs, legacy="agreement.json")
    ann = _read(o, report)
    rep = agreement_report(ann, n_resamples=o.n_boot, seed=o.seed, level=o.ci_level,
                           top_confusions=o.top_confusions)
    with output_folder(o.out, "annotate agreement", inputs=inputs, legacy="agreement.json") as stage:
        write_report(rep, stage, plot=o.plot)

    def f(x):
        return "n/a" if x is None else f"{x:.3f}"

    line = (f"{rep['n_items']} items, {rep['n_annotators']} annotators: fleiss_kappa {f(rep['fleiss_kappa'])}"
            f", krippendorff_alpha {f(rep['krippendorff_alpha'])}, mean_cohen_kappa "
            f"{f(rep['mean_cohen_kappa'])}, gwet_ac1 {f(rep['gwet_ac1'])} -> {o.out / 'agreement.json'}")
    notes = [f"note: fleiss_kappa not reported: {rep['fleiss_kappa_reason']}"] if rep.get("fleiss_kappa_reason") else []
    return AgreementResult(lines=[line], drops=_skip_rows("agreement", ann.skipped), notes=notes, report=rep,
                           annotations=ann)


# -- adjudication --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class AdjudicateOptions(_Ratings):
    """``builder annotate adjudicate``: the vote ``policy`` and the lead's filled ``sheet`` to merge."""

    policy: str = "sib200"
    sheet: Path | None = None


@dataclass
class AdjudicateResult(TaskResult):
    """``summary``: the adjudication.json content; ``decisions``: one :class:`schemas.records.Decision` per item.

    ``drops`` (source ``adjudication``): the skipped ratings by reason, and ``unresolved`` items.
    """

    summary: dict = field(default_factory=dict)
    decisions: list = field(default_factory=list)


def run_adjudicate(options: AdjudicateOptions, report: Reporter = QUIET) -> AdjudicateResult:
    """Majority vote; conflicts go to a sheet -> OUT/decisions.csv, OUT/adjudication.json and the sheet."""
    from annotation.adjudicate import (decide, label_config, merge_sheet, rule_counts, write_decisions,
                                       write_label_studio_tasks, write_sheet)
    from schemas.io import write_text_atomic
    from schemas.io import write_json_atomic

    o = options
    inputs = [o.annotations, o.labels, o.sheet]
    check_output(o.out, "annotate adjudicate", inputs=inputs, legacy="adjudication.json")
    ann = _read(o, report)
    decisions = decide(ann, o.policy)
    conflicts = sum(1 for d in decisions if d.rule == "unresolved")
    sheet_stats = None
    if o.sheet is not None:
        decisions, sheet_stats = merge_sheet(decisions, o.sheet, ann.labels)
        sheet_stats = {"file": o.sheet.name, **sheet_stats}
    sheet_name = "unresolved_sheet.csv" if o.sheet is not None else "adjudication_sheet.csv"
    tasks_name = "unresolved_tasks.json" if o.sheet is not None else "adjudication_tasks.json"
    rules = rule_counts(decisions)
    summary = {
        "source": o.annotations.name, "policy": o.policy, "n_items": ann.n_items,
        "n_annotators": len(ann.annotators), "conflicts": conflicts, "rules": rules,
        "sheet": sheet_stats, "sheet_written": sheet_name, "label_studio_tasks": tasks_name,
        "unresolved_ids": [d.item_id for d in decisions if d.rule == "unresolved"],
        "skipped": dict(ann.skipped), "skipped_ids": {k: list(v) for k, v in ann.skipped_ids.items()},
    }
    with output_folder(o.out, "annotate adjudicate", inputs=inputs, legacy="adjudication.json") as stage:
        write_decisions(stage / "decisions.csv", decisions, ann.texts)
        write_sheet(stage / sheet_name, ann, decisions)
        write_label_studio_tasks(stage / tasks_name, ann, decisions, o.policy)  # the same conflicts, for Label Studio
        write_text_atomic(stage / "label_studio_config.xml", label_config(ann.labels) + "\n")
        write_json_atomic(stage / "adjudication.json", summary)
    line = (f"{ann.n_items} items ({o.policy}): {rules['majority']} majority, {rules['adjudicated']} "
            f"adjudicated, {rules['unresolved']} unresolved -> {o.out / sheet_name}")
    drops = _skip_rows("adjudication", ann.skipped)
    if rules["unresolved"]:
        drops.append(DropRow("adjudication", "unresolved", int(rules["unresolved"])))
    return AdjudicateResult(lines=[line], drops=drops, summary=summary, decisions=decisions)


# -- curation ------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class CurateOptions:
    """``builder annotate curate``: ``labelled`` (decisions.csv, a SIB-200 TSV or a folder of them), ``recipe``."""

    labelled: Path
    recipe: Path
    out: Path


@dataclass
class CurateResult(TaskResult):
    """``log``: one entry per step (curation_log.json ``steps``); ``items_in``, ``items_out``; ``labels``.

    ``drops`` (source ``curation``): per step, reason the step's name, count its ``items_dropped``.
    """

    log: list = field(default_factory=list)
    items_in: int = 0
    items_out: int = 0
    labels: list = field(default_factory=list)


def run_curate(options: CurateOptions, report: Reporter = QUIET) -> CurateResult:
    """Curate the label set by a recipe -> OUT/curated.tsv, OUT/labels.txt, OUT/curation_log.json."""
    from annotation.curate import curate, label_order, load_recipe
    from annotation.labelled import read_labelled
    from schemas.io import write_json_atomic, write_sib_tsv, write_text_atomic

    o = options
    inputs = [o.labelled, o.recipe]
    check_output(o.out, "annotate curate", inputs=inputs, legacy="curation_log.json")
    steps = load_recipe(o.recipe)
    items = read_labelled(o.labelled)
    kept, log = curate(items, steps)
    labels = label_order(kept)
    with output_folder(o.out, "annotate curate", inputs=inputs, legacy="curation_log.json") as stage:
        write_sib_tsv(stage / "curated.tsv",
                      [{"index_id": i.item_id, "category": i.label, "text": i.text} for i in kept])
        write_text_atomic(stage / "labels.txt", "".join(f"{lab}\n" for lab in labels))
        write_json_atomic(stage / "curation_log.json", {
            "input": o.labelled.name, "recipe": o.recipe.name, "items_in": len(items), "items_out": len(kept),
            "labels": {lab: sum(1 for i in kept if i.label == lab) for lab in labels}, "steps": log})
    for entry in log:
        report.info(f"{entry['step']}: {entry['items_before']} -> {entry['items_after']} items")
    line = f"{len(items)} items -> {len(kept)} items, {len(labels)} labels -> {o.out / 'curated.tsv'}"
    drops = [DropRow("curation", str(e["step"]), int(e["items_dropped"])) for e in log if e["items_dropped"]]
    return CurateResult(lines=[line], drops=drops, log=log, items_in=len(items), items_out=len(kept),
                        labels=labels)


# -- splits --------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class SplitOptions:
    """``builder annotate split``: train/dev/test ``ratios`` (checked by :func:`annotation.splits.check_ratios`)."""

    labelled: Path
    out: Path
    ratios: tuple[float, float, float] = (0.7, 0.1, 0.2)
    seed: int = 0


@dataclass
class SplitResult(TaskResult):
    """``info``: the split.json content (counts per split and label, settings)."""

    info: dict = field(default_factory=dict)


def run_split(options: SplitOptions, report: Reporter = QUIET) -> SplitResult:
    """Stratified, seeded split grouped by item id -> OUT/{train,dev,test}.{tsv,parquet}, labels.txt, split.json."""
    from annotation.curate import label_order
    from annotation.labelled import read_labelled
    from annotation.splits import check_ratios, require_labels, split_items, split_summary, write_splits

    o = options
    ratios = check_ratios(list(o.ratios))
    check_output(o.out, "annotate split", inputs=[o.labelled], legacy="split.json")
    items = read_labelled(o.labelled)
    require_labels(items)
    parts = split_items(items, ratios, o.seed)
    info = split_summary(parts, ratios, o.seed)
    info["input"] = o.labelled.name
    write_splits(parts, o.out, labels=label_order(items), info=info)
    counts = info["counts"]
    line = (f"{info['n_items']} items -> train {counts['train']}, dev {counts['dev']}, test {counts['test']}"
            f" -> {o.out}")
    return SplitResult(lines=[line], info=info)
