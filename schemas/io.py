"""Small I/O helpers shared by every stage: atomic writes, hashes, SIB-200 TSVs.

Writes go to a temporary file in the target folder and are renamed into place,
so an interrupted build leaves the previous file intact. Outputs are
deterministic: JSON is written with sorted keys and a trailing newline, Parquet
without pandas metadata that carries timestamps.
"""
from __future__ import annotations

import contextlib
import csv
import hashlib
import io
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any, Iterable, Iterator

from schemas.errors import SchemaError, SourceError, SourceNotFoundError, UsageError

SIB_COLUMNS = ("index_id", "category", "text")


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; rename it onto ``path`` on success.

    On an exception the temporary file is removed and ``path`` is untouched.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        tmp_path.chmod(0o666 & ~_umask())  # mkstemp files start private (0600)
        os.replace(tmp_path, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp_path.unlink()
        raise


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


def read_text_utf8(path: str | os.PathLike) -> str:
    """Read a UTF-8 file; a wrong encoding is a :class:`SourceError` with the byte offset."""
    p = require_path(path)
    data = p.read_bytes()
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        raise SourceError(f"not valid UTF-8 (byte {err.start}: {err.reason})", file=p,
                          record=f"line {line}") from None


def read_sib_tsv(path: str | os.PathLike) -> list[dict[str, str]]:
    """Read a SIB-200 TSV (``index_id``, ``category``, ``text``; CSV-style quoting).

    Returns the rows as dicts of strings, in file order. A row with the wrong
    number of fields is a :class:`SchemaError` naming the line.
    """
    p = require_path(path, kind="file")
    text = read_text_utf8(p)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter="\t", quotechar='"')
    try:
        header = next(reader)
    except StopIteration:
        raise SchemaError("empty file; expected a header line 'index_id<TAB>category<TAB>text'",
                          file=p) from None
    missing = [c for c in SIB_COLUMNS if c not in header]
    if missing:
        raise SchemaError(f"header lacks {', '.join(missing)}; found {header}", file=p, record="line 1")
    rows = []
    for row in reader:
        line = reader.line_num
        if not row:
            continue
        if len(row) != len(header):
            raise SchemaError(f"expected {len(header)} tab-separated fields, found {len(row)}", file=p,
                              record=f"line {line}")
        rows.append(dict(zip(header, row)))
    return rows


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


def replace_dir_atomic(staging: Path, target: Path) -> None:
    """Move a fully written ``staging`` folder onto ``target``.

    The previous ``target`` is kept until the new one is in place, so an
    interruption leaves either the old or the new folder, never a mix.
    """
    target = Path(target)
    backup = None
    if target.exists():
        backup = target.with_name(f".{target.name}.old")
        if backup.exists():
            shutil.rmtree(backup)
        os.replace(target, backup)
    os.replace(staging, target)
    if backup is not None:
        shutil.rmtree(backup, ignore_errors=True)


def check_replaceable(target: str | os.PathLike, marker, what: str) -> None:
    """Refuse to replace a non-empty folder that is not an earlier output of the same command.

    ``marker`` is the name of a file every such output holds (``"manifest.json"``)
    or a predicate on the folder. A missing or empty folder is always fine.
    Raises :class:`UsageError` (exit code 2), since replacing the folder would
    delete whatever else it holds.
    """
    target = Path(target)
    if not target.exists():
        return
    if not target.is_dir():
        raise UsageError("expected an output folder, found a file", file=target)
    if not any(target.iterdir()):
        return
    earlier = marker(target) if callable(marker) else (target / marker).is_file()
    if not earlier:
        held = "" if callable(marker) else f" without {marker}"
        raise UsageError(f"a non-empty folder{held}: it is not an earlier {what} output, and the output folder "
                         "is replaced as a whole, so choose a new or empty folder", file=target)


@contextlib.contextmanager
def staging_dir(target: str | os.PathLike, *, marker=None, what: str = "") -> Iterator[Path]:
    """Yield an empty folder beside ``target``; on success it replaces ``target``.

    Files inside ``target`` that the caller did not write are not carried over:
    the new folder is the complete output. With ``marker`` (see
    :func:`check_replaceable`), a non-empty ``target`` that is not an earlier
    output of the same command is refused before anything is written. On an
    exception the staging folder is removed and ``target`` is untouched.
    """
    target = Path(target)
    if marker is not None:
        check_replaceable(target, marker, what)
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".staging", dir=target.parent))
    try:
        yield staging
        staging.chmod(0o777 & ~_umask())  # mkdtemp folders start private (0700)
        replace_dir_atomic(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
