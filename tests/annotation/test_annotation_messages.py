"""The one-line errors of adjudication and curation, word for word (issue 27).

A mutation run left their wording, the file and the line they name free to change: the tests matched
the error class or a fragment. Each message here names the file (and the line or the recipe's field)
and says what to do.
"""
from __future__ import annotations

import pytest

from annotation.adjudicate import merge_sheet
from annotation.curate import Step, _dropped_all
from schemas.errors import AnnotationError


@pytest.mark.parametrize("text, message", [
    ('[{"a": 1},\n {"b": }]', "{p}, line 2: malformed JSON (Expecting value, column 8)"),
    ('{"a": 1}', "{p}: expected a Label Studio JSON export (a list of tasks)"),
])
def test_a_label_studio_sheet_that_is_not_a_list_of_tasks_is_one_line_naming_the_file(tmp_path, text, message):
    p = tmp_path / "sheet.json"
    p.write_text(text, encoding="utf-8")
    with pytest.raises(AnnotationError) as err:
        merge_sheet([], p, ["sports"])
    assert str(err.value) == message.format(p=p)


SEVEN = dict(zip("abcdefg", range(7, 0, -1)))


@pytest.mark.parametrize("step, before, n, message", [
    (Step("drop_unresolved", True), {"a": 1}, 3,
     "every item is unresolved (3); adjudicate them first (builder annotate adjudicate --sheet FILLED.csv)"),
    (Step("min_count", 5, file="r.yaml", key="curation[0].min_count"), {"a": 1, "b": 2}, 3,
     "r.yaml, field curation[0].min_count: min_count: 5 dropped all 3 items left: every label has <= 5 "
     "(a 1, b 2); the threshold is for a whole annotation, not a sample; nothing is written"),
    # at most six labels shown, then "..."
    (Step("drop_labels", ("a", "b"), file="r.yaml", key="curation[1].drop_labels"), SEVEN, 28,
     "r.yaml, field curation[1].drop_labels: drop_labels: a, b dropped all 28 items left "
     "(a 7, b 6, c 5, d 4, e 3, f 2, ...); nothing is written"),
    (Step("drop_labels", ("a",), file="r.yaml", key="k"), dict(list(SEVEN.items())[:6]), 27,
     "r.yaml, field k: drop_labels: a dropped all 27 items left (a 7, b 6, c 5, d 4, e 3, f 2); nothing is written"),
])
def test_a_step_that_drops_every_item_says_which_step_and_what_it_dropped(step, before, n, message):
    assert str(_dropped_all(step, before, n)) == message
