"""Streaming assembly: records flow from the readers through the filters in batches and onto disk.

With bounded memory, using the cores:

1. **Plan** (this process): each source's files, per native split, in chunks
   of :data:`FILES_PER_TASK`; an error met while planning (a missing folder)
   waits its turn, so errors surface in the order one process meets them.
2. **Read and filter** (worker processes, :func:`schemas.runtime.fanout.ordered_map`):
   a task parses its files and runs the steps it may run, by their declared
   scope (:data:`builder.filters.base.SCOPES`, :func:`stops`): the ``item``
   steps, and when the task holds its whole split, the ``split`` and
   ``passage`` steps too, up to the first ``source`` step (duplicates across
   the splits of a source), whose key digest the worker computes. Results
   come back in batches of :data:`BATCH` records, in task order. A source
   whose every split fits in one task (the one-file corpora) is one task: the
   worker runs all of steps 2-5 for it (:func:`run_source`), and this process
   only appends the parts it encoded.
3. **The rest of the steps** (this process), batch by batch, through the one
   runner (:class:`builder.filters.runner.Chain`); the survivors of a split
   are pickled to a spill file, its drops to one file per step.
4. **At the end of a split** its size ``n`` is known: the answer shuffle
   (:func:`builder.assemble.shuffle.split_draws`) draws the correct positions
   of the ``n`` rows, then each row's order of its wrong options, and this
   process writes them, with where each part of the spill file starts, to the
   split's ticket (:meth:`_SplitRun.finish`); the split's drops go to
   ``dropped.jsonl``, reader errors first, then step by step.
5. **Encoding** (worker processes): the split's encode tasks
   (:class:`EncodeTask`, one per :data:`TASKS_PER_PART` tasks, planned
   after the last task of every split of the source) wait for the ticket,
   shuffle the options of their part of the spilled rows and encode them
   into files (:func:`builder.assemble.output.encode_part`); this process
   appends the parts in order (:meth:`builder.assemble.output.Outputs.write`)
   while the workers encode the next ones.

The records, ledger, counts and the bytes of every output file do not depend
on the number of workers; Parquet files are written in row groups of at most
:data:`builder.assemble.output.ROW_GROUP_TEXT` characters.
"""
from __future__ import annotations

import contextlib
import gc
import itertools
import os
import pickle
import shutil
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from schemas.errors import RecipeError
from schemas.runtime.fanout import ordered_map

from ..filters import FourOptions, StepContext, get_filter
from ..filters.runner import Chain, SeenStore, StepLedger, key_digest
from ..readers import get_reader
from ..readers.base import BadRecord, RawMCItem
from .counts import Assembly, Count, CountLedger, InternalError, output_splits
from .output import Outputs, append_file, encode_part
from .shuffle import shuffled_columns, split_draws

#: Files per task (RACE: about 450 questions).
FILES_PER_TASK = 128
#: Records per message from a worker.
BATCH = 1024
#: Tasks of a split per :class:`EncodeTask`: RACE's train split (206 tasks) is encoded in 13 parts, which the
#: workers encode while this process appends the ones before them.
TASKS_PER_PART = 16
#: Tasks each worker holds, and results it may queue: enough that the workers keep reading while this
#: process writes a finished split (RACE train: about a second), a few MB per worker.
DEPTH, QUEUE = 16, 32

#: ``(recipe, on_error, seed, spill folder, pid of the main process)`` of the running assembly; forked workers
#: inherit it.
_STATE: list = []
#: The cyclic collector's thresholds while an assembly runs (Python's are 700, 10, 10): the records are
#: tuples, lists and strings without cycles, made by the hundred thousand, and with Python's thresholds the
#: collector went over them every 700 new ones, about 5% of the CPU of the benchmark's assembly.
GC_THRESHOLDS = (10_000, 10, 10)


@dataclass(frozen=True)
class Task:
    source: int  # index in recipe.sources
    native: str  # native split
    files: tuple[str, ...]
    stop: int  # the worker runs steps[:stop]
    first: bool = True  # first task of its split
    last: bool = True  # last task of its split
    parts: int = 1  # the split's encode tasks


