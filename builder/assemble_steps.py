"""Run a source's filter steps over a stream of records, batch by batch, with the decisions of the list API.

:meth:`builder.filters.Filter.run` sees every record of a split at once. The
streaming assembly (:mod:`builder.assemble_stream`) instead feeds the records
in batches, in reading order, through a :class:`Chain` of runners, one per
step, that reach the same decisions and write the same ledger entries:

* a record-local filter (:data:`LOCAL`: its verdict depends on the record
  alone) and a :class:`~builder.filters.Transform` run the base-class loop on
  each batch; the transform draws from one generator per split, created once
  (``Transform.run`` would reseed it per call);
* ``complete_options`` completes the questions of one passage at a time: a
  passage's questions come one after another (the readers' contract), so its
  pool is the same as over the whole split; a passage that comes back after
  another one is an error naming the record;
* ``duplicate_question`` keeps a 16-byte BLAKE2 digest of each key in sorted
  arrays and the first record's place on disk (:class:`SeenStore`), so it
  holds 24 bytes a record instead of the record's text;
* any other step (a plug-in that overrides ``run``) gets the whole split at
  the end, as before.

:func:`kind` tells where a step may run: ``local`` steps anywhere (worker
processes), ``split`` steps where the whole split is seen in order, and
``source`` steps (duplicates across the splits of a source) in the one process
that sees every split.

>>> from builder.readers.base import RawMCItem
>>> from builder.filters import get_filter
>>> items = [RawMCItem("race", "train", "p", f"q{i}", "Text.", q, list("abcd"), [0], "f", f"#{i}")
...          for i, q in enumerate(["Why?", "A _ .", "Why?"])]
>>> ledger = StepLedger()
>>> ctx = StepContext("RACE", "train", "train", 0, ledger)
>>> chain = Chain([get_filter("fill_in_blank")], 0, ctx)
>>> [i.question_id for i in chain.feed(items[:2]) + chain.feed(items[2:]) + chain.finish()]
['q0', 'q2']
>>> [(pos, d.reason) for pos, d in ledger.drops]
[(0, 'fill_in_blank')]
"""
from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from schemas.errors import SourceError

from .filters import FourOptions, StepContext, Transform
from .filters.base import Filter
from .filters.complete_options import CompleteOptions
from .filters.duplicate_question import DuplicateQuestion
from .filters.empty_option import EmptyOption
from .filters.empty_passage import EmptyPassage
from .filters.fill_in_blank import FillInBlank
from .filters.too_many_sentences import TooManySentences

#: Steps whose verdict depends on the record alone (exact classes: a subclass may keep state).
LOCAL = (FillInBlank, TooManySentences, EmptyPassage, EmptyOption, FourOptions)

#: Steps that do not read ``item.meta`` (a worker need not send it to the main process for them).
NO_META = (FillInBlank, EmptyPassage, EmptyOption, FourOptions, DuplicateQuestion, CompleteOptions)


def kind(step: Filter) -> str:
    """``local``, ``split`` (must see its split whole and in order) or ``source`` (every split of its source)."""
    if type(step) in LOCAL:
        return "local"
    if type(step) is DuplicateQuestion:
        return "source"
    return "split"


def dup_digest(item) -> bytes:
    """16-byte BLAKE2 digest of :meth:`DuplicateQuestion.key` (``repr`` of the key: one text per key)."""
    return hashlib.blake2b(repr(DuplicateQuestion.key(item)).encode("utf-8", "surrogatepass"),
                           digest_size=16).digest()


class StepLedger:
    """Drops of one split in the order they happen, each with the position of the step that made it.

    ``position`` is set by :class:`Chain` before it calls a step (-1: the reader).
    """

    def __init__(self) -> None:
        self.position = -1
        self.drops: list = []

    def add(self, drop) -> None:
        self.drops.append((self.position, drop))


