"""A split's license, resolved one way for every stage, and the written override.

One rule for the qc gate's ``license`` check, the license audit
(``builder licenses``), the export and every stage that makes a variant
(``builder extend``, ``builder romanize``, the release). The license ids of a
split's records come from the first of these that answers:

1. the ``license`` column of the split (assembled sets, exports); when the
   split has the column, every record needs a registered id there;
2. ``license`` in the variant folder's ``variant.json`` (``builder extend``,
   ``romanize`` and ``describe`` write it);
3. the caller's fallback: the recipe's ``license:`` or ``--license ID``. A
   fallback is for folders that say nothing: it never replaces what a
   column or ``variant.json`` declares;

otherwise there is no license, a :class:`~schemas.errors.LicenseError` that
lists the registered ids (:mod:`schemas.license_registry`). The ids are then
combined into the split's terms (:mod:`schemas.license_terms`), and

4. the written override (``license_override`` in ``manifest.json``, else in a
   ``variant.json``; the recipe writes it) marks their conflicts as
   overridden. It never changes an id and lifts no restriction.

:class:`SplitLicense` says which step answered (``origin``). Source names
(whom ``ATTRIBUTION.md`` credits) come from the ``dataset`` column, else
``provenance.corpus``, else ``source_name`` (or ``dataset``) in
``variant.json``, else the caller's ``source``.

>>> import pandas as pd
>>> ctx = LicenseContext(fallback="CC-BY-SA-4.0", source="sib")
>>> got = ctx.resolve(pd.DataFrame({"text": ["a", "b"]}))
>>> got.terms.terms, got.origin, got.declared
('CC-BY-SA-4.0', '--license', 'CC-BY-SA-4.0')
>>> ctx.resolve(pd.DataFrame({"license": ["MIT", "CC-BY-4.0"]})).origin
'license column'

The written override
--------------------
The one type that recipes, manifests and ``variant.json`` carry. A release
whose sources' licenses conflict, or whose license is unknown, is exported
only when its recipe says so in writing::

    license_override:
      terms: Non-commercial research use only.
      reason: The set combines non-commercial corpora with ...

The data card then prints the terms and the reason. Both keys are required,
both hold non-empty text, and no other key is allowed, wherever the override
is read (recipe, ``manifest.json``, ``variant.json``).

>>> LicenseOverride.from_dict({"terms": "research only", "reason": " as published "})
LicenseOverride(terms='research only', reason='as published')
>>> LicenseOverride.from_dict(None) is None
True
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from .runtime.provenance import recorded_path
from .errors import LicenseError, ToolkitError, row_at
from .license_registry import get_license, known_ids
from .license_terms import EMPTY, Terms, combine
from .validate import Checker

_KEYS = ("terms", "reason")


@dataclass(frozen=True)
class LicenseOverride:
    """A recipe's written decision to release an unknown or conflicting combination of licenses."""

    terms: str
    reason: str

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None, *, file=None, field: str = "license_override",
                  error: type[ToolkitError] = LicenseError) -> "LicenseOverride | None":
        """Validate ``{"terms": ..., "reason": ...}``; None stays None.

        Raises ``error`` (a :class:`LicenseError` unless the caller reads a
        recipe) naming ``file`` and the key.
        """
        if data is None:
            return None
        chk = Checker(file, error=error)
        chk.keys(field, chk.mapping(field, data), dict.fromkeys(_KEYS, True),
                 missing="an override needs its terms and a written reason")
        return cls(**{key: chk.text(f"{field}.{key}", data[key]).strip() for key in _KEYS})

    def to_dict(self) -> dict[str, str]:
        return {"terms": self.terms, "reason": self.reason}

#: ``origin`` of a split whose license came from its records.
COLUMN = "license column"


@dataclass(frozen=True)
class SplitLicense:
    """The resolved license of one split.

    ``terms``: the combined terms (:func:`schemas.license_terms.combine`, with
    the override). ``origin``: which step of the order answered
    (:data:`COLUMN`, ``variant.json (PATH)``, the fallback's name such as
    ``--license``, or ``no records``). ``declared``: the one id that every
    record has when the split has no license column (what an export writes
    into the column), else None.
    """

    terms: Terms
    origin: str
    declared: str | None = None


