"""The ``LICENSE`` and ``ATTRIBUTION.md`` files of an export.

``LICENSE`` states the combined terms, then each license that applies with its
link, its conditions and the sources and record counts it covers (license
texts are linked, not copied). ``ATTRIBUTION.md`` gives the credit every
attribution clause asks for: one entry per source with its license, record
count, reference and the changes made. MSR-LA asks modified files to say so
prominently, which the entry for such a source does.
"""
from __future__ import annotations

from schemas.license_registry import get_license
from schemas.license_terms import Terms
from schemas.licensing import LicenseOverride

from .citations import cite

CHANGES = ("converted to the toolkit's record layout, filtered as described in README.md "
           "(\"Filters applied\") where filters ran, and written to Parquet")


def _yes(flag: bool) -> str:
    return "permitted" if flag else "NOT permitted"


def render_license(name: str, overall: Terms, override: LicenseOverride | None = None) -> str:
    """Text of the export's ``LICENSE`` file.

    >>> from schemas.license_terms import combine
    >>> render_license("demo", combine([("sib200", "CC-BY-SA-4.0", 3)])).splitlines()[0]
    'License terms of demo'
    """
    o = overall
    lines = [f"License terms of {name}", "=" * len(f"License terms of {name}"), "",
             f"Terms: {o.terms}",
             f"Commercial use: {_yes(o.commercial_use)}",
             f"Share-alike (derived data must carry the same terms): {'yes' if o.share_alike else 'no'}",
             f"Research use only: {'yes' if o.research_only else 'no'}",
             "",
             "The records of this dataset come from the sources below, each under its own license.",
             "Every record keeps its license in the `license` column; README.md lists the terms",
             "of every split. The license texts are linked, not copied.", ""]
    for lic_id in o.licenses:
        lic = get_license(lic_id)
        shares = [s for s in o.sources if s.license == lic_id]
        lines += [f"{lic.id}: {lic.name}", f"  Text: {lic.url or '(no text: the license is not known)'}",
                  f"  Conditions: {lic.notice}",
                  "  Applies to: " + ", ".join(f"{s.name} ({s.records:,} records)" for s in shares), ""]
    if o.conflicts:
        lines.append("Conflicts between these licenses:")
        lines += [f"  - {c.reason}{' (overridden)' if c.overridden else ''}" for c in o.conflicts]
        lines.append("")
    if override is not None:
        lines += ["License override stated by the recipe:",
                  f"  Terms: {override.terms or '(none stated)'}", f"  Reason: {override.reason}",
                  "  The override does not lift any restriction: every source's own terms still apply.", ""]
    return "\n".join(lines)


def render_attribution(name: str, overall: Terms, references: dict[str, str] | None = None) -> str:
    """Text of the export's ``ATTRIBUTION.md``.

    >>> from schemas.license_terms import combine
    >>> "## sib200" in render_attribution("demo", combine([("sib200", "CC-BY-SA-4.0", 3)]))
    True
    """
    lines = ["# Attribution", "", f"`{name}` contains material from the sources below. Their licenses ask for "
             "this credit; keep this file with any copy or derivative of the data.", ""]
    by_source: dict[str, list] = {}
    for s in overall.sources:
        by_source.setdefault(s.name, []).append(s)
    for source, shares in by_source.items():
        lines += [f"## {source}", ""]
        for s in shares:
            lic = get_license(s.license)
            link = f"[{lic.name}]({lic.url})" if lic.url else lic.name
            lines.append(f"- License: {link} (`{lic.id}`); {s.records:,} records.")
            if lic.id == "MSR-LA":
                lines.append("- **Modified files**: these records are modified versions of the original data "
                             f"({CHANGES}); they are redistributed under the same MSR-LA terms.")
        ref = (references or {}).get(source) or cite(source)
        if ref:
            lines.append(f"- Reference: {ref}")
        lines += [f"- Changes: {CHANGES}.", ""]
    return "\n".join(lines)
