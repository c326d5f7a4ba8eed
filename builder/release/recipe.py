"""The release recipe: one YAML file from sources to a gated, licensed, documented release.

Strict like the assembly recipe (:mod:`builder.recipe`): ``version: 1``, an
unknown or missing key is one error naming the file and the key path, and
relative paths resolve against the recipe's folder. Shape::

    version: 1
    name: sib200-sample                 # config-safe; the export's name and lm-eval group
    pretty_name: SIB-200 (sample)
    citation: "@inproceedings{...}"     # or citation_file: CITATION.bib
    pivot: eng_Latn
    license: CC-BY-SA-4.0               # of variants that declare none (optional)
    source_name: SIB-200                # credit of variants that declare none (optional)
    variants:                           # in order; later entries may derive from earlier ones
      - annotation:                     # agreement -> adjudicate -> curate -> split
          variant: eng_Latn
          judgements: ann.csv           # raw judgements (optional): agreement and adjudication
          labels: labels.txt            # allowed labels of the judgements (optional)
          labelled: eng_14/             # labelled items to curate (default: the adjudicated decisions)
          curation: curation.yaml
          split: {ratios: [0.7, 0.1, 0.2], seed: 0}
      - assemble: belebele-train.yaml   # an assembly recipe (multiple-choice training set)
      - dataset: annotated/             # existing variant folders (a folder of them, or one)
        only: [hin_Deva]                # optional subset
        align: pivot                    # optional (topic): re-split by the pivot's index_ids
      - extend: {variant: nqo_Nkoo, from: eng_Latn, parallel: [a.dev, a.devtest]}
      - romanize: {from: hin_Deva, scheme: iso}   # or from: [hin_Deva, ben_Beng, ...]: one stage each
    qc: {config: qc.yaml}               # optional; qc: false skips the gate (the card says so)
    export: {lm_eval: true}
    baselines: {names: [majority, char_tfidf], split: test, seed: 0}
    lm_eval:                            # optional: a language model on the export's lm-eval tasks
      model: SmolLM2.gguf               # a model folder or a GGUF file (never downloaded)
      tasks: all                        # or a list of variants / task names
      limit: 20                         # items per task, spread over the labels (seeded)
      batch_size: 1
      device: cpu
      seed: 0

Every value is checked here against what its stage accepts, before any stage
runs, by the owner the stage itself asks (the split-ratio rule of
:func:`annotation.splits.check_ratios`, the adjudication policies, the
romanization schemes of the source's script, the baseline and n-gram-unit
registries, :mod:`schemas.license_registry`), and the files the recipe points
to (curation recipe, assembly recipe, qc config, extend checks config) are
read and validated by their own loaders. Names that become folder names pass
:func:`schemas.names.check_name`, variant codes
:func:`schemas.codes.validate_variant_code`. A mistake is one line naming the
file and the key path, e.g. ``r.yaml, field variants[2].romanize.scheme:
unknown scheme 'iast2' for script Deva; known: iso, iast, hk, itrans``.
"""
from __future__ import annotations

import difflib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Mapping

from schemas.codes import validate_variant_code
from schemas.errors import RecipeError, ToolkitError
from schemas.io import read_text_utf8, read_yaml, require_path
from schemas.names import shown
from schemas.validate import Checker, unknown_key

if TYPE_CHECKING:
    from builder.tasks.evaluate import LmSettings

VERSION = 1

_TOP = {"version": True, "name": True, "pretty_name": False, "citation": False, "citation_file": False,
        "pivot": True, "license": False, "source_name": False, "variants": True, "qc": False, "export": False,
        "baselines": False, "description": False, "lm_eval": False}
_ANNOTATION = {"variant": True, "judgements": False, "labels": False, "labelled": False, "curation": True,
               "split": False, "format": False, "policy": False, "license": False, "source_name": False,
               "citation": False}
_SPLIT = {"ratios": False, "seed": False}
_DATASET = {"dataset": True, "only": False, "align": False}
_EXTEND = {"variant": True, "from": True, "parallel": False, "translations": False, "expected_lines": False,
           "config": False, "license": False}
_ROMANIZE = {"from": True, "scheme": False, "allow_leftover": False}
_ASSEMBLE = {"assemble": True, "seed": False}
_QC = {"config": False, "enabled": False}
_EXPORT = {"lm_eval": False, "license": False}
_LM_EVAL = {"model": True, "tasks": False, "limit": False, "batch_size": False, "device": False, "seed": False,
            "num_fewshot": False}
