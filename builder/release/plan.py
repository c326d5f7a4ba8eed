"""From a release recipe to the ordered list of stages (:class:`~builder.release.stages.Stage`).

Stage names and where each writes::

    agreement-V, adjudicate-V, curate-V, split-V, variant-V   the annotation steps of variant V
    assemble-NAME                                             an assembly recipe
    align-V                                                   an existing variant re-split as the pivot
    extend-V, romanize-V                                      new variants
    dataset                                                   every variant in one folder
    qc                                                        the gate (its verdict is a fact of the stage)
    licenses                                                  the license audit per split
    baselines                                                 baseline scores
    lm_eval, disparity                                        a language model on the lm-eval tasks; PRR
    export                                                    DIR/export: Parquet, card, lm-eval tasks

Each stage calls the task of the command it stands for (:mod:`builder.tasks`)
with typed options, so it validates its input, writes atomically and raises
exactly the errors the command does on its own; nothing here builds a command
line or touches the process's working directory or output streams.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from schemas.names import path_under
from schemas.codes import variant_language
from schemas.errors import RecipeError

from . import steps
from .recipe import (AnnotationEntry, AssembleEntry, DatasetEntry, ExtendEntry, ReleaseRecipe,
                     RomanizeEntry, check_baselines_kind)
from .stages import Stage

#: What the release says of the baselines when the recipe has no ``baselines:`` key (the stage is not planned).
BASELINES_NOT_RUN = "not run (no `baselines:` in the recipe)"

#: Baselines a release scores when the recipe names none, by kind.
DEFAULT_BASELINES = {"topic": ("majority", "char_linear"), "mc": ("chance", "sliding_window", "bow_lr")}


@dataclass
class Variant:
    """Where a variant's folder is once its stage has run, and what the summary says about it."""

    code: str
    folder: Path                 # a variant folder, or an assembled folder (``assembled``)
    origin: str                  # how it was made, for the report
    assembled: bool = False
    kind: str = "topic"


@dataclass
class Plan:
    """The stages of one release, in order, and the variants they make."""

    root: Path
    recipe: ReleaseRecipe
    stages: list[Stage] = field(default_factory=list)
    where: dict = field(default_factory=lambda: {"jobs": 1, "backend": "local", "address": None})
    variants: dict[str, Variant] = field(default_factory=dict)
    kind: str = "topic"
    agreement: Stage | None = None    # its output holds agreement.json; its facts the label matrix
    dataset: Path | None = None
    qc: Stage | None = None
    export: Path | None = None
    quiet: bool = False
    #: stage -> why the recipe has it not run (``baselines``: no ``baselines:`` key), for release.json and the
    #: report to say so rather than leave the stage out without a word
    not_run: dict[str, str] = field(default_factory=dict)

    @property
    def recipe_dir(self) -> Path:
        """The recipe's folder: paths outside the release are recorded relative to it (as stage.json does)."""
        return self.recipe.file.parent if self.recipe.file else Path.cwd()

    def stage(self, name: str, inputs: dict, options: dict, action: Callable[[Path], dict], *,
              output: Path | None = None, describe: str = "", parallel: bool = False) -> Stage:
        if any(s.name == name for s in self.stages):
            raise RecipeError(f"two stages would be named {name!r}: a variant is made twice", file=self.recipe.file)
        st = Stage(name=name, inputs={k: Path(v) for k, v in inputs.items() if v is not None},
                   options=options, action=action, output=output or path_under(self.root / "stages", name, "output"),
                   describe=describe or name, parallel=parallel)
        self.stages.append(st)
        return st

    def unmade(self, code: str, where: str) -> str:
        """``code``, which no earlier entry makes: an entry asks before it names its stages after the variant,
        so that the second maker is refused naming its own key."""
        if code in self.variants:
            raise RecipeError(f"variant {code} is made twice (first by {self.variants[code].origin})",
                              file=self.recipe.file, field=where)
        return code

    def add_variant(self, v: Variant) -> None:
        """Record ``v`` as made; its entry asked :meth:`unmade` before it named its stages after it."""
        self.variants[v.code] = v

    def need(self, code: str, where: str) -> Variant:
        if code not in self.variants:
            made = ", ".join(self.variants) or "none yet"
            raise RecipeError(f"variant {code} is not made by an earlier entry (made so far: {made})",
                              file=self.recipe.file, field=where)
        return self.variants[code]

    def reporter(self):
        """Where the stages' tasks report: stderr lines (the release's stdout is its own summary line)."""
        from builder.tasks.base import Reporter

        return Reporter(quiet=self.quiet)


