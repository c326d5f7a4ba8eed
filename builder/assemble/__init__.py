"""Assemble a training set from source corpora, as a recipe says.

Per source: the reader yields raw records of the native splits the recipe
takes; reader errors (under ``--on-error skip``) and every filter's drops go
to the ledger with their reason; :class:`builder.filters.FourOptions` checks
the Belebele shape; the options are shuffled with a generator seeded from
(seed, source, split); the survivors become :class:`schemas.records.MCItem`
rows of the output split. Before anything is written, ``read == kept +
dropped`` is checked for every source and split. The output folder is
written in a staging folder and moved into place in one step, and the same
inputs, recipe and seed give byte-identical files (no timestamps).

Outputs in ``out``: ``<split>.parquet`` (and ``.jsonl`` / ``.tsv`` when the
recipe asks), ``dropped.jsonl`` (the ledger) and ``manifest.json``.

One path: :func:`assemble` (what ``builder assemble`` and the release run)
streams the records in batches from the readers through the filters
(:mod:`builder.filters.runner`) on worker processes and writes them as they
come, with memory that does not grow with the corpus. The package's modules:

* :mod:`builder.assemble.stream` -- the plan of tasks, the workers' part and this process's part;
* :mod:`builder.assemble.shuffle` -- the seeded answer shuffle;
* :mod:`builder.assemble.output` -- the output files, written a batch at a time;
* this module -- the counts, the manifest and the output folder.
"""
from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Callable

from schemas.io import dumps_json, staging_dir, write_text_atomic
from schemas.runtime.provenance import library_versions

from ..recipe import Recipe
from .counts import Assembly, Count, InternalError, output_splits
from .stream import stream_assembly

#: The libraries whose versions shape an assembly's bytes (recorded in its manifest).
_OUTPUT_LIBRARIES = (("numpy", "numpy"), ("pyarrow", "pyarrow"), ("PyYAML", "pyyaml"), ("regex", "regex"))


def versions() -> dict[str, str]:
    """Versions of the toolkit, Python and the libraries that shape the output bytes."""
    return library_versions(_OUTPUT_LIBRARIES)


def manifest(result: Assembly, files: dict[str, str]) -> dict:
    """The manifest of an assembly (``files``: output name -> sha256)."""
    recipe, ledger = result.recipe, result.ledger
    order = {s.name: i for i, s in enumerate(recipe.sources)}
    splits = output_splits(recipe)
    counts = [{"source": c.source, "split": c.split, "read": c.read, "kept": c.kept,
               "dropped": c.dropped(ledger)} for c in result.counts.values()]
    dropped = [{"source": s, "split": sp, "reason": r, "count": n} for (s, sp, r), n in ledger.counts.items()]
    dropped.sort(key=lambda d: (order[d["source"]], splits.index(d["split"]), d["reason"]))
    by_reason = Counter()
    for d in dropped:
        by_reason[d["reason"]] += d["count"]
    return {
        "recipe": recipe.name,
        "seed": result.seed,
        "on_error": result.on_error,
        "language": recipe.language,
        "max_sentences": recipe.max_sentences,
        "splits": {s: result.rows(s) for s in splits},
        "counts": counts,
        "dropped": dropped,
        "dropped_by_reason": dict(sorted(by_reason.items())),
        "files": files,
        "versions": versions(),
        "sources": [{**s.to_dict(), "license": result.licenses[s.name]} for s in recipe.sources],
        "license_override": recipe.license_override.to_dict() if recipe.license_override else None,
    }


def assemble(recipe: Recipe, out: str | Path, *, on_error: str = "raise", seed: int | None = None,
             wrap: Callable | None = None, jobs: int = 1) -> tuple[Assembly, dict]:
    """Assemble ``recipe`` into ``out``, streaming (:mod:`builder.assemble.stream`); return the counts and the manifest.

    The records go from the readers through the filters to the output files in
    batches, on ``jobs`` worker processes; the result holds the counts and the
    ledger's counts, not the rows. ``wrap(iterable, total, label)`` may wrap
    each source's files in a progress bar.

    >>> from pathlib import Path
    >>> import tempfile
    >>> from builder.recipe import load_recipe
    >>> root = Path(__file__).parents[2]
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     result, man = assemble(load_recipe(root / "examples/belebele-train.yaml"), Path(tmp) / "o")
    >>> man["seed"], all(c["read"] == c["kept"] + c["dropped"] for c in man["counts"])
    (0, True)
    """
    out = Path(out)
    result = Assembly(recipe=recipe, seed=recipe.seed if seed is None else seed, on_error=on_error)
    with staging_dir(out, marker="manifest.json", what="assemble") as tmp:
        man = manifest(result, stream_assembly(result, tmp, jobs=jobs, wrap=wrap))
        write_text_atomic(tmp / "manifest.json", dumps_json(man))
    return result, man


__all__ = ["Assembly", "Count", "InternalError", "assemble", "manifest", "output_splits", "versions"]
