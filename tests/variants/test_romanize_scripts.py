"""Every letter, sign, digit and punctuation mark of every supported block is romanized; round trips per letter.

The characters come from the Unicode database, never from a hand-typed list:
``unicodedata`` general categories over the code points of each block (the
block ranges are checked against the ``regex`` Block property), plus the
punctuation other blocks share with the script (``\\p{scx=...}``: the dandas).
"""
from __future__ import annotations

import unicodedata

import pytest
import regex

from builder.variants import brahmic
from builder.variants.brahmic_letters import BLOCKS, EQUIVALENTS, FORWARD, LETTERS, lossy_letters
from builder.variants.punctuation import policy
from builder.variants.romanize import NOT_SUPPORTED, ROMANIZATION, get_romanizer, native_left, round_trip_reason

#: Unicode Block property name of each script's main block.
BLOCK_NAMES = {"Deva": "Devanagari", "Beng": "Bengali", "Guru": "Gurmukhi", "Gujr": "Gujarati", "Orya": "Oriya",
               "Taml": "Tamil", "Telu": "Telugu", "Knda": "Kannada", "Mlym": "Malayalam", "Sinh": "Sinhala",
               "Tibt": "Tibetan"}
#: The Brahmic scripts of FLORES-200 (issue 12): each is romanized or refused with a reason.
FLORES_BRAHMIC = {"Beng", "Deva", "Gujr", "Guru", "Knda", "Mlym", "Orya", "Sinh", "Taml", "Telu", "Mtei", "Olck",
                  "Tibt"}
CATEGORIES = ("Lo", "Lm", "Mn", "Mc", "Nd")
SUPPORTED = sorted(s for s in ROMANIZATION if s in BLOCKS)
CODE = {"Tibt": "bod_Tibt"}
_BMP = "".join(chr(i) for i in range(0x10000) if not 0xD800 <= i < 0xE000)


def _code(script: str) -> str:
    return CODE.get(script, f"hin_{script}")


def _block(script: str) -> list[str]:
    first, last = BLOCKS[script]
    return [chr(cp) for cp in range(first, last + 1)]


def _to_romanize(script: str) -> list[str]:
    """Assigned letters, signs and digits of the block, its punctuation, and the punctuation it shares."""
    own = [c for c in _block(script) if unicodedata.category(c) in CATEGORIES
           or unicodedata.category(c).startswith("P")]
    shared = regex.findall(rf"(?V1)[\p{{scx={script}}}&&\p{{P}}&&[^\p{{Script={script}}}]]", _BMP)
    return own + shared


def _consonant(script: str) -> str:
    return "\u0f40" if script == "Tibt" else brahmic._schemes(script, "iso")[0]["consonants"]["क"]


def test_every_flores_brahmic_script_is_romanized_or_refused_with_a_reason():
    assert FLORES_BRAHMIC <= set(ROMANIZATION) | set(NOT_SUPPORTED)
    assert not set(ROMANIZATION) & set(NOT_SUPPORTED)
    assert all(reason for reason in NOT_SUPPORTED.values())
    assert set(brahmic.BRAHMIC_SCRIPTS) <= set(SUPPORTED)


@pytest.mark.parametrize("script", sorted(BLOCKS))
def test_block_table_matches_the_unicode_block_property(script):
    first, last = BLOCKS[script]
    inside = regex.compile(rf"\p{{Block={BLOCK_NAMES[script]}}}")
    assert all(inside.match(c) for c in _block(script))
    assert not inside.match(chr(first - 1)) and not inside.match(chr(last + 1))


@pytest.mark.parametrize("script", SUPPORTED)
def test_no_native_character_is_left_anywhere_in_the_block(script):
    """Each character alone, after a consonant, and between two consonants."""
    rom = get_romanizer(_code(script))
    first, last = BLOCKS[script]
    ka = _consonant(script)
    chars = _to_romanize(script)
    assert len(chars) > 50  # the block was read (Taml has the fewest: 61)
    left = {}
    for c in chars:
        for text in (c, ka + c, ka + c + ka):
            out = rom.romanize(text)
            if native_left(out, script) != (0, 0) or any(first <= ord(x) <= last for x in out):
                left[f"U+{ord(c):04X} {unicodedata.name(c, '?')}"] = (text, out)
    assert not left


