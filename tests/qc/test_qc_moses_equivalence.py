"""qc.tokens speeds sacremoses up; the tokens must stay exactly what plain sacremoses gives.

``qc.tokens._moses`` skips a regex pass on text that lacks a substring every
match needs, rewrites only runs of two or more spaces, and looks prefixes up
in sets. Each change must leave the output of ``MosesTokenizer.tokenize(
MosesPunctNormalizer.normalize(text))`` unchanged: checked here on the real
texts in tests/data (SIB-200 sentences in several languages, MCTest stories)
and on generated text full of the characters those rules touch.
"""
from __future__ import annotations

import csv
import re
from pathlib import Path
from functools import lru_cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sacremoses import MosesPunctNormalizer, MosesTokenizer

from qc.tokens import _moses, _required_literal

DATA = Path(__file__).resolve().parents[1] / "data"


@lru_cache(maxsize=None)
def _plain(lang: str):
    return MosesPunctNormalizer(lang=lang), MosesTokenizer(lang=lang)


def plain_tokens(text: str, lang: str) -> list[str]:
    norm, tok = _plain(lang)
    return tok.tokenize(norm.normalize(text), escape=False)


def fast_tokens(text: str, lang: str) -> list[str]:
    norm, tok = _moses(lang)
    return tok.tokenize(norm.normalize(text), escape=False)


def _sib_texts(variant: str) -> list[str]:
    with open(DATA / "sib200" / "annotated" / variant / "dev.tsv", encoding="utf-8", newline="") as fh:
        return [row["text"] for row in csv.DictReader(fh, delimiter="\t")]


@pytest.mark.parametrize("variant,lang", [("eng_Latn", "en"), ("deu_Latn", "de"), ("fra_Latn", "fr"),
                                          ("hin_Deva", "hi"), ("hau_Latn", "en"), ("jpn_Jpan", "ja")])
def test_real_sentences_tokenise_as_plain_sacremoses(variant, lang):
    path = DATA / "sib200" / "annotated" / variant / "dev.tsv"
    if not path.exists():
        pytest.skip(f"{variant} is not among the shipped SIB-200 variants")
    texts = _sib_texts(variant)
    assert texts
    joined = " ".join(texts)  # one long text, as tokenize_many hands sacremoses a batch
    assert fast_tokens(joined, lang) == plain_tokens(joined, lang)
    for text in texts[:40]:
        assert fast_tokens(text, lang) == plain_tokens(text, lang), text


def test_mctest_stories_tokenise_as_plain_sacremoses(mctest_frame):
    stories = list(dict.fromkeys(mctest_frame["passage"]))
    options = list(dict.fromkeys(mctest_frame[["answer1", "answer2", "answer3", "answer4"]].to_numpy().ravel()))
    for lang in ("en", "it"):
        assert fast_tokens(" ".join(stories), lang) == plain_tokens(" ".join(stories), lang)
        assert fast_tokens(" ".join(options), lang) == plain_tokens(" ".join(options), lang)


# Characters that the normaliser's and tokenizer's rules react to, whitespace of every kind included.
_TRICKY = list("aAbzZé1 9.,;:!?'\"`´‘’‚„“”«»()[]%-–—…/&@#") + [
    "\t", "\n", "\r", "\xa0", "\u2009", "\u3000", "\x1c", "\x0b", "  ", " . ", "''", "..", "...", "Mr.", "No.",
    "e.g.", "nº\xa0", "\xa0cm", "\xa0ºC", " %", "5,300", "l'", "'s", "n't", "DOTMULTI", "QQSEPQQ"]


@settings(max_examples=250, deadline=None)
@given(st.lists(st.sampled_from(_TRICKY), max_size=40).map("".join),
       st.sampled_from(["en", "fr", "it", "de", "fi", "cs", "hi"]))
def test_generated_text_tokenises_as_plain_sacremoses(text, lang):
    assert fast_tokens(text, lang) == plain_tokens(text, lang)


@lru_cache(maxsize=None)
def _guarded_patterns() -> list[tuple[re.Pattern, str]]:
    norm, tok = _plain("en")
    patterns = [re.compile(p) for p, _ in norm.substitutions] + [
        tok.DEDUPLICATE_SPACE[0], tok.PAD_NOT_ISALNUM[0], *(p for p, _ in tok.ENGLISH_SPECIFIC_APOSTROPHE),
        tok.COMMA_SEPARATE_1[0], tok.COMMA_SEPARATE_2[0], tok.TRAILING_DOT_APOSTROPHE[0], tok.MULTIDOT_RUN]
    return [(p, need) for p in patterns if (need := _required_literal(p)) is not None]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(_TRICKY), max_size=30).map("".join))
def test_required_literal_is_in_every_match(text):
    """A guard may only skip a pass that would have changed nothing."""
    assert len(_guarded_patterns()) > 30
    for pattern, need in _guarded_patterns():
        for match in pattern.finditer(text):
            assert need in match.group(), (pattern.pattern[:40], need, text)


def test_required_literal_reads_only_what_every_match_holds():
    assert _required_literal(r"(\d) %") == " %"
    assert _required_literal(r"\) ([.!:?;,])") == ") "
    assert _required_literal(r" +") == " "
    assert _required_literal(r"a|b") is None  # top-level alternation: no single literal
    assert _required_literal(r"x?y") == "y"  # an optional literal is not required
    assert _required_literal(re.compile("abc", re.IGNORECASE)) is None
    assert _required_literal("(?i)abc") is None


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("aB é\u00c5\ufb01\u212b") + [chr(c) for c in range(0x1c, 0x21)]
                                        + ["\t", "\n", "\xa0", "\u2009", "\u3000", "\x85", "\u2028", "\x0b"]),
               max_size=30))
def test_duplicate_key_normalisation_keeps_its_definition(text):
    """qc.textnorm.normalize takes a str.split fast path; the key must stay NFKC + regex \\s collapse."""
    import unicodedata

    import regex

    from qc.textnorm import normalize

    expected = regex.sub(r"\s+", " ", unicodedata.normalize("NFKC", text)).strip().casefold()
    assert normalize(text) == expected


_WINDOW_PATTERNS = [(r"([^a])'([^a])", r"\1 ' \2"), (r"([a])'([a])", r"\1 '\2"), (r"([^a1])'([a])", r"\1 ' \2"),
                    (r"([^0-9])[,]", r"\1 , "), (r"[,]([^0-9])", r" , \1"), (r"(1)'(s)", r"\1 '\2"), (r"\(", " ( ")]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="a1s ',(x", max_size=40), st.sampled_from(_WINDOW_PATTERNS))
def test_windowed_substitution_equals_a_whole_text_pass(text, rule):
    """Applying a fixed-width rule only around its literal gives re.sub's result, also for adjacent hits."""
    from qc.tokens import _window_of, _Windowed

    pattern, repl = re.compile(rule[0]), rule[1]
    window = _window_of(pattern)
    assert window is not None
    assert _Windowed(pattern, window).sub(repl, text) == pattern.sub(repl, text)


def test_only_fixed_width_patterns_are_windowed():
    from qc.tokens import _window_of

    assert _window_of(r"([^a])'([^a])") == ("'", 1, 3)
    assert _window_of(r"[,]([^0-9])") == (",", 0, 2)
    for pattern in (r"([0-9])[,]$", r"\.{2,}", r"a'|b", r"(?<=a)'", r"x y", r"'+", r"(?i)a'b"):
        assert _window_of(pattern) is None, pattern
