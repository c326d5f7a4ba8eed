"""Streaming assembly: records flow from the readers through the filters in batches and onto disk.

What :func:`builder.assemble.assemble_records` does with every record in
lists, this module does with bounded memory, using the cores:

1. **Plan** (this process): each source's files, per native split, in chunks
   of :data:`FILES_PER_TASK`; an error met while planning (a missing folder)
   waits its turn, so errors surface in the order one process meets them.
2. **Read and filter** (worker processes, :mod:`builder.assemble_pool`): a task
   parses its files and runs the steps it may run (:func:`builder.assemble_steps.kind`):
   the record-local filters, and when the task holds its whole split, the
   transforms and ``complete_options`` too, up to the first step that needs
   every split of the source (``duplicate_question``, whose key digest the
   worker computes). Results come back in batches of :data:`BATCH` records,
   in task order.
3. **The rest of the steps** (this process), batch by batch
   (:class:`builder.assemble_steps.Chain`); the survivors of a split are
   pickled to a spill file, its drops to one file per step.
4. **At the end of a split** its size ``n`` is known: the answer shuffle draws
   the same numbers as :func:`builder.shuffle.shuffle_options` (a seeded
   permutation of ``n`` positions, then the wrong options' order in chunks,
   which NumPy draws identically), the rows go to the writers of
   :mod:`builder.assemble_output` and the split's drops to ``dropped.jsonl``,
   reader errors first, then step by step, as the in-memory assembly orders them.

The records, ledger, counts and the bytes of the JSONL, TSV and ledger files
equal the in-memory assembly's, whatever the number of workers; Parquet
files hold the same table, in row groups of at most
:data:`builder.assemble_output.ROW_GROUP_TEXT` characters.
"""
from __future__ import annotations

import contextlib
import itertools
import json
import pickle
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from .assemble_output import Outputs
from .assemble_pool import DONE, ordered_results
from .assemble_steps import NO_META, Chain, SeenStore, StepLedger, dup_digest, kind
from .filters import FourOptions, Ledger, StepContext, get_filter
from .filters.duplicate_question import DuplicateQuestion
from .readers.base import BadRecord, RawMCItem
from .shuffle import balanced_positions

#: Files per task (RACE: about 450 questions).
FILES_PER_TASK = 128
#: Records per message from a worker.
BATCH = 1024

#: ``(recipe, on_error, seed)`` of the running assembly; forked workers inherit it.
_STATE: list = []


class CountLedger(Ledger):
    """The counts of a streamed ledger; its entries are in ``dropped.jsonl``, not in memory."""

    def __init__(self) -> None:
        super().__init__()
        self.total = 0

    def __len__(self) -> int:
        return self.total


@dataclass(frozen=True)
class Task:
    source: int  # index in recipe.sources
    native: str  # native split
    files: tuple[str, ...]
    whole: bool  # the task holds every file of its split
    stop: int  # the worker runs steps[:stop]
    first: bool  # first task of its split
    last: bool  # last task of its split


def build_steps(spec) -> list:
    return [get_filter(f.name, **dict(f.params)) for f in spec.filters] + [FourOptions()]


def _stops(steps) -> tuple[int, int]:
    """How far a worker may run: ``(with part of a split, with the whole split)``."""
    kinds = [kind(s) for s in steps]
    part = next((k for k, x in enumerate(kinds) if x != "local"), len(kinds))
    whole = next((k for k, x in enumerate(kinds) if x == "source"), len(kinds))
    return part, whole


def precomputed(steps, stop: int) -> bool:
    """Whether the steps after a ``duplicate_question`` at ``stop`` are all record-local.

    Their verdicts then depend on the record alone, and ``duplicate_question``
    does not change records, so a worker computes them for every record it
    sends and this process only applies them to the records kept.
    """
    return (stop < len(steps) and type(steps[stop]) is DuplicateQuestion
            and all(kind(s) == "local" for s in steps[stop + 1:]))


def _verdict(steps, stop: int, item):
    """The first drop that ``steps[stop + 1:]`` make of ``item``: ``(position, reason, message)``, or None."""
    for position in range(stop + 1, len(steps)):
        got = steps[position]._verdict(item, None)
        if isinstance(got, (str, tuple)):
            reason, message = (got, "") if isinstance(got, str) else got
            return position, reason, message
    return None


