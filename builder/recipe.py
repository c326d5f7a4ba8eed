"""Build recipes: a YAML file mapped onto frozen dataclasses, validated when loaded.

A recipe names the sources of a training set, where they are, which of their
native splits to take and under which output split, the filters to run and
the seed. Everything is checked on load: an unknown key, reader, split,
filter or filter parameter is a :class:`~schemas.errors.RecipeError` naming
the recipe file and the key (``sources[2].splits``). Defaults live here, in
the dataclasses. The full reference is ``docs/assemble.md``::

    name: belebele-train
    seed: 0                       # default 0
    language: eng_Latn            # default eng_Latn
    max_sentences: 25             # default for the too_many_sentences filter
    outputs: {formats: [parquet, jsonl, tsv]}   # parquet is always written
    license_override: {terms: "...", reason: "..."}   # optional
    sources:
      - name: RACE                # unique; the `dataset` column
        reader: race              # a name in builder.readers.READERS
        path: ../data/race        # relative to this file
        splits: {train: train, dev: dev}   # native split -> output split
        filters: [fill_in_blank, {too_many_sentences: {max_sentences: 25}}]
        options: {}               # reader options
        license: RACE-research    # optional; default: the reader's default_license

>>> r = recipe_from_dict({"name": "demo", "sources": [{"name": "RACE", "reader": "race", "path": "race",
...                       "splits": {"train": "train"}, "filters": ["fill_in_blank"]}]})
>>> r.seed, r.sources[0].splits["train"], r.sources[0].filters[0].name
(0, 'train', 'fill_in_blank')
"""
from __future__ import annotations

import inspect
import re
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Mapping

from schemas.errors import RecipeError, SchemaError
from schemas.codes import validate_variant_code
from schemas.io import read_yaml, require_path
from schemas.licensing import LicenseOverride
from schemas.validate import Checker

from .filters.too_many_sentences import DEFAULT_MAX_SENTENCES

FORMATS = ("parquet", "jsonl", "tsv")
_SPLIT_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*\Z")  # \Z: "$" lets "train\n" through
_RESERVED = {"dropped", "manifest"}


@dataclass(frozen=True)
class FilterSpec:
    """One filter of a source: its registered name and parameters."""

    name: str
    params: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "params": dict(self.params)}


@dataclass(frozen=True)
class SourceSpec:
    """One source corpus of a recipe.

    ``path`` is resolved against the recipe's folder; ``path_text`` is the
    path as written (what the manifest records, so it does not depend on
    where the recipe was checked out).
    """

    name: str
    reader: str
    path: Path
    path_text: str
    splits: Mapping[str, str]
    filters: tuple[FilterSpec, ...] = ()
    options: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    license: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "reader": self.reader, "path": self.path_text, "splits": dict(self.splits),
                "filters": [f.to_dict() for f in self.filters], "options": dict(self.options),
                "license": self.license}


@dataclass(frozen=True)
class Recipe:
    """A whole recipe. ``file`` is where it was loaded from (None when built in code)."""

    name: str
    sources: tuple[SourceSpec, ...]
    seed: int = 0
    language: str = "eng_Latn"
    max_sentences: int = DEFAULT_MAX_SENTENCES
    formats: tuple[str, ...] = ("parquet",)
    license_override: LicenseOverride | None = None
    description: str = ""
    file: Path | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "seed": self.seed, "language": self.language,
                "max_sentences": self.max_sentences, "formats": list(self.formats),
                "description": self.description,
                "license_override": self.license_override.to_dict() if self.license_override else None,
                "sources": [s.to_dict() for s in self.sources]}


_TOP_KEYS = {"name": True, "sources": True, "seed": False, "language": False, "max_sentences": False,
             "outputs": False, "license_override": False, "description": False}
_SOURCE_KEYS = {"name": True, "reader": True, "path": True, "splits": True, "filters": False,
                "options": False, "license": False}


def load_recipe(path: str | Path) -> Recipe:
    """Read and validate a recipe file.

    Raises
    ------
    SourceNotFoundError
        The file does not exist.
    RecipeError
        Malformed YAML, an unknown or missing key, a bad value, an unknown
        reader, split or filter; the message names the file and the key.
    """
    path = require_path(path, what="recipe file", kind="file")
    data = read_yaml(path)
    return recipe_from_dict(data, file=path)


