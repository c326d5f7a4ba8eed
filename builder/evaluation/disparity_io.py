"""Read evaluation records ``(model, language, task, score)`` for the disparity analysis.

A record is one reported score: a model, a language, a task and a number. The
task is either given as a ``task`` column or built as ``<dataset>_<metric>``
from ``dataset`` and ``metric`` columns, as the PRR paper's released code does
(each dataset-metric pair is one task). Column names are matched without regard
to case, so the paper's own JSON (``Model``, ``Language``, ``Dataset``,
``Metric``, ``Score``) loads as it is. Other columns are ignored.

Accepted files: ``.csv``, ``.tsv``, ``.json`` (a list of objects, or an object
with a ``records`` list) and ``.jsonl``/``.ndjson`` (one object per line).

Rows whose language is an aggregate (``avg``, ``average``, ``mean``, ``all``,
``overall``, ``total``, ...) are refused with one line naming the file and row,
unless ``drop_aggregates=True``, which drops and counts them.
"""
from __future__ import annotations

import json
import math
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from schemas.io import read_text_utf8, require_path
from schemas.tables import parse_table, split_lines
from schemas.errors import SchemaError, SourceError

#: Columns of the record table returned by :func:`read_records`.
RECORD_COLUMNS = ("model", "language", "task", "dataset", "metric", "score", "row")
#: Normalised (lower case, letters and digits only) names that mean "not one language".
AGGREGATE_NAMES = frozenset({
    "avg", "average", "averaged", "mean", "median", "all", "overall", "total", "sum",
    "macro", "micro", "macroavg", "microavg", "macroaverage", "microaverage",
    "avgall", "allavg", "alllanguages", "aggregate", "combined", "global",
})
SUFFIXES = {".csv": "csv", ".tsv": "tsv", ".json": "json", ".jsonl": "jsonl", ".ndjson": "jsonl"}


@dataclass
class RecordSet:
    """Records read from one file.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per record with the columns :data:`RECORD_COLUMNS`; ``row`` is
        where the record sits in the file (``line 7`` or ``record 3``).
    source : str
        The file read.
    dropped : collections.Counter
        Rows dropped by reason (``aggregate:avg``), when dropping was asked for.
    """

    table: pd.DataFrame
    source: str
    dropped: Counter = field(default_factory=Counter)


def is_aggregate(language: str) -> bool:
    """Whether a language label names an aggregate rather than a language.

    >>> [is_aggregate(x) for x in ("avg", "Average", "macro-avg", "en", "All ")]
    [True, True, True, False, True]
    """
    return re.sub(r"[^0-9a-z]", "", str(language).lower()) in AGGREGATE_NAMES


def read_records(path, *, drop_aggregates: bool = False) -> RecordSet:
    """Read and validate the records of one file.

    Parameters
    ----------
    path : str or Path
        A ``.csv``, ``.tsv``, ``.json``, ``.jsonl`` or ``.ndjson`` file.
    drop_aggregates : bool, default False
        Drop rows whose language is an aggregate (see :func:`is_aggregate`) and
        count them, instead of refusing the file.

    Returns
    -------
    RecordSet

    Raises
    ------
    SourceNotFoundError, SourceError, SchemaError
        A missing or unreadable file, a missing column, a bad row (empty name,
        a score that is not a finite number, an aggregate language, a duplicate
        ``(model, language, task)``), or no records at all.

    Examples
    --------
    >>> import tempfile, os
    >>> d = tempfile.mkdtemp(); p = os.path.join(d, "r.csv")
    >>> _ = open(p, "w").write("model,language,dataset,metric,score\\nm1,en,xnli,acc,80.5\\n")
    >>> float(read_records(p).table.loc[0, "score"])
    80.5
    """
    p = require_path(path, what="records file", kind="file")
    kind = SUFFIXES.get(p.suffix.lower())
    if kind is None:
        raise SourceError(f"unsupported file type {p.suffix or '(none)'!r}; allowed: "
                          + ", ".join(sorted(SUFFIXES)), file=p)
    text = read_text_utf8(p)
    rows = _csv_rows(text, p, "\t" if kind == "tsv" else ",") if kind in ("csv", "tsv") \
        else _json_rows(text, p, kind)
    return _validate(rows, p, drop_aggregates)


def _csv_rows(text: str, p: Path, delimiter: str):
    table = parse_table(text, p, delimiter=delimiter, skip_blank=True,
                        empty="the file is empty; expected a header row")
    header = [h.strip() for h in table.header]
    return header, [(f"line {row.line}", dict(zip(header, row.fields))) for row in table.rows]