class SeenStore:
    """What ``duplicate_question`` has seen: 16-byte digests and where each first copy is, in bounded memory.

    The latest digests sit in a dict; every :data:`RECENT` of them are merged
    into sorted NumPy arrays (two 64-bit halves of the digest, 16 bytes a
    record), and the texts naming the first copies go to a file (``path``),
    read back only for a duplicate. One store serves every table (a step of a source).

    >>> import tempfile, os
    >>> store = SeenStore(os.path.join(tempfile.mkdtemp(), "seen"))
    >>> t = store.table("RACE")
    >>> store.add(t, {b"a" * 16: "train 1.txt #0"})
    {}
    >>> store.add(t, {b"a" * 16: "dev 2.txt #1", b"b" * 16: "dev 2.txt #2"})
    {b'aaaaaaaaaaaaaaaa': 'train 1.txt #0'}
    """

    RECENT = 1 << 14

    def __init__(self, path: str | Path):
        self.file = open(path, "w+b")
        self.tables: dict = {}

    def table(self, key) -> dict:
        """The table of one step of one source (created on first use)."""
        if key not in self.tables:
            self.tables[key] = {"recent": {}, "hi": np.zeros(0, np.uint64), "lo": np.zeros(0, np.uint64),
                                "at": np.zeros(0, np.int64)}
        return self.tables[key]

    def add(self, table: dict, rows: dict[bytes, str]) -> dict[bytes, str]:
        """Add ``{digest: first}`` where the digest is new; return ``{digest: first}`` of those already there."""
        recent = table["recent"]
        found = {d: recent[d] for d in rows if d in recent}
        rest = [d for d in rows if d not in found]
        if rest and len(table["hi"]):
            halves = np.frombuffer(b"".join(rest), dtype=np.uint64).reshape(-1, 2)
            left = np.searchsorted(table["hi"], halves[:, 0], "left")
            right = np.searchsorted(table["hi"], halves[:, 0], "right")
            for k in np.flatnonzero(right > left).tolist():
                for j in range(left[k], right[k]):
                    if table["lo"][j] == halves[k, 1]:
                        found[rest[k]] = self._read(int(table["at"][j]))
        for d, first in rows.items():
            if d not in found:
                recent[d] = first
        if len(recent) >= self.RECENT:
            self._merge(table)
        return found

    def _merge(self, table: dict) -> None:
        recent, at = table["recent"], []
        self.file.seek(0, 2)
        for first in recent.values():
            data = first.encode("utf-8", "surrogatepass")
            at.append(self.file.tell())
            self.file.write(len(data).to_bytes(4, "little") + data)
        halves = np.frombuffer(b"".join(recent), dtype=np.uint64).reshape(-1, 2)
        order = np.argsort(halves[:, 0], kind="stable")
        new_hi, new_lo, new_at = halves[order, 0], halves[order, 1], np.array(at, dtype=np.int64)[order]
        slots = np.searchsorted(table["hi"], new_hi)  # a sorted insert: one copy of the arrays, no sort of them
        table.update(hi=np.insert(table["hi"], slots, new_hi), lo=np.insert(table["lo"], slots, new_lo),
                     at=np.insert(table["at"], slots, new_at), recent={})

    def _read(self, at: int) -> str:
        self.file.seek(at)
        size = int.from_bytes(self.file.read(4), "little")
        return self.file.read(size).decode("utf-8", "surrogatepass")

    def close(self) -> None:
        self.file.close()


class _Plain:
    """A record-local filter or a transform: the base-class loop, batch after batch."""

    def __init__(self, step: Filter, ctx: StepContext):
        self.step, self.ctx = step, ctx
        if isinstance(step, Transform):
            step.rng = ctx.rng(step.name)  # one generator per split, as Transform.run makes it

    def feed(self, items: list) -> list:
        return Filter.run(self.step, items, self.ctx) if items else []

    def finish(self) -> list:
        return []


