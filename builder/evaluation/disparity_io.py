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
group that holds it (else the task name without its language code). Every
part of it is checked for its shape: a ``results``, ``configs`` or task entry
of the wrong type, a metric that is not a finite number (text such as
``"0.2x"``, null, NaN, Infinity, a boolean) is refused with one line naming the
file and the key path (``results.sib_hau_Latn.acc,none``), never left out; a
file with ``results`` or ``configs`` and no ``records`` is read as one.

A model, language, task, dataset or metric name holding a control character
(an escape sequence, a tab, a JSON ``\\u001b``) is refused naming the row.

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
from schemas.tables import control_character, parse_table, split_lines
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
        if _is_lm_eval(data):
            items = _lm_eval_rows(data, p)
        else:
            if isinstance(data, dict) and isinstance(data.get("records"), list):
                data = data["records"]
            if not isinstance(data, list):
                raise SchemaError(f"expected a JSON list of records (or {{'records': [...]}}, or an lm-eval "
                                  f"results file), found {_kind(data)}", file=p)
            items = [(f"record {i}", obj) for i, obj in enumerate(data, start=1)]
    header: list[str] = []
    for where, obj in items:
        if not isinstance(obj, dict):
            raise SchemaError(f"expected a JSON object, found {type(obj).__name__}", file=p, record=where)
        header.extend(k for k in obj if k not in header)
    return header, items


_FLORES_IN_NAME = re.compile(r"(?:^|_)([a-z]{3}_[A-Z][a-z]{3})(?=_|$)")
_NOT_METRICS = {"alias", "name", "sample_len", "sample_count", "samples"}


def _is_lm_eval(data) -> bool:
    """Whether a JSON object is an lm-eval results file (it holds ``results`` or ``configs``, no ``records``)."""
    return isinstance(data, dict) and "records" not in data and ("results" in data or "configs" in data)


