"""``builder assemble RECIPE --out DIR``: build a training set from source corpora."""
from __future__ import annotations

import io
import sys
from pathlib import Path

import click

from .common import OutputFolder, jobs_option, on_error_option, pass_app


def _progress_wrap(quiet: bool):
    """A wrapper that shows a rich bar over a source's files, on a terminal only."""
    if quiet or not sys.stderr.isatty():
        return None

    def wrap(iterable, total, label):
        from rich.progress import track

        return track(iterable, total=total, description=label, transient=True)

    return wrap


def summary_table(result, manifest: dict, width: int = 100) -> str:
    """The per-source kept/dropped table as plain text."""
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"{manifest['recipe']} (seed {manifest['seed']})", title_justify="left")
    for col, justify in (("source", "left"), ("split", "left"), ("read", "right"), ("kept", "right"),
                         ("dropped", "right"), ("drop reasons", "left")):
        table.add_column(col, justify=justify)
    reasons: dict[tuple[str, str], list[str]] = {}
    for d in manifest["dropped"]:
        reasons.setdefault((d["source"], d["split"]), []).append(f"{d['reason']} {d['count']}")
    for c in manifest["counts"]:
        table.add_row(c["source"], c["split"], str(c["read"]), str(c["kept"]), str(c["dropped"]),
                      ", ".join(reasons.get((c["source"], c["split"]), [])))
    total = {k: sum(c[k] for c in manifest["counts"]) for k in ("read", "kept", "dropped")}
    table.add_section()
    table.add_row("total", "", str(total["read"]), str(total["kept"]), str(total["dropped"]), "")
    buf = io.StringIO()
    Console(file=buf, width=width, force_terminal=False, color_system=None).print(table)
    return "\n".join(line.rstrip() for line in buf.getvalue().rstrip("\n").splitlines())


@click.command("assemble")
@click.argument("recipe", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--out", "out", required=True, type=OutputFolder(),
              help="Output folder; replaced as a whole (an existing folder must be an earlier assemble output).")
@on_error_option
@click.option("--seed", type=click.IntRange(min=0), default=None,
              help="Seed for option sampling and the answer shuffle (default: the recipe's, else 0).")
@jobs_option
@pass_app
def assemble(app, recipe, out, on_error, seed, jobs):
    """Assemble a training set from source corpora as RECIPE (YAML) says.

    Writes OUT/<split>.parquet (plus .jsonl/.tsv if the recipe asks),
    OUT/dropped.jsonl (one line per dropped record with its reason) and
    OUT/manifest.json (seed, counts per source/split/reason, sha256 of each
    file, versions). Records stream through the filters in batches, read on
    --jobs worker processes; the output does not depend on their number.
    Exit codes: 0 success, 1 bad input, 2 usage error.
    """
    from builder.assemble import assemble as run
    from builder.recipe import load_recipe

    spec = load_recipe(recipe)
    result, manifest = run(spec, out, on_error=on_error, seed=seed, wrap=_progress_wrap(app.quiet), jobs=jobs)
    click.echo(summary_table(result, manifest))
    rows = ", ".join(f"{split} {n}" for split, n in manifest["splits"].items())
    click.echo(f"wrote {out}: {rows} rows; {len(result.ledger)} dropped (dropped.jsonl); manifest.json")
