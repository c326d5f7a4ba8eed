"""Drop a question that repeats an earlier one of the same source.

Two records are duplicates when passage, question and the set of options are
equal (whitespace at the ends ignored). The first one read is kept. One
instance of the filter sees every split of its source in recipe order, so a
``dev`` copy of a ``train`` question is dropped from ``dev``.

>>> from builder.readers.base import RawMCItem
>>> a = RawMCItem("race", "train", "p", "q1", "Text.", "Why?", ["a", "b", "c", "d"], [0], "f", "#0")
>>> b = RawMCItem("race", "dev", "p", "q2", "Text.", "Why?", ["b", "a", "c", "d"], [1], "g", "#0")
>>> f = DuplicateQuestion()
>>> f.keep(a), f.keep(b)[0]
(True, 'duplicate_question')
"""
from __future__ import annotations

from .base import Filter


class DuplicateQuestion(Filter):
    name = "duplicate_question"
    reasons = ("duplicate_question",)

    def __init__(self, **params) -> None:
        super().__init__(**params)
        self.seen: dict[tuple, str] = {}

    @staticmethod
    def key(item) -> tuple:
        """What makes two records duplicates: passage, question and the set of options, stripped."""
        return (item.passage.strip(), item.question.strip(), tuple(sorted(option.strip() for option in item.options)))

    @staticmethod
    def where(item) -> str:
        """How a later duplicate names this record (``"train RACE/train/high/1.txt #0"``)."""
        return f"{item.split} {item.file} {item.record}"

    def keep(self, item) -> bool | tuple[str, str]:
        key = self.key(item)
        first = self.seen.get(key)
        if first is not None:
            return self.name, f"same passage, question and options as {first}"
        self.seen[key] = self.where(item)
        return True
