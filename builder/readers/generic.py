"""Generic readers for any multiple-choice corpus in JSON lines or CSV/TSV, through a column mapping.

Options (both readers):

``columns`` (required)
    ``{"passage": col, "question": col, "options": [col, ...] or col,
    "answer": col}`` plus optional ``passage_id`` and ``question_id``.
    ``options`` is a list of columns, or one column holding a list (a JSON
    array; in a CSV cell, JSON text). In JSON lines a dotted name
    (``passage.text``) reaches into nested objects.
``answer_format``
    ``letter`` (default: ``A`` = first option), ``index0``, ``index1`` or
    ``text`` (the answer is the text of the correct option). A JSON list of
    answers marks several options correct.
``files``
    ``{split: path relative to root}``; without it, ``pattern`` (default
    ``{split}.jsonl`` / ``{split}.csv``) names each split's file, and with no
    splits named, every file matching the pattern is read.
``corpus``
    The source name written into each record (default: the reader name).
``license``
    License id (default ``unknown``).
``delimiter``, ``encoding`` (csv only)
    Default: tab for ``*.tsv`` files, else comma; ``utf-8-sig``.

Ids: ``passage_id`` / ``question_id`` come from their columns when mapped, else
``"{split}/<record index>"``. ``record`` is ``"line <n>"`` (the first line of
a CSV row). Bad rows: ``malformed_json``, ``malformed_csv``, ``missing_field``,
``bad_value``, ``answer_out_of_range``, ``answer_not_in_options``,
``invalid_utf8`` (a line or row holding bytes that are not UTF-8). A CSV
header that lacks a mapped column is a :class:`RecipeError` under either
error policy: the mapping is wrong, not one row. A quote that is never closed
is a :class:`SourceError` under either policy, naming the line it opens on: it
swallows the rest of the file, whose rows cannot be counted. A
byte-order mark and CRLF line ends are read as if absent, and a field may be
of any length.
"""
from __future__ import annotations

import codecs
import json
import re
from pathlib import Path
from typing import Any, Iterator

from schemas.errors import RecipeError
from schemas.tables import parse_table

from .base import BadRecord, RawMCItem
from .common import SourceReader, letter_index

ANSWER_FORMATS = ("letter", "index0", "index1", "text")
_REQUIRED = ("passage", "question", "options", "answer")
_OPTIONAL = ("passage_id", "question_id")
_MISSING = object()


class _Bad(Exception):
    def __init__(self, reason: str, message: str):
        super().__init__(message)
        self.reason, self.message = reason, message


def answer_indexes(value: Any, options: list[str], fmt: str) -> list[int]:
    """0-based correct indexes for an answer cell in format ``fmt``; raise on a bad value.

    >>> answer_indexes("C", ["a", "b", "c", "d"], "letter")
    [2]
    >>> answer_indexes("2", ["a", "b", "c", "d"], "index1")
    [1]
    """
    values = value if isinstance(value, list) else [value]
    out = []
    for v in values:
        if fmt == "text":
            hits = [i for i, o in enumerate(options) if o.strip() == str(v).strip()]
            if not hits:
                raise _Bad("answer_not_in_options", f"answer {v!r} is not one of the options")
            out.extend(hits)
            continue
        if fmt == "letter":
            idx = letter_index(v.upper() if isinstance(v, str) else v, len(options))
        else:
            try:
                idx = int(v) - (fmt == "index1") if not isinstance(v, bool) else -1
            except (TypeError, ValueError):
                idx = -1
        if not 0 <= idx < len(options):
            raise _Bad("answer_out_of_range",
                       f"answer must be a {fmt} for {len(options)} options, found {v!r}")
        out.append(idx)
    return sorted(set(out))


