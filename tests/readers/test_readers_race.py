"""RACE reader on the real sample (15 articles, 61 questions) and on crafted bad files."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from builder.readers import READERS, BadRecord, RawMCItem, get_reader
from schemas.errors import RecipeError, SourceError, SourceNotFoundError


def _items(reader):
    return [r for r in reader if isinstance(r, RawMCItem)]


def test_race_sample_counts(sources):
    every = _items(READERS["race"](sources / "race"))
    assert len(every) == 61
    assert sum("_" in it.question for it in every) == 29
    taken = _items(READERS["race"](sources / "race", ["train", "dev"]))
    assert len(taken) == 39
    assert sum("_" in it.question for it in taken) == 21
    assert {it.split for it in taken} == {"train", "dev"}


def test_race_ids_letters_and_order(sources):
    root = sources / "race"
    items = _items(READERS["race"](root, ["train"]))
    qids = [it.question_id for it in items]
    assert len(set(qids)) == len(qids)
    # compare every item with its raw file: the letter picks the option
    for it in items:
        raw = json.loads((root / it.file).read_text(encoding="utf-8"))
        i = int(it.record[1:])
        assert it.options == raw["options"][i]
        assert it.correct == ["ABCD".index(raw["answers"][i])]
        assert it.passage == raw["article"]
        assert it.question_id == f"{it.passage_id}#{i}"
        assert it.passage_id == f"train/{it.meta['level']}/{it.file.rsplit('/', 1)[1]}"
    # records of one passage are consecutive
    seen, last = set(), None
    for it in items:
        if it.passage_id != last:
            assert it.passage_id not in seen
            seen.add(it.passage_id)
            last = it.passage_id
    # deterministic
    assert qids == [it.question_id for it in READERS["race"](root, ["train"])]


def test_race_first_question_by_hand(sources):
    first = _items(READERS["race"](sources / "race", ["train"]))
    item = next(it for it in first if it.question_id == "train/middle/2.txt#0")
    # RACE/train/middle/2.txt: answers[0] == "C" -> third option
    assert item.correct == [2]
    assert item.options[2] == "drinking some water; medicine"
    assert item.file == "RACE/train/middle/2.txt" and item.record == "#0"


def test_race_root_may_be_the_race_folder(sources):
    assert len(_items(READERS["race"](sources / "race" / "RACE", ["dev"]))) == len(
        _items(READERS["race"](sources / "race", ["dev"])))


def test_race_unknown_split_lists_allowed(sources):
    with pytest.raises(RecipeError, match="allowed: train, dev, test"):
        READERS["race"](sources / "race", ["validation"])


def test_race_missing_folder_names_path(tmp_path):
    with pytest.raises(SourceNotFoundError, match="RACE"):
        list(READERS["race"](tmp_path, ["train"]))
    with pytest.raises(SourceNotFoundError, match="nowhere"):
        list(READERS["race"](tmp_path / "nowhere"))


def test_race_bad_json_raise_and_skip(crafted):
    root = crafted / "race_bad_json"
    with pytest.raises(SourceError, match=r"1\.txt, line 1: malformed JSON.*\[malformed_json\]"):
        list(READERS["race"](root, ["train"]))
    recs = list(READERS["race"](root, ["train"], on_error="skip"))
    assert len(recs) == 1 and isinstance(recs[0], BadRecord)
    assert recs[0].reason == "malformed_json" and recs[0].file == "RACE/train/middle/1.txt"


def test_race_letter_out_of_range(crafted):
    root = crafted / "race_letter_out_of_range"
    with pytest.raises(SourceError, match=r"#1: .*A-D, found 'E' \[answer_out_of_range\]"):
        list(READERS["race"](root, ["train"]))
    recs = list(READERS["race"](root, ["train"], on_error="skip"))
    assert [type(r).__name__ for r in recs] == ["RawMCItem", "BadRecord"]
    assert recs[0].correct == [1]
    assert recs[1].reason == "answer_out_of_range" and recs[1].record == "#1"


def test_race_missing_field(crafted):
    root = crafted / "race_missing_field"
    with pytest.raises(SourceError, match="field answers is missing"):
        list(READERS["race"](root, ["dev"]))
    (bad,) = READERS["race"](root, ["dev"], on_error="skip")
    assert bad.reason == "missing_field"


def test_registry_and_constructor_contract(sources):
    assert set(READERS) >= {"race", "sciq", "mctest", "reclor"}
    with pytest.raises(RecipeError, match="known: .*race"):
        get_reader("squad")
    with pytest.raises(RecipeError, match="on_error"):
        READERS["race"](sources / "race", on_error="ignore")
    with pytest.raises(RecipeError, match="unknown option.*colour.*allowed: license"):
        READERS["race"](sources / "race", colour="red")
    assert READERS["race"](sources / "race").license == "RACE-research"
    assert READERS["race"](sources / "race", license="CC-BY-4.0").license == "CC-BY-4.0"


@pytest.mark.parametrize("name", ["race", "sciq", "mctest", "reclor", "mcscript"])
def test_a_reader_reads_a_file_from_its_path_as_a_string_or_a_path(sources, name):
    # the assembly hands its workers the paths as strings (Reader.files); RACE lists strings itself
    reader = READERS[name](sources / name, on_error="skip")
    listed = reader.files()
    assert listed and all(isinstance(path, str) == reader.many_files for _, path in listed)
    for split, path in listed:
        assert list(reader.parse_file(split, str(path))) == list(reader.parse_file(split, Path(path)))


@pytest.mark.parametrize("answer", [["A"], {"letter": "A"}, 0, None, "a", "E"])
def test_an_answer_that_is_not_a_letter_of_the_options_is_a_bad_record_not_a_crash(tmp_path, answer):
    folder = tmp_path / "RACE" / "train" / "high"
    folder.mkdir(parents=True)
    (folder / "1.txt").write_text(json.dumps({"article": "A text.", "questions": ["Why?", "How?"],
                                              "options": [["a", "b", "c", "d"]] * 2, "answers": [answer, "B"]}))
    recs = list(READERS["race"](tmp_path, ["train"], on_error="skip"))
    assert [(type(r).__name__, r.record) for r in recs] == [("BadRecord", "#0"), ("RawMCItem", "#1")]
    assert recs[0].reason == "answer_out_of_range" and repr(answer) in recs[0].message
    with pytest.raises(SourceError, match=r"1\.txt, #0: field answers\[0\]: answer letter must be one of A-D"):
        list(READERS["race"](tmp_path, ["train"]))