@dataclass(frozen=True)
class EncodeTask:
    """Part ``part`` of ``parts`` of a split's kept rows, shuffled and encoded into files (:func:`run_encode`)."""

    source: int  # index in recipe.sources
    native: str  # native split
    part: int
    parts: int
    end: bool = True  # the last encode task of its source


@dataclass(frozen=True)
class SourceTask:
    """A whole source in one task: the worker runs every step, the shuffle and the output lines (:func:`run_source`)."""

    source: int  # index in recipe.sources
    splits: tuple[tuple[str, tuple[str, ...]], ...]  # (native split, files) of each
    license: str


def _reader(recipe: Recipe, index: int, spec: SourceSpec, on_error: str):
    cls = get_reader(spec.reader)
    try:
        return cls(spec.path, list(spec.splits), on_error=on_error, **dict(spec.options))
    except RecipeError as err:
        if err.file:
            raise
        key = f"sources[{index}]" + (f".{err.field}" if err.field else "")
        raise RecipeError(err.message, file=recipe.file, field=key) from None


def build_steps(spec) -> list:
    return [get_filter(f.name, **dict(f.params)) for f in spec.filters] + [FourOptions()]


def stops(steps) -> tuple[int, int]:
    """How far a worker may run ``steps``: ``(with part of a split, with the whole split)``.

    With part of a split, up to the first step that is not of scope ``item``;
    with the whole split, up to the first of scope ``source``.

    >>> stops([get_filter("fill_in_blank"), get_filter("complete_options"), get_filter("duplicate_question"),
    ...        FourOptions()])
    (1, 2)
    """
    scopes = [step.scope for step in steps]
    part = next((k for k, scope in enumerate(scopes) if scope != "item"), len(scopes))
    whole = next((k for k, scope in enumerate(scopes) if scope == "source"), len(scopes))
    return part, whole


def precomputed(steps, stop: int) -> bool:
    """Whether the steps after a ``source`` step at ``stop`` are all of scope ``item``.

    Their verdicts then depend on the record alone, and a ``source`` step
    does not change records, so a worker computes them for every record it
    sends and this process only applies them to the records kept.
    """
    return (stop < len(steps) and steps[stop].scope == "source"
            and all(step.scope == "item" for step in steps[stop + 1:]))


def verdict(steps, stop: int, item):
    """What ``steps[stop + 1:]`` make of ``item``: the first drop, ``(position, reason, message)``; else the
    record as they leave it when one of them changed it (an item step may), or None when none did."""
    given = item
    for position in range(stop + 1, len(steps)):
        got = steps[position].decide(item)
        if isinstance(got, (str, tuple)):
            reason, message = (got, "") if isinstance(got, str) else got
            return position, reason, message
        item = got
    return None if item is given else item


def plan(recipe, on_error: str, info: dict):
    """The tasks of every source; ``info[index]`` gets ``(license, number of files)``.

    The sources whose every split fits in one task come first, a
    :class:`SourceTask` each, as they are listed; the readers that keep a file
    per article (:attr:`builder.readers.base.Reader.many_files`) are listed
    last, so the workers read the other sources meanwhile. The tasks of the
    sources of several tasks follow, in the recipe's order. Whatever the
    order of the tasks, :func:`stream_assembly` writes the sources in the
    recipe's order. An error met while listing a source is raised in its
    turn: after the tasks of every source before it in the recipe, and
    instead of any error of a source after it.
    """
    sources = recipe.sources
    order = sorted(range(len(sources)), key=lambda i: get_reader(sources[i].reader).many_files)
    later, failed = [], None  # the sources of several tasks; (index, error) of the first source that failed
    for index in order:
        if failed is not None and index > failed[0]:
            continue
        spec = sources[index]
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
            failed = (index, err)
            continue
        del reader  # and its list of Path objects: RACE at 10x lists 280,000 files
        info[index] = (license_, sum(len(paths) for paths in listed.values()))
        # one string per split while the tasks are handed out (a str object per path costs ~60 bytes more)
        files = {native: (len(paths), "\0".join(paths)) for native, paths in listed.items()}
        del listed
        if one_task(files):
            yield SourceTask(index, tuple((native, tuple(joined.split("\0")) if count else ())
                                          for native, (count, joined) in files.items()), license_)
        else:
            later.append((index, files))
    for index, files in sorted(later, key=lambda pair: pair[0]):
        yield from _split_tasks(index, stops(build_steps(sources[index])), files)
    if failed is not None:
        yield failed[1]


