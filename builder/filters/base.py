"""Bookkeeping shared by every filter: drop records, the ledger, the step context.

A concrete filter answers one question about one record ("keep?") and, when
the answer is no, names the reason with a short stable string such as
``fill_in_blank``. Everything else lives here, as in datatrove's
``BaseFilter``: looping, and routing every drop to the :class:`Ledger` that
becomes ``dropped.jsonl`` and is the one place drops are counted per reason.

Three shapes of step exist:

* :class:`Filter` -- ``keep(item)`` returns ``True``, ``False`` (drop with the
  filter's own name) or a reason string;
* :class:`Transform` -- ``apply(item)`` returns a (possibly changed)
  record or a reason string, and may draw from ``self.rng``, the step's
  seeded generator;
* group steps override :meth:`Filter.run` to see all records of a split
  (e.g. completing MCScript options from the other questions of a passage).

>>> from builder.readers.base import RawMCItem
>>> class NoQuestionMark(Filter):
...     name = "no_question_mark"
...     reasons = ("no_question_mark",)
...     def keep(self, item):
...         return item.question.endswith("?")
>>> items = [RawMCItem("demo", "train", "p", f"q{i}", "Text.", q, ["a", "b", "c", "d"], [0], "f.json", f"#{i}")
...          for i, q in enumerate(["Why?", "Say why."])]
>>> ledger = Ledger()
>>> kept = NoQuestionMark().run(items, StepContext("demo", "train", "train", 0, ledger))
>>> len(kept), ledger.entries[0].reason
(1, 'no_question_mark')
"""
from __future__ import annotations

import zlib
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, ClassVar, Iterable

from schemas.errors import RecipeError

from ..readers.base import BadRecord, RawMCItem


@dataclass(frozen=True, slots=True)
class Drop:
    """One dropped record, as written to ``dropped.jsonl``."""

    source: str
    split: str  # output split (train/dev)
    native_split: str  # the corpus's own split name
    file: str
    record_id: str
    reason: str
    step: str  # the filter (or "reader") that dropped it
    passage_id: str = ""
    question_id: str = ""
    message: str = ""

    def to_dict(self) -> dict[str, str]:
        return {k: getattr(self, k) for k in self.__slots__}


class Ledger:
    """Every drop in order, and the counts per (source, split, reason).

    >>> ledger = Ledger()
    >>> ledger.add(Drop("race", "train", "train", "a.txt", "#0", "fill_in_blank", "fill_in_blank"))
    >>> ledger.counts[("race", "train", "fill_in_blank")]
    1
    """

    def __init__(self) -> None:
        self.entries: list[Drop] = []
        self.counts: Counter = Counter()

    def add(self, drop: Drop) -> None:
        self.entries.append(drop)
        self.counts[(drop.source, drop.split, drop.reason)] += 1

    def dropped(self, source: str, split: str) -> int:
        """Number of drops for one source and output split."""
        return sum(n for (s, sp, _), n in self.counts.items() if s == source and sp == split)

    def __len__(self) -> int:
        return len(self.entries)


def _crc(text: str) -> int:
    return zlib.crc32(text.encode("utf-8"))


@dataclass
class StepContext:
    """What a step knows about the records it sees: where they come from, the seed, the ledger.

    ``rng(step)`` gives a NumPy generator seeded from (seed, source, native
    split, step), so adding a source or a filter does not reshuffle the others.
    """

    source: str
    native_split: str
    split: str
    seed: int
    ledger: Ledger

    def rng(self, step: str):
        """A fresh generator for ``step`` on this source and split.

        >>> ctx = StepContext("race", "train", "train", 0, Ledger())
        >>> int(ctx.rng("shuffle").integers(1000)) == int(ctx.rng("shuffle").integers(1000))
        True
        """
        import numpy as np

        return np.random.default_rng([self.seed, _crc(self.source), _crc(self.native_split), _crc(step)])

    def drop(self, item: RawMCItem | BadRecord, reason: str, step: str, message: str = "") -> None:
        """Route one record to the ledger with its reason."""
        self.ledger.add(Drop(
            source=self.source, split=self.split, native_split=self.native_split,
            file=item.file, record_id=item.record, reason=reason, step=step,
            passage_id=getattr(item, "passage_id", ""), question_id=getattr(item, "question_id", ""),
            message=message,
        ))


class Filter:
    """Base class: loops over records, routes drops to the ledger.

    Subclasses set :attr:`name` (the recipe name), :attr:`reasons` (every
    reason they may emit; stable names), optionally :attr:`params` (accepted
    keyword parameters and their types), and implement :meth:`keep`.
    """

    name: ClassVar[str] = ""
    reasons: ClassVar[tuple[str, ...]] = ()
    params: ClassVar[dict[str, type]] = {}

    def __init__(self, **params: Any) -> None:
        for key, value in params.items():
            if key not in self.params:
                allowed = ", ".join(sorted(self.params)) or "none"
                raise RecipeError(f"filter {self.name!r} has no parameter {key!r}; allowed: {allowed}")
            want = self.params[key]
            if not isinstance(value, want) or isinstance(value, bool) and want is not bool:
                raise RecipeError(f"filter {self.name!r} parameter {key!r} must be {want.__name__}, "
                                  f"found {value!r}")
        self.options = dict(params)

    def keep(self, item: RawMCItem) -> bool | str:
        """``True`` keeps, ``False`` drops with reason :attr:`name`, a string drops with that reason.

        A ``(reason, message)`` pair drops with a message for the ledger.
        """
        raise NotImplementedError

    def _verdict(self, item: RawMCItem, ctx: StepContext) -> RawMCItem | str | tuple[str, str]:
        verdict = self.keep(item)
        if verdict is True:
            return item
        return self.name if verdict is False else verdict

    def run(self, items: Iterable[RawMCItem], ctx: StepContext) -> list[RawMCItem]:
        """Keep or drop each record; drops go to ``ctx.ledger`` with their reason."""
        kept = []
        for item in items:
            result = self._verdict(item, ctx)
            if isinstance(result, (str, tuple)):
                reason, message = (result, "") if isinstance(result, str) else result
                ctx.drop(item, reason, self.name, message)
            else:
                kept.append(result)
        return kept


class Transform(Filter):
    """A step that may change a record (e.g. choose 4 of its options) or drop it.

    Implement :meth:`apply`; it receives the step's seeded generator in
    ``self.rng`` for the current source and split.
    """

    def apply(self, item: RawMCItem) -> RawMCItem | str | tuple[str, str]:
        raise NotImplementedError

    def run(self, items: Iterable[RawMCItem], ctx: StepContext) -> list[RawMCItem]:
        self.rng = ctx.rng(self.name)
        return super().run(items, ctx)

    def _verdict(self, item: RawMCItem, ctx: StepContext) -> RawMCItem | str | tuple[str, str]:
        return self.apply(item)


def replace_options(item: RawMCItem, options: list[str], correct: list[int]) -> RawMCItem:
    """A copy of ``item`` with new options and correct indexes (the reader's record is left as is)."""
    return RawMCItem(item.corpus, item.split, item.passage_id, item.question_id, item.passage, item.question,
                     options, correct, item.file, item.record, item.meta)
