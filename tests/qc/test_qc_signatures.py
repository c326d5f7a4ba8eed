"""The near-duplicate search signs each text once (``qc.duplicates.signatures``) and gets what a fresh
MinHash of the same shingles gives, whatever was asked before: other widths, other shingle sizes,
texts seen or not, the memory full or not."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from qc import duplicates
from qc.duplicates import minhash, near_duplicate_pairs, signatures
from qc.textnorm import char_shingles_many

_texts = st.lists(st.text(alphabet="abcdeé ह", min_size=0, max_size=12), min_size=0, max_size=8)


@settings(max_examples=120, deadline=None)
@given(st.lists(st.tuples(_texts, st.sampled_from([3, 5]), st.sampled_from([8, 32, 64, 96])), min_size=1,
                max_size=5))
def test_every_call_equals_a_fresh_minhash(calls):
    for texts, k, num_perm in calls:
        sh, sig = signatures(texts, k, num_perm)
        ref = char_shingles_many(texts, k)
        assert [x.tolist() for x in sh] == [x.tolist() for x in ref]
        assert sig.shape == (len(texts), num_perm) and (sig == minhash(ref, num_perm)).all()


def test_the_memory_is_bounded_and_a_forgotten_text_is_signed_again(monkeypatch):
    monkeypatch.setattr(duplicates, "_KEPT", 4)
    monkeypatch.setattr(duplicates, "_signed", type(duplicates._signed)())
    first = [f"text number {i}" for i in range(10)]
    signatures(first, 5, 32)
    assert len(duplicates._signed) == 10  # one call's texts are all kept while it runs
    signatures(["another text"], 5, 32)
    assert len(duplicates._signed) == 4
    sh, sig = signatures(first, 5, 64)
    assert (sig == minhash(char_shingles_many(first, 5), 64)).all()


def test_the_pairs_found_do_not_depend_on_what_was_signed_before(monkeypatch):
    texts = ["the cat sat on the mat today", "the cat sat on the mat today!", "a dog ran", "a dog ran far"]
    monkeypatch.setattr(duplicates, "_signed", type(duplicates._signed)())
    cold = near_duplicate_pairs(texts, threshold=0.5, k=5, num_perm=64, bands=16)
    signatures([t.upper() for t in texts] + texts[::-1], 5, 128)  # other texts, a wider signature
    assert near_duplicate_pairs(texts, threshold=0.5, k=5, num_perm=64, bands=16) == cold
    assert near_duplicate_pairs(texts, threshold=0.5, k=5, num_perm=32, bands=8) == near_duplicate_pairs(
        texts, threshold=0.5, k=5, num_perm=32, bands=8)
    assert np.array_equal(signatures(texts, 5, 32)[1], signatures(texts, 5, 64)[1][:, :32])
