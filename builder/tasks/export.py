"""``builder export`` and ``builder licenses`` as tasks (the convention of :mod:`builder.tasks`).

:func:`run_export` runs the export's steps (:mod:`builder.export.writer`: read,
resolve licenses, write variants, card, Croissant, lm-eval, manifest);
:func:`run_licenses` audits the license terms of every split
(:func:`builder.export.audit.audit_dataset`) and renders them as text or JSON,
with the ``--intended-use`` verdict in the result: the CLI raises
:class:`~schemas.errors.GateFailed` from it, the release records it.
"""
from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

from builder.export.audit import Audit, audit_dataset
from builder.export.writer import read_input, write_export
from schemas.escape import for_terminal
from schemas.errors import GateFailed, GateInputError, ToolkitError
from schemas.io import dumps_json
from schemas.license_terms import USES

from .base import QUIET, Reporter, TaskResult


@dataclass(frozen=True)
class ExportOptions:
    """What ``builder export`` takes.

    Attributes
    ----------
    built : Path
        An assembled set, a folder of variant folders, or an earlier export.
    out : Path
        The export folder; replaced atomically as a whole.
    lm_eval : bool
        Also write lm-evaluation-harness task YAMLs under ``out/lm_eval``.
    license : str, optional
        License of variant folders that carry no license information (a fallback,
        :mod:`schemas.licensing`).
    source : str, optional
        Source name of records that name none (default: the input folder's name).
    name, pretty_name : str, optional
        Config-safe name (task prefix) and display name; default: the manifest's
        ``name`` or the input folder's name.
    lm_eval_data_root : str, optional
        Folder (or ``hf://`` root) the task YAMLs point at; default: paths relative
        to the task files, which work wherever ``out`` is moved.
    schema : {"ours", "belebele", "sib200"}
        Column, split and config names: ours or the published Hub dataset's
        (:mod:`builder.export.published`).
    hub_repo : str, optional
        ``ORG/NAME`` the export will be published as: the tasks read it from the Hub
        (``dataset_path``/``dataset_name``), ``croissant.json`` links it.
    card_reports : mapping, optional
        The parsed reports for the card by kind (``agreement``, ``qc``, ``baselines``), instead
        of the ``agreement.json`` and ``qc_report.json`` beside the data (``builder release``).
    gate_failing_allowed : bool
        The qc gate failed and the release was exported anyway; the card says so.
    jobs, backend, address
        Where the variants' Parquet files are made (:func:`schemas.runtime.fanout.fan_out`);
        the bytes do not depend on it.
    """

    built: Path
    out: Path
    lm_eval: bool = False
    license: str | None = None
    source: str | None = None
    name: str | None = None
    pretty_name: str | None = None
    lm_eval_data_root: str | None = None
    schema: str = "ours"
    hub_repo: str | None = None
    card_reports: Mapping | None = None
    gate_failing_allowed: bool = False
    jobs: int = 1
    backend: str = "local"
    address: str | None = None


@dataclass
class ExportResult(TaskResult):
    """What an export wrote: its folder, variants, files (path -> rows, bytes, sha256), terms, lm-eval tasks."""

    out: Path = Path()
    variants: list[str] = field(default_factory=list)
    files: dict[str, dict] = field(default_factory=dict)
    terms: str = ""
    lm_eval_tasks: list[str] = field(default_factory=list)


