"""``builder licenses`` (license audit per split) and ``builder export``: click adapters over
:mod:`builder.tasks.export`."""
from __future__ import annotations

from pathlib import Path

import click

from schemas.license_terms import USES

from .common import AppContext, OutputFolder, backend_option, jobs_option, pass_app, source_name_option


@click.command()
@click.argument("directory", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list, one object per variant and split.")
@click.option("--intended-use", type=click.Choice(USES),
              help="Exit 1 when any split forbids this use or has an unresolved license conflict.")
@click.option("--license", "license_id", metavar="ID",
              help="License of variant folders without license information (e.g. CC-BY-SA-4.0).")
@source_name_option
@pass_app
def licenses(app: AppContext, directory: Path, as_json: bool, intended_use: str | None,
             license_id: str | None, source_name: str | None):
    """Audit the license terms of every split of DIRECTORY.

    Lists, per variant and split, the sources with record counts, the combined
    terms, commercial use, share-alike, attribution lines and conflicts.
    Exit codes (schemas.errors.GateStatus): 0 read (conflicts are reported,
    not failed), 1 with --intended-use when a split forbids that use or has an
    unresolved conflict, 2 when the input cannot be read.
    """
    from builder.tasks.export import LicensesOptions, run_licenses

    res = run_licenses(LicensesOptions(directory, as_json=as_json, intended_use=intended_use, license=license_id,
                                       source=source_name), app.reporter())
    app.show(res, keep_newlines=True)  # the audit is one block of lines (each line escaped, as any printed line)
    res.gate()


@click.command()
@click.argument("built", type=click.Path(path_type=Path))
@click.option("--out", required=True, type=OutputFolder(),
              help="Export folder (replaced as a whole, atomically; an existing one must be an earlier export).")
@click.option("--lm-eval", "lm_eval", is_flag=True, help="Also write lm-evaluation-harness task YAMLs to OUT/lm_eval.")
@click.option("--license", "license_id", metavar="ID",
              help="License of variant folders without license information (e.g. CC-BY-SA-4.0).")
@source_name_option
@click.option("--name", metavar="NAME",
              help="Dataset name, shown as given on the card; configs, the lm-eval group and task names use it "
                   "with every character other than letters, digits and _ made _ (sib200-full -> sib200_full), "
                   "which a line says [default: the input manifest.json's name or recipe, else the input folder's name].")
@click.option("--pretty-name", help="Display name for the card [default: --name as given].")
@click.option("--lm-eval-data-root", metavar="ROOT",
              help="Folder or hf:// root the lm-eval tasks read the Parquet files from (default: paths relative "
                   "to the task files, which work wherever OUT is moved).")
@click.option("--schema", type=click.Choice(["ours", "belebele", "sib200"]), default="ours", show_default=True,
              help="Column, split and config names: ours, or those of the published Hub dataset "
                   "(facebook/belebele, Davlan/sib200) so lm-eval's own tasks run on the export.")
@click.option("--hub-repo", metavar="ORG/NAME",
              help="Hub dataset the export will be published as: the lm-eval tasks read it from there "
                   "(dataset_path/dataset_name) and croissant.json links it.")
@jobs_option
@backend_option
@pass_app
def export(app: AppContext, built: Path, out: Path, lm_eval: bool, license_id: str | None, source_name: str | None,
           name: str | None, pretty_name: str | None, lm_eval_data_root: str | None, schema: str,
           hub_repo: str | None, jobs: int, backend: str, address: str | None):
    """Export BUILT as a Hugging Face dataset folder with card, Croissant metadata, licenses and manifest.

    One config per variant (OUT/<variant>/<split>.parquet), loadable with
    datasets.load_dataset(OUT, <variant>), typed (topic labels are a
    ClassLabel). An unknown or conflicting license stops the export unless the
    recipe's license_override states a reason.
    """
    from builder.tasks.export import ExportOptions, run_export

    res = run_export(ExportOptions(built, out, lm_eval=lm_eval, license=license_id, source=source_name, name=name,
                                   pretty_name=pretty_name, lm_eval_data_root=lm_eval_data_root, schema=schema,
                                   hub_repo=hub_repo, jobs=jobs, backend=backend, address=address), app.reporter())
    app.show(res)
