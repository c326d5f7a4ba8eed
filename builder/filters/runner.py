"""The one runner of filter steps: records stream through a :class:`Chain`, batch by batch, in reading order.

Every step declares its scope (:data:`builder.filters.base.SCOPES`), and the
chain runs it with the runner of that scope (:data:`RUNNERS`), so that any
batching of a split's records gives the same decisions and ledger entries as
the whole split at once:

* ``item`` and ``split``: :meth:`~builder.filters.Filter.decide` on each record;
  the step's generator (``self.rng``) is created once per split by
  :meth:`~builder.filters.Filter.start`, so a transform draws in reading order;
* ``passage``: the questions of one passage are gathered and handed to
  :meth:`~builder.filters.Filter.decide_passage` together; a passage's
  questions come one after another (the readers' contract), and a passage that
  comes back after another one is an error naming the record;
* ``source``: a 16-byte BLAKE2 digest of each record's
  :meth:`~builder.filters.Filter.key` is kept in sorted arrays, with the
  first record's place on disk (:class:`SeenStore`), so the step holds 24
  bytes a record instead of its text; a later record with a key already seen
  in its source (any split) is dropped, for the reason and with the message
  :meth:`~builder.filters.Filter.repeated` gives (naming the first).

:meth:`builder.filters.Filter.run` is this runner over one list.

>>> from builder.readers.base import RawMCItem
>>> from builder.filters import StepContext, get_filter
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
import io
from pathlib import Path

import numpy as np

from schemas.errors import SourceError



def key_digest(step: Filter, item) -> bytes:
    """16-byte BLAKE2 digest of ``step.key(item)``: one text per key, so equal keys, and only they, share it.

    A key that is a tuple whose first element is a string (a passage, shared
    by the questions after it) is hashed as that string, length first, then
    ``repr`` of the rest; the first part's hash state is kept for the next key
    with the same first element. Any other key is hashed as its ``repr``.

    >>> class Step:
    ...     key = staticmethod(lambda item: item)
    >>> key_digest(Step(), ("Text.", "Why?")) == key_digest(Step(), ("Text.", "Why?"))
    True
    >>> len({key_digest(Step(), k) for k in [("ab", "c"), ("a", "bc"), ("abc",), "('ab', 'c')"]})
    4
    """
    key = step.key(item)
    if type(key) is not tuple or not key or type(key[0]) is not str:
        return hashlib.blake2b(b"r" + _utf8(repr(key)), digest_size=16).digest()
    head, state = _HEAD
    if head is not key[0] and head != key[0]:
        head = key[0]
        data = _utf8(head)
        state = hashlib.blake2b(b"t%d:" % len(data), digest_size=16)
        state.update(data)
        _HEAD[:] = head, state
    state = state.copy()
    state.update(_utf8(repr(key[1:])))
    return state.digest()


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


#: The first element of the last tuple key :func:`key_digest` hashed, and the hash state after it.
_HEAD: list = [None, None]


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
    """What the ``source`` steps have seen: 16-byte digests and where each first copy is, in bounded memory.

    The latest digests sit in a dict; every :data:`RECENT` of them are merged
    into sorted NumPy arrays (two 64-bit halves of the digest, 16 bytes a
    record), and the texts naming the first copies go to a file (``path``),
    read back only for a duplicate (``path=None``: in memory). One store serves
    every table (a step of a source).

    >>> import tempfile, os
    >>> store = SeenStore(os.path.join(tempfile.mkdtemp(), "seen"))
    >>> t = store.table("RACE")
    >>> store.add(t, {b"a" * 16: "train 1.txt #0"})
    {}
    >>> store.add(t, {b"a" * 16: "dev 2.txt #1", b"b" * 16: "dev 2.txt #2"})
    {b'aaaaaaaaaaaaaaaa': 'train 1.txt #0'}
    """

    RECENT = 1 << 14

    def __init__(self, path: str | Path | None = None):
        self.file = io.BytesIO() if path is None else open(path, "w+b")
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


class _PerRecord:
    """Scopes ``item`` and ``split``: :meth:`Filter.decide` on each record."""

    def __init__(self, step: Filter, ctx: StepContext, store, table_key):
        self.step, self.ctx = step, ctx

    def feed(self, items: list) -> list:
        step, ctx, kept = self.step, self.ctx, []
        for item in items:
            result = step.decide(item)
            if isinstance(result, (str, tuple)):
                reason, message = (result, "") if isinstance(result, str) else result
                ctx.drop(item, reason, step.name, message)
            else:
                kept.append(result)
        return kept

    def finish(self) -> list:
        return []


class _PerPassage:
    """Scope ``passage``: :meth:`Filter.decide_passage` on the questions of each passage, as they come."""

    def __init__(self, step: Filter, ctx: StepContext, store, table_key):
        self.step, self.ctx = step, ctx
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
        return self.step.decide_passage(items, self.ctx)


class _PerSource:
    """Scope ``source``: drop a record whose :meth:`Filter.key` came earlier in its source (in a :class:`SeenStore`)."""

    def __init__(self, step: Filter, ctx: StepContext, store: SeenStore, table_key):
        self.step, self.ctx, self.store = step, ctx, store
        self.table = store.table(table_key)

    def feed(self, items: list, digests: list | None = None) -> list:
        if not items:
            return []
        if digests is None or any(d is None for d in digests):
            digests = [key_digest(self.step, item) for item in items]
        first: dict[bytes, int] = {}  # digest -> the first record with it in this batch
        for i, digest in enumerate(digests):
            first.setdefault(digest, i)
        earlier = self.store.add(self.table, {d: self.step.where(items[i]) for d, i in first.items()})
        kept = []
        for i, (item, digest) in enumerate(zip(items, digests)):
            if digest not in earlier and first[digest] == i:
                kept.append(item)
                continue
            reason, message = self.step.repeated(earlier.get(digest) or self.step.where(items[first[digest]]))
            self.ctx.drop(item, reason, self.step.name, message)
        return kept

    def finish(self) -> list:
        return []


#: scope -> its runner, from the narrowest scope to the widest.
RUNNERS = {"item": _PerRecord, "split": _PerRecord, "passage": _PerPassage, "source": _PerSource}
#: What a step's decision may depend on (:mod:`builder.filters.base`): the scopes the runner runs.
SCOPES = tuple(RUNNERS)


class Chain:
    """Steps ``steps[start:]`` of one split as streaming runners; drops go to ``ctx.ledger`` with their position.

    ``store`` and ``source`` name the :class:`SeenStore` table of a ``source`` step (``(source, position)``):
    pass the same store for every split of a source (default: a store of this chain's own, in memory).
    """

    def __init__(self, steps: list, start: int, ctx: StepContext, store: SeenStore | None = None, source=None):
        self.ctx, self.runners, self.positions = ctx, [], []
        for position in range(start, len(steps)):
            step = steps[position]
            runner = RUNNERS.get(step.scope)
            if runner is None:
                raise TypeError(f"filter {type(step).__name__} ({step.name!r}) declares scope {step.scope!r}; "
                                f"a filter must declare one of {', '.join(SCOPES)}")
            if step.scope == "source" and store is None:
                store = SeenStore()
            step.start(ctx)
            self.runners.append(runner(step, ctx, store, (source, position)))
            self.positions.append(position)

    def feed(self, items: list, digests: list | None = None) -> list:
        """The records of ``items`` that pass every step so far (some may be held back until :meth:`finish`).

        ``digests``: the :func:`key_digest` of each record for a first step of scope ``source``, when known.
        """
        for k, runner in enumerate(self.runners):
            self.ctx.ledger.position = self.positions[k]
            if k == 0 and isinstance(runner, _PerSource):
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

    def first_is_source(self) -> bool:
        return bool(self.runners) and isinstance(self.runners[0], _PerSource)