class _MappedReader(SourceReader):
    default_license = "unknown"
    SPLITS = ()
    OPTIONS: dict[str, Any] = {"columns": None, "answer_format": "letter", "files": None, "pattern": None,
                               "corpus": None}
    EXT = ""

    def __init__(self, root, splits=None, *, on_error="raise", **options):
        super().__init__(root, splits, on_error=on_error, **options)
        self.columns = self._check_columns(self.options["columns"])
        if self.options["answer_format"] not in ANSWER_FORMATS:
            raise RecipeError(f"option answer_format must be one of {', '.join(ANSWER_FORMATS)}; "
                              f"found {self.options['answer_format']!r}", field="answer_format")
        files = self.options["files"]
        if files is not None and not (isinstance(files, dict) and all(isinstance(v, str) for v in files.values())):
            raise RecipeError("option files must map split names to paths", field="files")
        if files is not None and self.splits is not None:
            for split in self.splits:
                if split not in files:
                    raise RecipeError(f"split {split!r} is not in option files; allowed: {', '.join(files)}",
                                      field="splits")
        self.pattern = self.options["pattern"] or "{split}" + self.EXT
        if "{split}" not in self.pattern:
            raise RecipeError(f"option pattern must contain {{split}}, found {self.pattern!r}", field="pattern")
        self.name = self.options["corpus"] or type(self).name

    def _check_columns(self, cols) -> dict:
        if not isinstance(cols, dict):
            raise RecipeError(f"reader {self.name} needs option columns mapping {', '.join(_REQUIRED)} "
                              "to the file's column names", field="columns")
        unknown = sorted(set(cols) - set(_REQUIRED) - set(_OPTIONAL))
        missing = [k for k in _REQUIRED if k not in cols]
        if unknown or missing:
            raise RecipeError(f"option columns must have keys {', '.join(_REQUIRED)} (optional: "
                              f"{', '.join(_OPTIONAL)}); missing {missing}, unknown {unknown}", field="columns")
        opts = cols["options"]
        if not (isinstance(opts, str) or (isinstance(opts, list) and opts and all(isinstance(c, str) for c in opts))):
            raise RecipeError("columns.options must be a column name or a list of column names", field="columns")
        if not all(isinstance(cols[k], str) for k in cols if k != "options"):
            raise RecipeError("columns values must be column names (strings)", field="columns")
        return dict(cols)

    def default_splits(self) -> list[str]:
        if self.options["files"] is not None:
            return list(self.options["files"])
        regex = re.compile(re.escape(self.pattern).replace(re.escape("{split}"), "(.+)") + r"\Z")
        found = []
        if self.root.is_dir():
            for p in sorted(self.root.glob(self.pattern.replace("{split}", "*"))):
                m = regex.match(p.relative_to(self.root).as_posix())
                if m and p.is_file():
                    found.append(m.group(1))
        return found

    def locate(self, split: str) -> list[Path]:
        files = self.options["files"]
        path = self.root / (files[split] if files is not None else self.pattern.format(split=split))
        return [self.require_file(path, f"{split} file")]

    def item(self, split: str, rel: str, record: str, k: int, get) -> RawMCItem:
        """Build one item from a row through ``get(column) -> value or _MISSING``."""
        cols = self.columns
        values = {}
        for key in ("passage", "question", "answer"):
            v = get(cols[key])
            if v is _MISSING or v is None or (key == "answer" and v == ""):
                raise _Bad("missing_field", f"field {cols[key]} is missing")
            values[key] = v
        if isinstance(cols["options"], list):
            options = [get(c) for c in cols["options"]]
            absent = [c for c, v in zip(cols["options"], options) if v is _MISSING or v is None]
            if absent:
                raise _Bad("missing_field", f"field {absent[0]} is missing")
        else:
            options = get(cols["options"])
            if options is _MISSING or options is None:
                raise _Bad("missing_field", f"field {cols['options']} is missing")
            if isinstance(options, str):
                try:
                    options = json.loads(options)
                except json.JSONDecodeError:
                    raise _Bad("bad_value", f"field {cols['options']} must hold a list of options") from None
        if not isinstance(options, list) or not all(isinstance(o, str) for o in options):
            raise _Bad("bad_value", "options must be strings")
        if not isinstance(values["passage"], str) or not isinstance(values["question"], str):
            raise _Bad("bad_value", f"fields {cols['passage']}, {cols['question']} must be strings")
        correct = answer_indexes(values["answer"], options, self.options["answer_format"])
        ids = {}
        for key in _OPTIONAL:
            v = get(cols[key]) if key in cols else _MISSING
            ids[key] = f"{split}/{k}" if v is _MISSING or v is None or v == "" else str(v)
        return RawMCItem(self.name, split, ids["passage_id"], ids["question_id"], values["passage"],
                         values["question"], options, correct, rel, record, {})


