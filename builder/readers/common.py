"""Shared machinery of the corpus readers: split and option checks, file lookup, JSON loading.

:class:`SourceReader` extends :class:`builder.readers.base.Reader` with the
constructor every reader shares, ``Cls(root, splits=None, *, on_error="raise",
**options)``. A concrete reader declares its native split names
(:attr:`SourceReader.SPLITS`), the splits it refuses and why
(:attr:`SourceReader.REJECTED_SPLITS`), its options with their defaults
(:attr:`SourceReader.OPTIONS`), and implements :meth:`SourceReader.locate`
(one split -> its files) and :meth:`Reader.parse_file`.
"""
from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, Iterator, Sequence

from schemas.errors import RecipeError, SourceNotFoundError
from schemas.io import read_bytes
from schemas.tables import INVALID_UTF8, EncodingError, bad_utf8, decode_utf8, jsonl_lines

from .base import BadRecord, Reader
from .jsonstream import NotStreamable, clean_json_array, iter_json_array  # noqa: F401 (readers import them here)

#: Options every reader accepts: ``license`` overrides :attr:`Reader.default_license`.
COMMON_OPTIONS: dict[str, Any] = {"license": None}

_DIGITS = re.compile(r"(\d+)")


def natural_key(name: str) -> tuple:
    """Sort key that orders embedded numbers by value (``2.txt`` before ``10.txt``).

    Numbers and text never meet in one comparison, so any mix of names sorts:
    names that start with a number come first, by number, then the others by
    text (``copy_a.txt`` after ``12.txt``); the name itself breaks ties
    (``01.txt`` before ``1.txt``).

    >>> sorted(["10.txt", "copy_a.txt", "2.txt", "1.txt", "01.txt"], key=natural_key)
    ['01.txt', '1.txt', '2.txt', '10.txt', 'copy_a.txt']
    >>> sorted(["high12.txt", "high.txt", "high2.txt", "x²"], key=natural_key)
    ['high2.txt', 'high12.txt', 'high.txt', 'x²']
    """
    # re.split with one group: the numbers sit at the odd positions
    parts = tuple((0, int(p), "") if i % 2 else (1, 0, p) for i, p in enumerate(_DIGITS.split(name)) if p)
    return parts, name


def letter_index(letter: object, n_options: int) -> int:
    """0-based index of an answer letter (``"A"`` -> 0), or -1 when it is not one of the first ``n_options`` letters.

    >>> letter_index("C", 4)
    2
    >>> letter_index("E", 4)
    -1
    """
    if not isinstance(letter, str):
        return -1
    letter = letter.strip()
    if len(letter) != 1:
        return -1
    idx = ord(letter) - ord("A")
    return idx if 0 <= idx < n_options else -1


def letters(n: int) -> str:
    """The allowed answer letters for ``n`` options, as a range for messages.

    >>> letters(4)
    'A-D'
    """
    return f"A-{chr(ord('A') + n - 1)}" if n > 0 else "none"


