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

Two paths give the same records, ledger and counts: :func:`assemble` (what
``builder assemble`` runs) streams the records in batches through worker
processes and writes them as they come, with memory that does not grow with
the corpus (:mod:`builder.assemble_stream`); :func:`assemble_records` keeps
every record in lists, for tests and for callers that want the columns, and
:func:`write_assembly` writes such a result. Each checks the other in
``tests/assemble/test_assemble_streaming.py``.
"""
from __future__ import annotations

import csv
import io
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

from schemas.errors import RecipeError, ToolkitError
from schemas.splits import split_rank
from schemas.features import arrow_schema
from schemas.records import MC_COLUMNS
from schemas.runtime.provenance import library_versions

from .filters import FourOptions, Ledger, StepContext, get_filter
from .shuffle import shuffle_options
from schemas.io import (check_replaceable, dumps_json, sha256_file, staging_dir, write_jsonl_atomic,
                        write_parquet_atomic, write_text_atomic)
from .readers import get_reader
from .readers.base import BadRecord, RawMCItem
from .recipe import Recipe, SourceSpec

#: Belebele's training-set TSV columns, written first in ``<split>.tsv``.
TSV_COLUMNS = ("dataset", "split", "passage_id", "question_id", "passage", "question", "answer1", "answer2",
               "answer3", "answer4", "correct_answer", "correct_answer_num")
_FLAT = tuple(c for c in MC_COLUMNS if c != "provenance")


class InternalError(ToolkitError):
    """The assembly's own bookkeeping does not add up (a bug, not bad input)."""


@dataclass
class Count:
    source: str
    split: str
    read: int = 0
    kept: int = 0

    def dropped(self, ledger: Ledger) -> int:
        return ledger.dropped(self.source, self.split)


@dataclass
class Assembly:
    """What :func:`assemble_records` produced, before anything is written."""

    recipe: Recipe
    seed: int
    on_error: str
    columns: dict[str, dict[str, list]] = field(default_factory=dict)  # split -> column -> values
    counts: dict[tuple[str, str], Count] = field(default_factory=dict)
    ledger: Ledger = field(default_factory=Ledger)
    licenses: dict[str, str] = field(default_factory=dict)
    n_rows: dict[str, int] = field(default_factory=dict)  # rows per split of a streamed assembly (no columns)

    def rows(self, split: str) -> int:
        if split in self.columns:
            return len(self.columns[split]["question_id"])
        return self.n_rows[split]

    def check_counts(self) -> None:
        """Raise :class:`InternalError` unless read == kept + dropped everywhere."""
        for (source, split), c in self.counts.items():
            dropped = c.dropped(self.ledger)
            if c.read != c.kept + dropped:
                raise InternalError(f"internal error: {source}/{split} read {c.read} records but kept {c.kept} "
                                    f"and dropped {dropped}; nothing was written (please report this)")
        if len(self.ledger) != sum(c.dropped(self.ledger) for c in self.counts.values()):
            raise InternalError(f"internal error: the ledger holds {len(self.ledger)} drops but the sources "
                                "account for fewer; nothing was written (please report this)")
        for split in {**self.n_rows, **self.columns}:
            kept, rows = sum(c.kept for (_, s), c in self.counts.items() if s == split), self.rows(split)
            if kept != rows:
                raise InternalError(f"internal error: split {split} has {rows} rows but "
                                    f"the counts say {kept}; nothing was written (please report this)")


def output_splits(recipe: Recipe) -> list[str]:
    """Output split names in a stable order: train, dev, ..., then the rest as first named."""
    seen = list(dict.fromkeys(s for src in recipe.sources for s in src.splits.values()))
    return sorted(seen, key=lambda s: (split_rank(s), seen.index(s)))


def _reader(recipe: Recipe, index: int, spec: SourceSpec, on_error: str):
    cls = get_reader(spec.reader)
    try:
        return cls(spec.path, list(spec.splits), on_error=on_error, **dict(spec.options))
    except RecipeError as err:
        if err.file:
            raise
        key = f"sources[{index}]" + (f".{err.field}" if err.field else "")
        raise RecipeError(err.message, file=recipe.file, field=key) from None