def run_export(options: ExportOptions, report: Reporter = QUIET) -> ExportResult:
    """Export ``options.built`` to ``options.out``; progress per variant goes to ``report``.

    Bad input, a refused output and an unresolved license conflict raise the error family.
    """
    o = options
    source = read_input(o.built, o.out, license_id=o.license, source=o.source, name=o.name,
                        pretty_name=o.pretty_name, schema=o.schema, hub_repo=o.hub_repo,
                        lm_eval_data_root=o.lm_eval_data_root,
                        card_reports=None if o.card_reports is None else dict(o.card_reports))
    warnings = []
    if source.given_name != source.name:  # said, not silently rewritten (docs/export.md, --name)
        report.info(f"export: name {source.given_name!r} is shown as given on the card; configs, the lm-eval "
                    f"group and task names use {source.name!r} (letters, digits and _ only)")
    notice = license_notice(source, o.license)
    if notice:
        report.warn(notice)
        warnings.append(notice)
    with contextlib.ExitStack() as stack:
        files, tasks = write_export(source, o.out, lm_eval=o.lm_eval, lm_eval_data_root=o.lm_eval_data_root,
                                    gate_failing_allowed=o.gate_failing_allowed, jobs=o.jobs, backend=o.backend,
                                    address=o.address,
                                    progress=report.lazy_progress(stack, "export", "variants written"))
    out, variants, terms = Path(o.out), source.dataset.variants, source.audit.overall.terms
    counted = f", {len(tasks)} lm-eval task(s)" if o.lm_eval else ""
    line = f"exported {len(variants)} variant(s), {len(files)} file(s){counted} to {out} (terms: {terms})"
    return ExportResult(lines=[line], warnings=warnings, out=out, variants=variants, files=files, terms=terms,
                        lm_eval_tasks=tasks)


def _override_file(ds) -> Path | None:
    """Where the written override of a loaded folder is: its ``manifest.json``, else the first ``variant.json``."""
    if isinstance(ds.manifest, dict) and ds.manifest.get("license_override"):
        return Path(ds.root) / "manifest.json"
    for variant in ds.variants:
        info = ds.variant_info(variant)
        if info is not None and info.license_override is not None:
            return ds.variant_dir(variant) / "variant.json"
    return None


def license_notice(source, fallback: str | None) -> str | None:
    """The one warning an export owes when it goes ahead on license terms that are not known.

    Unknown licenses that the written override accepts (named with the file that holds it), and a
    ``--license`` fallback standing in for a declared license, both let the export pass; the notice
    says so, and gives the verdict of qc's ``license`` check on the same data (:func:`qc.license.split_license`,
    which takes no fallback): a release gate that fails what the export accepted is said here, not
    found later. None when there is nothing to say.
    """
    from qc.license import split_license
    from schemas.licensing import license_contexts

    audit, ds = source.audit, source.dataset
    unknown = sorted({share.name for s in audit.splits for c in s.terms.conflicts if c.overridden
                      for share in s.terms.sources if share.license == "unknown"})
    if not unknown and not fallback:  # then qc resolves exactly as the audit did, which passed
        return None
    contexts = license_contexts(ds, infos=audit.variant_info)  # qc's: no fallback
    failing = [f"{variant}/{split}: {reason}" for variant, ctx in contexts.items() for split in ds.splits(variant)
               for reason in [split_license(ds.tables[variant][split], ctx, split)[0]] if reason is not None]
    if not unknown and not failing:
        return None
    parts = []
    if unknown:
        parts.append(f"the license of {', '.join(unknown)} is unknown and exported only because of the written "
                     f"license_override in {_override_file(ds)}")
    if failing:
        fell = f" (it takes no fallback such as --license {fallback})" if fallback else ""
        parts.append(f"qc's license check fails {len(failing)} split(s){fell}, first {failing[0]}: the release "
                     "gate will stop")
    else:
        parts.append("qc's license check passes it only through the same override")
    return "; ".join(parts) + "; confirm the terms before a release"


@dataclass(frozen=True)
class LicensesOptions:
    """What ``builder licenses`` takes: the folder, ``as_json`` (a JSON list instead of text blocks),
    ``intended_use`` (``commercial`` or ``research``: the verdict to give), ``license`` (the fallback of
    folders without license information) and ``source`` (the name of records that name none)."""

    directory: Path
    as_json: bool = False
    intended_use: str | None = None
    license: str | None = None
    source: str | None = None


