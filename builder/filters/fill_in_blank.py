"""Drop fill-in-the-blank questions: the question contains ``_``.

Belebele drops them from RACE and SciQ (appendix A.2; the script tests
``question.str.contains("_")``), since a Belebele question is a question,
not a cloze sentence.

>>> from builder.readers.base import RawMCItem
>>> item = RawMCItem("race", "train", "p", "q", "Text.", "Tom went to the _ .", ["a", "b", "c", "d"], [0], "f", "#0")
>>> FillInBlank().keep(item)
False
"""
from __future__ import annotations

from .base import Filter


class FillInBlank(Filter):
    name = "fill_in_blank"
    reasons = ("fill_in_blank",)
    scope = "item"
    uses_meta = False

    def keep(self, item) -> bool:
        return "_" not in item.question