_BASELINES = {"names": False, "split": False, "seed": False, "ngram_unit": False, "mlp_max_iter": False}
_KINDS = ("annotation", "assemble", "dataset", "extend", "romanize")


@dataclass(frozen=True)
class _Entry:
    """One entry of ``variants``: how one or more variants come to be; ``index`` is its position in the
    recipe, for messages. Paths are absolute, resolved against the recipe's folder."""

    index: int
    kind: ClassVar[str] = ""

    @property
    def where(self) -> str:
        return f"variants[{self.index}].{self.kind}"


@dataclass(frozen=True)
class AnnotationEntry(_Entry):
    """agreement and adjudication on ``judgements`` (when given), curation of ``labelled`` (default: the
    adjudicated decisions), the split; the split folder becomes the variant with the entry's credit."""

    variant: str = ""
    curation: Path = Path()
    judgements: Path | None = None
    labels: Path | None = None
    labelled: Path | None = None
    format: str = "auto"
    policy: str = "sib200"
    ratios: tuple[float, float, float] = (0.7, 0.1, 0.2)
    seed: int = 0
    license: str | None = None
    source_name: str | None = None
    citation: str | None = None
    kind: ClassVar[str] = "annotation"


@dataclass(frozen=True)
class AssembleEntry(_Entry):
    """An assembly recipe (a multiple-choice training set); ``seed`` overrides the recipe's."""

    recipe: Path = Path()
    seed: int | None = None
    kind: ClassVar[str] = "assemble"


@dataclass(frozen=True)
class DatasetEntry(_Entry):
    """Existing variant folders (``only``: a subset); ``align="pivot"`` re-splits each as the pivot is."""

    path: Path = Path()
    only: tuple[str, ...] = ()
    align: str | None = None
    kind: ClassVar[str] = "dataset"


@dataclass(frozen=True)
class ExtendEntry(_Entry):
    """A new variant projected from ``source`` (the recipe's ``from``) onto parallel files or translations."""

    variant: str = ""
    source: str = ""
    parallel: tuple[Path, ...] = ()
    translations: Path | None = None
    expected_lines: tuple[int, ...] = ()
    config: Path | None = None
    license: str | None = None
    kind: ClassVar[str] = "extend"


@dataclass(frozen=True)
class RomanizeEntry(_Entry):
    """The Latin-script copy of ``source`` (the recipe's ``from``; ``position``: its place when ``from``
    is a list of codes, each of which becomes one entry and one stage)."""

    source: str = ""
    scheme: str | None = None
    allow_leftover: bool = False
    position: int | None = None
    kind: ClassVar[str] = "romanize"

    @property
    def from_key(self) -> str:
        """The key path of this entry's source code, for messages (``variants[3].romanize.from[2]``)."""
        return f"{self.where}.from" + ("" if self.position is None else f"[{self.position}]")


VariantSource = AnnotationEntry | AssembleEntry | DatasetEntry | ExtendEntry | RomanizeEntry


@dataclass(frozen=True)
class QCSettings:
    """``qc:``: whether the gate runs (``qc: false`` skips it; the card says so) and its config file."""

    enabled: bool = True
    config: Path | None = None


@dataclass(frozen=True)
class ExportSettings:
    """``export:``: lm-eval task files, and the license of folders without license information."""

    lm_eval: bool = False
    license: str | None = None


@dataclass(frozen=True)
class BaselineSettings:
    """``baselines:`` (``names`` empty: the defaults of the data's kind; ``split`` None: test for topic
    data, dev for multiple choice)."""

    names: tuple[str, ...] = ()
    split: str | None = None
    seed: int = 0
    ngram_unit: str | None = None
    mlp_max_iter: int | None = None


@dataclass(frozen=True)
class ReleaseRecipe:
    """A validated release recipe (see the module docstring)."""

    name: str
    pivot: str
    variants: tuple[VariantSource, ...]
    pretty_name: str | None = None
    citation: str | None = None
    description: str | None = None
    license: str | None = None
    source_name: str | None = None
    qc: QCSettings = field(default_factory=QCSettings)
    export: ExportSettings = field(default_factory=ExportSettings)
    baselines: BaselineSettings | None = None
    lm_eval: LmSettings | None = None  # builder.tasks.evaluate.LmSettings, the command's own
    file: Path | None = None

    @property
    def export_license(self) -> str | None:
        """The license the audit and the export give folders without license information."""
        return self.export.license or self.license


