"""The license registry: SPDX ids and registered custom licenses with their terms.

Every record carries a license id (``MCItem.license``); every id must be in
:data:`REGISTRY`. An id that is not is a :class:`~schemas.errors.LicenseError`
that lists the known ids. ``unknown`` is a registered *sentinel* for sources
whose license could not be confirmed (MultiRC, MCScript): it is known to the
registry but grants nothing, so a split that holds it is a conflict that only a
written override in the recipe lets pass (see :mod:`schemas.license_terms`).

Attributes follow the license texts:

``commercial_use``
    the data may be used for commercial purposes.
``derivatives``
    adapted data (filtered, reformatted, translated) may be shared.
``share_alike``
    shared adaptations must carry the same terms. MSR-LA (MCTest) has this
    flag: "redistributed data or derivatives must carry the same terms"
    (``tests/data/sources/README.md``), so it behaves like a share-alike
    license that allows commercial use.
``attribution``
    credit (authors, title, link to the license) must be given.
``research_only``
    use is limited to (non-commercial) research.

>>> get_license("CC-BY-SA-4.0").share_alike
True
>>> get_license("CC-BY-NC-3.0").commercial_use
False
>>> len(known_ids()) >= 18
True
"""
from __future__ import annotations

from dataclasses import dataclass

from .errors import LicenseError

#: Names of the restrictions a license can impose; a license that takes in other
#: content must impose at least the restrictions of that content.
NON_COMMERCIAL = "non-commercial"
RESEARCH_ONLY = "research-only"
NO_DERIVATIVES = "no-derivatives"


@dataclass(frozen=True)
class License:
    """One license and its terms (see the module docstring for the flags).

    ``hf_id`` is the Hugging Face Hub license id (lowercase SPDX, or ``other``
    for custom terms); ``notice`` is what the attribution clause asks of
    whoever shares the data.
    """

    id: str
    name: str
    url: str
    commercial_use: bool
    derivatives: bool
    share_alike: bool
    attribution: bool
    research_only: bool = False
    custom: bool = False
    sentinel: bool = False
    hf_id: str = "other"
    notice: str = ""

    @property
    def restrictions(self) -> frozenset[str]:
        """The restrictions this license imposes, as a set of names.

        >>> sorted(get_license("RACE-research").restrictions)
        ['non-commercial', 'research-only']
        """
        out = set()
        if not self.commercial_use:
            out.add(NON_COMMERCIAL)
        if self.research_only:
            out.add(RESEARCH_ONLY)
        if not self.derivatives:
            out.add(NO_DERIVATIVES)
        return frozenset(out)

    @property
    def permissive(self) -> bool:
        """True when adaptations may be shared under any terms (CC BY, CC0, MIT, Apache).

        Permissive content is absorbed into the terms of the content it is
        combined with; only its attribution line stays.

        >>> get_license("CC-BY-4.0").permissive, get_license("CC-BY-NC-4.0").permissive
        (True, False)
        """
        return (self.commercial_use and self.derivatives and not self.share_alike
                and not self.research_only and not self.custom and not self.sentinel)

    def to_dict(self) -> dict:
        return {"id": self.id, "name": self.name, "url": self.url, "commercial_use": self.commercial_use,
                "derivatives": self.derivatives, "share_alike": self.share_alike,
                "attribution": self.attribution, "research_only": self.research_only,
                "custom": self.custom}


_CC_NOTICE = ("Give appropriate credit, provide a link to the license, and indicate if changes were made.")
_CC_SA_NOTICE = _CC_NOTICE + " Share adaptations under the same license."


def _cc(spdx: str, name: str, *, nc=False, sa=False, nd=False) -> License:
    version = spdx.rsplit("-", 1)[1]
    slug = spdx[3:-len(version) - 1].lower()  # "BY-NC-SA" -> "by-nc-sa"
    return License(
        id=spdx, name=name, url=f"https://creativecommons.org/licenses/{slug}/{version}/",
        commercial_use=not nc, derivatives=not nd, share_alike=sa, attribution=True,
        hf_id=spdx.lower(), notice=_CC_SA_NOTICE if sa else _CC_NOTICE,
    )


