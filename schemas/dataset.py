"""Load a built, projected or exported dataset folder as tables per variant and split.

Every stage after assembly (``qc``, ``export``, ``licenses``, ``evaluate``)
reads its input through :func:`load_dataset_dir`, which understands the three
layouts the toolkit writes:

1. *Assembled* (``builder assemble``): ``DIR/manifest.json`` and
   ``DIR/<split>.parquet`` (or ``.jsonl``/``.tsv``) holding :class:`MCItem`
   rows; the variant is the ``language`` column.
2. *Variant folders* (``builder extend``/``romanize``/``annotate split`` and
   the SIB-200 release): ``DIR/<variant>/<split>.{parquet,tsv,jsonl}``, or a
   single ``DIR/<split>.tsv`` whose variant is the folder name.
3. *Exported* (``builder export``): ``DIR/<variant>/<split>.parquet`` beside a
   ``README.md`` card and ``manifest.json``; the same rule as 2.

Splits are any ``<split>.parquet``/``.jsonl``/``.tsv`` stem, listed in :data:`schemas.splits.SPLIT_ORDER`.

A folder with a ``manifest.json`` that records the sha256 of its files
(``builder assemble``, ``builder export``) is verified as it is read: a split
file that differs from its recorded hash, or that the manifest lists and the
folder lacks, is an :class:`~schemas.errors.IntegrityError` naming the file
(exit code 2), so no stage uses a folder altered after it was written. Every
split file the manifest lists in a folder that is read is verified, not only
the format the reader picks: an assembled ``train.jsonl`` altered beside its
``train.parquet`` stops a command that reads the Parquet file too (the two are
one split, and a user takes either). Readers that read split files without
this loader (``builder romanize``, ``builder extend``'s topic source) call
:func:`schemas.manifest.verify_against_manifest`, the same check. Each file is hashed once, when
its folder is read. ``verify=False`` (the CLI's ``builder --no-verify``,
through :func:`manifest_verification`) skips it.
"""
from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq

from .features import decode_class_labels
from .errors import SchemaError, SourceError, row_at
from .names import check_name
from .io import read_sib_tsv, read_text_utf8, require_path
from .manifest import (_VERIFY, _check_listed, _verify_others, manifest_verification, split_files,
                       read_manifest, recorded_hashes, verify_against_manifest, verify_file)
from .runtime.outputs import fault_point
from .records import REQUIRED_COLUMNS
from .splits import order_splits
from .tables import jsonl_lines
from .variant import VariantInfo

#: What this module offers; the manifest check (schemas.manifest) is offered here too, where callers look for it.
__all__ = ["LazyTables", "LoadedDataset", "UnknownVariantError", "check_columns", "load_dataset_dir",
           "manifest_verification", "read_manifest", "read_table", "recorded_hashes", "split_files",
           "verify_against_manifest", "verify_file"]


class LazyTables(Mapping):
    """``tables[variant][split]`` read from the variant's split files on first access.

    What :func:`load_dataset_dir` returns with ``lazy=True`` for a folder per
    variant: the variants and their split files are known at once, each
    variant's tables are read (and kept) when first used. A gate that forks
    one worker per variant thus reads each variant in its worker, and
    ``--variant`` reads only the variants asked for. A file that cannot be
    read raises the same error as an eager load, when it is first used.
    """

    def __init__(self, files: dict[str, dict[str, Path]], expected: dict[Path, str] | None = None):
        self._files = files
        self._expected = expected or {}  # sha256 per file from manifest.json, checked as each is read
        self._loaded: dict[str, dict[str, pd.DataFrame]] = {}
        #: The record kind every table must have; set by the loader from the first variant read.
        self.kind: str | None = None

    def __getitem__(self, variant: str) -> dict[str, pd.DataFrame]:
        if variant not in self._loaded:
            self._loaded[variant] = self.read(variant)
        return self._loaded[variant]

    def __iter__(self):
        return iter(self._files)

    def __len__(self) -> int:
        return len(self._files)

    def read(self, variant: str) -> dict[str, pd.DataFrame]:
        """The variant's tables, read now unless already kept; this read is not kept."""
        if variant in self._loaded:
            return self._loaded[variant]
        fault_point(f"read-{variant}")
        tables = {split: read_table(path, sha256=self._expected.get(path))
                  for split, path in self._files[variant].items()}
        if self._expected:
            files = self._files[variant].values()
            _verify_others(next(iter(files)).parent, self._expected, files)
        if self.kind is not None:
            for split, frame in tables.items():
                check_columns(frame, self.kind, self._files[variant][split])
        return tables

    def split_names(self, variant: str) -> list[str]:
        """The variant's splits, without reading them."""
        return list(self._files[variant])


