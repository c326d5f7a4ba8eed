"""The length-ratio model and the break locator of builder/variants/align.py, pinned where mutation left them
free (issue 27): the model's centre, scale, shift and the spread of unrelated pairs against their definitions,
each match cost against its formula, the best path's moves, and each break's fields.

The data is generated: English lines of random lengths, and "translations" 1.3 times as long with a small
log-normal noise, so the model's figures are known. Lines that carry a number on both sides pin each break to
one line (the number evidence), which the real N'Ko file of `test_variants_align.py` cannot.
"""
from __future__ import annotations

import math
import random
from statistics import NormalDist

import numpy as np
import pytest

from builder.variants.align import (EMPTY_COST, INDEL_PENALTY, NUMBER_DIFFERENT, NUMBER_ONE_SIDED, NUMBER_SAME,
                                    OUTLIER_SHARE, Break, RatioModel, _Costs, _max_subarray, _may_be_shifted,
                                    align_path, fit_ratio_model, locate_misalignment)

N = 300
RATIO = 1.3


def _english(n: int = N, seed: int = 7, numbered: bool = False) -> dict[int, str]:
    rng = random.Random(seed)
    return {i: (f"item {i} " if numbered else "") + "w" * rng.randint(20, 200) for i in range(n)}


def _translate(english: dict[int, str], seed: int = 11, noise: float = 0.08) -> list[str]:
    rng = random.Random(seed)
    out = []
    for i in sorted(english):
        text = english[i]
        head = text[:text.index("w")]  # the number, kept as is
        body = len(text) - len(head)
        out.append(head + "v" * max(1, round(body * RATIO * math.exp(rng.gauss(0, noise)))))
    return out


def _mad(values) -> tuple[float, float]:
    values = np.asarray(values, dtype=float)
    center = float(np.median(values))
    return center, float(np.median(np.abs(values - center))) / NormalDist().inv_cdf(0.75)  # 1.4826 * MAD


def _pairs(target, english, shift):
    """log((len(t)+1)/(len(e)+1)) of target line e - shift against English line e, where both exist and the
    target line is not empty: the definition the model is fitted on."""
    return [math.log(len(target[e - shift].strip()) + 1) - math.log(len(english[e].strip()) + 1)
            for e in sorted(english) if 0 <= e - shift < len(target) and target[e - shift].strip()]


def test_the_model_of_aligned_pairs_is_their_median_and_normal_mad():
    english = _english()
    target = _translate(english)
    model = fit_ratio_model(target, english)
    pairs = _pairs(target, english, 0)
    center, scale = _mad(pairs)
    assert (model.shift, model.n_pairs) == (0, N)
    assert model.center == pytest.approx(center, abs=1e-12) and model.scale == pytest.approx(scale, rel=1e-9)
    assert abs(model.center - math.log(RATIO)) < 0.02 and 0.04 < model.scale < 0.12
    # the spread of unrelated pairs: the pairs five lines off, in units of the aligned pairs' scale
    assert model.random_scale == pytest.approx(max(_mad(_pairs(target, english, 5))[1] / scale, 2.0), rel=1e-9)
    assert model.random_scale > 2.0


@pytest.mark.parametrize("shift", [-3, -1, 1, 2, 3])
def test_the_model_takes_the_shift_whose_pairs_spread_least(shift):
    english = _english()
    aligned = _translate(english)
    # target line i translates English line i + shift
    target = [aligned[i + shift] for i in range(N) if 0 <= i + shift < N]
    if shift < 0:
        target = ["v" * 50] * -shift + target
    model = fit_ratio_model(target, english)
    assert model.shift == shift
    assert model.n_pairs == len(_pairs(target, english, shift))
    assert model.center == pytest.approx(_mad(_pairs(target, english, shift))[0], abs=1e-12)
    assert fit_ratio_model(target, english, max_shift=0).shift == 0
    assert fit_ratio_model(target, english, max_shift=abs(shift) - 1).shift != shift


def test_empty_target_lines_are_left_out_of_the_model():
    english = _english()
    target = _translate(english)
    for i in (3, 50, 51, 299):
        target[i] = "  "
    model = fit_ratio_model(target, english)
    assert model.n_pairs == N - 4
    assert model.center == pytest.approx(_mad(_pairs(target, english, 0))[0], abs=1e-12)