def recipe_from_dict(data: Any, *, file: Path | None = None) -> Recipe:
    """Validate a parsed recipe mapping; relative source paths resolve against ``file``'s folder."""
    from .filters import FILTERS

    chk = Checker(file)
    chk.keys("", data, _TOP_KEYS)
    name = chk.name("name", data["name"], "recipe name")
    seed = chk.integer("seed", data.get("seed", 0), 0)
    language = data.get("language", "eng_Latn")
    if not isinstance(language, str):
        chk.fail("language", f"expected a FLORES-200 code like 'eng_Latn', found {language!r}")
    try:  # a known language and script, as every code (nqo_Nkko is refused with nqo_Nkoo suggested)
        validate_variant_code(language)
    except SchemaError as err:
        chk.fail("language", err.message)
    max_sentences = chk.integer("max_sentences", data.get("max_sentences", DEFAULT_MAX_SENTENCES), 1)
    outputs = chk.mapping("outputs", data.get("outputs"))
    chk.keys("outputs", outputs, {"formats": False})
    formats = outputs.get("formats", ["parquet"])
    if not isinstance(formats, list) or any(f not in FORMATS for f in formats):
        chk.fail("outputs.formats", f"expected a list drawn from {', '.join(FORMATS)}, found {formats!r}")
    formats = tuple(f for f in FORMATS if f == "parquet" or f in formats)
    override = LicenseOverride.from_dict(data.get("license_override"), file=file, error=RecipeError)
    description = data.get("description", "") or ""
    if not isinstance(description, str):
        chk.fail("description", f"expected text, found {description!r}")
    raw_sources = data["sources"]
    if not isinstance(raw_sources, list) or not raw_sources:
        chk.fail("sources", f"expected a non-empty list of sources, found {raw_sources!r}")
    base = file.parent if file is not None else Path.cwd()
    sources, names = [], set()
    for i, raw in enumerate(raw_sources):
        source = _source(chk, f"sources[{i}]", raw, base, max_sentences, FILTERS)
        if source.name in names:
            chk.fail(f"sources[{i}].name", f"duplicate source name {source.name!r}; names must be unique")
        names.add(source.name)
        sources.append(source)
    return Recipe(name=name, sources=tuple(sources), seed=seed, language=language, max_sentences=max_sentences,
                  formats=formats, license_override=override, description=description, file=file)


def _source(chk: Checker, where: str, raw: Any, base: Path, max_sentences: int, filters) -> SourceSpec:
    from .readers import READERS

    chk.keys(where, raw, _SOURCE_KEYS)
    name = chk.text(f"{where}.name", raw["name"])
    reader = chk.text(f"{where}.reader", raw["reader"])
    if reader not in READERS:
        chk.fail(f"{where}.reader", f"unknown reader {reader!r}; known: {', '.join(sorted(READERS))}")
    cls = READERS[reader]
    path_text = chk.text(f"{where}.path", raw["path"])
    splits = chk.mapping(f"{where}.splits", raw["splits"])
    if not splits:
        chk.fail(f"{where}.splits", "expected at least one 'native_split: output_split' pair")
    known = tuple(getattr(cls, "SPLITS", ()) or ())
    rejected = dict(getattr(cls, "REJECTED_SPLITS", {}) or {})
    for native, out in splits.items():
        key = f"{where}.splits.{native}"
        if not isinstance(native, str) or (known and native not in known) or native in rejected:
            why = f" ({rejected[native]})" if native in rejected else ""
            chk.fail(key, f"{reader} has no readable split {native!r}{why}; allowed: {', '.join(known) or 'any'}")
        if not isinstance(out, str) or not _SPLIT_NAME.match(out) or out in _RESERVED:
            chk.fail(key, f"expected an output split name such as 'train' or 'dev', found {out!r}")
    options = chk.mapping(f"{where}.options", raw.get("options"))
    _check_options(chk, f"{where}.options", cls, options)
    license_ = raw.get("license")
    if license_ is not None:
        chk.text(f"{where}.license", license_)
    elif not (options.get("license") or getattr(cls, "default_license", "")):
        chk.fail(f"{where}.license", f"reader {reader!r} has no default license; name one")
    specs = []
    raw_filters = raw.get("filters") or []
    if not isinstance(raw_filters, list):
        chk.fail(f"{where}.filters", f"expected a list of filter names, found {raw_filters!r}")
    for j, item in enumerate(raw_filters):
        key = f"{where}.filters[{j}]"
        if isinstance(item, str):
            fname, params = item, {}
        elif isinstance(item, Mapping) and len(item) == 1:
            fname, params = next(iter(item.items()))
            params = chk.mapping(f"{key}.{fname}", params)
        else:
            chk.fail(key, f"expected a filter name or {{name: {{param: value}}}}, found {item!r}")
        if fname not in filters:
            chk.fail(key, f"unknown filter {fname!r}; known: {', '.join(sorted(filters))}")
        if fname == "too_many_sentences":
            params = {"max_sentences": max_sentences, **params}
        try:
            filters[fname](**params)  # validates the parameters
        except RecipeError as err:
            chk.fail(key, err.message)
        specs.append(FilterSpec(fname, MappingProxyType(dict(params))))
    return SourceSpec(name=name, reader=reader, path=(base / path_text), path_text=path_text,
                      splits=MappingProxyType(dict(splits)), filters=tuple(specs),
                      options=MappingProxyType(dict(options)), license=license_)


def _check_options(chk: Checker, key: str, cls, options: Mapping) -> None:
    declared = getattr(cls, "OPTIONS", None)
    if declared is not None:
        allowed = {"license", *declared}
    else:
        sig = inspect.signature(cls.__init__)
        if any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values()):
            return
        allowed = {n for n in sig.parameters if n not in ("self", "root", "splits", "on_error")}
    for opt in options:
        if opt not in allowed:
            chk.fail(f"{key}.{opt}", f"unknown option {opt!r} for reader {cls.name!r}; "
                     f"allowed: {', '.join(sorted(allowed)) or 'none'}")
