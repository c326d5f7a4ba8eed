"""Reading text inputs the same way everywhere: UTF-8 with or without BOM, LF or CRLF, CSV/TSV tables.

Every reader of a text file (corpus readers, SIB-200 TSVs, prediction files,
annotation exports, disparity records, parallel text) decodes it here, so a
byte-order mark and CRLF line ends give the same records as without them, and
a bad byte or an unbalanced quote gives the same one-line error everywhere:

* :func:`decode_utf8` drops a leading BOM. Undecodable bytes raise
  :class:`EncodingError` naming the line, the byte offset and the codec's
  reason (``invalid start byte``, ``invalid continuation byte``, ``unexpected
  end of data``); with ``keep_bad=True`` they are kept as lone surrogates
  instead, and :func:`bad_utf8` tells a caller that skips bad records which
  line or row holds one (reason :data:`INVALID_UTF8`). A NUL character is
  never text: it raises :class:`ControlCharacterError` naming the line, under
  either policy, for every reader at once (a file that holds one is binary or
  corrupt, and a NUL written on into a record would end it early in C tools);
  in a ``.json``/``.jsonl``/``.ndjson`` file the escape ``\\u0000`` is one too.
* :func:`control_character` tells a reader whether one value holds a control
  character its field does not allow: names, labels and ids allow none, text
  allows tab and newline only (see :func:`check_chars` for the error).
* :func:`split_lines` splits on ``\\n`` only (``\\r`` before it is dropped), so
  a U+2028 inside a JSON string does not end a JSON line.
* :func:`parse_table` reads CSV/TSV with a header: fields of any length (the
  ``csv`` module's 131,072-character limit is raised once, here), rows with
  the header's width, the first line of each row; a line end inside a quoted
  field is ``\\n`` whether the file has CRLF or LF. A quote that is never
  closed swallows the rest of the file; that is an error naming the line where
  the quote opened, under either error policy, since the rows it swallowed
  cannot be counted.

>>> t = parse_table("\\ufeffa,b\\r\\n1,\\"x\\r\\ny\\"\\r\\n2,z\\r\\n", "t.csv", delimiter=",")
>>> t.header, [(r.line, r.fields) for r in t.rows]
(['a', 'b'], [(2, ['1', 'x\\ny']), (4, ['2', 'z'])])
"""
from __future__ import annotations

import codecs
import csv
import functools
import io
import os
import re
import sys
from dataclasses import dataclass
from typing import Iterator, Sequence

from .errors import SchemaError, SourceError

#: Reason name of a record that holds bytes that are not UTF-8 (drop ledgers, skip counts).
INVALID_UTF8 = "invalid_utf8"
#: Reason name of a CSV/TSV row that does not parse or has the wrong number of fields.
MALFORMED_CSV = "malformed_csv"
#: Reason name of a record or file holding a control character its field does not allow (a NUL, an escape).
CONTROL_CHARACTER = "control_character"

_BOM = "\ufeff"
_KEPT = re.compile("[\udc80-\udcff]")  # what errors="surrogateescape" makes of an undecodable byte
_UTF8 = ("utf-8", "utf8", "utf-8-sig", "utf_8", "utf_8_sig")
_NAME_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")  # C0, DEL, C1: none in a name, label or id
_TEXT_CONTROL = re.compile("[\x00-\x08\x0b-\x1f]")  # C0 but tab and newline
_JSON_SUFFIXES = (".json", ".jsonl", ".ndjson")
_JSON_NUL = re.compile(r"(?<!\\)(?:\\\\)*\\u0000")  # an odd run of backslashes, then u0000: a NUL escape


class EncodingError(SourceError):
    """A text file holds bytes its encoding cannot decode (reason :data:`INVALID_UTF8`)."""

    reason = INVALID_UTF8


class ControlCharacterError(EncodingError, SchemaError):
    """A text file or a value holds a control character (a NUL) no text holds (reason :data:`CONTROL_CHARACTER`).

    An :class:`EncodingError` too, so a reader that names or counts an
    undecodable file treats a NUL the same way, with its own reason.
    """

    reason = CONTROL_CHARACTER


def control_character(value: str, *, text: bool = False) -> str | None:
    """What control character ``value`` holds that its field does not allow, or None.

    ``text=False`` (names, labels, ids): no C0, DEL or C1 character at all;
    ``text=True`` (free text): no C0 character but tab and newline.

    >>> control_character("ann\\x001")
    'a control character (U+0000) at character 4'
    >>> control_character("two\\tcells") is not None, control_character("two\\tcells", text=True) is None
    (True, True)
    >>> control_character("caf\\u00e9 \\u2028") is None
    True
    """
    found = (_TEXT_CONTROL if text else _NAME_CONTROL).search(value)
    if found is None:
        return None
    return f"a control character (U+{ord(found.group()):04X}) at character {found.start() + 1}"


