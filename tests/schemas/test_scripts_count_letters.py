"""``count_letters`` remembers each character's class as a ``str.translate`` table; the counts must be what
classifying every character one by one gives, for every character of the Basic Multilingual Plane and
of the supplementary letters, in texts that mix them, whatever was counted before."""
from __future__ import annotations

import random

import pytest

from schemas import scripts
from schemas.scripts import _classify, count_letters

CHARS = [chr(cp) for cp in list(range(0x20, 0xD800)) + list(range(0xE000, 0x10000)) + list(range(0x10000, 0x20000, 7))]


def _reference(text, code):
    kinds = [_classify(c, code) for c in text]
    return sum(k > 0 for k in kinds), sum(k == 2 for k in kinds)


@pytest.mark.parametrize("code", ["Deva", "Latn", "Arab", "Hani", "Tibt", "Nkoo", "Ethi"])
def test_counts_are_the_per_character_classes(code, monkeypatch):
    monkeypatch.setattr(scripts, "_CLASSES", {})
    monkeypatch.setattr(scripts, "_SEEN", {})
    rng = random.Random(code)
    texts = ["".join(rng.choices(CHARS, k=rng.randint(0, 300))) for _ in range(200)] + ["".join(CHARS)]
    for text in texts + texts[:20]:  # the second time from the remembered table
        assert count_letters(text, code) == _reference(text, code)
