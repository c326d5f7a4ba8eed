"""``builder describe``: declare the license, source and citation of a variant folder.

Writes the credit fields of ``variant.json`` (:data:`schemas.variant.CREDIT_FIELDS`)
through :class:`~schemas.variant.VariantInfo`, atomically, keeping every other
field as it was, so that nobody writes ``variant.json`` by hand. ``builder
extend`` carries these fields into the variants it makes; ``builder export``
credits ``source_name`` in ATTRIBUTION.md and the card, with the citation.
"""
from __future__ import annotations

from pathlib import Path

import click

from .common import AppContext, pass_app

#: Files that make a folder a variant folder (split files).
SPLIT_SUFFIXES = (".tsv", ".jsonl", ".parquet")


def _one_line(ctx, param, value):
    if value is None:
        return None
    value = value.strip()
    if not value or "\n" in value or "\r" in value:
        from schemas.errors import UsageError

        raise UsageError(f"expected one non-empty line, found {value!r}", field=param.opts[0])
    return value


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


def _show(info) -> str:
    citation = info.citation
    first = citation.splitlines()[0] if citation else None
    more = f" (+{len(citation.splitlines()) - 1} lines)" if citation and len(citation.splitlines()) > 1 else ""
    return "\n".join([f"license: {info.license or '(not declared)'}"
                      + (f"  [{info.license_from}]" if info.license and info.license_from else ""),
                      f"source_name: {info.source_name or '(not declared)'}",
                      f"citation: {first + more if first else '(not declared)'}"])


@click.command()
@click.argument("variant_dir", type=click.Path(path_type=Path))
@click.option("--license", "license_id", metavar="ID",
              help="License id of the variant's records, e.g. CC-BY-SA-4.0 (an unregistered id is refused with "
                   "the list of registered ones, as in export).")
@click.option("--source-name", metavar="NAME", callback=_one_line,
              help="The source to credit, e.g. SIB-200; export names it in ATTRIBUTION.md and the card.")
@click.option("--citation", metavar="TEXT", help="How to cite the source (one reference, plain text or BibTeX).")
@click.option("--citation-file", type=click.Path(path_type=Path), metavar="FILE",
              help="Read the citation from FILE (UTF-8, e.g. a .bib entry).")
@pass_app
def describe(app: AppContext, variant_dir: Path, license_id: str | None, source_name: str | None,
             citation: str | None, citation_file: Path | None):
    """Declare the license, source and citation of the variant folder VARIANT_DIR.

    Writes VARIANT_DIR/variant.json atomically, changing only the fields
    given; without options, prints what the folder declares. The license id
    is checked against the registry as `builder export` checks it. Derived
    variants (`builder extend`) carry these fields, so an export keeps the
    attribution CC BY-SA asks for.
    """
    from schemas.license_registry import get_license
    from schemas.variant import VARIANT_JSON, VariantInfo

    folder = _variant_folder(variant_dir)
    info = VariantInfo.read(folder) or VariantInfo()
    text = _citation(citation, citation_file)
    if license_id is None and source_name is None and text is None:
        click.echo(_show(info))
        return
    if license_id is not None:
        get_license(license_id, field="--license")
    new = info.declare(license=license_id, source_name=source_name, citation=text,
                       license_from="declared with builder describe" if license_id is not None else None)
    new.write(folder)
    click.echo(f"wrote {folder / VARIANT_JSON}\n{_show(new)}")