def read_source(reader, wrap: Callable[[Iterable, int, str], Iterable] | None = None, label: str = ""
                ) -> Iterable[RawMCItem | BadRecord]:
    """All records of a reader, file by file, with an optional progress wrapper over the files."""
    files = reader.files()
    iterable = wrap(files, len(files), label) if wrap else files
    for split, path in iterable:
        yield from reader.parse_file(split, path)


def assemble_records(recipe: Recipe, *, on_error: str = "raise", seed: int | None = None,
                     wrap: Callable | None = None) -> Assembly:
    """Read, filter and shuffle every source of ``recipe``; write nothing.

    ``wrap(iterable, total, label)`` may wrap the per-file loop in a progress bar.
    """
    seed = recipe.seed if seed is None else seed
    result = Assembly(recipe=recipe, seed=seed, on_error=on_error)
    for split in output_splits(recipe):
        result.columns[split] = {c: [] for c in _FLAT}
        result.columns[split]["provenance"] = []
    for index, spec in enumerate(recipe.sources):
        reader = _reader(recipe, index, spec, on_error)
        license_ = spec.license or getattr(reader, "license", None) or reader.default_license
        result.licenses[spec.name] = license_
        buckets: dict[str, tuple[list, list]] = {native: ([], []) for native in spec.splits}
        for rec in read_source(reader, wrap, f"reading {spec.name}"):
            if rec.split not in buckets:
                raise InternalError(f"internal error: reader {spec.reader} yielded split {rec.split!r}, "
                                    f"asked for {', '.join(spec.splits)}")
            buckets[rec.split][isinstance(rec, BadRecord)].append(rec)
        steps = [get_filter(f.name, **dict(f.params)) for f in spec.filters] + [FourOptions()]
        for native, split in spec.splits.items():
            items, bads = buckets[native]
            count = result.counts.setdefault((spec.name, split), Count(spec.name, split))
            count.read += len(items) + len(bads)
            ctx = StepContext(spec.name, native, split, seed, result.ledger)
            items = filter_split(items, bads, steps, ctx)
            count.kept += len(items)
            _append(result.columns[split], spec, split, license_, recipe.language, items,
                    shuffle_options(items, ctx.rng("shuffle")))
    return result


def filter_split(items: list[RawMCItem], bads: list[BadRecord], steps: list, ctx: StepContext
                 ) -> list[RawMCItem]:
    """Route reader errors to the ledger, then run the steps in order; return the survivors.

    >>> from builder.filters import FourOptions, Ledger, get_filter
    >>> item = RawMCItem("race", "train", "p", "q", "Text.", "Tom is _ .", list("abcd"), [0], "1.txt", "#0")
    >>> bad = BadRecord("race", "train", "2.txt", "line 1", "malformed_json", "malformed JSON")
    >>> ctx = StepContext("RACE", "train", "train", 0, Ledger())
    >>> filter_split([item], [bad], [get_filter("fill_in_blank"), FourOptions()], ctx)
    []
    >>> sorted(r for (_, _, r) in ctx.ledger.counts)
    ['fill_in_blank', 'malformed_json']
    """
    for bad in bads:
        ctx.drop(bad, bad.reason, "reader", bad.message)
    for step in steps:
        items = step.run(items, ctx)
    return items


def _append(cols: dict[str, list], spec: SourceSpec, split: str, license_: str, language: str,
            items: list[RawMCItem], shuffled) -> None:
    n = len(items)
    cols["dataset"].extend([spec.name] * n)
    cols["split"].extend([split] * n)
    cols["language"].extend([language] * n)
    cols["license"].extend([license_] * n)
    for item, (answers, num) in zip(items, shuffled):
        cols["passage_id"].append(item.passage_id)
        cols["question_id"].append(item.question_id)
        cols["passage"].append(item.passage)
        cols["question"].append(item.question)
        for k in range(4):
            cols[f"answer{k + 1}"].append(answers[k])
        cols["correct_answer"].append(answers[num - 1])
        cols["correct_answer_num"].append(num)
        cols["provenance"].append({"corpus": item.corpus, "file": item.file, "record": item.record})


