"""Project multiple-choice items onto a translation keyed by item id (``builder extend --translations``).

The translation file (TSV with CSV quoting, or JSONL) holds, per item,
``question_id`` (plus ``passage_id`` when ids repeat across passages),
``passage``, ``question`` and ``answer1``-``answer4``. The answer key comes
from the source: ``correct_answer_num`` is kept and ``correct_answer`` is
re-derived from the translated option, so a translator can never move the key.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from schemas.runtime.provenance import recorded_path
from schemas.dataset import load_dataset_dir
from schemas.io import read_text_utf8, require_path, sha256_file, staging_dir
from schemas.io import write_jsonl_atomic
from schemas.tables import check_chars, jsonl_lines, parse_table
from schemas.errors import AlignmentError, ScriptError, SchemaError
from schemas.variant import VARIANT_JSON, VariantInfo
from schemas.records import ANSWER_FIELDS, MC_COLUMNS
from schemas.scripts import check_new_variant, count_letters, script_of

from schemas.textstats import log_ratio, robust_z
from .checks import CheckConfig, CheckSet
from .credit import carried_credit
from .project import ProjectionResult

TEXT_FIELDS = ("passage", "question", *ANSWER_FIELDS)


def read_translations(path: str | Path) -> list[tuple[int, dict]]:
    """``(line number, row)`` of a translated TSV or JSONL; missing columns are a :class:`SchemaError`."""
    path = require_path(path, what="translation file", kind="file")
    text = read_text_utf8(path)
    rows: list[tuple[int, dict]] = []
    if path.suffix == ".jsonl":
        for n, line in jsonl_lines(text):
            try:
                rows.append((n, json.loads(line)))
            except json.JSONDecodeError as err:
                raise SchemaError(f"malformed JSON: {err.msg}", file=path, record=f"line {n}") from None
    else:
        table = parse_table(text, path, delimiter="\t")
        rows = [(row.line, dict(zip(table.header, row.fields))) for row in table.rows]
    for n, row in rows:
        missing = [c for c in ("question_id", *TEXT_FIELDS) if c not in row]
        if missing:
            raise SchemaError(f"missing column(s) {', '.join(missing)}; expected question_id, passage, question, "
                              "answer1-answer4", file=path, record=f"line {n}")
        check_chars(str(row["question_id"]), "a question id", file=path, record=f"line {n}", field="question_id")
        for column in TEXT_FIELDS:  # an escape sequence in a translation never reaches the variant
            check_chars(str(row[column]), "a translation", text=True, file=path, record=f"line {n}", field=column)
    return rows


def _source_items(source):
    data = load_dataset_dir(source)
    if data.kind != "mc":
        raise SchemaError("expected multiple-choice items (question, answer1-4, correct_answer_num)", file=source)
    variant = "eng_Latn" if "eng_Latn" in data.tables else data.variants[0]
    if len(data.tables) > 1 and "eng_Latn" not in data.tables:
        raise SchemaError(f"several variants and no eng_Latn to project from: {', '.join(data.variants)}",
                          file=source)
    return {split: frame.to_dict("records") for split, frame in data.tables[variant].items()}


def project_mc(source, translations, variant: str, out, *, config: CheckConfig | None = None,
               license: str | None = None) -> ProjectionResult:
    """Write ``out/<variant>/<split>.jsonl`` from English MC items and their translation.

    Every item keeps the ``license`` and ``dataset`` of the source item it translates, so an
    export credits the original corpora; ``license`` (``--license``), when given, replaces
    the license of every item. ``variant.json`` carries the source's credit
    (:func:`~builder.variants.project.carried_credit`).
    """
    check_new_variant(variant)
    config = config or CheckConfig()
    tpath = Path(translations)
    splits = _source_items(source)
    credit = carried_credit(Path(source), license)
    trans = read_translations(tpath)
    by_pass = any("passage_id" in r for _, r in trans)

    def key(row):
        return (str(row.get("passage_id")), str(row["question_id"])) if by_pass else str(row["question_id"])

    src = {key(r): (split, r) for split, rows in splits.items() for r in rows}
    tr = {}
    for n, row in trans:
        tr.setdefault(key(row), (n, row))
    checks = CheckSet(config)
    unknown = sorted(str(k) for k in tr if k not in src)
    missing = sorted(str(k) for k in src if k not in tr)
    checks.add("ids_out_of_range", unknown)
    checks.add("missing_ids", missing)
    empty = [f"line {n}: {f}" for n, row in tr.values() for f in TEXT_FIELDS if not str(row[f]).strip()]
    checks.add("empty_fields", empty)
    script = script_of(variant)
    total = inside = 0
    odd = []
    for k, (n, row) in tr.items():
        t, s = count_letters(" ".join(str(row[f]) for f in TEXT_FIELDS), script)
        total, inside = total + t, inside + s
        if t and s / t < config.script_line_min_share:
            odd.append(n)
    share = 1.0 if total == 0 else inside / total
    checks.add("script_file", [] if share >= config.script_file_min_share else
               [{"file": str(tpath), "share": round(share, 4)}])
    checks.add("script_lines", sorted(odd), n_lines=len(tr))
    common = [k for k in src if k in tr]
    ratios = np.array([log_ratio(tr[k][1]["passage"] + tr[k][1]["question"],
                                 src[k][1]["passage"] + src[k][1]["question"]) for k in common])
    z = robust_z(ratios) if len(common) >= 3 else np.zeros(len(common))
    checks.add("length_outliers", [{"id": str(k), "z": round(float(v), 2)} for k, v in zip(common, z)
                                   if abs(v) > config.length_z], n_lines=len(common) or None)
    seen: dict[str, str] = {}
    dup_q = []
    for k in common:
        q = tr[k][1]["question"].strip()
        if q in seen and src[seen[q]][1]["question"] != src[k][1]["question"]:
            dup_q.append([str(seen[q]), str(k)])
        seen.setdefault(q, k)
    checks.add("duplicates", dup_q, n_lines=len(common) or None)
    checks.add("duplicate_options", [str(k) for k in common
                                     if len({tr[k][1][f].strip() for f in ANSWER_FIELDS}) < 4])
    passages: dict[str, set] = {}
    for k in common:
        passages.setdefault(str(src[k][1]["passage_id"]), set()).add(tr[k][1]["passage"])
    checks.add("inconsistent_passages", sorted(p for p, v in passages.items() if len(v) > 1))
    for res in checks.errors():
        first = res.items[0]
        if res.name == "script_file":
            raise ScriptError(f"only {first['share']:.1%} of the letters are in script {script} declared by "
                              f"{variant} (expected at least {config.script_file_min_share:.0%})", file=tpath)
        exc = AlignmentError if res.name in ("ids_out_of_range", "missing_ids") else SchemaError
        what = {"ids_out_of_range": "item id not in the source", "missing_ids": "source item has no translation",
                "empty_fields": "empty translated field"}.get(res.name, f"{res.name} flagged")
        raise exc(f"{res.count} × {what}; first: {first}", file=tpath)
    rows_out: dict[str, int] = {}
    written: dict[str, list[dict]] = {}
    target = Path(out) / variant
    with staging_dir(target, marker=VARIANT_JSON, what="variant") as stage:
        for split, rows in splits.items():
            items = []
            for r in rows:
                n, t = tr[key(r)]
                num = int(r["correct_answer_num"])
                item = {c: r.get(c) for c in MC_COLUMNS}
                item.update({f: t[f] for f in TEXT_FIELDS})
                own = r.get("license")
                keep = license is None and isinstance(own, str) and bool(own.strip())  # the item's own terms
                item.update(correct_answer=t[f"answer{num}"], correct_answer_num=num, language=variant,
                            license=own if keep else credit.license,
                            provenance={"corpus": "translation", "file": tpath.name, "record": f"line {n}"})
                items.append(item)
            write_jsonl_atomic(stage / f"{split}.jsonl", items)
            rows_out[split] = len(items)
            written[split] = items
        used = sorted({item["license"] for items in written.values() for item in items})
        terms = credit.to_dict()
        if used != [credit.license]:  # the items kept their own licenses: variant.json says so
            terms.pop("license")
            terms["license_from"] = f"the source items' own licenses ({', '.join(used)})"
            if len(used) == 1:
                terms["license"] = used[0]
        VariantInfo.from_dict({
            "variant": variant, "kind": "mc", "method": "projection", "source": recorded_path(source),
            "translations": {"path": recorded_path(tpath), "sha256": sha256_file(tpath), "rows": len(trans)},
            "rows": rows_out, **terms, "config": config.to_dict(), "checks": checks.to_dict(),
        }).write(stage)
    return ProjectionResult(out_dir=target, rows=rows_out, checks=checks, credit=credit)
