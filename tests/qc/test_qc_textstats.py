"""schemas.textstats: the one reading of lengths, ratios, robust z and numbers that align and the gate share.

Digits over the whole Unicode domain (every code point, not a sample), the
digits the ``regex`` package knows but Python 3.11's ``unicodedata`` does not
(align read those with ``regex``'s ``\\d`` and ``unicodedata.digit`` and
raised), and Hypothesis properties of the statistics, declared per function
as in sklearn's ``test_common``: a public function of the module that is not
classified here fails the test.
"""
from __future__ import annotations

import inspect
import sys
import unicodedata

import numpy as np
import pytest
import regex
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from schemas import textstats
from schemas.textstats import (digit_value, ethiopic_value, letter_digit_share, log_ratio, numbers, robust_scale,
                               robust_z, text_length)

EVERY_CHAR = [chr(cp) for cp in range(sys.maxunicode + 1)]  # every code point, surrogates (Cs) included
ND = [c for c in EVERY_CHAR if unicodedata.category(c) == "Nd"]
ZEROS = [ord(c) for c in ND if unicodedata.decimal(c) == 0]
#: Blocks issue 28 names, and the other scripts the shipped variants or FLORES write digits in.
NAMED = {"Devanagari": 0x966, "Bengali": 0x9E6, "Arabic-Indic": 0x660, "Extended Arabic-Indic": 0x6F0,
         "N'Ko": 0x7C0, "Tibetan": 0xF20, "Myanmar": 0x1040, "Myanmar Shan": 0x1090, "Gurmukhi": 0xA66,
         "Gujarati": 0xAE6, "Oriya": 0xB66, "Tamil": 0xBE6, "Telugu": 0xC66, "Kannada": 0xCE6, "Malayalam": 0xD66,
         "Sinhala Lith": 0xDE6, "Thai": 0xE50, "Lao": 0xED0, "Khmer": 0x17E0, "Mongolian": 0x1810,
         "Ol Chiki": 0x1C50, "Adlam": 0x1E950, "Fullwidth": 0xFF10, "Mathematical bold": 0x1D7CE}

#: Which property each public function of schemas.textstats is tested for (test_every_function_is_classified).
PROPERTIES = {
    "robust_z": {"location and scale equivariant", "permutation equivariant", "median 0 and MAD 1"},
    "robust_scale": {"location invariant, scale equivariant"},
    "log_ratio": {"antisymmetric", "zero on equal lengths", "ignores surrounding whitespace"},
    "text_length": {"ignores surrounding whitespace"},
    "numbers": {"script invariant", "grouping invariant", "every Nd digit"},
    "digit_value": {"every Nd digit"},
    "ethiopic_value": {"every Ethiopic numeral"},
    "letter_digit_share": {"a share in [0, 1]"},
}


def test_every_function_is_classified():
    public = {name for name, obj in vars(textstats).items()
              if inspect.isfunction(obj) and obj.__module__ == textstats.__name__ and not name.startswith("_")}
    public |= {"digit_value"}  # an lru_cache wrapper, not a plain function
    assert public == set(PROPERTIES)


def test_align_and_the_numbers_check_use_this_one_reading():
    from builder.variants import align, project, project_mc
    from qc import length_ratio, numbers_check

    assert align.numbers is numbers_check.numbers is textstats.numbers
    assert project.log_ratio is project_mc.log_ratio is length_ratio.log_ratio is textstats.log_ratio
    assert project.robust_z is project_mc.robust_z is length_ratio.robust_z is textstats.robust_z
    assert not hasattr(align, "log_ratio") and not hasattr(align, "robust_z")  # one owner, no re-export
    assert not hasattr(align, "_NUMBER")


# --- every decimal digit of Unicode -------------------------------------------------------------------------


def test_every_code_point_is_a_digit_exactly_when_it_is_nd():
    """The whole domain: digit_value is defined exactly on category Nd, with unicodedata.decimal's value."""
    assert len(ND) == 660 and len(ZEROS) == 66  # Unicode 14.0 (Python 3.11)
    for c in EVERY_CHAR:
        v = digit_value(c)
        assert (v is not None) == (unicodedata.category(c) == "Nd"), hex(ord(c))
        if v is not None:
            assert v == unicodedata.decimal(c) == unicodedata.digit(c), hex(ord(c))


def test_every_nd_digit_reads_as_its_value_alone_and_between_letters():
    for c in ND:
        expected = [str(unicodedata.decimal(c))]
        assert numbers(c) == numbers(f"a{c}b") == numbers(f"\u0915 {c}\u0964") == expected, hex(ord(c))


def test_every_block_of_ten_reads_each_digit_and_a_whole_number():
    for z in ZEROS:
        block = "".join(chr(z + k) for k in range(10))
        assert [digit_value(c) for c in block] == list(range(10)), hex(z)
        assert numbers(block) == ["123456789"] and numbers(block[::-1]) == ["9876543210"], hex(z)


@pytest.mark.parametrize("name", sorted(NAMED))
def test_the_named_scripts_read_a_year_and_a_grouped_number(name):
    z = NAMED[name]
    digit = {str(k): chr(z + k) for k in range(10)}
    year = "".join(digit[d] for d in "1994")
    grouped = "".join(digit.get(ch, ch) for ch in "1,00,000 and 2,500.75")
    assert numbers(f"in {year}") == ["1994"] and numbers(grouped) == ["100000", "250075"], name