@pytest.mark.parametrize("script", sorted(brahmic.BRAHMIC_SCRIPTS))
def test_iso_round_trip_of_every_letter_and_sign_is_exact_or_declared_lossy(script):
    """Like sklearn's test_common: every letter and sign of the block is classified.

    Exact (native -> ISO 15919 -> native gives it back), or listed with its reason
    in :func:`lossy_letters`, and then really not exact (no stale entries).
    """
    rom = get_romanizer(_code(script), "iso")
    assert rom.lossless and rom.back is not None
    ka = _consonant(script)
    marks = dict(policy(script).marks)
    lossy = lossy_letters(script)
    undeclared, stale = {}, {}
    for c in _block(script):
        cat = unicodedata.category(c)
        if cat not in ("Lo", "Lm", "Mn", "Mc") or c in marks:
            continue
        text = brahmic.normalize_native(ka + c if cat in ("Mn", "Mc") else c)
        latin = rom.romanize(text)
        back = rom.back(latin)
        name = f"U+{ord(c):04X} {unicodedata.name(c)}"
        if back != text and c not in lossy:
            undeclared[name] = (text, latin, back)
        if back == text and c in lossy:
            stale[name] = latin
        if back != text and c in lossy:
            assert round_trip_reason(text, back, script) == lossy[c], name
    assert not undeclared and not stale


def test_added_letters_name_their_source_and_fit_the_tables():
    """Every row of the letter tables belongs to a block it adds to, with a known source or reason."""
    for script, group, key, native, latin, source in LETTERS:
        assert source in ("iso", "ak", "ours")
        assert all(BLOCKS[script][0] <= ord(c) <= BLOCKS[script][1] for c in native)
        assert key is None or key.isascii() or latin is None  # a Devanagari key takes the scheme's Latin
    for script, group, key, native, latin, reason in FORWARD:
        assert key is None and latin and reason
    for script, native, written, reason in EQUIVALENTS:
        assert reason and native != written and all(BLOCKS[script][0] <= ord(c) <= BLOCKS[script][1]
                                                     for c in native + written)


@pytest.mark.parametrize("text,script,expected", [
    # ISO 15919 rows: candra e/o ê ô, ś, v, ĉ, n̆j, ṉ, ṯ, ḫ
    ("ગૅસ", "Gujr", "gêsa"), ("ઑફિસ", "Gujr", "ôphisa"), ("ਸ਼ੇਰ", "Guru", "śēra"),
    ("ୱେବସାଇଟ", "Orya", "vēbasāiṭa"), ("ৱ", "Beng", "va"), ("ౘ", "Telu", "ĉa"), ("ඦ", "Sinh", "n̆ja"),
    ("ഩ", "Mlym", "ṉa"), ("ഺ", "Mlym", "ṯa"), ("ೲ", "Knda", "ḫ"),
    # one-way readings: addak doubles, chillu is consonant + virama, AU length mark after a consonant
    ("ਪੱਕਾ", "Guru", "pakkā"), ("ਕੱ", "Guru", "ka"), ("അവൻ", "Mlym", "avan"), ("കൗ", "Mlym", "kau"),
    ("ർ", "Mlym", "r"),
    # aksharamukha's readings of Kashmiri and Marathi letters
    ("कऺ", "Deva", "kö"), ("ॲ", "Deva", "æ"), ("ॹ", "Deva", "z̈a"),
    # punctuation policy: danda and double danda ".", abbreviation sign "."
    ("नमस्ते।", "Deva", "namastē."), ("ਸਤਿ॥", "Guru", "sati."), ("डॉ॰", "Deva", "ḍô."), ("෧෨", "Sinh", "12"),
])
def test_readings(text, script, expected):
    assert get_romanizer(_code(script)).romanize(text) == expected


@pytest.mark.parametrize("text,expected", [
    ("ཡོད།", "yod."), ("ཨོཾ", "om"), ("《ཀ》", "«ka»"), ("༄༅། །ཀ", ". .ka"),
])
def test_tibetan_readings_with_uroman(text, expected):
    assert get_romanizer("bod_Tibt").romanize(text) == expected
