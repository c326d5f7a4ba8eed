"""The steps that only a release needs (a variant folder with its credit, a variant re-split as the
pivot, every variant in one folder, the license audit as JSON, the export with the release's reports),
and the label matrix of the agreement stage; the other stages call their command's task
(:mod:`builder.tasks`, see :mod:`builder.release.plan`).

Every action takes the stage's output path, writes it whole (:func:`schemas.runtime.outputs.staging_dir`,
or the task's own staging) and returns the facts its stage records (:mod:`builder.release.stages`).
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Callable

from schemas.codes import is_known_variant_code
from schemas.manifest import split_files as dataset_split_files
from schemas.errors import AlignmentError, SchemaError
from schemas.io import dumps_json, read_sib_tsv, sib_tsv_text, write_text_atomic
from schemas.runtime.outputs import staging_dir
from schemas.ledger import DropRow
from schemas.splits import order_splits
from schemas.variant import VariantInfo

#: The marker of folders a release step writes (``.builder.json``).
WHAT = "release"


def split_files(folder: Path) -> dict[str, Path]:
    """``{split: file}`` of a variant folder in split order; TSV wins over Parquet and JSONL (the SIB-200
    layout that ``annotate split`` writes beside its Parquet copy, and that the re-split reads)."""
    found = dataset_split_files(folder, (".tsv", ".parquet", ".jsonl"))
    return {s: found[s] for s in order_splits(found)}


def _kind(folder: Path, files: dict[str, Path]) -> str:
    info = VariantInfo.read(folder)
    if info is not None and info.kind:
        return info.kind
    first = next(iter(files.values()))
    if first.suffix == ".parquet":
        import pyarrow.parquet as pq

        names = pq.read_schema(first).names
    else:
        with first.open(encoding="utf-8-sig") as fh:
            names = fh.readline()
    return "topic" if "index_id" in names else "mc"


def variant_folders(path: Path) -> dict[str, tuple[Path, str]]:
    """``{code: (folder, kind)}``: ``path`` itself when it is a variant folder, else its variant subfolders."""
    path = Path(path)
    own = split_files(path)
    if own and is_known_variant_code(path.name):
        return {path.name: (path, _kind(path, own))}
    out = {}
    for sub in sorted(p for p in path.iterdir() if p.is_dir() and is_known_variant_code(p.name)):
        files = split_files(sub)
        if files:
            out[sub.name] = (sub, _kind(sub, files))
    return out


def _fill_credit(info: VariantInfo | None, code: str, kind: str, credit: dict) -> VariantInfo:
    """``info`` (or a new one for ``code``) with the credit fields it lacks taken from ``credit``."""
    data = info.to_dict() if info is not None else {"variant": code, "kind": kind}
    data.setdefault("variant", code)
    data.setdefault("kind", kind)
    for key, value in credit.items():
        if value and not data.get(key):
            data[key] = value
            if key == "license":
                data.setdefault("license_from", "release recipe")
    return VariantInfo.from_dict(data)


def link_or_copy(src: Path, dst: Path) -> str:
    """``dst`` as a hard link to ``src`` (no second copy of an unchanged input), or a copy where a link
    cannot be made (another file system, a file system without links, a file the user does not own under
    ``fs.protected_hardlinks``); ``"link"`` or ``"copy"``. Either way the stage record holds the digest.

    A linked file is the input itself, so nothing may write into it in place: every writer of the toolkit
    writes a new file and renames it over the old one (:func:`schemas.io.write_text_atomic`,
    :func:`schemas.runtime.outputs.staging_dir`), which replaces the link and leaves the input as it was
    (``tests/release/test_stage_links.py`` checks the inputs' bytes after a release).
    """
    try:
        os.link(src, dst)
        return "link"
    except OSError:
        shutil.copyfile(src, dst)
        return "copy"


def _copy_variant(src: Path, dst: Path, code: str, kind: str, credit: dict, *, assembled: bool = False,
                  method: str | None = None) -> None:
    dst.mkdir(parents=True)
    # an assembled set: its Parquet splits (the variant is its language column)
    files = dataset_split_files(src, (".parquet",)) if assembled else split_files(src)
    for split, p in files.items():
        link_or_copy(p, dst / f"{split}{p.suffix}")
    if (src / "labels.txt").is_file():
        link_or_copy(src / "labels.txt", dst / "labels.txt")
    info = _fill_credit(VariantInfo.read(src), code, kind, credit)
    if method is not None:
        info = VariantInfo.from_dict(dict(info.to_dict(), method=method))
    info.write(dst)


def variant_folder(split_out: Path, code: str, credit: dict, *, method: str) -> Callable[[Path], dict]:
    """The output of ``annotate split`` as a variant folder ``OUTPUT/<code>/`` with its ``variant.json``."""
    def action(output: Path) -> dict:
        with staging_dir(output, what=WHAT) as stage:
            _copy_variant(split_out, stage / code, code, "topic", credit, method=method)
        return {}
    return action


def align_to_pivot(pivot: Path, source: Path, code: str) -> Callable[[Path], dict]:
    """Re-split the topic variant in ``source`` as the pivot is split, item by item (``index_id``).

    Every pivot item must be in ``source`` with the same label (else one error naming the file and the
    item); items of ``source`` that the pivot no longer holds (curated away) are dropped and counted in
    the new ``variant.json`` (``aligned.dropped_not_in_pivot``).
    """
    def action(output: Path) -> dict:
        texts: dict[str, tuple[str, str, Path]] = {}
        for split, p in split_files(source).items():
            if p.suffix != ".tsv":
                raise SchemaError("align: pivot re-split reads SIB-200 TSV files", file=p)
            for row in read_sib_tsv(p):
                texts[row["index_id"]] = (row["category"], row["text"], p)
        used: set[str] = set()
        with staging_dir(output, what=WHAT) as stage:
            dst = stage / code
            dst.mkdir()
            counts = {}
            for split, p in split_files(pivot).items():
                rows = []
                for row in read_sib_tsv(p):
                    item = row["index_id"]
                    if item not in texts:
                        raise AlignmentError(f"pivot item {item} ({split}) is missing from {code}", file=source)
                    label, text, where = texts[item]
                    if label != row["category"]:
                        raise AlignmentError(f"item {item}: label {label!r} here, {row['category']!r} in the pivot",
                                             file=where)
                    rows.append({"index_id": item, "category": label, "text": text})
                    used.add(item)
                write_text_atomic(dst / f"{split}.tsv", sib_tsv_text(rows))
                counts[split] = len(rows)
            if (pivot / "labels.txt").is_file():
                link_or_copy(pivot / "labels.txt", dst / "labels.txt")
            data = (VariantInfo.read(source) or VariantInfo()).to_dict()
            data.update(variant=code, kind="topic", method="aligned to the pivot's split")
            dropped = len(texts) - len(used)
            data["aligned"] = {"pivot": pivot.name, "counts": counts, "dropped_not_in_pivot": dropped}
            VariantInfo.from_dict(data).write(dst)
        return {"drops": [DropRow(f"align {code}", "not_in_pivot", dropped).to_dict()] if dropped else []}
    return action


def collect(variants: dict[str, tuple[Path, bool]], credit: dict) -> Callable[[Path], dict]:
    """Every variant folder into ``OUTPUT/<code>/``, each with a ``variant.json`` that credits its source."""
    def action(output: Path) -> dict:
        with staging_dir(output, what=WHAT) as stage:
            for code, (folder, assembled) in variants.items():
                kind = "mc" if assembled else _kind(folder, split_files(folder))
                _copy_variant(folder, stage / code, code, kind, credit, assembled=assembled)
        return {}
    return action


def license_audit(dataset: Path, license_id: str | None) -> Callable[[Path], dict]:
    """``OUTPUT/licenses.json``: the license audit of every split (what ``builder licenses --json`` prints)."""
    def action(output: Path) -> dict:
        from builder.export.audit import audit_dataset

        audit = audit_dataset(dataset, license_id=license_id)
        with staging_dir(output, what=WHAT) as stage:
            (stage / "licenses.json").write_text(dumps_json([s.to_dict() for s in audit.splits]), encoding="utf-8")
        return {}
    return action


def export(dataset: Path, reports: dict[str, Path | None], options: dict, where: dict,
           report) -> Callable[[Path], dict]:
    """The export with the release's reports on its card (gate verdict, agreement, baseline scores)."""
    def action(output: Path) -> dict:
        import json

        from builder.tasks.export import ExportOptions, run_export

        loaded = {k: (json.loads(p.read_text(encoding="utf-8")) if p is not None and p.is_file() else None)
                  for k, p in reports.items()}
        failing = options["allow_failing_gate"] and (loaded.get("qc") or {}).get("passed") is False
        res = run_export(ExportOptions(built=dataset, out=output, lm_eval=options["lm_eval"],
                                       license=options["license"], name=options["name"],
                                       pretty_name=options["pretty_name"], card_reports=loaded,
                                       gate_failing_allowed=failing, jobs=where["jobs"], backend=where["backend"],
                                       address=where["address"]), report)
        return {"warnings": list(getattr(res, "warnings", []))}
    return action


def lm_eval(dataset: Path, settings, options: dict, where: dict, report) -> Callable[[Path], dict]:
    """``OUTPUT/tasks``: the export's lm-eval tasks (the export task itself, without the card's reports) and
    ``OUTPUT/results``: the model run on them (:func:`builder.tasks.evaluate.run_lm`).

    The model runs before the release's own export, so the card and the report carry its scores; the tasks
    it ran are written by the same export code from the same dataset and name, so they are the export's.
    """
    def action(output: Path) -> dict:
        import dataclasses

        from builder.tasks.base import QUIET
        from builder.tasks.evaluate import LmOptions, run_lm
        from builder.tasks.export import ExportOptions, run_export

        with staging_dir(output, what=WHAT) as stage:
            run_export(ExportOptions(built=dataset, out=stage / "tasks", lm_eval=True, license=options["license"],
                                     name=options["name"], pretty_name=options["pretty_name"], jobs=where["jobs"],
                                     backend=where["backend"], address=where["address"]), QUIET)
            # the recipe's lm_eval settings are the command's own (builder.tasks.evaluate.LmSettings)
            res = run_lm(LmOptions(export=stage / "tasks", out=stage / "results", **dataclasses.asdict(settings)),
                         report)
        for line in res.lines:  # (its notes name the staging folder)
            report.info(f"lm_eval: {line}")
        return {"model": res.model, "accuracy": {r["variant"]: r["accuracy"] for r in res.summary},
                "lm_eval_acc": dict(res.lm_acc)}
    return action


def disparity(records: dict[str, Path | None], report) -> Callable[[Path], dict]:
    """``OUTPUT``: ``builder disparity`` over the model's and the baselines' accuracy per variant (PRR per
    system over the release's variants); a fit that cannot run is the stage's warning, and its reason is
    written in ``OUTPUT/not_fitted.txt``."""
    def action(output: Path) -> dict:
        import json

        from builder.evaluation.disparity import DisparityError
        from builder.tasks.disparity import DisparityOptions, run_disparity
        from builder.tasks.evaluate import disparity_records

        import math

        rows = []
        for path in records.values():
            if path is not None and path.is_file():
                data = json.loads(path.read_text(encoding="utf-8"))
                model = (data.get("settings") or {}).get("model")  # a model's rows; a baseline's name its own
                for r in data.get("results", []):
                    if r.get("accuracy") is not None:
                        rows.append({"model": r.get("baseline") or model or r.get("model"), "variant": r["variant"],
                                     "accuracy": r["accuracy"]})
        with staging_dir(output, what=WHAT) as stage:
            (stage / "records.csv").write_text(disparity_records(rows), encoding="utf-8")
            try:
                res = run_disparity(DisparityOptions(records=(stage / "records.csv",), out=stage / "disparity"),
                                    report)
            except DisparityError as err:
                why = f"disparity not fitted: {err}"
                (stage / "not_fitted.txt").write_text(why + "\n", encoding="utf-8")
                report.info(f"release: {why}")
                return {"warnings": [why]}
        models = res.analysis.models
        def number(x) -> float | None:  # CV-PRR of a model scoring 0 everywhere is undefined
            return round(float(x), 6) if math.isfinite(float(x)) else None

        return {"models": {m.model: {"mean_prr": number(m.mean_prr), "cv_prr": number(m.cv_prr)}
                           for m in models.itertuples()}}
    return action


def co_assignments(annotations, labels: list[str]) -> list[list[int]] | None:
    """Label x label counts over pairs of annotators of one item (the diagonal: pairs that agree), in the
    order of ``labels``; None when a label of ``labels`` is not among the annotations' labels.

    The agreement stage computes it from the annotations its task parsed, so the summary never
    reads the raw judgements again.
    """
    import numpy as np

    order = list(annotations.labels)
    counts = annotations.counts().astype(np.int64)           # items x labels
    pairs = counts.T @ counts - np.diag(counts.sum(axis=0))
    index = [order.index(lab) for lab in labels if lab in order]
    if len(index) != len(labels):
        return None
    return pairs[np.ix_(index, index)].tolist()
