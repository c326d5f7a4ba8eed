"""Invariants of the shuffle, the one runner and the ledger (Hypothesis)."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from builder.assemble.shuffle import balanced_positions, shuffled_columns, split_draws
from builder.filters import FILTERS, FourOptions, Ledger, StepContext, get_filter
from builder.filters.runner import Chain
from builder.readers.base import BadRecord, RawMCItem

texts = st.text(alphabet="abcdeé _.?!।。 ", min_size=0, max_size=12)


def shuffle_options(items, rng):
    """``(answers, correct_answer_num)`` per item, through the assembly's shuffle of one split in one batch."""
    rows = [(it.corpus, it.passage_id, it.question_id, it.passage, it.question, it.options, it.correct, it.file,
             it.record) for it in items]
    if not rows:
        return []
    cols = shuffled_columns(rows, *split_draws(len(rows), rng))
    return [(tuple(cols[f"answer{k}"][i] for k in range(1, 5)), cols["correct_answer_num"][i])
            for i in range(len(rows))]


def filter_split(items, bads, steps, ctx, batch=None):
    """What the assembly does with one split: reader errors to the ledger, then the steps (in batches)."""
    for bad in bads:
        ctx.drop(bad, bad.reason, "reader", bad.message)
    chain, kept = Chain(steps, 0, ctx), []
    for start in range(0, len(items), batch or max(1, len(items))):
        kept += chain.feed(items[start:start + (batch or len(items))])
    return kept + chain.finish()


@st.composite
def four_option_items(draw, max_size=40):
    n = draw(st.integers(0, max_size))
    items = []
    for i in range(n):
        options = draw(st.lists(st.text(min_size=1, max_size=8), min_size=4, max_size=4, unique=True))
        items.append(RawMCItem("demo", "train", "p", f"q{i}", "Text.", "Why?", options,
                               [draw(st.integers(0, 3))], "f", f"#{i}"))
    return items


@st.composite
def raw_items(draw):
    """Any mix the readers can yield: 0-7 options, 0-3 correct, blanks, '_' questions, bad records.

    A passage's questions come one after another (the readers' contract).
    """
    n = draw(st.integers(0, 25))
    passages = draw(st.lists(texts, min_size=1, max_size=4))
    out = []
    pids = sorted(draw(st.lists(st.integers(0, len(passages) - 1), min_size=n, max_size=n)))
    for i in range(n):
        if draw(st.integers(0, 9)) == 0:
            out.append(BadRecord("demo", "train", "f", f"#{i}", "malformed_json", "bad"))
            continue
        k = draw(st.integers(0, 7))
        options = draw(st.lists(texts, min_size=k, max_size=k))
        correct = draw(st.lists(st.integers(0, max(k - 1, 0)), max_size=3)) if k else []
        pid = pids[i]
        out.append(RawMCItem("demo", "train", f"p{pid}", f"q{i}", passages[pid], draw(texts), options, correct,
                             "f", f"#{i}"))
    return out


@settings(max_examples=40, deadline=None)
@given(four_option_items(), st.integers(0, 2**32 - 1))
def test_shuffle_keeps_the_correct_text_and_the_options(items, seed):
    for item, (answers, num) in zip(items, shuffle_options(items, np.random.default_rng(seed))):
        assert 1 <= num <= 4
        assert answers[num - 1] == item.options[item.correct[0]]
        assert sorted(answers) == sorted(item.options)


@settings(max_examples=25, deadline=None)
@given(four_option_items(), st.integers(0, 2**32 - 1))
def test_same_seed_same_order(items, seed):
    ctx = StepContext("demo", "train", "train", seed, Ledger())
    assert shuffle_options(items, ctx.rng("shuffle")) == shuffle_options(items, ctx.rng("shuffle"))


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 5000), st.integers(0, 2**32 - 1))
def test_correct_positions_are_balanced(n, seed):
    counts = np.bincount(balanced_positions(n, np.random.default_rng(seed)), minlength=4)
    assert counts.sum() == n and counts.max() - counts.min() <= 1


def test_positions_roughly_balanced_over_many_items_and_sources():
    ledger, total = Ledger(), np.zeros(4, int)
    for source in ("RACE", "SciQ", "MCTest", "ReClor", "MultiRC"):
        for split in ("train", "dev"):
            items = [RawMCItem(source, split, "p", f"q{i}", "T.", "Q?", list("abcd"), [i % 4], "f", f"#{i}")
                     for i in range(1001)]
            rows = shuffle_options(items, StepContext(source, split, split, 0, ledger).rng("shuffle"))
            total += np.bincount([num - 1 for _, num in rows], minlength=4)
    assert total.sum() == 10010 and total.max() - total.min() <= 10


@settings(max_examples=60, deadline=None)
@given(raw_items(), st.lists(st.sampled_from(sorted(FILTERS)), max_size=5), st.integers(0, 99))
def test_ledger_plus_output_account_for_every_record(records, names, seed):
    items = [r for r in records if isinstance(r, RawMCItem)]
    bads = [r for r in records if isinstance(r, BadRecord)]
    ledger = Ledger()
    ctx = StepContext("demo", "train", "train", seed, ledger)
    steps = [get_filter(name) for name in names] + [FourOptions()]
    kept = filter_split(items, bads, steps, ctx)
    assert len(kept) + len(ledger) == len(records)
    assert sorted([k.record for k in kept] + [d.record_id for d in ledger.entries]) == sorted(r.record for r in records)
    for k in kept:  # what survives is in Belebele's shape
        assert len(k.options) == 4 and len(set(k.correct)) == 1
        assert k.options.count(k.options[k.correct[0]]) == 1
    # the same records, seed and steps give the same result
    again = filter_split(items, bads, [get_filter(name) for name in names] + [FourOptions()],
                         StepContext("demo", "train", "train", seed, Ledger()))
    assert [(k.question_id, k.options) for k in again] == [(k.question_id, k.options) for k in kept]


def test_adding_a_source_does_not_reshuffle_others():
    items = [RawMCItem("RACE", "train", "p", f"q{i}", "T.", "Q?", list("abcd"), [0], "f", f"#{i}") for i in range(50)]
    first = shuffle_options(items, StepContext("RACE", "train", "train", 0, Ledger()).rng("shuffle"))
    # another source's generator is independent of RACE's: drawing from it first changes nothing
    StepContext("SciQ", "train", "train", 0, Ledger()).rng("shuffle").integers(10, size=100)
    assert shuffle_options(items, StepContext("RACE", "train", "train", 0, Ledger()).rng("shuffle")) == first


@settings(max_examples=60, deadline=None)
@given(raw_items(), st.lists(st.sampled_from(sorted(FILTERS)), max_size=5), st.integers(0, 99), st.integers(1, 7))
def test_any_batching_gives_the_same_records_and_ledger(records, names, seed, batch):
    # the one runner: the records of a split fed in batches of any size, as the workers send them
    items = [r for r in records if isinstance(r, RawMCItem)]
    bads = [r for r in records if isinstance(r, BadRecord)]
    whole, parts = Ledger(), Ledger()
    one = filter_split(items, bads, [get_filter(name) for name in names] + [FourOptions()],
                       StepContext("demo", "train", "train", seed, whole))
    many = filter_split(items, bads, [get_filter(name) for name in names] + [FourOptions()],
                        StepContext("demo", "train", "train", seed, parts), batch=batch)
    assert [(k.question_id, k.options, k.correct) for k in many] == [(k.question_id, k.options, k.correct)
                                                                     for k in one]
    assert sorted(parts.entries, key=str) == sorted(whole.entries, key=str)
    assert parts.counts == whole.counts