@dataclass
class LoadedDataset:
    """Tables of one dataset folder: ``tables[variant][split]`` is a DataFrame."""

    root: Path
    kind: str  # "mc" or "topic"
    tables: Mapping[str, dict[str, pd.DataFrame]]
    manifest: dict | None = None
    files: dict[tuple[str, str], Path] = field(default_factory=dict)

    @property
    def variants(self) -> list[str]:
        return sorted(self.tables)

    def splits(self, variant: str) -> list[str]:
        tables = self.tables
        return order_splits(tables.split_names(variant) if isinstance(tables, LazyTables) else tables[variant])

    def variant_dir(self, variant: str) -> Path | None:
        """The folder that holds the variant's split files (``root`` for an assembled set)."""
        first = next((path for (v, _split), path in sorted(self.files.items()) if v == variant), None)
        return None if first is None else first.parent

    def variant_info(self, variant: str) -> VariantInfo | None:
        """The ``variant.json`` beside the variant's split files, or None (see :mod:`schemas.variant`)."""
        folder = self.variant_dir(variant)
        return None if folder is None else VariantInfo.read(folder)


def read_table(path: Path, *, sha256: str | None = None) -> pd.DataFrame:
    """Read one split file (Parquet, JSONL or SIB-style TSV) as a DataFrame.

    With ``sha256`` (from ``manifest.json``), a file that hashes otherwise is
    an :class:`~schemas.errors.IntegrityError` (:func:`verify_file`).
    """
    path = require_path(path, kind="file")
    verify_file(path, sha256)
    if path.suffix == ".parquet":
        try:
            frame, schema = pd.read_parquet(path), pq.read_schema(path)
        except Exception as err:  # pyarrow raises several types
            raise SourceError(f"cannot read Parquet: {err}", file=path) from None
        # an export stores labels as ClassLabel indices (schemas.features); the toolkit reads the names
        return decode_class_labels(frame, schema, file=path)
    if path.suffix == ".jsonl":
        rows = []
        for n, line in jsonl_lines(read_text_utf8(path)):  # BOM, CRLF and bad bytes as every reader
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as err:
                raise SchemaError(f"malformed JSON: {err.msg}", file=path, record=f"line {n}") from None
        return pd.DataFrame(rows)
    if path.suffix == ".tsv":
        rows = read_sib_tsv(path)
        frame = pd.DataFrame(rows, columns=list(rows[0].keys()) if rows else ["index_id", "category", "text"])
        if "index_id" in frame:
            frame["index_id"] = frame["index_id"].astype("int64")
        return frame
    raise SourceError(f"unsupported split file type {path.suffix!r}; expected .parquet, .jsonl or .tsv",
                      file=path)


def _kind(frame: pd.DataFrame, where: Path) -> str:
    cols = set(frame.columns)
    for kind, required in REQUIRED_COLUMNS.items():
        if set(required) <= cols:
            return kind
    raise SchemaError("columns match neither multiple-choice (" + ", ".join(REQUIRED_COLUMNS["mc"]) +
                      ") nor topic (" + ", ".join(REQUIRED_COLUMNS["topic"]) + f") records; found {sorted(cols)}",
                      file=where)


def check_columns(frame: pd.DataFrame, kind: str, where: Path) -> None:
    """Raise :class:`SchemaError` naming ``where`` unless ``frame`` has the columns of ``kind`` records."""
    missing = [c for c in REQUIRED_COLUMNS[kind] if c not in frame.columns]
    if missing:
        raise SchemaError(f"{'multiple-choice' if kind == 'mc' else 'topic'} records need the columns "
                          f"{', '.join(REQUIRED_COLUMNS[kind])}; missing {', '.join(missing)} "
                          f"(found {', '.join(map(str, frame.columns))})", file=where)


