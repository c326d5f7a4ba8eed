"""The streaming assembly's output files, written a part at a time into the staging folder.

A worker process encodes a run of a split's shuffled rows into a :class:`Part`
(:func:`encode_part`): their JSON lines, their TSV rows and their Arrow record
batches, each in a file of the spill folder. This process appends the parts
in order (:meth:`Outputs.write`): the lines are copied from file to file by the
kernel (``os.copy_file_range``), and the record batches are buffered until a row
group is due. Per output split, ``<split>.parquet`` (an Arrow
:class:`pyarrow.parquet.ParquetWriter`, a row group each time the buffered rows
hold :data:`ROW_GROUP_TEXT` characters of text or :data:`ROW_GROUP_ROWS` rows, so
memory does not grow with the corpus; each row group is compressed and written
on a thread, with Arrow's memory from jemalloc: :func:`arrow_memory`), and when
the recipe asks ``<split>.jsonl`` and ``<split>.tsv``; then ``dropped.jsonl``.
Each file is written under a temporary name and renamed when complete
(:func:`schemas.io.atomic_path`), inside the staging folder that replaces the
output folder as a whole. :meth:`Outputs.finish` gives the sha256 of every file
for the manifest: the files of lines are hashed while the last row groups are
written.

The lines are what ``json.dumps(row, ensure_ascii=False, sort_keys=True)``
and ``csv.writer`` with tabs and minimal quoting write (:func:`schemas.io.tsv_field`, which
also quotes a bare ``\r``);
``tests/assemble/test_assemble_streaming.py`` checks both against the
standard library on generated text. Arrow arrays are built from one buffer
per column (:func:`string_array`), and a row group's batches are joined into one
array per column before it is written. The row-group boundaries depend only on
the rows, so the bytes do not depend on the number of workers; an output of
fewer rows than one row group holds is one table written at once.
"""
from __future__ import annotations

import contextlib
import os
import shutil
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from json.encoder import encode_basestring
from pathlib import Path

import numpy as np

from schemas.features import arrow_schema
from schemas.io import atomic_path, sha256_file, tsv_field

#: A row group is written when the buffered rows hold this much text (characters) ...
ROW_GROUP_TEXT = 16 * 1024 * 1024
#: ... or this many rows.
ROW_GROUP_ROWS = 1 << 20

#: The columns written with a dictionary page: one value per source and split. The others are mostly distinct (a
#: passage repeats only for the questions that follow it, which zstd finds): a dictionary made the benchmark's
#: train.parquet 5% larger and took 13% longer to write.
DICTIONARY = ("dataset", "split", "language", "license", "provenance.corpus")

_STRINGS = ("dataset", "split", "passage_id", "question_id", "passage", "question", "answer1", "answer2",
            "answer3", "answer4", "correct_answer")


#: ``json.dumps(value, ensure_ascii=False)`` of one string (the encoder function ``json.dumps`` calls for it).
json_text = encode_basestring


def _tsv_column(values: list[str]) -> list[str]:
    """:func:`tsv_field` of every value; a column with none of the four characters is returned as it is."""
    text = "\0".join(values)
    if "\t" in text or '"' in text or "\n" in text or "\r" in text:
        return [tsv_field(v) for v in values]
    return values


def _per_passage(encode, passages: list[str]) -> list[str]:
    """``encode`` of each passage, computed once for the consecutive questions of one passage."""
    out, last, text = [], None, ""
    for passage in passages:
        if passage is not last:
            last, text = passage, encode(passage)
        out.append(text)
    return out