def check_chars(value: str, what: str, *, text: bool = False, file=None, record=None, field=None) -> str:
    """``value`` when it holds no control character its field refuses (:func:`control_character`), else raise.

    >>> check_chars("ann\\x1b[2J", "an annotator name", file="a.csv", record="line 3", field="annotator")
    Traceback (most recent call last):
    ...
    schemas.tables.ControlCharacterError: a.csv, line 3, field annotator: an annotator name allows no control character, found a control character (U+001B) at character 4
    """
    problem = control_character(value, text=text)
    if problem is not None:
        allowed = "no control character but tab and newline" if text else "no control character"
        raise ControlCharacterError(f"{what} allows {allowed}, found {problem}", file=file, record=record,
                                    field=field)
    return value


def _line_breaks(text: str) -> int:
    """Line ends as the ``csv`` module counts them: ``\\r\\n``, ``\\r`` and ``\\n`` are one each."""
    return text.count("\n") + text.count("\r") - text.count("\r\n")


def decode_utf8(data: bytes, path: str | os.PathLike, *, keep_bad: bool = False, encoding: str = "utf-8") -> str:
    """Decode ``data`` read from ``path``; a leading BOM is dropped.

    Parameters
    ----------
    data : bytes
        The file's bytes.
    path : path-like
        Named in the error.
    keep_bad : bool, default False
        Keep undecodable bytes as lone surrogates (see :func:`bad_utf8`)
        instead of raising, so a caller can skip just the records that hold one.
    encoding : str, default "utf-8"
        Another codec for readers that offer an ``encoding`` option.

    Raises
    ------
    EncodingError
        Naming the line, the byte offset and the reason.
    ControlCharacterError
        A NUL character (under either policy), naming the line and the byte offset.

    >>> decode_utf8(b"\\xef\\xbb\\xbfid\\r\\n", "a.tsv")
    'id\\r\\n'
    >>> decode_utf8(b"ok\\ncaf\\xe9\\n", "a.tsv")
    Traceback (most recent call last):
    ...
    schemas.tables.EncodingError: a.tsv, line 2: not valid UTF-8 at byte 6 (0xe9, invalid continuation byte)
    """
    codec = "utf-8" if encoding.lower() in _UTF8 else encoding
    try:
        text = data.decode(codec, "surrogateescape" if keep_bad else "strict")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        name = "UTF-8" if codec == "utf-8" else codec
        raise EncodingError(f"not valid {name} at byte {err.start} (0x{data[err.start]:02x}, {err.reason})",
                            file=path, record=f"line {line}") from None
    nul = text.find("\x00")
    if nul >= 0:
        line = text.count("\n", 0, nul) + 1
        at = f"byte {data.find(bytes(1))}" if codec == "utf-8" else f"character {nul}"
        raise ControlCharacterError(f"a NUL character (0x00) at {at}; a text file holds none (is it binary "
                                    f"or corrupt?)", file=path, record=f"line {line}")
    if "\\u0000" in text and os.fspath(path).lower().endswith(_JSON_SUFFIXES):
        found = _JSON_NUL.search(text)
        if found is not None:
            at = found.end() - 6
            raise ControlCharacterError(f"a NUL character (the JSON escape \\u0000) at character "
                                        f"{at - text.rfind(chr(10), 0, at)}; a text value holds none", file=path,
                                        record=f"line {text.count(chr(10), 0, at) + 1}")
    return text[1:] if text.startswith(_BOM) else text


def bad_utf8(text: str) -> str | None:
    """Why ``text`` (decoded with ``keep_bad=True``) is not UTF-8, or None when it is.

    >>> bad_utf8(decode_utf8(b"caf\\xe9 ok", "x", keep_bad=True))
    'not valid UTF-8 (0xe9, invalid continuation byte)'
    >>> bad_utf8("café") is None
    True
    """
    found = _KEPT.search(text)
    if found is None:
        return None
    raw = text.encode("utf-8", "surrogateescape")
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as err:
        return f"not valid UTF-8 (0x{raw[err.start]:02x}, {err.reason})"
    return "not valid UTF-8"  # pragma: no cover - a lone surrogate always fails to decode