@dataclass(frozen=True)
class LicenseContext:
    """What one variant's splits are resolved with, besides their records (see the module docstring).

    ``variant``: its name, for messages. ``license``, ``source_name``: what the variant folder's
    ``variant.json`` declares (``source_name``, else its ``dataset``; None where it says nothing).
    ``folder``: that folder, for messages. ``fallback``/``fallback_field``: the caller's license id
    and the name an error gives it (``--license``, ``license`` of a recipe). ``override``: the
    written override. ``source``: the source name of records that name none. ``files``: split ->
    file, for messages. Plain values only, so a context travels to a worker process.
    """

    variant: str | None = None
    license: str | None = None
    source_name: str | None = None
    folder: Path | None = None
    fallback: str | None = None
    fallback_field: str = "--license"
    override: LicenseOverride | None = None
    source: str | None = None
    files: Mapping[str, Path] = field(default_factory=dict)

    def declared(self) -> tuple[str | None, str, dict]:
        """``(id, origin, where)`` for a split without a license column: variant.json, then the fallback.

        ``where`` names the file or option in an error about the id. The id is None when neither says.

        >>> LicenseContext(fallback="MIT").declared()
        ('MIT', '--license', {'field': '--license'})
        """
        declared = self.license
        if declared:
            json_path = (self.folder / "variant.json") if self.folder is not None else Path("variant.json")
            return declared, f"variant.json ({recorded_path(json_path)})", {"file": json_path, "field": "license"}
        if self.fallback:
            return self.fallback, self.fallback_field, {"field": self.fallback_field}
        return None, "", {}

    @classmethod
    def of(cls, info, **values) -> "LicenseContext":
        """The context of a variant whose ``variant.json`` is ``info`` (a :class:`schemas.variant.VariantInfo` or None).

        >>> from schemas.variant import VariantInfo
        >>> LicenseContext.of(VariantInfo(license="MIT", source_name="x"), fallback="CC0-1.0").declared()[0]
        'MIT'
        """
        if info is None:
            return cls(**values)
        return cls(license=info.license, source_name=info.source_name or info.get("dataset"), **values)

    def default_source(self) -> str:
        """The name credited to records that name no source (``variant.json``, the caller's, the folder's)."""
        return self.source_name or self.source or (self.folder.name if self.folder is not None else "records")

    def resolve(self, frame, split: str | None = None) -> SplitLicense:
        """The license of one split (``frame``, a pandas DataFrame of its records).

        ``split`` names the split and its file (from ``files``) in errors. Raises
        :class:`~schemas.errors.LicenseError` naming the file and row when a record
        has no license id or an unregistered one, or when nothing declares a license.

        >>> import pandas as pd
        >>> LicenseContext().resolve(pd.DataFrame({"license": ["MIT", None]}))
        Traceback (most recent call last):
        ...
        schemas.errors.LicenseError: row 2, field license: record has no license id; every record needs one of: Apache-2.0, CC-BY-3.0, CC-BY-4.0, CC-BY-NC-3.0, CC-BY-NC-4.0, CC-BY-NC-ND-4.0, CC-BY-NC-SA-3.0, CC-BY-NC-SA-4.0, CC-BY-ND-4.0, CC-BY-SA-3.0, CC-BY-SA-4.0, CC0-1.0, MIT, MSR-LA, ODC-By-1.0, RACE-research, ReClor-research, unknown
        """
        if len(frame) == 0:  # nothing to license; the split is exported empty
            return SplitLicense(EMPTY, "no records")
        path = self.files.get(split) if split is not None else None
        where = f"{self.variant}/{split}" if self.variant is not None and split is not None else split
        default = self.default_source()
        sources = _sources(frame, default)
        if "license" in frame.columns:
            lics = frame["license"].tolist()
            for row, value in enumerate(lics):
                if value is None or value != value or not str(value).strip():
                    raise LicenseError("record has no license id; every record needs one of: "
                                       f"{', '.join(known_ids())}", file=path, record=row_at(row), field="license")
            for value in dict.fromkeys(lics):
                get_license(value, file=path, record=row_at(lics.index(value)))
            pairs, origin, declared = zip(sources or [default] * len(lics), lics), COLUMN, None
        else:
            declared, origin, at = self.declared()
            if not declared:
                raise LicenseError(
                    f"variant {self.variant}, split {split}: no license information (no license column, "
                    f"no variant.json with a license field, no {self.fallback_field} ID); known ids: {', '.join(known_ids())}", file=path)
            get_license(declared, **at)
            pairs = ((s, declared) for s in sources) if sources is not None else None
        counts: dict[tuple[str, str], int] = {}
        if pairs is None:
            counts[(default, declared)] = len(frame)
        else:
            for key in pairs:
                counts[key] = counts.get(key, 0) + 1
        terms = combine(((s, lic, n) for (s, lic), n in sorted(counts.items())), override=self.override, where=where)
        return SplitLicense(terms, origin, declared)


def _sources(frame, default: str) -> list[str] | None:
    """Per-record source names, or None when every record has ``default``."""
    if "dataset" in frame.columns:
        return [default if v is None or v != v else str(v) for v in frame["dataset"].tolist()]
    if "provenance" in frame.columns:
        return [p.get("corpus", default) if isinstance(p, dict) else default for p in frame["provenance"].tolist()]
    return None


def dataset_override(manifest: Any, infos: Mapping[str, Any], *, file=None) -> LicenseOverride | None:
    """The written override of a dataset folder: ``manifest.json``'s, else the first ``variant.json``'s.

    >>> dataset_override({"license_override": {"terms": "t", "reason": "r"}}, {}).terms
    't'
    """
    raw = manifest.get("license_override") if isinstance(manifest, Mapping) else None
    if raw:
        return LicenseOverride.from_dict(raw, file=file)
    for info in infos.values():
        if info.license_override is not None:
            return info.license_override
    return None


def variant_infos(ds) -> dict:
    """``variant.json`` of every variant of a loaded folder that has one (a malformed one stops, naming it)."""
    infos = {variant: ds.variant_info(variant) for variant in ds.variants}
    return {variant: info for variant, info in infos.items() if info is not None}


def license_contexts(ds, *, fallback: str | None = None, fallback_field: str = "--license",
                     source: str | None = None, infos: Mapping | None = None) -> dict[str, LicenseContext]:
    """The :class:`LicenseContext` of every variant of a loaded dataset folder (:class:`schemas.dataset.LoadedDataset`).

    ``fallback`` (validated here) is the caller's license of folders that declare none; ``source`` the
    source name of records that name none (default: the folder's name); ``infos`` the folder's
    :func:`variant_infos`, when the caller has read them. A malformed ``variant.json`` or override
    stops with one error naming its file.
    """
    if fallback is not None:
        get_license(fallback, field=fallback_field)
    infos = variant_infos(ds) if infos is None else infos
    override = dataset_override(ds.manifest, infos, file=Path(ds.root) / "manifest.json")
    return {variant: LicenseContext.of(
        infos.get(variant), variant=variant, folder=ds.variant_dir(variant), fallback=fallback,
        fallback_field=fallback_field,
        override=override, source=source or Path(ds.root).name,
        files={split: ds.files[(variant, split)] for split in ds.splits(variant) if (variant, split) in ds.files})
        for variant in ds.variants}
