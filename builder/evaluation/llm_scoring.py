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

>>> import pandas as pd
>>> items = pd.DataFrame({"variant": ["eng_Latn"] * 3, "model": ["m"] * 3, "id": ["1", "2", "3"],
...     "gold": ["sports", "health", "travel"],
...     "answer": ["It is about sports.", "I'm sorry, I cannot help.", "Politics."]})
>>> summary, _ = score(items, "topic", labels=["sports", "health", "travel", "politics"])
>>> summary[0]["accuracy"], summary[0]["parse_failure_rate"], summary[0]["fail_refusal"]
(0.333333, 0.333333, 1)
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Sequence

import pandas as pd

from schemas.dataset import LoadedDataset
from schemas.io import read_text_utf8
from schemas.tables import jsonl_lines, parse_table
from schemas.errors import SchemaError, UsageError

from .parsing import FAILURE_KINDS_MC, FAILURE_KINDS_TOPIC, LETTERS, parse_letter, parse_topic
from .stats import accuracy_ci

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


def read_prediction_file(path: str | Path) -> pd.DataFrame:
    """All columns of a prediction file as strings (empty answers stay empty strings)."""
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
    for i, r in enumerate(rows, 1):
        if not isinstance(r, dict):
            raise SchemaError("expected one JSON object per row", file=path, record=f"row {i}")
    if suffix == ".jsonl" and rows and all(k in rows[0] for k in LM_EVAL_SAMPLE_KEYS):
        rows = lm_eval_rows(rows, path)
    frame = pd.DataFrame(rows)
    return frame.fillna("").astype(str) if len(frame) else frame


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


def normalise(frame: pd.DataFrame, path: str | Path, task: str, *, model: str | None = None,
              answer_column: str | None = None) -> pd.DataFrame:
    """Map a raw prediction table onto ``variant, model, id, answer`` (+ ``gold`` when present)."""
    path = Path(path)
    cols = list(frame.columns)
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
    out = pd.DataFrame({"id": frame[id_col].astype(str).str.strip(), "answer": frame[ans_col].astype(str)})
    var_col = _pick(cols, ("language", "variant"))
    out.insert(0, "variant", frame[var_col].astype(str) if var_col else path.name.split(".")[0])
    model_col = _pick(cols, ("model",))
    out.insert(1, "model", frame[model_col].astype(str) if model_col else (model or path.parent.name or "model"))
    if "lm_eval_task" in cols:  # lm-eval samples: one system per model and task (prompt)
        out["model"] = out["model"] + "@" + frame["lm_eval_task"].astype(str)
        out["choices"] = frame["choices"].astype(str)  # the label set, when --labels is not given
    gold_col = _pick(cols, GOLD_COLUMNS[task])
    if gold_col is not None and gold_col != ans_col:
        out["gold"] = frame[gold_col].astype(str).str.strip()
    out["file"] = str(path)
    return out


def _mc_gold(value: str, where: str) -> str:
    v = str(value).strip().upper()
    if v in ("1", "2", "3", "4"):
        return LETTERS[int(v) - 1]
    if v in tuple(LETTERS):
        return v
    raise SchemaError(f"MC gold must be A-D or 1-4; found {value!r}", record=where, field="gold")


def attach_gold(items: pd.DataFrame, dataset: LoadedDataset, task: str, split: str = "test") -> pd.DataFrame:
    """Fill ``gold`` from a built dataset, matching each item's id within its variant and split."""
    key, value = ("index_id", "category") if task == "topic" else ("question_id", "correct_answer_num")
    golds = []
    for variant, item_id in zip(items["variant"], items["id"]):
        if variant not in dataset.tables or split not in dataset.tables[variant]:
            raise SchemaError(f"variant {variant} split {split} is not in the gold dataset; "
                              f"known variants: {', '.join(dataset.variants)}", file=dataset.root)
        table = dataset.tables[variant][split]
        lookup = table.attrs.setdefault("_gold", dict(zip(table[key].astype(str), table[value].astype(str))))
        if item_id not in lookup:
            raise SchemaError(f"id {item_id!r} not found in {variant}/{split} of the gold dataset",
                              file=dataset.root, field=key)
        golds.append(lookup[item_id])
    items = items.copy()
    items["gold"] = golds
    return items


