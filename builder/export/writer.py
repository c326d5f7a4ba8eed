"""``builder export``: the Hugging Face layout with card, license files and manifest.

Output (written into a staging folder that replaces ``out`` only when complete)::

    out/<variant>/<split>.parquet   one config per variant, one file per split
    out/README.md                   dataset card (YAML front matter + prose)
    out/LICENSE, out/ATTRIBUTION.md combined terms; credit per source
    out/croissant.json              Croissant metadata: files, record sets, license per split (:mod:`.croissant`)
    out/manifest.json               rows, bytes and sha256 of every file; terms per split
    out/lm_eval/                    with lm_eval=True: task YAMLs (see :mod:`.lmeval`)

Columns are typed from :mod:`schemas.features` and the types are stored where
``datasets`` reads them (the Parquet schema metadata, the card's
``dataset_info``): topic labels are a ``ClassLabel`` of the curated label list.
``schema`` (``--schema belebele|sib200``) writes the column, split and config
names of the published Hub dataset instead (:mod:`.published`).

An unresolved license conflict or an ``unknown`` license stops the export with
a :class:`LicenseError`, unless the build carries the recipe's written
override. Re-exporting the same input gives byte-identical files.
"""
from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from schemas.runtime.provenance import tool_version
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from schemas.io import check_replaceable, dumps_json, read_text_utf8, sha256_file, staging_dir
from data_cards.card import CardContext, SplitTerms, card_description, references, render_card
from data_cards.frontmatter import check_card_metadata, parse_front_matter
from data_cards.legal import render_attribution, render_license
from schemas.codes import is_variant_code, validate_variant_code
from schemas.dataset import LoadedDataset, load_dataset_dir
from schemas.errors import LicenseError, SchemaError, ToolkitError, UsageError
from schemas.runtime.fanout import fan_out
from schemas.runtime.outputs import refuse_inputs_inside
from schemas.features import arrow_schema, class_label_names
from schemas.tables import split_lines

from .audit import Audit, audit_dataset
from .croissant import croissant
from .hub import check_hub_repo, dataset_info, feature_text, typed_table
from .lmeval import write_lm_eval
from .published import get_schema

_REPORTS = ("qc_report.json", "agreement.json")


@dataclass
class ExportResult:
    """What an export wrote."""

    out: Path
    variants: list[str]
    files: dict[str, dict]
    terms: str
    lm_eval_tasks: list[str]


def slug(name: str) -> str:
    """A task- and config-safe name: letters, digits and ``_``.

    >>> slug("belebele-train v2")
    'belebele_train_v2'
    """
    out = re.sub(r"[^A-Za-z0-9_]+", "_", name).strip("_")
    return out or "dataset"


def check_name(name: str, option: str = "--name") -> str:
    """``name`` if it is a name and not a path: no ``/``, ``\\`` or ``..`` (a usage error, exit 2).

    >>> check_name("belebele-train v2")
    'belebele-train v2'
    >>> check_name("../../etc")
    Traceback (most recent call last):
    ...
    schemas.errors.UsageError: field --name: expected a name, found the path '../../etc' (no '/', '\\' or '..')
    """
    if not name.strip():
        raise UsageError(f"expected a name, found {name!r}", field=option)
    if "/" in name or "\\" in name or ".." in name:
        raise UsageError(f"expected a name, found the path {name!r} (no '/', '\\' or '..')", field=option)
    return name


def check_config_names(ds: LoadedDataset) -> None:
    """Refuse a variant whose name has the shape of a FLORES-200 code but is not a valid code.

    Its name becomes a config name and the card's language, so ``nqo_Nkko`` (a typo for
    ``nqo_Nkoo``) stops the export naming its folder and the nearest valid codes.
    """
    for variant in ds.variants:
        if is_variant_code(variant):
            validate_variant_code(variant, file=ds.variant_dir(variant) or ds.root)


