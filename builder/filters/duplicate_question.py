"""Drop a question that repeats an earlier one of the same source.

Two records are duplicates when passage, question and the set of options are
equal (whitespace at the ends ignored). The first one read is kept. One
instance of the filter sees every split of its source in recipe order, so a
``dev`` copy of a ``train`` question is dropped from ``dev``. The step only
says what a record's identity is (:meth:`DuplicateQuestion.key`); the runner
remembers the keys of a source (:class:`builder.filters.runner.SeenStore`).

>>> from builder.readers.base import RawMCItem
>>> from builder.filters.base import Ledger, StepContext
>>> a = RawMCItem("race", "train", "p", "q1", "Text.", "Why?", ["a", "b", "c", "d"], [0], "f", "#0")
>>> b = RawMCItem("race", "train", "p", "q2", "Text.", "Why?", ["b", "a", "c", "d"], [1], "g", "#0")
>>> ledger = Ledger()
>>> [item.question_id for item in DuplicateQuestion().run([a, b], StepContext("RACE", "train", "train", 0, ledger))]
['q1']
>>> ledger.entries[0].message
'same passage, question and options as train f #0'
"""
from __future__ import annotations

from .base import Filter


class DuplicateQuestion(Filter):
    name = "duplicate_question"
    reasons = ("duplicate_question",)
    scope = "source"
    uses_meta = False

    @staticmethod
    def key(item) -> tuple:
        """What makes two records duplicates: passage, question and the set of options, stripped."""
        return (item.passage.strip(), item.question.strip(), tuple(sorted(option.strip() for option in item.options)))

    @staticmethod
    def where(item) -> str:
        """How a later duplicate names this record (``"train RACE/train/high/1.txt #0"``)."""
        return f"{item.split} {item.file} {item.record}"

    def repeated(self, first: str) -> tuple[str, str]:
        return self.name, f"same passage, question and options as {first}"
