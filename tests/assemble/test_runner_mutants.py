"""The streaming filter runner's bookkeeping, pinned where the whole mutation run of issue 27 found it loose.

``builder.filters.runner`` keeps what the ``source`` steps have seen (:class:`SeenStore`), hands a worker's
precomputed digests to the first step only (:class:`Chain`), and refuses a passage whose questions are not
together. The assembly tests go through all of it with well-behaved sources; these add the edges: a lone
surrogate in a key, the store's bound, a chain with two ``source`` steps, the refusal's wording.
"""
from __future__ import annotations

import numpy as np
import pytest

import builder.filters.runner as runner
from builder.filters import Ledger, StepContext, get_filter
from builder.filters.base import Filter
from builder.filters.runner import Chain, SeenStore, StepLedger, _PerPassage, key_digest
from builder.readers.base import RawMCItem
from schemas.errors import SourceError


def item(question="Why?", options=("a", "b", "c", "d"), passage="Text.", pid="p", qid="q", record="#0"):
    return RawMCItem("demo", "train", pid, qid, passage, question, list(options), [0], "f.json", record, {})


def ctx(ledger=None):
    return StepContext("demo", "train", "train", 0, ledger if ledger is not None else Ledger())


class Key:
    key = staticmethod(lambda item: item)


def test_a_key_with_a_lone_surrogate_is_hashed_not_refused():
    # JSON may escape half of a surrogate pair ("\ud83d"); Python reads it as a lone surrogate
    a, b = key_digest(Key(), ("Text \ud83d.", "Why?")), key_digest(Key(), ("Text \ud83e.", "Why?"))
    assert len(a) == 16 and a != b
    assert key_digest(Key(), "\ud83d") != key_digest(Key(), "\ud83e")  # a key that is not a tuple


def test_a_drop_before_any_step_is_the_readers():
    ledger = StepLedger()
    ledger.add("bad record")
    assert ledger.drops == [(-1, "bad record")]


def test_the_store_moves_its_recent_digests_to_the_sorted_arrays_and_keeps_the_texts_exactly(monkeypatch):
    monkeypatch.setattr(SeenStore, "RECENT", 4)
    store = SeenStore()  # in memory
    table = store.table("demo")
    firsts = {bytes([i]) * 16: f"train f.json #{i} \ud83d" for i in range(1, 6)}
    for digest, first in firsts.items():
        assert store.add(table, {digest: first}) == {}
    assert len(table["recent"]) == 1 and len(table["hi"]) == 4  # four merged, the fifth still recent
    merged = [first.encode("utf-8", "surrogatepass") for first in list(firsts.values())[:4]]
    assert store.file.getvalue() == b"".join(len(t).to_bytes(4, "little") + t for t in merged)
    assert store.add(table, {d: "dev" for d in firsts}) == firsts  # each found, with its first text


class SameQuestion(Filter):
    """A second ``source`` step: a question asked again in the source, whatever its passage."""

    name = "same_question"
    reasons = ("same_question",)
    scope = "source"
    uses_meta = False

    @staticmethod
    def key(item):
        return item.question.strip()

    @staticmethod
    def where(item):
        return f"{item.split} {item.file} {item.record}"

    def repeated(self, first):
        return self.name, f"asked before in {first}"


def test_precomputed_digests_go_to_the_first_source_step_only():
    items = [item(record="#0"), item(record="#1"),                      # the same question twice
             item(passage="Other.", record="#2"),                      # same question, other passage
             item(question="How?", passage="Other.", record="#3")]
    first = get_filter("duplicate_question")
    digests = [key_digest(first, it) for it in items]
    results = []
    for given in (None, digests):
        ledger = Ledger()
        kept = Chain([get_filter("duplicate_question"), SameQuestion()], 0, ctx(ledger)).feed(items, given)
        results.append(([it.record for it in kept], [(d.reason, d.record_id) for d in ledger.entries]))
    assert results[0] == results[1] == (
        ["#0", "#3"], [("duplicate_question", "#1"), ("same_question", "#2")])


def test_a_passage_whose_questions_are_apart_stops_the_assembly_naming_the_record():
    runner = _PerPassage(get_filter("complete_options"), ctx(), None, None)
    with pytest.raises(SourceError) as err:
        runner.feed([item(pid="p1", record="#0"), item(pid="p2", record="#1"), item(pid="p1", record="#2")])
    assert str(err.value) == (
        "f.json, #2: complete_options: the questions of passage p1 are not together (another passage comes "
        "between them); the streaming assembly needs a passage's questions one after another")



def _digest(hi: int, lo: int) -> bytes:
    """A 16-byte digest as the store splits it: two little-endian 64-bit halves."""
    return hi.to_bytes(8, "little") + lo.to_bytes(8, "little")


def test_the_sorted_arrays_tell_apart_digests_that_differ_in_their_last_bit_only(monkeypatch):
    """Halves held as 64-bit integers: as floats (53 bits), 2**63 + 1 and 2**63 + 2 are one number."""
    monkeypatch.setattr(SeenStore, "RECENT", 2)
    top = 2 ** 63
    store = SeenStore()
    table = store.table("demo")
    assert store.add(table, {_digest(5, top + 1): "a", _digest(top + 1, 5): "b"}) == {}  # merged
    assert len(table["hi"]) == 2
    assert store.add(table, {_digest(5, top + 2): "c", _digest(top + 2, 5): "d"}) == {}  # same but the last bit
    assert store.add(table, {_digest(5, top + 1): "e", _digest(top + 2, 5): "f"}) == {_digest(5, top + 1): "a",
                                                                                    _digest(top + 2, 5): "d"}


