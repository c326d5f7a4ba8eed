"""Bookkeeping shared by every filter: drop records, the ledger, the step context, the filter contract.

A concrete filter answers one question about one record ("keep?") and, when
the answer is no, names the reason with a short stable string such as
``fill_in_blank``. Everything else lives here and in :mod:`builder.filters.runner`,
as in datatrove's ``BaseFilter``: looping, and routing every drop to the
:class:`Ledger` that becomes ``dropped.jsonl`` and is the one place drops are
counted per reason.

Every step declares its :attr:`Filter.scope`, what its decision depends on;
the one runner (:class:`builder.filters.runner.Chain`) reads it to run the
step over a stream of records and the assembly to place it (worker processes
or the main one):

``item``
    the record alone (no state, no draws): :meth:`Filter.keep`, run anywhere,
    on any part of a split;
``split``
    the records of one split in reading order: :meth:`Filter.decide` per
    record, with the split's seeded generator in ``self.rng`` (:class:`Transform`,
    whose default this is);
``passage``
    the questions of one passage together: :meth:`Filter.decide_passage`
    (``complete_options``);
``source``
    every split of its source: :meth:`Filter.key` names a record, and a
    record whose key came earlier in the source is dropped, for the reason
    :meth:`Filter.repeated` gives (``duplicate_question``).

A step that declares no scope cannot be built (a :class:`TypeError`): the
runner never guesses what a decision depends on. ``uses_meta`` says whether
the step reads ``item.meta`` (the assembly's workers send it only then; the
safe default is ``True``).

>>> from builder.readers.base import RawMCItem
>>> class NoQuestionMark(Filter):
...     name = "no_question_mark"
...     reasons = ("no_question_mark",)
...     scope = "item"
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

import json
import zlib
from collections import Counter
from dataclasses import dataclass, field
from json.encoder import encode_basestring as _json_text
from typing import Any, ClassVar, Iterable

from schemas.errors import RecipeError

from ..readers.base import BadRecord, RawMCItem
from .runner import SCOPES, Chain


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

    def line(self) -> str:
        """Its line of ``dropped.jsonl``: ``json.dumps(self.to_dict(), ensure_ascii=False, sort_keys=True)``,
        from the JSON string of each field (the fields are strings), six times faster.

        >>> drop = Drop("RACE", "train", "train", "a.txt", "#0", "fill_in_blank", "fill_in_blank", message='say "é"')
        >>> print(drop.line()[:65])
        {"file": "a.txt", "message": "say \\"é\\"", "native_split": "train"
        >>> drop.line() == json.dumps(drop.to_dict(), ensure_ascii=False, sort_keys=True)
        True
        """
        if not all(type(getattr(self, k)) is str for k in self.__slots__):
            return json.dumps(self.to_dict(), ensure_ascii=False, sort_keys=True)
        return (f'{{"file": {_json_text(self.file)}, "message": {_json_text(self.message)}, "native_split": '
                f'{_json_text(self.native_split)}, "passage_id": {_json_text(self.passage_id)}, "question_id": '
                f'{_json_text(self.question_id)}, "reason": {_json_text(self.reason)}, "record_id": '
                f'{_json_text(self.record_id)}, "source": {_json_text(self.source)}, '
                f'"split": {_json_text(self.split)}, "step": {_json_text(self.step)}}}')


class Ledger:
    """Every drop in order, and the counts per (source, split, reason).

    >>> ledger = Ledger()
    >>> ledger.add(Drop("race", "train", "train", "a.txt", "#0", "fill_in_blank", "fill_in_blank"))
    >>> ledger.counts[("race", "train", "fill_in_blank")]
    1
    >>> ledger.add(Drop("race", "train", "train", "a.txt", "#3", "fill_in_blank", "fill_in_blank"))
    >>> ledger.add(Drop("race", "train", "train", "b.txt", "#0", "too_many_sentences", "too_many_sentences"))
    >>> ledger.counts[("race", "train", "fill_in_blank")], ledger.dropped("race", "train"), len(ledger)
    (2, 3, 3)
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
    """Base class: the filter contract; the one runner (:mod:`builder.filters.runner`) loops and routes drops.

    Subclasses set :attr:`name` (the recipe name), :attr:`reasons` (every
    reason they may emit; stable names), :attr:`scope` (one of
    :data:`SCOPES`), optionally :attr:`params` (accepted keyword parameters
    and their types) and :attr:`uses_meta`, and implement the method of their
    scope (:meth:`keep` for ``item``).
    """

    name: ClassVar[str] = ""
    reasons: ClassVar[tuple[str, ...]] = ()
    params: ClassVar[dict[str, type]] = {}
    scope: ClassVar[str | None] = None
    uses_meta: ClassVar[bool] = True

    def __init__(self, **params: Any) -> None:
        if self.scope not in SCOPES:
            raise TypeError(f"filter {type(self).__name__} ({self.name!r}) declares scope {self.scope!r}; "
                            f"a filter must declare one of {', '.join(SCOPES)}")
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

    def start(self, ctx: StepContext) -> None:
        """Called by the runner before the first record of each split: the split's seeded generator."""
        self.rng = ctx.rng(self.name)

    def decide(self, item: RawMCItem) -> RawMCItem | str | tuple[str, str]:
        """Scopes ``item`` and ``split``: the record (possibly changed) to keep, or the reason to drop it.

        A reason is a string or a ``(reason, message)`` pair.
        """
        verdict = self.keep(item)
        if verdict is True:
            return item
        return self.name if verdict is False else verdict

    def decide_passage(self, items: list[RawMCItem], ctx: StepContext) -> list[RawMCItem]:
        """Scope ``passage``: the questions of one passage in, those kept out (drops go to ``ctx.drop``)."""
        raise NotImplementedError

    def key(self, item: RawMCItem):
        """Scope ``source``: what makes two records of a source the same (a hashable value with a stable ``repr``)."""
        raise NotImplementedError

    def where(self, item: RawMCItem) -> str:
        """Scope ``source``: how a later record with the same key names this one in its ledger message."""
        raise NotImplementedError

    def repeated(self, first: str) -> tuple[str, str]:
        """Scope ``source``: ``(reason, message)`` of a record whose key came earlier (``first``: :meth:`where` of it)."""
        raise NotImplementedError

    def run(self, items: Iterable[RawMCItem], ctx: StepContext) -> list[RawMCItem]:
        """This step alone over the records of one split, through the one runner; drops go to ``ctx.ledger``."""
        chain = Chain([self], 0, ctx)
        return chain.feed(list(items)) + chain.finish()


class Transform(Filter):
    """A step that may change a record (e.g. choose 4 of its options) or drop it.

    Implement :meth:`apply`; it receives the step's seeded generator in
    ``self.rng`` for the current source and split, and sees the split's
    records in reading order (scope ``split``).
    """

    scope = "split"

    def apply(self, item: RawMCItem) -> RawMCItem | str | tuple[str, str]:
        raise NotImplementedError

    def decide(self, item: RawMCItem) -> RawMCItem | str | tuple[str, str]:
        return self.apply(item)


def replace_options(item: RawMCItem, options: list[str], correct: list[int]) -> RawMCItem:
    """A copy of ``item`` with new options and correct indexes (the reader's record is left as is)."""
    return RawMCItem(item.corpus, item.split, item.passage_id, item.question_id, item.passage, item.question,
                     options, correct, item.file, item.record, item.meta)
