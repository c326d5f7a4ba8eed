"""The sentence-count shortcut counts every ASCII terminal mark (issue 27's mutation run).

``more_sentences_than`` decides a text with at most ``limit - 1`` marks without splitting it; a text of
questions only ends its sentences with ``?``, so a shortcut that missed ``?`` would keep it as short.
"""
from __future__ import annotations

from builder.filters.sentences import more_sentences_than


def test_questions_and_exclamations_count_as_sentence_ends():
    assert more_sentences_than("Who came? What for? Why now?", 2)
    assert more_sentences_than("Stop! Wait! Go!", 2)
    assert not more_sentences_than("Who came? What for? Why now?", 3)
