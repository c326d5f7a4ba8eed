"""Recipes load into frozen dataclasses; every mistake names the recipe file and the key."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from builder.recipe import load_recipe
from schemas.errors import RecipeError, SourceNotFoundError

ROOT = Path(__file__).parents[2]
EXAMPLE = ROOT / "examples" / "belebele-train.yaml"

GOOD = """\
name: demo
sources:
  - name: RACE
    reader: race
    path: race
    splits: {train: train, dev: dev}
    filters: [fill_in_blank, {too_many_sentences: {max_sentences: 30}}, too_many_sentences]
"""


def write(tmp_path, text):
    path = tmp_path / "recipe.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_example_recipe_follows_belebele_code():
    r = load_recipe(EXAMPLE)
    assert r.seed == 0 and r.language == "eng_Latn" and r.max_sentences == 25
    assert r.formats == ("parquet", "jsonl", "tsv")
    by_name = {s.name: s for s in r.sources}
    for s in r.sources:  # never test
        assert "test" not in s.splits and set(s.splits.values()) <= {"train", "dev"}
        assert s.path.is_dir(), s.path
    assert dict(by_name["MCScript"].splits) == {"train": "train"}  # code: MCScript2.0 train only
    assert dict(by_name["SciQ"].splits) == {"train": "train", "valid": "dev"}
    for name in ("RACE", "SciQ"):
        assert "fill_in_blank" in [f.name for f in by_name[name].filters]
    assert "complete_options" in [f.name for f in by_name["MCScript"].filters]
    assert "sample_four_options" in [f.name for f in by_name["MultiRC"].filters]
    assert "too_many_sentences" not in [f.name for f in by_name["ReClor"].filters]
    assert r.license_override is not None and "non-commercial" in r.license_override.terms.lower()
    assert r.license_override.reason.strip()


def test_recipe_is_frozen_and_paths_resolve_against_the_file(tmp_path):
    r = load_recipe(write(tmp_path, GOOD))
    src = r.sources[0]
    assert src.path == tmp_path / "race" and src.path_text == "race"
    assert [(f.name, dict(f.params)) for f in src.filters] == [
        ("fill_in_blank", {}), ("too_many_sentences", {"max_sentences": 30}),
        ("too_many_sentences", {"max_sentences": 25})]
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.seed = 3
    with pytest.raises(TypeError):
        src.splits["test"] = "test"
    assert r.to_dict()["sources"][0]["path"] == "race"


@pytest.mark.parametrize("edit, key, words", [
    (("name: demo", "name: demo\ncolour: red"), "colour", "unknown key 'colour'"),
    (("    reader: race", "    reader: squad"), "sources[0].reader", "unknown reader 'squad'; known:"),
    (("[fill_in_blank,", "[fill_in_gaps,"), "sources[0].filters[0]", "unknown filter 'fill_in_gaps'"),
    (("{max_sentences: 30}", "{max_sents: 30}"), "sources[0].filters[1]", "no parameter 'max_sents'"),
    (("{train: train, dev: dev}", "{train: train, test2: dev}"), "sources[0].splits.test2",
     "race has no readable split 'test2'"),
    (("{train: train, dev: dev}", "{train: manifest}"), "sources[0].splits.train", "output split name"),
    (("name: demo", "name: demo\nseed: -1"), "seed", "integer >= 0"),
    (("name: demo", "name: demo\nlanguage: english"), "language", "FLORES-200"),
    (("name: demo", "name: demo\noutputs: {formats: [csv]}"), "outputs.formats", "parquet, jsonl, tsv"),
    (("name: demo", "name: demo\nlicense_override: {terms: x}"), "license_override.reason", "required"),
    (("    path: race\n", "    path: race\n    optoins: {}\n"), "sources[0].optoins", "unknown key 'optoins'"),
    (("    path: race\n", "    path: race\n    options: {layout: x}\n"), "sources[0].options.layout",
     "unknown option 'layout' for reader 'race'"),
    (("    path: race\n", ""), "sources[0].path", "required key is missing"),
])
def test_bad_recipes_name_file_and_key(tmp_path, edit, key, words):
    path = write(tmp_path, GOOD.replace(*edit, 1))
    with pytest.raises(RecipeError) as info:
        load_recipe(path)
    message = str(info.value)
    assert message.startswith(f"{path}, field {key}: "), message
    assert words in message
    assert "\n" not in message


@pytest.mark.parametrize("code, words", [
    ("nqo_Nkko", "unknown script code 'Nkko' in 'nqo_Nkko'; nearest valid codes: nqo_Nkoo"),  # script typo
    ("xyz_Latn", "unknown language code 'xyz' in 'xyz_Latn'; nearest valid codes: "),
    ("hin_deva", "found 'hin_deva'; nearest valid codes: hin_Deva"),  # shape slip
])
def test_recipe_language_must_be_a_valid_variant_code(tmp_path, code, words):
    path = write(tmp_path, GOOD.replace("name: demo", f"name: demo\nlanguage: {code}", 1))
    with pytest.raises(RecipeError) as info:
        load_recipe(path)
    message = str(info.value)
    assert message.startswith(f"{path}, field language: "), message
    assert words in message and "\n" not in message
    assert load_recipe(write(tmp_path, GOOD.replace("name: demo", "name: demo\nlanguage: nqo_Nkoo"))).language \
        == "nqo_Nkoo"


def test_duplicate_source_names(tmp_path):
    text = GOOD + GOOD.split("sources:\n", 1)[1]
    with pytest.raises(RecipeError, match=r"field sources\[1\]\.name: duplicate source name 'RACE'"):
        load_recipe(write(tmp_path, text))


def test_reclor_test_split_is_refused_with_its_reason(tmp_path):
    text = GOOD.replace("reader: race", "reader: reclor").replace("{train: train, dev: dev}", "{test: dev}")
    with pytest.raises(RecipeError, match=r"sources\[0\]\.splits\.test: reclor has no readable split 'test' \("):
        load_recipe(write(tmp_path, text))


def test_malformed_yaml_and_missing_file(tmp_path):
    with pytest.raises(RecipeError, match=r"recipe\.yaml, line \d+: malformed YAML"):
        load_recipe(write(tmp_path, "name: [unclosed\n"))
    with pytest.raises(SourceNotFoundError, match="recipe file not found"):
        load_recipe(tmp_path / "nope.yaml")
    with pytest.raises(RecipeError, match=r"field \(top level\): expected a mapping"):
        load_recipe(write(tmp_path, "- just\n- a list\n"))