class _Release(Checker):
    def __init__(self, file: Path | None):
        super().__init__(file)
        # absolute: what a stage records does not depend on the folder the release is run from
        self.base = Path(os.path.abspath(file.parent if file is not None else Path.cwd()))

    def path(self, key: str, value: Any, *, kind: str = "any") -> Path:
        text = self.text(key, value)
        p = Path(os.path.normpath(self.base / text))
        if not p.exists():
            self.fail(key, f"{text!r} does not exist (relative paths start at the recipe's folder {self.base})")
        if kind == "dir" and not p.is_dir():
            self.fail(key, f"{text!r} is not a folder")
        if kind == "file" and not p.is_file():
            self.fail(key, f"{text!r} is not a file")
        return p

    def paths(self, key: str, value: Any) -> tuple[Path, ...]:
        items = [value] if isinstance(value, str) else value
        if not isinstance(items, list) or not items:
            self.fail(key, f"expected a path or a non-empty list of paths, found {value!r}")
        return tuple(self.path(f"{key}[{i}]", v, kind="file") for i, v in enumerate(items))

    def code(self, key: str, value: Any) -> str:
        text = self.text(key, value)
        try:
            validate_variant_code(text)
        except ToolkitError as err:
            self.fail(key, str(err))
        return text

    def known(self, key: str, value: Any, known, what: str, of: str = "") -> Any:
        """``value`` if it is one of ``known`` (the list the stage's own owner holds)."""
        if value not in tuple(known):
            self.fail(key, unknown_value(what, value, known, of=of))
        return value

    def license(self, key: str, value: Any) -> str:
        """A license id the registry knows (:func:`schemas.license_registry.get_license`, as the stages ask)."""
        from schemas.license_registry import get_license, known_ids

        text = self.text(key, value)
        try:
            get_license(text)
        except ToolkitError:
            self.fail(key, unknown_value("license id", text, known_ids()))
        return text


#: The longest list of known values an error line spells out; a longer one gives the nearest values.
_LISTED = 120


def unknown_value(what: str, value: Any, known, *, of: str = "") -> str:
    """The message for a value its stage does not accept: the known values (the nearest, if many).

    >>> unknown_value("scheme", "iast2", ("iso", "iast", "hk"), of=" for script Deva")
    "unknown scheme 'iast2' for script Deva; known: iso, iast, hk"
    >>> from schemas.license_registry import known_ids
    >>> unknown_value("license id", "CC-BY-SA-5.0", known_ids())[:90]
    "unknown license id 'CC-BY-SA-5.0'; known: CC-BY-SA-4.0, CC-BY-SA-3.0, CC-BY-NC-SA-4.0, Apa"
    """
    known = list(dict.fromkeys(str(k) for k in known))
    if len(", ".join(known)) <= _LISTED:
        return f"unknown {what} {shown(value)}{of}; known: {', '.join(known)}"
    near = difflib.get_close_matches(str(value), known, n=3, cutoff=0.5)
    shown_values: list[str] = []
    for k in [*near, *(k for k in known if k not in near)]:  # the nearest first, then as many as fit
        if len(", ".join([*shown_values, k])) > _LISTED * 2 // 3:
            break
        shown_values.append(k)
    return f"unknown {what} {shown(value)}{of}; known: {', '.join(shown_values)}, ... ({len(known)} in all)"


def load_release_recipe(path: str | Path) -> ReleaseRecipe:
    """Read and validate a release recipe file; errors name the file and the key."""
    path = require_path(path, what="release recipe", kind="file")
    data = read_yaml(path)
    return release_from_dict(data, file=path)