@pytest.mark.parametrize("target, english", [
    ([], {0: "abc"}),
    (["abc"], {}),
    (["abc", "de"], {0: "abc", 1: "de"}),  # fewer than three pairs at every shift
])
def test_too_few_pairs_give_the_neutral_model(target, english):
    assert fit_ratio_model(target, english) == RatioModel(0.0, 1.0, 0, 0, 3.0)


def test_identical_pairs_keep_a_positive_scale():
    english = {i: "x" * (10 + i) for i in range(10)}
    model = fit_ratio_model([english[i] for i in range(10)], english)
    assert model.center == 0.0 and model.scale == 1e-6 and model.n_pairs == 10


def _formula_cost(target: str, english: str, model: RatioModel, t_numbers, e_numbers) -> float:
    z = (math.log(len(target.strip()) + 1) - math.log(len(english.strip()) + 1) - model.center) / model.scale
    r = model.random_scale
    llr = math.log((1 - OUTLIER_SHARE) * r * math.exp(-0.5 * z * z * (1 - 1 / (r * r))) + OUTLIER_SHARE)
    if t_numbers and e_numbers:
        llr += NUMBER_SAME if sorted(t_numbers) == sorted(e_numbers) else NUMBER_DIFFERENT
    elif t_numbers or e_numbers:
        llr += NUMBER_ONE_SIDED
    return -llr


@pytest.mark.parametrize("t_num, e_num", [("", ""), ("7 ", "7 "), ("7 ", "8 "), ("7 ", ""), ("", "8 "),
                                          ("7 and 8 ", "8 and 7 ")])
def test_a_match_costs_minus_the_log_likelihood_ratio_of_its_length_and_numbers(t_num, e_num):
    model = RatioModel(0.25, 0.1, 0, 100, 4.0)
    target, english = [t_num + "v" * 60, "short"], {0: e_num + "w" * 40, 1: "other words"}
    costs = _Costs(target, english, model, 2)
    t_numbers, e_numbers = t_num.replace("and", "").split(), e_num.replace("and", "").split()
    assert costs.cost(0, 0) == pytest.approx(_formula_cost(target[0], english[0], model, t_numbers, e_numbers),
                                             rel=1e-12)
    assert costs.cost(1, 1) == pytest.approx(_formula_cost("short", "other words", model, [], []), rel=1e-12)


def test_an_empty_line_costs_the_empty_cost_and_an_unknown_english_line_nothing():
    model = RatioModel(0.0, 0.1, 0, 10)
    costs = _Costs(["", "text", "more text"], {0: "zero", 2: "two"}, model, 5)
    assert costs.cost(0, 0) == EMPTY_COST and costs.cost(0, 1) == EMPTY_COST
    assert costs.cost(1, 1) == 0.0  # English line 1 is not known
    assert costs.cost(2, 4) == 0.0 and costs.cost(2, 7) == 0.0  # past the known lines
    assert costs.cost(2, 2) > 0  # 9 characters against 3: far off


@pytest.mark.parametrize("shift", [-2, -1, 0, 1, 2])
def test_the_shifted_costs_are_the_match_costs_along_a_diagonal(shift):
    english = _english(60, numbered=True)
    del english[10], english[11]  # unknown English lines cost nothing
    target = _translate({i: t for i, t in english.items()})[:55] + ["", "x", "", "yy", "zzz"]
    n_expected = 60
    costs = _Costs(target, english, fit_ratio_model(target, english), n_expected)
    got = costs.shifted(shift, n_expected)
    assert got.shape == (len(target),)
    for i in range(len(target)):
        j = i + shift
        if not target[i].strip():
            assert got[i] == EMPTY_COST
        elif 0 <= j < n_expected:
            assert got[i] == pytest.approx(costs.cost(i, j), rel=1e-12, abs=1e-12), (i, j)
        else:
            assert got[i] == EMPTY_COST, (i, j)


def test_the_largest_run_sum():
    assert _max_subarray(np.array([1.0, -2.0, 3.0, 4.0, -1.0, 2.0, -9.0])) == 8.0
    assert _max_subarray(np.array([-1.0, -2.0])) == 0.0
    assert _max_subarray(np.array([5.0])) == 5.0
    assert _max_subarray(np.array([])) == 0.0


def _numbered():
    english = _english(200, numbered=True)
    return english, _translate(english)


