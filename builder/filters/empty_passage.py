"""Drop records whose passage is empty or only whitespace.

SciQ has questions without a supporting passage; Belebele's script keeps only
``support.str.len() >= 1``.

>>> from builder.readers.base import RawMCItem
>>> EmptyPassage().keep(RawMCItem("sciq", "train", "p", "q", "  ", "Why?", ["a", "b", "c", "d"], [0], "f", "#0"))
False
"""
from __future__ import annotations

from .base import Filter


class EmptyPassage(Filter):
    name = "empty_passage"
    reasons = ("empty_passage",)
    scope = "item"
    uses_meta = False

    def keep(self, item) -> bool:
        return bool(item.passage and item.passage.strip())