def release_from_dict(data: Any, *, file: Path | None = None) -> ReleaseRecipe:
    """Validate a parsed release recipe; relative paths resolve against ``file``'s folder."""
    chk = _Release(file)
    chk.keys("", data, _TOP)
    if data["version"] != VERSION:
        chk.fail("version", f"expected {VERSION}, found {data['version']!r}")
    name = chk.name("name", data["name"], "release name")
    if "citation" in data and "citation_file" in data:
        chk.fail("citation_file", "give citation or citation_file, not both")
    citation = chk.text("citation", data["citation"]).strip() if "citation" in data else None
    if "citation_file" in data:
        citation = read_text_utf8(chk.path("citation_file", data["citation_file"], kind="file")).strip()
    variants = data["variants"]
    if not isinstance(variants, list) or not variants:
        chk.fail("variants", f"expected a non-empty list, found {variants!r}")
    sources = tuple(entry for i, raw in enumerate(variants) for entry in _variant_sources(chk, i, raw))
    qc = _qc(chk, data.get("qc"))
    raw_export = dict(chk.mapping("export", data.get("export")))
    chk.keys("export", raw_export, _EXPORT)
    export = ExportSettings(
        lm_eval=chk.flag("export.lm_eval", raw_export["lm_eval"]) if "lm_eval" in raw_export else False,
        license=chk.license("export.license", raw_export["license"]) if "license" in raw_export else None)
    baselines = _baselines(chk, data["baselines"]) if data.get("baselines") is not None else None
    return ReleaseRecipe(
        name=name, pivot=chk.code("pivot", data["pivot"]), variants=sources,
        pretty_name=chk.text("pretty_name", data["pretty_name"]) if "pretty_name" in data else None,
        citation=citation,
        description=chk.text("description", data["description"]).strip() if "description" in data else None,
        license=chk.license("license", data["license"]) if "license" in data else None,
        source_name=chk.text("source_name", data["source_name"]) if "source_name" in data else None,
        qc=qc, export=export, baselines=baselines,
        lm_eval=_lm_eval(chk, data["lm_eval"], export) if data.get("lm_eval") is not None else None, file=file)


def _lm_eval(chk: _Release, raw_value: Any, export: ExportSettings) -> LmSettings:
    """``lm_eval:``: the model must exist (a folder or a file); the export must write lm-eval tasks."""
    raw = dict(chk.mapping("lm_eval", raw_value))
    chk.keys("lm_eval", raw, _LM_EVAL)
    if not export.lm_eval:
        chk.fail("lm_eval", "runs the export's lm-eval tasks; set export: {lm_eval: true}")
    tasks = raw.get("tasks", "all")
    tasks = ("all",) if tasks == "all" else chk.names("lm_eval.tasks", tasks)
    optional = {k: chk.integer(f"lm_eval.{k}", raw[k], low) for k, low in
                (("limit", 1), ("batch_size", 1), ("seed", 0), ("num_fewshot", 0)) if k in raw}
    from builder.tasks.evaluate import LmSettings  # here: only a recipe with lm_eval: pays its import

    return LmSettings(model=chk.path("lm_eval.model", raw["model"]), tasks=tasks,
                      device=chk.text("lm_eval.device", raw["device"]) if "device" in raw else "cpu", **optional)


def _baselines(chk: _Release, raw_value: Any) -> BaselineSettings:
    """``baselines:``; each name is one the baselines stage knows for some kind of data (which kind the
    release holds is known once its entries are planned: :func:`check_baselines_kind`)."""
    from builder.evaluation.runner import known_baselines
    from builder.evaluation.topic_baselines import NGRAM_UNITS

    raw = dict(chk.mapping("baselines", raw_value))
    chk.keys("baselines", raw, _BASELINES)
    names = chk.names("baselines.names", raw["names"]) if "names" in raw else ()
    known = (*known_baselines("topic"), *known_baselines("mc"))
    for j, n in enumerate(names):
        chk.known(f"baselines.names[{j}]", n, known, "baseline")
    unit = None
    if "ngram_unit" in raw:
        unit = chk.known("baselines.ngram_unit", chk.text("baselines.ngram_unit", raw["ngram_unit"]), NGRAM_UNITS,
                         "n-gram unit")
    return BaselineSettings(
        names=names, split=chk.text("baselines.split", raw["split"]) if "split" in raw else None,
        seed=chk.integer("baselines.seed", raw["seed"], 0) if "seed" in raw else 0, ngram_unit=unit,
        mlp_max_iter=chk.integer("baselines.mlp_max_iter", raw["mlp_max_iter"], 1) if "mlp_max_iter" in raw else None)


def check_baselines_kind(recipe: ReleaseRecipe, kind: str) -> None:
    """Refuse a baseline name the baselines stage does not run on ``kind`` data ("topic" or "mc"), naming the
    recipe file and ``baselines.names[j]``; called once the plan knows the kind, before any stage runs."""
    from builder.evaluation.runner import known_baselines

    if recipe.baselines is None:
        return
    words = {"topic": "topic", "mc": "multiple-choice"}
    known = known_baselines(kind)
    other = "mc" if kind == "topic" else "topic"
    for j, n in enumerate(recipe.baselines.names):
        if n not in known:
            if n in known_baselines(other):
                message = (f"baseline {shown(n)} is for {words[other]} data, this release holds {words[kind]} "
                           f"data; known: {', '.join(known)}")
            else:
                message = unknown_value(f"{words[kind]} baseline", n, known)
            raise RecipeError(message, file=recipe.file, field=f"baselines.names[{j}]")