class Utf8Stream:
    """Check a byte stream chunk by chunk for UTF-8, for readers that stream (XML).

    >>> s = Utf8Stream("d.xml")
    >>> s.check(b"<a>caf\\xc3", final=False)
    (7, None)
    >>> good, err = s.check(b"\\xa9\\n\\xff</a>", final=True)
    >>> good, str(err)
    (2, 'd.xml, line 2: not valid UTF-8 at byte 9 (0xff, invalid start byte)')
    """

    def __init__(self, path: str | os.PathLike):
        self.path = path
        self._decoder = codecs.getincrementaldecoder("utf-8")()
        self._fed = 0  # bytes checked before this chunk
        self._lines = 0  # newlines in them

    def check(self, chunk: bytes, *, final: bool) -> tuple[int, EncodingError | None]:
        """``(len(chunk), None)``, or how many bytes of ``chunk`` come before the first bad one and the error."""
        pending = len(self._decoder.getstate()[0])
        try:
            self._decoder.decode(chunk, final)
        except UnicodeDecodeError as err:
            good = max(0, err.start - pending)
            line = self._lines + chunk.count(b"\n", 0, good) + 1
            raw = err.object[err.start]
            return good, EncodingError(f"not valid UTF-8 at byte {self._fed - pending + err.start} "
                                       f"(0x{raw:02x}, {err.reason})", file=self.path, record=f"line {line}")
        self._fed += len(chunk)
        self._lines += chunk.count(b"\n")
        return len(chunk), None


def split_lines(text: str) -> list[str]:
    """Split file text into lines: ``\\n`` ends a line, a final newline adds no line, ``\\r`` is dropped.

    >>> split_lines("a\\r\\nb\\n\\nc")
    ['a', 'b', '', 'c']
    >>> split_lines("x\\u2028y\\n")
    ['x\\u2028y']
    """
    if not text:
        return []
    parts = text.split("\n")
    if parts[-1] == "":
        parts.pop()
    return [p[:-1] if p.endswith("\r") else p for p in parts]


@functools.cache
def allow_long_fields() -> int:
    """Lift the ``csv`` module's field limit (131,072 characters) once for the process.

    A field may hold a whole article; the limit only guards memory, and the
    file is in memory already. The C ``long`` of the platform bounds it.
    """
    limit = min(sys.maxsize, 2**31 - 1)
    csv.field_size_limit(max(csv.field_size_limit(), limit))
    return csv.field_size_limit()


@dataclass(slots=True)
class Row:
    """One table row: its first line (1-based), its fields, and why it is bad (``None`` when fine).

    ``problem`` is set only under ``on_error="skip"``: ``(reason, message)``
    with reason :data:`INVALID_UTF8` or :data:`MALFORMED_CSV`.
    """

    line: int
    fields: list[str]
    problem: tuple[str, str] | None = None


@dataclass(slots=True)
class Table:
    """A parsed CSV/TSV file: the header row and the data rows (blank lines left out)."""

    header: list[str]
    rows: list[Row]


def parse_table(text: str, path: str | os.PathLike, *, delimiter: str, on_error: str = "raise",
                error: type[Exception] = SchemaError, empty: str | None = None,
                required: Sequence[str] = (), skip_blank: bool = False) -> Table:
    """Parse CSV/TSV ``text`` (CSV quoting) whose first row is the header.

    Parameters
    ----------
    text : str
        Decoded file text (see :func:`decode_utf8`).
    path : path-like
        Named in errors.
    delimiter : str
        ``","`` or ``"\\t"``.
    on_error : {"raise", "skip"}
        ``raise``: a bad row raises ``error`` (or :class:`EncodingError` for
        kept undecodable bytes); ``skip``: the row is returned with
        :attr:`Row.problem` set.
    error : exception class
        Raised for a row whose width differs from the header's or that the
        ``csv`` module refuses; it takes ``file=`` and ``record=``.
    empty : str, optional
        Message raised (as ``error``) when the file has no header; ``None``
        returns an empty :class:`Table`.
    required : sequence of str
        Columns the header must hold; a missing one raises ``error`` at line 1
        before any row is judged.
    skip_blank : bool, default False
        Also leave out rows whose fields are all blank (empty lines always are).

    Raises
    ------
    SourceError
        A quote that is never closed (under either policy), naming the line it opens on.
    """
    allow_long_fields()
    text = text[1:] if text.startswith(_BOM) else text
    fast = _parse_plain(text, delimiter, required, skip_blank)
    if fast is not None:
        return fast
    buf = io.StringIO(text, newline="")
    reader = csv.reader(buf, delimiter=delimiter, quotechar='"', strict=False)
    check = _KEPT.search(text) is not None  # only text decoded with keep_bad=True holds any
    crlf = "\r\n" in text
    header: list[str] | None = None
    rows: list[Row] = []
    width = 0
    while True:
        start, line = buf.tell(), reader.line_num + 1
        try:
            fields = next(reader)
        except StopIteration:
            break
        except csv.Error as err:
            _row_problem(rows, line, MALFORMED_CSV, f"malformed CSV: {err}", path, on_error, error)
            continue
        if not fields or (skip_blank and not any(f.strip() for f in fields)):
            continue
        if crlf and any("\r\n" in f for f in fields):  # a CRLF file gives the same fields as its LF twin
            fields = [f.replace("\r\n", "\n") for f in fields]
        end = buf.tell()
        if end == len(text):  # only the last row can run to the end of the file
            _check_quotes(text, start, line, delimiter, path)
        problem = bad_utf8(text[start:end]) if check else None
        if header is None:
            if problem:
                raise EncodingError(f"{problem} in the header", file=path, record=f"line {line}")
            missing = [c for c in required if c not in fields]
            if missing:
                raise error(f"header lacks {', '.join(missing)}; found {fields}", file=path, record=f"line {line}")
            header, width = fields, len(fields)
            continue
        if problem:
            _row_problem(rows, line, INVALID_UTF8, problem, path, on_error, EncodingError)
        elif len(fields) != width:
            hint = "; a quote in it may be unbalanced" if '"' in text[start:end] else ""
            _row_problem(rows, line, MALFORMED_CSV, f"expected {width} fields as in the header, found "
                         f"{len(fields)}{hint}", path, on_error, error)
        else:
            rows.append(Row(line, fields))
    if header is None:
        if empty is not None:
            raise error(empty, file=path)
        return Table([], [])
    return Table(header, rows)


