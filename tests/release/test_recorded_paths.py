"""What a release records of its inputs does not depend on where the data or the release lie (issue 28): a
romanized variant's ``variant.json`` names its source folder relative to the recipe's folder, as each
stage's ``stage.json`` names its inputs, never by an absolute path."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from builder.cli.main import cli

DATA = Path(__file__).parents[1] / "data"


def _walk_strings(obj):
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for v in obj.values():
            yield from _walk_strings(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _walk_strings(v)


def test_a_romanized_variant_records_its_source_relative_to_the_recipe(tmp_path):
    data = tmp_path / "data"
    shutil.copytree(DATA / "sib200" / "annotated" / "hin_Deva", data / "hin_Deva")
    recipes = tmp_path / "recipes"
    recipes.mkdir()
    recipe = recipes / "release.yaml"
    recipe.write_text(json.dumps({"version": 1, "name": "paths", "license": "CC-BY-SA-4.0", "pivot": "hin_Deva",
                                  "variants": [{"dataset": "../data"}, {"romanize": {"from": "hin_Deva"}}],
                                  "qc": {"enabled": False}}))
    out = tmp_path / "elsewhere" / "release"
    result = CliRunner().invoke(cli, ["-q", "release", str(recipe), "--out", str(out)])
    assert result.exit_code == 0, result.output
    info = json.loads(next(out.glob("stages/romanize-hin_Latn/output/hin_Latn/variant.json")).read_text())
    recorded = [s for s in _walk_strings(info) if "hin_Deva" in s and "/" in s]
    assert recorded, info
    for path in recorded:
        assert not Path(path).is_absolute(), path
        assert (recipes / path).resolve() == (data / "hin_Deva").resolve() or (out / path).exists(), path