def _kind(value) -> str:
    """The JSON name of a value's type, for messages (``text``, ``a list``, ``a number``)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"a boolean ({str(value).lower()})"
    if isinstance(value, (int, float)):
        return f"the number {value!r}"
    if isinstance(value, str):
        return f"text {value[:40]!r}"
    return "a list" if isinstance(value, list) else "an object" if isinstance(value, dict) \
        else type(value).__name__


def _object(data: dict, key: str, p: Path, *, required: bool) -> dict:
    value = data.get(key)
    if value is None and not required:
        return {}
    if not isinstance(value, dict):
        found = "nothing (the key is missing)" if key not in data else _kind(value)
        raise SchemaError(f"expected an object (as lm-eval writes it), found {found}", file=p, record=key)
    return value


def _lm_eval_model(data: dict, p: Path) -> str:
    config = _object(data, "config", p, required=False)
    args = config.get("model_args")
    if isinstance(args, dict):
        named = args.get("pretrained") or args.get("model")
    elif args is None or isinstance(args, str):
        found = re.search(r"(?:^|,)\s*(?:pretrained|model)=([^,]+)", args or "")
        named = found.group(1) if found else None
    else:
        raise SchemaError(f"expected text (pretrained=...) or an object, found {_kind(args)}", file=p,
                          record="config.model_args")
    for where, value in (("config.model_args", named), ("config.model", config.get("model")),
                         ("model_name", data.get("model_name"))):
        if value is None or value == "":
            continue
        if not isinstance(value, str) or not value.strip():
            raise SchemaError(f"expected the model's name as text, found {_kind(value)}", file=p, record=where)
        return value.strip()
    raise SchemaError("cannot tell the model: no pretrained= in config.model_args, no config.model, "
                      "no model_name", file=p, record="config")


def _lm_eval_groups(data: dict, p: Path) -> dict[str, list[str]]:
    groups = _object(data, "group_subtasks", p, required=False)
    for group, members in groups.items():
        if members is None:
            continue
        if not isinstance(members, list) or not all(isinstance(m, str) for m in members):
            bad = members if not isinstance(members, list) else next(m for m in members if not isinstance(m, str))
            raise SchemaError(f"expected a list of task names, found {_kind(bad)}"
                              + (" in the list" if isinstance(members, list) else ""), file=p,
                              record=f"group_subtasks.{group}")
    return {g: list(m or []) for g, m in groups.items()}


def _lm_eval_rows(data: dict, p: Path) -> list[tuple[str, dict]]:
    """``(where, record)`` of every per-language score of an lm-eval results file, checked shape by shape.

    A task entry, a config or a group list of the wrong type, and a metric whose
    value is not a finite number (text such as ``"0.2x"``, null, NaN, Infinity,
    a boolean, a list), is refused with one line naming the file and the key
    path (``results.sib_eng_Latn.acc,none``); nothing is left out silently. Only
    metadata (``alias``, ``name``, ``sample_len``, ...) and ``*_stderr`` values
    (lm-eval writes ``"N/A"`` where it has none) are not scores.
    """
    results = _object(data, "results", p, required=True)
    configs = _object(data, "configs", p, required=True)
    groups = _lm_eval_groups(data, p)
    parent = {t: g for g, members in groups.items() for t in members}
    model = _lm_eval_model(data, p)
    out = []
    for task, metrics in sorted(results.items()):
        if task in groups:
            continue  # a group's aggregate, not one language
        if not isinstance(metrics, dict):
            raise SchemaError(f"expected an object of metrics, found {_kind(metrics)}", file=p,
                              record=f"results.{task}")
        if task not in configs:
            raise SchemaError(f"task {task!r} has no entry in configs and is no group of group_subtasks; "
                              f"expected every scored task to have its config", file=p, record=f"results.{task}")
        cfg = configs[task]
        if not isinstance(cfg, dict):
            raise SchemaError(f"expected an object, found {_kind(cfg)}", file=p, record=f"configs.{task}")
        name = cfg.get("dataset_name")
        if name is not None and not isinstance(name, str):
            raise SchemaError(f"expected text or null, found {_kind(name)}", file=p,
                              record=f"configs.{task}.dataset_name")
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
            if metric in _NOT_METRICS or metric.endswith("_stderr"):
                continue
            where = f"results.{task}.{key}"
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                raise SchemaError(f"expected the score as a finite number, found {_kind(value)}", file=p,
                                  record=where)
            out.append((where, {"model": model, "language": language, "dataset": dataset,
                                "metric": metric if filt in ("", "none") else f"{metric}_{filt}",
                                "score": value}))
    if not out:
        raise SchemaError("the lm-eval results file holds no per-language task scores", file=p)
    return out


def lm_eval_records(data: dict, p: Path) -> list[dict]:
    """Records ``{model, language, dataset, metric, score}`` of an lm-eval results file.

    >>> data = {"results": {"sib_eng_Latn": {"alias": "sib_eng_Latn", "acc,none": 0.5, "acc_stderr,none": 0.1},
    ...                     "sib": {"acc,none": 0.5}},
    ...         "group_subtasks": {"sib": ["sib_eng_Latn"]}, "configs": {"sib_eng_Latn": {"dataset_name": "eng_Latn"}},
    ...         "config": {"model": "hf", "model_args": "pretrained=org/model-7b,dtype=bfloat16"}}
    >>> lm_eval_records(data, Path("results.json"))
    [{'model': 'org/model-7b', 'language': 'eng_Latn', 'dataset': 'sib', 'metric': 'acc', 'score': 0.5}]
    >>> data["results"]["sib_eng_Latn"]["acc,none"] = "0.2x"
    >>> lm_eval_records(data, Path("results.json"))
    Traceback (most recent call last):
    ...
    schemas.errors.SchemaError: results.json, results.sib_eng_Latn.acc,none: expected the score as a finite number, found text '0.2x'
    """
    return [record for _, record in _lm_eval_rows(data, p)]


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
    return _plain_name(str(value).strip(), p, where, field_name)


def _plain_name(name: str, p, where, field_name) -> str:
    """A model, language, task, dataset or metric name holds no control character (it names rows and files)."""
    problem = control_character(name)
    if problem is not None:
        raise SchemaError(f"a name allows no control character, found {problem}", file=p, record=where,
                          field=field_name)
    return name


def _optional(value, p, where, field_name) -> str:
    if isinstance(value, (dict, list, bool)):
        raise SchemaError(f"expected a name or nothing, found {_kind(value)}", file=p, record=where,
                          field=field_name)
    return "" if value is None else _plain_name(str(value).strip(), p, where, field_name)


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
        dataset, metric = (_optional(get(k), p, where, cols.get(k)) for k in ("dataset", "metric"))
        task = _optional(get("task"), p, where, cols.get("task"))
        if not task:
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