def _plain(text: str, delimiter: str, required: Sequence[str], strict_decoded: bool) -> list[list[str]] | None:
    """Every record (blank lines as ``[]``) when the text is the common case; else None.

    The common case: one record per line, every row as wide as the header,
    the ``required`` columns present, no csv error and (unless the text was
    decoded strictly) no kept undecodable byte. Any doubt returns None so
    that :func:`parse_table` re-reads the text record by record, and errors
    and skips are judged in one place. A BOM must already be gone.
    """
    if not strict_decoded and _KEPT.search(text) is not None:
        return None
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, quotechar='"', strict=False)
    try:
        records = list(reader)
    except csv.Error:
        return None
    if reader.line_num != len(records):  # a quoted field spans lines (or never closes)
        return None
    header = next((r for r in records if r), None)
    if header is None or any(c not in header for c in required):
        return None
    if set(map(len, filter(None, records))) != {len(header)}:
        return None
    return records


def plain_records(text: str, delimiter: str, *, required: Sequence[str] = (),
                  strict_decoded: bool = False) -> tuple[list[str], list[list[str]]] | None:
    """``(header, rows)``, blank lines left out, in the common case (see :func:`_plain`); else None."""
    records = _plain(text, delimiter, required, strict_decoded)
    if records is None:
        return None
    records = [r for r in records if r]
    return records[0], records[1:]


def _parse_plain(text: str, delimiter: str, required: Sequence[str], skip_blank: bool) -> Table | None:
    """:func:`parse_table`'s common case with line numbers kept; else None."""
    records = None if skip_blank else _plain(text, delimiter, required, False)
    if records is None:
        return None
    numbered = [(line, fields) for line, fields in enumerate(records, 1) if fields]
    return Table(numbered[0][1], [Row(line, fields) for line, fields in numbered[1:]])


def _row_problem(rows, line, reason, message, path, on_error, error) -> None:
    if on_error == "raise":
        raise error(message, file=path, record=f"line {line}")
    rows.append(Row(line, [], (reason, message)))


def _check_quotes(text: str, pos: int, line: int, delimiter: str, path) -> None:
    """Raise when the record starting at ``text[pos]`` (the last one) opens a quote it never closes."""
    special = re.compile(f"[{re.escape(delimiter)}\"\r\n]")
    at_field_start = True
    while pos < len(text):
        if at_field_start and text[pos] == '"':
            end = pos + 1
            while True:  # the closing quote is a quote not doubled
                end = text.find('"', end)
                if end < 0:
                    raise SourceError(f"unbalanced quote: the quoted field that opens on line {line} is never "
                                      f"closed and runs to the end of the file (line "
                                      f"{line + _line_breaks(text[pos:].rstrip())})", file=path, record=f"line {line}")
                if text.startswith('"', end + 1):
                    end += 2
                    continue
                break
            line += _line_breaks(text[pos:end])
            pos, at_field_start = end + 1, False
            continue
        found = special.search(text, pos)  # a quote inside an unquoted field is a plain character
        if found is None or found.group() in "\r\n":
            return
        at_field_start, pos = found.group() == delimiter, found.end()


def jsonl_lines(text: str) -> Iterator[tuple[int, str]]:
    """``(line number, line)`` of the non-blank lines of JSON-lines text.

    >>> list(jsonl_lines('{"a": 1}\\r\\n\\n{"a": 2}'))
    [(1, '{"a": 1}'), (3, '{"a": 2}')]
    """
    for n, line in enumerate(split_lines(text), start=1):
        if line.strip():
            yield n, line
