"""The body of ``builder assemble RECIPE --out DIR``: build a training set from source corpora.

:func:`run_assemble` loads the recipe, runs the one streaming assembly
(:func:`builder.assemble.assemble`) into ``out`` and returns the manifest,
the per-source summary table the command prints, and the drops as
:class:`schemas.ledger.DropRow` rows (source, reason, count, split: the
manifest's ``dropped`` entries).
"""
from __future__ import annotations

import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from schemas.escape import for_terminal
from schemas.ledger import DropRow

from .base import QUIET, Reporter, TaskResult


@dataclass(frozen=True)
class AssembleOptions:
    """``builder assemble``: the recipe, the output folder, bad-record policy, seed (None: the recipe's), workers."""

    recipe: Path
    out: Path
    on_error: str = "raise"
    seed: int | None = None
    jobs: int = 1


@dataclass
class AssembleResult(TaskResult):
    """What the assembly wrote: ``manifest`` (as in ``manifest.json``) and ``result`` (the counts)."""

    manifest: dict[str, Any] = field(default_factory=dict)
    result: Any = None


def summary_table(manifest: dict, width: int = 100) -> str:
    """The per-source read/kept/dropped table of a manifest, as plain text."""
    from rich.console import Console
    from rich.table import Table

    from rich.markup import escape

    def cell(value) -> str:  # data as text: no rich markup ([bold]), no control character
        return escape(for_terminal(value))

    table = Table(title=cell(f"{manifest['recipe']} (seed {manifest['seed']})"), title_justify="left")
    for col, justify in (("source", "left"), ("split", "left"), ("read", "right"), ("kept", "right"),
                         ("dropped", "right"), ("drop reasons", "left")):
        table.add_column(col, justify=justify)
    reasons: dict[tuple[str, str], list[str]] = {}
    for d in manifest["dropped"]:
        reasons.setdefault((d["source"], d["split"]), []).append(f"{d['reason']} {d['count']}")
    for c in manifest["counts"]:
        table.add_row(cell(c["source"]), cell(c["split"]), str(c["read"]), str(c["kept"]), str(c["dropped"]),
                      cell(", ".join(reasons.get((c["source"], c["split"]), []))))
    total = {k: sum(c[k] for c in manifest["counts"]) for k in ("read", "kept", "dropped")}
    table.add_section()
    table.add_row("total", "", str(total["read"]), str(total["kept"]), str(total["dropped"]), "")
    buf = io.StringIO()
    Console(file=buf, width=width, force_terminal=False, color_system=None).print(table)
    return "\n".join(line.rstrip() for line in buf.getvalue().rstrip("\n").splitlines())


def _progress_wrap(report: Reporter):
    """A rich bar over each source's files, on a terminal only (nothing in logs and pipes)."""
    if report.quiet or not report.is_terminal():
        return None

    def wrap(iterable, total, label):
        from rich.markup import escape
        from rich.progress import track

        return track(iterable, total=total, description=escape(for_terminal(label)), transient=True)

    return wrap


def run_assemble(options: AssembleOptions, report: Reporter = QUIET) -> AssembleResult:
    """Assemble ``options.recipe`` into ``options.out``; the summary in ``lines``, the drops in ``drops``.

    >>> import tempfile
    >>> root = Path(__file__).parents[2]
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     done = run_assemble(AssembleOptions(root / "examples/belebele-train.yaml", Path(tmp) / "o"))
    >>> done.lines[-1].endswith("rows; 41 dropped (dropped.jsonl); manifest.json")
    True
    >>> sum(d.count for d in done.drops), done.drops[0].split
    (41, 'train')
    """
    from builder.assemble import assemble
    from builder.recipe import load_recipe

    recipe = load_recipe(options.recipe)
    result, manifest = assemble(recipe, options.out, on_error=options.on_error, seed=options.seed,
                                wrap=_progress_wrap(report), jobs=options.jobs)
    rows = ", ".join(f"{split} {n}" for split, n in manifest["splits"].items())
    lines = [*summary_table(manifest).split("\n"),
             f"wrote {options.out}: {rows} rows; {len(result.ledger)} dropped (dropped.jsonl); manifest.json"]
    drops = [DropRow(d["source"], d["reason"], d["count"], split=d["split"]) for d in manifest["dropped"]]
    return AssembleResult(lines=lines, drops=drops, manifest=manifest, result=result)
