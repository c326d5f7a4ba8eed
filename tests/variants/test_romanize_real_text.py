"""Romanization on the characters real text uses (issue 28, part 5-6).

No asm_Beng sample ships with the toolkit (tests/data holds ben_Beng only), so
the Assamese lines below are composed here from real Assamese words, typed as
FLORES-200's asm_Beng is: the full stop is U+09F7 BENGALI CURRENCY NUMERATOR
FOUR (105 times in asm_Beng), the possessive apostrophe U+02BC MODIFIER LETTER
APOSTROPHE (অসমʼৰ).
"""
from __future__ import annotations

import json
import unicodedata

import pytest

from builder.variants import brahmic
from builder.variants.brahmic_letters import BLOCKS
from builder.variants.romanize import get_romanizer, native_left, romanize_variant
from schemas.io import write_sib_tsv

#: Assamese: "Dispur is the capital of Assam. Guwahati is Assam's largest city."
ASSAMESE = "অসমৰ ৰাজধানী দিছপুৰ৷ গুৱাহাটী অসমʼৰ আটাইতকৈ ডাঙৰ চহৰ৷"
CODES = {"Deva": "hin_Deva", "Beng": "asm_Beng", "Guru": "pan_Guru", "Gujr": "guj_Gujr", "Orya": "ory_Orya",
         "Taml": "tam_Taml", "Telu": "tel_Telu", "Knda": "kan_Knda", "Mlym": "mal_Mlym", "Sinh": "sin_Sinh"}
BASE = {"Deva": "क", "Beng": "ক", "Guru": "ਕ", "Gujr": "ક", "Orya": "କ", "Taml": "க", "Telu": "క", "Knda": "ಕ",
        "Mlym": "ക", "Sinh": "ක"}
#: Number signs with no Latin form, left on purpose (docs/variants.md, "What romanize leaves").
KNOWN_LEFT = {
    "Beng": {0x09F4, 0x09F5, 0x09F6, 0x09F8, 0x09F9},
    "Orya": {0x0B75, 0x0B77},
    "Taml": {0x0BF0, 0x0BF1, 0x0BF2},
    "Telu": set(range(0x0C78, 0x0C7F)),
    "Mlym": {0x0D58, 0x0D59, 0x0D5A, 0x0D5B, 0x0D5D, 0x0D70, 0x0D71, 0x0D72, 0x0D76, 0x0D78},
}


def test_assamese_line_romanizes_with_no_leftover():
    r = get_romanizer("asm_Beng")
    out = r.romanize(ASSAMESE)
    assert native_left(out, "Beng") == (0, 0)
    assert out.count(".") == 2 and "\u09f7" not in out
    assert "\u02bc" in out  # the apostrophe is kept, and is no Bengali character left
    # U+09F7 is written as the danda it stands for
    assert r.romanize("দিছপুৰ৷") == r.romanize("দিছপুৰ।")


def test_leftover_count_is_native_characters_only():
    # 2 native characters left (U+09F9 twice), the apostrophe U+02BC not among them
    assert native_left("asamʼr ৹ ৹", "Beng") == (2, 0)
    assert native_left("ʼʼʼ", "Beng") == (0, 0)
    assert native_left("।", "Beng") == (1, 0)  # a kept danda still counts


@pytest.mark.parametrize("script", sorted(CODES))
def test_every_assigned_code_point_of_the_block(script):
    """Every assigned code point of the block, alone and in a word: what is left is the documented list."""
    r = get_romanizer(CODES[script])
    first, last = BLOCKS[script]
    left = set()
    for cp in range(first, last + 1):
        ch = chr(cp)
        if unicodedata.category(ch) == "Cn":
            continue
        for text in (ch, BASE[script] + ch + BASE[script], f"x {ch} y"):
            if native_left(r.romanize(text), script)[0]:
                left.add(cp)
    assert left == KNOWN_LEFT.get(script, set()), [f"U+{cp:04X} {unicodedata.name(chr(cp))}" for cp in sorted(left)]
    for cp in left:  # only number signs are left: no letter, sign or punctuation mark
        assert unicodedata.category(chr(cp)) == "No"


def test_fractions_with_a_latin_form():
    assert get_romanizer("ory_Orya").romanize("୨୳") == "2\u00bd"
    assert get_romanizer("mal_Mlym").romanize("൧൳") == "1\u00bc"
    assert set(brahmic.NUMBER_FORMS) <= set(CODES)


def test_assamese_variant_folder(tmp_path):
    src = tmp_path / "asm_Beng"
    src.mkdir()
    rows = [{"index_id": str(i), "category": "geography", "text": line}
            for i, line in enumerate([ASSAMESE, "গুৱাহাটী অসমʼৰ চহৰ৷"])]
    write_sib_tsv(src / "test.tsv", rows)
    res = romanize_variant(src, tmp_path / "out")
    assert res.leftover == 0
    info = json.loads((res.out_dir / "variant.json").read_text(encoding="utf-8"))
    assert info["native_letters_left"] == 0
    assert info["punctuation_mapped"]["currency numerator four"] == {"char": "U+09F7", "to": ".", "count": 3}
