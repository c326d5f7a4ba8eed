"""Each filter names its reason; the registry is complete; the sentence splitter works beyond English."""
from __future__ import annotations

import pytest

from builder.filters import FILTERS, REASONS, FourOptions, Ledger, StepContext, get_filter
from builder.filters.base import SCOPES, Filter
from builder.filters.runner import RUNNERS, Chain, SeenStore
from builder.filters.sentences import count_sentences, split_sentences
from builder.readers.base import RawMCItem
from schemas.errors import RecipeError


def item(question="Why?", options=("a", "b", "c", "d"), correct=(0,), passage="Text.", pid="p", qid="q",
         meta=None, record="#0"):
    return RawMCItem("demo", "train", pid, qid, passage, question, list(options), list(correct), "f.json",
                     record, meta or {})


def ctx(ledger=None, seed=0, split="train"):
    return StepContext("demo", split, split, seed, ledger if ledger is not None else Ledger())


def reasons(ledger):
    return [d.reason for d in ledger.entries]


# Every registered step must be classified: its reasons are declared and collected in REASONS.
@pytest.mark.parametrize("name", sorted(FILTERS))
def test_every_filter_declares_reasons(name):
    cls = FILTERS[name]
    assert issubclass(cls, Filter) and cls.name == name
    assert cls.reasons and set(cls.reasons) <= REASONS
    assert all(r.isidentifier() and r == r.lower() for r in cls.reasons)


# ... and its scope, which tells the one runner how to run it.
@pytest.mark.parametrize("cls", [*FILTERS.values(), FourOptions], ids=lambda cls: cls.name)
def test_every_filter_declares_its_scope_and_whether_it_reads_meta(cls):
    assert cls.scope in SCOPES and cls.scope in RUNNERS
    assert isinstance(cls.uses_meta, bool)


def test_the_declared_scopes_of_the_belebele_filters():
    scopes = {name: cls.scope for name, cls in FILTERS.items()}
    assert scopes == {"fill_in_blank": "item", "too_many_sentences": "item", "empty_passage": "item",
                      "empty_option": "item", "duplicate_question": "source", "sample_four_options": "split",
                      "complete_options": "passage"}
    assert FourOptions.scope == "item"
    assert {name for name, cls in FILTERS.items() if cls.uses_meta} == {"too_many_sentences", "sample_four_options"}


def test_a_filter_that_declares_no_scope_cannot_be_built_or_run():
    class Undeclared(Filter):
        name = "undeclared"
        reasons = ("undeclared",)

        def keep(self, item):
            return True

    with pytest.raises(TypeError, match=r"^filter Undeclared \('undeclared'\) declares scope None; "
                                        r"a filter must declare one of item, split, passage, source$"):
        Undeclared()
    step = object.__new__(Undeclared)  # built around the check: the runner refuses it too
    with pytest.raises(TypeError, match=r"^filter Undeclared \('undeclared'\) declares scope None; "
                                        r"a filter must declare one of item, split, passage, source$"):
        Chain([step], 0, ctx())

    class Misspelt(Undeclared):
        scope = "record"

    with pytest.raises(TypeError, match="declares scope 'record'"):
        Misspelt()


def test_registry_lists_the_belebele_filters():
    assert {"fill_in_blank", "too_many_sentences", "empty_passage", "empty_option", "duplicate_question",
            "sample_four_options", "complete_options"} == set(FILTERS)
    assert set(FourOptions.reasons) <= REASONS


def test_unknown_filter_and_parameter_are_recipe_errors():
    with pytest.raises(RecipeError, match="unknown filter 'nope'; known: complete_options"):
        get_filter("nope")
    with pytest.raises(RecipeError, match="no parameter 'max'"):
        get_filter("too_many_sentences", max=3)
    with pytest.raises(RecipeError, match="must be int, found '3'"):
        get_filter("too_many_sentences", max_sentences="3")
    with pytest.raises(RecipeError, match=">= 1"):
        get_filter("too_many_sentences", max_sentences=0)


def test_fill_in_blank_names_its_reason():
    ledger = Ledger()
    kept = get_filter("fill_in_blank").run([item("Tom is _ ."), item("Who is Tom?")], ctx(ledger))
    assert [k.question for k in kept] == ["Who is Tom?"]
    assert reasons(ledger) == ["fill_in_blank"]


def test_too_many_sentences_counts_and_uses_reader_sentences():
    long = " ".join(f"Sentence {i} ends here." for i in range(26))
    ledger = Ledger()
    f = get_filter("too_many_sentences")
    kept = f.run([item(passage=long), item(passage="One. Two.")], ctx(ledger))
    assert len(kept) == 1 and reasons(ledger) == ["too_many_sentences"]
    # MultiRC: the reader's sentence list wins over the splitter
    assert f.keep(item(passage="One long run-on passage", meta={"sentences": ["x"] * 26})) is False
    assert f.keep(item(passage=long, meta={"sentences": ["x"] * 25})) is True