class SourceReader(Reader):
    """A :class:`Reader` with checked splits and options.

    Parameters
    ----------
    root : str or Path
        The folder the corpus was unpacked into (see each reader for the layout).
    splits : sequence of str, optional
        Native split names to read, in this order. ``None`` reads every native
        split whose files are present.
    on_error : {"raise", "skip"}
        ``raise`` stops at the first bad record with a :class:`SourceError`;
        ``skip`` yields a :class:`BadRecord` with a reason name instead.
    **options
        Reader options (:attr:`OPTIONS`, plus ``license``).

    Raises
    ------
    RecipeError
        An unknown or refused split, an unknown option, or a bad ``on_error``.
    """

    SPLITS: tuple[str, ...] = ()
    REJECTED_SPLITS: dict[str, str] = {}
    OPTIONS: dict[str, Any] = {}

    def __init__(self, root: str | Path, splits: Sequence[str] | None = None, *,
                 on_error: str = "raise", **options: Any):
        if on_error not in ("raise", "skip"):
            raise RecipeError(f"on_error must be one of raise, skip; found {on_error!r}", field="on_error")
        if isinstance(splits, str):
            splits = [splits]
        super().__init__(root, splits, on_error=on_error)
        if self.splits is not None:
            self.splits = list(dict.fromkeys(self.splits))  # drop repeats, keep order
            for split in self.splits:
                self.check_split(split)
        allowed = {**COMMON_OPTIONS, **self.OPTIONS}
        unknown = sorted(set(options) - set(allowed))
        if unknown:
            raise RecipeError(f"unknown option(s) {', '.join(unknown)} for reader {self.name}; "
                              f"allowed: {', '.join(sorted(allowed))}", field="options")
        self.options: dict[str, Any] = {**allowed, **options}
        self.license: str = self.options["license"] or self.default_license
        self._files: list[tuple[str, Path]] | None = None

    # -- splits ---------------------------------------------------------------
    def check_split(self, split: str) -> None:
        """Raise :class:`RecipeError` unless ``split`` is a readable native split name."""
        if split in self.REJECTED_SPLITS:
            raise RecipeError(f"{self.name} split {split!r} cannot be read: {self.REJECTED_SPLITS[split]}; "
                              f"allowed: {', '.join(self.SPLITS)}", field="splits")
        if self.SPLITS and split not in self.SPLITS:
            raise RecipeError(f"unknown {self.name} split {split!r}; allowed: {', '.join(self.SPLITS)}",
                              field="splits")

    def locate(self, split: str) -> list[str] | list[Path]:
        """The files of one split, in reading order; raise :class:`SourceNotFoundError` if absent."""
        raise NotImplementedError

    def default_splits(self) -> list[str]:
        """Splits read when none are named: the native ones that are present."""
        return list(self.SPLITS)

    def files(self) -> list[tuple[str, str | Path]]:
        """``(split, path)`` pairs to read; resolved once and cached."""
        if self._files is not None:
            return self._files
        if not self.root.exists():
            raise SourceNotFoundError(f"{self.name} source folder not found", file=self.root)
        pairs: list[tuple[str, str | Path]] = []
        if self.splits is not None:
            for split in self.splits:
                pairs.extend((split, p) for p in self.locate(split))
        else:
            missing: list[SourceNotFoundError] = []
            for split in self.default_splits():
                try:
                    pairs.extend((split, p) for p in self.locate(split))
                except SourceNotFoundError as err:
                    missing.append(err)
            if not pairs:
                raise missing[0] if missing else SourceNotFoundError(
                    f"no {self.name} files found", file=self.root)
        self._files = pairs
        return pairs

    # -- helpers for parse_file ----------------------------------------------
    def rel(self, path: str | Path) -> str:
        """``path`` relative to ``root`` with ``/`` separators (string slicing: pathlib is slow per file)."""
        text, prefix = str(path), self.__dict__.get("_prefix")
        if prefix is None:
            prefix = self._prefix = os.path.join(str(self.root), "")
        if text.startswith(prefix):
            return text[len(prefix):].replace(os.sep, "/")
        return super().rel(path)

    def require_file(self, path: Path, what: str) -> Path:
        if not path.is_file():
            raise SourceNotFoundError(f"{self.name} {what} not found", file=path)
        return path

    def read_text(self, path: Path, encoding: str = "utf-8") -> str:
        """Whole file as text, BOM dropped (:func:`schemas.tables.decode_utf8`), for files read line by line.

        Undecodable bytes raise :class:`~schemas.tables.EncodingError` naming
        line, byte and reason (``... [invalid_utf8]``, as every reader error
        names its reason). Under ``on_error="skip"`` they are kept instead,
        for :func:`schemas.tables.bad_utf8` to flag just the lines that hold them.
        A NUL character is a :class:`~schemas.tables.ControlCharacterError`
        (``... [control_character]``) under either policy: the file is not text.
        """
        try:
            return self._decode(path, encoding, keep_bad=self.on_error == "skip")
        except EncodingError as err:  # the same class, so its reason stays the file's
            raise type(err)(f"{err.message} [{err.reason}]", file=err.file, record=err.record) from None

    @staticmethod
    def _decode(path: Path, encoding: str = "utf-8", *, keep_bad: bool = False) -> str:
        return decode_utf8(read_bytes(path), path, keep_bad=keep_bad, encoding=encoding)

    def load_json(self, split: str, path: Path) -> tuple[Any, BadRecord | None]:
        """Parse a whole-file JSON document: ``(data, None)`` or ``(None, BadRecord)`` under skip.

        The file is one record here: bytes that are not UTF-8 make it an
        ``invalid_utf8`` record, a parse error a ``malformed_json`` one.
        """
        try:
            text = self._decode(path)
        except EncodingError as err:
            return None, self.bad(split, path, err.record, err.reason, err.message)
        try:
            return json.loads(text), None
        except json.JSONDecodeError as err:
            return None, self.bad(split, path, f"line {err.lineno}", "malformed_json",
                                  f"malformed JSON: {err.msg} at column {err.colno}")

    def json_array_rows(self, split: str, path: Path, fields: Sequence[str]) -> Iterator[tuple[int, str, dict] | BadRecord]:
        """Parse a file holding one JSON array of objects; yield ``(index, record, row)`` per object.

        A malformed file, a non-array document, a non-object element or an
        element lacking one of ``fields`` becomes a :class:`BadRecord` (or an
        error under ``on_error="raise"``); ``record`` is ``"#<index>"``.

        The array is read an element at a time (:func:`iter_json_array`), so a
        large file is never held whole. A file that is not a clean array (bad
        bytes, bad syntax, not an array) is read whole as before, for the same
        error; under ``on_error="skip"`` it is checked first, so that such a
        file yields its one :class:`BadRecord` and no rows.
        """
        start = 0
        if self.on_error == "raise" or clean_json_array(path):
            try:
                for start, row in enumerate(iter_json_array(path), 1):
                    yield from self._array_row(split, path, fields, start - 1, row)
                return
            except NotStreamable:
                pass  # read it whole: the error names the line as before (rows already given stay given)
        data, bad = self.load_json(split, path)
        if bad is not None:
            yield bad
            return
        if not isinstance(data, list):
            yield self.bad(split, path, "line 1", "malformed_json",
                           f"expected a JSON array of questions, found {type(data).__name__}")
            return
        for i in range(start, len(data)):
            yield from self._array_row(split, path, fields, i, data[i])

    def _array_row(self, split: str, path: Path, fields: Sequence[str], i: int, row: Any):
        record = f"#{i}"
        if not isinstance(row, dict):
            yield self.bad(split, path, record, "malformed_json", f"expected an object, found {type(row).__name__}")
            return
        missing = [k for k in fields if k not in row]
        if missing:
            yield self.bad(split, path, record, "missing_field", f"field {missing[0]} is missing")
            return
        yield i, record, row

    def jsonl_objects(self, split: str, path: Path) -> Iterator[tuple[int, str, dict] | BadRecord]:
        """Yield ``(k, record, object)`` for each non-blank line of a JSON Lines file.

        ``k`` counts the non-blank lines from 0 and ``record`` is ``"line N"``;
        a line that is not a JSON object becomes a :class:`BadRecord` (or an
        error under ``on_error="raise"``).
        """
        k = -1
        for n, line in jsonl_lines(self.read_text(path)):
            k += 1
            record = f"line {n}"
            problem = bad_utf8(line)
            if problem is not None:
                yield self.bad(split, path, record, INVALID_UTF8, problem)
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as err:
                yield self.bad(split, path, record, "malformed_json", f"malformed JSON: {err.msg} at column {err.colno}")
                continue
            if not isinstance(obj, dict):
                yield self.bad(split, path, record, "malformed_json", f"expected an object, found {type(obj).__name__}")
                continue
            yield k, record, obj
