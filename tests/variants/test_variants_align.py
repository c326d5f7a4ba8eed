"""Length-ratio statistics and break location on the real N'Ko file."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from oracles import median_abs_deviation

from schemas.io import read_sib_tsv
from builder.variants.align import locate_misalignment
from schemas.textstats import robust_z
from builder.variants.checks import duplicate_groups
from schemas.scripts import count_letters

SIB = Path(__file__).parents[1] / "data" / "sib200"


@pytest.fixture(scope="module")
def dev():
    lines = (SIB / "flores-raw" / "nqo_Nkoo.dev").read_text(encoding="utf-8").split("\n")[:-1]
    eng = {int(r["index_id"]): r["text"] for s in ("train", "dev", "test")
           for r in read_sib_tsv(SIB / "eng" / f"{s}.tsv")}
    return lines, {k: v for k, v in eng.items() if k < 997}


def test_robust_z_matches_the_iglewicz_hoaglin_definition():
    x = np.array([2.1, 2.4, 2.2, 2.3, 9.0, 2.2])
    expected = 0.6745 * (x - np.median(x)) / np.median(np.abs(x - np.median(x)))
    assert np.allclose(robust_z(x), expected, rtol=1e-3)
    assert median_abs_deviation(x, scale="normal") > 0


def test_the_real_file_is_aligned(dev):
    lines, eng = dev
    assert locate_misalignment(lines, eng, 997) == []


@pytest.mark.parametrize("k", [50, 333, 640, 996])
def test_a_deleted_line_lies_inside_the_reported_range(dev, k):
    lines, eng = dev
    (b,) = locate_misalignment(lines[:k] + lines[k + 1:], eng, 997)
    assert b.kind == "missing" and b.line <= k <= b.last


def test_a_swapped_block_is_found_with_equal_counts(dev):
    lines, eng = dev
    shifted = lines[:300] + lines[301:700] + [lines[300]] + lines[700:]  # lines 300..699 moved up by one
    breaks = locate_misalignment(shifted, eng, 997)
    assert [b.kind for b in breaks] == ["missing", "extra"]
    assert breaks[0].line <= 300 <= breaks[0].last and breaks[1].line <= 699 <= breaks[1].last


def test_duplicates_ignore_identical_sources():
    assert duplicate_groups(["a", "a", "b", "b"], {0: "x", 1: "x", 2: "y", 3: "z"}) == [[2, 3]]


def test_count_letters_ignores_common_and_inherited():
    assert count_letters("क़ 1,2 ABC", "Deva") == (5, 2)  # क and its nukta are Deva; digits and comma count for nobody
