"""Recipe validation of the sources and ``load_recipe``, exactly (issue 17, mutation testing phase 2).

``tests/assemble/test_assemble_recipe.py`` checks that each mistake names the
file and the key; these tests pin the whole message and key of every refusal
of ``_source``, ``schemas.validate.Checker``, ``_check_options`` and ``load_recipe``, what a
valid source becomes (``SourceSpec`` and ``to_dict``), and the defaults of a
source's license and filters.
"""
from __future__ import annotations

from pathlib import Path
from types import MappingProxyType

import pytest

from schemas.io import WrongPathKind

from builder.filters import FILTERS
from builder.readers import READERS
from builder.recipe import FilterSpec, Recipe, SourceSpec, _check_options, _source, load_recipe, \
    recipe_from_dict
from schemas.errors import RecipeError, SourceNotFoundError
from schemas.validate import Checker

BASE = Path("/recipes")
FILE = Path("/recipes/r.yaml")


def _src(**over):
    raw = {"name": "RACE", "reader": "race", "path": "race", "splits": {"train": "train"}}
    raw.update(over)
    return {k: v for k, v in raw.items() if v is not ...}


def _refusal(raw, max_sentences=25) -> RecipeError:
    with pytest.raises(RecipeError) as info:
        _source(Checker(FILE), "sources[2]", raw, BASE, max_sentences, FILTERS)
    return info.value


def _readers(names):
    return ", ".join(sorted(names))


@pytest.mark.parametrize("raw,key,message", [
    ("x", "sources[2]", "expected a mapping, found str"),
    (_src(colour="red"), "sources[2].colour",
     "unknown key 'colour'; allowed: name, reader, path, splits, filters, options, license"),
    (_src(name=...), "sources[2].name", "required key is missing"),
    (_src(splits=...), "sources[2].splits", "required key is missing"),
    (_src(name="  "), "sources[2].name", "expected non-empty text, found '  '"),
    (_src(name=3), "sources[2].name", "expected non-empty text, found 3"),
    (_src(reader=3), "sources[2].reader", "expected non-empty text, found 3"),
    (_src(reader="squad"), "sources[2].reader", f"unknown reader 'squad'; known: {_readers(READERS)}"),
    (_src(path=""), "sources[2].path", "expected non-empty text, found ''"),
    (_src(splits=None), "sources[2].splits", "expected at least one 'native_split: output_split' pair"),
    (_src(splits={}), "sources[2].splits", "expected at least one 'native_split: output_split' pair"),
    (_src(splits=["train"]), "sources[2].splits", "expected a mapping, found list ['train']"),
    (_src(splits={"valid": "dev"}), "sources[2].splits.valid",
     "race has no readable split 'valid'; allowed: train, dev, test"),
    (_src(splits={1: "dev"}), "sources[2].splits.1", "race has no readable split 1; allowed: train, dev, test"),
    (_src(reader="reclor", splits={"test": "dev"}), "sources[2].splits.test",
     "reclor has no readable split 'test' (the ReClor test split has no answer labels); allowed: train, val"),
    (_src(splits={"train": "dropped"}), "sources[2].splits.train",
     "expected an output split name such as 'train' or 'dev', found 'dropped'"),
    (_src(splits={"train": "-x"}), "sources[2].splits.train",
     "expected an output split name such as 'train' or 'dev', found '-x'"),
    (_src(splits={"train": 3}), "sources[2].splits.train",
     "expected an output split name such as 'train' or 'dev', found 3"),
    (_src(options=[1]), "sources[2].options", "expected a mapping, found list [1]"),
    (_src(options={"layout": "x"}), "sources[2].options.layout",
     "unknown option 'layout' for reader 'race'; allowed: license"),
    (_src(reader="multirc", splits={"train": "train"}, options={"x": 1}), "sources[2].options.x",
     "unknown option 'x' for reader 'multirc'; allowed: layout, license"),
    (_src(license=""), "sources[2].license", "expected non-empty text, found ''"),
    (_src(filters="fill_in_blank"), "sources[2].filters", "expected a list of filter names, found 'fill_in_blank'"),
    (_src(filters=["fill_in_blank", 3]), "sources[2].filters[1]",
     "expected a filter name or {name: {param: value}}, found 3"),
    (_src(filters=[{"a": {}, "b": {}}]), "sources[2].filters[0]",
     "expected a filter name or {name: {param: value}}, found {'a': {}, 'b': {}}"),
    (_src(filters=["nope"]), "sources[2].filters[0]", f"unknown filter 'nope'; known: {_readers(FILTERS)}"),
    (_src(filters=[{"too_many_sentences": [1]}]), "sources[2].filters[0].too_many_sentences",
     "expected a mapping, found list [1]"),
])
def test_each_source_refusal_names_its_key_exactly(raw, key, message):
    err = _refusal(raw)
    assert (err.field, err.message, err.file) == (key, message, str(FILE))


