"""The guards qc.tokens puts on sacremoses rules: the installed ones, applied, and sound.

``qc.tokens`` skips a regex pass where a rule cannot match, as its hand-written
tables ``TOKENIZER_GUARDS`` and ``NORMALIZER_GUARDS`` say: a literal every
match contains, or a fixed-width window around a punctuation character. Here
every table entry must be a rule of the installed sacremoses (a release that
changes one fails: review the new rule, then update the table and the pin in
pyproject.toml), ``_moses`` must have applied it, and generated texts check
that each guard only skips passes that would have changed nothing.
"""
from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import MosesPunctNormalizer, MosesTokenizer

from qc.tokens import MOSES_LANGUAGES, NORMALIZER_GUARDS, TOKENIZER_GUARDS, _Guarded, _moses, _Windowed

_NORMALIZER_LANGS = tuple(sorted({"en", *MOSES_LANGUAGES.values()}))


def _pattern(template: str) -> str:
    return template.replace("{alpha}", MosesTokenizer.IsAlpha).replace("{isn}", MosesTokenizer.IsN)


def _rules(name: str) -> list[tuple[re.Pattern, object]]:
    value = getattr(MosesTokenizer, name)
    if isinstance(value, re.Pattern):
        return [(value, None)]
    return [value] if isinstance(value, tuple) else list(value)


def _describe(guarded) -> object:
    if isinstance(guarded, _Windowed):
        return (guarded.char, guarded.offset, guarded.width)
    if isinstance(guarded, _Guarded):
        return guarded.need
    return None


def test_every_table_entry_is_an_installed_rule():
    for name, expected in TOKENIZER_GUARDS.items():
        rules = _rules(name)
        assert [p.pattern for p, _ in rules] == [_pattern(t) for t, _ in expected], name
        assert all(p.flags == re.UNICODE for p, _ in rules), name
    installed = {p for lang in _NORMALIZER_LANGS for p, _ in MosesPunctNormalizer(lang=lang).substitutions}
    assert installed == set(NORMALIZER_GUARDS)


@pytest.mark.parametrize("lang", ["en", "fr", "it", "de", "hi", "ja"])
def test_moses_applies_every_guard_of_the_tables(lang):
    norm, tok = _moses(lang)
    kinds = Counter()
    for name, expected in TOKENIZER_GUARDS.items():
        value = getattr(tok, name)
        parts = value if isinstance(value, list) else [value]
        got = [_describe(g[0] if isinstance(g, tuple) else g) for g in parts]
        assert got == [g for _, g in expected], name
        kinds.update(type(g[0] if isinstance(g, tuple) else g) for g in parts)
    assert kinds == {_Guarded: 4, _Windowed: 12}
    needs = [need for _, _, need in norm.normalize.rules]
    assert len(needs) == len(MosesPunctNormalizer(lang=lang).substitutions) and None not in needs
    assert needs == ["  " if p == " +" else NORMALIZER_GUARDS[p] for p, _ in norm.substitutions]


@lru_cache(maxsize=None)
def _guarded_rules() -> list[tuple[re.Pattern, object, object]]:
    """(pattern, replacement, guard) of every guarded normaliser substitution and tokenizer rule."""
    substitutions = dict.fromkeys((p, r) for lang in _NORMALIZER_LANGS
                                  for p, r in MosesPunctNormalizer(lang=lang).substitutions)
    out = [(re.compile(p), r, NORMALIZER_GUARDS[p]) for p, r in substitutions if NORMALIZER_GUARDS[p] is not None]
    for name, expected in TOKENIZER_GUARDS.items():
        out += [(p, r, guard) for (p, r), (_, guard) in zip(_rules(name), expected)]
    return out


def _check_match(pattern: re.Pattern, guard, text: str) -> None:
    for match in pattern.finditer(text):
        if isinstance(guard, tuple):
            char, offset, width = guard
            assert len(match.group()) == width and match.group()[offset] == char, (pattern.pattern[:30], text)
        else:
            assert guard in match.group(), (pattern.pattern[:30], guard, text)


# What the rules react to, the guard literals and their halves, letters and digits of several scripts.
_PIECES = sorted({*"aAsSzé1٣क२ .,;:!?'\"`´‘’‚„“”«»()[]<>%-–—…/&#\r\n\t\xa0ºC",
                  *(g for g in NORMALIZER_GUARDS.values() if g), "DOT", "MULTI", "DOTMULTI", "cm", "nº", "...",
                  "''", "n't", " '", "' ", "5,300", "l'a"})


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=25).map("".join))
def test_a_guarded_pass_is_only_skipped_where_it_cannot_match(text):
    for pattern, repl, guard in _guarded_rules():
        _check_match(pattern, guard, text)
        if (guard[0] if isinstance(guard, tuple) else guard) not in text:
            assert pattern.search(text) is None, (pattern.pattern[:30], guard, text)
        repl = repl if isinstance(repl, str) else "<\\g<0>>"
        guarded = _Windowed(pattern, guard) if isinstance(guard, tuple) else _Guarded(pattern, guard)
        assert guarded.sub(repl, text) == pattern.sub(repl, text), (pattern.pattern[:30], text)


@pytest.mark.parametrize("rule", _guarded_rules(), ids=lambda rule: ascii(rule[0].pattern[:16]))
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_texts_that_match_a_guarded_rule_hold_its_guard(rule, data):
    pattern, _, guard = rule
    text = data.draw(st.from_regex(pattern))
    assert pattern.search(text)
    _check_match(pattern, guard, text)