def plan(recipe, on_error: str, info: dict):
    """The tasks of every source in order; ``info[index]`` gets ``(license, number of files)``."""
    from .assemble import InternalError, _reader

    for index, spec in enumerate(recipe.sources):
        try:
            reader = _reader(recipe, index, spec, on_error)
            license_ = spec.license or getattr(reader, "license", None) or reader.default_license
            listed: dict[str, list[str]] = {native: [] for native in spec.splits}
            for split, path in reader.files():
                if split not in listed:
                    raise InternalError(f"internal error: reader {spec.reader} listed a file of split {split!r}, "
                                        f"asked for {', '.join(spec.splits)}")
                listed[split].append(str(path))
        except Exception as err:  # raised when its turn comes
            yield err
            return
        del reader  # and its list of Path objects: RACE at 10x lists 280,000 files
        total = sum(len(paths) for paths in listed.values())
        # one string per split while the tasks are handed out (a str object per path costs ~60 bytes more)
        files = {native: (len(paths), "\0".join(paths)) for native, paths in listed.items()}
        del listed
        info[index] = (license_, total)
        part, whole = _stops(build_steps(spec))
        for native, (count, joined) in files.items():
            n_tasks = max(1, -(-count // FILES_PER_TASK))
            start = 0
            for j in range(n_tasks):
                chunk: list[str] = []
                while len(chunk) < FILES_PER_TASK and start <= len(joined) and count:
                    end = joined.find("\0", start)
                    end = len(joined) if end < 0 else end
                    chunk.append(joined[start:end])
                    start = end + 1
                    if end == len(joined):
                        break
                yield Task(index, native, tuple(chunk), n_tasks == 1, whole if n_tasks == 1 else part,
                           j == 0, j == n_tasks - 1)
            files[native] = (0, "")


def drop_line(drop) -> str:
    """A ledger line, as :func:`schemas.io.write_jsonl_atomic` writes it."""
    return json.dumps(drop.to_dict(), ensure_ascii=False, sort_keys=True)


_READERS: dict = {}
_FOLDERS = itertools.count()


def run_task(task: Task):
    """Read a task's files and run ``steps[:task.stop]``; yield ``(read, files, items, drops)`` batches."""
    from .assemble import InternalError, _reader

    recipe, on_error, seed = _STATE
    spec = recipe.sources[task.source]
    if task.source not in _READERS:
        _READERS.clear()
        _READERS[task.source] = _reader(recipe, task.source, spec, on_error)
    reader = _READERS[task.source]
    steps = build_steps(spec)
    ledger = StepLedger()
    ctx = StepContext(spec.name, task.native, spec.splits[task.native], seed, ledger)
    chain = Chain(steps[:task.stop], 0, ctx)
    digest = task.stop < len(steps) and type(steps[task.stop]) is DuplicateQuestion
    pre = precomputed(steps, task.stop)
    meta = not pre and any(type(s) not in NO_META for s in steps[task.stop:])

    def pack(items, read, files):
        out = [(it.corpus, it.passage_id, it.question_id, it.passage, it.question, it.options, it.correct, it.file,
                it.record, it.meta if meta else None, dup_digest(it) if digest else None,
                _verdict(steps, task.stop, it) if pre else None) for it in items]
        drops = [(pos, d.reason, drop_line(d)) for pos, d in ledger.drops]
        ledger.drops = []
        return read, files, out, drops

    batch, read, files = [], 0, 0
    for path in task.files:
        for rec in reader.parse_file(task.native, Path(path)):
            read += 1
            if rec.split != task.native:
                where = (f"asked for {', '.join(spec.splits)}" if rec.split not in spec.splits
                         else f"from a file of split {task.native!r}")
                raise InternalError(f"internal error: reader {spec.reader} yielded split {rec.split!r}, {where}")
            if isinstance(rec, BadRecord):
                ledger.position = -1
                ctx.drop(rec, rec.reason, "reader", rec.message)
            else:
                batch.append(rec)
            if len(batch) >= BATCH:
                yield pack(chain.feed(batch), read, files)
                batch, read, files = [], 0, 0
        files += 1
    yield pack(chain.feed(batch) + chain.finish(), read, files)


def shuffled_columns(rows: list[tuple], positions: np.ndarray, orders: np.ndarray) -> dict[str, list]:
    """Output columns of kept rows, options shuffled as :func:`builder.shuffle.shuffle_options` does.

    Row ``r``'s correct option goes to slot ``positions[r]``; its wrong options,
    in their corpus order, fill the other slots in the order ``orders[r]``.

    >>> row = ("race", "p", "p#0", "Text.", "Why?", ["w", "x", "y", "z"], [1], "f", "#0")
    >>> cols = shuffled_columns([row], np.array([0]), np.array([[2, 0, 1]]))
    >>> [cols[f"answer{k}"][0] for k in range(1, 5)], cols["correct_answer"], cols["correct_answer_num"]
    (['x', 'z', 'w', 'y'], ['x'], [1])
    """
    corpus, pid, qid, passage, question, opts, correct, files, records = (list(c) for c in zip(*rows))
    m = len(rows)
    right = np.array([c[0] for c in correct], dtype=np.int64)[:, None]
    positions = np.asarray(positions, dtype=np.int64)[:, None]
    slot = np.arange(4)[None, :]
    k = orders[np.arange(m)[:, None], np.minimum(np.where(slot > positions, slot - 1, slot), 2)]
    source = np.where(slot == positions, right, k + (k >= right))  # the j-th wrong option is option j or j + 1
    table = np.empty((m, 4), dtype=object)
    table[:] = opts if m else table
    answers = table[np.arange(m)[:, None], source]
    return {"passage_id": pid, "question_id": qid, "passage": passage, "question": question,
            **{f"answer{s + 1}": answers[:, s].tolist() for s in range(4)},
            "correct_answer": table[np.arange(m), right[:, 0]].tolist(),
            "correct_answer_num": (positions[:, 0] + 1).tolist(), "corpus": corpus, "file": files,
            "record": records}


class _SplitRun:
    """One native split in this process: the remaining steps, the spill, the drops by step."""

    def __init__(self, result, task: Task, steps, license_: str, store: SeenStore, spill: Path):
        from .assemble import Count

        recipe = result.recipe
        self.spec = spec = recipe.sources[task.source]
        self.native, self.split, self.license = task.native, spec.splits[task.native], license_
        self.result = result
        self.ctx = StepContext(spec.name, self.native, self.split, result.seed, StepLedger())
        self.steps, self.pre = steps, precomputed(steps, task.stop)
        self.chain = Chain(steps[:task.stop + 1] if self.pre else steps, task.stop, self.ctx, store, task.source)
        self.count = result.counts.setdefault((spec.name, self.split), Count(spec.name, self.split))
        self.folder = spill / f"split{next(_FOLDERS)}"
        self.folder.mkdir()
        self.kept_file = open(self.folder / "kept.pickle", "wb")
        self.kept = 0
        self.buckets: dict[int, object] = {}

    def _drops(self, drops) -> None:
        counts = self.result.ledger.counts
        for pos, reason, line in drops:
            fh = self.buckets.get(pos)
            if fh is None:
                fh = self.buckets[pos] = open(self.folder / f"drops{pos + 1}.jsonl", "w", encoding="utf-8")
            fh.write(line)
            fh.write("\n")
            counts[(self.spec.name, self.split, reason)] += 1
        self.result.ledger.total += len(drops)

    def _keep(self, items) -> None:
        self._drops([(pos, d.reason, drop_line(d)) for pos, d in self.ctx.ledger.drops])
        self.ctx.ledger.drops = []
        if items:
            rows = [(it.corpus, it.passage_id, it.question_id, it.passage, it.question, it.options, it.correct,
                     it.file, it.record) for it in items]
            pickle.dump(rows, self.kept_file, protocol=pickle.HIGHEST_PROTOCOL)
            self.kept += len(items)

    def take(self, payload) -> None:
        read, _, rows, drops = payload
        self.count.read += read
        self._drops(drops)
        items = [RawMCItem(c, self.native, p, q, text, question, opts, correct, f, r, meta or {})
                 for c, p, q, text, question, opts, correct, f, r, meta, _, _ in rows]
        digests = [row[10] for row in rows] if self.chain.first_is_dedup() else None
        kept = self.chain.feed(items, digests)
        if self.pre:  # the verdicts of the record-local steps after duplicate_question, from the worker
            verdicts = {id(item): row[11] for item, row in zip(items, rows)}
            survivors = []
            for item in kept:
                verdict = verdicts[id(item)]
                if verdict is None:
                    survivors.append(item)
                    continue
                position, reason, message = verdict
                self.ctx.ledger.position = position
                self.ctx.drop(item, reason, self.steps[position].name, message)
            kept = survivors
        self._keep(kept)

    def finish(self, outputs: Outputs) -> None:
        self._keep(self.chain.finish())
        self.kept_file.close()
        rng = self.ctx.rng("shuffle")
        positions = balanced_positions(self.kept, rng)  # the draws of builder.shuffle.shuffle_options
        done = 0
        with open(self.folder / "kept.pickle", "rb") as fh:
            while done < self.kept:
                rows = pickle.load(fh)
                m = len(rows)
                orders = rng.permuted(np.tile(np.arange(3), (m, 1)), axis=1)
                outputs.rows(self.split, self.spec.name, self.license,
                             shuffled_columns(rows, positions[done:done + m], orders))
                done += m
        for pos in sorted(self.buckets):
            self.buckets[pos].close()
            with open(self.folder / f"drops{pos + 1}.jsonl", encoding="utf-8") as fh:
                shutil.copyfileobj(fh, outputs.ledger)
        self.count.kept += self.kept
        self.result.n_rows[self.split] = self.result.n_rows.get(self.split, 0) + self.kept
        shutil.rmtree(self.folder)


def stream_assembly(result, folder: Path, *, jobs: int = 1, wrap: Callable | None = None) -> list[str]:
    """Assemble ``result.recipe`` into ``folder`` (a staging folder), fill ``result``'s counts, return the files."""
    from .assemble import output_splits

    recipe = result.recipe
    result.ledger = CountLedger()
    result.n_rows = {split: 0 for split in output_splits(recipe)}
    spill = Path(folder) / ".spill"
    spill.mkdir()
    store = SeenStore(spill / "seen.bin")
    _STATE[:] = [recipe, result.on_error, result.seed]
    info: dict = {}
    try:
        with contextlib.ExitStack() as stack:
            outputs = Outputs(Path(folder), output_splits(recipe), recipe.formats, recipe.language, stack)
            current, steps, progress = None, None, _Progress(wrap)
            for task, payload in ordered_results(run_task, plan(recipe, result.on_error, info), jobs=jobs):
                if current is None:
                    spec = recipe.sources[task.source]
                    if task.first and (steps is None or steps[0] != task.source):
                        license_, total = info[task.source]
                        result.licenses[spec.name] = license_
                        steps = (task.source, build_steps(spec))
                        progress.start(total, f"reading {spec.name}")
                    current = _SplitRun(result, task, steps[1], info[task.source][0], store, spill)
                if payload is DONE:
                    progress.advance(len(task.files))
                    if task.last:
                        current.finish(outputs)
                        current = None
                else:
                    current.take(payload)
            progress.start(0, "")
            names = outputs.finish()
            result.check_counts()  # before the files are renamed into place
    finally:
        _STATE.clear()
        _READERS.clear()
        store.close()
        shutil.rmtree(spill, ignore_errors=True)
    return names


class _Progress:
    """Drives the ``wrap(iterable, total, label)`` progress bar of one source, a file at a time."""

    def __init__(self, wrap):
        self.wrap, self.it = wrap, None

    def start(self, total: int, label: str) -> None:
        if self.it is not None:
            for _ in self.it:  # let the bar finish
                pass
        self.it = iter(self.wrap(iter(range(total)), total, label)) if self.wrap and total else None

    def advance(self, n: int) -> None:
        if self.it is not None:
            for _ in range(n):
                next(self.it, None)


__all__ = ["stream_assembly", "plan", "run_task", "Task", "CountLedger", "shuffled_columns"]
