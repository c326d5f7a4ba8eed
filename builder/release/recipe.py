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
      - romanize: {from: hin_Deva, scheme: iso}
    qc: {config: qc.yaml}               # optional; qc: false skips the gate (the card says so)
    export: {lm_eval: true}
    baselines: {names: [majority, char_tfidf], split: test, seed: 0}
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from schemas.codes import validate_variant_code
from schemas.errors import RecipeError, SourceNotFoundError, ToolkitError
from schemas.io import read_text_utf8, read_yaml
from schemas.validate import Checker

VERSION = 1

_TOP = {"version": True, "name": True, "pretty_name": False, "citation": False, "citation_file": False,
        "pivot": True, "license": False, "source_name": False, "variants": True, "qc": False, "export": False,
        "baselines": False, "description": False}
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
_BASELINES = {"names": False, "split": False, "seed": False, "ngram_unit": False, "mlp_max_iter": False}
_KINDS = ("annotation", "assemble", "dataset", "extend", "romanize")


@dataclass(frozen=True)
class VariantSource:
    """One entry of ``variants``: how one or more variants come to be.

    ``kind`` is one of ``annotation``, ``assemble``, ``dataset``, ``extend``,
    ``romanize``; ``options`` holds the entry's validated keys (paths as
    :class:`~pathlib.Path`, resolved against the recipe's folder); ``index``
    is its position in the recipe, for messages.
    """

    kind: str
    options: Mapping[str, Any]
    index: int

    @property
    def where(self) -> str:
        return f"variants[{self.index}].{self.kind}"


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
    qc: Mapping[str, Any] = field(default_factory=dict)
    export: Mapping[str, Any] = field(default_factory=dict)
    baselines: Mapping[str, Any] | None = None
    file: Path | None = None


class _Release(Checker):
    def __init__(self, file: Path | None):
        super().__init__(file)
        # absolute: the stages run inside the release folder (builder.release.steps.CommandRunner)
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


def load_release_recipe(path: str | Path) -> ReleaseRecipe:
    """Read and validate a release recipe file; errors name the file and the key."""
    path = Path(path)
    if not path.is_file():
        raise SourceNotFoundError("release recipe not found", file=path)
    data = read_yaml(path)
    return release_from_dict(data, file=path)


def release_from_dict(data: Any, *, file: Path | None = None) -> ReleaseRecipe:
    """Validate a parsed release recipe; relative paths resolve against ``file``'s folder."""
    chk = _Release(file)
    chk.keys("", data, _TOP)
    if data["version"] != VERSION:
        chk.fail("version", f"expected {VERSION}, found {data['version']!r}")
    from ..export.writer import check_name

    name = chk.text("name", data["name"])
    try:
        check_name(name, "name")
    except ToolkitError as err:
        chk.fail("name", str(err))
    if "citation" in data and "citation_file" in data:
        chk.fail("citation_file", "give citation or citation_file, not both")
    citation = chk.text("citation", data["citation"]).strip() if "citation" in data else None
    if "citation_file" in data:
        citation = read_text_utf8(chk.path("citation_file", data["citation_file"], kind="file")).strip()
    variants = data["variants"]
    if not isinstance(variants, list) or not variants:
        chk.fail("variants", f"expected a non-empty list, found {variants!r}")
    sources = tuple(_variant_source(chk, i, raw) for i, raw in enumerate(variants))
    qc = _qc(chk, data.get("qc"))
    export = dict(chk.mapping("export", data.get("export")))
    chk.keys("export", export, _EXPORT)
    if "lm_eval" in export:
        chk.flag("export.lm_eval", export["lm_eval"])
    baselines = None
    if data.get("baselines") is not None:
        baselines = dict(chk.mapping("baselines", data["baselines"]))
        chk.keys("baselines", baselines, _BASELINES)
        if "names" in baselines:
            baselines["names"] = chk.names("baselines.names", baselines["names"])
        for key in ("seed", "mlp_max_iter"):
            if key in baselines:
                chk.integer(f"baselines.{key}", baselines[key], 0 if key == "seed" else 1)
    return ReleaseRecipe(
        name=name, pivot=chk.code("pivot", data["pivot"]), variants=sources,
        pretty_name=chk.text("pretty_name", data["pretty_name"]) if "pretty_name" in data else None,
        citation=citation,
        description=chk.text("description", data["description"]).strip() if "description" in data else None,
        license=chk.text("license", data["license"]) if "license" in data else None,
        source_name=chk.text("source_name", data["source_name"]) if "source_name" in data else None,
        qc=qc, export=export, baselines=baselines, file=file)


def _qc(chk: _Release, raw: Any) -> dict:
    if raw is False:
        return {"enabled": False}
    qc = dict(chk.mapping("qc", raw))
    chk.keys("qc", qc, _QC)
    out = {"enabled": chk.flag("qc.enabled", qc.get("enabled", True))}
    if "config" in qc:
        out["config"] = chk.path("qc.config", qc["config"], kind="file")
    return out


