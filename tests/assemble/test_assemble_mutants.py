"""Tests that kill mutants of the assembly's decisions (issue 17, docs/testing.md).

Each test here fails when a specific small bug is put into the code; the bug
is named in the test's comment. Three were survivors of a hand-made mutation
run and are kept as named regressions:

* the sentence-count fast path without its ``+ 1``
  (``test_25_terminated_sentences_plus_an_unterminated_26th_are_dropped``);
* the answer shuffle leaving the wrong options in source order
  (``test_wrong_options_move`` and ``test_wrong_option_orders_are_uniform``);
* the per-step generator seeded without the source name
  (``test_two_sources_get_independent_shuffle_streams`` and
  ``test_assembly_shuffles_two_sources_of_the_same_records_differently``).
"""
from __future__ import annotations

import contextlib
import json
import shutil
import tempfile
from collections import Counter
from itertools import permutations
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import builder.assemble.output as output
import builder.assemble.stream as stream
import builder.filters.runner as runner
from builder.assemble import assemble
from builder.assemble.output import Outputs, encode_part
from builder.assemble.shuffle import balanced_positions, shuffled_columns, split_draws
from builder.filters import FILTERS, Filter, FourOptions, Ledger, StepContext, get_filter
from builder.filters.sentences import count_sentences, more_sentences_than, split_sentences
from builder.filters.too_many_sentences import DEFAULT_MAX_SENTENCES, TooManySentences
from builder.readers.base import RawMCItem
from builder.recipe import recipe_from_dict

ROOT = Path(__file__).parents[2]
SOURCES = ROOT / "tests" / "data" / "sources"


def assembled(recipe, **kw):
    """``recipe`` through the streaming assembly in a temporary folder: its result, each split's columns, the ledger."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out"
        result, manifest = assemble(recipe, out, **kw)
        columns = {split: pq.read_table(out / f"{split}.parquet").to_pydict() for split in manifest["splits"]}
        ledger = [json.loads(line) for line in (out / "dropped.jsonl").read_text(encoding="utf-8").splitlines()]
    return result, columns, ledger


def shuffle_options(items, rng):
    """``(answers, correct_answer_num)`` per item: the assembly's shuffle of one split, in one batch."""
    rows = [(it.corpus, it.passage_id, it.question_id, it.passage, it.question, it.options, it.correct, it.file,
             it.record) for it in items]
    if not rows:
        return []
    cols = shuffled_columns(rows, *split_draws(len(rows), rng))
    return [(tuple(cols[f"answer{k}"][i] for k in range(1, 5)), cols["correct_answer_num"][i])
            for i in range(len(rows))]


def item(passage="Text.", options=("a", "b", "c", "d"), correct=(0,), qid="q", meta=None, source="demo"):
    return RawMCItem(source, "train", "p", qid, passage, "Why?", list(options), list(correct), "f.json",
                     f"#{qid}", meta or {})


# --- (a) the sentence-count boundary: 25 and 26 sentences, with and without a final terminator -----------

def passage(terminated: int, unterminated_tail: bool) -> str:
    """``terminated`` sentences that end in a full stop, then optionally one without a terminator."""
    text = " ".join(f"Sentence number {k} is short." for k in range(1, terminated + 1))
    return text + (" And this last one has no full stop" if unterminated_tail else "")


BOUNDARY = [
    # (terminated sentences, unterminated tail, sentences in all, kept at max 25)
    (24, False, 24, True),
    (24, True, 25, True),    # 24 marks: the fast path may decide alone
    (25, False, 25, True),   # 25 marks: the fast path must not decide "too many" ...
    (25, True, 26, False),   # ... nor "not too many": 25 marks + an unterminated 26th
    (26, False, 26, False),
    (26, True, 27, False),
]


@pytest.mark.parametrize("terminated, tail, total, kept", BOUNDARY)
def test_sentence_counts_at_the_boundary(terminated, tail, total, kept):
    text = passage(terminated, tail)
    assert len(split_sentences(text)) == total
    assert count_sentences(text) == total
    assert more_sentences_than(text, DEFAULT_MAX_SENTENCES) is (not kept)
    assert TooManySentences().keep(item(passage=text)) is kept


def test_25_terminated_sentences_plus_an_unterminated_26th_are_dropped():
    # Mutant: ``len(_MARK.findall(text)) + 1 <= limit`` with the ``+ 1`` removed; 25 marks <= 25 would
    # then decide "not too many" without counting, and keep this 26-sentence passage.
    text = passage(25, True)
    assert len(regex_marks(text)) == 25
    ledger = Ledger()
    kept = get_filter("too_many_sentences", max_sentences=25).run(
        [item(passage=text, qid="q26"), item(passage=passage(25, False), qid="q25")],
        StepContext("demo", "train", "train", 0, ledger))
    assert [k.question_id for k in kept] == ["q25"]
    assert [(d.question_id, d.reason) for d in ledger.entries] == [("q26", "too_many_sentences")]


def regex_marks(text: str) -> list[str]:
    from builder.filters.sentences import _MARK

    return _MARK.findall(text)


@pytest.mark.parametrize("limit", [1, 2, 3, 5])
@pytest.mark.parametrize("terminated", [0, 1, 2, 3, 4, 5, 6])
@pytest.mark.parametrize("tail", [False, True])
def test_fast_path_agrees_with_a_full_count(limit, terminated, tail):
    text = passage(terminated, tail)
    assert more_sentences_than(text, limit) is (count_sentences(text) > limit)


@pytest.mark.parametrize("text, sentences", [
    ("A", ["A"]),                                      # one character, no terminator
    ("First one. Second one without an end", ["First one.", "Second one without an end"]),
    ("  Trailing blanks only.   ", ["Trailing blanks only."]),
])
def test_unterminated_tails_are_sentences(text, sentences):
    assert split_sentences(text) == sentences
    assert count_sentences(text) == len(sentences)


