"""Issue 28.8: ``romanize.from`` takes a list of codes; each becomes one romanize stage, checked up front
like a single code (script and scheme per code, the key path naming the list item). And 28.9 and 28.11,
which live in the same plan: a recipe without ``baselines:`` says so; ``--from`` is one rule."""
from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from builder.release.plan import make_plan
from builder.release.recipe import RomanizeEntry, release_from_dict
from schemas.errors import RecipeError, ToolkitError

ROOT = Path(__file__).resolve().parents[2]
MINI = ROOT / "tests" / "data" / "release" / "mini-release.yaml"


@pytest.fixture(scope="module")
def mini() -> dict:
    data = yaml.safe_load(MINI.read_text(encoding="utf-8"))
    data["variants"][2]["only"] = ["hin_Deva", "ben_Beng"]
    return data


def _romanized(data: dict, entry: dict) -> dict:
    out = copy.deepcopy(data)
    out["variants"].append({"romanize": entry})
    return out


def test_a_list_makes_one_entry_per_code(mini):
    recipe = release_from_dict(_romanized(mini, {"from": ["hin_Deva", "ben_Beng"], "scheme": "iast",
                                                 "allow_leftover": True}), file=MINI)
    entries = [e for e in recipe.variants if isinstance(e, RomanizeEntry)]
    assert [(e.source, e.scheme, e.allow_leftover, e.position) for e in entries] == [
        ("hin_Deva", "iast", True, 0), ("ben_Beng", "iast", True, 1)]
    assert [e.from_key for e in entries] == ["variants[3].romanize.from[0]", "variants[3].romanize.from[1]"]


def test_a_single_code_is_as_before(mini):
    recipe = release_from_dict(_romanized(mini, {"from": "hin_Deva"}), file=MINI)
    entry = recipe.variants[-1]
    assert entry.source == "hin_Deva" and entry.position is None and entry.from_key == "variants[3].romanize.from"


@pytest.mark.parametrize("entry, field, message", [
    ({"from": ["hin_Deva", "nqo_Nkoo"]}, "variants[3].romanize.from[1]", "unknown script to romanize 'Nkoo'"),
    ({"from": ["hin_Deva", "bad"]}, "variants[3].romanize.from[1]", ""),
    ({"from": ["hin_Deva", "hin_Deva"]}, "variants[3].romanize.from[1]", "hin_Deva is listed twice"),
    ({"from": []}, "variants[3].romanize.from", "non-empty list"),
    ({"from": ["hin_Deva", 3]}, "variants[3].romanize.from", "list of names"),
    # the scheme is checked for every code's script (Tibetan has only uroman)
    ({"from": ["hin_Deva", "bod_Tibt"], "scheme": "iso"}, "variants[3].romanize.scheme",
     "unknown scheme 'iso' for script Tibt"),
])
def test_every_code_is_checked_up_front(mini, entry, field, message):
    with pytest.raises(ToolkitError) as info:
        release_from_dict(_romanized(mini, entry), file=MINI)
    assert info.value.field == field and message in info.value.message, str(info.value)


def test_each_code_becomes_one_stage(mini, tmp_path):
    recipe = release_from_dict(_romanized(mini, {"from": ["hin_Deva", "ben_Beng"]}), file=MINI)
    plan = make_plan(recipe, tmp_path / "out", jobs=1)
    names = [s.name for s in plan.stages]
    assert "romanize-hin_Latn" in names and "romanize-ben_Latn" in names
    assert plan.variants["ben_Latn"].origin == "romanized from ben_Beng"


def test_a_code_no_earlier_entry_makes_names_the_list_item(mini, tmp_path):
    recipe = release_from_dict(_romanized(mini, {"from": ["hin_Deva", "mar_Deva"]}), file=MINI)
    with pytest.raises(RecipeError) as info:
        make_plan(recipe, tmp_path / "out", jobs=1)
    assert info.value.field == "variants[3].romanize.from[1]"


# -- 28.9: no baselines, said once ------------------------------------------------------------------------------

def test_a_recipe_without_baselines_says_they_are_not_run(mini, tmp_path, capsys):
    from builder.release.plan import BASELINES_NOT_RUN

    data = copy.deepcopy(mini)
    del data["baselines"]
    plan = make_plan(release_from_dict(data, file=MINI), tmp_path / "out", jobs=1)
    assert "baselines" not in [s.name for s in plan.stages]
    assert plan.not_run == {"baselines": BASELINES_NOT_RUN}
    assert BASELINES_NOT_RUN == "not run (no `baselines:` in the recipe)"
    lines = [line for line in capsys.readouterr().err.splitlines() if "baselines" in line]
    assert lines == [f"release: baselines: {BASELINES_NOT_RUN}"]
    quiet = make_plan(release_from_dict(data, file=MINI), tmp_path / "out2", jobs=1, quiet=True)
    assert quiet.not_run and "baselines" not in capsys.readouterr().err


def test_with_baselines_nothing_is_said(mini, tmp_path, capsys):
    plan = make_plan(release_from_dict(mini, file=MINI), tmp_path / "out", jobs=1)
    assert plan.not_run == {} and "not run" not in capsys.readouterr().err


# -- 28.11: --from NAME is the first matching stage and every later one ------------------------------------------

def test_from_a_prefix_starts_at_the_first_matching_stage(mini, tmp_path):
    from builder.release.pipeline import first_forced

    recipe = release_from_dict(_romanized(mini, {"from": ["hin_Deva", "ben_Beng"]}), file=MINI)
    plan = make_plan(recipe, tmp_path / "out", jobs=1)
    names = [s.name for s in plan.stages]
    assert names[first_forced(plan, "romanize")] == "romanize-hin_Latn"  # the first; the later ones follow
    assert first_forced(plan, "romanize") < names.index("romanize-ben_Latn")


def test_the_help_says_what_the_code_does():
    from click.testing import CliRunner

    from builder.cli.main import cli

    text = " ".join(CliRunner().invoke(cli, ["release", "--help"]).output.split())
    assert "the first extend-* stage in plan order and every stage after it" in text
    assert "for every extend-* stage" not in text