@pytest.mark.parametrize("text, n", [
    ("Mr. and Mrs. Smith met Dr. Jones at 3.30 p.m. on Monday. They talked.", 2),
    ("The U.S. economy grew by 2.5% in 2020. Prices rose, e.g. food.", 2),
    ("J. K. Rowling wrote it. She is British.", 2),
    ('He said, "Stop!" Then he left.', 2),
    ("Wait... Are you sure? Yes!", 3),
    ("It was late. the bus had gone. We walked.", 2),          # a lower-case word after a dot: no break (SB8)
    ("Ο καιρός ήταν κακός. και μετά βγήκε ο ήλιος.", 1),        # the same rule beyond ASCII
    ("मैं घर गया। वह खुश था। क्या तुम आओगे?", 3),          # Devanagari danda
    ("আমি ভাত খাই। তুমি কি খাও?", 2),                       # Bengali danda
    ("یہ کتاب اچھی ہے۔ کیا آپ نے پڑھی؟", 2),                # Urdu full stop, Arabic question mark
    ("我喜欢读书。你呢？我们走吧！", 3),                       # CJK, no spaces
    ("ሰላም ነው። እንዴት ነህ፧", 2),                             # Ethiopic
    ("Ο καιρός είναι καλός. Πάμε;", 2),                       # Greek question mark (U+037E)
    ("", 0),
    ("   ", 0),
    ("no terminal mark at all", 1),
])
def test_sentence_counts_beyond_english(text, n, monkeypatch):
    assert count_sentences(text) == n, split_sentences(text)
    # the patterns built again in the test (the module built them at import, before any test ran)
    from builder.filters import sentences

    unicode, ascii_ = sentences._patterns()
    monkeypatch.setattr(sentences, "_BOUNDARY", unicode)
    monkeypatch.setattr(sentences, "_ASCII_BOUNDARY", ascii_)
    assert count_sentences(text) == n, split_sentences(text)


def test_empty_passage_and_option():
    ledger = Ledger()
    c = ctx(ledger)
    kept = get_filter("empty_passage").run([item(passage=" \n"), item()], c)
    kept = get_filter("empty_option").run(kept + [item(options=("a", " ", "c", "d"))], c)
    assert len(kept) == 1 and reasons(ledger) == ["empty_passage", "empty_option"]


def test_duplicate_question_spans_splits_and_names_the_first():
    # the runner of a source step: one store for every split of the source, as the assembly keeps it
    f, store, ledger = get_filter("duplicate_question"), SeenStore(), Ledger()
    Chain([f], 0, ctx(ledger, split="train"), store, "demo").feed([item(record="#0")])
    kept = Chain([f], 0, ctx(ledger, split="dev"), store, "demo").feed(
        [item(options=("d", "c", "b", "a"), correct=(3,), record="#9"), item("Other?")])
    assert [k.question for k in kept] == ["Other?"]
    (drop,) = ledger.entries
    assert drop.reason == "duplicate_question" and drop.split == "dev" and "#0" in drop.message


def test_sample_four_options_multirc_rule():
    f = get_filter("sample_four_options")
    ledger = Ledger()
    items = [item(options=list("abcdefg"), correct=[5]), item(options=list("abcdef"), correct=[1, 2]),
             item(options=list("abc"), correct=[0]), item(options=list("abcd"), correct=[])]
    kept = f.run(items, ctx(ledger))
    assert reasons(ledger) == ["not_one_correct", "too_few_options", "not_one_correct"]
    (k,) = kept
    assert len(k.options) == 4 and k.options[k.correct[0]] == "f" and set(k.options) <= set("abcdefg")
    # same seed, same sample; other seed, (here) another sample
    again = get_filter("sample_four_options").run(items[:1], ctx())
    assert again[0].options == k.options


def test_complete_options_uses_other_questions_of_the_same_passage():
    qs = [item(qid=f"q{i}", pid="p1", options=(f"right{i}", f"wrong{i}"), record=f"#{i}") for i in range(3)]
    lonely = item(qid="solo", pid="p2", options=("yes", "no"))
    ledger = Ledger()
    kept = get_filter("complete_options").run([*qs, lonely], ctx(ledger))
    assert reasons(ledger) == ["cannot_complete_options"]
    assert ledger.entries[0].question_id == "solo"
    for k in kept:
        own = {k.options[0], k.options[1]}
        others = {o for q in qs if q.question_id != k.question_id for o in q.options}
        assert len(k.options) == 4 and len(set(k.options)) == 4 and k.correct == [0]
        assert set(k.options[2:]) <= others and not set(k.options[2:]) & own


def test_complete_options_skips_texts_equal_to_own_answers():
    qs = [item(qid="a", options=("yes", "no")), item(qid="b", options=("no", "yes")),
          item(qid="c", options=("Yes", "maybe"))]
    ledger = Ledger()
    kept = get_filter("complete_options").run(qs, ctx(ledger))
    # a and b share their texts; only "Yes" and "maybe" are new to them -> exactly 2, enough
    assert [len(k.options) for k in kept] == [4, 4, 4]
    assert sorted(kept[0].options[2:]) == ["Yes", "maybe"]


@pytest.mark.parametrize("raw, reason", [
    (dict(passage=""), "empty_passage"),
    (dict(question=" "), "empty_question"),
    (dict(options=("a", "", "c", "d")), "empty_option"),
    (dict(options=("a", "b", "c")), "not_four_options"),
    (dict(correct=(0, 1)), "not_one_correct"),
    (dict(correct=()), "not_one_correct"),
    (dict(options=("a", "b", "a", "d")), "correct_text_repeated"),
])
def test_four_options_check_names_each_reason(raw, reason):
    ledger = Ledger()
    assert FourOptions().run([item(**raw)], ctx(ledger)) == []
    assert reasons(ledger) == [reason]


def test_step_drops_are_counted_in_the_ledger():
    ledger = Ledger()
    kept = get_filter("fill_in_blank").run([item("_"), item(), item()], ctx(ledger))
    assert len(kept) == 2
    assert ledger.counts == {("demo", "train", "fill_in_blank"): 1}