def test_the_reader_count_decides_at_the_boundary():
    f = TooManySentences(max_sentences=25)
    assert f.keep(item(meta={"num_sentences": 25})) is True
    assert f.keep(item(meta={"num_sentences": 26})) is False
    assert f.keep(item(meta={"sentences": ["s"] * 25})) is True
    assert f.keep(item(meta={"sentences": ["s"] * 26})) is False
    assert f.sentences(item(passage="One. Two. Three.")) == 3
    assert f.sentences(item(meta={"num_sentences": 7})) == 7
    assert f.known_count(item(meta={"num_sentences": "7"})) is None  # only an int is a count


# --- (b) the answer shuffle moves the wrong options -----------------------------------------------------

def four_option_items(n: int, source: str = "demo") -> list[RawMCItem]:
    return [item(options=(f"right{i}", f"w1-{i}", f"w2-{i}", f"w3-{i}"), qid=f"q{i}", source=source)
            for i in range(n)]


def wrong_order(item_: RawMCItem, answers) -> tuple[int, ...]:
    """The order in which the three wrong options of ``item_`` appear in ``answers`` (source index 1-3)."""
    return tuple(item_.options.index(a) for a in answers if a != item_.options[item_.correct[0]])


@settings(max_examples=30, deadline=None)
@given(st.integers(30, 200), st.integers(0, 2**32 - 1))
def test_wrong_options_move(n, seed):
    # Mutant: the wrong options keep their source order (only the correct one is inserted). With 30 or
    # more items, all in source order has probability 6**-29 or less.
    items = four_option_items(n)
    rows = shuffle_options(items, np.random.default_rng(seed))
    orders = Counter(wrong_order(it, answers) for it, (answers, _) in zip(items, rows))
    assert orders[(1, 2, 3)] < n
    assert len(orders) >= 2
    for it, (answers, num) in zip(items, rows):
        assert sorted(answers) == sorted(it.options) and answers[num - 1] == it.options[0]


