"""``builder extend`` and ``builder romanize``: new language variants (bodies: :mod:`builder.tasks.variants`)."""
from __future__ import annotations

from pathlib import Path

import click

from .common import OutputFolder, pass_app


@click.command("extend")
@click.option("--source", required=True, type=click.Path(path_type=Path),
              help="Folder with the English annotation: train/dev/test.tsv (+ labels.txt), or, with "
                   "--translations, a multiple-choice dataset folder.")
@click.option("--parallel", multiple=True, type=click.Path(path_type=Path), metavar="FILE",
              help="A parallel file, one sentence per line; repeat it for several files, concatenated in the "
                   "order given (FLORES: --parallel xxx.dev --parallel xxx.devtest).")
@click.option("--translations", type=click.Path(path_type=Path),
              help="Multiple-choice items: a translated TSV/JSONL with question_id, passage, question, answer1-4.")
@click.option("--variant", required=True,
              help="Code of the new variant, e.g. nqo_Nkoo: a FLORES-200 code, or an ISO 639-3 language + '_' + "
                   "an ISO 15924 script (a wrong code stops with the nearest valid ones, exit 2).")
@click.option("--out", required=True, type=OutputFolder(inside=True), help="Output folder; writes OUT/<variant>/.")
@click.option("--expected-lines", multiple=True, type=click.IntRange(min=1), metavar="N",
              help="Expected line count of a parallel file; repeat it once per --parallel, in the same order "
                   "(default FLORES-200: 997 and 1012).")
@click.option("--config", "config_path", type=click.Path(path_type=Path),
              help="Checks YAML: severities (error/warning/off) and thresholds.")
@click.option("--license", "license_id", metavar="ID",
              help="License of the new variant [default: the source's variant.json license (multiple-choice items: "
                   "each item's own), else CC-BY-SA-4.0, the license of FLORES-200 and SIB-200].")
@pass_app
def extend(app, source, parallel, translations, variant, out, expected_lines, config_path, license_id):
    """Project annotated items onto a parallel translation and check it.

    Topic items take line index_id of the concatenated parallel files;
    multiple-choice items take the translated fields of their question_id.
    A misaligned or wrong-script file stops with one error line naming the
    file and the first misaligned line; odd lines are reported in
    OUT/<variant>/variant.json. The new variant.json carries the source's
    source name, citation and license (set them with `builder describe`).
    """
    from builder.tasks.variants import ExtendOptions, run_extend
    from schemas.scripts import check_new_variant
    from schemas.errors import SchemaError, UsageError

    try:
        check_new_variant(variant, field="--variant")
    except SchemaError as err:  # a wrong argument, not bad input: exit 2
        raise UsageError(err.message, field=err.field) from err
    if bool(parallel) == bool(translations):
        raise click.UsageError("give either --parallel FILE (repeatable; topic items) or --translations FILE "
                               "(multiple-choice items)")
    result = run_extend(ExtendOptions(source, variant, out, parallel=tuple(parallel), translations=translations,
                                      expected_lines=tuple(expected_lines), config=config_path, license=license_id),
                        app.reporter())
    app.show(result)


@click.command("romanize")
@click.argument("variant_dir", type=click.Path(path_type=Path))
@click.option("--out", required=True, type=OutputFolder(inside=True), help="Output folder; writes OUT/xxx_Latn/.")
@click.option("--scheme", default=None,
              help="Brahmic scripts: iso (ISO 15919, default), iast, hk, itrans. Tibetan, Urdu: uroman.")
@click.option("--allow-leftover", is_flag=True, help="Write the variant even if native-script letters remain.")
@pass_app
def romanize(app, variant_dir, out, scheme, allow_leftover):
    """Write a Latin-script copy of a variant folder (hin_Deva -> hin_Latn).

    Brahmic scripts go through indic-transliteration (default ISO 15919),
    Tibetan and Urdu through uroman; dandas become ".". The new folder's
    variant.json names tool, version and scheme, counts native letters left
    (must be 0 unless --allow-leftover) and the punctuation mapped.
    """
    from builder.tasks.variants import RomanizeOptions, run_romanize

    result = run_romanize(RomanizeOptions(variant_dir, out, scheme=scheme, allow_leftover=allow_leftover),
                          app.reporter())
    app.show(result)