def test_an_aligned_file_is_one_match_per_line():
    english, target = _numbered()
    assert align_path(target, english, 200) == [(0, i, i) for i in range(200)]
    assert locate_misalignment(target, english, 200) == []


def test_the_best_path_has_one_move_for_a_missing_and_one_for_an_extra_line():
    english, target = _numbered()
    missing = target[:70] + target[71:]
    path = align_path(missing, english, 200)
    assert [step for step in path if step[0] != 0] == [(2, 70, 70)]
    assert len(path) == 200 and path[69] == (0, 69, 69) and path[71] == (0, 70, 71)
    extra = target[:120] + ["v" * 80] + target[120:]
    path = align_path(extra, english, 200)
    assert [step for step in path if step[0] != 0] == [(1, 120, 120)]
    assert len(path) == 201 and path[121] == (0, 121, 120)


def test_a_band_narrower_than_the_count_difference_finds_no_path():
    english, target = _numbered()
    short = target[:60] + target[63:]  # three lines missing
    assert align_path(short, english, 200, band=2) == []
    assert [s for s in align_path(short, english, 200, band=3) if s[0] != 0] == [(2, 60, 60), (2, 60, 61),
                                                                                    (2, 60, 62)]


def test_breaks_are_pinned_by_the_numbers_and_carry_the_lines_they_expect():
    english, target = _numbered()
    assert locate_misalignment(target[:70] + target[71:], english, 200) == [Break("missing", 70, 70, 70, 71)]
    assert locate_misalignment(target[:120] + ["v" * 80] + target[120:], english, 200) == [
        Break("extra", 120, 120, 120, None)]
    # a missing line, then an extra one: after the first break line i translates English line i + 1
    both = target[:50] + target[51:150] + ["v" * 80] + target[150:]
    assert locate_misalignment(both, english, 200) == [Break("missing", 50, 50, 50, 51),
                                                       Break("extra", 149, 149, 150, None)]
    # an extra line, then a missing one: after the first break line i translates English line i - 1
    both = target[:30] + ["v" * 80] + target[30:100] + target[101:]
    assert locate_misalignment(both, english, 200) == [Break("extra", 30, 30, 30, None),
                                                       Break("missing", 101, 101, 100, 101)]


def test_the_last_line_missing_is_found_with_no_line_after_it():
    english, target = _numbered()
    assert locate_misalignment(target[:-1], english, 200) == [Break("missing", 199, 199, 199, None)]


@pytest.mark.parametrize("at, k", [(0, 2), (0, 3), (1, 2), (70, 2), (70, 3), (196, 3), (197, 2), (197, 3), (198, 2)])
def test_consecutive_missing_lines_are_each_a_break_at_the_line_they_are_missing_from(at, k):
    # k English lines missing together, at the start, inside or at the very end of a file: the second break's
    # window once began past the end of the file, and a file missing its last two lines stopped with IndexError
    english, target = _numbered()
    got = locate_misalignment(target[:at] + target[at + k:], english, 200)
    assert got == [Break("missing", at, at, at + m, at + m + 1 if at + k < 200 else None) for m in range(k)]


def test_counts_further_apart_than_the_limit_are_not_located():
    english, target = _numbered()
    short = target[:100] + target[110:]
    assert locate_misalignment(short, english, 200, max_difference=9) == []
    assert locate_misalignment(short, english, 200, max_difference=10) != []
    assert len(locate_misalignment(short, english, 200)) >= 1


def test_a_block_moved_by_one_line_with_equal_counts_is_two_breaks():
    english, target = _numbered()
    moved = target[:80] + target[81:140] + [target[80]] + target[140:]
    assert locate_misalignment(moved, english, 200) == [Break("missing", 80, 80, 80, 81),
                                                        Break("extra", 139, 139, 140, None)]
    assert [s[0] for s in align_path(moved, english, 200) if s[0] != 0] == [2, 1]


