"""Read a large JSON array one element at a time, with the values ``json.loads`` gives.

SciQ and ReClor ship one JSON array per split and MultiRC one ``{"data": [...]}``
object; at ten times the published sizes these are hundreds of megabytes, which
``json.loads`` would hold whole (text and objects). :func:`iter_json_array`
parses one element at a time from a buffer of about a megabyte with the
standard library's decoder (``json.JSONDecoder.raw_decode``). It accepts only a
clean document and raises :class:`NotStreamable` otherwise, so that the
readers fall back to reading the file whole and report its error exactly as
before (:meth:`builder.readers.common.SourceReader.json_array_rows`).
"""
from __future__ import annotations

import codecs
import json
import os
from typing import Any, Iterator


class NotStreamable(Exception):
    """The file is not a clean UTF-8 JSON array; read it whole for the exact error."""


_JSON_SPACE = " \t\n\r"


def iter_json_array(path: str | os.PathLike, chunk: int = 1 << 20, key: str | None = None) -> Iterator[Any]:
    """The elements of a file holding one JSON array, parsed one at a time from a buffer of about ``chunk`` bytes.

    With ``key``, the file is an object holding only that key, whose value is
    the array (MultiRC's ``{"data": [...]}``).

    The values are what ``json.loads`` of the whole file gives (the same decoder,
    on a leading byte-order mark dropped). Raises :class:`NotStreamable` where
    the file is not a clean array (bytes that are not UTF-8, bad syntax,
    anything but whitespace after the array), possibly after some elements.

    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "a.json")
    >>> _ = open(path, "w", encoding="utf-8").write('\\ufeff[{"a": 1}, 2, "x" ]\\n')
    >>> list(iter_json_array(path, chunk=3))
    [{'a': 1}, 2, 'x']
    """
    decode = codecs.getincrementaldecoder("utf-8")().decode
    raw_decode = _DECODER.raw_decode
    with open(path, "rb") as fh:
        buf, pos, eof = "", 0, False

        def more() -> None:
            nonlocal buf, pos, eof
            data = fh.read(chunk)
            eof = not data
            try:
                buf = buf[pos:] + decode(data, eof)
            except UnicodeDecodeError:
                raise NotStreamable from None
            pos = 0

        def skip_space() -> bool:
            """Move past whitespace; False at the end of the file."""
            nonlocal pos
            while True:
                while pos < len(buf) and buf[pos] in _JSON_SPACE:
                    pos += 1
                if pos < len(buf):
                    return True
                if eof:
                    return False
                more()

        while not buf and not eof:  # a chunk may end inside a character
            more()
        if buf.startswith("\ufeff"):
            pos = 1
        def expect(char: str) -> None:
            nonlocal pos
            if not skip_space() or buf[pos] != char:
                raise NotStreamable
            pos += 1

        if key is not None:
            expect("{")
            if not skip_space() or buf[pos] != '"':
                raise NotStreamable
            while True:  # the key, whole (a chunk may cut it)
                try:
                    name, pos = raw_decode(buf, pos)
                    break
                except json.JSONDecodeError:
                    if eof:
                        raise NotStreamable from None
                    more()
            if name != key:
                raise NotStreamable
            expect(":")
        expect("[")
        first = True
        while True:
            if not skip_space():
                raise NotStreamable
            if buf[pos] == "]":
                pos += 1
                if key is not None:
                    expect("}")
                if skip_space():
                    raise NotStreamable  # extra data after the document
                return
            if not first:
                if buf[pos] != ",":
                    raise NotStreamable
                pos += 1
                if not skip_space():
                    raise NotStreamable
            while True:
                try:
                    value, end = raw_decode(buf, pos)
                except json.JSONDecodeError:
                    if eof:
                        raise NotStreamable from None
                    more()  # the element may go on in the next chunk
                    continue
                after = end
                while after < len(buf) and buf[after] in _JSON_SPACE:
                    after += 1
                if not eof and (after == len(buf) or buf[after] not in ",]"):
                    more()  # a number cut by the chunk ("1" of "12", "0." of "0.5") parses: wait for what follows
                    continue
                break
            yield value
            pos, first = end, False


def clean_json_array(path: str | os.PathLike, key: str | None = None) -> bool:
    """Whether :func:`iter_json_array` reads the whole file without :class:`NotStreamable`."""
    try:
        for _ in iter_json_array(path, key=key):
            pass
    except NotStreamable:
        return False
    return True


_DECODER = json.JSONDecoder()