def make_plan(recipe: ReleaseRecipe, root: Path, *, jobs: int, quiet: bool = False,
              allow_failing_gate: bool = False, backend: str = "local", address: str | None = None) -> Plan:
    """Every stage of ``recipe`` for a release into ``root``, in the order they run.

    Called before any stage runs, it finishes the recipe's validation with what only the plan knows
    (an entry that uses a variant no earlier entry makes, a variant made twice, one kind of data, the
    pivot made, baseline names of that kind): each is one :class:`RecipeError` naming the file and key.

    ``jobs``, ``backend`` and ``address`` say where the per-variant stages (qc, baselines, export)
    run; they do not change what they write, so they are not part of a stage's record.
    """
    root = Path(os.path.abspath(root))
    plan = Plan(root=root, recipe=recipe, where={"jobs": jobs, "backend": backend, "address": address}, quiet=quiet)
    for entry in recipe.variants:
        _ADDERS[entry.kind](plan, entry)
    kinds = {v.kind for v in plan.variants.values()}
    if len(kinds) > 1:
        raise RecipeError("a release holds one kind of data; these entries make both topic and "
                          "multiple-choice variants", file=recipe.file, field="variants")
    plan.kind = kinds.pop()
    check_baselines_kind(recipe, plan.kind)  # the names the baselines stage runs on this kind, before any stage
    if recipe.pivot not in plan.variants:
        raise RecipeError(f"the pivot {recipe.pivot} is not made by any entry (made: {', '.join(plan.variants)})",
                          file=recipe.file, field="pivot")
    _dataset(plan)
    _gate(plan)
    _licenses(plan)
    _baselines(plan)
    _lm_eval(plan)
    _export(plan, allow_failing_gate)
    return plan


def _facts(report, result, **more) -> dict:
    """What a stage records of its task's result: its drops and warnings (JSON values), and ``more``.

    The task's standard-output summary goes to the reporter (stderr): the release's standard output
    is its own summary line.
    """
    for line in [*result.lines, *result.notes]:
        report.info(line)
    out = {"drops": [d.to_dict() for d in result.drops], "warnings": list(result.warnings)}
    out.update(more)
    return out


# -- variant sources -------------------------------------------------------------------------------------------

def _annotation(plan: Plan, src: AnnotationEntry) -> None:
    from builder.tasks import annotate as t

    r, report = plan.recipe, plan.reporter()
    v, fmt = plan.unmade(src.variant, src.where), src.format
    decisions = None
    if src.judgements is not None:
        judged = {"annotations": src.judgements, "labels": src.labels, "format": fmt}

        def agreement(output: Path) -> dict:
            res = t.run_agreement(t.AgreementOptions(out=output, **judged), report)
            labels = list(res.report.get("labels") or [])
            # the adjudication stage reads the same ratings and records their skips: counted once, there
            return dict(_facts(report, res, matrix=steps.co_assignments(res.annotations, labels)), drops=[])

        plan.agreement = plan.stage(f"agreement-{v}", {"judgements": src.judgements, "labels": src.labels},
                                    {"format": fmt}, agreement)
        policy = src.policy
        adj = plan.stage(f"adjudicate-{v}", {"judgements": src.judgements, "labels": src.labels},
                         {"format": fmt, "policy": policy},
                         lambda output: _facts(report, t.run_adjudicate(
                             t.AdjudicateOptions(out=output, policy=policy, **judged), report)))
        decisions = adj.output / "decisions.csv"
    labelled = src.labelled if src.labelled is not None else decisions
    cur = plan.stage(f"curate-{v}", {"labelled": labelled, "curation": src.curation}, {},
                     lambda output: _facts(report, t.run_curate(
                         t.CurateOptions(labelled=labelled, recipe=src.curation, out=output), report)))
    curated = cur.output / "curated.tsv"
    spl = plan.stage(f"split-{v}", {"curated": curated},
                     {"ratios": ",".join(f"{x:g}" for x in src.ratios), "seed": src.seed},
                     lambda output: _facts(report, t.run_split(
                         t.SplitOptions(labelled=curated, ratios=src.ratios, seed=src.seed, out=output), report)))
    credit = {"license": src.license or r.license, "source_name": src.source_name or r.source_name,
              "citation": src.citation or r.citation}
    var = plan.stage(f"variant-{v}", {"split": spl.output}, {"variant": v, **credit},
                     steps.variant_folder(spl.output, v, credit, method="annotation"))
    plan.add_variant(Variant(v, var.output / v, "annotation (curated and split)"))


def _assemble(plan: Plan, src: AssembleEntry) -> None:
    from ..recipe import load_recipe

    recipe = load_recipe(src.recipe)
    plan.unmade(recipe.language, src.where)
    seed = src.seed
    report = plan.reporter()

    def assemble(output: Path) -> dict:
        from builder.tasks.assemble import AssembleOptions, run_assemble

        options = AssembleOptions(recipe=src.recipe, out=output, on_error="raise", seed=seed, jobs=plan.where["jobs"])
        return _facts(report, run_assemble(options, report))

    st = plan.stage(f"assemble-{recipe.name}", {"recipe": src.recipe,
                                                **{f"source:{s.name}": s.path for s in recipe.sources}},
                    {"seed": seed}, assemble)
    plan.add_variant(Variant(recipe.language, st.output, f"assembled ({recipe.name})", assembled=True, kind="mc"))