class _ByPassage:
    """``complete_options``, one passage at a time (the same draws as over the whole split)."""

    def __init__(self, step: CompleteOptions, ctx: StepContext):
        self.step, self.ctx = step, ctx
        self.rng = ctx.rng(step.name)
        self.current, self.buffer, self.done = None, [], set()

    def feed(self, items: list) -> list:
        out = []
        for item in items:
            if item.passage_id != self.current:
                out += self.finish()
                if item.passage_id in self.done:
                    raise SourceError(f"{self.step.name}: the questions of passage {item.passage_id} are not "
                                      "together (another passage comes between them); the streaming assembly "
                                      "needs a passage's questions one after another", file=item.file,
                                      record=item.record)
                self.current = item.passage_id
            self.buffer.append(item)
        return out

    def finish(self) -> list:
        if not self.buffer:
            return []
        self.done.add(self.current)
        items, self.buffer = self.buffer, []
        return self.step.complete(items, self.ctx, self.rng)


class _Whole:
    """Any other step that overrides ``run``: it gets the whole split at the end."""

    def __init__(self, step: Filter, ctx: StepContext):
        self.step, self.ctx, self.buffer = step, ctx, []

    def feed(self, items: list) -> list:
        self.buffer += items
        return []

    def finish(self) -> list:
        items, self.buffer = self.buffer, []
        return self.step.run(items, self.ctx)


class _Dedup:
    """``duplicate_question`` over every split of its source, remembered in a :class:`SeenStore`."""

    def __init__(self, step: DuplicateQuestion, ctx: StepContext, store: SeenStore, table_key):
        self.step, self.ctx, self.store = step, ctx, store
        self.table = store.table(table_key)

    def feed(self, items: list, digests: list | None = None) -> list:
        if not items:
            return []
        if digests is None or any(d is None for d in digests):
            digests = [dup_digest(item) for item in items]
        first: dict[bytes, int] = {}  # digest -> the first record with it in this batch
        for i, digest in enumerate(digests):
            first.setdefault(digest, i)
        earlier = self.store.add(self.table, {d: self.step.where(items[i]) for d, i in first.items()})
        kept = []
        for i, (item, digest) in enumerate(zip(items, digests)):
            if digest not in earlier and first[digest] == i:
                kept.append(item)
                continue
            where = earlier.get(digest) or self.step.where(items[first[digest]])
            self.ctx.drop(item, self.step.name, self.step.name, f"same passage, question and options as {where}")
        return kept

    def finish(self) -> list:
        return []


class Chain:
    """Steps ``steps[start:]`` of one split as streaming runners; drops go to ``ctx.ledger`` with their position.

    ``store`` and ``source`` are needed only when a ``duplicate_question`` step is among them.
    """

    def __init__(self, steps: list, start: int, ctx: StepContext, store: SeenStore | None = None, source=None):
        self.ctx, self.runners, self.positions = ctx, [], []
        for position in range(start, len(steps)):
            step = steps[position]
            if type(step) is DuplicateQuestion:
                runner = _Dedup(step, ctx, store, (source, position))
            elif type(step) is CompleteOptions:
                runner = _ByPassage(step, ctx)
            elif type(step).run in (Filter.run, Transform.run):
                runner = _Plain(step, ctx)
            else:
                runner = _Whole(step, ctx)
            self.runners.append(runner)
            self.positions.append(position)

    def feed(self, items: list, digests: list | None = None) -> list:
        """The records of ``items`` that pass every step so far (some may be held back until :meth:`finish`)."""
        for k, runner in enumerate(self.runners):
            self.ctx.ledger.position = self.positions[k]
            if k == 0 and isinstance(runner, _Dedup):
                items = runner.feed(items, digests)
            else:
                items = runner.feed(items)
        return items

    def finish(self) -> list:
        """The end of the split: what the steps held back, through the steps after them."""
        carry: list = []
        for k, runner in enumerate(self.runners):
            self.ctx.ledger.position = self.positions[k]
            carry = runner.feed(carry) + runner.finish()
        return carry

    def first_is_dedup(self) -> bool:
        return bool(self.runners) and isinstance(self.runners[0], _Dedup)