@pytest.mark.parametrize("moved, breaks", [
    # line 80 moved after four lines: they translate English 81-84 (shift +1), a gain of 37 for two breaks of 15
    (lambda t: t[:80] + t[81:85] + [t[80]] + t[85:],
     [Break("missing", 80, 80, 80, 81), Break("extra", 84, 84, 85, None)]),
    # line 84 moved before them: target lines 81-84 translate English 80-83 (shift -1), a gain of 34
    (lambda t: t[:80] + [t[84]] + t[80:84] + t[85:],
     [Break("extra", 80, 80, 80, None), Break("missing", 85, 85, 84, 85)]),
])
def test_a_short_block_moved_either_way_with_equal_counts_is_found(moved, breaks):
    """The cheap gate in front of the path for equal counts looks one line either way, and lets through any
    block whose shifted matches gain more than the two breaks cost (here between 2 and 3 breaks' worth)."""
    english, target = _numbered()
    assert locate_misalignment(moved(target), english, 200) == breaks


def test_the_indel_penalty_is_what_one_break_costs_on_the_path():
    english, target = _numbered()
    costs = _Costs(target[:70] + target[71:], english, fit_ratio_model(target[:70] + target[71:], english), 200)
    path = align_path(target[:70] + target[71:], english, 200)
    total = sum(costs.cost(i, j) if move == 0 else INDEL_PENALTY for move, i, j in path)
    aligned = sum(costs.cost(i, i) for i in range(70)) + sum(costs.cost(i, i + 1) for i in range(70, 199))
    assert total == pytest.approx(aligned + INDEL_PENALTY, rel=1e-12)


def test_without_a_model_the_path_uses_the_model_fitted_on_the_file():
    # no numbers: lengths alone place the missing line, and only a model of this file's ratio (1.3) places it
    english = _english(200)
    target = _translate(english)
    missing = target[:70] + target[71:]
    assert [s for s in align_path(missing, english, 200) if s[0]] == [(2, 70, 70)]
    assert align_path(missing, english, 200) == align_path(missing, english, 200,
                                                           model=fit_ratio_model(missing, english))
    assert [s for s in align_path(missing, english, 200, model=RatioModel(0.0, 1.0, 0, 0)) if s[0]] != [(2, 70, 70)]


def test_a_break_on_the_first_line_of_a_file():
    english, target = _numbered()
    extra = align_path(["v" * 80] + target, english, 200)  # a line before the first English one
    assert extra[:2] == [(1, 0, 0), (0, 1, 0)] and len(extra) == 201
    missing = align_path(target[1:], english, 200)  # the first English line has no translation
    assert missing[:2] == [(2, 0, 0), (0, 0, 1)] and len(missing) == 200


def test_a_band_as_wide_as_the_extra_lines_still_finds_the_path():
    english, target = _numbered()
    path = align_path(target + ["v" * 50] * 3, english, 200, band=3)  # the path ends on the band's edge
    assert [s for s in path if s[0]] == [(1, 200, 200), (1, 201, 200), (1, 202, 200)]
    assert align_path(target + ["v" * 50] * 3, english, 200, band=2) == []


def test_a_path_that_reaches_either_edge_of_the_band_comes_back_from_it():
    english, target = _numbered()
    x = ["v" * 50] * 3
    out_and_back = target[:50] + x + target[50:100] + target[103:]  # three extra lines, later three missing
    assert [s for s in align_path(out_and_back, english, 200, band=3) if s[0]] == [
        (1, 50, 50), (1, 51, 50), (1, 52, 50), (2, 103, 100), (2, 103, 101), (2, 103, 102)]
    back_and_out = target[:50] + target[53:100] + x + target[100:]  # three missing, later three extra
    assert [s for s in align_path(back_and_out, english, 200, band=3) if s[0]] == [
        (2, 50, 50), (2, 50, 51), (2, 50, 52), (1, 97, 100), (1, 98, 100), (1, 99, 100)]


@pytest.mark.parametrize("change, breaks", [
    (lambda t: t[1:], [Break("missing", 0, 0, 0, 1)]),
    (lambda t: ["v" * 30] + t, [Break("extra", 0, 0, 0, None)]),
    (lambda t: t[:-1], [Break("missing", 199, 199, 199, None)]),
    (lambda t: t + ["v" * 30], [Break("extra", 200, 200, 200, None)]),
])
def test_a_break_at_either_end_of_a_file_without_numbers(change, breaks):
    english = _english(200)
    assert locate_misalignment(change(_translate(english)), english, 200) == breaks


def test_counts_apart_by_more_than_the_default_limit_are_not_located():
    english, target = _numbered()
    assert locate_misalignment(target[:100] + target[150:], english, 200) != []  # 50 apart: located
    assert locate_misalignment(target[:100] + target[151:], english, 200) == []  # 51 apart


