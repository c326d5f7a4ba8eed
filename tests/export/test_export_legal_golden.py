"""``ATTRIBUTION.md`` and ``LICENSE`` as people read them: golden files (issue 27).

A mutation run of ``data_cards/legal.py`` left most of ``render_attribution`` free to change (the
entries, their order, the MSR-LA notice for modified files, the references, the changes made by a
release and those of variants of other sources): the tests checked a line or two. One export of three
licenses from two sources, a license that asks modified files to say so, a reference given and one
from the citation table, the changes of a release, and a card without a "Filters applied" section.
"""
from __future__ import annotations

import pytest

from data_cards.legal import derived_changes, render_attribution, render_license
from schemas.license_terms import combine
from schemas.licensing import LicenseOverride

TERMS = combine([("MCTest", "MSR-LA", 2), ("SIB-200", "CC-BY-SA-4.0", 1234), ("SIB-200", "CC-BY-4.0", 5)])


def test_attribution_golden(golden):
    text = render_attribution("demo", TERMS, references={"MCTest": "Richardson et al. (2013)"},
                              changes={"SIB-200": ["romanized hin_Deva with uroman"],
                                       "FLORES-200": ["aligned to the pivot eng_Latn"]})
    golden("export/ATTRIBUTION.md", text)


def test_attribution_without_filters_golden(golden):
    golden("export/ATTRIBUTION-unfiltered.md", render_attribution("demo", TERMS, filters=False))


def test_license_golden(golden):
    golden("export/LICENSE.txt", render_license("demo", TERMS))


def test_license_of_restricted_terms_with_an_override_golden(golden):
    """Research-only terms, a source whose license is not known (no text to link), the recipe's
    override (its conflicts marked overridden) and an override that states no terms."""
    override = LicenseOverride(terms="CC-BY-NC-4.0 AND RACE-research", reason="reviewed by counsel, 2026-11")
    terms = combine([("RACE", "RACE-research", 3), ("scraped", "unknown", 1), ("SciQ", "CC-BY-NC-3.0", 2)],
                    override=override)
    text = render_license("restricted", terms, override)
    golden("export/LICENSE-restricted.txt", text)
    bare = render_license("restricted", terms, LicenseOverride(terms="", reason="none given"))
    assert "  Terms: (none stated)" in bare.splitlines()


#: variant.json records -> the changes ATTRIBUTION.md lists, per source (None: no source_name)
CHANGES = [
    ({}, {}),
    (None, {}),
    ({"x": "not a record", "y": {"source_name": "S"}}, {}),
    ({"hin_Latn": {"method": "romanization", "source_name": "S", "tool": "uroman", "version": "1.3",
                   "scheme": "uroman", "source_variant": "hin_Deva", "native_letters_left": 1234}},
     {"S": ["romanized with uroman 1.3 (scheme uroman): hin_Latn from hin_Deva (1,234 native characters left)"]}),
    # tool and scheme without the method still mean a romanization; a version, a source or a count missing
    ({"a_Latn": {"tool": "t", "scheme": "s", "native_letters_left": 0},
      "b_Latn": {"tool": "t", "scheme": "s", "native_letters_left": True, "source_variant": ""},
      "c_Latn": {"method": "romanization", "native_letters_left": "3"}},
     {None: ["romanized with t (scheme s): a_Latn from ?, b_Latn from ?",
             "romanized with ? (scheme ?): c_Latn from ?"]}),
    ({"b": {"source_name": "S", "aligned": {"pivot": "eng_Latn"}},
      "a": {"source_name": "S", "aligned": {}},
      "c": {"source_name": "S", "aligned": "eng_Latn"},
      "d": {"source_name": "S", "aligned": {"pivot": "eng_Latn"}}},
     {"S": ["re-split as the pivot ? is split: a", "re-split as the pivot eng_Latn is split: b, d"]}),
    ({"zul_Latn": {"method": "projection", "source_name": "", "source_variant": "eng_Latn"},
      "xho_Latn": {"method": "projection"},
      "tam_Latn": {"method": "copy", "source_name": "T"}},
     {None: ["projected: labels carried to the parallel sentences of another variant: "
             "xho_Latn from ?, zul_Latn from eng_Latn"]}),
    # a record that is not one does not end the list; a tool without a scheme is no romanization; one letter left
    ({"a": "not a record", "b": {"source_name": "S", "aligned": {"pivot": "p"}}, "c": {"tool": "t"},
      "d": {"method": "romanization", "tool": "t", "scheme": "s", "native_letters_left": 1}},
     {"S": ["re-split as the pivot p is split: b"],
      None: ["romanized with t (scheme s): d from ? (1 native characters left)"]}),
    # one variant, every kind of change, in the order romanized, re-split, projected
    ({"v": {"method": "projection", "tool": "u", "version": "2", "scheme": "k", "source_variant": "w",
            "aligned": {"pivot": "p"}, "source_name": "S"}},
     {"S": ["romanized with u 2 (scheme k): v from w", "re-split as the pivot p is split: v",
            "projected: labels carried to the parallel sentences of another variant: v from w"]}),
]


@pytest.mark.parametrize("info, expected", CHANGES)
def test_derived_changes(info, expected):
    assert derived_changes(info) == expected


def test_a_license_of_two_sources_names_both_and_a_license_without_a_text_is_not_a_link():
    from data_cards.legal import render_attribution, render_license
    from schemas.license_terms import combine

    text = render_license("two", combine([("alpha", "CC-BY-4.0", 3000), ("beta", "CC-BY-4.0", 2)]), None)
    assert "  Applies to: alpha (3,000 records), beta (2 records)" in text.splitlines()
    attribution = render_attribution("odd", combine([("gamma", "unknown", 5)])).splitlines()
    assert "- License: unknown license (not confirmed) (`unknown`); 5 records." in attribution
