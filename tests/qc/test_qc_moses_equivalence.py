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
from oracles import MosesPunctNormalizer, MosesTokenizer

from qc.tokens import _moses, _Windowed

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
        pytest.fail(f"{path} is missing: the shipped SIB-200 sample lost a variant")
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


# (pattern, replacement, window): every match is `width` characters with `char` at `offset`.
_WINDOW_PATTERNS = [(r"([^a])'([^a])", r"\1 ' \2", ("'", 1, 3)), (r"([a])'([a])", r"\1 '\2", ("'", 1, 3)),
                    (r"([^a1])'([a])", r"\1 ' \2", ("'", 1, 3)), (r"([^0-9])[,]", r"\1 , ", (",", 1, 2)),
                    (r"[,]([^0-9])", r" , \1", (",", 0, 2)), (r"(1)'(s)", r"\1 '\2", ("'", 1, 3)),
                    (r"\(", " ( ", ("(", 0, 1))]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="a1s ',(x", max_size=40), st.sampled_from(_WINDOW_PATTERNS))
def test_windowed_substitution_equals_a_whole_text_pass(text, rule):
    """Applying a fixed-width rule only around its literal gives re.sub's result, also for adjacent hits."""
    pattern, repl, window = re.compile(rule[0]), rule[1], rule[2]
    assert _Windowed(pattern, window).sub(repl, text) == pattern.sub(repl, text)