def _qc(chk: _Release, raw: Any) -> QCSettings:
    if raw is False:
        return QCSettings(enabled=False)
    qc = dict(chk.mapping("qc", raw))
    chk.keys("qc", qc, _QC)
    config = None
    if "config" in qc:
        from qc.config import load_config

        config = chk.path("qc.config", qc["config"], kind="file")
        load_config(config)  # the gate's own loader: its error names that file and its key
    return QCSettings(enabled=chk.flag("qc.enabled", qc.get("enabled", True)), config=config)


def _ratios(chk: _Release, key: str, ratios: Any) -> tuple[float, float, float]:
    """Three shares the split stage accepts (:func:`annotation.splits.check_ratios`, its own rule)."""
    from annotation.splits import check_ratios

    if (not isinstance(ratios, list) or len(ratios) != 3
            or not all(isinstance(r, (int, float)) and not isinstance(r, bool) for r in ratios)):
        chk.fail(key, f"expected three shares (train, dev, test), found {shown(ratios)}")
    try:
        return check_ratios(ratios)  # finite too (nan and inf refused)
    except ToolkitError as err:
        chk.fail(key, err.message)


def _assembly(chk: _Release, key: str, path: Path) -> None:
    """Read the assembly recipe with its own loader; its name becomes a stage folder's name."""
    from builder.recipe import load_recipe

    load_recipe(path)  # its own loader: an error names that file and its key (its name too: Checker.name)


def _romanizable(chk: _Release, key: str, code: str, scheme: str | None, from_key: str | None = None) -> None:
    """The romanize stage has a romanizer for ``code``'s script and, if given, ``scheme`` is one of its
    schemes (:data:`builder.variants.romanize.ROMANIZATION`, the table the stage reads)."""
    from builder.variants.romanize import ROMANIZATION
    from schemas.scripts import script_of

    script = script_of(code)
    method = ROMANIZATION.get(script)
    if method is None:
        chk.fail(from_key or f"{key}.from", unknown_value("script to romanize", script, sorted(ROMANIZATION), of=f" ({code})"))
    if scheme is not None:
        chk.known(f"{key}.scheme", scheme, method.schemes, "scheme", of=f" for script {script}")


def _variant_sources(chk: _Release, i: int, raw: Any) -> tuple[VariantSource, ...]:
    """The entries of ``variants[i]``: one, or one per code of a ``romanize.from`` list."""
    entry = _variant_source(chk, i, raw)
    return entry if isinstance(entry, tuple) else (entry,)