def score(items: pd.DataFrame, task: str, *, labels: Sequence[str] | None = None, lenient: bool = False,
          ci_method: str = "wilson") -> tuple[list[dict], list[dict]]:
    """Parse and score every answer; return (summary rows per variant and model, one row per item).

    Parameters
    ----------
    items : DataFrame
        ``variant, model, id, answer, gold`` (from :func:`normalise`, :func:`attach_gold`).
    task : {"topic", "mc"}
    labels : sequence of str, optional
        Topic label set; default: the choices of lm-eval samples, else the gold
        labels that occur in ``items``.
    lenient : bool
        MC only: Belebele's first-character fallback, counted in ``lenient``.
    """
    if task not in TASKS:
        raise UsageError(f"--task must be one of {', '.join(TASKS)}; found {task!r}")
    if "gold" not in items.columns:
        raise UsageError("the prediction files carry no gold labels; pass --gold DATASET to look them up by id")
    kinds = FAILURE_KINDS_TOPIC if task == "topic" else FAILURE_KINDS_MC
    if task == "topic":
        if not labels and "choices" in items.columns:  # lm-eval samples carry the task's choices
            labels = list(dict.fromkeys(c for cs in items["choices"].dropna() for c in json.loads(cs)))
        labels = tuple(labels) if labels else tuple(sorted(set(items["gold"].str.strip().str.lower())))
        label_set = {x.lower() for x in labels}
        unknown = sorted(set(items["gold"].str.strip().str.lower()) - label_set)
        if unknown:
            raise SchemaError(f"gold label(s) {', '.join(unknown)} not in the label set {', '.join(labels)}")
    per_item = []
    for rec in items.to_dict("records"):
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
    frame = pd.DataFrame(per_item)
    summary = []
    for (variant, model), g in frame.groupby(["variant", "model"], sort=True):
        n, correct = len(g), int(g["correct"].sum())
        failures = int(g["failure"].notna().sum())
        low, high = accuracy_ci(correct, n, method=ci_method)
        row = {"variant": variant, "model": model, "task": task, "n": n, "correct": correct,
               "accuracy": round(correct / n, 6), "ci_low": round(low, 6), "ci_high": round(high, 6),
               "parsed": n - failures, "parse_failures": failures, "parse_failure_rate": round(failures / n, 6),
               "accuracy_parsed": round(correct / (n - failures), 6) if n > failures else float("nan"),
               "lenient": int(g["lenient"].sum())}
        for kind in kinds:
            row[f"fail_{kind}"] = int((g["failure"] == kind).sum())
        summary.append(row)
    return summary, per_item


def load_items(paths: Sequence[str | Path], task: str, *, model: str | None = None,
               answer_column: str | None = None) -> pd.DataFrame:
    """Read and normalise several prediction files; duplicate (variant, model, id) is an error."""
    if task not in TASKS:
        raise UsageError(f"--task must be one of {', '.join(TASKS)}; found {task!r}")
    frames = [normalise(read_prediction_file(p), p, task, model=model, answer_column=answer_column) for p in paths]
    items = pd.concat(frames, ignore_index=True)
    if "gold" in items.columns and items["gold"].isna().any():
        missing = items.loc[items["gold"].isna(), "file"].iloc[0]
        raise SchemaError("some prediction files have a gold column and others do not; pass --gold DATASET",
                          file=missing)
    dup = items.duplicated(["variant", "model", "id"])
    if dup.any():
        r = items[dup].iloc[0]
        raise SchemaError(f"duplicate prediction for variant {r['variant']}, model {r['model']}", file=r["file"],
                          record=f"id {r['id']}")
    return items
