"""Tests that kill mutants of the license combination rules (``schemas/license_terms.py``; docs/testing.md).

Each test names the small bug it catches. The rules decide which terms a
release carries, so the exact conflict, the exact terms and the exact error are
asserted, not only that something happened.
"""
from __future__ import annotations

import pytest

from schemas.license_terms import USES, Conflict, Terms, combine, combine_many
from schemas.errors import LicenseError
from schemas.licensing import LicenseOverride

OVERRIDE = LicenseOverride("Non-commercial research use only.", "checked by the release reviewer")


def test_terms_and_conflicts_serialise_with_their_documented_keys():
    # Mutants: a renamed key in ``Conflict.to_dict`` or ``Terms.to_dict``; the override dropped there.
    t = combine([("sib200", "CC-BY-SA-4.0", 3), ("other", "CC-BY-NC-4.0", 2)], override=OVERRIDE)
    d = t.to_dict()
    assert list(d) == ["terms", "licenses", "commercial_use", "share_alike", "derivatives", "research_only",
                       "attribution", "conflicts", "sources", "override"]
    assert d["licenses"] == ["CC-BY-NC-4.0", "CC-BY-SA-4.0"]
    assert d["derivatives"] is True and d["commercial_use"] is False
    assert d["override"] == {"terms": "Non-commercial research use only.",
                             "reason": "checked by the release reviewer"}
    (conflict,) = d["conflicts"]
    assert conflict == {"licenses": ["CC-BY-NC-4.0", "CC-BY-SA-4.0"], "overridden": True,
                        "reason": "CC-BY-SA-4.0 requires the split to carry its own terms, which do not impose "
                                  "the non-commercial restriction of CC-BY-NC-4.0"}
    assert d["sources"] == [{"name": "other", "license": "CC-BY-NC-4.0", "records": 2},
                            {"name": "sib200", "license": "CC-BY-SA-4.0", "records": 3}]
    assert combine([("a", "CC-BY-4.0", 1)]).to_dict()["override"] is None


def test_an_unknown_intended_use_lists_the_allowed_ones():
    t = combine([("a", "CC-BY-4.0", 1)])
    with pytest.raises(LicenseError, match=r"^unknown intended use 'sell'; allowed: commercial, research$"):
        t.allows("sell")
    assert USES == ("commercial", "research")


def test_no_derivatives_conflict_names_the_license_and_why():
    t = combine([("a", "CC-BY-ND-4.0", 1), ("b", "CC-BY-4.0", 1)])
    assert t.conflicts == (Conflict(("CC-BY-ND-4.0",), "CC-BY-ND-4.0 forbids sharing adapted data, so its records "
                                                       "cannot be combined with others"),)
    assert t.derivatives is False and combine([("b", "CC-BY-4.0", 1)]).derivatives is True


def test_two_share_alike_licenses_conflict_as_a_pair():
    t = combine([("a", "CC-BY-SA-4.0", 1), ("b", "CC-BY-NC-SA-4.0", 1)])
    pair = [c for c in t.conflicts if "each require" in c.reason]
    assert pair == [Conflict(("CC-BY-NC-SA-4.0", "CC-BY-SA-4.0"),
                             "CC-BY-NC-SA-4.0 and CC-BY-SA-4.0 each require shared data to carry their own terms")]


def test_errors_name_the_split():
    # Mutants: ``record=where`` dropped from either error.
    with pytest.raises(LicenseError) as err:
        combine([("x", "GPL-3.0", 4)], where="hin_Deva/test")
    assert err.value.record == "hin_Deva/test"
    with pytest.raises(LicenseError) as err:
        combine([("x", "CC-BY-4.0", 0)], where="hin_Deva/dev")
    assert err.value.record == "hin_Deva/dev"
    assert err.value.message == "no records, so no license terms can be derived"


def test_attribution_lines_link_the_license_text_where_there_is_one():
    t = combine([("wiki", "CC-BY-4.0", 2), ("mcscript", "unknown", 1), ("cc0", "CC0-1.0", 1)],
                override=OVERRIDE)
    assert t.attribution == ("mcscript: unknown license (not confirmed)",  # no URL, no " <>"
                             "wiki: Creative Commons Attribution 4.0 International "
                             "<https://creativecommons.org/licenses/by/4.0/>")  # CC0 asks for none


def test_the_override_travels_with_the_terms():
    # Mutants: ``override=None`` in ``combine`` or ``combine_many``.
    mix = [("race", "RACE-research", 1), ("mctest", "MSR-LA", 1)]
    t = combine(mix, override=OVERRIDE)
    assert t.override is OVERRIDE and not t.unresolved
    many = combine_many([combine(mix[:1]), combine(mix[1:])], override=OVERRIDE)
    assert many.override is OVERRIDE and many.conflicts and all(c.overridden for c in many.conflicts)
    assert not many.unresolved and many.allows("research")
    assert combine_many([combine(mix[:1]), combine(mix[1:])]).unresolved


def test_terms_are_a_frozen_record():
    t = combine([("a", "CC-BY-4.0", 1)])
    assert isinstance(t, Terms)
    with pytest.raises(AttributeError):
        t.terms = "MIT"


def test_license_ids_are_listed_case_insensitively(monkeypatch):
    # ``known_ids`` and the terms sort ids case-insensitively. Every id registered today sorts the same
    # either way, so a custom id in lower case is registered for this test: "acme-research" comes before
    # "CC-BY-NC-4.0" case-insensitively, after it by code point (mutant: ``key=str.lower`` dropped).
    from schemas.license_registry import REGISTRY, License

    acme = License("acme-research", "ACME terms: research only", "https://example.org/acme", commercial_use=False,
                   derivatives=True, share_alike=False, attribution=True, research_only=True, custom=True)
    monkeypatch.setitem(REGISTRY, "acme-research", acme)
    t = combine([("nc", "CC-BY-NC-4.0", 1), ("acme", "acme-research", 1)])
    assert t.licenses == ("acme-research", "CC-BY-NC-4.0")
    assert t.terms == "acme-research AND CC-BY-NC-4.0"
