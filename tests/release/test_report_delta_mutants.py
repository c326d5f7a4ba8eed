"""The report's order of variants and its change in percentage points (issue 27's mutation run).

``builder.release.report._ordered`` lists the variants in the summary's order, each derived variant right after
the variant it was made from; a description that cannot be read, a variant made from itself and a cycle of
sources leave the order as it was, and every variant is listed once.

``builder.release.report._delta`` writes how a derived variant's score moved from its source's: a plus
sign, a real minus sign (U+2212) or ± for no change at the one decimal shown, and nothing when either
score is missing.
"""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from builder.release.report import _delta, _ordered


def test_the_change_has_its_sign_at_the_decimal_shown_and_is_empty_without_both_scores():
    assert _delta(0.80, 0.75) == "+5.0 pp"
    assert _delta(0.505, 0.5) == "+0.5 pp"
    assert _delta(0.495, 0.5) == "\u22120.5 pp"
    assert _delta(0.7, 0.732) == "\u22123.2 pp"
    assert _delta(0.5, 0.5) == "\u00b10.0 pp"
    assert _delta(0.5004, 0.5) == "\u00b10.0 pp"   # +0.04 pp is no change at one decimal
    assert _delta(None, 0.5) == _delta(0.5, None) == _delta(None, None) == ""


def _variant(code, derived=None):
    return {"variant": code} if derived is None else {"variant": code, "derived": derived}


def _codes(variants):
    return [v["variant"] for v in variants]


def test_a_derived_variant_follows_its_source_and_an_unreadable_description_is_ignored():
    assert _codes(_ordered([_variant("hin_Latn", {"method": "romanization", "from": "hin_Deva"}),
                            _variant("eng_Latn"), _variant("hin_Deva")])) == ["eng_Latn", "hin_Deva", "hin_Latn"]
    as_given = [_variant("a", {"method": "romanization"}), _variant("b", "romanized"), _variant("c", {"from": ""}),
                _variant("d", {"from": 3}), _variant("e", {"from": "e"}), _variant("f")]
    assert _ordered(as_given) == as_given  # no usable source, or itself: each stays where the summary has it


def test_a_source_named_twice_has_its_derived_variant_listed_once():
    source, again, derived = _variant("a"), _variant("a"), _variant("b", {"from": "a"})
    assert [id(v) for v in _ordered([source, again, derived])] == [id(source), id(derived), id(again)]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.one_of(st.none(), st.integers(0, 6), st.just("junk"))),
                max_size=8))
def test_every_variant_is_listed_once_and_after_its_source_whatever_the_sources(spec):
    variants = [_variant(f"v{code}", None if src is None else src if src == "junk" else {"from": f"v{src}"})
                for code, src in spec]
    out = _ordered(variants)
    assert sorted(map(id, out)) == sorted(map(id, variants))
    codes = set(_codes(variants))

    def source(v):
        d = v.get("derived")
        return d["from"] if isinstance(d, dict) and d["from"] in codes and d["from"] != v["variant"] else None

    roots = [v for v in variants if source(v) is None]
    assert [v for v in out if source(v) is None] == roots  # the summary's order, among what is made from nothing
    for v in variants:  # a variant whose chain of sources reaches a root comes after its source
        chain, at = {v["variant"]}, source(v)
        while at is not None and at not in chain:
            chain.add(at)
            at = next((source(w) for w in variants if w["variant"] == at), None)
        if source(v) is not None and at is None:
            first = min(i for i, w in enumerate(out) if w["variant"] == source(v))
            assert out.index(v) > first
