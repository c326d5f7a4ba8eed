"""Drop records with an empty (or whitespace-only) answer option.

>>> from builder.readers.base import RawMCItem
>>> EmptyOption().keep(RawMCItem("race", "train", "p", "q", "Text.", "Why?", ["a", "", "c", "d"], [0], "f", "#0"))
False
"""
from __future__ import annotations

from .base import Filter


class EmptyOption(Filter):
    name = "empty_option"
    reasons = ("empty_option",)
    scope = "item"
    uses_meta = False

    def keep(self, item) -> bool:
        return all(option and option.strip() for option in item.options)
