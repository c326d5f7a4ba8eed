"""The export's variants step: one Parquet file per split, typed, made by the fan-out.

Columns are typed from :mod:`schemas.features` and the types are stored where
``datasets`` reads them (the Parquet schema metadata; :mod:`.hub` gives the
card's ``dataset_info``): topic labels are a ``ClassLabel`` of the curated
label list. A split without a ``license`` column gets one, holding the license
its folder declares (:attr:`builder.export.audit.SplitAudit.declared`).
The workers return bytes, so the files are the same for any worker count and
backend, and no shared filesystem is needed.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from schemas.names import path_under
from schemas.errors import SchemaError
from schemas.features import arrow_schema
from schemas.license_terms import Terms
from schemas.runtime.fanout import fan_out

from .hub import dataset_info, feature_text, typed_table


@dataclass
class Variants:
    """What the variants step wrote, as the card, Croissant and manifest steps read it.

    ``files``: export-relative path -> ``{rows, bytes, sha256}``; ``split_files``: variant ->
    published split -> path; ``sizes``: variant -> published split -> rows; ``columns``: the
    card's (name, type) list; ``features``: variant -> ``datasets`` features; ``infos``: the
    card's ``dataset_info``; ``split_terms``: (variant, published split, terms) in file order.
    """

    files: dict[str, dict] = field(default_factory=dict)
    split_files: dict[str, dict[str, str]] = field(default_factory=dict)
    sizes: dict[str, dict[str, int]] = field(default_factory=dict)
    columns: list[tuple[str, str]] = field(default_factory=list)
    features: dict = field(default_factory=dict)
    infos: list[dict] = field(default_factory=list)
    split_terms: list[tuple[str, str, Terms]] = field(default_factory=list)


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


def write_variants(stage: Path, source, *, jobs: int = 1, backend: str = "local", address: str | None = None,
                   progress: Callable[[str, int, int], None] | None = None) -> Variants:
    """Write ``stage/<variant>/<split>.parquet`` for every split of ``source`` (a :class:`.writer.ExportInput`).

    ``jobs``, ``backend``, ``address``: where the files are made (:func:`schemas.runtime.fanout.fan_out`);
    ``progress(variant, done, total)`` as each variant's files are made.
    """
    ds, audit, published = source.dataset, source.audit, source.published
    terms = {(s.variant, s.split): s.terms for s in audit.splits}
    shared = (ds, {(s.variant, s.split): s.declared for s in audit.splits}, source.class_labels, published)
    made = fan_out(_variant_files, ds.variants, shared=shared, jobs=jobs, backend=backend, address=address,
                   progress=progress, labels=ds.variants,
                   prepare=lambda v: (v, {s: ds.tables[v][s] for s in ds.splits(v)}))
    out = Variants()
    for variant, parts in zip(ds.variants, made):
        path_under(stage, variant).mkdir()  # the variant name was checked when the dataset was loaded
        arrow_sizes: dict[str, tuple[int, int]] = {}
        for split, out_split, data, num_rows, nbytes, feats in parts:
            rel = f"{variant}/{out_split}.parquet"
            path_under(stage, rel).write_bytes(data)
            out.files[rel] = {"rows": num_rows, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
            out.split_files.setdefault(variant, {})[out_split] = rel
            out.sizes.setdefault(variant, {})[out_split] = num_rows
            arrow_sizes[out_split] = (nbytes, num_rows)
            out.split_terms.append((variant, out_split, terms[(variant, split)]))
            out.features.setdefault(variant, feats)
            if not out.columns:
                out.columns = [(n, feature_text(f)) for n, f in feats.items()]
        out.infos.append(dataset_info(variant, out.features[variant], arrow_sizes))
    return out