@dataclass
class LicensesResult(TaskResult):
    """The audit, its rows (what ``--json`` prints), the rendered ``text`` (JSON text ends with its
    newline; ``lines`` hold it as the command prints it) and, with an ``intended_use``, the splits that
    do not allow it (``failing``); ``notes`` say that every split allows it, when they do."""

    audit: Audit | None = None
    rows: list[dict] = field(default_factory=list)
    text: str = ""
    intended_use: str | None = None
    failing: list[str] = field(default_factory=list)

    @property
    def allowed(self) -> bool:
        """Whether every split allows the intended use (True without one)."""
        return not self.failing

    def gate(self) -> None:
        """The ``--intended-use`` verdict: :class:`GateFailed` (exit 1) naming up to five splits that do not
        allow the use; nothing when every split allows it (or no use was asked about)."""
        if self.failing:
            names = ", ".join(self.failing[:5])
            more = f" and {len(self.failing) - 5} more" if len(self.failing) > 5 else ""
            raise GateFailed(f"{len(self.failing)} of {len(self.rows)} split(s) do not allow {self.intended_use} "
                             f"use: {names}{more}")


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


def render_text(rows: list[dict]) -> str:
    """The text blocks of ``builder licenses``: one per variant and split; every value from the data on
    its own line (:func:`~schemas.escape.for_terminal`: a line break in a source name cannot start a line)."""
    t = for_terminal
    out = []
    for r in rows:
        out.append(f"{t(r['variant'])}/{t(r['split'])}: {r['records']:,} records")
        out.append(f"  terms: {t(r['terms'])}")
        out.append(f"  commercial use: {_yes(r['commercial_use'])}   share-alike: {_yes(r['share_alike'])}   "
                   f"research only: {_yes(r['research_only'])}")
        names = [t(s["name"]) for s in r["sources"]]
        licenses = [t(s["license"]) for s in r["sources"]]
        width = max(map(len, names), default=0)
        lwidth = max(map(len, licenses), default=0)
        out.append("  sources:")
        out += [f"    {name:<{width}}  {lic:<{lwidth}}  {s['records']:>8,}"
                for name, lic, s in zip(names, licenses, r["sources"])]
        if r["attribution"]:
            out.append("  attribution:")
            out += [f"    {t(line)}" for line in r["attribution"]]
        if r["conflicts"]:
            out.append("  conflicts:")
            out += [f"    - {t(c['reason'])}{' (overridden)' if c['overridden'] else ' (UNRESOLVED)'}"
                    for c in r["conflicts"]]
        if r["override"]:
            out.append(f"  override: {t(r['override']['reason'])}")
    return "\n".join(out)


def run_licenses(options: LicensesOptions, report: Reporter = QUIET) -> LicensesResult:
    """Audit every split of ``options.directory``; with an intended use, the verdict in the result.

    An input that cannot be read raises :class:`~schemas.errors.GateInputError` (exit 2, the read
    error's message and location); the caller prints the result, then :meth:`LicensesResult.gate`
    raises :class:`GateFailed` (exit 1) when a split does not allow the intended use.
    """
    o = options
    try:
        audit = audit_dataset(o.directory, license_id=o.license, source=o.source)
    except ToolkitError as err:  # the gate cannot look: exit 2, same message and location
        raise GateInputError.from_error(err) from err
    rows = [s.to_dict() for s in audit.splits]
    text = dumps_json(rows) if o.as_json else render_text(rows)
    failing, notes = [], []
    if o.intended_use is not None:
        failing = [f"{s.variant}/{s.split}" for s in audit.splits if not s.terms.allows(o.intended_use)]
        if not failing:
            notes = [f"all {len(rows)} split(s) allow {o.intended_use} use"]
    return LicensesResult(lines=[text.removesuffix("\n") if o.as_json else text], notes=notes, audit=audit,
                          rows=rows, text=text, intended_use=o.intended_use, failing=failing)


__all__ = ["ExportOptions", "ExportResult", "LicensesOptions", "LicensesResult", "USES", "render_text",
           "run_export", "run_licenses"]