def load_dataset_dir(root: str | Path, *, variants=None, lazy: bool = False,
                     verify: bool | None = None) -> LoadedDataset:
    """Load every variant and split under ``root``.

    Parameters
    ----------
    root : path
        A folder in one of the layouts in the module docstring.
    variants : iterable of str, optional
        Keep only these variants; an unknown name is an error listing the known ones.
    lazy : bool
        For a folder per variant, read only the first variant now (to tell
        the kind of data) and the others when first used (:class:`LazyTables`).
        Files holding several variants are always read at once.
    verify : bool, optional
        Check every split file read against the sha256 in ``manifest.json``
        (see the module docstring) [default: True, or as
        :func:`manifest_verification` set it].
    """
    root = require_path(root, what="dataset folder", kind="dir")
    manifest = read_manifest(root)
    verify = _VERIFY.get() if verify is None else verify
    expected = recorded_hashes(root, manifest) if verify else {}
    tables: dict[str, dict[str, pd.DataFrame]] = {}
    files: dict[tuple[str, str], Path] = {}
    direct = split_files(root)
    if direct:
        _check_listed(expected, {root})
        for split, path in direct.items():
            frame = read_table(path, sha256=expected.get(path))
            if "language" in frame.columns and frame["language"].notna().all() and len(frame):
                for lang, part in frame.groupby("language", sort=True):
                    _check_variant_name(str(lang), path, part.index[0], "language")
                    tables.setdefault(str(lang), {})[split] = part.reset_index(drop=True)
                    files[(str(lang), split)] = path
            else:
                _check_variant_name(root.name, root)
                tables.setdefault(root.name, {})[split] = frame
                files[(root.name, split)] = path
        _verify_others(root, expected, direct.values())
    else:
        per_variant: dict[str, dict[str, Path]] = {}
        for sub in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")):
            found = split_files(sub)
            if found:
                _check_variant_name(sub.name, sub)
                per_variant[sub.name] = found
                files.update({(sub.name, split): path for split, path in found.items()})
        if variants and per_variant:  # before reading, so that only the variants asked for are read
            _known(variants, per_variant, root)
            per_variant = {v: per_variant[v] for v in variants}
        listed = {p.parent for p in expected if p.parent.parent == root}  # a whole variant folder may be gone
        _check_listed(expected, {root / v for v in (variants or {f.name for f in listed} | set(per_variant))})
        tables = LazyTables(per_variant, expected)
        if not lazy:
            tables = {v: tables[v] for v in tables}
    if not tables:
        raise SourceError("no split files found (expected <split>.parquet/.jsonl/.tsv in the folder "
                          "or in one folder per variant)", file=root)
    if variants and not isinstance(tables, LazyTables):
        _known(variants, tables, root)
        tables = {v: tables[v] for v in variants}
    first_variant = next(iter(tables.values()))
    first_path = files[(next(iter(tables)), next(iter(first_variant)))]
    kind = _kind(next(iter(first_variant.values())), first_path)
    read_now = list(tables)
    if isinstance(tables, LazyTables):
        tables.kind = kind  # the variants read later are checked when read
        read_now = read_now[:1]
    for variant in read_now:
        for split, frame in tables[variant].items():
            check_columns(frame, kind, files[(variant, split)])
    return LoadedDataset(root=root, kind=kind, tables=tables, manifest=manifest, files=files)


def _check_variant_name(name: str, where: Path, row=None, field=None) -> None:
    """A variant's name becomes a folder, a config, a task and a file name in every output: it must be a
    file name (:func:`schemas.names.check_name`), else a :class:`SchemaError` naming the file (and the row)."""
    check_name(name, what="variant name", file=where,
               record=None if row is None else row_at(row), field=field)


class UnknownVariantError(SchemaError):
    """A variant asked for (``--variant``, a recipe's ``only:``) that the dataset folder does not hold; a
    command whose option named it turns it into a usage error (exit 2)."""


def _known(variants, tables, root: Path) -> None:
    unknown = sorted(set(variants) - set(tables))
    if unknown:
        known = sorted(tables)
        if len(known) <= 8:
            hint = f"known: {', '.join(known)}"
        else:  # a release folder holds hundreds: the nearest ones, case first (eng_latn -> eng_Latn)
            import difflib

            lower = {k.lower(): k for k in known}
            near = list(dict.fromkeys([lower[u.lower()] for u in unknown if u.lower() in lower]
                                      + [m for u in unknown for m in difflib.get_close_matches(u, known, n=3)]))
            hint = (f"nearest: {', '.join(near[:5])}; " if near else "") + f"{len(known)} variants in the folder"
        raise UnknownVariantError(f"unknown variant(s) {', '.join(unknown)}; {hint}", file=root)