def _dotted(obj: dict, key: str):
    if key in obj:
        return obj[key]
    cur: Any = obj
    for part in key.split("."):
        if not isinstance(cur, dict) or part not in cur:
            return _MISSING
        cur = cur[part]
    return cur


class JsonlReader(_MappedReader):
    """Read JSON-lines files through a column mapping.

    >>> import json, tempfile; from pathlib import Path
    >>> d = Path(tempfile.mkdtemp())
    >>> _ = (d / "train.jsonl").write_text(json.dumps({"c": "Sky.", "q": "Colour?", "o": ["red", "blue"], "y": 1}))
    >>> cols = {"passage": "c", "question": "q", "options": "o", "answer": "y"}
    >>> next(iter(JsonlReader(d, ["train"], columns=cols, answer_format="index0"))).correct
    [1]
    """

    name = "jsonl"
    EXT = ".jsonl"

    def parse_file(self, split: str, path: str | Path) -> Iterator[RawMCItem | BadRecord]:
        path = Path(path)
        rel = self.rel(path)
        for got in self.jsonl_objects(split, path):
            if isinstance(got, BadRecord):
                yield got
                continue
            k, record, obj = got
            try:
                yield self.item(split, rel, record, k, lambda c: _dotted(obj, c))
            except _Bad as bad:
                yield self.bad(split, path, record, bad.reason, bad.message)


class CsvReader(_MappedReader):
    """Read CSV or TSV files with a header row through a column mapping.

    >>> import tempfile; from pathlib import Path
    >>> d = Path(tempfile.mkdtemp())
    >>> _ = (d / "dev.csv").write_text("ctx,q,a,b,ans\\nSky.,Colour?,red,blue,B\\n")
    >>> cols = {"passage": "ctx", "question": "q", "options": ["a", "b"], "answer": "ans"}
    >>> next(iter(CsvReader(d, ["dev"], columns=cols))).correct
    [1]
    """

    name = "csv"
    EXT = ".csv"
    OPTIONS = {**_MappedReader.OPTIONS, "delimiter": None, "encoding": "utf-8-sig"}

    def __init__(self, root, splits=None, *, on_error="raise", **options):
        super().__init__(root, splits, on_error=on_error, **options)
        encoding = self.options["encoding"]
        try:
            codecs.lookup(encoding)
        except (LookupError, TypeError):
            raise RecipeError(f"option encoding must name a Python codec (utf-8, latin-1, cp1252, ...); "
                              f"found {encoding!r}", field="encoding") from None
        delimiter = self.options["delimiter"]
        if delimiter is not None and not (isinstance(delimiter, str) and len(delimiter) == 1):
            raise RecipeError(f"option delimiter must be one character; found {delimiter!r}", field="delimiter")

    def parse_file(self, split: str, path: str | Path) -> Iterator[RawMCItem | BadRecord]:
        path = Path(path)
        rel = self.rel(path)
        delimiter = self.options["delimiter"] or ("\t" if path.suffix == ".tsv" else ",")
        text = self.read_text(path, self.options["encoding"])
        table = parse_table(text, path, delimiter=delimiter, on_error="skip")  # bad rows go through self.bad
        header = table.header
        if not header:
            return
        wanted = [c for c in self._wanted() if c not in header]
        if wanted:
            raise RecipeError(f"column(s) {', '.join(wanted)} of option columns are not in the header; "
                              f"found: {', '.join(header)}", file=path, record="line 1", field="columns")
        pos = {c: i for i, c in enumerate(header)}
        for k, row in enumerate(table.rows):
            record = f"line {row.line}"
            if row.problem is not None:
                yield self.bad(split, path, record, *row.problem)
                continue
            fields = row.fields
            try:
                yield self.item(split, rel, record, k, lambda c: fields[pos[c]] if c in pos else _MISSING)
            except _Bad as bad:
                yield self.bad(split, path, record, bad.reason, bad.message)

    def _wanted(self) -> list[str]:
        cols = self.columns
        names = [cols[k] for k in ("passage", "question", "answer") + _OPTIONAL if k in cols]
        names += cols["options"] if isinstance(cols["options"], list) else [cols["options"]]
        return names
