"""``for_terminal`` returns a text that ``str.isprintable()`` accepts without scanning it; that is sound only
if no character of the escaped categories is printable to Python, which this checks for every code point
(a newer Python's Unicode tables can move characters between categories)."""
from __future__ import annotations

import sys
import unicodedata

from schemas.escape import _CONTROL, for_terminal


def test_no_character_that_must_be_escaped_is_printable():
    leaks = [hex(cp) for cp in range(sys.maxunicode + 1)
             if unicodedata.category(chr(cp)) in _CONTROL and chr(cp).isprintable()]
    assert leaks == []


def test_printable_texts_come_back_as_they_are_and_the_others_escaped():
    assert for_terminal("नमस्ते, world ﷺ") == "नमस्ते, world ﷺ"
    assert for_terminal("a\u202eb\x1b[2J") == "a\\u202eb\\x1b[2J"
    assert for_terminal("tab\there\u00a0nbsp") == "tab\there\u00a0nbsp"  # not printable, nothing to escape