def _flat_english(n: int, seed: int, flat: range) -> dict[int, str]:
    """As :func:`_english`, but the lines in ``flat`` all of one length: a break among them has a range."""
    rng = random.Random(seed)
    return {i: "w" * (100 if i in flat else rng.randint(20, 200)) for i in range(n)}


def test_breaks_among_lines_of_one_length_each_get_the_range_their_neighbours_leave():
    english = _flat_english(120, 7, range(60, 80))
    target = _translate(english, seed=7)
    for at in (74, 68, 62):  # three extra lines that fit any of the twenty lines of one length
        target.insert(at, "v" * 130)
    breaks = locate_misalignment(target, english, 120)
    # each range runs up to where the next break sits on the best path and back to where the one before sits
    assert breaks == [Break("extra", 60, 74, 60, None), Break("extra", 69, 75, 68, None),
                      Break("extra", 75, 82, 73, None)]
    for b, line in zip(breaks, (62, 69, 76)):  # where the extra lines are in the target
        assert b.line <= line <= b.last
    # two of them: the first range reaches past the second break's line
    target = _translate(english, seed=7)
    for at in (72, 64):
        target.insert(at, "v" * 130)
    assert locate_misalignment(target, english, 120) == [Break("extra", 60, 75, 60, None),
                                                         Break("extra", 69, 81, 68, None)]


def test_a_missing_line_near_the_end_whose_english_is_unknown_there_keeps_its_range():
    english = _flat_english(120, 7, range(100, 120))
    target = _translate(english, seed=7)
    del target[110]
    known = {i: text for i, text in english.items() if i < 114}  # the last six English lines unknown
    # the expected count, not the English known, says how far the file goes: lines 114-119 cost nothing to
    # match, so the missing line may be anywhere from 98 to the end
    assert locate_misalignment(target, known, 120) == [Break("missing", 98, 119, 98, 99)]


def test_the_default_search_for_the_model_s_shift_stops_three_lines_either_way():
    # the default max_shift is 3: a file shifted by four lines is fitted at a wrong shift, not at four
    rng = random.Random(3)
    english = {i: "w" * rng.randint(20, 200) for i in range(40)}
    target = [english[i + 4] for i in range(36)]  # target line i is English line i + 4, word for word
    model = fit_ratio_model(target, english)
    assert abs(model.shift) <= 3 and model.scale > 0.1
    wider = fit_ratio_model(target, english, max_shift=4)
    assert (wider.center, wider.scale, wider.shift, wider.n_pairs) == (0.0, 1e-6, 4, 36)


def test_of_shifts_that_spread_alike_the_one_nearest_zero_wins():
    # a tie keeps the first shift tried, and the shifts are tried 0, -1, 1, -2, 2, -3, 3
    model = fit_ratio_model(["abc"] * 10, {i: "abc" for i in range(10)})
    assert model == RatioModel(0.0, 1e-6, 0, 10, 2.0)


def test_three_pairs_are_enough_for_a_model_and_a_shift_with_fewer_is_passed_over():
    # exactly three pairs make a model; a shift with fewer is skipped and the next shifts are still tried
    model = fit_ratio_model(["aa", "bbbb", "cccccc"], {0: "a", 1: "bb", 2: "ccc"})
    assert (model.shift, model.n_pairs) == (0, 3)
    assert model.center == pytest.approx(_mad([math.log(3 / 2), math.log(5 / 3), math.log(7 / 4)])[0], abs=1e-12)
    # a blank first line leaves shift 0 two pairs: shift -1 (target line i + 1 for English line i) has three
    model = fit_ratio_model(["", "x" * 5, "y" * 7, "z" * 9], {0: "x" * 5, 1: "y" * 7, 2: "z" * 9})
    assert model == RatioModel(0.0, 1e-6, -1, 3, 3.0)


def test_three_pairs_five_lines_off_are_enough_to_measure_the_spread_of_unrelated_pairs():
    # eight lines: the pairs five lines off are English lines 5-7, three of them, and they set random_scale
    english = {i: "w" * random.Random(i).randint(20, 200) for i in range(8)}
    target = _translate(english)
    model = fit_ratio_model(target, english)
    assert (model.shift, model.n_pairs, len(_pairs(target, english, 5))) == (0, 8, 3)
    far = _mad(_pairs(target, english, 5))[1] / model.scale
    assert model.random_scale == pytest.approx(max(far, 2.0), rel=1e-9) and model.random_scale != 3.0


