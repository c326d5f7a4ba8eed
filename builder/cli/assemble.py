"""``builder assemble RECIPE --out DIR``: build a training set from source corpora."""
from __future__ import annotations

from pathlib import Path

import click

from .common import OutputFolder, jobs_option, on_error_option, pass_app


@click.command("assemble")
@click.argument("recipe", type=click.Path(path_type=Path))
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
    from builder.tasks.assemble import AssembleOptions, run_assemble

    done = run_assemble(AssembleOptions(recipe=recipe, out=out, on_error=on_error, seed=seed, jobs=jobs),
                        app.reporter())
    app.echo_lines(done.lines)