def test_a_filter_parameter_error_names_the_filter_entry():
    err = _refusal(_src(filters=["fill_in_blank", {"too_many_sentences": {"max_sents": 3}}]))
    assert err.field == "sources[2].filters[1]" and "max_sents" in err.message
    err = _refusal(_src(filters=["too_many_sentences"]), max_sentences=0)  # the recipe's default is checked too
    assert err.field == "sources[2].filters[0]"


def test_a_valid_source_exactly():
    s = _source(Checker(FILE), "sources[0]", _src(
        splits={"train": "train", "dev": "dev.v2"}, filters=["fill_in_blank", "too_many_sentences",
                                                            {"too_many_sentences": {"max_sentences": 9}},
                                                            {"fill_in_blank": None}],
        options={"license": "X"}, license="RACE-x"), BASE, 30, FILTERS)
    assert (s.name, s.reader, s.path, s.path_text, s.license) == ("RACE", "race", BASE / "race", "race", "RACE-x")
    assert dict(s.splits) == {"train": "train", "dev": "dev.v2"} and isinstance(s.splits, MappingProxyType)
    assert [(f.name, dict(f.params)) for f in s.filters] == [
        ("fill_in_blank", {}), ("too_many_sentences", {"max_sentences": 30}),
        ("too_many_sentences", {"max_sentences": 9}), ("fill_in_blank", {})]
    assert dict(s.options) == {"license": "X"} and isinstance(s.options, MappingProxyType)
    assert s.to_dict() == {"name": "RACE", "reader": "race", "path": "race",
                           "splits": {"train": "train", "dev": "dev.v2"},
                           "filters": [{"name": "fill_in_blank", "params": {}},
                                       {"name": "too_many_sentences", "params": {"max_sentences": 30}},
                                       {"name": "too_many_sentences", "params": {"max_sentences": 9}},
                                       {"name": "fill_in_blank", "params": {}}],
                           "options": {"license": "X"}, "license": "RACE-x"}


class _Unlicensed:
    """A reader with no default license and no split list (any native split name is read)."""

    name = "unlicensed"
    OPTIONS: dict = {}
    default_license = ""


def test_license_defaults_and_filters_none(monkeypatch):
    s = _source(Checker(None), "s", _src(filters=None, options=None), BASE, 25, FILTERS)
    assert s.license is None and s.filters == () and dict(s.options) == {}
    monkeypatch.setitem(READERS, "unlicensed", _Unlicensed)
    err = _refusal(_src(reader="unlicensed", splits={"any": "train"}))
    assert (err.field, err.message) == ("sources[2].license", "reader 'unlicensed' has no default license; name one")
    err = _refusal(_src(reader="unlicensed", splits={"any": "train"}, options={"license": ""}))
    assert err.field == "sources[2].license"
    # a reader without a default license is fine when the source or its options name one
    s = _source(Checker(None), "s", _src(reader="unlicensed", splits={"any": "train"}, options={"license": "MIT"}),
                BASE, 25, FILTERS)
    assert s.license is None and dict(s.options) == {"license": "MIT"}
    s = _source(Checker(None), "s", _src(reader="unlicensed", splits={"any": "train"}, license="MIT"), BASE, 25,
                FILTERS)
    assert s.license == "MIT"
    err = _refusal(_src(reader="unlicensed", splits={3: "train"}, license="MIT"))
    assert err.message == "unlicensed has no readable split 3; allowed: any"

    class NoLicenseAttribute:
        name = "bare"
        OPTIONS: dict = {}

    monkeypatch.setitem(READERS, "bare", NoLicenseAttribute)
    err = _refusal(_src(reader="bare", splits={"any": "train"}))
    assert (err.field, err.message) == ("sources[2].license", "reader 'bare' has no default license; name one")