def test_every_digest_merged_into_the_sorted_arrays_is_found_again(monkeypatch):
    monkeypatch.setattr(SeenStore, "RECENT", 8)
    rng = np.random.default_rng(0)
    digests = [bytes(rng.integers(0, 256, 16, dtype=np.uint8)) for _ in range(200)]
    digests += [d[:8] + bytes(8) for d in digests[:20]]  # hi halves met twice, with another lo
    store = SeenStore()
    table = store.table("demo")
    for k, d in enumerate(digests):
        assert store.add(table, {d: f"#{k}"}) == {}
    assert len(table["recent"]) < 8
    assert store.add(table, {d: "again" for d in digests}) == {d: f"#{k}" for k, d in enumerate(digests)}


def test_the_ledger_counts_every_drop_of_a_reason_and_keeps_them_in_order():
    from builder.filters.base import Drop

    ledger = Ledger()
    drops = [Drop("RACE", "train", "train", "a.txt", "#0", "fill_in_blank", "fill_in_blank"),
             Drop("RACE", "train", "train", "a.txt", "#2", "fill_in_blank", "fill_in_blank"),
             Drop("RACE", "dev", "dev", "b.txt", "#0", "fill_in_blank", "fill_in_blank"),
             Drop("RACE", "train", "train", "c.txt", "#1", "fill_in_blank", "fill_in_blank")]
    for drop in drops:
        ledger.add(drop)
    assert ledger.entries == drops and len(ledger) == 4
    assert ledger.counts == {("RACE", "train", "fill_in_blank"): 3, ("RACE", "dev", "fill_in_blank"): 1}
    assert (ledger.dropped("RACE", "train"), ledger.dropped("RACE", "dev"), ledger.dropped("SciQ", "train")) == (3, 1, 0)


def test_a_one_element_tuple_key_and_the_empty_tuple_have_different_digests():
    # the first string of a tuple key is hashed after its length: without it, ("r",) hashes b"r" + b"()", the
    # text the empty tuple (hashed as its repr, after b"r") gives
    assert key_digest(Key(), ("r",)) != key_digest(Key(), ())
    assert key_digest(Key(), ("r",)) == key_digest(Key(), ("r",))


def test_a_store_given_a_path_writes_the_merged_texts_to_that_file(tmp_path, monkeypatch):
    # SeenStore(path) keeps the texts naming first copies in that file, not in memory
    monkeypatch.setattr(SeenStore, "RECENT", 2)
    store = SeenStore(tmp_path / "seen.bin")
    table = store.table("demo")
    assert store.add(table, {b"a" * 16: "train 1.txt #0", b"b" * 16: "train 1.txt #1"}) == {}  # merged
    store.file.flush()
    texts = [b"train 1.txt #0", b"train 1.txt #1"]
    assert (tmp_path / "seen.bin").read_bytes() == b"".join(len(t).to_bytes(4, "little") + t for t in texts)
    assert store.add(table, {b"b" * 16: "dev 2.txt #0"}) == {b"b" * 16: "train 1.txt #1"}  # read back from it
    store.close()


def test_a_source_step_hashes_the_records_whose_digests_are_not_known():
    # digests of None (a worker that computed none): the step hashes the keys itself, so two different
    # questions are not taken for copies of each other
    ledger = Ledger()
    items = [item(record="#0"), item(question="How?", record="#1")]
    kept = Chain([get_filter("duplicate_question")], 0, ctx(ledger)).feed(items, [None, None])
    assert [it.record for it in kept] == ["#0", "#1"] and not ledger.entries


def test_the_first_source_step_uses_the_digests_it_is_given_without_hashing_again(monkeypatch):
    # the workers' digests reach the first source step, which does not recompute them (the keys are hashed once)
    items = [item(record="#0"), item(record="#1"), item(question="How?", record="#2")]
    step = get_filter("duplicate_question")
    digests = [key_digest(step, it) for it in items]
    calls = []
    monkeypatch.setattr(runner, "key_digest", lambda step, it: calls.append(it.record) or key_digest(step, it))
    ledger = Ledger()
    kept = Chain([get_filter("duplicate_question")], 0, ctx(ledger)).feed(items, digests)
    assert [it.record for it in kept] == ["#0", "#2"] and [d.record_id for d in ledger.entries] == ["#1"]
    assert calls == []
    Chain([get_filter("duplicate_question")], 0, ctx()).feed(items)  # no digests: the step hashes each key
    assert calls == ["#0", "#1", "#2"]


def test_a_chain_knows_whether_its_first_step_is_a_source_step():
    # the assembly hands a worker's digests to a chain whose first step is of scope source, and only then
    assert Chain([get_filter("duplicate_question")], 0, ctx()).first_is_source() is True
    steps = [get_filter("fill_in_blank"), get_filter("duplicate_question")]
    assert Chain(steps, 1, ctx()).first_is_source() is True
    assert Chain(steps, 0, ctx()).first_is_source() is False
    assert Chain([], 0, ctx()).first_is_source() is False
