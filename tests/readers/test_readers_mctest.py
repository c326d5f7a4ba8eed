"""MCTest reader on the real mc500 sample (12 stories a split) and on crafted bad files."""
from __future__ import annotations

from collections import Counter

import pytest

from builder.readers import READERS, BadRecord, RawMCItem
from schemas.errors import RecipeError, SourceError, SourceNotFoundError


def test_mctest_four_questions_per_story(sources):
    items = list(READERS["mctest"](sources / "mctest", ["train", "dev"]))
    assert all(isinstance(it, RawMCItem) for it in items)
    per_story = Counter(it.passage_id for it in items)
    assert len(per_story) == 24 and set(per_story.values()) == {4}
    assert all(len(it.options) == 4 and len(it.correct) == 1 for it in items)
    # the README counts 27 `multiple:` questions in train and 26 in dev
    assert Counter((it.split, it.meta["evidence"]) for it in items) == {
        ("train", "multiple"): 27, ("train", "one"): 21, ("dev", "multiple"): 26, ("dev", "one"): 22}
    assert not any(it.question.startswith(("one: ", "multiple: ")) for it in items)


def test_mctest_letters_map_to_options_by_hand(sources):
    items = {it.question_id: it for it in READERS["mctest"](sources / "mctest")}
    # mc500.dev.ans line 1 is "A C... ": A A C B
    dev0 = [items[f"mc500.dev.0#{q}"] for q in range(4)]
    assert dev0[0].question == "If the rain arrived on Saturday, what day did Stewart go to the beach?"
    assert dev0[0].options[dev0[0].correct[0]] == "Friday"
    assert dev0[2].options[dev0[2].correct[0]] == "a place to sleep"
    assert [it.correct[0] for it in dev0] == [0, 0, 2, 1]
    # mc500.train.ans line 5 is C C D A
    tr4 = [items[f"mc500.train.4#{q}"] for q in range(4)]
    assert [it.options[it.correct[0]] for it in tr4] == [
        "Because Jimmy knocked", "By the fire", "Lightning bug",
        "They're difficult to catch and they take up a lot of space"]
    assert tr4[0].record == "line 5" and tr4[0].file == "MCTest/mc500.train.tsv"


def test_mctest_newline_markers_decoded(sources):
    items = list(READERS["mctest"](sources / "mctest", ["train"]))
    story = next(it for it in items if it.passage_id == "mc500.train.4").passage
    assert "\\newline" not in story and story.count("\n") == 4
    assert not any("\\newline" in it.passage or "\\tab" in it.passage for it in items)


def test_mctest_missing_answer_key_and_split(sources, tmp_path):
    with pytest.raises(SourceNotFoundError, match=r"mc500\.test\.tsv"):
        list(READERS["mctest"](sources / "mctest", ["test"]))
    (tmp_path / "mc500.train.tsv").write_text("x")
    with pytest.raises(SourceNotFoundError, match=r"mc500\.train\.ans: mctest answer key not found"):
        list(READERS["mctest"](tmp_path, ["train"]))
    with pytest.raises(RecipeError, match="allowed: train, dev, test"):
        READERS["mctest"](sources / "mctest", ["val"])
    with pytest.raises(RecipeError, match="subset"):
        READERS["mctest"](sources / "mctest", subset="mc999")


def test_mctest_ans_count_mismatch(crafted):
    root = crafted / "mctest_ans_mismatch"
    with pytest.raises(SourceError) as err:
        list(READERS["mctest"](root, ["train"]))
    msg = str(err.value)
    assert "mc500.train.ans has 2 lines but MCTest/mc500.train.tsv has 3" in msg
    assert "[ans_count_mismatch]" in msg
    recs = list(READERS["mctest"](root, ["train"], on_error="skip"))
    assert [r.reason for r in recs] == ["ans_count_mismatch"] * 3
    assert [r.record for r in recs] == ["line 1", "line 2", "line 3"]


def test_mctest_letter_out_of_range(crafted):
    root = crafted / "mctest_letter_out_of_range"
    with pytest.raises(SourceError, match=r"mc500\.train\.ans, line 2: answer 3 .* A-D, found 'E'"):
        list(READERS["mctest"](root, ["train"]))
    recs = list(READERS["mctest"](root, ["train"], on_error="skip"))
    bad = [r for r in recs if isinstance(r, BadRecord)]
    assert len(recs) == 8 and len(bad) == 1
    assert bad[0].reason == "answer_out_of_range" and bad[0].file == "MCTest/mc500.train.ans"


def test_mctest_malformed_tsv(crafted):
    root = crafted / "mctest_malformed_tsv"
    with pytest.raises(SourceError, match=r"mc500\.train\.tsv, line 2: expected 23 .* found 18 \[malformed_tsv\]"):
        list(READERS["mctest"](root, ["train"]))
    recs = list(READERS["mctest"](root, ["train"], on_error="skip"))
    assert len(recs) == 5 and recs[-1].reason == "malformed_tsv" and recs[-1].record == "line 2"
