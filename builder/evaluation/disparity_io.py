"""Read evaluation records ``(model, language, task, score)`` for the disparity analysis.

A record is one reported score: a model, a language, a task and a number. The
task is either given as a ``task`` column or built as ``<dataset>_<metric>``
from ``dataset`` and ``metric`` columns, as the PRR paper's released code does
(each dataset-metric pair is one task). Column names are matched without regard
to case, so the paper's own JSON (``Model``, ``Language``, ``Dataset``,
``Metric``, ``Score``) loads as it is. Other columns are ignored.

Accepted files: ``.csv``, ``.tsv``, ``.json`` (a list of objects, or an object
with a ``records`` list) and ``.jsonl``/``.ndjson`` (one object per line).

An lm-evaluation-harness ``results_<date>.json`` file (``lm_eval --output_path``)
is read as it is (:func:`lm_eval_records`): one record per task and metric of
every task that is not a group, with the model from ``model_args``
(``pretrained=...``, else the model type), the language from the task's
``dataset_name`` or the FLORES-200 code in its name, and the task from the
group that holds it (else the task name without its language code).

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
        if isinstance(data, dict) and isinstance(data.get("results"), dict) and isinstance(data.get("configs"), dict):
            data = lm_eval_records(data, p)
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


_FLORES_IN_NAME = re.compile(r"(?:^|_)([a-z]{3}_[A-Z][a-z]{3})(?=_|$)")
_NOT_METRICS = {"alias", "name", "sample_len", "sample_count", "samples"}


def _lm_eval_model(data: dict) -> str:
    config = data.get("config") if isinstance(data.get("config"), dict) else {}
    args = config.get("model_args")
    if isinstance(args, dict):
        named = args.get("pretrained") or args.get("model")
    else:
        found = re.search(r"(?:^|,)\s*(?:pretrained|model)=([^,]+)", str(args or ""))
        named = found.group(1) if found else None
    return str(named or config.get("model") or data.get("model_name") or "").strip()


def lm_eval_records(data: dict, p: Path) -> list[dict]:
    """Records ``{model, language, dataset, metric, score}`` of an lm-eval results file.

    >>> data = {"results": {"sib_eng_Latn": {"alias": "sib_eng_Latn", "acc,none": 0.5, "acc_stderr,none": 0.1},
    ...                     "sib": {"acc,none": 0.5}},
    ...         "group_subtasks": {"sib": ["sib_eng_Latn"]}, "configs": {"sib_eng_Latn": {"dataset_name": "eng_Latn"}},
    ...         "config": {"model": "hf", "model_args": "pretrained=org/model-7b,dtype=bfloat16"}}
    >>> lm_eval_records(data, Path("results.json"))
    [{'model': 'org/model-7b', 'language': 'eng_Latn', 'dataset': 'sib', 'metric': 'acc', 'score': 0.5}]
    """
    groups = data.get("group_subtasks") if isinstance(data.get("group_subtasks"), dict) else {}
    parent = {t: g for g, members in groups.items() for t in (members or [])}
    configs = data["configs"]
    model = _lm_eval_model(data)
    out = []
    for task, metrics in sorted(data["results"].items()):
        if task in groups or task not in configs or not isinstance(metrics, dict):
            continue  # a group's aggregate, not one language
        cfg = configs[task] if isinstance(configs[task], dict) else {}
        name = cfg.get("dataset_name")
        code = name if isinstance(name, str) and _FLORES_IN_NAME.fullmatch(name) else None
        in_name = _FLORES_IN_NAME.search(task)
        language = code or (in_name.group(1) if in_name else None)
        if language is None:
            raise SchemaError(f"cannot tell the language of lm-eval task {task!r}: its dataset_name "
                              f"{name!r} and its name hold no FLORES-200 code (xxx_Xxxx)", file=p,
                              record=f"results.{task}")
        dataset = parent.get(task) or re.sub(r"__+", "_", task.replace(language, "")).strip("_") or task
        for key, value in metrics.items():
            metric, _, filt = str(key).partition(",")
            if metric in _NOT_METRICS or metric.endswith("_stderr") or isinstance(value, (bool, str, dict, list)):
                continue
            out.append({"model": model, "language": language, "dataset": dataset,
                        "metric": metric if filt in ("", "none") else f"{metric}_{filt}", "score": value})
    if not out:
        raise SchemaError("the lm-eval results file holds no per-language task scores", file=p)
    return out


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


def read_many(paths, *, drop_aggregates: bool = False) -> RecordSet:
    """Read several records files (e.g. one lm-eval results file per model) as one set.

    A ``(model, language, task)`` reported by two files is refused, naming the
    second file and its row; ``row`` becomes ``FILE: row``.
    """
    sets = [read_records(p, drop_aggregates=drop_aggregates) for p in paths]
    if len(sets) == 1:
        return sets[0]
    seen: dict[tuple, str] = {}
    frames, dropped = [], Counter()
    for rs in sets:
        t = rs.table.copy()
        t["row"] = rs.source + ": " + t["row"]
        for key, where in zip(zip(t["model"], t["language"], t["task"]), t["row"]):
            if key in seen:
                raise SchemaError(f"duplicate record for model {key[0]!r}, language {key[1]!r}, task {key[2]!r} "
                                  f"(first at {seen[key]}); each cell may be reported once", file=rs.source,
                                  record=where.split(": ", 1)[1])
            seen[key] = where
        frames.append(t)
        dropped.update(rs.dropped)
    return RecordSet(table=pd.concat(frames, ignore_index=True), source=", ".join(Path(rs.source).name for rs in sets),
                     dropped=dropped)
