"""Issue 12, input side: bytes that are not UTF-8, non-numeric RACE names, an empty MCTest story file.

The inputs are the bad-input corpus of ``tests/data/bad/`` (each a copy of a
real sample with one change); ``tests/core/test_bad_inputs.py`` runs them
through the CLI, these tests look at the reader's records: under ``raise`` one
error naming the file, the line, the byte and the codec's reason; under
``skip`` exactly the bad record (file or line) becomes a ``BadRecord`` with
reason ``invalid_utf8`` and every other record is read as before.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from builder.readers import READERS, BadRecord, RawMCItem
from builder.readers.common import natural_key
from schemas.errors import SourceError
from schemas.tables import EncodingError

BAD = Path(__file__).resolve().parents[1] / "data" / "bad"
JSONL_COLS = {"passage": "context", "question": "q", "options": "choices", "answer": "label"}
CSV_COLS = {"passage": "context", "question": "q", "options": ["a", "b", "c", "d"], "answer": "label"}

#: corpus folder -> (reader, root under it, splits, options, bad file, bad record (skip), line (raise), good records)
INVALID_UTF8 = {
    "race_invalid_utf8": ("race", "race", ["train"], {}, "RACE/train/middle/2.txt", "line 1", "line 1", 5),
    "sciq_invalid_utf8": ("sciq", "sciq", ["train"], {}, "SciQ dataset-2 3/train.json", "line 3", "line 3", 0),
    "reclor_invalid_utf8": ("reclor", "reclor", ["val"], {}, "val.json", "line 1", "line 1", 0),
    "multirc_splitv2_invalid_utf8": ("multirc", "multirc", ["train"], {}, "splitv2/train_456-fixedIds.json",
                                     "line 1", "line 1", 0),
    "multirc_superglue_invalid_utf8": ("multirc", "multirc", ["train"], {}, "MultiRC/train.jsonl", "line 2",
                                       "line 2", 1),
    "mctest_tsv_invalid_utf8": ("mctest", "mctest", ["train"], {}, "MCTest/mc500.train.tsv", "line 2", "line 2", 8),
    "mctest_ans_invalid_utf8": ("mctest", "mctest", ["train"], {}, "MCTest/mc500.train.ans", "line 3", "line 3", 8),
    "mcscript_invalid_utf8": ("mcscript", "mcscript", ["train"], {}, "train-data.xml", "line 38", "line 38", 7),
    "generic_jsonl_invalid_utf8": ("jsonl", "generic", ["train"], {"columns": JSONL_COLS}, "train.jsonl",
                                   "line 3", "line 3", 3),
    "generic_csv_invalid_utf8": ("csv", "generic", ["train"], {"columns": CSV_COLS}, "train.csv", "line 4",
                                 "line 5", 3),
}


def test_every_reader_has_an_invalid_utf8_case():
    assert {case[0] for case in INVALID_UTF8.values()} == set(READERS)


@pytest.mark.parametrize("case", sorted(INVALID_UTF8))
def test_invalid_utf8_raise_names_file_line_byte_and_reason(case):
    name, root, splits, options, bad_file, _, line, _ = INVALID_UTF8[case]
    with pytest.raises(SourceError) as info:
        list(READERS[name](BAD / case / root, splits, **options))
    text = str(info.value)
    assert text.startswith(f"{BAD / case / root / bad_file}, {line}: not valid UTF-8 at byte ")
    assert ("invalid continuation byte" in text or "invalid start byte" in text) and "[invalid_utf8]" in text
    assert len(text.splitlines()) == 1


@pytest.mark.parametrize("case", sorted(INVALID_UTF8))
def test_invalid_utf8_skip_drops_only_the_bad_record(case):
    name, root, splits, options, bad_file, record, _, n_good = INVALID_UTF8[case]
    recs = list(READERS[name](BAD / case / root, splits, on_error="skip", **options))
    bad = [r for r in recs if isinstance(r, BadRecord)]
    assert [(r.file, r.record, r.reason) for r in bad] == [(bad_file, record, "invalid_utf8")]
    assert "not valid UTF-8" in bad[0].message
    good = [r for r in recs if isinstance(r, RawMCItem)]
    assert len(good) == n_good
    assert not any("\udce9" in r.passage + r.question or "\udcff" in r.passage + r.question for r in good)


def test_mcscript_checks_utf8_across_chunk_boundaries(monkeypatch):
    """The XML is streamed: a character split between chunks is fine, a bad byte keeps its line."""
    from builder.readers import mcscript

    root = BAD / "mcscript_invalid_utf8" / "mcscript"
    whole = list(READERS["mcscript"](root, ["train"], on_error="skip"))
    monkeypatch.setattr(mcscript, "_CHUNK", 7)
    assert list(READERS["mcscript"](root, ["train"], on_error="skip")) == whole
    sample = Path(__file__).resolve().parents[1] / "data" / "sources" / "mcscript"
    expected = list(READERS["mcscript"](sample, ["dev"]))
    assert len(expected) == 46 and list(READERS["mcscript"](sample, ["dev"])) == expected


# -- RACE: names that are not numbers -------------------------------------------------------------------
def test_natural_key_sorts_any_mix_of_names():
    names = ["copy_a.txt", "10.txt", "2.txt", "copy_b.txt", "1.txt", "a10.txt", "a9.txt", "01.txt", "२.txt"]
    assert sorted(names, key=natural_key) == ["01.txt", "1.txt", "2.txt", "२.txt", "10.txt", "a9.txt", "a10.txt",
                                               "copy_a.txt", "copy_b.txt"]
    assert sorted(reversed(names), key=natural_key) == sorted(names, key=natural_key)


@pytest.mark.parametrize("on_error", ["raise", "skip"])
def test_race_reads_a_non_numeric_name_after_the_numbered_ones(on_error):
    root = BAD / "race_copy_a_name" / "race"
    recs = list(READERS["race"](root, ["train"], on_error=on_error))
    assert all(isinstance(r, RawMCItem) for r in recs)
    files = list(dict.fromkeys(r.file for r in recs))
    assert files == ["RACE/train/middle/2.txt", "RACE/train/middle/3.txt", "RACE/train/middle/copy_a.txt"]
    copy = [r for r in recs if r.file.endswith("copy_a.txt")]
    assert copy[0].passage_id == "train/middle/copy_a.txt" and copy[0].question_id == "train/middle/copy_a.txt#0"
    assert [(r.question, r.options, r.correct) for r in copy] == \
        [(r.question, r.options, r.correct) for r in recs if r.file.endswith("/3.txt")]


def test_race_non_numeric_name_with_bad_json_is_one_bad_record():
    root = BAD / "race_copy_a_bad_json" / "race"
    with pytest.raises(SourceError, match=r"copy_a\.txt, line 1: malformed JSON.*\[malformed_json\]"):
        list(READERS["race"](root, ["train"]))
    recs = list(READERS["race"](root, ["train"], on_error="skip"))
    assert [(r.file, r.reason) for r in recs if isinstance(r, BadRecord)] == \
        [("RACE/train/middle/copy_a.txt", "malformed_json")]
    assert isinstance(recs[0], RawMCItem) and len(recs) == 1 + sum(isinstance(r, RawMCItem) for r in recs)


# -- MCTest: a story file that lost its lines -------------------------------------------------------------
def test_mctest_empty_tsv_names_both_files_and_counts():
    root = BAD / "mctest_empty_tsv" / "mctest"
    with pytest.raises(SourceError) as info:
        list(READERS["mctest"](root, ["train"]))
    text = str(info.value)
    assert "MCTest/mc500.train.ans has 3 lines but MCTest/mc500.train.tsv has 0" in text
    assert "[ans_count_mismatch]" in text
    recs = list(READERS["mctest"](root, ["train"], on_error="skip"))
    assert [(r.file, r.record, r.reason) for r in recs] == [
        ("MCTest/mc500.train.ans", f"line {n}", "ans_count_mismatch") for n in (1, 2, 3)]


def test_mctest_short_ans_counts_every_story_of_the_tsv(tmp_path):
    src = BAD / "mctest_empty_tsv" / "mctest"
    root = shutil.copytree(src, tmp_path / "mctest")
    tsv = BAD / "mctest_ans_invalid_utf8" / "mctest" / "MCTest" / "mc500.train.tsv"
    shutil.copy(tsv, root / "MCTest" / "mc500.train.tsv")  # 3 stories
    ans = root / "MCTest" / "mc500.train.ans"
    ans.write_bytes(b"".join(ans.read_bytes().splitlines(keepends=True)[:1]))  # 1 key
    recs = list(READERS["mctest"](root, ["train"], on_error="skip"))
    assert [(r.file, r.record) for r in recs] == [("MCTest/mc500.train.tsv", f"line {n}") for n in (1, 2, 3)]
    assert "has 1 lines but MCTest/mc500.train.tsv has 3" in recs[0].message


def test_encoding_error_is_a_source_error_with_a_reason():
    assert issubclass(EncodingError, SourceError) and EncodingError.reason == "invalid_utf8"


# -- generic csv: the encoding option -------------------------------------------------------------------
def test_generic_csv_encoding_option(tmp_path):
    from schemas.errors import RecipeError

    rows = "context,q,a,b,c,d,label\r\nÄpfel und Birnen.,Was?,Äpfel,Birnen,Kirschen,Pflaumen,A\r\n"
    (tmp_path / "train.csv").write_bytes(rows.encode("latin-1"))
    items = list(READERS["csv"](tmp_path, ["train"], columns=CSV_COLS, encoding="latin-1"))
    assert items[0].options[0] == "Äpfel" and items[0].correct == [0]
    with pytest.raises(SourceError, match=r"train\.csv, line 2: not valid UTF-8 at byte 25 \(0xc4, invalid "
                                          r"continuation byte\) \[invalid_utf8\]"):
        list(READERS["csv"](tmp_path, ["train"], columns=CSV_COLS))
    with pytest.raises(RecipeError, match="option encoding must name a Python codec"):
        READERS["csv"](tmp_path, ["train"], columns=CSV_COLS, encoding="utf-42")
    with pytest.raises(RecipeError, match="option delimiter must be one character; found ';;'"):
        READERS["csv"](tmp_path, ["train"], columns=CSV_COLS, delimiter=";;")
