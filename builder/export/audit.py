"""License audit of a built dataset folder: the terms of every variant and split.

Each split's license is resolved by :mod:`schemas.licensing`, the one rule the
qc gate's ``license`` check and the export use too: the ``license`` column,
else ``license`` in the variant folder's ``variant.json``, else ``--license
ID`` (a fallback: it never replaces what a folder declares), else a
:class:`LicenseError`; then the written override (``license_override`` in
``manifest.json`` or a ``variant.json``) marks the conflicts it covers.
Source names come from the ``dataset`` column, else ``provenance.corpus``,
else ``source_name`` in ``variant.json`` (its ``source`` key is the input path
that ``builder extend``/``romanize`` record), else ``--source``, else the
folder name.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from schemas.dataset import LoadedDataset, load_dataset_dir
from schemas.errors import LicenseError
from schemas.license_terms import Terms, combine_many
from schemas.licensing import LicenseOverride, license_contexts, variant_infos
from schemas.variant import VariantInfo


@dataclass
class SplitAudit:
    """The terms of one split of one variant; ``declared``: the one license id of its records when the
    split has no license column (:attr:`schemas.licensing.SplitLicense.declared`)."""

    variant: str
    split: str
    rows: int
    terms: Terms
    declared: str | None = None

    def to_dict(self) -> dict:
        """The shape ``builder licenses --json`` prints (one list element)."""
        d = {"variant": self.variant, "split": self.split, "records": self.rows}
        d.update(self.terms.to_dict())
        return d


@dataclass
class Audit:
    """All split audits of one dataset folder, plus what the card needs about it."""

    dataset: LoadedDataset
    splits: list[SplitAudit]
    override: LicenseOverride | None
    variant_info: dict[str, VariantInfo] = field(default_factory=dict)
    #: variant -> the name credited to its records that name no source (:meth:`LicenseContext.default_source`)
    defaults: dict[str, str] = field(default_factory=dict)

    @property
    def overall(self) -> Terms:
        """The terms of the whole release (all splits pooled)."""
        return combine_many((s.terms for s in self.splits), override=self.override)

    def blocking(self) -> list[SplitAudit]:
        """Splits whose conflicts stand without an override."""
        return [s for s in self.splits if s.terms.unresolved]


def audit_dataset(root, *, license_id: str | None = None, source: str | None = None,
                  loaded: LoadedDataset | None = None) -> Audit:
    """Derive the terms of every split under ``root`` (:meth:`schemas.licensing.LicenseContext.resolve`).

    Parameters
    ----------
    root : path
        A folder :func:`schemas.dataset.load_dataset_dir` reads.
    license_id : str, optional
        License of variant folders that carry no license information.
    source : str, optional
        Source name of records that name none (default: the folder name).
    loaded : LoadedDataset, optional
        An already loaded folder (saves reading it twice).
    """
    ds = loaded if loaded is not None else load_dataset_dir(root)
    infos = variant_infos(ds)
    contexts = license_contexts(ds, fallback=license_id, source=source, infos=infos)
    audits = []
    for variant, ctx in contexts.items():
        for split in ds.splits(variant):
            frame = ds.tables[variant][split]
            resolved = ctx.resolve(frame, split)
            audits.append(SplitAudit(variant, split, len(frame), resolved.terms, resolved.declared))
    override = next(iter(contexts.values())).override if contexts else None
    return Audit(dataset=ds, splits=audits, override=override, variant_info=infos,
                 defaults={variant: ctx.default_source() for variant, ctx in contexts.items()})


def check_releasable(audit: Audit, where) -> None:
    """Stop an export whose splits have license conflicts that no written override covers.

    The :class:`LicenseError` names ``where`` (the input folder), how many splits, the first one and its
    reasons, and the fix (``license_override`` in the recipe).
    """
    blocking = audit.blocking()
    if blocking:
        first = blocking[0]
        reasons = "; ".join(c.reason for c in first.terms.conflicts if not c.overridden)
        raise LicenseError(
            f"{len(blocking)} split(s) have unresolved license conflicts, first {first.variant}/{first.split}: "
            f"{reasons}. Add license_override {{terms, reason}} to the recipe to release them anyway",
            file=where)
