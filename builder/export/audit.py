"""License audit of a built dataset folder: the terms of every variant and split.

Where each record's license comes from, first match wins:

1. the ``license`` column of the split (assembled sets, exports);
2. ``license`` in the variant folder's ``variant.json`` (``builder extend``
   and ``romanize`` write it);
3. ``--license ID`` on the command line;

otherwise the audit stops with a :class:`LicenseError`. Source names come from
the ``dataset`` column, else ``provenance.corpus``, else ``source`` in
``variant.json`` (``source_name``; its ``source`` key is the input path that
``builder extend``/``romanize`` record), else ``--source``, else the folder name. The recipe's written override is read
from ``license_override`` in ``manifest.json`` or ``variant.json``.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from data_cards.licenses import get_license, known_ids
from data_cards.rules import Terms, combine, combine_many
from schemas.dataset import LoadedDataset, load_dataset_dir
from schemas.licensing import LicenseOverride
from schemas.variant import VARIANT_JSON, VariantInfo

#: Terms of an empty split: no records, so no obligations and no conflicts.
EMPTY = Terms(terms="none (no records)", licenses=(), commercial_use=True, share_alike=False, derivatives=True,
              research_only=False, attribution=(), conflicts=(), sources=())
from schemas.errors import LicenseError


@dataclass
class SplitAudit:
    """The terms of one split of one variant."""

    variant: str
    split: str
    rows: int
    terms: Terms

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

    @property
    def overall(self) -> Terms:
        """The terms of the whole release (all splits pooled)."""
        return combine_many((s.terms for s in self.splits), override=self.override)

    def blocking(self) -> list[SplitAudit]:
        """Splits whose conflicts stand without an override."""
        return [s for s in self.splits if s.terms.unresolved]


def variant_infos(ds: LoadedDataset) -> dict[str, VariantInfo]:
    """``variant.json`` of every variant that has one."""
    infos = {variant: ds.variant_info(variant) for variant in ds.variants}
    return {variant: info for variant, info in infos.items() if info is not None}


def _sources(frame: pd.DataFrame, default: str) -> list[str] | None:
    """Per-record source names, or None when every record has ``default``."""
    if "dataset" in frame.columns:
        return [default if v is None or v != v else str(v) for v in frame["dataset"].tolist()]
    if "provenance" in frame.columns:
        return [p.get("corpus", default) if isinstance(p, dict) else default for p in frame["provenance"].tolist()]
    return None


def record_licenses(frame: pd.DataFrame, *, variant: str, split: str, path: Path, info: VariantInfo | None,
                    license_id: str | None, default_source: str) -> Counter:
    """Record counts per ``(source, license)`` of one split, validated against the registry."""
    info = info or VariantInfo()
    default = info.source_name or info.get("dataset") or default_source
    sources = _sources(frame, default)
    if "license" in frame.columns:
        lics = frame["license"].tolist()
        for row, value in enumerate(lics):
            if value is None or value != value or not str(value).strip():
                raise LicenseError("record has no license id; every record needs one of: "
                                   f"{', '.join(known_ids())}", file=path, record=f"row {row}", field="license")
        for value in dict.fromkeys(lics):
            get_license(value, file=path, record=f"row {lics.index(value)}")
        return Counter(zip(sources or [default] * len(lics), lics))
    chosen = info.license or license_id
    if not chosen:
        raise LicenseError(
            f"variant {variant}, split {split}: no license information (no license column, no variant.json "
            f"with a license field, no --license ID); known ids: {', '.join(known_ids())}", file=path)
    get_license(chosen, file=path.parent / VARIANT_JSON if info.license else None,
                field="license" if info.license else "--license")
    if sources is None:
        return Counter({(default, chosen): len(frame)})
    return Counter((s, chosen) for s in sources)


def audit_dataset(root, *, license_id: str | None = None, source: str | None = None,
                  loaded: LoadedDataset | None = None) -> Audit:
    """Derive the terms of every split under ``root``.

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
    if license_id is not None:
        get_license(license_id, field="--license")
    ds = loaded if loaded is not None else load_dataset_dir(root)
    infos = variant_infos(ds)
    manifest = ds.manifest or {}
    raw_override = manifest.get("license_override")
    override = LicenseOverride.from_dict(raw_override, file=ds.root / "manifest.json") if raw_override else None
    for info in infos.values():
        if override is None and info.license_override is not None:
            override = info.license_override
    audits = []
    for variant in ds.variants:
        info = infos.get(variant)
        for split in ds.splits(variant):
            frame = ds.tables[variant][split]
            path = ds.files[(variant, split)]
            if len(frame) == 0:  # nothing to license; the split is exported empty
                audits.append(SplitAudit(variant, split, 0, EMPTY))
                continue
            counts = record_licenses(frame, variant=variant, split=split, path=path, info=info,
                                     license_id=license_id, default_source=source or ds.root.name)
            terms = combine(((s, lic, n) for (s, lic), n in sorted(counts.items())), override=override,
                            where=f"{variant}/{split}")
            audits.append(SplitAudit(variant, split, len(frame), terms))
    return Audit(dataset=ds, splits=audits, override=override, variant_info=infos)
