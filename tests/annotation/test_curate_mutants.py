"""``annotation/curate.py`` where mutation showed the tests free (issue 27): a single label given as a
string, labels and merge targets that are not labels, the recipe file refusals, the order of the label
counts, and what the merge step and the log record."""
from __future__ import annotations

import pytest

from annotation.curate import curate, load_recipe, parse_recipe
from annotation.labelled import LabelledItem
from schemas.errors import RecipeError, SourceNotFoundError, ToolkitError


def test_a_single_label_may_be_given_as_a_string():
    (step,) = parse_recipe({"steps": [{"drop_labels": "Uncategorized"}]})
    assert step.params == ("Uncategorized",)


@pytest.mark.parametrize("value, found", [([""], "['']"), ([3], "[3]"), (["a", None], "['a', None]")])
def test_labels_must_be_non_empty_strings(value, found):
    with pytest.raises(RecipeError) as err:
        parse_recipe({"steps": [{"keep_labels": value}]}, file="r.yaml")
    assert str(err.value) == f"r.yaml, field steps[0].keep_labels: expected a non-empty list of labels, found {found}"


@pytest.mark.parametrize("target", [1, ""])
def test_a_merge_target_must_be_a_label(target):
    with pytest.raises(RecipeError) as err:
        parse_recipe({"steps": [{"merge": {target: ["a"]}}]}, file="r.yaml")
    assert str(err.value) == f"r.yaml, field steps[0].merge: expected a label as the merge target, found {target!r}"


def test_the_recipe_file_must_exist_and_be_a_file(tmp_path):
    with pytest.raises(SourceNotFoundError) as err:
        load_recipe(tmp_path / "missing.yaml")
    assert err.value.message == "curation recipe not found"
    with pytest.raises(ToolkitError) as err:
        load_recipe(tmp_path)
    assert err.value.message == "expected a curation recipe, found a folder"


def _items(labels):
    return [LabelledItem(str(k), lab, "") for k, lab in enumerate(labels)]


def test_label_counts_are_by_count_then_by_label():
    _, log = curate(_items("cbbaad"), [])
    assert list(log[0]["labels_before"].items()) == [("a", 2), ("b", 2), ("c", 1), ("d", 1)]


def test_the_merge_step_logs_each_source_count_and_the_sources_not_present():
    steps = parse_recipe({"steps": [{"merge": {"ab": ["a", "b", "zz"], "c": ["c"]}}]})
    kept, log = curate(_items("aabc"), steps)
    assert [i.label for i in kept] == ["ab", "ab", "ab", "c"]
    entry = log[1]
    assert entry["params"] == {"ab": ["a", "b", "zz"], "c": ["c"]}
    assert entry["merged"] == {"ab": {"a": 2, "b": 1, "zz": 0}, "c": {"c": 1}}
    assert entry["not_present"] == ["zz"]