def _arrow_table(cols: dict[str, list]):
    import pyarrow as pa

    schema = arrow_schema("mc", required=True)
    return pa.Table.from_pydict({c: cols[c] for c in schema.names}, schema=schema)


def _tsv_text(cols: dict[str, list]) -> str:
    header = [*TSV_COLUMNS, "language", "license", "corpus", "file", "record"]
    buf = io.StringIO()
    writer = csv.writer(buf, delimiter="\t", quotechar='"', quoting=csv.QUOTE_MINIMAL, lineterminator="\n")
    writer.writerow(header)
    prov = cols["provenance"]
    flat = [cols[c] for c in (*TSV_COLUMNS, "language", "license")]
    for i in range(len(prov)):
        writer.writerow([col[i] for col in flat] + [prov[i]["corpus"], prov[i]["file"], prov[i]["record"]])
    return buf.getvalue()


def _jsonl_rows(cols: dict[str, list]):
    names = list(cols)
    for values in zip(*(cols[c] for c in names)):
        yield dict(zip(names, values))


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


def check_out_dir(out: Path) -> None:
    """Refuse to replace a folder that is not an earlier assembly (it would be deleted), or cannot be written."""
    check_replaceable(out, "manifest.json", "assemble")


def write_assembly(result: Assembly, out: str | Path) -> dict:
    """Check the counts, then write every output into ``out`` atomically; return the manifest."""
    out = Path(out)
    result.check_counts()
    with staging_dir(out, marker="manifest.json", what="assemble") as tmp:
        names = []
        for split, cols in result.columns.items():
            write_parquet_atomic(tmp / f"{split}.parquet", _arrow_table(cols))
            names.append(f"{split}.parquet")
            if "jsonl" in result.recipe.formats:
                write_jsonl_atomic(tmp / f"{split}.jsonl", _jsonl_rows(cols))
                names.append(f"{split}.jsonl")
            if "tsv" in result.recipe.formats:
                write_text_atomic(tmp / f"{split}.tsv", _tsv_text(cols))
                names.append(f"{split}.tsv")
        write_jsonl_atomic(tmp / "dropped.jsonl", (d.to_dict() for d in result.ledger.entries))
        names.append("dropped.jsonl")
        files = {name: sha256_file(tmp / name) for name in sorted(names)}
        man = manifest(result, files)
        write_text_atomic(tmp / "manifest.json", dumps_json(man))
    return man


def assemble(recipe: Recipe, out: str | Path, *, on_error: str = "raise", seed: int | None = None,
             wrap: Callable | None = None, jobs: int = 1) -> tuple[Assembly, dict]:
    """Assemble ``recipe`` into ``out``, streaming (:mod:`builder.assemble_stream`); return the counts and the manifest.

    The records go from the readers through the filters to the output files in
    batches, on ``jobs`` worker processes; the result holds the counts and the
    ledger's counts, not the rows (:func:`assemble_records` keeps those in memory).

    >>> from pathlib import Path
    >>> import tempfile
    >>> from builder.recipe import load_recipe
    >>> root = Path(__file__).parents[1]
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     result, man = assemble(load_recipe(root / "examples/belebele-train.yaml"), Path(tmp) / "o")
    >>> man["seed"], all(c["read"] == c["kept"] + c["dropped"] for c in man["counts"])
    (0, True)
    """
    from .assemble_stream import stream_assembly

    out = Path(out)
    check_out_dir(out)
    result = Assembly(recipe=recipe, seed=recipe.seed if seed is None else seed, on_error=on_error)
    with staging_dir(out, marker="manifest.json", what="assemble") as tmp:
        names = stream_assembly(result, tmp, jobs=jobs, wrap=wrap)
        man = manifest(result, hash_files(tmp, names))
        write_text_atomic(tmp / "manifest.json", dumps_json(man))
    return result, man


def hash_files(folder: Path, names) -> dict[str, str]:
    """``{name: sha256}`` of files in ``folder``, sorted by name, hashed on threads (hashlib releases the GIL)."""
    from concurrent.futures import ThreadPoolExecutor

    names = sorted(names)
    with ThreadPoolExecutor(max_workers=4) as pool:
        return dict(zip(names, pool.map(lambda name: sha256_file(folder / name), names)))
