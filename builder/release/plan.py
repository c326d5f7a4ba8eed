"""From a release recipe to the ordered list of stages (:class:`~builder.release.stages.Stage`).

Stage names and where each writes::

    agreement-V, adjudicate-V, curate-V, split-V, variant-V   the annotation steps of variant V
    assemble-NAME                                             an assembly recipe
    align-V                                                   an existing variant re-split as the pivot
    extend-V, romanize-V                                      new variants
    dataset                                                   every variant in one folder
    qc                                                        the gate (0 pass, 1 fail)
    licenses                                                  the license audit per split
    baselines                                                 baseline scores
    export                                                    DIR/export: Parquet, card, lm-eval tasks

Commands run in this process through the ``builder`` group itself, so each
stage validates its input, writes atomically and reports errors exactly as
the command does on its own.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from schemas.codes import variant_language
from schemas.errors import RecipeError

from . import steps
from .recipe import ReleaseRecipe
from .stages import Stage

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
    agreement: Path | None = None     # agreement.json
    judgements: dict | None = None    # {"path", "labels", "format"} of the agreement stage, for the matrix
    drops: list[tuple[str, Path]] = field(default_factory=list)   # (kind, file) ledgers for the summary
    dataset: Path | None = None
    qc: Stage | None = None
    export: Path | None = None

    def stage(self, name: str, inputs: dict, options: dict, action: Callable[[Path], int], *,
              output: Path | None = None, accept=(0,), describe: str = "", parallel: bool = False) -> Stage:
        if any(s.name == name for s in self.stages):
            raise RecipeError(f"two stages would be named {name!r}: a variant is made twice", file=self.recipe.file)
        st = Stage(name=name, inputs={k: Path(v) for k, v in inputs.items() if v is not None},
                   options=options, action=action, output=output or self.root / "stages" / name / "output",
                   accept=tuple(accept), describe=describe or name, parallel=parallel)
        self.stages.append(st)
        return st

    def add_variant(self, v: Variant, where: str) -> None:
        if v.code in self.variants:
            raise RecipeError(f"variant {v.code} is made twice (first by {self.variants[v.code].origin})",
                              file=self.recipe.file, field=where)
        self.variants[v.code] = v

    def need(self, code: str, where: str) -> Variant:
        if code not in self.variants:
            made = ", ".join(self.variants) or "none yet"
            raise RecipeError(f"variant {code} is not made by an earlier entry (made so far: {made})",
                              file=self.recipe.file, field=where)
        return self.variants[code]


def make_plan(recipe: ReleaseRecipe, root: Path, *, jobs: int, quiet: bool = False, verify: bool = True,
              allow_failing_gate: bool = False, backend: str = "local", address: str | None = None) -> Plan:
    """Every stage of ``recipe`` for a release into ``root``, in the order they run.

    ``jobs``, ``backend`` and ``address`` say where the per-variant stages (qc, baselines, export)
    run; they do not change what they write, so they are not part of a stage's record.
    """
    root = Path(os.path.abspath(root))  # the commands run inside it (steps.CommandRunner)
    plan = Plan(root=root, recipe=recipe, where={"jobs": jobs, "backend": backend, "address": address})
    run = steps.CommandRunner(quiet=quiet, verify=verify, root=root)
    for src in recipe.variants:
        adder = _ADDERS[src.kind]
        adder(plan, src, run)
    kinds = {v.kind for v in plan.variants.values()}
    if len(kinds) > 1:
        raise RecipeError("a release holds one kind of data; these entries make both topic and "
                          "multiple-choice variants", file=recipe.file, field="variants")
    plan.kind = kinds.pop()
    if recipe.pivot not in plan.variants:
        raise RecipeError(f"the pivot {recipe.pivot} is not made by any entry (made: {', '.join(plan.variants)})",
                          file=recipe.file, field="pivot")
    _dataset(plan)
    where = ["--jobs", str(jobs), "--backend", backend] + (["--address", address] if address else [])
    _gate(plan, run, where)
    _licenses(plan)
    _baselines(plan, run, where)
    _export(plan, allow_failing_gate, jobs=jobs, backend=backend, address=address)
    return plan


# -- variant sources -------------------------------------------------------------------------------------------

def _annotation(plan: Plan, src, run) -> None:
    o, r = src.options, plan.recipe
    v = o["variant"]
    label_opts = ["--labels", str(o["labels"])] if "labels" in o else []
    fmt = ["--format", o["format"]] if "format" in o else []
    decisions = None
    if "judgements" in o:
        ann = plan.stage(f"agreement-{v}", {"judgements": o["judgements"], "labels": o.get("labels")},
                         {"format": o.get("format", "auto")},
                         run.command(["annotate", "agreement", str(o["judgements"]), *label_opts, *fmt]))
        plan.agreement = ann.output / "agreement.json"
        plan.judgements = {"path": o["judgements"], "labels": o.get("labels"), "format": o.get("format", "auto")}
        policy = ["--policy", o["policy"]] if "policy" in o else []
        adj = plan.stage(f"adjudicate-{v}", {"judgements": o["judgements"], "labels": o.get("labels")},
                         {"format": o.get("format", "auto"), "policy": o.get("policy", "sib200")},
                         run.command(["annotate", "adjudicate", str(o["judgements"]), *label_opts, *fmt, *policy]))
        decisions = adj.output / "decisions.csv"
        plan.drops.append(("adjudication", adj.output / "adjudication.json"))
    labelled = o.get("labelled", decisions)
    cur = plan.stage(f"curate-{v}", {"labelled": labelled, "curation": o["curation"]}, {},
                     run.command(["annotate", "curate", str(labelled), "--recipe", str(o["curation"])]))
    plan.drops.append(("curation", cur.output / "curation_log.json"))
    ratios = ",".join(f"{x:g}" for x in o["ratios"])
    spl = plan.stage(f"split-{v}", {"curated": cur.output / "curated.tsv"}, {"ratios": ratios, "seed": o["seed"]},
                     run.command(["annotate", "split", str(cur.output / "curated.tsv"), "--ratios", ratios,
                                  "--seed", str(o["seed"])]))
    credit = {"license": o.get("license", r.license), "source_name": o.get("source_name", r.source_name),
              "citation": o.get("citation", r.citation)}
    var = plan.stage(f"variant-{v}", {"split": spl.output}, {"variant": v, **credit},
                     steps.variant_folder(spl.output, v, credit, method="annotation"))
    plan.add_variant(Variant(v, var.output / v, "annotation (curated and split)"), src.where)


def _assemble(plan: Plan, src, run) -> None:
    from ..recipe import load_recipe

    recipe = load_recipe(src.options["recipe"])
    seed = ["--seed", str(src.options["seed"])] if "seed" in src.options else []
    st = plan.stage(f"assemble-{recipe.name}", {"recipe": src.options["recipe"],
                                                **{f"source:{s.name}": s.path for s in recipe.sources}},
                    {"seed": src.options.get("seed")},
                    run.command(["assemble", str(src.options["recipe"]), *seed, "--on-error", "raise"]))
    plan.drops.append(("assembly", st.output / "manifest.json"))
    plan.add_variant(Variant(recipe.language, st.output, f"assembled ({recipe.name})", assembled=True, kind="mc"),
                     src.where)


def _dataset_source(plan: Plan, src, run) -> None:
    o = src.options
    found = steps.variant_folders(o["path"])
    wanted = o.get("only") or tuple(found)
    for code in wanted:
        if code not in found:
            raise RecipeError(f"{o['path']} holds no variant {code} (it holds: {', '.join(found) or 'none'})",
                              file=plan.recipe.file, field=f"{src.where}.only")
        folder, kind = found[code]
        if o.get("align") == "pivot":
            pivot = plan.need(plan.recipe.pivot, f"{src.where}.align")
            st = plan.stage(f"align-{code}", {"pivot": pivot.folder, "variant": folder}, {"variant": code},
                            steps.align_to_pivot(pivot.folder, folder, code), parallel=True)
            plan.drops.append(("align", st.output / code / "variant.json"))
            plan.add_variant(Variant(code, st.output / code, f"aligned to {pivot.code} ({folder.name})", kind=kind),
                             src.where)
        else:
            plan.add_variant(Variant(code, folder, f"dataset folder {folder.name}", kind=kind), src.where)


def _extend(plan: Plan, src, run) -> None:
    o = src.options
    base = plan.need(o["from"], f"{src.where}.from")
    v = o["variant"]
    args = ["extend", "--source", str(base.folder), "--variant", v]
    inputs: dict[str, Any] = {"source": base.folder}
    for i, p in enumerate(o.get("parallel", ())):
        args += ["--parallel", str(p)]
        inputs[f"parallel[{i}]"] = p
    if "translations" in o:
        args += ["--translations", str(o["translations"])]
        inputs["translations"] = o["translations"]
    for n in o.get("expected_lines", ()):
        args += ["--expected-lines", str(n)]
    if "config" in o:
        args += ["--config", str(o["config"])]
        inputs["config"] = o["config"]
    if "license" in o:
        args += ["--license", o["license"]]
    st = plan.stage(f"extend-{v}", inputs, {"variant": v, "expected_lines": list(o.get("expected_lines", ())),
                                           "license": o.get("license")}, run.command(args), parallel=True)
    plan.add_variant(Variant(v, st.output / v, f"projected from {base.code}", kind=base.kind), src.where)


def _romanize(plan: Plan, src, run) -> None:
    o = src.options
    base = plan.need(o["from"], f"{src.where}.from")
    v = f"{variant_language(base.code)}_Latn"
    args = ["romanize", str(base.folder)]
    if "scheme" in o:
        args += ["--scheme", o["scheme"]]
    if o.get("allow_leftover"):
        args.append("--allow-leftover")
    st = plan.stage(f"romanize-{v}", {"source": base.folder},
                    {"scheme": o.get("scheme", "iso"), "allow_leftover": bool(o.get("allow_leftover"))},
                    run.command(args), parallel=True)
    plan.add_variant(Variant(v, st.output / v, f"romanized from {base.code}", kind=base.kind), src.where)


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


def _gate(plan: Plan, run, where: list[str]) -> None:
    qc = plan.recipe.qc
    if not qc.get("enabled", True):
        return
    args = ["qc", str(plan.dataset), *where]
    inputs = {"dataset": plan.dataset}
    files = {}
    if "config" in qc:
        args += ["--config", str(qc["config"])]
        inputs["config"] = qc["config"]
    elif plan.recipe.pivot != "eng_Latn":  # the shipped thresholds with the recipe's pivot
        config = plan.root / "stages" / "qc" / "qc-pivot.yaml"
        files[config] = f"pivot: {plan.recipe.pivot}\n"
        args += ["--config", str(config)]
    plan.qc = plan.stage("qc", inputs, {"pivot": plan.recipe.pivot}, run.command(args, junit=True, files=files),
                         accept=(0, 1), describe="qc (the release gate)")


def _licenses(plan: Plan) -> None:
    lic = plan.recipe.export.get("license", plan.recipe.license)
    plan.stage("licenses", {"dataset": plan.dataset}, {"license": lic}, steps.license_audit(plan.dataset, lic))


def _baselines(plan: Plan, run, where: list[str]) -> None:
    b = plan.recipe.baselines
    if b is None:
        return
    names = b.get("names") or DEFAULT_BASELINES[plan.kind]
    split = b.get("split", "test" if plan.kind == "topic" else "dev")
    args = ["evaluate", "baselines", str(plan.dataset), "--baseline", ",".join(names), "--split", split,
            "--seed", str(b.get("seed", 0)), *where]
    if "ngram_unit" in b:
        args += ["--ngram-unit", b["ngram_unit"]]
    if "mlp_max_iter" in b:
        args += ["--mlp-max-iter", str(b["mlp_max_iter"])]
    plan.stage("baselines", {"dataset": plan.dataset},
               {"names": list(names), "split": split, "seed": b.get("seed", 0),
                "ngram_unit": b.get("ngram_unit"), "mlp_max_iter": b.get("mlp_max_iter")},
               run.command(args))


def _export(plan: Plan, allow_failing_gate: bool, **where) -> None:
    r = plan.recipe
    reports = {"agreement": plan.agreement,
               "qc": None if plan.qc is None else plan.qc.output / "qc_report.json",
               "baselines": plan.root / "stages" / "baselines" / "output" / "results.json"
               if r.baselines is not None else None}
    inputs = {"dataset": plan.dataset, **{f"report:{k}": p for k, p in reports.items() if p is not None}}
    options = {"name": r.name, "pretty_name": r.pretty_name, "lm_eval": bool(r.export.get("lm_eval", False)),
               "license": r.export.get("license", r.license), "citation": r.citation,
               "qc": r.qc.get("enabled", True), "allow_failing_gate": allow_failing_gate}
    plan.export = plan.root / "export"
    plan.stage("export", inputs, options, steps.export(plan.dataset, reports, options, **where), output=plan.export)