class _Split:
    """The open files of one output split and its buffered row group."""

    def __init__(self, folder: Path, split: str, formats, stack: contextlib.ExitStack, writer: ThreadPoolExecutor):
        import pyarrow.parquet as pq

        self.schema = row_schema()
        #: the name of the Parquet file and the temporary path it is written at until the stack closes
        self.parquet_file = (f"{split}.parquet", stack.enter_context(atomic_path(folder / f"{split}.parquet")))
        self.parquet = pq.ParquetWriter(str(self.parquet_file[1]), self.schema, compression="zstd",
                                        use_dictionary=list(DICTIONARY), write_statistics=True)
        stack.callback(self.parquet.close)  # before the rename: the ExitStack unwinds in reverse
        #: the row group being written by ``writer`` (Arrow compresses and writes without the GIL, so this
        #: process goes on with the next rows); waited for before the next one, and before the file is closed
        self.writer, self.writing = writer, None
        stack.callback(self.wait)
        self.jsonl = self.tsv = None
        self.lines: dict[str, Path] = {}  # each file of lines: its name and the temporary path it is written at
        if "jsonl" in formats:
            self.jsonl = _binary_file(folder / f"{split}.jsonl", stack, self.lines)
        if "tsv" in formats:
            self.tsv = _binary_file(folder / f"{split}.tsv", stack, self.lines)
            self.tsv.write(("\t".join(TSV_HEADER) + "\n").encode("utf-8"))
        self.batches: list = []  # the record batches of the row group being filled
        self.rows = self.text = 0  # their rows and characters of text
        self.wrote = False  # whether a row group was written

    def add(self, batch, text: int) -> None:
        """Buffer one record batch of ``text`` characters; write the row group when it is full."""
        self.batches.append(batch)
        self.rows += batch.num_rows
        self.text += text
        if self.text >= ROW_GROUP_TEXT or self.rows >= ROW_GROUP_ROWS:
            self.flush()

    def flush(self) -> None:
        """Write the buffered rows as one row group (an empty split: one empty row group, as before)."""
        if not self.batches and self.wrote:
            return
        import pyarrow as pa

        table = pa.Table.from_batches(self.batches, schema=self.schema)
        self.wait()
        self.writing = self.writer.submit(_write_group, self.parquet, table)
        self.wrote = True
        self.batches, self.rows, self.text = [], 0, 0

    def wait(self) -> None:
        """Wait for the row group being written; its error, if any, is raised here."""
        writing, self.writing = self.writing, None
        if writing is not None:
            writing.result()


def _write_group(parquet, table) -> None:
    """One row group: the batches joined into one array per column, so its bytes do not depend on the batches.

    Arrow's pool (:func:`arrow_memory`) then gives back what it freed, so the memory of the largest row group
    is not kept to the end (with mimalloc this was 25 MiB of the 1x benchmark's 300; with jemalloc the peak
    barely moves, as jemalloc gives back on its own after a while).
    """
    import pyarrow as pa

    parquet.write_table(table.combine_chunks())
    pa.default_memory_pool().release_unused()


@contextlib.contextmanager
def arrow_memory():
    """Arrow's memory from its jemalloc pool while the assembly runs, where pyarrow has it and the user has not
    chosen one (``ARROW_DEFAULT_MEMORY_POOL``); the previous default afterwards.

    The default, mimalloc, maps its memory in transparent huge pages: each
    one the kernel faults in is zeroed whole (2 MiB), and the Parquet writer's
    buffers, given back after every row group, were faulted in again. The
    benchmark's assembly spent 7.5% of its CPU zeroing pages; with jemalloc it
    takes 0.1 s less and peaks 60 MiB lower. Forked workers inherit the pool.
    """
    import pyarrow as pa

    if os.environ.get("ARROW_DEFAULT_MEMORY_POOL"):
        yield
        return
    try:
        pool = pa.jemalloc_memory_pool()
    except NotImplementedError:  # a build without jemalloc (Windows)
        yield
        return
    previous = pa.default_memory_pool()
    pa.set_memory_pool(pool)
    try:
        yield
    finally:
        pa.set_memory_pool(previous)


def row_schema():
    """The Arrow schema of the rows, as the Parquet files hold it."""
    return arrow_schema("mc", required=True).remove_metadata()


def string_array(values: list[str]):
    """An Arrow string array of ``values``, built from one buffer (``pa.array`` checks each value, and imports pandas).

    >>> string_array(["a", "café", ""]).to_pylist()
    ['a', 'café', '']
    """
    import pyarrow as pa

    text = "".join(values)
    if text.isascii():
        data = text.encode("ascii")
        lengths = np.fromiter(map(len, values), dtype=np.int64, count=len(values))
    else:
        encoded, last, code = [], None, b""
        for value in values:  # a passage repeats once per question: encode it once
            if value is not last:
                last, code = value, value.encode("utf-8")
            encoded.append(code)
        data = b"".join(encoded)
        lengths = np.fromiter(map(len, encoded), dtype=np.int64, count=len(values))
    offsets = np.zeros(len(values) + 1, dtype=np.int32)
    np.cumsum(lengths, out=offsets[1:])
    return pa.StringArray.from_buffers(len(values), pa.py_buffer(offsets), pa.py_buffer(data))


def _binary_file(path: Path, stack: contextlib.ExitStack, paths: dict[str, Path]):
    """``path`` open unbuffered: the parts are appended at the descriptor's offset (:func:`append_file`).

    ``paths[path.name]`` gets the temporary path it is written at. The file, which :func:`atomic_path` has just
    made, is opened without ``O_TRUNC``: ext4 writes back a file truncated to zero bytes when it is closed (the
    ``auto_da_alloc`` safeguard), which cost this process 0.1 s for the 190 MB of the benchmark's outputs.
    """
    paths[path.name] = tmp = stack.enter_context(atomic_path(path))
    return stack.enter_context(open(tmp, "wb", buffering=0, opener=_open_untruncated))