_LICENSES = (
    License("CC0-1.0", "Creative Commons Zero v1.0 Universal",
            "https://creativecommons.org/publicdomain/zero/1.0/", commercial_use=True, derivatives=True,
            share_alike=False, attribution=False, hf_id="cc0-1.0",
            notice="No conditions; credit is appreciated."),
    _cc("CC-BY-3.0", "Creative Commons Attribution 3.0 Unported"),
    _cc("CC-BY-4.0", "Creative Commons Attribution 4.0 International"),
    _cc("CC-BY-SA-3.0", "Creative Commons Attribution Share Alike 3.0 Unported", sa=True),
    _cc("CC-BY-SA-4.0", "Creative Commons Attribution Share Alike 4.0 International", sa=True),
    _cc("CC-BY-NC-3.0", "Creative Commons Attribution Non Commercial 3.0 Unported", nc=True),
    _cc("CC-BY-NC-4.0", "Creative Commons Attribution Non Commercial 4.0 International", nc=True),
    _cc("CC-BY-NC-SA-3.0", "Creative Commons Attribution Non Commercial Share Alike 3.0 Unported",
        nc=True, sa=True),
    _cc("CC-BY-NC-SA-4.0", "Creative Commons Attribution Non Commercial Share Alike 4.0 International",
        nc=True, sa=True),
    _cc("CC-BY-ND-4.0", "Creative Commons Attribution No Derivatives 4.0 International", nd=True),
    _cc("CC-BY-NC-ND-4.0", "Creative Commons Attribution Non Commercial No Derivatives 4.0 International",
        nc=True, nd=True),
    License("ODC-By-1.0", "Open Data Commons Attribution License v1.0",
            "https://opendatacommons.org/licenses/by/1-0/", commercial_use=True, derivatives=True,
            share_alike=False, attribution=True, hf_id="odc-by",
            notice="Attribute any public use of the database, or works produced from it."),
    License("Apache-2.0", "Apache License 2.0", "https://www.apache.org/licenses/LICENSE-2.0",
            commercial_use=True, derivatives=True, share_alike=False, attribution=True, hf_id="apache-2.0",
            notice="Keep the license text and the NOTICE file; state significant changes."),
    License("MIT", "MIT License", "https://opensource.org/license/mit", commercial_use=True,
            derivatives=True, share_alike=False, attribution=True, hf_id="mit",
            notice="Keep the copyright notice and the permission notice."),
    # Registered custom terms of the Belebele training-set corpora.
    License("RACE-research", "RACE terms: non-commercial research purposes only",
            "https://www.cs.cmu.edu/~glai1/data/race/", commercial_use=False, derivatives=True,
            share_alike=False, attribution=True, research_only=True, custom=True,
            notice="Use for non-commercial research purposes only; cite Lai et al. (2017)."),
    License("ReClor-research", "ReClor terms: non-commercial research purposes only",
            "https://whyu.me/reclor/", commercial_use=False, derivatives=True, share_alike=False,
            attribution=True, research_only=True, custom=True,
            notice="Use for non-commercial research purposes only; cite Yu et al. (2020)."),
    License("MSR-LA", "Microsoft Research License Terms (MCTest)",
            "https://mattr1.github.io/mctest/", commercial_use=True, derivatives=True, share_alike=True,
            attribution=True, custom=True,
            notice=("Redistributed data or derivatives must carry these same terms, and modified files "
                    "must say so prominently.")),
    License("unknown", "unknown license (not confirmed)", "", commercial_use=False, derivatives=False,
            share_alike=False, attribution=True, custom=True, sentinel=True,
            notice="The license of this source could not be confirmed; no use is known to be permitted."),
)

#: id -> :class:`License`, in registration order.
REGISTRY: dict[str, License] = {lic.id: lic for lic in _LICENSES}


def known_ids() -> list[str]:
    """All registered license ids, sorted case-insensitively.

    >>> known_ids()[:3]
    ['Apache-2.0', 'CC-BY-3.0', 'CC-BY-4.0']
    """
    return sorted(REGISTRY, key=str.lower)


def get_license(license_id: str, *, file=None, record=None, field="license") -> License:
    """Look ``license_id`` up; an unregistered id is a :class:`LicenseError` listing the known ids.

    >>> get_license("MSR-LA").share_alike
    True
    >>> get_license("CC-BY-SA")
    Traceback (most recent call last):
    ...
    schemas.errors.LicenseError: field license: unknown license id 'CC-BY-SA'; known ids: Apache-2.0, CC-BY-3.0, CC-BY-4.0, CC-BY-NC-3.0, CC-BY-NC-4.0, CC-BY-NC-ND-4.0, CC-BY-NC-SA-3.0, CC-BY-NC-SA-4.0, CC-BY-ND-4.0, CC-BY-SA-3.0, CC-BY-SA-4.0, CC0-1.0, MIT, MSR-LA, ODC-By-1.0, RACE-research, ReClor-research, unknown
    """
    lic = REGISTRY.get(license_id) if isinstance(license_id, str) else None
    if lic is None:
        raise LicenseError(f"unknown license id {license_id!r}; known ids: {', '.join(known_ids())}",
                           file=file, record=record, field=field)
    return lic
