"""Read annotation exports into one items x annotators table of label codes.

Two layouts are accepted, from CSV, TSV or JSONL (chosen by the file suffix):

* **long**: one rating per row, columns ``item_id``, ``annotator``, ``label``
  (``index_id`` is accepted for ``item_id``), optional ``text``;
* **wide**: one item per row, columns ``item_id`` (or ``index_id``), optional
  ``text``, and one column per annotator; an empty cell is a missing rating.

Annotation tools' exports go through the same collector (one reader path):
Label Studio JSON, JSON-MIN and CSV, and Argilla v2 records (JSON, a
``to_disk`` or ``save_to_disk`` folder, parquet). :mod:`annotation.tools`
turns each into ratings; the ratings the tool marks as not given are counted
under either policy as ``cancelled``, ``draft`` or ``discarded``, and its bad
records (``malformed_record``, ``multiple_labels``, ``missing_annotator``,
``unknown_status``) are named by task or record (``task 9, annotation 5``).

Bad records are reported with file, line and item id (:class:`AnnotationError`)
or, under ``on_error="skip"``, counted by a short reason name and listed by item
id: ``unknown_label``, ``empty_label``, ``missing_item_id``, ``duplicate_rating``,
``text_mismatch``, ``too_few_ratings``, ``control_character`` (an item id,
annotator name or label holding any control character, a text holding one but
tab and newline), and for lines that cannot be read at all (listed as
``line N``) ``invalid_utf8``, ``malformed_json``, ``malformed_csv``. An
annotator column (wide format) whose name holds a control character, and a NUL
anywhere in the file, are errors under either policy. Nothing is dropped silently. A byte-order mark and CRLF line ends are read as
if absent; a quote that is never closed is an error under either policy.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Iterator, Mapping, Sequence

from schemas.io import read_text_utf8, require_path
from schemas.tables import (CONTROL_CHARACTER, INVALID_UTF8, bad_utf8, control_character, jsonl_lines, parse_table,
                            split_lines)
from schemas.errors import AnnotationError, SourceError
from schemas.records import Judgement

from . import tools
from .tools import TOOL_FORMATS

if TYPE_CHECKING:  # NumPy where codes are built and counted: a release plans with the annotation modules
    import numpy as np

ID_COLUMNS = ("item_id", "index_id")
TEXT_COLUMN = "text"
FORMATS = ("auto", "long", "wide") + TOOL_FORMATS


@dataclass(frozen=True)
class Annotations:
    """Ratings as a matrix of label codes.

    Attributes
    ----------
    item_ids : tuple of str
        Item ids in first-seen order.
    annotators : tuple of str
        Annotator names, sorted.
    labels : tuple of str
        The allowed label set (from the labels file, else the sorted labels seen).
    codes : numpy.ndarray of int, shape (n_items, n_annotators)
        Index into ``labels``; -1 is a missing rating.
    texts : dict
        item id -> text, where the input had a text column.
    source : str
        The file the ratings came from.
    skipped : dict
        reason -> number of skipped records (items for ``too_few_ratings``), including the
        ratings a tool marks as not given (``cancelled``, ``draft``, ``discarded``).
    skipped_ids : dict
        reason -> sorted item ids concerned.
    """

    item_ids: tuple
    annotators: tuple
    labels: tuple
    codes: np.ndarray
    texts: Mapping[str, str] = field(default_factory=dict)
    source: str = ""
    skipped: Mapping[str, int] = field(default_factory=dict)
    skipped_ids: Mapping[str, list] = field(default_factory=dict)

    @property
    def n_items(self) -> int:
        return len(self.item_ids)

    def counts(self) -> np.ndarray:
        """Items x labels matrix: how many annotators chose each label.

        >>> ann = from_judgements([Judgement("i1", "a", "x"), Judgement("i1", "b", "y")])
        >>> ann.counts().tolist()
        [[1, 1]]
        """
        return code_counts(self.codes, len(self.labels))

    def judgements(self) -> Iterator[Judgement]:
        """The ratings as :class:`Judgement` records, item by item."""
        for i, item in enumerate(self.item_ids):
            for j, annotator in enumerate(self.annotators):
                code = self.codes[i, j]
                if code >= 0:
                    yield Judgement(item, annotator, self.labels[code])


def code_counts(codes: np.ndarray, n_labels: int) -> np.ndarray:
    """Per-item label counts from an items x raters code matrix (-1 = missing).

    >>> import numpy as np
    >>> code_counts(np.array([[0, 0, 1], [2, -1, 2]]), 3).tolist()
    [[2, 1, 0], [0, 0, 2]]
    """
    import numpy as np

    codes = np.asarray(codes)
    n_items = codes.shape[0]
    valid = codes >= 0
    rows = np.broadcast_to(np.arange(n_items)[:, None], codes.shape)[valid]
    flat = rows * n_labels + codes[valid]
    return np.bincount(flat, minlength=n_items * n_labels).reshape(n_items, n_labels)


def read_labels(path) -> tuple[str, ...]:
    """Read an allowed-label file: one label per line (like SIB-200's labels.txt).

    Blank lines are ignored; a repeated label is an :class:`AnnotationError`.

    >>> import pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "labels.txt"
    >>> _ = p.write_text("science/technology\\ntravel\\n\\n", encoding="utf-8")
    >>> read_labels(p)
    ('science/technology', 'travel')
    """
    p = require_path(path, what="labels file", kind="file")
    labels: list[str] = []
    for n, line in enumerate(split_lines(read_text_utf8(p)), start=1):
        label = line.strip()
        if not label:
            continue
        problem = control_character(label)
        if problem is not None:
            raise AnnotationError(f"a label allows no control character, found {problem}", file=p,
                                  record=f"line {n}")
        if label in labels:
            raise AnnotationError(f"label {label!r} is listed twice", file=p, record=f"line {n}")
        labels.append(label)
    if not labels:
        raise AnnotationError("no labels found; expected one label per line", file=p)
    return tuple(labels)


def _rows(path: Path, on_error: str = "raise") -> tuple[list[str], list[tuple[int, dict]], list[tuple[int, str, str]]]:
    """Return (columns, [(line number, row dict)], [(line, reason, message)]) for a CSV, TSV or JSONL file.

    The third list holds the lines that cannot be read (bytes that are not
    UTF-8, malformed JSON or CSV); it is empty under ``on_error="raise"``,
    which raises at the first of them instead.
    """
    suffix = path.suffix.lower()
    if suffix not in (".jsonl", ".json", ".ndjson", ".csv", ".tsv", ".txt"):
        raise SourceError(f"unknown file type {suffix or '(none)'!r}; expected .csv, .tsv or .jsonl",
                          file=path)
    text = read_text_utf8(path, keep_bad=on_error == "skip")
    bad: list[tuple[int, str, str]] = []
    if suffix in (".jsonl", ".json", ".ndjson"):
        columns: list[str] = []
        rows = []
        for n, line in jsonl_lines(text):
            obj, problem = _json_object(line)
            if problem is not None:
                if on_error == "raise":
                    raise SourceError(problem[1], file=path, record=f"line {n}")
                bad.append((n, *problem))
                continue
            row = {str(k): ("" if v is None else str(v)) for k, v in obj.items()}
            for k in row:
                if k not in columns:
                    columns.append(k)
            rows.append((n, row))
        return columns, rows, bad
    table = parse_table(text, path, delimiter="," if suffix == ".csv" else "\t", on_error=on_error,
                        error=SourceError, skip_blank=True, empty="empty file; expected a header line")
    header = [h.strip() for h in table.header]
    rows = []
    for row in table.rows:
        if row.problem is not None:
            bad.append((row.line, *row.problem))
        else:
            rows.append((row.line, dict(zip(header, row.fields))))
    return header, rows, bad


def _json_object(line: str) -> tuple[dict | None, tuple[str, str] | None]:
    """``(object, None)`` for a JSON line holding one object, else ``(None, (reason, message))``."""
    problem = bad_utf8(line)
    if problem is not None:
        return None, (INVALID_UTF8, problem)
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as err:
        return None, ("malformed_json", f"malformed JSON ({err.msg})")
    if not isinstance(obj, dict):
        return None, ("malformed_json", f"expected a JSON object, found {type(obj).__name__}")
    return obj, None


class _Collector:
    """Gathers ratings, applies the error policy and counts what it skipped."""

    def __init__(self, path: Path, labels, on_error: str):
        self.path = path
        self.allowed = None if labels is None else tuple(labels)
        self.on_error = on_error
        self.ratings: dict[str, dict[str, str]] = {}
        self.first_line: dict[str, int] = {}
        self.rating_line: dict[tuple, int] = {}
        self.texts: dict[str, str] = {}
        self.skipped: dict[str, int] = {}
        self.skipped_ids: dict[str, set] = {}

    def problem(self, reason: str, message: str, line: int | str, item: str | None) -> None:
        """A bad record at ``line`` (a line number, or a place like ``task 3, annotation 2``)."""
        if self.on_error == "raise":
            where = _at(line) + (f" (item {item})" if item else "")
            raise AnnotationError(message, file=self.path, record=where)
        self.exclude(reason, line, item)

    def exclude(self, reason: str, line: int | str, item: str | None) -> None:
        """Count a record left out for ``reason``, under either policy (a tool's cancelled or draft rating)."""
        self.skipped[reason] = self.skipped.get(reason, 0) + 1
        self.skipped_ids.setdefault(reason, set()).add(item or _at(line))

    def seen(self, line: int | str, item: str, text: str | None) -> None:
        """An item exists, rated or not (an unrated one is ``too_few_ratings`` at the end)."""
        if not item:
            return self.problem("missing_item_id", "missing item id", line, None)
        self.first_line.setdefault(item, line)
        self.ratings.setdefault(item, {})
        if text and self.texts.setdefault(item, text) != text:
            self.problem("text_mismatch", f"item {item!r} has a different text than on "
                         f"{_at(self.first_line[item])}", line, item)

    def add(self, line: int | str, item: str, annotator: str, label: str, text: str | None) -> None:
        if not item:
            return self.problem("missing_item_id", "missing item id", line, None)
        for what, value, is_text in (("the item id", item, False), ("the annotator name", annotator, False),
                                     ("the label", label, False), ("the text", text or "", True)):
            found = control_character(value, text=is_text)
            if found is not None:
                allowed = "no control character but tab and newline" if is_text else "no control character"
                return self.problem(CONTROL_CHARACTER, f"{what} allows {allowed}, found {found}", line,
                                    None if what == "the item id" else item)
        if not label:
            return self.problem("empty_label", f"empty label from annotator {annotator!r}", line, item)
        if self.allowed is not None and label not in self.allowed:
            return self.problem("unknown_label", f"unknown label {label!r} from annotator {annotator!r}; "
                                f"allowed: {', '.join(self.allowed)}", line, item)
        seen = self.ratings.setdefault(item, {})
        self.first_line.setdefault(item, line)
        if annotator in seen:
            return self.problem("duplicate_rating", f"annotator {annotator!r} rated item {item!r} twice "
                                f"(first on {_at(self.rating_line[item, annotator])})", line, item)
        self.rating_line[item, annotator] = line
        if text is not None and text != "":
            old = self.texts.setdefault(item, text)
            if old != text:
                return self.problem("text_mismatch", f"item {item!r} has a different text than on "
                                    f"{_at(self.first_line[item])}", line, item)
        seen[annotator] = label

    def finish(self, min_ratings: int) -> Annotations:
        for item in list(self.ratings):
            n = len(self.ratings[item])
            if n < min_ratings:
                self.problem("too_few_ratings", f"item {item!r} has {n} rating(s), fewer than the "
                             f"required {min_ratings} (--min-ratings)", self.first_line[item], item)
                del self.ratings[item]
                self.texts.pop(item, None)
        if not self.ratings:
            raise AnnotationError("no ratings left to analyse", file=self.path)
        labels = self.allowed or tuple(sorted({lab for r in self.ratings.values() for lab in r.values()}))
        return _build(self.ratings, labels, self.texts, str(self.path), self.skipped,
                      {k: sorted(v) for k, v in self.skipped_ids.items()})


def _at(line: int | str) -> str:
    """``line 5`` for a line number; a tool record's place (``task 3, annotation 2``) as it is."""
    return f"line {line}" if isinstance(line, int) else line


def _build(ratings: Mapping[str, Mapping[str, str]], labels, texts, source, skipped, skipped_ids):
    item_ids = tuple(ratings)
    annotators = tuple(sorted({a for r in ratings.values() for a in r}))
    a_index = {a: j for j, a in enumerate(annotators)}
    l_index = {lab: k for k, lab in enumerate(labels)}
    import numpy as np

    codes = np.full((len(item_ids), len(annotators)), -1, dtype=np.int32)
    for i, item in enumerate(item_ids):
        for annotator, label in ratings[item].items():
            codes[i, a_index[annotator]] = l_index[label]
    return Annotations(item_ids, annotators, tuple(labels), codes, dict(texts), source, dict(skipped),
                       dict(skipped_ids))


def from_judgements(judgements: Iterable[Judgement], labels: Sequence[str] | None = None,
                    texts: Mapping[str, str] | None = None) -> Annotations:
    """Build :class:`Annotations` from :class:`Judgement` records (tests, other stages).

    >>> ann = from_judgements([Judgement("s1", "ann1", "sports"), Judgement("s1", "ann2", "sports")])
    >>> ann.n_items, ann.annotators, ann.labels
    (1, ('ann1', 'ann2'), ('sports',))
    """
    coll = _Collector(Path("<judgements>"), labels, "raise")
    for n, j in enumerate(judgements, start=1):
        coll.add(n, str(j.item_id), str(j.annotator), str(j.label), None)
    coll.texts.update(texts or {})
    return coll.finish(min_ratings=1)


def read_annotations(path, *, format: str = "auto", labels: Sequence[str] | None = None,
                     min_ratings: int = 2, on_error: str = "raise", label_field: str | None = None) -> Annotations:
    """Read an annotation export: long or wide CSV/TSV/JSONL, or an annotation tool's export.

    Parameters
    ----------
    path : path-like
        A ``.csv``, ``.tsv`` or ``.jsonl`` file; a Label Studio JSON, JSON-MIN or CSV export; an
        Argilla v2 records JSON, ``to_disk`` folder, saved Hugging Face dataset folder or parquet file.
    format : {"auto", "long", "wide", "label-studio", "label-studio-min", "label-studio-csv", "argilla"}
        ``auto`` reads the content: a JSON list by its first object (:func:`annotation.tools.detect`),
        a CSV with Label Studio's converter columns as ``label-studio-csv``, a folder or parquet file as
        ``argilla``, otherwise long when the columns include ``annotator`` and ``label``, else wide.
    labels : sequence of str, optional
        The allowed labels; any other label is an ``unknown_label`` error.
    min_ratings : int
        Items with fewer ratings are an error (``too_few_ratings``).
    on_error : {"raise", "skip"}
        Stop at the first bad record, or skip and count it.
    label_field : str, optional
        The Label Studio control (``from_name``) or Argilla question holding the topic; needed only
        when an export has several.
    """
    if format not in FORMATS:
        raise AnnotationError(f"format must be one of {', '.join(FORMATS)}, found {format!r}")
    p = require_path(path, what="annotation file", kind="any")
    if p.is_dir() or p.suffix.lower() == ".parquet":
        if format not in ("auto", "argilla"):
            raise AnnotationError(f"a folder or parquet file is read as an Argilla export, not {format!r}", file=p)
        return _read_tool(p, "argilla", tools.load_argilla(p), labels, min_ratings, on_error, label_field)
    is_json = p.suffix.lower() == ".json" and format in ("auto", "label-studio", "label-studio-min", "argilla")
    records = _json_list(p) if is_json else None
    if records is not None:
        found = tools.detect(records)
        if format == "auto":
            if found is None:
                raise AnnotationError("a JSON list that is neither a Label Studio export (data, annotations) nor "
                                      "Argilla records (fields, responses) nor Label Studio JSON-MIN (annotator, "
                                      "annotation_id)", file=p, record="record 1")
            format = found
        return _read_tool(p, format, records, labels, min_ratings, on_error, label_field)
    if format in ("label-studio", "label-studio-min", "argilla"):
        raise AnnotationError(f"--format {format} needs a JSON list (the tool's export), found another file",
                              file=p)
    require_path(p, what="annotation file", kind="file")
    columns, rows, unreadable = _rows(p, on_error)
    if format == "label-studio-csv" or (format == "auto" and tools.is_label_studio_csv(columns)):
        return _read_tool(p, "label-studio-csv", [(f"line {n}", row) for n, row in rows], labels, min_ratings,
                          on_error, label_field, columns=columns, unreadable=unreadable)
    id_col = next((c for c in ID_COLUMNS if c in columns), None)
    if format == "auto":
        format = "long" if {"annotator", "label"} <= set(columns) else "wide"
    if id_col is None:
        raise AnnotationError(f"no item id column; expected one of {', '.join(ID_COLUMNS)}, found "
                              f"{', '.join(columns)}", file=p, record="line 1")
    coll = _Collector(p, labels, on_error)
    for line, reason, message in unreadable:
        coll.problem(reason, message, line, None)
    if format == "long":
        missing = [c for c in ("annotator", "label") if c not in columns]
        if missing:
            raise AnnotationError(f"long format needs columns {id_col}, annotator, label; missing "
                                  f"{', '.join(missing)}", file=p, record="line 1")
        for line, row in rows:
            coll.add(line, row.get(id_col, "").strip(), row.get("annotator", "").strip(),
                     row.get("label", "").strip(), row.get(TEXT_COLUMN))
    else:
        raters = [c for c in columns if c not in (id_col, TEXT_COLUMN)]
        if not raters:
            raise AnnotationError(f"wide format needs one column per annotator besides {id_col} and "
                                  f"{TEXT_COLUMN}; found {', '.join(columns)}", file=p, record="line 1")
        for annotator in raters:
            found = control_character(annotator)
            if found is not None:  # a column cannot be skipped: it would drop every rating of one annotator
                line = next((n for n, row in rows if annotator in row), 1)
                where = f"line {line}"
                raise AnnotationError(f"an annotator column name allows no control character, found {found} "
                                      f"in {annotator!r}", file=p, record=where)
        for line, row in rows:
            item = row.get(id_col, "").strip()
            if not item:
                coll.problem("missing_item_id", "missing item id", line, None)
                continue
            text = row.get(TEXT_COLUMN)
            for annotator in raters:
                label = row.get(annotator, "").strip()
                if label:
                    coll.add(line, item, annotator, label, text)
                else:
                    coll.first_line.setdefault(item, line)
                    coll.ratings.setdefault(item, {})
    return coll.finish(min_ratings)


def _json_list(p: Path) -> list | None:
    """The parsed file when it holds one JSON list (a tool's export), else None (JSONL, CSV, ...)."""
    text = read_text_utf8(p)
    if not text.lstrip().startswith("["):
        return None
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as err:
        raise SourceError(f"malformed JSON ({err.msg}, column {err.colno})", file=p,
                          record=f"line {err.lineno}") from None
    return obj if isinstance(obj, list) else None


def _read_tool(p: Path, format: str, records, labels, min_ratings: int, on_error: str, label_field,
               columns=None, unreadable=()) -> Annotations:
    """Apply a tool reader's events (:mod:`annotation.tools`) with the one collector."""
    coll = _Collector(p, labels, on_error)
    for line, reason, message in unreadable:
        coll.problem(reason, message, line, None)
    if format == "label-studio":
        events = tools.label_studio(records, tools.pick_field(tools.label_studio_controls(records), label_field,
                                                              "Choices control (from_name)", p))
    elif format == "argilla":
        records = [tools.argilla_nested(r) if isinstance(r, dict) else r for r in records]
        events = tools.argilla(records, tools.pick_field(tools.argilla_questions(records), label_field,
                                                         "question", p))
    else:
        if format == "label-studio-min":
            columns = list(dict.fromkeys(k for r in records if isinstance(r, dict) for k in r))
            records = [(f"record {n}", r) for n, r in enumerate(records, start=1)]
        field = tools.pick_field(tools.label_studio_row_fields(columns), label_field, "column", p)
        events = tools.label_studio_rows(records, field)
    for e in events:
        if isinstance(e, tools.Rating):
            coll.add(e.where, e.item, e.annotator, e.label, e.text)
        elif isinstance(e, tools.Seen):
            coll.seen(e.where, e.item, e.text)
        elif isinstance(e, tools.Excluded):
            coll.exclude(e.reason, e.where, e.item)
        else:
            coll.problem(e.reason, e.message, e.where, e.item)
    return coll.finish(min_ratings)
