"""Small I/O helpers shared by every stage: atomic writes, hashes, SIB-200 TSVs.

Writes go to a temporary file in the target folder and are renamed into place,
so an interrupted build leaves the previous file intact (:mod:`schemas.runtime.outputs`
holds the machinery: files, whole folders, groups of files, and the recovery
after a killed run; its names are re-exported here). Outputs are
deterministic: JSON is written with sorted keys and a trailing newline, Parquet
without pandas metadata that carries timestamps.
"""
from __future__ import annotations

import contextlib
import contextvars
import csv
import hashlib
import io
import json
import os
import re
from pathlib import Path
from typing import Any, Iterable

from schemas.errors import ExitStatus, RecipeError, SourceError, SourceNotFoundError
from schemas.runtime.outputs import (MARKER, atomic_path, check_replaceable, check_writable, recover,  # noqa: F401
                             replace_dir_atomic, replace_files_together, staging_dir)
from schemas.tables import decode_utf8, parse_table, plain_records

SIB_COLUMNS = ("index_id", "category", "text")


def write_text_atomic(path: str | os.PathLike, text: str) -> Path:
    """Write ``text`` as UTF-8 with ``\\n`` line ends, atomically."""
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8", newline="\n")
    return Path(path)


def write_bytes_atomic(path: str | os.PathLike, data: bytes) -> Path:
    with atomic_path(path) as tmp:
        tmp.write_bytes(data)
    return Path(path)


def dumps_json(obj: Any) -> str:
    """Deterministic JSON text: sorted keys, 2-space indent, non-ASCII kept, final newline."""
    return json.dumps(obj, ensure_ascii=False, indent=2, sort_keys=True, default=_json_default) + "\n"


def _json_default(o):
    import numpy as np

    if isinstance(o, np.integer):
        return int(o)
    if isinstance(o, np.floating):
        return None if np.isnan(o) else float(o)
    if isinstance(o, np.bool_):
        return bool(o)
    if isinstance(o, (set, frozenset)):
        return sorted(o)
    if isinstance(o, Path):
        return str(o)
    raise TypeError(f"cannot serialise {type(o).__name__} to JSON")


def write_json_atomic(path: str | os.PathLike, obj: Any) -> Path:
    return write_text_atomic(path, dumps_json(obj))


def write_jsonl_atomic(path: str | os.PathLike, rows: Iterable[dict]) -> Path:
    with atomic_path(path) as tmp, open(tmp, "w", encoding="utf-8", newline="\n") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False, sort_keys=True, default=_json_default))
            fh.write("\n")
    return Path(path)


def write_parquet_atomic(path: str | os.PathLike, table) -> Path:
    """Write a :class:`pyarrow.Table` or :class:`pandas.DataFrame` to Parquet, atomically.

    The output is byte-identical for identical content: no pandas index, no
    creation timestamps beyond pyarrow's fixed ``created_by``.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    if not isinstance(table, pa.Table):
        table = pa.Table.from_pandas(table, preserve_index=False)
    table = table.replace_schema_metadata(None)
    with atomic_path(path) as tmp:
        pq.write_table(table, tmp, compression="zstd", use_dictionary=True, write_statistics=True)
    return Path(path)


_SHA256_STORE: contextvars.ContextVar[dict | None] = contextvars.ContextVar("sha256_store", default=None)


@contextlib.contextmanager
def sha256_store(store: dict):
    """While the block runs, :func:`sha256_file` hashes each file once: ``store`` maps its absolute path
    to its digest. The release runs its stages inside one store (a file read by several stages is
    hashed once per run) and removes a stage's output from it before the stage replaces it.
    """
    token = _SHA256_STORE.set(store)
    try:
        yield store
    finally:
        _SHA256_STORE.reset(token)


def sha256_file(path: str | os.PathLike, chunk: int = 1 << 20) -> str:
    """The sha256 of a file's bytes (once per file inside :func:`sha256_store`)."""
    store = _SHA256_STORE.get()
    if store is None:
        return _sha256_bytes_of(path, chunk)
    key = os.path.abspath(path)
    if key not in store:
        store[key] = _sha256_bytes_of(path, chunk)
    return store[key]


def _sha256_bytes_of(path: str | os.PathLike, chunk: int) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(chunk):
            h.update(block)
    return h.hexdigest()


class WrongPathKind(SourceError):
    """A folder named where a file is expected, or a file where a folder is (exit code 2: the path the user
    gave is of the wrong kind, as click reports a ``--out`` that is a file)."""

    exit_code = ExitStatus.USAGE


