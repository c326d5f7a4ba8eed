"""The ``LICENSE`` and ``ATTRIBUTION.md`` files of an export.

``LICENSE`` states the combined terms, then each license that applies with its
link, its conditions and the sources and record counts it covers (license
texts are linked, not copied). ``ATTRIBUTION.md`` gives the credit every
attribution clause asks for: one entry per source with its license, record
count, reference and the changes made. MSR-LA asks modified files to say so
prominently, which the entry for such a source does.

Every value from data (the dataset's name, source names, conflict reasons, the
override) is escaped for its file: :func:`~schemas.escape.md_inline` in
``ATTRIBUTION.md``; in ``LICENSE``, a plain-text file that no tool renders as
Markup, :func:`~schemas.escape.for_terminal`, so a value stays on its line
(a line break in a name cannot forge a ``Commercial use:`` line).
"""
from __future__ import annotations

from schemas.escape import for_terminal, md_code, md_inline
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
    o, t = overall, for_terminal
    title = f"License terms of {t(name)}"
    lines = [title, "=" * len(title), "",
             f"Terms: {t(o.terms)}",
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
        lines += [f"{t(lic.id)}: {t(lic.name)}", f"  Text: {t(lic.url or '(no text: the license is not known)')}",
                  f"  Conditions: {t(lic.notice)}",
                  "  Applies to: " + ", ".join(f"{t(s.name)} ({s.records:,} records)" for s in shares), ""]
    if o.conflicts:
        lines.append("Conflicts between these licenses:")
        lines += [f"  - {t(c.reason)}{' (overridden)' if c.overridden else ''}" for c in o.conflicts]
        lines.append("")
    if override is not None:
        lines += ["License override stated by the recipe:",
                  f"  Terms: {t(override.terms or '(none stated)')}", f"  Reason: {t(override.reason)}",
                  "  The override does not lift any restriction: every source's own terms still apply.", ""]
    return "\n".join(lines)


def render_attribution(name: str, overall: Terms, references: dict[str, str] | None = None) -> str:
    """Text of the export's ``ATTRIBUTION.md``.

    >>> from schemas.license_terms import combine
    >>> "## sib200" in render_attribution("demo", combine([("sib200", "CC-BY-SA-4.0", 3)]))
    True
    """
    lines = ["# Attribution", "", f"{md_code(name)} contains material from the sources below. Their licenses ask for "
             "this credit; keep this file with any copy or derivative of the data.", ""]
    by_source: dict[str, list] = {}
    for s in overall.sources:
        by_source.setdefault(s.name, []).append(s)
    for source, shares in by_source.items():
        lines += [f"## {md_inline(source)}", ""]
        for s in shares:
            lic = get_license(s.license)
            link = f"[{md_inline(lic.name)}]({lic.url})" if lic.url else md_inline(lic.name)
            lines.append(f"- License: {link} ({md_code(lic.id)}); {s.records:,} records.")
            if lic.id == "MSR-LA":
                lines.append("- **Modified files**: these records are modified versions of the original data "
                             f"({CHANGES}); they are redistributed under the same MSR-LA terms.")
        ref = (references or {}).get(source) or cite(source)
        if ref:
            lines.append(f"- Reference: {md_inline(ref)}")
        lines += [f"- Changes: {CHANGES}.", ""]
    return "\n".join(lines)
