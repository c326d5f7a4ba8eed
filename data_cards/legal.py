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
#: The same, for a card without a "Filters applied" section (no filter record travelled with the data):
#: the credit points only at what the card says.
CHANGES_UNFILTERED = "converted to the toolkit's record layout and written to Parquet"


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


def derived_changes(variant_info: dict[str, dict] | None) -> dict[str | None, list[str]]:
    """Source name -> what the release changed in the variants credited to it, read from each
    variant's ``variant.json`` (``method``, the romanizer's tool, version and scheme, the pivot it was
    aligned to, the variant it was projected from), one phrase per kind of change, in order.

    Share-alike licenses (CC BY-SA) ask a copy to indicate the changes made; ``ATTRIBUTION.md`` lists
    these after the changes every export makes. A variant without ``source_name`` is listed under None.

    >>> found = derived_changes({"hin_Latn": {"method": "romanization", "source_name": "SIB-200", "tool": "uroman",
    ...     "version": "1.3", "scheme": "uroman", "source_variant": "hin_Deva", "native_letters_left": 2},
    ...     "hin_Deva": {"source_name": "SIB-200", "aligned": {"pivot": "eng_Latn"}}})
    >>> for line in found["SIB-200"]: print(line)
    re-split as the pivot eng_Latn is split: hin_Deva
    romanized with uroman 1.3 (scheme uroman): hin_Latn from hin_Deva (2 native characters left)
    """
    groups: dict[str | None, dict[str, list[str]]] = {}
    for variant, info in sorted((variant_info or {}).items()):
        if not isinstance(info, dict):
            continue
        mine = groups.setdefault(info.get("source_name") or None, {})
        method = info.get("method")
        if method == "romanization" or (info.get("tool") and info.get("scheme")):
            head = (f"romanized with {info.get('tool', '?')} {info.get('version', '')}".rstrip()
                    + f" (scheme {info.get('scheme', '?')})")
            item = f"{variant} from {info.get('source_variant') or '?'}"
            left = info.get("native_letters_left")
            if isinstance(left, int) and not isinstance(left, bool) and left > 0:
                item += f" ({left:,} native characters left)"
            mine.setdefault(head, []).append(item)
        if isinstance(info.get("aligned"), dict):
            pivot = info["aligned"].get("pivot") or "?"
            mine.setdefault(f"re-split as the pivot {pivot} is split", []).append(variant)
        if method == "projection":
            mine.setdefault("projected: labels carried to the parallel sentences of another variant",
                            []).append(f"{variant} from {info.get('source_variant') or '?'}")
    return {source: [f"{head}: {', '.join(items)}" for head, items in heads.items()]
            for source, heads in groups.items() if heads}


def render_attribution(name: str, overall: Terms, references: dict[str, str] | None = None,
                       changes: dict[str | None, list[str]] | None = None, *, filters: bool = True) -> str:
    """Text of the export's ``ATTRIBUTION.md``.

    ``changes`` (:func:`derived_changes`): per source, the changes the release made beyond those of
    every export (:data:`CHANGES`); those of variants that credit no listed source close the file.
    ``filters``: whether the card has a "Filters applied" section; the changes point to it only then
    (:data:`CHANGES_UNFILTERED` otherwise), so the file never names a section the card lacks.

    >>> from schemas.license_terms import combine
    >>> "## sib200" in render_attribution("demo", combine([("sib200", "CC-BY-SA-4.0", 3)]))
    True
    """
    changes = changes or {}
    done = CHANGES if filters else CHANGES_UNFILTERED
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
                             f"({done}); they are redistributed under the same MSR-LA terms.")
        ref = (references or {}).get(source) or cite(source)
        if ref:
            lines.append(f"- Reference: {md_inline(ref)}")
        lines.append(f"- Changes: {done}.")
        lines += [f"- Changes made by this release: {md_inline(c)}." for c in changes.get(source, [])]
        lines.append("")
    rest = [c for source, items in changes.items() if source not in by_source for c in items]
    if rest:
        lines += ["## Changes to variants of other sources", "", *(f"- {md_inline(c)}." for c in rest), ""]
    return "\n".join(lines)
