"""Parallel text in the FLORES-200 layout: one sentence per line, files concatenated.

Line ``k`` of every language translates line ``k`` of English; SIB-200's
``index_id`` ``k`` is line ``k`` of ``dev`` followed by ``devtest``. A
:class:`ParallelText` keeps the lines of all files in the order given, with
each file's offset, so an index can be traced back to ``file, line N``.

>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "a.dev").write_text("one\\ntwo\\n", encoding="utf-8")
>>> _ = (d / "a.devtest").write_text("three\\n", encoding="utf-8")
>>> text = read_parallel([d / "a.dev", d / "a.devtest"])
>>> len(text.lines), text.locate(2)
(3, ('a.devtest', 1))
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from schemas.io import read_text_utf8, require_path, sha256_file
from schemas.tables import check_chars, split_lines

#: FLORES-200 line counts: dev, devtest (SIB-200 index_id = dev lines, then devtest lines).
FLORES_LINES = (997, 1012)


@dataclass(frozen=True)
class ParallelFile:
    """One parallel file: its path, first global index, line count and sha256."""

    path: Path
    offset: int
    n_lines: int
    sha256: str

    @property
    def name(self) -> str:
        return self.path.name


@dataclass(frozen=True)
class ParallelText:
    """The lines of several parallel files, concatenated in the order given."""

    files: tuple[ParallelFile, ...]
    lines: tuple[str, ...]

    def file_of(self, index: int) -> ParallelFile:
        """The file holding global line ``index`` (0-based)."""
        for f in self.files:
            if f.offset <= index < f.offset + f.n_lines:
                return f
        raise IndexError(index)

    def locate(self, index: int) -> tuple[str, int]:
        """``(file name, 1-based line number)`` of global line ``index``."""
        f = self.file_of(index)
        return f.name, index - f.offset + 1

    def where(self, index: int) -> str:
        """``"file.dev line 12"`` for global line ``index``."""
        name, line = self.locate(index)
        return f"{name} line {line}"


def read_parallel(paths: Sequence[str | Path]) -> ParallelText:
    """Read and concatenate parallel files (UTF-8, one sentence per line).

    A byte-order mark and CRLF line ends are read as if absent; a bad byte is an
    :class:`~schemas.tables.EncodingError` naming the file, line, byte and reason.
    A sentence is text: a NUL, or any other control character but tab (an
    escape sequence, a lone carriage return), is a
    :class:`~schemas.tables.ControlCharacterError` naming the file and line,
    never written into a variant.
    """
    files, lines = [], []
    for p in paths:
        path = require_path(p, what="parallel file", kind="file")
        chunk = split_lines(read_text_utf8(path))
        for n, line in enumerate(chunk, start=1):
            check_chars(line, "a sentence", text=True, file=path, record=f"line {n}")
        files.append(ParallelFile(path=path, offset=len(lines), n_lines=len(chunk), sha256=sha256_file(path)))
        lines.extend(chunk)
    return ParallelText(files=tuple(files), lines=tuple(lines))


def default_expected_lines(n_files: int) -> tuple[int, ...] | None:
    """FLORES-200 counts for the usual inputs: 2 files -> (997, 1012); 1 file -> (2009,); else None.

    >>> default_expected_lines(2)
    (997, 1012)
    """
    if n_files == 2:
        return FLORES_LINES
    if n_files == 1:
        return (sum(FLORES_LINES),)
    return None