def test_a_known_english_line_past_the_expected_count_is_carried_without_error():
    # the match costs hold every English line given, even one past the target and the expected count
    costs = _Costs(["a" * 10] * 3, {0: "a" * 10, 3: "b" * 5}, RatioModel(0.0, 0.1, 0, 3), 3)
    assert len(costs.elen) == 4 and costs.elen[3] == pytest.approx(math.log(6))
    assert align_path(["a" * 10] * 3, {0: "a" * 10, 3: "b" * 5}, 3) == [(0, 0, 0), (0, 1, 1), (0, 2, 2)]


def test_a_target_line_past_the_expected_count_costs_the_empty_cost_on_every_diagonal():
    # English line j = n_expected is out of range, not an unknown line inside the file (which costs 0)
    costs = _Costs(["a" * 5] * 5, {0: "a" * 4, 1: "a" * 5, 2: "a" * 6}, RatioModel(0.0, 1.0, 0, 3), 3)
    assert len(costs.elen) == 5  # room for the target's five lines
    assert costs.shifted(0, 3)[3:].tolist() == [EMPTY_COST, EMPTY_COST]
    assert costs.shifted(1, 3)[2:].tolist() == [EMPTY_COST] * 3
    assert costs.shifted(-1, 3)[4] == EMPTY_COST and costs.shifted(-1, 3)[3] == pytest.approx(costs.cost(3, 2))


def test_the_default_band_is_the_count_difference_plus_ten():
    # 11 English lines missing at 130 and 11 extra lines at the end (equal counts): 11 off the diagonal is
    # outside the default band of 10, so the path stays on it; a band of 11 finds the 22 breaks
    english, target = _numbered()
    moved = target[:130] + target[141:] + ["v" * 80] * 11
    assert align_path(moved, english, 200) == [(0, i, i) for i in range(200)]
    assert align_path(moved, english, 200) == align_path(moved, english, 200, band=10)
    wide = [s for s in align_path(moved, english, 200, band=11) if s[0]]
    assert wide == [(2, 130, 130 + k) for k in range(11)] + [(1, 189 + k, 200) for k in range(11)]


def test_of_equally_cheap_paths_the_first_move_found_wins_match_before_missing_before_extra():
    # with no English known every match costs 0: ties keep the move tried first, the match, so the path matches
    # back from the end and the one break sits at the start
    assert align_path(["x" * 5] * 2, {}, 3) == [(2, 0, 0), (0, 0, 1), (0, 1, 2)]
    assert align_path(["x" * 5] * 3, {}, 2) == [(1, 0, 0), (0, 1, 0), (0, 2, 1)]


def test_the_gate_for_equal_counts_stays_shut_on_an_aligned_file():
    # the gate compares the gain of matching one line off (c0 - c_shift) with two breaks (2 * INDEL_PENALTY)
    english = _english(120)
    target = _translate(english)
    costs = _Costs(target, english, fit_ratio_model(target, english), 120)
    gains = [_max_subarray(costs.shifted(0, 120) - costs.shifted(s, 120)) for s in (-1, 1)]
    assert 0 < max(gains) < 2 * INDEL_PENALTY  # some lines fit a neighbour a little better, far from two breaks
    assert not _may_be_shifted(costs, 120)


def test_a_gain_of_exactly_two_breaks_does_not_open_the_gate():
    # lines of one length, numbered; target lines 10-15 carry the next line's number: matching them one line
    # off gains 5.0 each (same numbers instead of different), 30.0 in all, exactly what two breaks cost
    def line(number: int) -> str:
        return f"{number} " + "w" * 30

    english = {i: line(i) for i in range(60)}
    target = [line(i + 1) if 10 <= i <= 15 else line(i + 2) if 25 <= i <= 38 else line(i) for i in range(60)]
    costs = _Costs(target, english, fit_ratio_model(target, english), 60)
    gain = _max_subarray(costs.shifted(0, 60) - costs.shifted(1, 60))
    assert gain == 2 * INDEL_PENALTY
    assert not _may_be_shifted(costs, 60)