@settings(max_examples=5, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_wrong_option_orders_are_uniform(seed):
    # Each of the 6 orders of the wrong options has probability 1/6, whatever the correct position:
    # 6000 items give 1000 of each, standard deviation 29; the bounds are 7 standard deviations wide.
    n = 6000
    items = four_option_items(n)
    rows = shuffle_options(items, np.random.default_rng(seed))
    orders = Counter(wrong_order(it, answers) for it, (answers, _) in zip(items, rows))
    assert set(orders) == set(permutations((1, 2, 3)))
    assert all(800 <= c <= 1200 for c in orders.values()), orders
    # the wrong options' order does not depend on where the correct one went
    by_position = Counter((num, wrong_order(it, answers)[0]) for it, (answers, num) in zip(items, rows))
    assert all(by_position[(pos, first)] > 350 for pos in range(1, 5) for first in (1, 2, 3)), by_position


def test_each_wrong_option_reaches_every_slot():
    items = four_option_items(400)
    rows = shuffle_options(items, np.random.default_rng(3))
    slots = Counter((it.options.index(a), k) for it, (answers, _) in zip(items, rows) for k, a in enumerate(answers))
    assert all(slots[(src, k)] > 50 for src in range(4) for k in range(4)), slots


def test_shuffle_of_no_items_and_of_one_item():
    assert shuffle_options([], np.random.default_rng(0)) == []
    assert balanced_positions(0, np.random.default_rng(0)).tolist() == []
    ((answers, num),) = shuffle_options(four_option_items(1), np.random.default_rng(0))
    assert answers[num - 1] == "right0" and sorted(answers) == ["right0", "w1-0", "w2-0", "w3-0"]


def test_the_correct_option_is_the_marked_one_not_the_first():
    its = [item(options=("w0", "w1", "right", "w3"), correct=(2,), qid=f"q{i}") for i in range(20)]
    for (answers, num) in shuffle_options(its, np.random.default_rng(1)):
        assert answers[num - 1] == "right"


# --- (c) the per-step generator is seeded from (seed, source, native split, step) ----------------------

def positions(ctx: StepContext, n: int = 60) -> list[tuple[tuple[str, ...], int]]:
    return shuffle_options(four_option_items(n), ctx.rng("shuffle"))


def test_two_sources_get_independent_shuffle_streams():
    # Mutant: ``StepContext.rng`` seeded without ``_crc(self.source)``: every source then gets the same
    # stream, and two sources of identical records the same answer order.
    race = positions(StepContext("RACE", "train", "train", 0, Ledger()))
    sciq = positions(StepContext("SciQ", "train", "train", 0, Ledger()))
    assert race != sciq
    assert [num for _, num in race] != [num for _, num in sciq]
    # and each stream is reproducible
    assert race == positions(StepContext("RACE", "train", "train", 0, Ledger()))


@settings(max_examples=25, deadline=None)
@given(st.text(min_size=1, max_size=12), st.text(min_size=1, max_size=12), st.integers(0, 2**31))
def test_distinct_source_names_give_distinct_streams(a, b, seed):
    if a == b:
        return
    first = StepContext(a, "train", "train", seed, Ledger()).rng("shuffle").integers(2**62, size=4)
    second = StepContext(b, "train", "train", seed, Ledger()).rng("shuffle").integers(2**62, size=4)
    assert first.tolist() != second.tolist()


@pytest.mark.parametrize("other", [
    dict(source="RACE", native_split="dev", step="shuffle"),        # another native split
    dict(source="RACE", native_split="train", step="complete_options"),  # another step
    dict(source="RACE", native_split="train", step="shuffle", seed=1),   # another seed
])
def test_split_step_and_seed_each_change_the_stream(other):
    base = StepContext("RACE", "train", "train", 0, Ledger()).rng("shuffle").integers(2**62, size=4).tolist()
    ctx = StepContext(other["source"], other["native_split"], "train", other.get("seed", 0), Ledger())
    assert ctx.rng(other["step"]).integers(2**62, size=4).tolist() != base


def test_the_output_split_does_not_enter_the_seed():
    # the generator follows the corpus's own split, so renaming the output split keeps the order
    a = positions(StepContext("RACE", "valid", "dev", 0, Ledger()))
    b = positions(StepContext("RACE", "valid", "validation", 0, Ledger()))
    assert a == b


def two_copies_recipe(seed: int = 0):
    mctest = str(SOURCES / "mctest")
    return recipe_from_dict({"name": "twins", "seed": seed, "sources": [
        {"name": name, "reader": "mctest", "path": mctest, "splits": {"train": "train"}}
        for name in ("MCTest_A", "MCTest_B")]})


def test_assembly_shuffles_two_sources_of_the_same_records_differently():
    _, columns, _ = assembled(two_copies_recipe())
    cols = columns["train"]
    half = len(cols["dataset"]) // 2
    assert half >= 40 and cols["dataset"][:half] == ["MCTest_A"] * half
    assert cols["question_id"][:half] == cols["question_id"][half:]        # the same records ...
    assert cols["correct_answer_num"][:half] != cols["correct_answer_num"][half:]  # ... shuffled apart
    for k in range(2 * half):
        assert cols[f"answer{cols['correct_answer_num'][k]}"][k] == cols["correct_answer"][k]
    # the seed decides the order: the same seed reproduces it, another changes it
    again = assembled(two_copies_recipe())[1]["train"]
    assert again["correct_answer_num"] == cols["correct_answer_num"]
    other = assembled(two_copies_recipe(), seed=1)[1]["train"]
    assert other["correct_answer_num"] != cols["correct_answer_num"]


# --- the other filter steps: survivors of the first mutmut run ------------------------------------------

def run_step(name, items, seed=0, **params):
    ledger = Ledger()
    kept = get_filter(name, **params).run(items, StepContext("demo", "train", "train", seed, ledger))
    return kept, ledger


def test_sample_four_options_draws_distinct_wrong_options_and_keeps_the_record_fields():
    # Mutant: ``rng.choice(..., replace=True)``: a wrong option could be drawn twice.
    items = [RawMCItem("multirc", "train", "p", f"q{i}", "Text.", "Why?", [f"o{k}" for k in range(6)], [i % 6],
                     "para.json", f"#{i}", {"sentences": ["s"]}) for i in range(40)]
    kept, ledger = run_step("sample_four_options", items)
    assert len(kept) == 40 and not ledger.entries
    for before, after in zip(items, kept):
        assert len(after.options) == 4 and len(set(after.options)) == 4
        assert after.options[after.correct[0]] == before.options[before.correct[0]]
        assert after.options == [o for o in before.options if o in after.options]  # corpus order kept
        # Mutants of ``replace_options``: every other field is the reader's
        assert (after.corpus, after.split, after.passage_id, after.question_id, after.passage, after.question,
                after.file, after.record, after.meta) == (
            before.corpus, before.split, before.passage_id, before.question_id, before.passage, before.question,
            before.file, before.record, before.meta)


def test_complete_options_adds_distinct_answers_and_keeps_the_record_fields():
    # Mutant: ``replace=True`` in the draw of the missing answers.
    qs = [RawMCItem("mcscript", "train", f"p{j}", f"q{j}-{i}", "Text.", f"Q{i}?", [f"r{j}{i}", f"w{j}{i}"], [0],
                    "train-data.xml", f"#{j}-{i}", {}) for j in range(30) for i in range(2)]
    kept, ledger = run_step("complete_options", qs)
    assert len(kept) == 60 and not ledger.entries
    for before, after in zip(qs, kept):
        assert len(after.options) == 4 and len(set(after.options)) == 4  # 2 own + 2 others', no repeat
        assert after.options[:2] == before.options and after.correct == [0]
        assert (after.corpus, after.split, after.file, after.record, after.question_id) == (
            before.corpus, before.split, before.file, before.record, before.question_id)


def test_complete_options_completes_a_three_option_question():
    # Mutant: ``if need <= 1`` keeps a 3-option question as it is (the final check then drops it).
    qs = [item(options=("a", "b", "c"), qid="three"), item(options=("d", "e"), qid="two"),
          item(options=("f", "g", "h", "i"), qid="four")]
    kept, ledger = run_step("complete_options", qs)
    assert not ledger.entries
    assert [len(k.options) for k in kept] == [4, 4, 4]
    assert kept[2].options == ["f", "g", "h", "i"]


def test_complete_options_drop_names_step_reason_and_numbers_and_goes_on():
    # Mutants: the ledger's step or message lost; ``break`` instead of ``continue`` after a drop.
    lonely = RawMCItem("demo", "train", "p2", "solo", "Text.", "Why?", ["yes", "no"], [0], "f.json", "#solo")
    qs = [lonely] + [RawMCItem("demo", "train", "p1", f"q{i}", "Text.", "Why?", [f"r{i}", f"w{i}"], [0], "f.json",
                               f"#{i}") for i in range(3)]
    kept, ledger = run_step("complete_options", qs)
    assert [k.question_id for k in kept] == ["q0", "q1", "q2"]
    (drop,) = ledger.entries
    assert (drop.reason, drop.step, drop.question_id) == ("cannot_complete_options", "complete_options", "solo")
    assert drop.message == "0 distinct answers from other questions of passage p2, 2 needed"


def test_complete_options_goes_on_within_the_passage_after_a_drop():
    # Mutant: ``break`` instead of ``continue`` after a drop, within one passage. With distinct options a
    # passage's questions all fail or all pass (each one's own answers plus its pool are the passage's
    # whole set of texts), so only a later question that needs nothing shows it: four options, one
    # repeated, kept as it is; under the mutant it is neither kept nor dropped.
    qs = [item(options=("yes", "no"), qid="short"), item(options=("yes", "no", "maybe", "maybe "), qid="full")]
    kept, ledger = run_step("complete_options", qs)
    assert [k.question_id for k in kept] == ["full"]
    assert kept[0].options == ["yes", "no", "maybe", "maybe "]
    assert [(e.question_id, e.reason) for e in ledger.entries] == [("short", "cannot_complete_options")]
    assert ledger.entries[0].message == "1 distinct answers from other questions of passage p, 2 needed"


@pytest.mark.parametrize("raw, reason", [
    (dict(passage="  \n"), "empty_passage"),         # blank, not empty: ``and`` instead of ``or``
    (dict(options=("a", " ", "c", "d")), "empty_option"),  # a blank option
    (dict(correct=(4,)), "not_one_correct"),          # index 4 of four options: ``<= 4`` / ``< 5``
    (dict(correct=(-1,)), "not_one_correct"),
])
def test_four_options_blank_and_out_of_range(raw, reason):
    from builder.filters import FourOptions

    assert FourOptions().keep(item(**raw)) == reason


def test_a_drop_records_where_the_record_came_from():
    from builder.readers.base import BadRecord

    ledger = Ledger()
    ctx = StepContext("RACE", "valid", "dev", 0, ledger)
    get_filter("fill_in_blank").run([RawMCItem("race", "valid", "p7", "q7", "Text.", "A _ B?", list("abcd"), [0],
                                               "dev/7.txt", "#3")], ctx)
    ctx.drop(BadRecord("race", "valid", "dev/8.txt", "line 2", "malformed_json", "bad JSON"), "malformed_json",
             "reader", "bad JSON")
    ctx.drop(item(qid="q9"), "custom", "step")  # the message defaults to ""
    first, second, third = (d.to_dict() for d in ledger.entries)
    assert first == {"source": "RACE", "split": "dev", "native_split": "valid", "file": "dev/7.txt",
                     "record_id": "#3", "reason": "fill_in_blank", "step": "fill_in_blank", "passage_id": "p7",
                     "question_id": "q7", "message": ""}
    assert (second["passage_id"], second["question_id"], second["message"]) == ("", "", "bad JSON")
    assert (third["question_id"], third["message"]) == ("q9", "")


def test_filter_parameters_are_checked_with_the_allowed_names():
    from schemas.errors import RecipeError

    with pytest.raises(RecipeError, match=r"^filter 'fill_in_blank' has no parameter 'x'; allowed: none$"):
        get_filter("fill_in_blank", x=1)
    with pytest.raises(RecipeError, match=r"has no parameter 'max'; allowed: max_sentences$"):
        get_filter("too_many_sentences", max=3)
    with pytest.raises(RecipeError, match=r"parameter 'max_sentences' must be int, found True$"):
        get_filter("too_many_sentences", max_sentences=True)  # a bool is not an int here
    assert get_filter("too_many_sentences", max_sentences=10).options == {"max_sentences": 10}
    assert get_filter("fill_in_blank").options == {}


def test_one_sentence_is_a_valid_maximum():
    f = TooManySentences(max_sentences=1)  # the smallest allowed value (``< 1`` is refused, not ``<= 1``)
    assert f.keep(item(passage="Only one.")) is True
    assert f.keep(item(passage="One. Two.")) is False


@pytest.mark.parametrize("limit", [1, 2, 25])
def test_the_fast_path_decides_limit_minus_one_marks_without_counting(monkeypatch, limit):
    # The docstring's promise: "a text with at most limit - 1 marks is decided without splitting".
    # Mutants ``+ 2 <= limit`` and ``+ 1 < limit`` send such texts to the full count (same answer, slower).
    import builder.filters.sentences as sentences

    def no_count(text, **_):
        raise AssertionError("count_sentences was called on a text the fast path decides")

    text = passage(limit - 1, True)  # limit - 1 marks, limit sentences: not more than limit
    monkeypatch.setattr(sentences, "count_sentences", no_count)
    assert sentences.more_sentences_than(text, limit) is False
    with pytest.raises(AssertionError, match="count_sentences was called"):
        sentences.more_sentences_than(passage(limit, False), limit)  # limit marks: must count


# --- the recipe: the seed and the other top-level values reach the Recipe --------------------------------

def minimal(**top) -> dict:
    return {"name": "demo", "sources": [{"name": "MCTest", "reader": "mctest", "path": str(SOURCES / "mctest"),
                                         "splits": {"train": "train"}}], **top}


def test_the_recipe_keeps_its_seed_and_every_top_level_value(tmp_path):
    # Mutants: ``seed=seed`` (and language, max_sentences, description, file) left out of ``Recipe(...)``,
    # which would build every recipe with the default seed 0.
    recipe_file = tmp_path / "r.yaml"
    r = recipe_from_dict(minimal(seed=7, language="hin_Deva", max_sentences=10, description="A test set.",
                                 outputs={"formats": ["jsonl"]}), file=recipe_file)
    assert (r.seed, r.language, r.max_sentences, r.description, r.file) == (
        7, "hin_Deva", 10, "A test set.", recipe_file)
    assert r.formats == ("parquet", "jsonl")
    assert r.to_dict()["seed"] == 7
    d = recipe_from_dict(minimal())
    assert (d.seed, d.language, d.max_sentences, d.description, d.formats, d.file) == (
        0, "eng_Latn", 25, "", ("parquet",), None)
    assert recipe_from_dict(minimal(description=None)).description == ""
    assert recipe_from_dict(minimal(max_sentences=1)).max_sentences == 1  # 1 is the smallest allowed


def test_the_recipe_seed_decides_the_shuffle():
    # The seed written in the recipe is the one the assembly uses (not the dataclass default).
    def nums(recipe, **kw):
        return assembled(recipe, **kw)[1]["train"]["correct_answer_num"]

    seven = recipe_from_dict(minimal(seed=7))
    assert nums(seven) == nums(recipe_from_dict(minimal()), seed=7)
    assert nums(seven) != nums(recipe_from_dict(minimal()))
    assert assembled(seven)[0].seed == 7 and assembled(seven, seed=3)[0].seed == 3


@pytest.mark.parametrize("top, field, message", [
    (dict(seed=True), "seed", "expected an integer >= 0, found True"),
    (dict(seed=-1), "seed", "expected an integer >= 0, found -1"),
    (dict(name=" "), "name", "recipe name ' ' cannot be a file name: it starts with ' '; use letters, digits, "
                             "'_', '-', '.' and '+', starting with a letter or digit"),
    (dict(max_sentences=0), "max_sentences", "expected an integer >= 1, found 0"),
    (dict(outputs=5), "outputs", "expected a mapping, found int 5"),
    (dict(outputs={"zip": True}), "outputs.zip", "unknown key 'zip'; allowed: formats"),
    (dict(description=5), "description", "expected text, found 5"),
    (dict(sources=[]), "sources", "expected a non-empty list of sources, found []"),
    (dict(sources="RACE"), "sources", "expected a non-empty list of sources, found 'RACE'"),
])
def test_recipe_errors_name_the_key(top, field, message):
    from schemas.errors import RecipeError

    with pytest.raises(RecipeError) as err:
        recipe_from_dict(minimal(**top))
    assert (err.value.field, err.value.message) == (field, message)


# --- the assembly: the derivation of the shuffle, licenses, counts, errors ----------------------------

def test_the_answer_order_follows_the_documented_seed_derivation():
    # The shuffle generator is NumPy's default_rng seeded with [seed, crc32(source), crc32(native split),
    # crc32("shuffle")] (builder/filters/base.py); a rebuilt release must reproduce its answer order, so the
    # derivation is pinned here with zlib and numpy directly. Mutants: another step name for the shuffle.
    import zlib

    from builder.filters import FourOptions
    from builder.readers import get_reader

    recipe = recipe_from_dict(minimal(seed=5))
    reader = get_reader("mctest")(SOURCES / "mctest", ["train"])
    items = FourOptions().run([r for r in reader if isinstance(r, RawMCItem)],
                              StepContext("MCTest", "train", "train", 5, Ledger()))
    crc = [zlib.crc32(s.encode("utf-8")) for s in ("MCTest", "train", "shuffle")]
    expected = shuffle_options(items, np.random.default_rng([5, *crc]))
    cols = assembled(recipe)[1]["train"]
    got = [(tuple(cols[f"answer{k}"][i] for k in range(1, 5)), cols["correct_answer_num"][i])
           for i in range(len(cols["question_id"]))]
    assert got == expected


def test_licenses_come_from_the_recipe_then_the_reader_option_then_the_reader_default():
    data = minimal()
    data["sources"] = [
        {**data["sources"][0], "name": "default"},
        {**data["sources"][0], "name": "option", "options": {"license": "CC-BY-4.0"}},
        {**data["sources"][0], "name": "recipe", "license": "MIT", "options": {"license": "CC-BY-4.0"}},
    ]
    result, columns, _ = assembled(recipe_from_dict(data))
    assert result.licenses == {"default": "MSR-LA", "option": "CC-BY-4.0", "recipe": "MIT"}
    cols = columns["train"]
    assert {(d, lic) for d, lic in zip(cols["dataset"], cols["license"])} == {
        ("default", "MSR-LA"), ("option", "CC-BY-4.0"), ("recipe", "MIT")}


def test_a_reader_option_error_names_the_recipe_file_and_the_source(tmp_path):
    from schemas.errors import RecipeError

    data = minimal()
    data["sources"] = [{**data["sources"][0], "name": "first"},
                       {**data["sources"][0], "name": "second", "options": {"subset": "mc999"}}]
    with pytest.raises(RecipeError) as err:
        assembled(recipe_from_dict(data, file=tmp_path / "r.yaml"))
    assert (str(err.value.file), err.value.field) == (str(tmp_path / "r.yaml"), "sources[1].subset")
    assert err.value.message == "option subset must be one of mc160, mc500; found 'mc999'"


def test_the_progress_wrapper_sees_every_file_with_a_label():
    seen = []

    def wrap(files, total, label):
        seen.append((total, label))
        return files

    assembled(recipe_from_dict(minimal()), wrap=wrap)
    assert seen == [(1, "reading MCTest")]  # one file: mc500.train.tsv (with its answer key)


def test_two_native_splits_into_one_output_split_add_up():
    # Mutants: ``count.read = ...`` / ``count.kept = ...`` instead of ``+=``.
    data = minimal()
    data["sources"][0]["splits"] = {"train": "train", "dev": "train"}
    result, columns, _ = assembled(recipe_from_dict(data))
    count = result.counts[("MCTest", "train")]
    assert (count.read, count.kept, count.dropped(result.ledger)) == (96, 96, 0)
    assert result.rows("train") == 96 == len(columns["train"]["question_id"])
    result.check_counts()


def test_recipe_filter_parameters_reach_the_filter():
    # Mutant: ``get_filter(f.name)`` without the recipe's parameters (max_sentences would stay 25).
    data = minimal(max_sentences=20)
    data["sources"][0]["filters"] = ["too_many_sentences"]
    result, _, ledger = assembled(recipe_from_dict(data))
    stories = sum(1 for _ in (SOURCES / "mctest" / "MCTest" / "mc500.train.tsv").open(encoding="utf-8"))
    dropped = result.ledger.counts[("MCTest", "train", "too_many_sentences")]
    assert stories == 12 and dropped == 4 * 4 == len(ledger)  # mc500.train.0, .2, .8, .9: 21, 27, 23, 29 sentences
    data["sources"][0]["filters"] = [{"too_many_sentences": {"max_sentences": 30}}]
    result, _, ledger = assembled(recipe_from_dict(data))
    assert ledger == [] and len(result.ledger) == 0 and not result.ledger.counts


def test_reader_errors_keep_their_message_in_the_ledger():
    from builder.recipe import load_recipe

    _, _, ledger = assembled(load_recipe(ROOT / "tests" / "data" / "assemble" / "bad-race.yaml"), on_error="skip")
    (bad,) = [d for d in ledger if d["step"] == "reader"]
    assert bad["reason"] == "malformed_json" and bad["message"].startswith("malformed JSON")


def test_a_reader_yielding_an_unasked_split_is_an_internal_error(monkeypatch):
    from builder.assemble import InternalError

    real = stream.get_reader("mctest")

    class Wrong(real):
        def parse_file(self, split, path):
            for rec in super().parse_file(split, path):
                rec.split = "test"
                yield rec

    monkeypatch.setattr(stream, "get_reader", lambda name: Wrong)
    with pytest.raises(InternalError, match=r"^internal error: reader mctest yielded split 'test', asked for train$"):
        assembled(recipe_from_dict(minimal()))
    both = minimal()
    both["sources"][0]["splits"] = {"train": "train", "dev": "dev"}
    with pytest.raises(InternalError, match=r"yielded split 'test', asked for train, dev$"):
        assembled(recipe_from_dict(both))


def test_bookkeeping_errors_say_what_does_not_add_up():
    from builder.assemble import InternalError

    result = assembled(recipe_from_dict(minimal()))[0]
    result.ledger.counts[("Other", "train", "fill_in_blank")] += 1  # a drop no source accounts for
    result.ledger.total += 1
    with pytest.raises(InternalError, match=r"^internal error: the ledger holds 1 drops but the sources account "
                                            r"for fewer; nothing was written \(please report this\)$"):
        result.check_counts()
    result = assembled(recipe_from_dict(minimal()))[0]
    result.n_rows["train"] += 1  # a row the counts do not know
    with pytest.raises(InternalError, match=r"^internal error: split train has 49 rows but the counts say 48; "):
        result.check_counts()


def test_parameter_checks_of_a_filter_with_several_parameters():
    # The base class lists every allowed parameter, comma-separated (mutant: another separator).
    from builder.filters.base import Filter
    from schemas.errors import RecipeError

    class TwoParams(Filter):
        name = "two_params"
        reasons = ("two_params",)
        params = {"low": int, "high": int}
        scope = "item"

    with pytest.raises(RecipeError, match=r"^filter 'two_params' has no parameter 'mid'; allowed: high, low$"):
        TwoParams(mid=1)
    assert TwoParams(low=1, high=2).options == {"low": 1, "high": 2}


def test_complete_options_checks_its_parameters():
    # Mutants: ``target`` or the other keyword parameters not passed on to the base class's check.
    from schemas.errors import RecipeError

    with pytest.raises(RecipeError, match=r"parameter 'target' must be int, found '4'$"):
        get_filter("complete_options", target="4")
    with pytest.raises(RecipeError, match=r"has no parameter 'x'; allowed: target$"):
        get_filter("complete_options", x=1)
    assert get_filter("complete_options").options == {"target": 4}
    kept, _ = run_step("complete_options", [item(options=("a", "b"), qid="q0"), item(options=("c", "d", "e"),
                                                                                     qid="q1")], target=3)
    assert [len(k.options) for k in kept] == [3, 3]


@pytest.mark.parametrize("language", ["english", 5, "eng-Latn"])
def test_a_bad_recipe_language_names_the_key_and_the_value(language):
    from schemas.errors import RecipeError

    with pytest.raises(RecipeError) as err:
        recipe_from_dict(minimal(language=language))
    assert err.value.field == "language"
    assert err.value.message.startswith("expected a FLORES-200 code like 'eng_Latn'")
    assert repr(language) in err.value.message


def test_output_splits_come_train_then_dev_whatever_the_recipe_names_first(tmp_path):
    from builder.assemble import output_splits

    data = minimal()
    data["sources"][0]["splits"] = {"dev": "dev", "train": "train"}
    recipe = recipe_from_dict(data)
    assert output_splits(recipe) == ["train", "dev"]
    _, manifest = assemble(recipe, tmp_path / "out")
    assert list(manifest["splits"]) == ["train", "dev"]


def test_a_split_whose_records_are_all_dropped_is_one_empty_row_group(tmp_path):
    data = minimal()
    data["sources"][0]["splits"] = {"train": "train", "dev": "dev"}
    data["sources"][0]["filters"] = [{"too_many_sentences": {"max_sentences": 1}}]
    _, manifest = assemble(recipe_from_dict(data), tmp_path / "out")
    assert manifest["splits"] == {"train": 0, "dev": 0}
    parquet = pq.ParquetFile(tmp_path / "out" / "dev.parquet")
    assert parquet.num_row_groups == 1 and parquet.metadata.row_group(0).num_rows == 0


@pytest.mark.parametrize("above", [0, 1, 2, 5])
def test_a_count_that_stops_early_tells_more_than_above_apart_from_the_true_count(above):
    # count_sentences(above=k) stops at the (k + 1)-th sentence: min(true count, k + 1), for texts with and
    # without a final mark (the tail sentence) and with a blank tail.
    for n in range(0, 8):
        for tail in (True, False):
            text = passage(n, tail) + ("" if tail else "  ")
            true = count_sentences(text)
            assert count_sentences(text, above=above) == min(true, above + 1)
            assert more_sentences_than(text, above) is (true > above)


# --- the streaming assembly: where each step runs, what the workers send, the row groups ----------------

def race_recipe(filters, splits=None, path=SOURCES / "race"):
    return recipe_from_dict({"name": "race", "sources": [
        {"name": "RACE", "reader": "race", "path": str(path), "splits": splits or {"train": "train"},
         "filters": filters}]})


def test_the_verdicts_after_a_source_step_are_precomputed_only_when_every_later_step_is_of_scope_item():
    # precomputed(): a source step at ``stop``, then item steps only (mutants: another scope name, ``!=``,
    # or the steps counted from ``stop - 1``)
    dup, blank, complete = get_filter("duplicate_question"), get_filter("fill_in_blank"), get_filter("complete_options")
    assert stream.precomputed([dup, FourOptions()], 0) is True
    assert stream.precomputed([dup, blank, FourOptions()], 0) is True
    assert stream.precomputed([blank, complete, dup, FourOptions()], 2) is True  # the steps before do not count
    assert stream.precomputed([dup, complete, FourOptions()], 0) is False  # a passage step after it
    assert stream.precomputed([blank, dup, FourOptions()], 0) is False  # no source step at stop
    assert stream.precomputed([dup, FourOptions()], 2) is False  # nothing at stop


def test_a_split_folder_without_files_assembles_as_an_empty_split(tmp_path):
    # a split of a one-task source with no files is read from no file (mutant: from Path(""), the working folder)
    shutil.copytree(SOURCES / "race" / "RACE" / "train", tmp_path / "RACE" / "train")
    (tmp_path / "RACE" / "dev" / "high").mkdir(parents=True)
    result, columns, ledger = assembled(race_recipe([], {"train": "train", "dev": "dev"}, tmp_path))
    assert len(columns["train"]["question_id"]) == 22 and columns["dev"]["question_id"] == [] and ledger == []
    assert (result.counts[("RACE", "dev")].read, result.counts[("RACE", "dev")].kept) == (0, 0)


class FirstOfSplit(Filter):
    """A split step: keeps the first record of its split (it needs the whole split, in reading order)."""

    name = "first_of_split"
    reasons = ("not_first",)
    scope = "split"
    uses_meta = False

    def start(self, ctx):
        super().start(ctx)
        self.seen = False

    def keep(self, item):
        first, self.seen = not self.seen, True
        return first or "not_first"


@pytest.mark.parametrize("files", [1, 2, 3])
def test_a_split_of_several_tasks_runs_its_split_steps_in_this_process(tmp_path, monkeypatch, files):
    # only a split read by one task runs its split steps in the worker; with two tasks or more they run here,
    # over the whole split (mutant: a split of exactly two tasks ran them per task, keeping a record per file)
    monkeypatch.setitem(FILTERS, FirstOfSplit.name, FirstOfSplit)
    monkeypatch.setattr(stream, "FILES_PER_TASK", 1)
    for name in sorted(p.name for p in (SOURCES / "race" / "RACE" / "dev" / "middle").glob("*.txt"))[:files]:
        (tmp_path / "RACE" / "dev" / "middle").mkdir(parents=True, exist_ok=True)
        shutil.copy(SOURCES / "race" / "RACE" / "dev" / "middle" / name, tmp_path / "RACE" / "dev" / "middle")
    result, columns, ledger = assembled(race_recipe(["first_of_split"], {"dev": "dev"}, tmp_path))
    assert len(columns["dev"]["question_id"]) == 1
    assert {d["reason"] for d in ledger} == {"not_first"} and len(ledger) == result.counts[("RACE", "dev")].read - 1


@pytest.mark.parametrize("files_per_task", [1, 128])
def test_this_process_takes_the_key_digests_the_workers_computed(monkeypatch, files_per_task):
    # a worker hashes each record's key for the first source step and sends the digest; this process does not
    # hash the keys again (mutants: no digest computed or sent, or the digests sent not handed to the chain)
    calls = []
    real = runner.key_digest
    monkeypatch.setattr(runner, "key_digest", lambda step, it: calls.append(it.question_id) or real(step, it))
    monkeypatch.setattr(stream, "FILES_PER_TASK", files_per_task)
    recipe = race_recipe(["fill_in_blank", "duplicate_question"], {"train": "train", "dev": "dev"})
    result, columns, _ = assembled(recipe, jobs=1)  # one process: the workers' calls would count here too
    assert calls == []
    assert len(columns["train"]["question_id"]) == result.counts[("RACE", "train")].kept > 0


class MiddleOnly(Filter):
    """An item step that reads ``item.meta``: keeps the RACE questions of the ``middle`` level."""

    name = "middle_only"
    reasons = ("not_middle",)
    scope = "item"

    def keep(self, item):
        return item.meta.get("level") == "middle" or "not_middle"


@pytest.mark.parametrize("files_per_task", [1, 128])
def test_the_item_steps_after_a_source_step_are_decided_by_the_workers(monkeypatch, files_per_task):
    # duplicate_question reads no meta, so the records come here without it; the item step after it is decided
    # where the meta is, in the worker (mutants: this process ran it again, on records without meta, dropping all)
    monkeypatch.setitem(FILTERS, MiddleOnly.name, MiddleOnly)
    monkeypatch.setattr(stream, "FILES_PER_TASK", files_per_task)
    result, columns, ledger = assembled(race_recipe(["duplicate_question", "middle_only"]), jobs=1)
    assert len(columns["train"]["question_id"]) == 10  # the middle questions of train
    assert all(qid.startswith("train/middle/") for qid in columns["train"]["question_id"])
    assert Counter(d["reason"] for d in ledger) == {"not_middle": 12}


def sent_meta(monkeypatch, tmp_path, filters, stop):
    """The meta of each record a worker sends for RACE train's first task, run to ``stop``."""
    recipe = race_recipe(filters)
    monkeypatch.setattr(stream, "_STATE", [recipe, "raise", 0, tmp_path])
    monkeypatch.setattr(stream, "_READERS", {})
    files = tuple(str(p) for p in sorted((SOURCES / "race" / "RACE" / "train" / "middle").glob("*.txt")))
    return [row[9] for _, rows, _ in stream.run_task(stream.Task(0, "train", files, stop)) for row in rows]


def test_the_workers_send_meta_only_when_a_step_run_here_reads_it(monkeypatch, tmp_path):
    # each record's meta travels to this process only for a step that reads it and runs here (mutant: always)
    monkeypatch.setitem(FILTERS, MiddleOnly.name, MiddleOnly)
    # complete_options (passage scope) on part of a split runs here; neither it nor four_options reads meta
    assert sent_meta(monkeypatch, tmp_path, ["complete_options"], 0) == [None] * 10
    # the item step after duplicate_question reads meta, but the worker decides it
    assert sent_meta(monkeypatch, tmp_path, ["duplicate_question", "middle_only"], 0) == [None] * 10
    # middle_only runs here after complete_options, and gets the meta
    metas = sent_meta(monkeypatch, tmp_path, ["complete_options", "middle_only"], 0)
    assert len(metas) == 10 and {m["level"] for m in metas} == {"middle"}


def one_row(text: int) -> dict:
    """The columns of one row with ``text`` characters of passage (no question, no answers)."""
    return {"passage_id": ["p"], "question_id": ["q"], "passage": ["x" * text], "question": [""], "answer1": [""],
            "answer2": [""], "answer3": [""], "answer4": [""], "correct_answer": [""], "correct_answer_num": [1],
            "corpus": ["demo"], "file": ["f"], "record": ["#0"]}


def test_a_row_group_counts_the_text_of_its_own_rows_from_zero(tmp_path, monkeypatch):
    # the buffered text starts at 0 and is 0 again after each row group (mutants: 1): rows of text 4, 5, 1 reach
    # 10 at the third row, then 9, 5 at the fifth
    monkeypatch.setattr(output, "ROW_GROUP_TEXT", 10)
    with contextlib.ExitStack() as stack:
        outputs = Outputs(tmp_path, ["train"], ("parquet",), stack)
        for k, text in enumerate((4, 5, 1, 9, 5)):
            part = encode_part(tmp_path / f"part{k}", "train", "demo", "MIT", "eng_Latn", ("parquet",), [one_row(text)])
            assert part.texts == (text,) and part.jsonl is None and part.tsv is None
            outputs.write("train", part)
        outputs.finish()
    meta = pq.ParquetFile(tmp_path / "train.parquet").metadata
    assert [meta.row_group(k).num_rows for k in range(meta.num_row_groups)] == [3, 2]


def _backend() -> str:
    import pyarrow as pa

    return pa.default_memory_pool().backend_name


@pytest.fixture
def system_pool(monkeypatch):
    """Arrow's default pool is the system allocator for the test, and whatever it was afterwards."""
    import pyarrow as pa

    monkeypatch.delenv("ARROW_DEFAULT_MEMORY_POOL", raising=False)
    previous = pa.default_memory_pool()
    pa.set_memory_pool(pa.system_memory_pool())
    yield
    pa.set_memory_pool(previous)


def test_the_outputs_allocate_from_jemalloc_and_give_the_default_back(tmp_path, system_pool):
    # mimalloc zeroed a 2 MiB huge page for each fault of the Parquet writer's buffers (output.arrow_memory)
    import pyarrow as pa

    if "jemalloc" not in pa.supported_memory_backends():
        pytest.skip("this pyarrow has no jemalloc")
    (tmp_path / "a").mkdir()
    with pytest.raises(RuntimeError, match="stop"), contextlib.ExitStack() as stack:
        Outputs(tmp_path / "a", ["train"], ("parquet",), stack)
        assert _backend() == "jemalloc"
        raise RuntimeError("stop")
    assert _backend() == "system"
    (tmp_path / "b").mkdir()
    with contextlib.ExitStack() as stack:
        outputs = Outputs(tmp_path / "b", ["train"], ("parquet",), stack)
        outputs.write("train", encode_part(tmp_path / "part", "train", "demo", "MIT", "eng_Latn", ("parquet",),
                                           [one_row(3)]))
        outputs.finish()
        assert _backend() == "jemalloc"
    assert _backend() == "system"
    assert pq.read_table(tmp_path / "b" / "train.parquet").column("passage").to_pylist() == ["xxx"]


def test_a_pool_the_user_chose_and_a_pyarrow_without_jemalloc_keep_the_default(monkeypatch, system_pool):
    import pyarrow as pa

    monkeypatch.setenv("ARROW_DEFAULT_MEMORY_POOL", "system")
    with output.arrow_memory():
        assert _backend() == "system"
    monkeypatch.delenv("ARROW_DEFAULT_MEMORY_POOL")

    def no_jemalloc():
        raise NotImplementedError("jemalloc")

    monkeypatch.setattr(pa, "jemalloc_memory_pool", no_jemalloc)
    with output.arrow_memory():
        assert _backend() == "system"
    assert _backend() == "system"