def _split_tasks(index: int, stops_: tuple[int, int], files: dict[str, tuple[int, str]]):
    """The tasks of a source of several tasks: each split's, then the encode tasks of every split.

    A split's encode tasks wait for its ticket, which this process writes
    once it has taken the split's last results: handed out after the next
    split's tasks, they find it written, where a worker handed them right
    after the split's own tasks waited for it (RACE's train split: up to
    0.15 s, while the other worker read the last files).
    """
    part, whole = stops_
    natives = list(files)
    encode: list[EncodeTask] = []
    for native in natives:
        count, joined = files[native]
        n_tasks = max(1, -(-count // FILES_PER_TASK))
        parts = -(-n_tasks // TASKS_PER_PART)
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
            yield Task(index, native, tuple(chunk), whole if n_tasks == 1 else part, j == 0, j == n_tasks - 1, parts)
        encode.extend(EncodeTask(index, native, k, parts, native == natives[-1] and k == parts - 1)
                      for k in range(parts))
        files[native] = (0, "")
    yield from encode


def one_task(files: dict[str, tuple[int, str]]) -> bool:
    """Whether a source is one task (:func:`run_source`): each of its splits fits in one (``files``: the number
    of files of each split, and their paths)."""
    return all(count <= FILES_PER_TASK for count, _ in files.values())


_READERS: dict = {}
_FOLDERS = itertools.count()


def run_task(task: Task):
    """Read a task's files and run ``steps[:task.stop]``; yield ``(read, items, drops)`` batches.

    A task that holds its whole source is :func:`run_source`'s, an encode task :func:`run_encode`'s.
    """
    if isinstance(task, SourceTask):
        yield from run_source(task)
        return
    if isinstance(task, EncodeTask):
        yield from run_encode(task)
        return
    recipe, on_error, seed = _STATE[:3]
    spec = recipe.sources[task.source]
    if task.source not in _READERS:
        _READERS.clear()
        _READERS[task.source] = _reader(recipe, task.source, spec, on_error)
    reader = _READERS[task.source]
    steps = build_steps(spec)
    ledger = StepLedger()
    ctx = StepContext(spec.name, task.native, spec.splits[task.native], seed, ledger)
    chain = Chain(steps[:task.stop], 0, ctx)
    digest = steps[task.stop] if task.stop < len(steps) and steps[task.stop].scope == "source" else None
    pre = precomputed(steps, task.stop)
    # meta for what this process runs: the source step's where() (it names a first record), and the steps
    # after it unless their verdicts come from here
    meta = any(step.uses_meta for step in (steps[task.stop:task.stop + 1] if pre else steps[task.stop:]))

    def pack(items, read):
        out = [(it.corpus, it.passage_id, it.question_id, it.passage, it.question, it.options, it.correct, it.file,
                it.record, it.meta if meta else None, key_digest(digest, it) if digest else None,
                verdict(steps, task.stop, it) if pre else None) for it in items]
        drops = [(pos, d.reason, d.line()) for pos, d in ledger.drops]
        ledger.drops = []
        return read, out, drops

    batch, read = [], 0
    for path in task.files:
        for rec in reader.parse_file(task.native, path):  # a string (builder.readers.base.Reader.files)
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
                yield pack(chain.feed(batch), read)
                batch, read = [], 0
    yield pack(chain.feed(batch) + chain.finish(), read)


def run_source(task: SourceTask):
    """A whole source, split by split, as this process would run it, ending in the rows the main one writes.

    Each split's records go through every step (:class:`_SplitRun`, with a
    :class:`SeenStore` of the source's own), and its kept rows are shuffled
    and encoded in one part (:func:`run_encode`); yields ``("drops", path)``
    and ``("part", split, Part, folder)`` of each split, then ``("counts",
    (counts, reasons, total, rows))``: read and kept per split, the ledger's
    counts and total, the rows per output split.
    """
    recipe, on_error, seed, spill, _ = _STATE
    spec = recipe.sources[task.source]
    steps = build_steps(spec)
    whole = stops(steps)[1]
    local = Assembly(recipe, seed, on_error, ledger=CountLedger(), n_rows=Counter())
    store = SeenStore(spill / f"seen-{os.getpid()}-{next(_FOLDERS)}.bin")
    try:
        for native, files in task.splits:
            split_task = Task(task.source, native, files, whole)
            run = _SplitRun(local, split_task, steps, task.license, store, spill)
            for payload in run_task(split_task):
                run.take(payload)
            yield from run.finish()
            yield from run_encode(EncodeTask(task.source, native, 0, 1))
    finally:
        store.close()
    yield "counts", ([(c.source, c.split, c.read, c.kept) for c in local.counts.values()], local.ledger.counts,
                     local.ledger.total, local.n_rows)


class _SplitRun:
    """One native split in this process: the remaining steps, the spill, the drops by step."""

    def __init__(self, result, task: Task, steps, license_: str, store: SeenStore, spill: Path):
        recipe = result.recipe
        self.spec = spec = recipe.sources[task.source]
        self.native, self.split, self.license = task.native, spec.splits[task.native], license_
        self.result = result
        self.ctx = StepContext(spec.name, self.native, self.split, result.seed, StepLedger())
        self.steps, self.pre = steps, precomputed(steps, task.stop)
        self.chain = Chain(steps[:task.stop + 1] if self.pre else steps, task.stop, self.ctx, store, task.source)
        self.count = result.counts.setdefault((spec.name, self.split), Count(spec.name, self.split))
        self.folder = split_folder(spill, task.source, task.native)
        self.folder.mkdir()
        self.kept_file = open(self.folder / "kept.pickle", "wb")
        self.kept, self.parts = 0, task.parts
        self.spilled: list[tuple[int, int]] = []  # where each pickled batch of kept rows starts, and its rows
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
        self._drops([(pos, d.reason, d.line()) for pos, d in self.ctx.ledger.drops])
        self.ctx.ledger.drops = []
        if items:
            rows = [(it.corpus, it.passage_id, it.question_id, it.passage, it.question, it.options, it.correct,
                     it.file, it.record) for it in items]
            self.spilled.append((self.kept_file.tell(), len(rows)))
            pickle.dump(rows, self.kept_file, protocol=pickle.HIGHEST_PROTOCOL)
            self.kept += len(items)

    def take(self, payload) -> None:
        read, rows, drops = payload
        self.count.read += read
        self._drops(drops)
        items = [RawMCItem(c, self.native, p, q, text, question, opts, correct, f, r, meta or {})
                 for c, p, q, text, question, opts, correct, f, r, meta, _, _ in rows]
        digests = [row[10] for row in rows] if self.chain.first_is_source() else None
        kept = self.chain.feed(items, digests)
        if self.pre:  # the verdicts of the item steps after the source step, from the worker
            verdicts = {id(item): row[11] for item, row in zip(items, rows)}
            survivors = []
            for item in kept:
                verdict = verdicts[id(item)]
                if verdict is None or isinstance(verdict, RawMCItem):  # kept as it came, or as the steps changed it
                    survivors.append(item if verdict is None else verdict)
                    continue
                position, reason, message = verdict
                self.ctx.ledger.position = position
                self.ctx.drop(item, reason, self.steps[position].name, message)
            kept = survivors
        self._keep(kept)

    def finish(self):
        """The end of the split: its ticket for the encode tasks, then ``("drops", path)`` of the file of each
        step's ledger lines, step by step (the messages :func:`_written` writes).

        The ticket (``encode.pickle`` in the split's folder, renamed into place
        whole) holds what :func:`encode_part` needs and, for each of the
        :attr:`parts`, where its pickled batches start, how many there are and
        the shuffle's draws for its rows; the parts split the batches evenly.
        """
        self._keep(self.chain.finish())
        self.kept_file.close()
        positions, orders = split_draws(self.kept, self.ctx.rng("shuffle"))
        bounds = [len(self.spilled) * k // self.parts for k in range(self.parts + 1)]
        parts, row = [], 0
        for start, stop in zip(bounds, bounds[1:]):
            rows = sum(n for _, n in self.spilled[start:stop])
            parts.append((self.spilled[start][0] if start < stop else 0, stop - start, positions[row:row + rows],
                          orders[row:row + rows]))
            row += rows
        recipe = self.result.recipe
        ticket = {"split": self.split, "encode": (self.split, self.spec.name, self.license, recipe.language,
                                                  recipe.formats), "parts": parts}
        with open(self.folder / "encode.pickle.tmp", "wb") as fh:
            pickle.dump(ticket, fh, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(self.folder / "encode.pickle.tmp", self.folder / "encode.pickle")
        for pos in sorted(self.buckets):
            self.buckets[pos].close()
            yield "drops", str(self.folder / f"drops{pos + 1}.jsonl")
        self.count.kept += self.kept
        self.result.n_rows[self.split] += self.kept


def split_folder(spill: Path, source: int, native: str) -> Path:
    """The spill folder of one native split of the source at ``source`` in the recipe."""
    return spill / f"split-{source}-{list(_STATE[0].sources[source].splits).index(native)}"


def run_encode(task: EncodeTask):
    """Shuffle and encode a part of a split's kept rows into files; yield ``("part", split, Part, folder)``, the
    folder given with the split's last part (its spill, which this process removes once the part is written).

    Waits for the split's ticket (:meth:`_SplitRun.finish`): a worker may be
    handed this task while the main process still takes the split's last results.
    """
    spill, main = _STATE[3:]
    folder = split_folder(spill, task.source, task.native)
    ticket = folder / "encode.pickle"
    while not ticket.exists():
        if main == os.getpid() or os.getppid() != main:  # no one else to write it: run here, or orphaned
            raise InternalError(f"internal error: the encode ticket of split {task.native!r} was not written")
        time.sleep(0.001)
    with open(ticket, "rb") as fh:
        job = pickle.load(fh)
    start, count, positions, orders = job["parts"][task.part]
    with open(folder / "kept.pickle", "rb") as fh:
        fh.seek(start)
        part = encode_part(folder / f"part{task.part}", *job["encode"],
                           _shuffled(fh, count, positions, orders))
    yield "part", job["split"], part, folder if task.part == task.parts - 1 else None


def _shuffled(fh, count: int, positions, orders):
    """The output columns of ``count`` batches of kept rows pickled to ``fh``, shuffled by the draws of their rows."""
    done = 0
    for _ in range(count):
        rows = pickle.load(fh)
        yield shuffled_columns(rows, positions[done:done + len(rows)], orders[done:done + len(rows)])
        done += len(rows)


def stream_assembly(result, folder: Path, *, jobs: int = 1, wrap: Callable | None = None) -> dict[str, str]:
    """Assemble ``result.recipe`` into ``folder`` (a staging folder), fill ``result``'s counts; return
    ``{name: sha256}`` of the files (:meth:`builder.assemble.output.Outputs.finish`)."""
    recipe = result.recipe
    result.ledger = CountLedger()
    result.n_rows = {split: 0 for split in output_splits(recipe)}
    spill = Path(folder) / ".spill"
    spill.mkdir()
    store = SeenStore(spill / "seen.bin")
    _STATE[:] = [recipe, result.on_error, result.seed, spill, os.getpid()]
    info: dict = {}
    thresholds = gc.get_threshold()
    gc.set_threshold(*GC_THRESHOLDS)  # here and in the workers, which fork from this process
    try:
        with contextlib.ExitStack() as stack:
            outputs = Outputs(Path(folder), output_splits(recipe), recipe.formats, stack)
            current, steps, progress = None, None, _Progress(wrap)
            # a source read whole in a worker (planned first) waits here for its turn in the recipe's order: its
            # messages name files, reasons and counts, so holding them costs no memory that grows with the corpus
            held: dict[int, list] = {}
            turn = 0  # the source whose rows are written now
            for task, payloads in ordered_map(run_task, plan(recipe, result.on_error, info), jobs=jobs,
                                          depth=DEPTH, queue=QUEUE):
                if isinstance(task, SourceTask):
                    spec = recipe.sources[task.source]
                    progress.start(info[task.source][1], f"reading {spec.name}")
                    held[task.source] = [("license", task.license), *payloads]
                    progress.advance(info[task.source][1])
                    turn = _release(result, outputs, held, turn)
                    continue
                turn = _release(result, outputs, held, turn)
                if turn != task.source:
                    raise InternalError(f"internal error: a task of source {task.source} came in the turn of "
                                        f"source {turn}")
                if isinstance(task, EncodeTask):
                    for message in payloads:
                        _written(result, outputs, message)
                    turn += task.end
                    continue
                if current is None:
                    spec = recipe.sources[task.source]
                    if task.first and (steps is None or steps[0] != task.source):
                        license_, total = info[task.source]
                        result.licenses[spec.name] = license_
                        steps = (task.source, build_steps(spec))
                        progress.start(total, f"reading {spec.name}")
                    current = _SplitRun(result, task, steps[1], info[task.source][0], store, spill)
                for payload in payloads:
                    current.take(payload)
                progress.advance(len(task.files))
                if task.last:
                    for message in current.finish():
                        _written(result, outputs, message)
                    current = None
            if _release(result, outputs, held, turn) != len(recipe.sources):
                raise InternalError("internal error: the assembly ended before every source was written")
            progress.start(0, "")
            files = outputs.finish()
            result.check_counts()  # before the files are renamed into place
    finally:
        gc.set_threshold(*thresholds)
        _STATE.clear()
        _READERS.clear()
        store.close()
        shutil.rmtree(spill, ignore_errors=True)
    return files


def _release(result, outputs: Outputs, held: dict[int, list], turn: int) -> int:
    """Write the held sources whose turn has come, from source ``turn`` on; return the source whose turn it is."""
    while turn in held:
        for message in held.pop(turn):
            _written(result, outputs, message, result.recipe.sources[turn].name)
        turn += 1
    return turn


def _written(result, outputs: Outputs, message, source: str = "") -> None:
    """A message of :meth:`_SplitRun.finish`, :func:`run_encode` or :func:`run_source` (of ``source``), into the
    output files and ``result``'s counts."""
    kind, *rest = message
    if kind == "license":
        result.licenses[source] = rest[0]
    elif kind == "part":
        split, part, folder = rest
        outputs.write(split, part)
        for path in part.files():
            os.unlink(path)
        if folder is not None:  # the split's last part
            shutil.rmtree(folder)
    elif kind == "drops":  # removed with its split's folder
        append_file(outputs.ledger, rest[0])
    else:
        counts, reasons, total, n_rows = rest[0]
        for source, split, read, kept in counts:  # a source's splits are counted here only
            result.counts[(source, split)] = Count(source, split, read, kept)
        result.ledger.counts.update(reasons)
        result.ledger.total += total
        for split, n in n_rows.items():
            result.n_rows[split] += n


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


__all__ = ["stream_assembly", "plan", "run_task", "run_source", "run_encode", "Task", "SourceTask", "EncodeTask",
           "stops", "precomputed"]
