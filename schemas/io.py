"""Small I/O helpers shared by every stage: atomic writes, hashes, SIB-200 TSVs.

Writes go to a temporary file in the target folder and are renamed into place,
so an interrupted build leaves the previous file intact (:mod:`schemas.runtime.outputs`
holds the machinery: files, whole folders, groups of files, and the recovery
after a killed run; its names are re-exported here). Outputs are
deterministic: JSON is written with sorted keys and a trailing newline, Parquet
without pandas metadata that carries timestamps.
"""
from __future__ import annotations

import csv
import hashlib
import io
import json
import os
from pathlib import Path
from typing import Any, Iterable

from schemas.errors import RecipeError, SourceError, SourceNotFoundError
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


def sha256_file(path: str | os.PathLike, chunk: int = 1 << 20) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(chunk):
            h.update(block)
    return h.hexdigest()


def require_path(path: str | os.PathLike, *, what: str = "file", kind: str = "any") -> Path:
    """Return ``Path(path)`` or raise :class:`SourceNotFoundError` naming it.

    ``kind`` is ``"file"``, ``"dir"`` or ``"any"``.
    """
    p = Path(path)
    if not p.exists():
        raise SourceNotFoundError(f"{what} not found", file=p)
    if kind == "file" and not p.is_file():
        raise SourceError(f"expected a {what} file, found a folder", file=p)
    if kind == "dir" and not p.is_dir():
        raise SourceError(f"expected a {what} folder, found a file", file=p)
    return p


def read_text_utf8(path: str | os.PathLike, *, keep_bad: bool = False) -> str:
    """Read a UTF-8 file, BOM dropped (:func:`schemas.tables.decode_utf8`).

    A wrong encoding is an :class:`~schemas.tables.EncodingError` (a
    :class:`SourceError`) naming the line, the byte and the reason; with
    ``keep_bad=True`` bad bytes are kept for :func:`schemas.tables.bad_utf8`.
    """
    p = require_path(path)
    return decode_utf8(p.read_bytes(), p, keep_bad=keep_bad)


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


def sib_tsv_text(rows: Iterable[dict[str, Any]], columns=SIB_COLUMNS) -> str:
    """Render rows in the SIB-200 TSV layout (tab-separated, CSV quoting, ``\\n`` line ends)."""
    buf = io.StringIO()
    writer = csv.writer(buf, delimiter="\t", quotechar='"', quoting=csv.QUOTE_MINIMAL, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow([row[c] for c in columns])
    return buf.getvalue()


def write_sib_tsv(path: str | os.PathLike, rows: Iterable[dict[str, Any]], columns=SIB_COLUMNS) -> Path:
    return write_text_atomic(path, sib_tsv_text(rows, columns))


def read_yaml(path: str | os.PathLike) -> Any:
    """The parsed YAML of a recipe or config file, read as every text file is (:func:`read_text_utf8`).

    Malformed YAML is one :class:`~schemas.errors.RecipeError` line naming the file and, where the
    parser knows it, the line.

    >>> import tempfile
    >>> bad = Path(tempfile.mkdtemp()) / "r.yaml"
    >>> _ = bad.write_text("a: [1, 2", encoding="utf-8")
    >>> try:
    ...     read_yaml(bad)
    ... except RecipeError as err:
    ...     print(str(err).replace(str(bad), "r.yaml"))
    r.yaml, line 1: malformed YAML: expected ',' or ']', but got '<stream end>'
    """
    import yaml

    try:
        return yaml.safe_load(read_text_utf8(path))  # a bad byte: one line with line, byte and reason
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        problem = (getattr(err, "problem", None) or str(err)).replace("\n", " ")  # one line, as every error
        raise RecipeError(f"malformed YAML: {problem}", file=path,
                          record=f"line {mark.line + 1}" if mark else None) from None