def _variant_source(chk: _Release, i: int, raw: Any) -> "VariantSource | tuple[RomanizeEntry, ...]":
    where = f"variants[{i}]"
    if not isinstance(raw, Mapping):
        chk.fail(where, f"expected a mapping with one of {', '.join(_KINDS)}, found {raw!r}")
    kinds = [k for k in _KINDS if k in raw]
    if len(kinds) != 1:
        chk.fail(where, f"expected exactly one of {', '.join(_KINDS)}, found {', '.join(map(str, raw)) or 'none'}")
    kind = kinds[0]
    if kind == "dataset":
        chk.keys(where, raw, _DATASET)
        only: tuple[str, ...] = ()
        if "only" in raw:
            only = tuple(chk.code(f"{where}.only[{j}]", v) for j, v in enumerate(chk.names(f"{where}.only", raw["only"])))
        if "align" in raw and raw["align"] != "pivot":
            chk.fail(f"{where}.align", f"expected 'pivot', found {raw['align']!r}")
        return DatasetEntry(i, path=chk.path(f"{where}.dataset", raw["dataset"], kind="dir"), only=only,
                            align=raw.get("align"))
    if kind == "assemble":
        chk.keys(where, raw, _ASSEMBLE)
        recipe = chk.path(f"{where}.assemble", raw["assemble"], kind="file")
        _assembly(chk, f"{where}.assemble", recipe)
        return AssembleEntry(i, recipe=recipe,
                             seed=chk.integer(f"{where}.seed", raw["seed"], 0) if "seed" in raw else None)
    body = dict(chk.mapping(f"{where}.{kind}", raw[kind]))
    if set(raw) != {kind}:
        chk.fail(where, unknown_key(sorted(set(raw) - {kind})[0], [kind]))
    key = f"{where}.{kind}"

    def optional_text(name: str) -> str | None:
        return chk.text(f"{key}.{name}", body[name]) if name in body else None

    def optional_file(name: str) -> Path | None:
        return chk.path(f"{key}.{name}", body[name], kind="file") if name in body else None

    def optional_license() -> str | None:
        return chk.license(f"{key}.license", body["license"]) if "license" in body else None

    if kind == "annotation":
        from annotation.adjudicate import POLICIES
        from annotation.curate import load_recipe as load_curation
        from annotation.importer import FORMATS

        chk.keys(key, body, _ANNOTATION)
        if "labelled" not in body and "judgements" not in body:
            chk.fail(key, "give labelled (items to curate) or judgements (to adjudicate), or both")
        split = dict(chk.mapping(f"{key}.split", body.get("split")))
        chk.keys(f"{key}.split", split, _SPLIT)
        ratios = _ratios(chk, f"{key}.split.ratios", split.get("ratios", [0.7, 0.1, 0.2]))
        variant = chk.code(f"{key}.variant", body["variant"])
        curation = chk.path(f"{key}.curation", body["curation"], kind="file")
        load_curation(curation)  # its own loader: an error names that file and its key
        fmt = chk.known(f"{key}.format", optional_text("format") or "auto", FORMATS, "format")
        policy = chk.known(f"{key}.policy", optional_text("policy") or "sib200", POLICIES, "adjudication policy")
        return AnnotationEntry(
            i, variant=variant, curation=curation,
            judgements=optional_file("judgements"), labels=optional_file("labels"),
            labelled=chk.path(f"{key}.labelled", body["labelled"]) if "labelled" in body else None,
            format=fmt, policy=policy,
            ratios=tuple(float(r) for r in ratios), seed=chk.integer(f"{key}.split.seed", split.get("seed", 0), 0),
            license=optional_license(), source_name=optional_text("source_name"),
            citation=optional_text("citation"))
    if kind == "extend":
        chk.keys(key, body, _EXTEND)
        if ("parallel" in body) == ("translations" in body):
            chk.fail(key, "give parallel (topic: sentence files) or translations (multiple choice), not both")
        lines: tuple[int, ...] = ()
        if "expected_lines" in body:
            if not isinstance(body["expected_lines"], list):
                chk.fail(f"{key}.expected_lines", f"expected a list of line counts, found {body['expected_lines']!r}")
            lines = tuple(chk.integer(f"{key}.expected_lines[{j}]", n, 1) for j, n in enumerate(body["expected_lines"]))
        config = optional_file("config")
        if config is not None:
            from builder.variants.checks import load_check_config

            load_check_config(config)  # its own loader: an error names that file and its key
        return ExtendEntry(
            i, variant=chk.code(f"{key}.variant", body["variant"]), source=chk.code(f"{key}.from", body["from"]),
            parallel=chk.paths(f"{key}.parallel", body["parallel"]) if "parallel" in body else (),
            translations=optional_file("translations"), expected_lines=lines, config=config,
            license=optional_license())
    chk.keys(key, body, _ROMANIZE)
    scheme = optional_text("scheme")
    allow = chk.flag(f"{key}.allow_leftover", body["allow_leftover"]) if "allow_leftover" in body else False
    if isinstance(body["from"], list):  # one stage per code, each checked as a single from is
        codes = chk.names(f"{key}.from", body["from"])
        seen: dict[str, int] = {}
        entries = []
        for j, value in enumerate(codes):
            code = chk.code(f"{key}.from[{j}]", value)
            if code in seen:
                chk.fail(f"{key}.from[{j}]", f"{code} is listed twice (first at from[{seen[code]}])")
            seen[code] = j
            _romanizable(chk, key, code, scheme, from_key=f"{key}.from[{j}]")
            entries.append(RomanizeEntry(i, source=code, scheme=scheme, allow_leftover=allow, position=j))
        return tuple(entries)
    source = chk.code(f"{key}.from", body["from"])
    _romanizable(chk, key, source, scheme)
    return RomanizeEntry(i, source=source, scheme=scheme, allow_leftover=allow)