def _table(frame: pd.DataFrame, kind: str, license_value: str | None, where: Path) -> pa.Table:
    """The split as Arrow: record columns first, in order and with the types of :mod:`schemas.features`."""
    table = pa.Table.from_pandas(frame, preserve_index=False, nthreads=1)  # small tables: no thread pool
    if "license" not in table.column_names:
        table = table.append_column("license", pa.array([license_value] * table.num_rows, pa.string()))
    record = arrow_schema(kind)
    names = table.column_names
    table = table.select([c for c in record.names if c in names] + [c for c in names if c not in record.names])
    fields = []
    for f in table.schema:  # the record's types (the Hub's Value("string")/Value("int64")); extra columns as read
        if f.name in record.names:
            f = f.with_type(record.field(f.name).type)
        elif pa.types.is_large_string(f.type):
            f = f.with_type(pa.string())
        fields.append(f)
    try:
        return table.cast(pa.schema(fields)).replace_schema_metadata(None)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as err:
        raise SchemaError(f"a column does not have its record type ({err})", file=where) from None


def _labels(audit: Audit) -> list[str]:
    """The curated label list: ``labels.txt`` beside the splits, an earlier export's ClassLabel names, else
    the labels seen, sorted."""
    ds = audit.dataset
    if ds.kind != "topic":
        return []
    for (variant, _split), path in sorted(ds.files.items()):
        lf = path.parent / "labels.txt"
        if lf.is_file():
            return [x.strip() for x in split_lines(read_text_utf8(lf)) if x.strip()]
        if path.suffix == ".parquet":  # an earlier export: the ClassLabel names, in their order
            names = class_label_names(pq.read_schema(path)).get("category")
            if names:
                return names
    cats = set()
    for splits in ds.tables.values():
        for frame in splits.values():
            cats.update(frame["category"].astype(str))
    return sorted(cats)


def _references(audit: Audit, build_info: dict) -> dict[str, str]:
    """Source name -> reference: the toolkit's own for sources it knows, else the citation a
    ``variant.json`` declares for its ``source_name`` (``builder describe``; one line in the card)."""
    names = [x.name for x in audit.overall.sources]
    refs = references(names, build_info)
    for info in audit.variant_info.values():
        if info.source_name in names and info.source_name not in refs and info.citation:
            refs[info.source_name] = " ".join(info.citation.split())
    return refs


def _read_json(path: Path):
    """A JSON file read as every reader reads text (:func:`schemas.io.read_text_utf8`: a BOM and CRLF are
    harmless, a bad byte is an error naming the line); malformed JSON is a :class:`SchemaError` naming the line."""
    text = read_text_utf8(path)
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise SchemaError(f"malformed JSON: {err.msg}", file=path, record=f"line {err.lineno}") from None


def _reports(root: Path) -> dict[str, dict | None]:
    out = {}
    for name in _REPORTS:
        p = root / name
        out[name] = _read_json(p) if p.is_file() else None
    return out


def is_export(folder: Path) -> bool:
    """Whether ``folder`` is an earlier export: its manifest.json names this toolkit as the generator."""
    try:
        manifest = _read_json(Path(folder) / "manifest.json")
    except (OSError, ValueError, ToolkitError):
        return False
    return isinstance(manifest, dict) and str(manifest.get("generator", "")).startswith("mc-dataset-builder")


