"""``ATTRIBUTION.md`` and ``LICENSE`` as people read them: golden files (issue 27).

A mutation run of ``data_cards/legal.py`` left most of ``render_attribution`` free to change (the
entries, their order, the MSR-LA notice for modified files, the references, the changes made by a
release and those of variants of other sources): the tests checked a line or two. One export of three
licenses from two sources, a license that asks modified files to say so, a reference given and one
from the citation table, the changes of a release, and a card without a "Filters applied" section.
"""
from __future__ import annotations

from data_cards.legal import render_attribution, render_license
from schemas.license_terms import combine

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
