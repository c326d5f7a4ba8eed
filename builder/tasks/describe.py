"""The body of ``builder describe``: declare the license, source and citation of a variant folder.

Writes the credit fields of ``variant.json`` (:data:`schemas.variant.CREDIT_FIELDS`)
through :class:`~schemas.variant.VariantInfo`, atomically, keeping every other
field as it was, so that nobody writes ``variant.json`` by hand. ``builder
extend`` carries these fields into the variants it makes; ``builder export``
credits ``source_name`` in ATTRIBUTION.md and the card, with the citation.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .base import QUIET, Reporter, TaskResult

#: Files that make a folder a variant folder (split files).
SPLIT_SUFFIXES = (".tsv", ".jsonl", ".parquet")


@dataclass(frozen=True)
class DescribeOptions:
    """``builder describe``: the fields to declare (None: keep); none at all: show what the folder declares.

    ``citation`` (text) or ``citation_file`` (UTF-8), not both; ``license`` a registered id.
    """

    variant_dir: Path
    license: str | None = None
    source_name: str | None = None
    citation: str | None = None
    citation_file: Path | None = None


@dataclass
class DescribeResult(TaskResult):
    """``info``: the folder's :class:`schemas.variant.VariantInfo` (after the change); ``written``: the
    ``variant.json`` written, or None when only shown."""

    info: Any = None
    written: Path | None = None


def _variant_folder(path: Path) -> Path:
    from schemas.errors import SchemaError
    from schemas.io import require_path

    folder = require_path(path, what="variant folder", kind="dir")
    if not any(p.suffix in SPLIT_SUFFIXES for p in folder.iterdir() if p.is_file()):
        raise SchemaError("not a variant folder: no split file (.tsv, .jsonl or .parquet) in it; give the folder "
                          "that holds the split files, e.g. DIR/hin_Deva", file=folder)
    return folder


def _citation(text: str | None, path: Path | None) -> str | None:
    from schemas.errors import UsageError
    from schemas.io import read_text_utf8

    if text is not None and path is not None:
        raise UsageError("give --citation TEXT or --citation-file FILE, not both")
    if path is not None:
        text = read_text_utf8(path)
        if not text.strip():
            raise UsageError("the citation file is empty", file=path)
    if text is None:
        return None
    text = "\n".join(line.rstrip() for line in text.strip().splitlines())
    if not text:
        raise UsageError("expected a citation, found an empty text", field="--citation")
    return text


def _show(info) -> list[str]:
    citation = info.citation
    first = citation.splitlines()[0] if citation else None
    more = f" (+{len(citation.splitlines()) - 1} lines)" if citation and len(citation.splitlines()) > 1 else ""
    return [f"license: {info.license or '(not declared)'}"
            + (f"  [{info.license_from}]" if info.license and info.license_from else ""),
            f"source_name: {info.source_name or '(not declared)'}",
            f"citation: {first + more if first else '(not declared)'}"]


def run_describe(options: DescribeOptions, report: Reporter = QUIET) -> DescribeResult:
    """Write the given credit fields into VARIANT_DIR/variant.json; ``lines``: what the folder now declares."""
    from schemas.license_registry import get_license
    from schemas.variant import VARIANT_JSON, VariantInfo

    o = options
    folder = _variant_folder(o.variant_dir)
    info = VariantInfo.read(folder) or VariantInfo()
    text = _citation(o.citation, o.citation_file)
    if o.license is None and o.source_name is None and text is None:
        return DescribeResult(lines=_show(info), info=info)
    if o.license is not None:
        get_license(o.license, field="--license")
    new = info.declare(license=o.license, source_name=o.source_name, citation=text,
                       license_from="declared with builder describe" if o.license is not None else None)
    new.write(folder)
    return DescribeResult(lines=[f"wrote {folder / VARIANT_JSON}", *_show(new)], info=new,
                          written=folder / VARIANT_JSON)