def _open_untruncated(path: str, flags: int) -> int:
    return os.open(path, flags & ~os.O_TRUNC)


def append_file(out, path: str) -> None:
    """Append the bytes of the file at ``path`` to ``out``, a file open unbuffered for writing.

    The kernel copies them (``os.copy_file_range``) where it can, else they are read and written.
    """
    with open(path, "rb") as src:
        size, done = os.fstat(src.fileno()).st_size, 0
        with contextlib.suppress(AttributeError, OSError):  # no copy_file_range, or not between these files
            while done < size:
                copied = os.copy_file_range(src.fileno(), out.fileno(), size - done)
                if not copied:
                    break
                done += copied
        src.seek(done)
        shutil.copyfileobj(src, out)


#: Belebele's training-set columns, then ours, as ``<split>.tsv`` has them.
TSV_HEADER = ("dataset", "split", "passage_id", "question_id", "passage", "question", "answer1", "answer2", "answer3",
              "answer4", "correct_answer", "correct_answer_num", "language", "license", "corpus", "file", "record")
_COLUMNS = (*TSV_HEADER[:14], "corpus", "file", "record")
_JSON_PER_ROW = ("answer1", "answer2", "answer3", "answer4", "correct_answer", "passage", "passage_id", "corpus",
                 "file", "record", "question", "question_id")


@dataclass(frozen=True)
class Encoded:
    """Rows of one source and output split, ready for a part's files: every column, their text length, the lines."""

    cols: dict
    text: int  # characters of passage, question and answers (for the row-group size)
    jsonl: str
    tsv: str


@dataclass(frozen=True)
class Part:
    """Shuffled rows of one output split, encoded by :func:`encode_part` into files: the JSON lines and the TSV
    rows (None where the recipe does not ask for them) and the Arrow record batches, with the characters of text
    of each batch (where the row groups are cut)."""

    jsonl: str | None
    tsv: str | None
    arrow: str
    texts: tuple[int, ...]

    def files(self) -> list[str]:
        return [path for path in (self.jsonl, self.tsv, self.arrow) if path]


def encode_part(stem: Path, split: str, dataset: str, license_: str, language: str, formats, batches) -> Part:
    """Encode ``batches`` (the columns of each batch of rows, :func:`encode_rows`) into ``stem.jsonl``,
    ``stem.tsv`` and ``stem.arrow``, a record batch each."""
    import pyarrow as pa

    schema, texts = row_schema(), []
    paths = {kind: f"{stem}.{kind}" for kind in ("jsonl", "tsv", "arrow")}
    with contextlib.ExitStack() as stack:
        text = {kind: stack.enter_context(open(paths[kind], "wb")) for kind in ("jsonl", "tsv") if kind in formats}
        arrow = stack.enter_context(pa.ipc.new_file(paths["arrow"], schema))
        for cols in batches:
            encoded = encode_rows(split, dataset, license_, language, formats, cols)
            for kind, fh in text.items():
                fh.write(getattr(encoded, kind).encode("utf-8"))
            arrow.write_batch(record_batch(schema, encoded.cols))
            texts.append(encoded.text)
    return Part(paths["jsonl"] if "jsonl" in text else None, paths["tsv"] if "tsv" in text else None,
                paths["arrow"], tuple(texts))


def record_batch(schema, cols: dict[str, list]):
    """The rows given as columns (:data:`_COLUMNS`), as one Arrow record batch of ``schema``."""
    import pyarrow as pa

    arrays = {c: string_array(cols[c]) for c in _STRINGS}
    arrays["correct_answer_num"] = pa.Array.from_buffers(pa.int64(), len(cols["question_id"]), [
        None, pa.py_buffer(np.asarray(cols["correct_answer_num"], dtype=np.int64))])
    arrays["language"], arrays["license"] = string_array(cols["language"]), string_array(cols["license"])
    prov = schema.field("provenance").type
    arrays["provenance"] = pa.StructArray.from_arrays(
        [string_array(cols[c]) for c in ("corpus", "file", "record")], fields=list(prov))
    return pa.RecordBatch.from_arrays([arrays[c] for c in schema.names], schema=schema)


