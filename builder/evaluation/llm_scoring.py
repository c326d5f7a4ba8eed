"""Score LLM answer files: read, attach gold, parse each answer, count failures by kind.

A prediction file is JSONL, JSON (a list of objects), CSV or TSV (CSV-style
quoting, as in SIB-200's ``llm-results``), one row per item, with

* an id: ``id``, ``index_id``, ``question_id`` or ``qid``;
* the free-text answer: ``--answer-column``, else ``answer``, ``prediction``,
  ``output``, ``response`` or ``completion``, else the last column that is not
  an id, gold, text or row-number column (SIB-200's ``gpt-3`` / ``gpt-4``);
* the gold label, if the file has it: ``gold``, ``category``, ``label``
  (topic) or ``gold``, ``correct_answer_num``/``answer_letter`` (MC);
  otherwise it is looked up by id in a built dataset (``--gold DIR``);
* the variant: a ``language``/``variant`` column, else the file name
  (``eng_Latn.tsv``); the model: a ``model`` column, else ``--model``, else
  the name of the file's folder (``gpt-4/eng_Latn.tsv``).

lm-evaluation-harness ``samples_<task>_<date>.jsonl`` files (``--log_samples``)
are read as they are (:func:`lm_eval_rows`): the id is the document's
``index_id``/``question_id`` (else lm-eval's ``doc_id``), the gold is the
target's choice, and the answer is the generated text (``generate_until``
tasks) or, for ``multiple_choice`` tasks, the choice with the highest
log-likelihood (what lm-eval's ``acc`` counts); the variant is the document's
``language``/``dialect``, else the FLORES-200 code in the task name; the model
is the folder lm-eval wrote them to (``--output_path``/<model>/) or ``--model``,
followed by ``@`` and the task without its language code (``dummy@sib_prompt_1``),
so two prompts run on the same variant are scored apart.

Accuracy counts a parse failure as wrong (correct / n); ``accuracy_parsed`` is
correct / parsed; the failure rate and the failures by kind sit beside them.

Tables are lists of dicts and the files are read with the standard library,
so scoring answers does not import pandas; only ``--gold`` loads a built
dataset (:func:`attach_gold`).

>>> answers = ["It is about sports.", "I'm sorry, I cannot help.", "Politics."]
>>> items = [{"variant": "eng_Latn", "model": "m", "id": str(i), "gold": gold, "answer": answer}
...          for i, (gold, answer) in enumerate(zip(["sports", "health", "travel"], answers), 1)]
>>> summary, _ = score(items, "topic", labels=["sports", "health", "travel", "politics"])
>>> summary[0]["accuracy"], summary[0]["parse_failure_rate"], summary[0]["fail_refusal"]
(0.333333, 0.333333, 1)
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from schemas.io import read_text_utf8
from schemas.tables import jsonl_lines, parse_table
from schemas.errors import SchemaError, UsageError, row_at

from .parsing import FAILURE_KINDS_MC, FAILURE_KINDS_TOPIC, LETTERS, parse_letter, parse_topic
from .stats import accuracy_ci

if TYPE_CHECKING:  # the dataset loader imports pandas and pyarrow; only --gold needs it
    import pandas as pd

    from schemas.dataset import LoadedDataset

TASKS = ("topic", "mc")
#: Keys every line of an lm-eval ``samples_*.jsonl`` file has.
LM_EVAL_SAMPLE_KEYS = ("doc_id", "doc", "target", "filtered_resps")
_SAMPLES_NAME = re.compile(r"^samples_(?P<task>.+)_(?P<date>\d{4}-\d\d-\d\dT[\d.-]+)\.jsonl$")
_FLORES_IN_NAME = re.compile(r"(?:^|_)([a-z]{3}_[A-Z][a-z]{3})(?=_|$)")
ID_COLUMNS = ("id", "index_id", "question_id", "qid")
ANSWER_COLUMNS = ("answer", "prediction", "output", "response", "completion")
GOLD_COLUMNS = {"topic": ("gold", "category", "label"), "mc": ("gold", "correct_answer_num", "answer_letter")}
_NOT_ANSWER = {"", "unnamed: 0", "text", "passage", "question", "language", "variant", "model", "split", "lm_eval_task",
               *ID_COLUMNS, *GOLD_COLUMNS["topic"], *GOLD_COLUMNS["mc"]}


def read_prediction_rows(path: str | Path) -> list[dict[str, str]]:
    """The rows of a prediction file, every column as text (:func:`text_columns`), in file order."""
    path = Path(path)
    text = read_text_utf8(path)
    suffix = path.suffix.lower()
    if suffix == ".jsonl":
        rows = []
        for n, line in jsonl_lines(text):
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as err:
                raise SchemaError(f"malformed JSON: {err.msg}", file=path, record=f"line {n}") from None
    elif suffix == ".json":
        try:
            rows = json.loads(text)
        except json.JSONDecodeError as err:
            raise SchemaError(f"malformed JSON: {err.msg}", file=path, record=f"line {err.lineno}") from None
        if not isinstance(rows, list):
            raise SchemaError("expected a JSON list of objects", file=path)
    elif suffix in (".tsv", ".csv"):
        table = parse_table(text, path, delimiter="\t" if suffix == ".tsv" else ",",
                            empty="empty file; expected a header line")
        rows = [dict(zip(table.header, row.fields)) for row in table.rows]
    else:
        raise UsageError(f"prediction files must be .jsonl, .json, .tsv or .csv; found {path.name}")
    for i, r in enumerate(rows):
        if not isinstance(r, dict):
            raise SchemaError("expected one JSON object per row", file=path, record=row_at(i))
    if suffix == ".jsonl" and rows and all(k in rows[0] for k in LM_EVAL_SAMPLE_KEYS):
        rows = lm_eval_rows(rows, path)
    return text_columns(rows)


def read_prediction_file(path: str | Path) -> pd.DataFrame:
    """All columns of a prediction file as strings (empty answers stay empty strings), as a DataFrame."""
    import pandas as pd

    return pd.DataFrame(read_prediction_rows(path))


def _absent(value) -> bool:
    return value is None or (isinstance(value, float) and value != value)


def text_columns(rows: Sequence[dict]) -> list[dict[str, str]]:
    """Every row with every column (in order of first appearance) as text, as a table of strings reads them.

    A missing value (no key, null, NaN) is ``""``. A column of numbers that has
    a gap or a float holds floats (``1`` reads ``"1.0"``), as in the pandas
    table (``DataFrame(rows).fillna("").astype(str)``) this replaces; the
    output files of earlier runs stay the same.

    >>> text_columns([{"id": 1, "ok": True}, {"id": 2, "note": None}])
    [{'id': '1', 'ok': 'True', 'note': ''}, {'id': '2', 'ok': '', 'note': ''}]
    >>> text_columns([{"id": 1}, {"id": 2.5}, {}])
    [{'id': '1.0'}, {'id': '2.5'}, {'id': ''}]
    """
    columns = list(dict.fromkeys(k for r in rows for k in r))
    text = {}
    for c in columns:
        values = [r.get(c) for r in rows]
        present = [v for v in values if not _absent(v)]
        floats = (bool(present) and all(type(v) in (int, float) for v in present)
                  and (len(present) < len(values) or any(type(v) is float for v in present))
                  and all(type(v) is float or -2 ** 63 <= v < 2 ** 64 for v in present))
        text[c] = ["" if _absent(v) else str(float(v)) if floats else str(v) for v in values]
    return [{c: text[c][i] for c in columns} for i in range(len(rows))]


def _choices(sample: dict) -> list[str]:
    """The continuations lm-eval scored (``arguments`` of a multiple-choice sample), stripped."""
    args = sample.get("arguments")
    if isinstance(args, dict):
        args = [args[k] for k in sorted(args, key=lambda k: int(re.sub(r"\D", "", k) or 0))]
    out = []
    for a in args or []:
        cont = a.get("arg_1") if isinstance(a, dict) else (a[1] if isinstance(a, (list, tuple)) and len(a) > 1
                                                           else None)
        out.append(str(cont).strip() if cont is not None else "")
    return out


def _loglikelihood(resp) -> float:
    value = resp[0] if isinstance(resp, (list, tuple)) else resp
    return float(value)


def lm_eval_rows(samples: list[dict], path: Path) -> list[dict]:
    """lm-eval ``--log_samples`` lines as prediction rows ``id, variant, task, answer, gold``.

    >>> s = {"doc_id": 0, "doc": {"index_id": 7, "text": "..."}, "target": "1",
    ...      "arguments": {"gen_args_0": {"arg_0": "Q", "arg_1": " sports"},
    ...                    "gen_args_1": {"arg_0": "Q", "arg_1": " travel"}},
    ...      "filtered_resps": [["-2.5", "False"], ["-0.5", "False"]]}
    >>> lm_eval_rows([s], Path("samples_sib_eng_Latn_2026-01-01T00-00-00.000001.jsonl"))
    [{'id': '7', 'variant': 'eng_Latn', 'lm_eval_task': 'sib', 'answer': 'travel', 'gold': 'travel', 'choices': '["sports", "travel"]'}]
    """
    m = _SAMPLES_NAME.match(path.name)
    task = m.group("task") if m else path.stem
    code = _FLORES_IN_NAME.search(task)
    family = re.sub(r"__+", "_", task.replace(code.group(1), "")).strip("_") if code else task
    rows = []
    for n, s in enumerate(samples, 1):
        where = f"line {n}"
        if not all(k in s for k in LM_EVAL_SAMPLE_KEYS) or not isinstance(s["doc"], dict):
            raise SchemaError(f"expected an lm-eval sample with {', '.join(LM_EVAL_SAMPLE_KEYS)} like the lines "
                              "before it", file=path, record=where)
        doc, resps = s["doc"], s["filtered_resps"]
        choices = _choices(s)
        try:
            if choices and len(resps) == len(choices):  # multiple_choice: one log-likelihood per choice
                scores = [_loglikelihood(r) for r in resps]
                answer = choices[max(range(len(scores)), key=lambda i: (scores[i], -i))]
            else:  # generate_until: the (filtered) generation
                answer = str(resps[0] if isinstance(resps, list) and resps else resps)
        except (TypeError, ValueError, IndexError):
            raise SchemaError(f"cannot read filtered_resps {str(resps)[:80]!r}", file=path, record=where) from None
        target = str(s["target"]).strip()
        if choices and target not in choices and target.isdigit() and int(target) < len(choices):
            target = choices[int(target)]  # lm-eval logs the target index of a multiple-choice task
        ident = next((doc[k] for k in ("index_id", "question_id", "id") if doc.get(k) not in (None, "")),
                     s["doc_id"])
        variant = next((doc[k] for k in ("language", "dialect") if doc.get(k)),
                       code.group(1) if code else task)
        rows.append({"id": str(ident), "variant": str(variant), "lm_eval_task": family or task, "answer": answer,
                     "gold": target, "choices": json.dumps(choices, ensure_ascii=False)})
    return rows


def _pick(columns, names):
    lower = {c.lower(): c for c in columns}
    return next((lower[n] for n in names if n in lower), None)


def _records(items) -> list[dict]:
    """A table as a list of row dicts (a DataFrame, as earlier versions took, or rows already)."""
    return items.to_dict("records") if hasattr(items, "to_dict") else list(items)


def normalise(rows: Sequence[dict[str, str]], path: str | Path, task: str, *, model: str | None = None,
              answer_column: str | None = None) -> list[dict[str, str]]:
    """Map the rows of a prediction file (:func:`read_prediction_rows`) onto ``variant, model, id, answer``
    (+ ``gold`` when present)."""
    path = Path(path)
    rows = _records(rows)
    cols = list(rows[0]) if rows else []
    id_col = _pick(cols, ID_COLUMNS)
    if id_col is None:
        raise SchemaError(f"no id column; expected one of {', '.join(ID_COLUMNS)}, found {cols}", file=path)
    if answer_column:
        if answer_column not in cols:
            raise SchemaError(f"--answer-column {answer_column!r} not found; columns are {cols}", file=path)
        ans_col = answer_column
    else:
        ans_col = _pick(cols, ANSWER_COLUMNS) or next((c for c in reversed(cols) if c.lower() not in _NOT_ANSWER),
                                                      None)
    if ans_col is None:
        raise SchemaError(f"no answer column; expected one of {', '.join(ANSWER_COLUMNS)} or --answer-column, "
                          f"found {cols}", file=path)
    var_col = _pick(cols, ("language", "variant"))
    model_col = _pick(cols, ("model",))
    gold_col = _pick(cols, GOLD_COLUMNS[task])
    if gold_col == ans_col:
        gold_col = None
    variant, system = path.name.split(".")[0], model or path.parent.name or "model"
    out = []
    for r in rows:
        item = {"variant": str(r[var_col]) if var_col else variant, "model": str(r[model_col]) if model_col else system,
                "id": str(r[id_col]).strip(), "answer": str(r[ans_col])}
        if "lm_eval_task" in cols:  # lm-eval samples: one system per model and task (prompt)
            item["model"] += "@" + str(r["lm_eval_task"])
            item["choices"] = str(r["choices"])  # the label set, when --labels is not given
        if gold_col is not None:
            item["gold"] = str(r[gold_col]).strip()
        item["file"] = str(path)
        out.append(item)
    return out


def _mc_gold(value: str, where: str) -> str:
    v = str(value).strip().upper()
    if v in ("1", "2", "3", "4"):
        return LETTERS[int(v) - 1]
    if v in tuple(LETTERS):
        return v
    raise SchemaError(f"MC gold must be A-D or 1-4; found {value!r}", record=where, field="gold")


def attach_gold(items: Sequence[dict], dataset: LoadedDataset, task: str, split: str = "test") -> list[dict]:
    """Fill ``gold`` from a built dataset, matching each item's id within its variant and split."""
    key, value = ("index_id", "category") if task == "topic" else ("question_id", "correct_answer_num")
    out = []
    for item in _records(items):
        variant, item_id = item["variant"], item["id"]
        if variant not in dataset.tables or split not in dataset.tables[variant]:
            raise SchemaError(f"variant {variant} split {split} is not in the gold dataset; "
                              f"known variants: {', '.join(dataset.variants)}", file=dataset.root)
        table = dataset.tables[variant][split]
        lookup = table.attrs.setdefault("_gold", dict(zip(table[key].astype(str), table[value].astype(str))))
        if item_id not in lookup:
            raise SchemaError(f"id {item_id!r} not found in {variant}/{split} of the gold dataset",
                              file=dataset.root, field=key)
        out.append({**item, "gold": lookup[item_id]})
    return out


