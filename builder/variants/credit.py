"""The credit a new variant carries from its source: source name, citation, license and its origin.

``builder extend`` writes these fields into the new ``variant.json`` so that an
export credits the source (CC BY-SA asks for attribution) instead of the
folder name. They are read from the source folder's ``variant.json`` through
:meth:`schemas.variant.VariantInfo.credit` (``builder describe`` declares them).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from schemas.license_registry import get_license
from schemas.licensing import LicenseContext
from schemas.variant import VariantInfo

DEFAULT_LICENSE = "CC-BY-SA-4.0"  # FLORES-200 and SIB-200 are CC BY-SA 4.0
DEFAULT_LICENSE_FROM = "default (FLORES-200 and SIB-200 are CC BY-SA 4.0)"


@dataclass(frozen=True)
class Credit:
    """License, source name and citation of a new variant, and where the license came from."""

    license: str
    license_from: str
    source_name: str | None = None
    citation: str | None = None
    source_variant: str | None = None

    def to_dict(self) -> dict[str, str]:
        """The ``variant.json`` fields (those that are set)."""
        out = {"license": self.license, "license_from": self.license_from, "source_name": self.source_name,
               "citation": self.citation, "source_variant": self.source_variant}
        return {k: v for k, v in out.items() if v is not None}


def carried_credit(source: Path, license: str | None, *, license_from: str = "--license") -> Credit:
    """The credit a projection of ``source`` carries; its license resolved as every stage resolves one.

    Source name and citation come from the source folder's ``variant.json`` (see
    :meth:`schemas.variant.VariantInfo.credit`). The license follows the order of
    :mod:`schemas.licensing`: the source's ``variant.json``, else ``license`` (``--license``, or
    the release recipe's ``license:``; a fallback, which never replaces what the source
    declares), else :data:`DEFAULT_LICENSE`. The id must be registered
    (:func:`schemas.license_registry.get_license`, as ``builder export`` checks it).
    ``license_from`` names the fallback where it answers (``--license``, ``release recipe``).
    """
    info = (VariantInfo.read(source) if Path(source).is_dir() else None) or VariantInfo()
    carried = info.credit()
    chosen, origin, where = LicenseContext.of(info, folder=Path(source), fallback=license,
                                               fallback_field=license_from).declared()
    if chosen is None:
        chosen, origin, where = DEFAULT_LICENSE, DEFAULT_LICENSE_FROM, {}
    elif "file" in where:
        origin = f"source {origin}"
    get_license(chosen, **where)
    return Credit(license=chosen, license_from=origin, source_name=carried.get("source_name"),
                  citation=carried.get("citation"), source_variant=info.variant)
