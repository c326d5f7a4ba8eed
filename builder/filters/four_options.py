"""The last check before shuffling: the record fits Belebele's four-option shape.

The assembly appends this step to every source, after the recipe's own
filters, so that no record that would break :class:`schemas.records.MCItem`
reaches the output, whatever the recipe lists. Its reasons, in the order
they are checked:

``empty_passage``, ``empty_question``, ``empty_option``
    blank text;
``not_four_options``
    not exactly four options (a reader or recipe left a corpus with 2, 3 or
    5+ options without ``complete_options``/``sample_four_options``);
``not_one_correct``
    not exactly one option marked correct;
``correct_text_repeated``
    the correct option's text also appears as a wrong option, so
    ``correct_answer`` could not name a single position.

>>> from builder.readers.base import RawMCItem
>>> FourOptions().keep(RawMCItem("race", "train", "p", "q", "Text.", "Why?", ["a", "b", "a", "d"], [0], "f", "#0"))
'correct_text_repeated'
"""
from __future__ import annotations

from .base import Filter


class FourOptions(Filter):
    name = "four_options"
    reasons = ("empty_passage", "empty_question", "empty_option", "not_four_options", "not_one_correct",
               "correct_text_repeated")
    scope = "item"
    uses_meta = False

    def keep(self, item) -> bool | str:
        if not item.passage or not item.passage.strip():
            return "empty_passage"
        if not item.question or not item.question.strip():
            return "empty_question"
        if not all(option and option.strip() for option in item.options):
            return "empty_option"
        if len(item.options) != 4:
            return "not_four_options"
        if len(set(item.correct)) != 1 or not 0 <= item.correct[0] < 4:
            return "not_one_correct"
        right = item.options[item.correct[0]]
        if sum(option == right for option in item.options) != 1:
            return "correct_text_repeated"
        return True
