"""Label curation by recipe, and the SIB-200 curation reproduced on the real 14-label English data."""
from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from annotation.curate import curate, label_order, load_recipe, parse_recipe
from annotation.labelled import LabelledItem, read_labelled
from schemas.errors import RecipeError

ROOT = Path(__file__).parents[2]
SIB = ROOT / "tests" / "data" / "sib200"
RECIPE = ROOT / "examples" / "sib200-curation.yaml"

#: SIB-200's released 7-label English set (tests/data/sib200/eng, train+dev+test), per label.
PUBLISHED_7 = {"science/technology": 252, "travel": 198, "politics": 146, "sports": 122, "health": 110,
               "entertainment": 93, "geography": 83}


def test_sib200_curation_reproduced_on_real_14_label_data():
    items = read_labelled(SIB / "eng_14")  # train + dev + test concatenated
    assert len(items) == 1434
    kept, log = curate(items, load_recipe(RECIPE))
    got = Counter(i.label for i in kept)
    released = read_labelled(SIB / "eng")
    want = Counter(i.label for i in released)
    assert want == PUBLISHED_7
    # Per-label table (also in docs/annotate.md): reproduced count vs the released 7-label set.
    table = {lab: (got[lab], want[lab]) for lab in PUBLISHED_7}
    assert table == {lab: (n, n) for lab, n in PUBLISHED_7.items()}
    assert label_order(kept) == [line for line in (SIB / "eng" / "labels.txt").read_text().split("\n") if line]
    # Not only the counts: the same 1004 sentences carry the same labels.
    assert {i.item_id: i.label for i in kept} == {i.item_id: i.label for i in released}
    # Every step logged with counts before and after.
    steps = [(e["step"], e["items_before"], e["items_after"]) for e in log]
    assert steps == [("drop_unresolved", 1434, 1434), ("drop_labels", 1434, 1434), ("min_count", 1434, 1111),
                     ("merge", 1111, 1111), ("remove_labels", 1111, 1004)]
    assert log[1]["not_present"] == ["uncategorized"]  # eng_14 already excludes it
    assert log[2]["dropped_labels"] == {"business": 80, "crime": 72, "disasters": 73, "education": 52,
                                        "religion": 46}  # the paper's numbers, section 2.3
    assert log[3]["merged"] == {"science/technology": {"science": 138, "technology": 114}}
    assert log[4]["dropped_labels"] == {"nature": 107}


def test_unresolved_items_are_dropped_in_a_logged_step():
    items = [LabelledItem("1", "a", ""), LabelledItem("2", None, ""), LabelledItem("3", "b", "")]
    kept, log = curate(items, parse_recipe({"steps": [{"keep_labels": ["a"]}]}))
    assert [i.item_id for i in kept] == ["1"]
    assert log[0] == {"step": "drop_unresolved", "params": None, "items_before": 3, "items_after": 2,
                      "items_dropped": 1, "labels_before": {"a": 1, "b": 1}, "labels_after": {"a": 1, "b": 1},
                      "dropped_items": ["2"]}
    assert log[1]["dropped_labels"] == {"b": 1}


def test_drop_labels_drops_uncategorized_and_logs_it():
    items = [LabelledItem(str(k), lab, "") for k, lab in enumerate(["uncategorized", "sports", "uncategorized"])]
    kept, log = curate(items, parse_recipe({"steps": [{"drop_labels": ["uncategorized"]}]}))
    assert [i.item_id for i in kept] == ["1"]
    assert log[1]["dropped_labels"] == {"uncategorized": 2} and log[1]["items_dropped"] == 2


def test_min_count_is_at_or_below():
    items = [LabelledItem(str(k), lab, "") for k, lab in enumerate("aaabbc")]
    kept, _ = curate(items, parse_recipe({"steps": [{"min_count": 2}]}))
    assert Counter(i.label for i in kept) == {"a": 3}


@pytest.mark.parametrize("recipe, message", [
    ({"steps": [{"mrege": {"x": ["a"]}}]}, "r.yaml, field steps[0].mrege: unknown key 'mrege' (did you mean 'merge'?); "
                                           "allowed: drop_labels, keep_labels, merge, min_count, remove_labels"),
    ({"steps": [{"min_count": -1}]}, "r.yaml, field steps[0].min_count: expected an integer >= 0, found -1"),
    ({"steps": [{"min_count": 5}, {"drop_labels": []}]},
     "r.yaml, field steps[1].drop_labels: expected a non-empty list of labels, found []"),
    ({"steps": [{"merge": ["a", "b"]}]}, "field steps[0].merge: expected a mapping 'new label: [old labels]'"),
    ({"steps": [{"merge": {"st": []}}]}, "field steps[0].merge.st: expected a non-empty list of labels, found []"),
    ({"steps": [{"min_count": 1, "merge": {}}]}, "field steps[0]: expected a one-key mapping like 'min_count: 80'"),
    ({"step": []}, "r.yaml, field step: unknown key 'step' (did you mean 'steps'?); "
                   "allowed: name, version, description, steps"),
    ({"name": "x"}, "r.yaml, field steps: required key is missing"),
    ({"steps": {"min_count": 1}}, "r.yaml, field steps: expected a list of steps, found {'min_count': 1}"),
])
def test_recipe_errors_are_one_line(recipe, message):
    with pytest.raises(RecipeError) as err:
        parse_recipe(recipe, file="r.yaml")
    assert message in str(err.value) and "\n" not in str(err.value)


def test_malformed_yaml_names_the_line(tmp_path):
    p = tmp_path / "r.yaml"
    p.write_text("steps:\n  - min_count: 80\n  - merge: {a: [b\n", encoding="utf-8")
    with pytest.raises(RecipeError, match=r"r.yaml, line \d+: malformed YAML"):
        load_recipe(p)