def _variant_source(chk: _Release, i: int, raw: Any) -> VariantSource:
    where = f"variants[{i}]"
    if not isinstance(raw, Mapping):
        chk.fail(where, f"expected a mapping with one of {', '.join(_KINDS)}, found {raw!r}")
    kinds = [k for k in _KINDS if k in raw]
    if len(kinds) != 1:
        chk.fail(where, f"expected exactly one of {', '.join(_KINDS)}, found {', '.join(map(str, raw)) or 'none'}")
    kind = kinds[0]
    if kind == "dataset":
        chk.keys(where, raw, _DATASET)
        opts: dict[str, Any] = {"path": chk.path(f"{where}.dataset", raw["dataset"], kind="dir")}
        if "only" in raw:
            opts["only"] = tuple(chk.code(f"{where}.only[{j}]", v)
                                 for j, v in enumerate(chk.names(f"{where}.only", raw["only"])))
        if "align" in raw:
            if raw["align"] != "pivot":
                chk.fail(f"{where}.align", f"expected 'pivot', found {raw['align']!r}")
            opts["align"] = "pivot"
        return VariantSource(kind, opts, i)
    if kind == "assemble":
        chk.keys(where, raw, _ASSEMBLE)
        opts = {"recipe": chk.path(f"{where}.assemble", raw["assemble"], kind="file")}
        if "seed" in raw:
            opts["seed"] = chk.integer(f"{where}.seed", raw["seed"], 0)
        return VariantSource(kind, opts, i)
    body = dict(chk.mapping(f"{where}.{kind}", raw[kind]))
    if set(raw) != {kind}:
        chk.fail(where, f"unknown key {sorted(set(raw) - {kind})[0]!r} beside {kind!r}")
    key = f"{where}.{kind}"
    if kind == "annotation":
        chk.keys(key, body, _ANNOTATION)
        opts = {"variant": chk.code(f"{key}.variant", body["variant"]),
                "curation": chk.path(f"{key}.curation", body["curation"], kind="file")}
        for name in ("judgements", "labels"):
            if name in body:
                opts[name] = chk.path(f"{key}.{name}", body[name], kind="file")
        if "labelled" in body:
            opts["labelled"] = chk.path(f"{key}.labelled", body["labelled"])
        elif "judgements" not in body:
            chk.fail(key, "give labelled (items to curate) or judgements (to adjudicate), or both")
        for name in ("format", "policy", "license", "source_name", "citation"):
            if name in body:
                opts[name] = chk.text(f"{key}.{name}", body[name])
        split = dict(chk.mapping(f"{key}.split", body.get("split")))
        chk.keys(f"{key}.split", split, _SPLIT)
        ratios = split.get("ratios", [0.7, 0.1, 0.2])
        if (not isinstance(ratios, list) or len(ratios) != 3
                or not all(isinstance(r, (int, float)) and not isinstance(r, bool) and r >= 0 for r in ratios)):
            chk.fail(f"{key}.split.ratios", f"expected three shares (train, dev, test), found {ratios!r}")
        opts["ratios"] = tuple(float(r) for r in ratios)
        opts["seed"] = chk.integer(f"{key}.split.seed", split.get("seed", 0), 0)
        return VariantSource(kind, opts, i)
    if kind == "extend":
        chk.keys(key, body, _EXTEND)
        opts = {"variant": chk.code(f"{key}.variant", body["variant"]),
                "from": chk.text(f"{key}.from", body["from"])}
        if ("parallel" in body) == ("translations" in body):
            chk.fail(key, "give parallel (topic: sentence files) or translations (multiple choice), not both")
        if "parallel" in body:
            opts["parallel"] = chk.paths(f"{key}.parallel", body["parallel"])
        else:
            opts["translations"] = chk.path(f"{key}.translations", body["translations"], kind="file")
        if "expected_lines" in body:
            lines = body["expected_lines"]
            if not isinstance(lines, list):
                chk.fail(f"{key}.expected_lines", f"expected a list of line counts, found {lines!r}")
            opts["expected_lines"] = tuple(chk.integer(f"{key}.expected_lines[{j}]", n, 1)
                                           for j, n in enumerate(lines))
        if "config" in body:
            opts["config"] = chk.path(f"{key}.config", body["config"], kind="file")
        if "license" in body:
            opts["license"] = chk.text(f"{key}.license", body["license"])
        return VariantSource(kind, opts, i)
    chk.keys(key, body, _ROMANIZE)
    opts = {"from": chk.code(f"{key}.from", body["from"])}
    if "scheme" in body:
        opts["scheme"] = chk.text(f"{key}.scheme", body["scheme"])
    if "allow_leftover" in body:
        opts["allow_leftover"] = chk.flag(f"{key}.allow_leftover", body["allow_leftover"])
    return VariantSource(kind, opts, i)
