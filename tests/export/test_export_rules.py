"""License registry and combination rules."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schemas.license_registry import REGISTRY, get_license, known_ids
from schemas.license_terms import combine
from schemas.licensing import LicenseOverride
from schemas.errors import LicenseError

READER_IDS = ("RACE-research", "ReClor-research", "MSR-LA", "CC-BY-NC-3.0", "unknown")


def test_registry_knows_every_reader_license_and_the_spdx_ids():
    for lic in (*READER_IDS, "CC-BY-4.0", "CC-BY-SA-4.0", "CC-BY-NC-4.0", "CC-BY-NC-SA-4.0", "CC-BY-3.0",
                "CC0-1.0", "Apache-2.0", "MIT"):
        assert get_license(lic).id == lic


def test_unknown_id_fails_listing_the_known_ids():
    with pytest.raises(LicenseError) as err:
        get_license("CC-BY-SA")
    msg = str(err.value)
    assert "unknown license id 'CC-BY-SA'" in msg
    for lic in known_ids():
        assert lic in msg


def test_unknown_id_in_a_split_fails_too():
    with pytest.raises(LicenseError, match="known ids: Apache-2.0"):
        combine([("x", "GPL-3.0", 4)], where="hin_Deva/test")


def test_attributes_follow_the_license_texts():
    race = get_license("RACE-research")
    assert (race.commercial_use, race.research_only, race.share_alike) == (False, True, False)
    msr = get_license("MSR-LA")
    assert (msr.commercial_use, msr.share_alike, msr.attribution) == (True, True, True)
    assert get_license("CC0-1.0").attribution is False
    assert get_license("CC-BY-ND-4.0").derivatives is False
    assert get_license("unknown").sentinel


def test_all_cc_by_sa_split_is_cc_by_sa():
    t = combine([("sib200", "CC-BY-SA-4.0", 701), ("flores", "CC-BY-SA-4.0", 3)])
    assert t.terms == "CC-BY-SA-4.0"
    assert (t.commercial_use, t.share_alike, t.conflicts) == (True, True, ())
    assert len(t.attribution) == 2 and t.attribution[0].startswith("flores: Creative Commons Attribution Share")


def test_one_sciq_record_makes_a_cc_by_split_non_commercial():
    before = combine([("wiki", "CC-BY-4.0", 1000)])
    after = combine([("wiki", "CC-BY-4.0", 1000), ("sciq", "CC-BY-NC-3.0", 1)])
    assert before.commercial_use and before.terms == "CC-BY-4.0"
    assert not after.commercial_use
    assert after.terms == "CC-BY-NC-3.0"  # CC BY content takes on the stricter terms
    assert not after.conflicts and not after.allows("commercial") and after.allows("research")
    assert [s.name for s in after.sources] == ["sciq", "wiki"]  # attribution still lists both
    assert len(after.attribution) == 2


def test_cc_by_sa_with_cc_by_nc_is_a_conflict():
    t = combine([("sib200", "CC-BY-SA-4.0", 10), ("other", "CC-BY-NC-4.0", 1)])
    assert len(t.conflicts) == 1
    c = t.conflicts[0]
    assert c.licenses == ("CC-BY-NC-4.0", "CC-BY-SA-4.0")
    assert "non-commercial restriction of CC-BY-NC-4.0" in c.reason
    assert t.unresolved and not t.allows("research")
    assert t.terms == "CC-BY-NC-4.0 AND CC-BY-SA-4.0"
    assert not t.commercial_use and t.share_alike


def test_cc_by_joins_a_share_alike_split_without_conflict():
    t = combine([("sib200", "CC-BY-SA-4.0", 10), ("wiki", "CC-BY-4.0", 1)])
    assert (t.terms, t.conflicts, t.commercial_use) == ("CC-BY-SA-4.0", (), True)


def test_two_share_alike_licenses_conflict():
    t = combine([("a", "CC-BY-SA-4.0", 1), ("b", "CC-BY-NC-SA-4.0", 1)])
    assert any("each require" in c.reason for c in t.conflicts)


def test_nc_into_nc_sa_is_fine():
    t = combine([("a", "CC-BY-NC-4.0", 1), ("b", "CC-BY-NC-SA-4.0", 1)])
    assert (t.terms, t.conflicts, t.commercial_use) == ("CC-BY-NC-SA-4.0", (), False)


def test_no_derivatives_content_cannot_be_combined():
    assert not combine([("a", "CC-BY-ND-4.0", 1)]).conflicts
    assert combine([("a", "CC-BY-ND-4.0", 1), ("b", "CC-BY-4.0", 1)]).conflicts


def test_belebele_training_mix_is_a_conflict_and_non_commercial_either_way():
    mix = [("race", "RACE-research", 8), ("sciq", "CC-BY-NC-3.0", 3), ("mctest", "MSR-LA", 40),
           ("reclor", "ReClor-research", 50)]
    t = combine(mix)
    assert t.unresolved
    assert {c.licenses for c in t.conflicts} == {("CC-BY-NC-3.0", "MSR-LA"), ("MSR-LA", "RACE-research"),
                                                  ("MSR-LA", "ReClor-research")}
    assert not t.commercial_use
    o = combine(mix, override=LicenseOverride("non-commercial research", "as Belebele's training set"))
    assert not o.unresolved and all(c.overridden for c in o.conflicts)
    assert not o.commercial_use and not o.allows("commercial") and o.allows("research")
    # Without MCTest the non-commercial corpora combine without conflict.
    rest = combine(mix[:2] + mix[3:])
    assert rest.conflicts == () and rest.terms == "CC-BY-NC-3.0 AND RACE-research AND ReClor-research"


def test_unknown_sentinel_needs_an_override():
    t = combine([("mcscript", "unknown", 43)])
    assert t.unresolved and "unknown" in t.conflicts[0].reason and not t.allows("research")
    assert not combine([("mcscript", "unknown", 43)], override=LicenseOverride("", "checked by hand")).unresolved


def test_override_needs_a_written_reason():
    with pytest.raises(LicenseError, match="reason"):
        LicenseOverride.from_dict({"terms": "x", "reason": "  "})
    assert LicenseOverride.from_dict(None) is None


def test_zero_record_sources_are_ignored_and_an_empty_split_is_an_error():
    assert combine([("a", "CC-BY-4.0", 3), ("b", "CC-BY-NC-4.0", 0)]).commercial_use
    with pytest.raises(LicenseError, match="no records"):
        combine([])


# Properties: declared per attribute, as sklearn's test_common does for metrics.
IDS = sorted(REGISTRY)
shares = st.lists(st.tuples(st.sampled_from(["a", "b", "c"]), st.sampled_from(IDS), st.integers(1, 50)),
                  min_size=1, max_size=6)


@settings(max_examples=60, deadline=None)
@given(shares)
def test_restrictions_propagate_and_order_does_not_matter(parts):
    t = combine(parts)
    lics = [REGISTRY[lic] for _, lic, _ in parts]
    assert t.commercial_use == all(lic.commercial_use for lic in lics)
    assert t.share_alike == any(lic.share_alike for lic in lics)
    assert t.research_only == any(lic.research_only for lic in lics)
    assert sum(s.records for s in t.sources) == sum(n for _, _, n in parts)
    assert combine(list(reversed(parts))) == t
    if any(lic.sentinel for lic in lics):
        assert t.unresolved


@settings(max_examples=40, deadline=None)
@given(shares, st.sampled_from(IDS))
def test_adding_content_never_widens_the_terms(parts, extra):
    before = combine(parts)
    after = combine(parts + [("z", extra, 1)])
    assert after.commercial_use <= before.commercial_use
    assert after.research_only >= before.research_only
    if before.unresolved:
        assert after.unresolved  # a conflict is never cured by adding content
