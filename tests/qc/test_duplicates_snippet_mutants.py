"""Where the near-duplicate report's snippets start (issue 27's mutation run).

``qc.duplicates.around_difference`` shows two near copies from a little before their first difference; a
difference near the start shows both from their first character, with no leading ellipsis.
"""
from __future__ import annotations

from qc.duplicates import around_difference


def test_a_difference_near_the_start_is_shown_from_the_first_character():
    assert around_difference("abc one", "abc two", 12) == ("abc one", "abc two")
    assert around_difference("abc one and more words", "abc two and more words", 12) == (
        "abc one and …", "abc two and …")
