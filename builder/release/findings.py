"""What the release summary says beyond counts, from the stages' records and outputs: every warning a
stage gave, the drop ledger kept apart by what it counts (the dataset's records or a side sample), the
labels each curation drop took away, and the checks the gate skipped with the reason.

Each function reads files only (stage records, outputs, ``variant.json``), so the summary stays the
same bytes whichever run made them (:mod:`builder.release.summary`).
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from schemas.errors import SchemaError
from schemas.ledger import DropRow
from schemas.variant import VariantInfo

from .plan import Plan
from .stages import STAGE_JSON, within

#: How the summary names drops of a stage the dataset is not made from (the agreement sample's items).
SIDE = "agreement sample"


def _json(path: Path):
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _abs(path) -> str:
    return os.path.abspath(path)


def _made_from(plan: Plan, st) -> set[str]:
    """The names of ``st`` and every stage whose output it reads, directly or through other stages."""
    by_output = [(s.name, _abs(s.output)) for s in plan.stages]
    by_name = {s.name: s for s in plan.stages}
    seen, todo = set(), [st]
    while todo:
        cur = todo.pop()
        if cur.name in seen:
            continue
        seen.add(cur.name)
        for path in cur.inputs.values():
            p = _abs(path)
            todo.extend(by_name[name] for name, out in by_output if name not in seen and within(p, out))
    return seen


def dataset_stages(plan: Plan) -> set[str]:
    """The stages the released dataset is made from (the one that writes ``plan.dataset`` and every stage
    it reads, directly or not). A stage outside it (the agreement measure and adjudication of a sample
    whose decisions the curation does not read) counts its drops apart."""
    if plan.dataset is None:
        return {s.name for s in plan.stages}
    target = _abs(plan.dataset)
    maker = next((s for s in plan.stages if within(target, _abs(s.output))), None)
    return {s.name for s in plan.stages} if maker is None else _made_from(plan, maker)


def _dropped_labels(output: Path) -> dict[str, dict[str, int]]:
    """Curation step -> the labels it dropped and their counts, from ``curation_log.json``."""
    log = _json(output / "curation_log.json") or {}
    out: dict[str, dict[str, int]] = {}
    for step in log.get("steps") or []:
        if isinstance(step, dict) and isinstance(step.get("dropped_labels"), dict) and step["dropped_labels"]:
            acc = out.setdefault(str(step.get("step")), {})
            for label, n in step["dropped_labels"].items():
                if isinstance(n, int) and not isinstance(n, bool):
                    acc[str(label)] = acc.get(str(label), 0) + n
    return out


def drops(plan: Plan, records: list[tuple[str, dict]]) -> list[dict]:
    """The drop ledger, one row per stage, source and reason (summed over splits): ``stage``, ``source``,
    ``reason``, ``count``, ``in_dataset`` (whether the released dataset is made from that stage: else its
    drops are of a side sample, ``part``), and ``labels`` (label -> records) where the stage says which
    labels it dropped (a curation step)."""
    made = dataset_stages(plan)
    outputs = {s.name: s.output for s in plan.stages}
    out = []
    for name, record in records:
        sums: dict[tuple[str, str], int] = {}
        for d in (record.get("facts") or {}).get("drops", []):
            row = DropRow.from_dict(d, file=f"stages/{name}/{STAGE_JSON}")
            if row.count:
                sums[(row.source, row.reason)] = sums.get((row.source, row.reason), 0) + int(row.count)
        labels = _dropped_labels(outputs[name]) if sums and name in outputs else {}
        for (source, reason), count in sorted(sums.items()):
            row = {"stage": name, "source": source, "reason": reason, "count": count, "in_dataset": name in made}
            if name not in made:
                row["part"] = SIDE
            if labels.get(reason):
                row["labels"] = dict(sorted(labels[reason].items(), key=lambda kv: (-kv[1], kv[0])))
            out.append(row)
    return out


def _variant_checks(folder: Path) -> dict[str, dict]:
    """Check name -> its result, for the checks ``variant.json`` in ``folder`` records as warnings."""
    try:
        info = VariantInfo.read(folder) if Path(folder).is_dir() else None
    except SchemaError:
        return {}
    checks = (info.to_dict() if info is not None else {}).get("checks") or {}
    return {str(k): v for k, v in checks.items() if isinstance(v, dict) and v.get("status") == "warning"}


def _item_text(item) -> str:
    """One flagged record of a check, as people read it: ``index_id 556 (z = -3.84)``."""
    if not isinstance(item, dict):
        return str(item)
    keys = [k for k in item if k not in ("z", "score")]
    head = ", ".join(f"{k} {item[k]}" for k in keys)
    more = ", ".join(f"{k} = {item[k]}" for k in ("z", "score") if k in item)
    return f"{head} ({more})" if head and more else head or more


def warnings(plan: Plan, records: list[tuple[str, dict]]) -> list[dict]:
    """Every warning a stage gave (its record's ``warnings``), in plan order: ``stage``, ``variant`` (of a
    stage that makes one), ``message``, and ``items`` (the records a check flagged, from the variant's
    ``variant.json``: ``["index_id 556 (z = -3.84)"]``) when the warning is one of its checks."""
    variants = {}
    outputs = [(st.name, _abs(st.output)) for st in plan.stages]
    for code, v in plan.variants.items():
        folder = _abs(v.folder)
        for name, out in outputs:
            if within(folder, out):
                variants[name] = (code, v.folder)
    out = []
    for name, record in records:
        for message in (record.get("facts") or {}).get("warnings") or []:
            row = {"stage": name, "variant": None, "message": " ".join(str(message).split()), "items": []}
            if name in variants:
                code, folder = variants[name]
                row["variant"] = code
                check = _variant_checks(folder).get(row["message"].split(":", 1)[0])
                if check is not None:
                    row["items"] = [_item_text(i) for i in check.get("items") or []][:10]
            out.append(row)
    return out


def qc_notes(qc: dict | None) -> tuple[list[dict], list[dict]]:
    """``(skipped, warned)`` of a qc report: the checks that could not run, grouped by check and reason
    (``{"check", "why", "variants"}``), and the failed checks that do not gate (``{"variant", "check",
    "detail"}``: warnings of the qc stage)."""
    skipped: dict[tuple[str, str], list[str]] = {}
    warned = []
    for c in (qc or {}).get("checks") or []:
        if not isinstance(c, dict):
            continue
        why = " ".join(str(c.get("detail") or c.get("reason") or "no reason given").split())
        if c.get("skipped"):
            skipped.setdefault((str(c.get("check")), why), []).append(str(c.get("variant")))
        elif c.get("passed") is False and c.get("gate") is False:
            warned.append({"variant": c.get("variant"), "check": c.get("check"), "detail": why})
    return ([{"check": k, "why": w, "variants": sorted(vs)} for (k, w), vs in sorted(skipped.items())],
            warned)
