"""Combination rules: the license terms of a split follow from every record in it.

A split is released as one piece of data, so the terms of all its records must
hold together:

1. **Restrictions propagate.** Non-commercial, research-only and
   no-derivatives content makes the whole split so
   (``commercial_use = all(...)``).
2. **Share-alike binds.** Share-alike content (CC BY-SA, and MSR-LA, which
   asks redistributed data to carry its own terms) makes the split carry that
   license. Other content may join only when that license already imposes all
   of its restrictions: CC BY content joins a CC BY-SA split, CC BY-NC content
   does not (a **conflict**: CC BY-SA would allow the commercial use that
   CC BY-NC forbids). Two different share-alike licenses conflict as well.
3. **Permissive content is absorbed.** CC BY, CC0, MIT and Apache content
   adopts the terms of the stricter content beside it; only its attribution
   line stays. Other licenses are kept side by side, written as an SPDX-style
   conjunction (``CC-BY-NC-3.0 AND RACE-research``).
4. **Attribution accumulates**: one line per source whose license asks for it.
5. **Unknown is never satisfiable**: the ``unknown`` sentinel is a conflict.

MSR-LA and the Belebele training set: MCTest's terms allow commercial use but
require redistributed data to carry them; the RACE, ReClor and SciQ records
beside it forbid commercial use. No single set of terms satisfies both, so by
rule 2 the assembled training set is a conflict, released only with the
recipe's written override. The override does not lift any restriction: the
split stays non-commercial either way.

A conflict stops ``builder export`` unless the recipe's written override
(``license_override: {terms, reason}``, :class:`schemas.licensing.LicenseOverride`)
is given; the override is recorded and printed in the card.

>>> t = combine([("sib200", "CC-BY-SA-4.0", 1004)])
>>> t.terms, t.commercial_use, t.share_alike, len(t.conflicts)
('CC-BY-SA-4.0', True, True, 0)
>>> combine([("wiki", "CC-BY-4.0", 99), ("sciq", "CC-BY-NC-3.0", 1)]).commercial_use
False
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable, Mapping

from .errors import LicenseError
from .license_registry import License, get_license

if TYPE_CHECKING:  # schemas.licensing resolves a split's license with these rules
    from .licensing import LicenseOverride

USES = ("commercial", "research")


@dataclass(frozen=True)
class Conflict:
    """Licenses that cannot hold together in one split, and why."""

    licenses: tuple[str, ...]
    reason: str
    overridden: bool = False

    def to_dict(self) -> dict:
        return {"licenses": list(self.licenses), "reason": self.reason, "overridden": self.overridden}


@dataclass(frozen=True)
class SourceShare:
    """How many records of a split come from one source under one license."""

    name: str
    license: str
    records: int

    def to_dict(self) -> dict:
        return {"name": self.name, "license": self.license, "records": int(self.records)}


@dataclass(frozen=True)
class Terms:
    """The combined terms of one split."""

    terms: str
    licenses: tuple[str, ...]
    commercial_use: bool
    share_alike: bool
    derivatives: bool
    research_only: bool
    attribution: tuple[str, ...]
    conflicts: tuple[Conflict, ...]
    sources: tuple[SourceShare, ...]
    override: LicenseOverride | None = None

    @property
    def unresolved(self) -> bool:
        """True when a conflict stands without an override."""
        return any(not c.overridden for c in self.conflicts)

    def allows(self, use: str) -> bool:
        """Whether the split may be used for ``use`` (``commercial`` or ``research``).

        >>> combine([("race", "RACE-research", 5)]).allows("commercial")
        False
        """
        if use not in USES:
            raise LicenseError(f"unknown intended use {use!r}; allowed: {', '.join(USES)}")
        if self.unresolved:
            return False
        return self.commercial_use if use == "commercial" else True

    def to_dict(self) -> dict:
        return {
            "terms": self.terms, "licenses": list(self.licenses), "commercial_use": self.commercial_use,
            "share_alike": self.share_alike, "derivatives": self.derivatives,
            "research_only": self.research_only, "attribution": list(self.attribution),
            "conflicts": [c.to_dict() for c in self.conflicts],
            "sources": [s.to_dict() for s in self.sources],
            "override": None if self.override is None else self.override.to_dict(),
        }


def _conflicts(lics: list[License], names: Mapping[str, list[str]]) -> list[Conflict]:
    out: list[Conflict] = []
    for lic in lics:
        if lic.sentinel:
            who = ", ".join(names[lic.id])
            out.append(Conflict((lic.id,), f"the license of {who} is unknown; no use is known to be permitted"))
    real = [lic for lic in lics if not lic.sentinel]
    if len(real) > 1:
        for lic in real:
            if not lic.derivatives:
                out.append(Conflict((lic.id,), f"{lic.id} forbids sharing adapted data, so its records "
                                               "cannot be combined with others"))
    binding = [lic for lic in real if lic.share_alike]
    for i, a in enumerate(binding):
        for b in binding[i + 1:]:
            out.append(Conflict((a.id, b.id), f"{a.id} and {b.id} each require shared data to carry their "
                                              "own terms"))
    if len(binding) == 1:
        sa = binding[0]
        for lic in real:
            missing = sorted(lic.restrictions - sa.restrictions)
            if lic is not sa and missing:
                out.append(Conflict(tuple(sorted((sa.id, lic.id))),
                                    f"{sa.id} requires the split to carry its own terms, which do not impose "
                                    f"the {' and '.join(missing)} restriction{'s' if len(missing) > 1 else ''} of {lic.id}"))
    return out


def _expression(lics: list[License], conflicted: bool) -> str:
    """An SPDX-style expression of the combined terms (rules 2 and 3)."""
    if not conflicted:
        binding = [lic for lic in lics if lic.share_alike]
        if binding:
            return binding[0].id
        lics = [lic for lic in lics if not lic.permissive] or lics
    return " AND ".join(sorted({lic.id for lic in lics}, key=str.lower))


def combine(sources: Iterable[tuple[str, str, int]], *, override: LicenseOverride | None = None,
            where: str | None = None) -> Terms:
    """Combine ``(source name, license id, records)`` triples into the terms of one split.

    Sources with zero records are ignored. An unregistered license id is a
    :class:`LicenseError` listing the known ids; ``where`` names the split in
    that message.

    >>> combine([("a", "CC-BY-SA-4.0", 3), ("b", "CC-BY-NC-4.0", 2)]).conflicts[0].licenses
    ('CC-BY-NC-4.0', 'CC-BY-SA-4.0')
    >>> combine([("race", "RACE-research", 3), ("sciq", "CC-BY-NC-3.0", 2)]).terms
    'CC-BY-NC-3.0 AND RACE-research'
    """
    counts: dict[tuple[str, str], int] = defaultdict(int)
    for name, lic_id, n in sources:
        get_license(lic_id, record=where)
        if int(n) > 0:
            counts[(str(name), lic_id)] += int(n)
    if not counts:
        raise LicenseError("no records, so no license terms can be derived", record=where)
    shares = tuple(SourceShare(name, lic, n) for (name, lic), n in sorted(counts.items()))
    ids = sorted({s.license for s in shares}, key=str.lower)
    lics = [get_license(i) for i in ids]
    names: dict[str, list[str]] = defaultdict(list)
    for s in shares:
        names[s.license].append(s.name)
    conflicts = _conflicts(lics, names)
    if override is not None:
        conflicts = [Conflict(c.licenses, c.reason, overridden=True) for c in conflicts]
    attribution = []
    for s in shares:
        lic = get_license(s.license)
        if lic.attribution:
            line = f"{s.name}: {lic.name}" + (f" <{lic.url}>" if lic.url else "")
            if line not in attribution:
                attribution.append(line)
    return Terms(
        terms=_expression(lics, bool(conflicts)),
        licenses=tuple(ids),
        commercial_use=all(lic.commercial_use for lic in lics),
        share_alike=any(lic.share_alike for lic in lics),
        derivatives=all(lic.derivatives for lic in lics),
        research_only=any(lic.research_only for lic in lics),
        attribution=tuple(attribution),
        conflicts=tuple(conflicts),
        sources=shares,
        override=override,
    )


#: Terms of an empty split: no records, so no obligations and no conflicts.
EMPTY = Terms(terms="none (no records)", licenses=(), commercial_use=True, share_alike=False, derivatives=True,
              research_only=False, attribution=(), conflicts=(), sources=())


def combine_many(parts: Iterable[Terms], *, override: LicenseOverride | None = None) -> Terms:
    """Terms of a whole release made of several splits (their sources pooled).

    >>> a = combine([("x", "CC-BY-4.0", 1)]); b = combine([("y", "CC-BY-SA-4.0", 1)])
    >>> combine_many([a, b]).terms
    'CC-BY-SA-4.0'
    """
    return combine(((s.name, s.license, s.records) for t in parts for s in t.sources), override=override)


__all__ = ["Conflict", "EMPTY", "SourceShare", "Terms", "combine", "combine_many", "USES"]
