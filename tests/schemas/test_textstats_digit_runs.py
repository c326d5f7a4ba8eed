"""``letter_digit_share`` finds digit runs with a regex; it must count what a character-by-character
scan with ``digit_value`` counts, for digits of every script (every Unicode Nd character)."""
from __future__ import annotations

import sys
import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from schemas.textstats import _latin, _run_length, digit_value, letter_digit_share

NDIGITS = [chr(cp) for cp in range(sys.maxunicode + 1) if unicodedata.category(chr(cp)) == "Nd"]


def _scan(texts):
    single = total = 0
    for t in texts:
        for i, c in enumerate(t):
            if digit_value(c) is None or (i > 0 and digit_value(t[i - 1]) is not None):
                continue
            total += 1
            end = i + _run_length(t, i)
            if end - i == 1 and ((i > 0 and _latin(t[i - 1])) or (end < len(t) and _latin(t[end]))):
                single += 1
    return single / total if total else 0.0


def test_every_nd_character_is_a_digit_run_of_one():
    assert all(digit_value(c) is not None for c in NDIGITS)
    assert letter_digit_share([f"a{c} " for c in NDIGITS]) == 1.0
    assert letter_digit_share([f" {c} ²" for c in NDIGITS]) == 0.0


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet=st.one_of(st.sampled_from(NDIGITS), st.sampled_from("aZé ع²¹-,.Ⅻ፲")),
                        max_size=15), max_size=6))
def test_the_share_is_the_character_scans(texts):
    assert letter_digit_share(texts) == _scan(texts)