def _article(noun: str) -> str:
    return "an" if noun[:1].lower() in "aeiou" else "a"


def require_path(path: str | os.PathLike, *, what: str | None = None, kind: str = "any") -> Path:
    """Return ``Path(path)`` or raise naming it: the one check of "is it there, and of the kind asked for".

    ``kind`` is ``"file"``, ``"dir"`` or ``"any"``; ``what`` names the thing with its noun
    (``"annotation file"``, ``"dataset folder"``; default ``file``, ``folder`` or ``path``). Missing:
    :class:`SourceNotFoundError` (exit 1); of the other kind: :class:`WrongPathKind` (exit 2).

    >>> import tempfile
    >>> try:
    ...     require_path(tempfile.gettempdir(), what="annotation file", kind="file")
    ... except WrongPathKind as err:
    ...     print(err.message, int(err.exit_code))
    expected an annotation file, found a folder 2
    """
    p = Path(path)
    what = what or {"file": "file", "dir": "folder"}.get(kind, "path")
    if not p.exists():
        raise SourceNotFoundError(f"{what} not found", file=p)
    if kind == "file" and not p.is_file():
        raise WrongPathKind(f"expected {_article(what)} {what}, found a folder", file=p)
    if kind == "dir" and not p.is_dir():
        raise WrongPathKind(f"expected {_article(what)} {what}, found a file", file=p)
    return p


def read_bytes(path: str | os.PathLike) -> bytes:
    """A whole file's bytes, read with ``os.read``: a third of the cost of ``open(path, "rb").read()`` for the
    small files of a corpus such as RACE's (no buffered file object per file).

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     _ = Path(tmp, "a.txt").write_bytes(b"x" * 70_000)
    ...     len(read_bytes(Path(tmp, "a.txt")))
    70000
    """
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
    try:
        chunks = []
        while chunk := os.read(fd, 1 << 16):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_text_utf8(path: str | os.PathLike, *, keep_bad: bool = False) -> str:
    """Read a UTF-8 file, BOM dropped (:func:`schemas.tables.decode_utf8`).

    A wrong encoding is an :class:`~schemas.tables.EncodingError` (a
    :class:`SourceError`) naming the line, the byte and the reason; with
    ``keep_bad=True`` bad bytes are kept for :func:`schemas.tables.bad_utf8`.
    """
    p = require_path(path, kind="file")
    return decode_utf8(read_bytes(p), p, keep_bad=keep_bad)


def read_sib_tsv(path: str | os.PathLike) -> list[dict[str, str]]:
    """Read a SIB-200 TSV (``index_id``, ``category``, ``text``; CSV-style quoting).

    Returns the rows as dicts of strings, in file order. A row with the wrong
    number of fields is a :class:`SchemaError` naming the line; a BOM and CRLF
    line ends are read as if absent (:func:`schemas.tables.parse_table`).
    """
    p = require_path(path, kind="file")
    text = read_text_utf8(p)
    plain = plain_records(text, "\t", required=SIB_COLUMNS, strict_decoded=True)  # the common case, fast
    if plain is not None:
        header, rows = plain
    else:
        table = parse_table(text, p, delimiter="\t", required=SIB_COLUMNS,
                            empty="empty file; expected a header line 'index_id<TAB>category<TAB>text'")
        header, rows = table.header, [row.fields for row in table.rows]
    return [dict(zip(header, fields)) for fields in rows]


_NEEDS_QUOTES = re.compile('[\t"\r\n]')


class _Echo:
    """A file whose ``write`` hands the text back, so that ``csv.writer.writerow`` returns the row."""

    @staticmethod
    def write(text: str) -> str:
        return text


# "\r\n" as the writer's line end makes it quote a field holding a bare "\r" as well as one holding "\n"
# (with "\n" it quotes only "\n", and every reader, csv and pandas included, splits the row at the "\r").
_ROW_WRITERS = {d: csv.writer(_Echo(), delimiter=d, quotechar='"', quoting=csv.QUOTE_MINIMAL,
                              lineterminator="\r\n") for d in ",\t"}


def csv_line(fields: Iterable[Any], delimiter: str = ",") -> str:
    """One ``\\n``-terminated row of a CSV (or, with ``delimiter="\\t"``, TSV) file, quoted as
    ``csv.writer`` with minimal quoting quotes it, and a field holding a bare ``\\r`` quoted too. None is
    an empty field. The one CSV row writer of the toolkit.

    >>> print(csv_line(["a", 'x"y', None, 3, "b,c"]), end="")
    a,"x""y",,3,"b,c"
    >>> csv_line(["a\\rb", "c"])
    '"a\\rb",c\\n'
    """
    return _ROW_WRITERS[delimiter].writerow(fields)[:-2] + "\n"