def export_dataset(built, out, *, lm_eval: bool = False, license_id: str | None = None,
                   source: str | None = None, name: str | None = None, pretty_name: str | None = None,
                   lm_eval_data_root: str | None = None, schema: str | None = None,
                   hub_repo: str | None = None, card_reports: dict | None = None,
                   gate_failing_allowed: bool = False, jobs: int = 1, backend: str = "local",
                   address: str | None = None, progress=None) -> ExportResult:
    """Export the dataset folder ``built`` to ``out`` (see the module docstring).

    Parameters
    ----------
    built : path
        An assembled set, a folder of variant folders, or an earlier export.
    out : path
        The export folder; replaced atomically as a whole.
    lm_eval : bool
        Also write lm-evaluation-harness task YAMLs under ``out/lm_eval``.
    license_id : str, optional
        License of variant folders that carry no license information.
    source : str, optional
        Source name of records that name none (default: the input folder's name).
    name, pretty_name : str, optional
        Config-safe name (task prefix) and display name; default: the manifest's
        ``name`` or the input folder's name.
    lm_eval_data_root : str, optional
        Folder (or ``hf://`` root) the task YAMLs point at; default: paths
        relative to the task files, which work wherever ``out`` is moved.
    schema : {"ours", "belebele", "sib200"}, optional
        Column, split and config names: ours (default) or the published Hub
        dataset's (:mod:`.published`).
    hub_repo : str, optional
        ``ORG/NAME`` the export will be published as: the tasks read it from
        the Hub (``dataset_path``/``dataset_name``), ``croissant.json`` links it.
    card_reports : dict, optional
        The parsed reports for the card by kind (``agreement``, ``qc``, ``baselines``), instead of the
        ``agreement.json`` and ``qc_report.json`` beside the data (``builder release`` passes them).
    gate_failing_allowed : bool
        The qc gate failed and the release was exported anyway; the card says so.
    jobs, backend, address
        Where the variants' Parquet files are made (:func:`schemas.runtime.fanout.fan_out`); the bytes do
        not depend on it.
    progress : callable, optional
        ``progress(variant, done, total)`` as each variant's files are made.
    """
    built, out = Path(built), Path(out)
    refuse_inputs_inside(out, [built])
    check_hub_repo(hub_repo)
    if hub_repo and lm_eval_data_root:
        raise UsageError("--hub-repo and --lm-eval-data-root both say where the tasks read the data; give one")
    check_replaceable(out, is_export, "export")  # before the work: a foreign or unwritable folder
    if name is not None:
        check_name(name)
    loaded = load_dataset_dir(built)
    check_config_names(loaded)
    published = get_schema(schema, loaded.kind, loaded.variants)
    audit = audit_dataset(built, license_id=license_id, source=source, loaded=loaded)
    blocking = audit.blocking()
    if blocking:
        first = blocking[0]
        reasons = "; ".join(c.reason for c in first.terms.conflicts if not c.overridden)
        raise LicenseError(
            f"{len(blocking)} split(s) have unresolved license conflicts, first {first.variant}/{first.split}: "
            f"{reasons}. Add license_override {{terms, reason}} to the recipe to release them anyway",
            file=built)
    ds = audit.dataset
    manifest = ds.manifest or {}
    build_info = manifest.get("build", manifest)
    name = slug(name or manifest.get("name") or manifest.get("recipe") or built.resolve().name)
    pretty = pretty_name or manifest.get("pretty_name") or name
    reports = _reports(ds.root)
    if card_reports is not None:  # builder release: the reports of its own stages
        reports = {"agreement.json": card_reports.get("agreement"), "qc_report.json": card_reports.get("qc"),
                   "baselines": card_reports.get("baselines")}
    terms_by_split = {(s.variant, s.split): s.terms for s in audit.splits}
    labels = _labels(audit)
    class_labels = labels if ds.kind == "topic" and published.class_labels else None

    # no .builder.json: the manifest lists every file of an export, and says what wrote it (is_export)
    with staging_dir(out, marker=is_export, what="export", mark=False) as stage:
        files: dict[str, dict] = {}
        card_files: dict[str, dict[str, str]] = {}
        sizes: dict[str, dict[str, int]] = {}
        columns: list[tuple[str, str]] = []
        features: dict = {}
        infos: list[dict] = []
        split_terms = []
        shared = (ds, {(s.variant, s.split): s.declared for s in audit.splits},
                  class_labels, published)
        made = fan_out(_variant_files, ds.variants, shared=shared, jobs=jobs, backend=backend, address=address,
                       progress=progress, labels=ds.variants,
                       prepare=lambda v: (v, {s: ds.tables[v][s] for s in ds.splits(v)}))
        for variant, parts in zip(ds.variants, made):
            (stage / variant).mkdir()
            arrow_sizes: dict[str, tuple[int, int]] = {}
            for split, out_split, data, num_rows, nbytes, feats in parts:
                terms = terms_by_split[(variant, split)]
                rel = f"{variant}/{out_split}.parquet"
                (stage / rel).write_bytes(data)
                files[rel] = {"rows": num_rows, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
                card_files.setdefault(variant, {})[out_split] = rel
                sizes.setdefault(variant, {})[out_split] = num_rows
                arrow_sizes[out_split] = (nbytes, num_rows)
                split_terms.append((variant, out_split, terms))
                features.setdefault(variant, feats)
                if not columns:
                    columns = [(n, feature_text(f)) for n, f in feats.items()]
            infos.append(dataset_info(variant, features[variant], arrow_sizes))
        overall = audit.overall
        ctx = CardContext(
            name=name, pretty_name=pretty, kind=ds.kind, sizes=sizes, files=card_files, columns=columns,
            splits=[SplitTerms(v, s, t) for v, s, t in split_terms], overall=overall,
            override=audit.override, description=build_info.get("description"), manifest=build_info,
            variant_info={v: info.to_dict() for v, info in audit.variant_info.items()}, labels=labels,
            agreement=reports["agreement.json"],
            qc=reports["qc_report.json"], references=_references(audit, build_info), dataset_info=infos,
            baselines=reports.get("baselines"), gate_failing_allowed=gate_failing_allowed)
        card = render_card(ctx)
        check_card_metadata(parse_front_matter(card, file="README.md")[0], file="README.md")
        refs = [ctx.references[s.name] for s in overall.sources if s.name in ctx.references]
        texts = {"README.md": card, "LICENSE": render_license(pretty, overall, audit.override),
                 "ATTRIBUTION.md": render_attribution(name, overall, ctx.references),
                 "croissant.json": croissant(
                     name=name, pretty_name=pretty, description=card_description(ctx), files=files,
                     split_files=card_files, features=features, splits=split_terms,
                     cite_as="\n".join(dict.fromkeys(refs)) or None,
                     url=f"https://huggingface.co/datasets/{hub_repo}" if hub_repo else None, labels=class_labels,
                     version=str(build_info.get("version") or "1.0.0"))}
        for rel, text in texts.items():
            (stage / rel).write_text(text, encoding="utf-8", newline="\n")
            files[rel] = {}
        tasks: list[str] = []
        if lm_eval:
            written, tasks = write_lm_eval(stage / "lm_eval", name=name, kind=ds.kind, files=card_files,
                                           data_root=lm_eval_data_root, labels=labels, hub_repo=hub_repo,
                                           schema=published.name)
            files.update({f"lm_eval/{f}": {} for f in written})
        for rel, entry in files.items():
            if "sha256" not in entry:
                p = stage / rel
                entry.update(bytes=p.stat().st_size, sha256=sha256_file(p))
        out_manifest = {
            "name": name, "pretty_name": pretty, "kind": ds.kind,
            "generator": f"mc-dataset-builder {tool_version()}",
            "schema": published.name,
            "files": files,
            "variants": sizes,
            "terms": overall.to_dict(),
            "splits": [dict(s.to_dict(), split=published.split_name(s.split)) for s in audit.splits],
            "license_override": None if audit.override is None else audit.override.to_dict(),
            "lm_eval_tasks": tasks,
            "build": {k: build_info[k] for k in ("seed", "counts", "dropped", "sources", "description")
                      if k in build_info},
        }
        (stage / "manifest.json").write_text(dumps_json(out_manifest), encoding="utf-8", newline="\n")
    return ExportResult(out=out, variants=ds.variants, files=files, terms=overall.terms, lm_eval_tasks=tasks)


def _variant_files(shared, task) -> list[tuple]:
    """A worker's part of the export: one variant's Parquet files, as bytes (no shared filesystem needed).

    ``task`` is the variant's name (its tables are read from the shared dataset) or, sent by the Ray
    backend, ``(name, {split: frame})``. Returns ``(split, published split, bytes, rows, Arrow bytes,
    features)`` per split.
    """
    ds, licenses, class_labels, published = shared
    variant, frames = task if isinstance(task, tuple) else (task, None)
    out = []
    for split in ds.splits(variant):
        where = ds.files[(variant, split)]
        frame = frames[split] if frames is not None else ds.tables[variant][split]
        table = _table(frame, ds.kind, licenses[(variant, split)], where)
        table, feats = typed_table(published.apply(table), ds.kind, class_labels, where,
                                   record_types=published.name == "ours")
        buf = pa.BufferOutputStream()
        pq.write_table(table, buf, compression="zstd", use_dictionary=True, write_statistics=True)
        out.append((split, published.split_name(split), buf.getvalue().to_pybytes(), table.num_rows, table.nbytes,
                    feats))
    return out