def _dataset_source(plan: Plan, src: DatasetEntry) -> None:
    found = steps.variant_folders(src.path)
    for code in src.only or tuple(found):
        if code not in found:
            raise RecipeError(f"{src.path} holds no variant {code} (it holds: {', '.join(found) or 'none'})",
                              file=plan.recipe.file, field=f"{src.where}.only")
        folder, kind = found[code]
        plan.unmade(code, src.where)
        if src.align == "pivot":
            pivot = plan.need(plan.recipe.pivot, f"{src.where}.align")
            st = plan.stage(f"align-{code}", {"pivot": pivot.folder, "variant": folder}, {"variant": code},
                            steps.align_to_pivot(pivot.folder, folder, code), parallel=True)
            plan.add_variant(Variant(code, st.output / code, f"aligned to {pivot.code} ({folder.name})", kind=kind))
        else:
            plan.add_variant(Variant(code, folder, f"dataset folder {folder.name}", kind=kind))


def _extend(plan: Plan, src: ExtendEntry) -> None:
    report, root, outside = plan.reporter(), plan.root, plan.recipe_dir
    base = plan.need(src.source, f"{src.where}.from")
    v = plan.unmade(src.variant, src.where)
    inputs: dict = {"source": base.folder, "translations": src.translations, "config": src.config}
    for i, p in enumerate(src.parallel):
        inputs[f"parallel[{i}]"] = p

    def extend(output: Path) -> dict:
        from builder.tasks import variants as t
        from schemas.runtime.provenance import paths_recorded_from

        options = t.ExtendOptions(source=base.folder, variant=v, out=output, parallel=src.parallel,
                                  translations=src.translations, expected_lines=src.expected_lines,
                                  config=src.config, license=src.license)
        with paths_recorded_from(root, outside):
            return _facts(report, t.run_extend(options, report))

    st = plan.stage(f"extend-{v}", inputs, {"variant": v, "expected_lines": list(src.expected_lines),
                                           "license": src.license}, extend, parallel=True)
    plan.add_variant(Variant(v, st.output / v, f"projected from {base.code}", kind=base.kind))


def _romanize(plan: Plan, src: RomanizeEntry) -> None:
    report, root, outside = plan.reporter(), plan.root, plan.recipe_dir
    base = plan.need(src.source, src.from_key)
    v = plan.unmade(f"{variant_language(base.code)}_Latn", src.from_key)
    fallback = plan.recipe.license

    def romanize(output: Path) -> dict:
        from builder.tasks import variants as t
        from schemas.runtime.provenance import paths_recorded_from

        # the recipe's license is that of variants that declare none (never the romanizer's default)
        options = t.RomanizeOptions(variant_dir=base.folder, out=output, scheme=src.scheme,
                                    allow_leftover=src.allow_leftover, license=fallback,
                                    license_from="release recipe")
        with paths_recorded_from(root, outside):
            return _facts(report, t.run_romanize(options, report))

    from builder.variants.romanize import ROMANIZATION, script_of  # the table the stage reads

    # the scheme the stage runs: the entry's, else the script's first ("uroman" for Urdu, not "iso")
    scheme = src.scheme or ROMANIZATION[script_of(base.code)].schemes[0]
    st = plan.stage(f"romanize-{v}", {"source": base.folder},
                    {"scheme": scheme, "allow_leftover": src.allow_leftover,
                     "license": fallback},
                    romanize, parallel=True)
    plan.add_variant(Variant(v, st.output / v, f"romanized from {base.code}", kind=base.kind))


_ADDERS = {"annotation": _annotation, "assemble": _assemble, "dataset": _dataset_source, "extend": _extend,
           "romanize": _romanize}


# -- the release itself ----------------------------------------------------------------------------------------

def _dataset(plan: Plan) -> None:
    r = plan.recipe
    variants = dict(sorted(plan.variants.items()))
    if len(variants) == 1 and next(iter(variants.values())).assembled:
        plan.dataset = next(iter(variants.values())).folder  # an assembled set is a dataset folder already
        return
    inputs = {f"variant:{c}": v.folder for c, v in variants.items()}
    credit = {"license": r.license, "source_name": r.source_name, "citation": r.citation}
    st = plan.stage("dataset", inputs, {"variants": list(variants), **credit},
                    steps.collect({c: (v.folder, v.assembled) for c, v in variants.items()}, credit))
    plan.dataset = st.output


