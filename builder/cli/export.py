"""``builder licenses`` (license audit per split) and ``builder export``."""
from __future__ import annotations

import contextlib
from pathlib import Path

import click

from schemas.errors import GateFailed, GateInputError, ToolkitError

from .common import AppContext, OutputFolder, backend_option, jobs_option, pass_app, stage_progress

USES = ("commercial", "research")


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


def _render_text(rows: list[dict]) -> str:
    out = []
    for r in rows:
        out.append(f"{r['variant']}/{r['split']}: {r['records']:,} records")
        out.append(f"  terms: {r['terms']}")
        out.append(f"  commercial use: {_yes(r['commercial_use'])}   share-alike: {_yes(r['share_alike'])}   "
                   f"research only: {_yes(r['research_only'])}")
        width = max((len(s["name"]) for s in r["sources"]), default=0)
        lwidth = max((len(s["license"]) for s in r["sources"]), default=0)
        out.append("  sources:")
        out += [f"    {s['name']:<{width}}  {s['license']:<{lwidth}}  {s['records']:>8,}" for s in r["sources"]]
        if r["attribution"]:
            out.append("  attribution:")
            out += [f"    {line}" for line in r["attribution"]]
        if r["conflicts"]:
            out.append("  conflicts:")
            out += [f"    - {c['reason']}{' (overridden)' if c['overridden'] else ' (UNRESOLVED)'}"
                    for c in r["conflicts"]]
        if r["override"]:
            out.append(f"  override: {r['override']['reason']}")
    return "\n".join(out)


@click.command()
@click.argument("directory", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list, one object per variant and split.")
@click.option("--intended-use", type=click.Choice(USES),
              help="Exit 1 when any split forbids this use or has an unresolved license conflict.")
@click.option("--license", "license_id", metavar="ID",
              help="License of variant folders without license information (e.g. CC-BY-SA-4.0).")
@click.option("--source", metavar="NAME", help="Source name of records that name none (default: the folder name).")
@pass_app
def licenses(app: AppContext, directory: Path, as_json: bool, intended_use: str | None,
             license_id: str | None, source: str | None):
    """Audit the license terms of every split of DIRECTORY.

    Lists, per variant and split, the sources with record counts, the combined
    terms, commercial use, share-alike, attribution lines and conflicts.
    Exit codes (schemas.errors.GateStatus): 0 read (conflicts are reported,
    not failed), 1 with --intended-use when a split forbids that use or has an
    unresolved conflict, 2 when the input cannot be read.
    """
    from builder.export.audit import audit_dataset
    from schemas.io import dumps_json

    try:
        audit = audit_dataset(directory, license_id=license_id, source=source)
    except ToolkitError as err:  # the gate cannot look: exit 2, same message and location
        raise GateInputError.from_error(err) from err
    rows = [s.to_dict() for s in audit.splits]
    click.echo(dumps_json(rows) if as_json else _render_text(rows), nl=not as_json)
    if intended_use:
        failing = [s for s in audit.splits if not s.terms.allows(intended_use)]
        if failing:
            names = ", ".join(f"{s.variant}/{s.split}" for s in failing[:5])
            more = f" and {len(failing) - 5} more" if len(failing) > 5 else ""
            raise GateFailed(f"{len(failing)} of {len(rows)} split(s) do not allow {intended_use} use: {names}{more}")
        app.info(f"all {len(rows)} split(s) allow {intended_use} use")


def _progress(app: AppContext, stack: contextlib.ExitStack):
    """The export's ``progress(variant, done, total)``: :func:`stage_progress`, opened at the first call
    (the number of variants is known once the dataset is read)."""
    state: dict = {}

    def report(label, done, total):
        if "cb" not in state:
            state["cb"] = stack.enter_context(stage_progress(app, "export", total, "variants written"))
        if state["cb"] is not None:
            state["cb"](label, done, total)
    return report


@click.command()
@click.argument("built", type=click.Path(path_type=Path))
@click.option("--out", required=True, type=OutputFolder(),
              help="Export folder (replaced as a whole, atomically; an existing one must be an earlier export).")
@click.option("--lm-eval", "lm_eval", is_flag=True, help="Also write lm-evaluation-harness task YAMLs to OUT/lm_eval.")
@click.option("--license", "license_id", metavar="ID",
              help="License of variant folders without license information (e.g. CC-BY-SA-4.0).")
@click.option("--source", metavar="NAME", help="Source name of records that name none (default: the folder name).")
@click.option("--name", help="Config-safe dataset name, also the lm-eval group (default: the folder name).")
@click.option("--pretty-name", help="Display name for the card (default: --name).")
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
def export(app: AppContext, built: Path, out: Path, lm_eval: bool, license_id: str | None, source: str | None,
           name: str | None, pretty_name: str | None, lm_eval_data_root: str | None, schema: str,
           hub_repo: str | None, jobs: int, backend: str, address: str | None):
    """Export BUILT as a Hugging Face dataset folder with card, Croissant metadata, licenses and manifest.

    One config per variant (OUT/<variant>/<split>.parquet), loadable with
    datasets.load_dataset(OUT, <variant>), typed (topic labels are a
    ClassLabel). An unknown or conflicting license stops the export unless the
    recipe's license_override states a reason.
    """
    from builder.export.writer import export_dataset

    with contextlib.ExitStack() as stack:
        res = export_dataset(built, out, lm_eval=lm_eval, license_id=license_id, source=source, name=name,
                             pretty_name=pretty_name, lm_eval_data_root=lm_eval_data_root, schema=schema,
                             hub_repo=hub_repo, jobs=jobs, backend=backend, address=address,
                             progress=_progress(app, stack))
    tasks = f", {len(res.lm_eval_tasks)} lm-eval task(s)" if lm_eval else ""
    click.echo(f"exported {len(res.variants)} variant(s), {len(res.files)} file(s){tasks} to {res.out} "
               f"(terms: {res.terms})")