def tsv_field(value) -> str:
    """One field of a tab-separated file, quoted as :func:`csv_line` quotes it: where it holds a tab, a
    quote or a line break (a bare ``\\r`` included). The fast path for a whole column of fields.

    >>> print(tsv_field("plain"), tsv_field('a "b" c'), tsv_field(3), repr(tsv_field(None)))
    plain "a ""b"" c" 3 ''
    >>> tsv_field("tab\\there") == '"tab\\there"' and tsv_field("a\\rb") == '"a\\rb"'
    True
    """
    value = value if isinstance(value, str) else "" if value is None else str(value)  # as csv writes None
    if not _NEEDS_QUOTES.search(value):
        return value
    return csv_line([value, ""], "\t")[:-2]


def sib_tsv_text(rows: Iterable[dict[str, Any]], columns=SIB_COLUMNS) -> str:
    """Render rows in the SIB-200 TSV layout (tab-separated, CSV quoting and ``\\n`` line ends by the one row
    writer, :func:`csv_line`)."""
    return csv_line(columns, "\t") + "".join(csv_line([row[c] for c in columns], "\t") for row in rows)


def write_sib_tsv(path: str | os.PathLike, rows: Iterable[dict[str, Any]], columns=SIB_COLUMNS) -> Path:
    return write_text_atomic(path, sib_tsv_text(rows, columns))


class DuplicateKeyError(RecipeError):
    """A key repeated in one mapping of a YAML file (exit code 2).

    PyYAML keeps the last value silently (``seed: 1`` then ``seed: 2`` loads 2),
    so which one was meant cannot be known: the file must be fixed, as a
    command line giving one option two values would be. Also for qc's config
    (exit 2 there too) and a data card's front matter, whose readers convert it.
    """

    exit_code = ExitStatus.USAGE


class UnsafeYAMLError(RecipeError):
    """A YAML file whose aliases expand past :data:`MAX_YAML_NODES` nodes, or refer to themselves (exit 2).

    A 240-byte "billion laughs" document once made a 39 MB error line; it is
    refused before anything is built from it, as a malformed file to fix.
    """

    exit_code = ExitStatus.USAGE


def read_yaml(path: str | os.PathLike) -> Any:
    """The parsed YAML of a recipe or config file, read as every text file is (:func:`read_text_utf8`).

    Parsed by :func:`load_yaml`: malformed YAML is one :class:`~schemas.errors.RecipeError` line
    naming the file and, where the parser knows it, the line; a duplicate key is a
    :class:`DuplicateKeyError` naming the file, the line and the key path.

    >>> import tempfile
    >>> bad = Path(tempfile.mkdtemp()) / "r.yaml"
    >>> _ = bad.write_text("a: [1, 2", encoding="utf-8")
    >>> try:
    ...     read_yaml(bad)
    ... except RecipeError as err:
    ...     print(str(err).replace(str(bad), "r.yaml"))
    r.yaml, line 1: malformed YAML: expected ',' or ']', but got '<stream end>'
    """
    return load_yaml(read_text_utf8(path), file=path)  # a bad byte: one line with line, byte and reason


def load_yaml(text: str, *, file=None, first_line: int = 1) -> Any:
    """Parse YAML safely, rejecting a key repeated in any mapping; the one YAML loader of the toolkit.

    ``first_line`` is the file's line number of the text's first line (a
    card's front matter starts on line 2), so messages name lines of the file.
    libyaml parses when it is installed (about 10x faster on a large card);
    an error is re-read with PyYAML's own parser, so its message is the same
    on every installation.

    >>> load_yaml("seed: 1\\nvariants: [{romanize: {scheme: iso}}]")
    {'seed': 1, 'variants': [{'romanize': {'scheme': 'iso'}}]}
    >>> try:
    ...     load_yaml("variants:\\n  - romanize:\\n      scheme: iso\\n      scheme: hk\\n", file="r.yaml")
    ... except DuplicateKeyError as err:
    ...     print(err, int(err.exit_code))
    r.yaml, line 4, field variants[0].romanize.scheme: duplicate key 'scheme' (first at line 3) 2
    """
    import yaml

    loader = _FAST_LOADER(text) if _FAST_LOADER else yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is not None:
            _refuse_alias_bombs(node, file, first_line)
            _refuse_duplicates(loader, node, "", set(), file, first_line)
        return loader.construct_document(node) if node is not None else None
    except yaml.YAMLError as err:
        if _FAST_LOADER:
            try:
                yaml.load(text, Loader=yaml.SafeLoader)  # PyYAML's wording, the same everywhere
            except yaml.YAMLError as py_err:
                err = py_err
        mark = getattr(err, "problem_mark", None)
        problem = (getattr(err, "problem", None) or str(err)).replace("\n", " ")  # one line, as every error
        raise RecipeError(f"malformed YAML: {problem}", file=file,
                          record=f"line {mark.line + first_line}" if mark else None) from None
    finally:
        loader.dispose()