def _gate(plan: Plan) -> None:
    qc = plan.recipe.qc
    if not qc.enabled:
        return
    inputs = {"dataset": plan.dataset, "config": qc.config}
    dataset, config, pivot, where, report = plan.dataset, qc.config, plan.recipe.pivot, plan.where, plan.reporter()

    def gate(output: Path) -> dict:
        from builder.tasks import qc as t
        from builder.tasks.base import echo

        res = t.run_qc(t.QCOptions(dataset=dataset, config=config, out=output, junit=output / "junit.xml",
                                   pivot=pivot, jobs=where["jobs"], backend=where["backend"],
                                   address=where["address"]), report)
        for line in res.lines:
            report.info(line)
        for warning in res.warnings:  # as `builder qc` prints them (even with -q); recorded for the report
            echo(f"warning: {warning}")
        return {"passed": bool(res.passed), "warnings": list(res.warnings)}

    plan.qc = plan.stage("qc", inputs, {"pivot": pivot}, gate, describe="qc (the release gate)")


def _licenses(plan: Plan) -> None:
    lic = plan.recipe.export_license
    plan.stage("licenses", {"dataset": plan.dataset}, {"license": lic}, steps.license_audit(plan.dataset, lic))


def _baselines(plan: Plan) -> None:
    b = plan.recipe.baselines
    if b is None:
        plan.not_run["baselines"] = BASELINES_NOT_RUN
        plan.reporter().info(f"release: baselines: {BASELINES_NOT_RUN}")
        return
    names = b.names or DEFAULT_BASELINES[plan.kind]
    split = b.split or ("test" if plan.kind == "topic" else "dev")
    dataset, where, report, root, outside = plan.dataset, plan.where, plan.reporter(), plan.root, plan.recipe_dir
    extra = {k: getattr(b, k) for k in ("ngram_unit", "mlp_max_iter") if getattr(b, k) is not None}

    def baselines(output: Path) -> dict:
        from builder.tasks import evaluate as t
        from schemas.runtime.provenance import paths_recorded_from

        with paths_recorded_from(root, outside):
            res = t.run_baselines(t.BaselinesOptions(dataset=dataset, out=output, baselines=names, split=split,
                                                     seed=b.seed, jobs=where["jobs"],
                                                     backend=where["backend"], address=where["address"], **extra),
                                  report)
        return _facts(report, res)

    plan.stage("baselines", {"dataset": plan.dataset},
               {"names": list(names), "split": split, "seed": b.seed,
                "ngram_unit": b.ngram_unit, "mlp_max_iter": b.mlp_max_iter}, baselines)


def _lm_eval(plan: Plan) -> None:
    """``lm_eval``: the recipe's model on the export's lm-eval tasks; ``disparity``: PRR of the model and the
    baselines over the release's variants."""
    s = plan.recipe.lm_eval
    if s is None:
        return
    r = plan.recipe
    options = {"name": r.name, "pretty_name": r.pretty_name, "license": r.export_license}
    st = plan.stage("lm_eval", {"dataset": plan.dataset, "model": s.model},
                    {**options, "tasks": list(s.tasks), "limit": s.limit, "batch_size": s.batch_size,
                     "device": s.device, "seed": s.seed, "num_fewshot": s.num_fewshot},
                    steps.lm_eval(plan.dataset, s, options, plan.where, plan.reporter()),
                    describe=f"lm_eval ({s.model.name})")
    records = {"lm": st.output / "results" / "results.json",
               "baselines": plan.root / "stages" / "baselines" / "output" / "results.json"
               if r.baselines is not None else None}
    plan.stage("disparity", {k: p for k, p in records.items() if p is not None}, {},
               steps.disparity(records, plan.reporter()))


def _export(plan: Plan, allow_failing_gate: bool) -> None:
    r = plan.recipe
    reports = {"agreement": None if plan.agreement is None else plan.agreement.output / "agreement.json",
               "qc": None if plan.qc is None else plan.qc.output / "qc_report.json",
               "baselines": plan.root / "stages" / "baselines" / "output" / "results.json"
               if r.baselines is not None else None,
               "models": plan.root / "stages" / "lm_eval" / "output" / "results" / "results.json"
               if r.lm_eval is not None else None}
    inputs = {"dataset": plan.dataset, **{f"report:{k}": p for k, p in reports.items() if p is not None}}
    options = {"name": r.name, "pretty_name": r.pretty_name, "lm_eval": r.export.lm_eval,
               "license": r.export_license, "citation": r.citation,
               "qc": r.qc.enabled, "allow_failing_gate": allow_failing_gate}
    plan.export = plan.root / "export"
    plan.stage("export", inputs, options, steps.export(plan.dataset, reports, options, plan.where, plan.reporter()),
               output=plan.export)