def test_digits_newer_than_pythons_unicode_are_not_numbers_and_do_not_break_alignment():
    """The ``regex`` package's \\d knows digits (Kawi U+11F50, Garay, Sunuwar...) that Python 3.11's
    unicodedata has no value for; align read them with unicodedata.digit and raised ValueError."""
    from builder.variants.align import align_path, fit_ratio_model

    newer = [c for c in regex.findall(r"\d", "".join(EVERY_CHAR)) if unicodedata.category(c) != "Nd"]
    assert "\U00011f53" in newer and len(newer) >= 100
    assert all(digit_value(c) is None and numbers(c) == [] for c in newer)
    target = [f"line {i} " + "".join(newer[i::10]) for i in range(10)]
    english = {i: f"line {i} and 1994" for i in range(10)}
    path = align_path(target, english, 10, model=fit_ratio_model(target, english))
    assert [move for move, _, _ in path] == [0] * 10


def test_ethiopic_numerals_every_one():
    for cp in range(0x1369, 0x137D):
        c = chr(cp)
        assert unicodedata.category(c) == "No" and ethiopic_value(c) == unicodedata.numeric(c) == int(numbers(c)[0])


def test_other_digits_with_a_value_are_not_numbers():
    """Superscripts, circled and parenthesised digits, Tibetan half digits: a digit value, no place value."""
    others = [c for c in EVERY_CHAR if unicodedata.category(c) != "Nd" and unicodedata.digit(c, None) is not None
              and not 0x1369 <= ord(c) <= 0x137C]
    assert {"²", "①", "\u2474"} <= set(others)
    assert all(numbers(c) == [] for c in others)
    assert numbers("\u0f2c") == [] and numbers("3136 mm² and ༣") == ["3136", "3"]  # Tibetan half three: no digit


# --- properties ---------------------------------------------------------------------------------------------

spread = st.lists(st.integers(-1000, 1000), min_size=3, max_size=40).map(lambda v: np.array(v, dtype=float))


@settings(max_examples=80, deadline=None)
@given(spread, st.floats(0.01, 100), st.floats(-1e4, 1e4), st.booleans())
def test_robust_z_is_location_and_scale_equivariant(x, a, b, flip):
    assume(robust_scale(x) > 0)
    a = -a if flip else a
    assert np.allclose(robust_z(a * x + b), np.sign(a) * robust_z(x), rtol=1e-7, atol=1e-7)


@settings(max_examples=60, deadline=None)
@given(spread, st.randoms(use_true_random=False))
def test_robust_z_is_permutation_equivariant(x, rnd):
    perm = list(range(len(x)))
    rnd.shuffle(perm)
    assert np.array_equal(robust_z(x[perm]), robust_z(x)[perm])


@settings(max_examples=60, deadline=None)
@given(spread)
def test_robust_z_has_median_0_and_mad_1(x):
    assume(robust_scale(x) > 0)
    z = robust_z(x)
    assert abs(float(np.median(z))) < 1e-9 and robust_scale(z) == pytest.approx(1.0)


@settings(max_examples=60, deadline=None)
@given(spread, st.floats(0.01, 100), st.floats(-1e4, 1e4))
def test_robust_scale_ignores_location_and_follows_scale(x, a, b):
    assert robust_scale(a * x + b) == pytest.approx(a * robust_scale(x), rel=1e-7, abs=1e-7)


texts = st.text(st.characters(blacklist_categories=("Cs",)), max_size=60)


@settings(max_examples=100, deadline=None)
@given(texts, texts, st.sampled_from(["", " ", "\n", "\t  "]))
def test_log_ratio_is_antisymmetric_and_reads_stripped_text(a, b, pad):
    assert log_ratio(a, b) == pytest.approx(-log_ratio(b, a))
    assert log_ratio(a, a) == 0.0
    assert log_ratio(pad + a + pad, b) == log_ratio(a, b) and text_length(pad + a + pad) == text_length(a)


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 10**15), st.sampled_from(ZEROS))
def test_numbers_are_the_same_in_every_script_and_grouping(n, zero):
    def script(s):
        return "".join(chr(zero + int(ch)) if ch.isdigit() else ch for ch in s)

    plain, grouped = str(n), f"{n:,}"
    dotted, spaced = grouped.replace(",", "."), grouped.replace(",", "\u00a0")
    for form in (plain, grouped, dotted, spaced):
        assert numbers(f"x {script(form)} y") == [plain], form


@settings(max_examples=60, deadline=None)
@given(st.lists(texts, max_size=5))
def test_letter_digit_share_is_a_share(values):
    assert 0.0 <= letter_digit_share(values) <= 1.0


# -- letter_digit_share finds digit runs with a regex: it must count what a per-character scan counts ------


def _share_by_scan(texts):
    single = total = 0
    for t in texts:
        for i, c in enumerate(t):
            if digit_value(c) is None or (i > 0 and digit_value(t[i - 1]) is not None):
                continue
            total += 1
            end = i + textstats._run_length(t, i)
            if end - i == 1 and ((i > 0 and textstats._latin(t[i - 1])) or (end < len(t) and textstats._latin(t[end]))):
                single += 1
    return single / total if total else 0.0


def test_every_nd_character_is_a_digit_run_of_one_for_the_letter_digit_share():
    assert letter_digit_share([f"a{c} " for c in ND]) == 1.0
    assert letter_digit_share([f" {c} ²" for c in ND]) == 0.0


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet=st.one_of(st.sampled_from(ND), st.sampled_from("aZé ع²¹-,.Ⅻ፲")), max_size=15),
                max_size=6))
def test_the_letter_digit_share_is_the_character_scans(texts):
    assert letter_digit_share(texts) == _share_by_scan(texts)
