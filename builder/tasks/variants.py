"""The bodies of ``builder extend`` and ``builder romanize``: new language variants.

:func:`run_extend` projects annotated items onto a parallel translation
(topic items onto parallel files, one sentence per line; multiple-choice items
onto a translated TSV/JSONL) and checks it; :func:`run_romanize` writes a
Latin-script copy of a variant folder. Both write ``out/<variant>/`` with its
``variant.json``; the warnings of extend's checks are reported as they come
and kept in the result's ``warnings``.
"""
from __future__ import annotations

import contextlib

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from schemas.errors import UsageError

from .base import QUIET, Reporter, TaskResult


@dataclass(frozen=True)
class ExtendOptions:
    """``builder extend``: the English ``source``, the new ``variant`` code, and either ``parallel`` files
    (topic items) or ``translations`` (multiple-choice items). ``expected_lines``: one line count per
    parallel file [default FLORES-200]; ``config``: the checks YAML; ``license``: the new variant's
    license where the source declares none (:func:`builder.variants.credit.carried_credit`)."""

    source: Path
    variant: str
    out: Path
    parallel: tuple[Path, ...] = ()
    translations: Path | None = None
    expected_lines: tuple[int, ...] = ()
    config: Path | None = None
    license: str | None = None


@dataclass
class ExtendResult(TaskResult):
    """``out_dir``: the new variant folder; ``rows``: split -> rows; ``projection``: the
    :class:`builder.variants.project.ProjectionResult` (checks, credit)."""

    out_dir: Path | None = None
    rows: dict | None = None
    projection: Any = None


def run_extend(options: ExtendOptions, report: Reporter = QUIET) -> ExtendResult:
    """Project the source's items onto the translation -> OUT/<variant>/ (splits, labels.txt, variant.json)."""
    from builder.variants.checks import load_check_config

    o = options
    if bool(o.parallel) == bool(o.translations):
        raise UsageError("give either parallel files (topic items) or a translations file (multiple-choice "
                         "items), not both or neither")
    config = load_check_config(o.config).with_expected(tuple(o.expected_lines) if o.expected_lines else None)
    if o.translations:
        from builder.variants.project_mc import project_mc

        projection = project_mc(o.source, o.translations, o.variant, o.out, config=config, license=o.license)
    else:
        from builder.variants.project import project_topic

        projection = project_topic(o.source, list(o.parallel), o.variant, o.out, config=config, license=o.license)
    result = ExtendResult(out_dir=projection.out_dir, rows=dict(projection.rows), projection=projection)
    flagged = [r for r in projection.checks.results.values() if r.status == "warning"]
    warnings = [f"{r.name}: {r.count} flagged (see variant.json)" for r in flagged]
    if not o.translations and projection.credit is not None and projection.credit.source_name is None:
        # (multiple-choice items name their own source)
        warnings.append(f"{o.source} names no source to credit (no variant.json with source_name), so an export "
                        f"credits the folder name; declare it with: builder describe {projection.out_dir} "
                        "--source-name NAME --citation-file FILE")
    for warning in warnings:
        report.warn(warning)
    result.warnings.extend(warnings)
    rows = ", ".join(f"{s} {n}" for s, n in projection.rows.items())
    result.lines.append(f"wrote {projection.out_dir} ({rows}; {len(flagged)} warnings)")
    return result


@dataclass(frozen=True)
class RomanizeOptions:
    """``builder romanize``: the ``variant_dir`` to romanize, ``scheme`` [default: the script's first],
    ``allow_leftover`` native letters. ``license``: the new variant's license where the source folder
    declares none, recorded with ``license_from`` (e.g. ``release recipe``)."""

    variant_dir: Path
    out: Path
    scheme: str | None = None
    allow_leftover: bool = False
    license: str | None = None
    license_from: str | None = None


@dataclass
class RomanizeResult(TaskResult):
    """``out_dir``: the new variant folder; ``romanized``: the
    :class:`builder.variants.romanize.RomanizeResult` (rows, tool, scheme, its variant.json ``report``)."""

    out_dir: Path | None = None
    romanized: Any = None


def run_romanize(options: RomanizeOptions, report: Reporter = QUIET) -> RomanizeResult:
    """Write OUT/<lang>_Latn/ from a variant folder (hin_Deva -> hin_Latn)."""
    from builder.variants.romanize import romanize_variant

    o = options
    with contextlib.ExitStack() as stack:  # the rows are counted once the folder is read
        romanized = romanize_variant(o.variant_dir, o.out, scheme=o.scheme, allow_leftover=o.allow_leftover,
                                     license=o.license, license_from=o.license_from, info=report.info,
                                     progress=report.lazy_progress(stack, "romanize", "rows romanized", steps=4))
    return RomanizeResult(lines=[f"wrote {romanized.out_dir} ({romanized.summary()})"], out_dir=romanized.out_dir,
                          romanized=romanized)