def score(items: Sequence[dict], task: str, *, labels: Sequence[str] | None = None, lenient: bool = False,
          ci_method: str = "wilson") -> tuple[list[dict], list[dict]]:
    """Parse and score every answer; return (summary rows per variant and model, one row per item).

    Parameters
    ----------
    items : sequence of dict
        ``variant, model, id, answer, gold`` (from :func:`load_items`, :func:`attach_gold`); a DataFrame with
        those columns also works.
    task : {"topic", "mc"}
    labels : sequence of str, optional
        Topic label set; default: the choices of lm-eval samples, else the gold
        labels that occur in ``items``.
    lenient : bool
        MC only: Belebele's first-character fallback, counted in ``lenient``.
    """
    if task not in TASKS:
        raise UsageError(f"--task must be one of {', '.join(TASKS)}; found {task!r}")
    items = _records(items)
    if not any("gold" in rec for rec in items):
        raise UsageError("the prediction files carry no gold labels; pass --gold DATASET to look them up by id")
    kinds = FAILURE_KINDS_TOPIC if task == "topic" else FAILURE_KINDS_MC
    if task == "topic":
        golds = {rec["gold"].strip().lower() for rec in items}
        if not labels:  # lm-eval samples carry the task's choices
            labels = list(dict.fromkeys(c for rec in items if isinstance(rec.get("choices"), str)
                                        for c in json.loads(rec["choices"])))
        labels = tuple(labels) if labels else tuple(sorted(golds))
        label_set = {x.lower() for x in labels}
        unknown = sorted(golds - label_set)
        if unknown:
            raise SchemaError(f"gold label(s) {', '.join(unknown)} not in the label set {', '.join(labels)}")
    per_item = []
    for rec in items:
        where = f"{rec['variant']}/{rec['model']} id {rec['id']}"
        if task == "topic":
            gold = rec["gold"].strip().lower()
            parsed = parse_topic(rec["answer"], labels)
            pred = None if parsed.label is None else parsed.label.lower()
        else:
            gold = _mc_gold(rec["gold"], where)
            parsed = parse_letter(rec["answer"], lenient=lenient)
            pred = parsed.label
        per_item.append({"variant": rec["variant"], "model": rec["model"], "id": rec["id"], "gold": gold,
                         "parsed": pred, "failure": parsed.kind, "lenient": parsed.lenient,
                         "correct": pred == gold, "answer": rec["answer"]})
    groups: dict[tuple[str, str], list[dict]] = {}
    for rec in per_item:
        groups.setdefault((rec["variant"], rec["model"]), []).append(rec)
    summary = []
    for (variant, model), g in sorted(groups.items()):
        n, correct = len(g), sum(r["correct"] for r in g)
        failures = sum(r["failure"] is not None for r in g)
        low, high = accuracy_ci(correct, n, method=ci_method)
        row = {"variant": variant, "model": model, "task": task, "n": n, "correct": correct,
               "accuracy": round(correct / n, 6), "ci_low": round(low, 6), "ci_high": round(high, 6),
               "parsed": n - failures, "parse_failures": failures, "parse_failure_rate": round(failures / n, 6),
               "accuracy_parsed": round(correct / (n - failures), 6) if n > failures else float("nan"),
               "lenient": sum(bool(r["lenient"]) for r in g)}
        for kind in kinds:
            row[f"fail_{kind}"] = sum(r["failure"] == kind for r in g)
        summary.append(row)
    return summary, per_item


def load_items(paths: Sequence[str | Path], task: str, *, model: str | None = None,
               answer_column: str | None = None) -> list[dict[str, str]]:
    """Read and normalise several prediction files; duplicate (variant, model, id) is an error."""
    if task not in TASKS:
        raise UsageError(f"--task must be one of {', '.join(TASKS)}; found {task!r}")
    items = [item for p in paths
             for item in normalise(read_prediction_rows(p), p, task, model=model, answer_column=answer_column)]
    without = [item["file"] for item in items if "gold" not in item]
    if without and len(without) < len(items):
        raise SchemaError("some prediction files have a gold column and others do not; pass --gold DATASET",
                          file=without[0])
    seen = set()
    for item in items:
        key = (item["variant"], item["model"], item["id"])
        if key in seen:
            raise SchemaError(f"duplicate prediction for variant {item['variant']}, model {item['model']}",
                              file=item["file"], record=f"id {item['id']}")
        seen.add(key)
    return items