def encode_rows(split: str, dataset: str, license_: str, language: str, formats, cols: dict[str, list]) -> Encoded:
    """The rows given as columns (``passage_id`` to ``correct_answer_num``, ``corpus``, ``file``, ``record``),
    encoded for :func:`encode_part`: the JSON lines and TSV rows only when ``formats`` holds them."""
    n = len(cols["question_id"])
    full = {**cols, "dataset": [dataset] * n, "split": [split] * n, "language": [language] * n,
            "license": [license_] * n}
    text = sum(map(len, cols["passage"])) + sum(map(len, cols["question"])) + sum(
        sum(map(len, cols[f"answer{k}"])) for k in range(1, 5))
    nums = [str(x) for x in cols["correct_answer_num"]]
    jsonl = tsv = ""
    if "jsonl" in formats:
        enc = {c: _per_passage(json_text, cols[c]) if c == "passage" else list(map(json_text, cols[c]))
               for c in _JSON_PER_ROW}
        head = f'"dataset": {json_text(dataset)}, "language": {json_text(language)}, ' \
               f'"license": {json_text(license_)}, "passage": '
        tail = f', "split": {json_text(split)}}}\n'
        jsonl = "".join(
            f'{{"answer1": {a1}, "answer2": {a2}, "answer3": {a3}, "answer4": {a4}, "correct_answer": {ca}, '
            f'"correct_answer_num": {num}, {head}{p}, "passage_id": {pid}, "provenance": {{"corpus": {co}, '
            f'"file": {fi}, "record": {re_}}}, "question": {q}, "question_id": {qid}{tail}'
            for a1, a2, a3, a4, ca, num, p, pid, co, fi, re_, q, qid in zip(
                enc["answer1"], enc["answer2"], enc["answer3"], enc["answer4"], enc["correct_answer"], nums,
                enc["passage"], enc["passage_id"], enc["corpus"], enc["file"], enc["record"], enc["question"],
                enc["question_id"]))
    if "tsv" in formats:
        fields = {**{c: _per_passage(tsv_field, full[c]) if c == "passage" else _tsv_column(full[c])
                     for c in _COLUMNS if c != "correct_answer_num"},
                  "correct_answer_num": nums}
        tsv = "".join(["\t".join(row) + "\n" for row in zip(*(fields[c] for c in _COLUMNS))])
    return Encoded({c: full[c] for c in _COLUMNS}, text, jsonl, tsv)


class Outputs:
    """Every output file of one assembly, open in ``folder`` (the staging folder) until ``stack`` closes.

    ``stack`` renames the complete files into place when it closes without an
    error and removes them otherwise.
    """

    def __init__(self, folder: Path, splits, formats, stack: contextlib.ExitStack):
        self.folder = Path(folder)
        stack.enter_context(arrow_memory())  # left last, once every file is closed
        writer = ThreadPoolExecutor(max_workers=max(1, len(splits)), thread_name_prefix="parquet")
        self.splits = {split: _Split(self.folder, split, formats, stack, writer) for split in splits}
        stack.callback(writer.shutdown)  # runs first: every row group written, then each split closes
        self.lines: dict[str, Path] = {}  # dropped.jsonl's temporary path
        self.ledger = _binary_file(self.folder / "dropped.jsonl", stack, self.lines)

    def write(self, split: str, part: Part) -> None:
        """Append a part of a split's rows (:func:`encode_part`, here or in a worker process) to its files and its
        row group."""
        import pyarrow as pa

        out = self.splits[split]
        for fh, path in ((out.jsonl, part.jsonl), (out.tsv, part.tsv)):
            if fh is not None:
                append_file(fh, path)
        with pa.OSFile(part.arrow) as source:
            reader = pa.ipc.open_file(source)
            for k, text in enumerate(part.texts):
                out.add(reader.get_batch(k), text)

    def finish(self) -> dict[str, str]:
        """Write the last row group of every split and close the Parquet files; return ``{name: sha256}`` of
        every file, sorted by name.

        The lines are complete by now: they are hashed on threads while the
        last row groups are written (hashlib and Arrow release the GIL), and
        the Parquet files once closed.
        """
        lines = {name: path for out in [*self.splits.values(), self] for name, path in out.lines.items()}
        with ThreadPoolExecutor(max_workers=2, thread_name_prefix="sha256") as pool:
            digests = {name: pool.submit(sha256_file, path) for name, path in lines.items()}
            for out in self.splits.values():
                out.flush()
            for out in self.splits.values():
                out.wait()
                out.parquet.close()
                name, path = out.parquet_file
                digests[name] = pool.submit(sha256_file, path)
            return {name: digests[name].result() for name in sorted(digests)}
