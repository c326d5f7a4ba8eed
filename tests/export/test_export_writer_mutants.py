"""Two small decisions of the export writer, pinned case by case (issue 27's mutation run).

``is_export`` tells an earlier export (re-exported, its card kept) from any other folder with a
manifest.json; ``default_pretty_name`` titles a card nobody named. The export tests go through both with
a well-formed manifest and one or two sources; these add the edges.
"""
from __future__ import annotations

import json
from types import SimpleNamespace as NS

from builder.export.writer import default_pretty_name, is_export


def test_only_a_manifest_object_naming_the_toolkit_makes_an_earlier_export(tmp_path):
    def folder(name, manifest):
        (tmp_path / name).mkdir()
        (tmp_path / name / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
        return tmp_path / name

    assert is_export(folder("ours", {"generator": "mc-dataset-builder 0.1.0"}))
    assert not is_export(folder("list", [{"generator": "mc-dataset-builder 0.1.0"}]))  # JSON, not an object
    assert not is_export(folder("other", {"generator": "datasets"}))
    assert not is_export(folder("unnamed", {"files": {}}))
    assert not is_export(tmp_path / "nothing-here")


def _audit(sources, variants):
    return NS(overall=NS(sources=[NS(name=s) for s in sources]), dataset=NS(variants=variants))


def test_the_default_title_lists_up_to_three_sources_and_counts_the_variants():
    assert default_pretty_name(_audit(["SIB-200"], ["eng_Latn"]), None) == "SIB-200 (1 language variant)"
    assert default_pretty_name(_audit(["RACE", "SciQ", "RACE"], ["a", "b"]), None) == (
        "RACE, SciQ (2 language variants)")
    assert default_pretty_name(_audit(["RACE", "SciQ", "MCTest"], ["a"] * 3), None) == (
        "RACE, SciQ, MCTest (3 language variants)")
    assert default_pretty_name(_audit(["RACE", "SciQ", "MCTest", "ReClor"], ["a"]), None) is None
    assert default_pretty_name(_audit([], ["a"]), None) is None
    assert default_pretty_name(_audit(["RACE"], ["a"]), "my-org/race-plus") == "race-plus"