def _fast_loader():
    import yaml

    return getattr(yaml, "CSafeLoader", None)


_FAST_LOADER = _fast_loader()

_MERGE_TAG = "tag:yaml.org,2002:merge"

#: The most nodes a YAML document may expand to through its aliases (``*name``). A recipe, a config or a
#: card's front matter has hundreds; a 240-byte "billion laughs" document expands to 10^9.
MAX_YAML_NODES = 100_000


def _refuse_alias_bombs(root, file, first_line: int) -> None:
    """A :class:`RecipeError` if the document, with every alias expanded, has more than
    :data:`MAX_YAML_NODES` nodes or an alias that holds itself; anchors and merge keys within the bound
    are fine. The expanded size of each node is computed once (memoized by node), so the check costs
    time in the number of nodes written, not in what they expand to.

    >>> levels = ["&a [" + ", ".join(["x"] * 9) + "]"] + [
    ...     f"&{chr(98 + i)} [" + ", ".join([f"*{chr(97 + i)}"] * 9) + "]" for i in range(6)]
    >>> bomb = "[" + ", ".join(levels) + "]"
    >>> len(bomb) < 300
    True
    >>> try:
    ...     load_yaml(bomb, file="r.yaml")
    ... except UnsafeYAMLError as err:
    ...     print(err, int(err.exit_code))
    r.yaml, line 1: YAML aliases expand to more than 100000 nodes (an alias bomb?); write the values out 2
    """
    import yaml

    sizes: dict[int, int] = {}
    open_: set[int] = set()

    def size(node) -> int:
        key = id(node)
        if key in sizes:
            return sizes[key]
        if key in open_:
            raise UnsafeYAMLError("a YAML alias refers to a node that holds it (a recursive document)",
                              file=file, record=f"line {node.start_mark.line + first_line}")
        open_.add(key)
        if isinstance(node, yaml.SequenceNode):
            children = node.value
        elif isinstance(node, yaml.MappingNode):
            children = [n for pair in node.value for n in pair]
        else:
            children = []
        total = 1
        for child in children:
            total += size(child)
            if total > MAX_YAML_NODES:
                raise UnsafeYAMLError(f"YAML aliases expand to more than {MAX_YAML_NODES} nodes (an alias bomb?); "
                                  "write the values out", file=file,
                                  record=f"line {node.start_mark.line + first_line}")
        open_.discard(key)
        sizes[key] = total
        return total

    import sys

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))
    try:
        size(root)
    except RecursionError:
        raise UnsafeYAMLError("YAML nested too deeply", file=file) from None
    finally:
        sys.setrecursionlimit(limit)


def _refuse_duplicates(loader, node, where: str, seen: set, file, first_line: int) -> None:
    """Walk the composed node graph in document order; the first key repeated in a mapping is an error."""
    import yaml

    if id(node) in seen:  # an alias: already walked
        return
    seen.add(id(node))
    if isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _refuse_duplicates(loader, item, f"{where}[{i}]", seen, file, first_line)
    elif isinstance(node, yaml.MappingNode):
        first: dict = {}
        for key_node, value_node in node.value:
            if key_node.tag == _MERGE_TAG or not isinstance(key_node, yaml.ScalarNode):
                _refuse_duplicates(loader, value_node, where, seen, file, first_line)
                continue
            key = loader.construct_object(key_node)
            path = f"{where}.{key}" if where else str(key)
            line = key_node.start_mark.line + first_line
            if key in first:
                raise DuplicateKeyError(f"duplicate key {key!r} (first at line {first[key]})", file=file,
                                        record=f"line {line}", field=path)
            first[key] = line
            _refuse_duplicates(loader, value_node, path, seen, file, first_line)