def _json_rows(text: str, p: Path, kind: str):
    items = []
    if kind == "jsonl":
        for number, line in enumerate(split_lines(text), start=1):
            if line.strip():
                items.append((f"line {number}", _loads(line, p, number)))
    else:
        data = _loads(text, p, None)
        if isinstance(data, dict) and isinstance(data.get("records"), list):
            data = data["records"]
        if not isinstance(data, list):
            raise SchemaError(f"expected a JSON list of records (or {{'records': [...]}}), "
                              f"found {type(data).__name__}", file=p)
        items = [(f"record {i}", obj) for i, obj in enumerate(data, start=1)]
    header: list[str] = []
    for where, obj in items:
        if not isinstance(obj, dict):
            raise SchemaError(f"expected a JSON object, found {type(obj).__name__}", file=p, record=where)
        header.extend(k for k in obj if k not in header)
    return header, items


def _loads(text: str, p: Path, line):
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        where = f"line {line if line is not None else err.lineno}"
        raise SourceError(f"invalid JSON ({err.msg})", file=p, record=where) from None


def _column_map(header, p: Path) -> dict[str, str]:
    """Map canonical names to the file's column names (case-insensitive)."""
    found: dict[str, str] = {}
    for name in header:
        key = str(name).strip().lower()
        if key in ("model", "language", "task", "dataset", "metric", "score"):
            if key in found:
                raise SchemaError(f"column {key!r} appears twice ({found[key]!r} and {name!r})", file=p)
            found[key] = name
    missing = [c for c in ("model", "language", "score") if c not in found]
    if "task" not in found and "dataset" not in found:
        missing.append("task (or dataset, with an optional metric)")
    if missing:
        raise SchemaError(f"missing column(s): {', '.join(missing)}; required: model, language, score, "
                          f"and task or dataset+metric; found: {', '.join(map(str, header)) or 'none'}",
                          file=p)
    return found


def _text(value, p, where, field_name) -> str:
    if value is None or isinstance(value, (dict, list, bool)) or not str(value).strip():
        raise SchemaError(f"expected a non-empty name, found {value!r}", file=p, record=where,
                          field=field_name)
    return str(value).strip()


def _optional(value) -> str:
    return "" if value is None or isinstance(value, (dict, list)) else str(value).strip()


def _score(value, p, where) -> float:
    try:
        if isinstance(value, bool):
            raise TypeError
        number = float(str(value).strip()) if isinstance(value, str) else float(value)
    except (TypeError, ValueError):
        number = math.nan
    if not math.isfinite(number):
        raise SchemaError(f"expected a finite number, found {value!r}", file=p, record=where, field="score")
    return number


def _validate(parsed, p: Path, drop_aggregates: bool) -> RecordSet:
    header, rows = parsed
    cols = _column_map(header, p)
    out, dropped, seen = [], Counter(), {}
    for where, row in rows:
        get = lambda key: row.get(cols[key]) if key in cols else None  # noqa: E731
        model = _text(get("model"), p, where, cols["model"])
        language = _text(get("language"), p, where, cols["language"])
        if is_aggregate(language):
            if drop_aggregates:
                dropped[f"aggregate:{language.lower()}"] += 1
                continue
            raise SchemaError(f"language {language!r} is an aggregate, not a language; remove the row "
                              f"or pass --drop-aggregates", file=p, record=where, field=cols["language"])
        dataset, metric = (_optional(get(k)) for k in ("dataset", "metric"))
        if _optional(get("task")):
            task = _optional(get("task"))
        else:
            dataset = _text(get("dataset"), p, where, cols.get("dataset", cols.get("task")))
            task = f"{dataset}_{metric}" if metric else dataset
        score = _score(get("score"), p, where)
        key = (model, language, task)
        if key in seen:
            raise SchemaError(f"duplicate record for model {model!r}, language {language!r}, task {task!r} "
                              f"(first at {seen[key]}); each cell may be reported once", file=p, record=where)
        seen[key] = where
        out.append((model, language, task, dataset, metric, score, where))
    if not out:
        what = f" ({sum(dropped.values())} aggregate rows dropped)" if dropped else ""
        raise SchemaError(f"no records to analyse{what}", file=p)
    table = pd.DataFrame(out, columns=list(RECORD_COLUMNS))
    return RecordSet(table=table, source=str(p), dropped=dropped)
