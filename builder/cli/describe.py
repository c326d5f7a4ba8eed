"""``builder describe``: declare the license, source and citation of a variant folder.

Writes the credit fields of ``variant.json`` (:data:`schemas.variant.CREDIT_FIELDS`)
through :class:`~schemas.variant.VariantInfo`, atomically, keeping every other
field as it was, so that nobody writes ``variant.json`` by hand. ``builder
extend`` carries these fields into the variants it makes; ``builder export``
credits ``source_name`` in ATTRIBUTION.md and the card, with the citation.
The body is :func:`builder.tasks.describe.run_describe`.
"""
from __future__ import annotations

from pathlib import Path

import click

from .common import AppContext, pass_app


def _one_line(ctx, param, value):
    if value is None:
        return None
    value = value.strip()
    if not value or "\n" in value or "\r" in value:
        from schemas.errors import UsageError

        raise UsageError(f"expected one non-empty line, found {value!r}", field=param.opts[0])
    return value


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
    from builder.tasks.describe import DescribeOptions, run_describe

    result = run_describe(DescribeOptions(variant_dir, license=license_id, source_name=source_name, citation=citation,
                                          citation_file=citation_file), app.reporter())
    app.show(result)