def test_check_options_of_a_reader_without_declared_options():
    class Plain:
        name = "plain"

        def __init__(self, root, splits, on_error="raise", *, subset="a"):
            pass

    class Loose:
        name = "loose"

        def __init__(self, root, splits, **kwargs):
            pass

    chk = Checker(FILE)
    _check_options(chk, "k", Plain, {"subset": "b"})
    _check_options(chk, "k", Loose, {"anything": 1})
    with pytest.raises(RecipeError) as info:
        _check_options(chk, "k", Plain, {"root": "x"})
    assert (info.value.field, info.value.message) == ("k.root", "unknown option 'root' for reader 'plain'; "
                                                                "allowed: subset")

    class Bare:
        name = "bare"
        OPTIONS: dict = {}

    with pytest.raises(RecipeError) as info:
        _check_options(chk, "k", Bare, {"x": 1})
    assert info.value.message == "unknown option 'x' for reader 'bare'; allowed: license"

    class Fixed:
        name = "fixed"

        def __init__(self, root, splits, on_error="raise"):
            pass

    with pytest.raises(RecipeError) as info:
        _check_options(chk, "k", Fixed, {"x": 1})
    assert info.value.message == "unknown option 'x' for reader 'fixed'; allowed: none"


def test_the_checker_at_the_top_level():
    chk = Checker(None)
    with pytest.raises(RecipeError) as info:
        chk.keys("", {"a": 1, "zz": 2}, {"a": True, "b": False})
    assert (info.value.field, info.value.message, info.value.file) == ("zz", "unknown key 'zz'; allowed: a, b", None)
    with pytest.raises(RecipeError) as info:
        chk.keys("", {}, {"a": True, "b": False})
    assert (info.value.field, info.value.message) == ("a", "required key is missing")
    with pytest.raises(RecipeError) as info:
        chk.keys("", None, {"a": True})
    assert (info.value.field, info.value.message) == ("(top level)", "expected a mapping, found NoneType")
    assert chk.mapping("k", None) == {} and chk.mapping("k", {"a": 1}) == {"a": 1}
    assert chk.text("k", " x ") == " x "


def test_load_recipe_reads_the_file_and_names_bad_yaml(tmp_path):
    path = tmp_path / "r.yaml"
    path.write_text("name: demo\nsources:\n  - {name: A, reader: race, path: p, splits: {train: train}}\n",
                    encoding="utf-8")
    r = load_recipe(str(path))
    assert r.file == path and r.sources[0].path == tmp_path / "p"
    path.write_text("name: demo\nsources: [\n  - x\n", encoding="utf-8")
    with pytest.raises(RecipeError) as info:
        load_recipe(path)
    assert info.value.file == str(path) and info.value.record == "line 3"
    assert info.value.message.startswith("malformed YAML: ") and "\n" not in info.value.message
    # a character YAML refuses: its error has no line mark and no "problem"; the message is still one line
    path.write_text("name: a\x07b\n", encoding="utf-8")
    with pytest.raises(RecipeError) as info:
        load_recipe(path)
    assert info.value.record is None and info.value.message == (
        'malformed YAML: unacceptable character #x0007: special characters are not allowed   in "<unicode string>", '
        "position 7")
    with pytest.raises(WrongPathKind) as info:
        load_recipe(tmp_path)  # a folder is not a recipe file (exit 2, as for every path of the wrong kind)
    assert info.value.message == "expected a recipe file, found a folder" and info.value.file == str(tmp_path)
    assert int(info.value.exit_code) == 2
    with pytest.raises(SourceNotFoundError) as info:
        load_recipe(tmp_path / "missing.yaml")
    assert info.value.message == "recipe file not found"


def test_recipe_to_dict_exactly():
    r = recipe_from_dict({"name": "d", "seed": 3, "language": "hin_Deva", "max_sentences": 7, "description": "x",
                          "outputs": {"formats": ["tsv"]},
                          "sources": [{"name": "A", "reader": "race", "path": "p", "splits": {"train": "train"}}]},
                         file=FILE)
    assert r.to_dict() == {"name": "d", "seed": 3, "language": "hin_Deva", "max_sentences": 7,
                           "formats": ["parquet", "tsv"], "description": "x", "license_override": None,
                           "sources": [{"name": "A", "reader": "race", "path": "p", "splits": {"train": "train"},
                                        "filters": [], "options": {}, "license": None}]}
    assert r.sources[0].path == BASE / "p"
    with_override = recipe_from_dict({"name": "d", "license_override": {"terms": "CC BY-NC 4.0", "reason": "why"},
                                      "sources": [{"name": "A", "reader": "race", "path": "p",
                                                   "splits": {"train": "train"}}]})
    assert with_override.to_dict()["license_override"] == with_override.license_override.to_dict()
    assert with_override.to_dict()["license_override"]["terms"] == "CC BY-NC 4.0"
    assert FilterSpec("f").to_dict() == {"name": "f", "params": {}}
    assert isinstance(Recipe("n", ()).to_dict()["formats"], list)
    assert SourceSpec("n", "race", Path("p"), "p", {}).to_dict()["filters"] == []
