"""A curation that drops every item is an error, and ``annotate split`` of an empty file names it (issue 24).

docs/annotate.md's workflow on the shipped 12-item ratings used to turn 12 items into 0 with
``min_count: 80`` and exit 0, writing a header-only ``curated.tsv`` that ``annotate split`` then
refused with "no items to split" and no file. Now the step that drops the last item stops the
curation (exit 1, one ``error:`` line naming the recipe, the step and its threshold, and the
labels it dropped) and writes nothing; an empty labelled file stops ``split`` and ``curate``
naming that file.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from corpus import DATA, invoke

REPO = DATA.parent.parent
RECIPE = REPO / "examples" / "sib200-curation.yaml"


def _error(result, code: int) -> str:
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.exit_code == code, (result.exit_code, result.stderr)
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    return lines[0]


@pytest.fixture(scope="module")
def adjudicated(tmp_path_factory) -> Path:
    """``annotate adjudicate`` of the shipped 12 items (8 majority, 4 unresolved), as docs/annotate.md runs it."""
    out = tmp_path_factory.mktemp("adj") / "adj"
    result = invoke(["annotate", "adjudicate", DATA / "annotation" / "sib_small_long.csv",
                     "--labels", DATA / "annotation" / "labels.txt", "--out", out])
    assert result.exit_code == 0, result.stderr
    return out


def test_min_count_that_drops_every_item_stops_the_curation(adjudicated, tmp_path):
    out = tmp_path / "curated"
    line = _error(invoke(["annotate", "curate", adjudicated, "--recipe", RECIPE, "--out", out]), 1)
    assert "sib200-curation.yaml, field steps[1].min_count: min_count: 80 dropped all 8 items left" in line
    assert "every label has <= 80 (politics 2," in line  # the labels it dropped, with their counts
    assert not out.exists()  # no header-only curated.tsv for split to trip on


def test_an_earlier_curation_is_left_as_it_was(adjudicated, tmp_path):
    out = tmp_path / "curated"
    recipe = tmp_path / "keep.yaml"
    recipe.write_text("steps:\n  - min_count: 1\n")
    assert invoke(["annotate", "curate", adjudicated, "--recipe", recipe, "--out", out]).exit_code == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    line = _error(invoke(["annotate", "curate", adjudicated, "--recipe", RECIPE, "--out", out]), 1)
    assert "min_count: 80 dropped all" in line
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_a_label_step_that_drops_every_item_names_its_labels(adjudicated, tmp_path):
    recipe = tmp_path / "keep.yaml"
    recipe.write_text("steps:\n  - keep_labels: [travel]\n")
    line = _error(invoke(["annotate", "curate", adjudicated, "--recipe", recipe, "--out", tmp_path / "c"]), 1)
    assert "keep.yaml, field steps[0].keep_labels: keep_labels: travel dropped all 8 items left" in line
    assert not (tmp_path / "c").exists()


@pytest.mark.parametrize("command", ["split", "curate"])
def test_an_empty_labelled_file_is_named(tmp_path, command):
    empty = tmp_path / "curated.tsv"
    empty.write_text("index_id\tcategory\ttext\n", encoding="utf-8")
    extra = ["--recipe", RECIPE] if command == "curate" else []
    line = _error(invoke(["annotate", command, empty, *extra, "--out", tmp_path / "out"]), 1)
    assert line == f"error: {empty}: no items: the file holds a header and no rows"
    assert not (tmp_path / "out").exists()
