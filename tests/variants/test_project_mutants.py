"""builder extend's topic projection where mutation left it free (issue 27): what every check records, each
alignment message, the refusals word for word, labels.txt, and variant.json key by key.

The survivors of `mutmut run` over `builder/variants/project.py` (docs/testing.md, issue 27's fifth pass)
showed that the tests of `test_variants_project.py` read the first error's text but not the checks'
items: the index offset of the second parallel file (``k - start``), the 1-based line numbers and the
ids of each break could all be off without a failure. These tests call the checks directly on the real
N'Ko FLORES files, edited, so they run in a second or two.
"""
from __future__ import annotations

import hashlib
import json
import math
import random
from pathlib import Path

import numpy as np
import pytest

from builder.variants.checks import CheckConfig
from builder.variants.parallel import read_parallel
from builder.variants.project import (_snippet, check_parallel, english_by_index, labels_of, project_topic,
                                      raise_first_error, read_topic_source)
from schemas.errors import AlignmentError, SchemaError, ScriptError, SourceNotFoundError, UsageError
from schemas.io import WrongPathKind, write_sib_tsv
from schemas.scripts import count_letters
from schemas.textstats import log_ratio, robust_z

SIB = Path(__file__).parents[1] / "data" / "sib200"
RAW = SIB / "flores-raw"
DEV, DEVTEST = RAW / "nqo_Nkoo.dev", RAW / "nqo_Nkoo.devtest"
N_DEV, N_DEVTEST = 997, 1012


@pytest.fixture(scope="module")
def source():
    splits = read_topic_source(SIB / "eng")
    return english_by_index(splits), [int(r["index_id"]) for rows in splits.values() for r in rows]


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").split("\n")[:-1]


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return path


def _check(files, source, config=None):
    english, ids = source
    text = read_parallel(files)
    return text, check_parallel(text, english, ids, "nqo_Nkoo", config or CheckConfig())


def _quoted_snippet(text: str) -> str:
    """The English sentence as a message quotes it: white space folded, at most 40 characters, an ellipsis
    after the 39th when longer; Python's repr quotes (double quotes where the text has an apostrophe)."""
    folded = " ".join(text.split())
    return repr(folded if len(folded) <= 40 else folded[:39] + "…")


@pytest.mark.parametrize("text, expected", [
    ("short", "short"),
    ("  a\tb \n c  ", "a b c"),
    ("x" * 40, "x" * 40),
    ("x" * 41, "x" * 39 + "…"),
    ("word " * 20, ("word " * 8)[:39] + "…"),
])
def test_a_snippet_folds_white_space_and_keeps_at_most_40_characters(text, expected):
    assert _snippet(text) == expected


def test_a_line_missing_from_the_second_file_is_reported_at_that_files_lines_and_the_global_ids(tmp_path, source):
    english, _ = source
    k = 300  # line 301 of the devtest file, index_id 997 + 300
    broken = _write(tmp_path / "b.devtest", _lines(DEVTEST)[:k] + _lines(DEVTEST)[k + 1:])
    text, checks = _check([DEV, broken], source)
    assert checks.results["line_count"].items == [{"file": str(broken), "found": N_DEVTEST - 1,
                                                   "expected": N_DEVTEST}]
    (item,) = checks.results["alignment"].items
    assert set(item) == {"file", "kind", "line", "last_line", "expected_index_id", "found_index_id"}
    assert item["file"] == str(broken) and item["kind"] == "missing"
    assert item["line"] <= k + 1 <= item["last_line"] and item["last_line"] - item["line"] < 10
    # line L of the devtest file (1-based) is index_id 997 + L - 1; from the break on it holds the next one
    assert item["expected_index_id"] == N_DEV + item["line"] - 1
    assert item["found_index_id"] == item["expected_index_id"] + 1
    file, breaks, message = checks.first_alignment
    assert file.path == broken and breaks[0].line + 1 == item["line"]
    assert checks.results["line_count"].message == message == checks.results["alignment"].message
    eng = english[item["expected_index_id"]]
    assert message == (f"{N_DEVTEST - 1} lines, expected {N_DEVTEST}; first misaligned line: line {item['line']} "
                       f"at the earliest, line {item['last_line']} at the latest (English is known only for the "
                       f"annotated lines), expected the translation of index_id {item['expected_index_id']} "
                       f"({_quoted_snippet(eng)}); a line is missing: from there on each line translates the next "
                       "English sentence")
    with pytest.raises(AlignmentError) as err:
        raise_first_error(checks, text, "nqo_Nkoo", english)
    assert err.value.file == str(broken) and err.value.record == f"line {item['line']}"
    assert err.value.message == message


def test_two_breaks_are_both_recorded_and_the_message_counts_them(tmp_path, source):
    lines = _lines(DEVTEST)
    broken = _write(tmp_path / "two.devtest", lines[:100] + lines[101:800] + lines[801:])
    _, checks = _check([DEV, broken], source)
    first, second = checks.results["alignment"].items
    assert first["line"] <= 101 <= first["last_line"] and second["line"] <= 800 <= second["last_line"]
    assert [first["kind"], second["kind"]] == ["missing", "missing"]
    # after the first missing line every later line holds the id after the one expected there
    assert first["expected_index_id"] == N_DEV + first["line"] - 1
    assert second["expected_index_id"] == N_DEV + second["line"]
    assert second["found_index_id"] == second["expected_index_id"] + 1
    assert checks.first_alignment[2].startswith(f"{N_DEVTEST - 2} lines, expected {N_DEVTEST}; ")
    assert checks.first_alignment[2].endswith("; 2 breaks in all")


def test_an_extra_line_with_text_is_an_extra_line_not_an_empty_one(tmp_path, source):
    lines = _lines(DEVTEST)
    broken = _write(tmp_path / "x.devtest", lines[:400] + [lines[399]] + lines[400:])
    _, checks = _check([DEV, broken], source)
    (item,) = checks.results["alignment"].items
    assert item["kind"] == "extra" and item["found_index_id"] is None
    assert item["line"] <= 401 <= item["last_line"]
    assert item["expected_index_id"] == N_DEV + item["line"] - 1
    message = checks.first_alignment[2]
    assert message.endswith("; an extra line has no English counterpart") and "empty" not in message
    assert "breaks in all" not in message


def test_counts_too_far_apart_name_the_count_and_why_no_line_is_named(tmp_path, source):
    english, _ = source
    broken = _write(tmp_path / "far.devtest", _lines(DEVTEST)[:900])
    text, checks = _check([DEV, broken], source)
    assert checks.results["alignment"].items == [] and checks.results["alignment"].status == "ok"
    assert checks.results["line_count"].items == [{"file": str(broken), "found": 900, "expected": N_DEVTEST}]
    message = ("900 lines, expected 1012; cannot locate the first misaligned line "
               "(the counts are too far apart to locate it)")
    assert checks.results["line_count"].message == message
    assert checks.results["alignment"].message == ""  # no break found: the count check carries the message
    with pytest.raises(AlignmentError) as err:
        raise_first_error(checks, text, "nqo_Nkoo", english)
    assert err.value.file == str(broken) and err.value.record is None and err.value.message == message


def test_a_file_without_annotated_english_says_so(tmp_path, source):
    third = _write(tmp_path / "third.txt", _lines(DEVTEST)[:2])  # ids 2009-2011: no English there
    _, checks = _check([DEV, DEVTEST, third], source, CheckConfig(expected_lines=(N_DEV, N_DEVTEST, 3)))
    assert checks.results["line_count"].items == [{"file": str(third), "found": 2, "expected": 3}]
    assert checks.first_alignment[2] == ("2 lines, expected 3; cannot locate the first misaligned line "
                                         "(no annotated English falls in this file)")


def test_aligned_files_record_no_alignment_finding(source):
    _, checks = _check([DEV, DEVTEST], source)
    assert checks.first_alignment is None
    assert {name: (r.status, r.count) for name, r in checks.results.items()} == {
        "line_count": ("ok", 0), "alignment": ("ok", 0), "empty_lines": ("ok", 0), "ids_out_of_range": ("ok", 0),
        "script_file": ("ok", 0), "script_lines": ("ok", 0), "length_outliers": ("warning", 1),
        "duplicates": ("ok", 0)}
    assert [checks.results[n].message for n in ("script_lines", "length_outliers", "duplicates")] == [
        "0 lines flagged", "1 lines flagged", "0 lines flagged"]


def test_ids_beyond_the_parallel_lines_name_the_first_the_count_and_the_range(source):
    english, ids = source
    text, checks = _check([DEV], source, CheckConfig(expected_lines=(N_DEV,)))
    beyond = sorted({i for i in ids if i >= N_DEV})
    assert checks.results["ids_out_of_range"].items == beyond
    with pytest.raises(AlignmentError) as err:
        raise_first_error(checks, text, "nqo_Nkoo", english)
    assert err.value.message == (f"index_id {beyond[0]} is beyond the {N_DEV} parallel lines ({len(beyond)} ids "
                                 f"out of range); expected ids 0-{N_DEV - 1}")
    assert err.value.file == str(DEV)


@pytest.mark.parametrize("index", [9, 10])
def test_an_empty_line_names_its_line_the_count_and_the_english_when_known(tmp_path, source, index):
    english, _ = source
    lines = _lines(DEVTEST)
    lines[index] = " "
    lines[500] = ""
    broken = _write(tmp_path / "e.devtest", lines)
    text, checks = _check([DEV, broken], source)
    assert checks.results["empty_lines"].items == [N_DEV + index, N_DEV + 500]
    with pytest.raises(AlignmentError) as err:
        raise_first_error(checks, text, "nqo_Nkoo", english)
    i = N_DEV + index
    known = f" ({_quoted_snippet(english[i])})" if i in english else ""
    assert err.value.message == f"empty line (2 empty lines in all); expected the translation of index_id {i}{known}"
    assert (err.value.file, err.value.record) == (str(broken), f"line {index + 1}")
    assert (i in english) == (index == 10)  # 1006 has no English, 1007 has


def test_too_many_odd_lines_stop_the_build_naming_the_check_share_and_first_line(tmp_path, source):
    english, _ = source
    lines = _lines(DEVTEST)
    lines[20] = lines[10]  # the same sentence for two different English sentences
    broken = _write(tmp_path / "d.devtest", lines)
    config = CheckConfig(severity={**CheckConfig().severity, "duplicates": "error"})
    text, checks = _check([DEV, broken], source, config)
    assert checks.results["duplicates"].items == [[N_DEV + 10, N_DEV + 20]]
    assert checks.results["duplicates"].status == "error"
    with pytest.raises(AlignmentError) as err:
        raise_first_error(checks, text, "nqo_Nkoo", english)
    assert err.value.message == ("duplicates: 1 lines flagged (0.0%), more than the allowed 5% (or severity error); "
                                 "first: line 11")
    assert (err.value.file, err.value.record) == (str(broken), "line 11")


def test_the_parallel_file_count_must_match_the_expected_counts(source):
    english, ids = source
    text = read_parallel([DEV, DEVTEST, DEV])
    with pytest.raises(UsageError) as err:
        check_parallel(text, english, ids, "nqo_Nkoo", CheckConfig())
    assert str(err.value) == ("3 parallel files given; state the expected line counts with --expected-lines N, "
                              "once per file in the order given")
    with pytest.raises(UsageError) as err:
        check_parallel(read_parallel([DEV]), english, ids, "nqo_Nkoo", CheckConfig(expected_lines=(997, 1012)))
    assert str(err.value) == "2 expected line counts for 1 parallel files; give one count per file"


def _source(folder: Path, rows: dict[str, list[tuple[str, str, str]]]) -> Path:
    folder.mkdir()
    for split, items in rows.items():
        write_sib_tsv(folder / f"{split}.tsv", [{"index_id": i, "category": c, "text": t} for i, c, t in items])
    return folder


def test_labels_without_labels_txt_are_the_categories_in_order_of_first_use(tmp_path):
    src = _source(tmp_path / "src", {"train": [("0", "sports", "a"), ("1", "health", "b"), ("2", "sports", "c")],
                                     "dev": [("3", "travel", "d")], "test": [("4", "health", "e"), ("5", "geo", "f")]})
    assert labels_of(src, read_topic_source(src)) == "sports\nhealth\ntravel\ngeo\n"


def test_labels_txt_is_copied_without_its_bom_and_with_lf_line_ends(tmp_path):
    src = _source(tmp_path / "src", {"train": [("0", "b", "x")]})
    (src / "labels.txt").write_bytes("\ufeffz\r\nb\r\na".encode("utf-8"))
    assert labels_of(src, read_topic_source(src)) == "z\nb\na\n"


def test_the_source_refusals_name_the_file_and_line(tmp_path):
    with pytest.raises(SchemaError) as err:
        read_topic_source(_source(tmp_path / "empty", {}))
    assert err.value.message == "no train.tsv, dev.tsv or test.tsv in the source folder"
    assert err.value.file == str(tmp_path / "empty")
    bad = _source(tmp_path / "bad", {"train": [("0", "a", "x")], "dev": [("1", "a", "y"), ("one", "a", "z")]})
    with pytest.raises(SchemaError) as err:
        read_topic_source(bad)
    assert err.value.message == "expected an integer index_id, found 'one'"
    assert (err.value.file, err.value.record, err.value.field) == (str(bad / "dev.tsv"), "line 3", "index_id")
    ok = _source(tmp_path / "ok", {"test": [("0", "a", "x"), (" 7 ", "a", "y")]})
    assert list(read_topic_source(ok)) == ["test"]  # only the splits that are there
    assert english_by_index(read_topic_source(ok)) == {0: "x", 7: "y"}
    with pytest.raises(SourceNotFoundError) as err:
        read_topic_source(tmp_path / "nowhere")
    assert (err.value.message, err.value.file) == ("source folder not found", str(tmp_path / "nowhere"))
    with pytest.raises(WrongPathKind) as err:
        read_topic_source(ok / "test.tsv")
    assert err.value.message == "expected a source folder, found a file"


@pytest.mark.parametrize("value, message", [
    ("--5", "expected an integer index_id, found '--5'"),  # passed a digits check once, then int() failed
    ("²", "expected an integer index_id, found '²'"),  # a digit to str.isdigit, not to int()
    ("X5", "expected an integer index_id, found 'X5'"),
    ("", "expected an integer index_id, found ''"),
    ("-1", "expected index_id >= 0, found -1"),
])
def test_an_index_id_that_is_not_a_whole_number_from_0_is_refused_naming_the_line(tmp_path, value, message):
    bad = _source(tmp_path / "bad", {"train": [("0", "a", "x"), (value, "a", "y")]})
    with pytest.raises(SchemaError) as err:
        read_topic_source(bad)
    assert (err.value.message, err.value.file, err.value.record, err.value.field) == (
        message, str(bad / "train.tsv"), "line 3", "index_id")


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_variant_json_records_every_input_and_setting(tmp_path):
    result = project_topic(SIB / "eng", [DEV, DEVTEST], "nqo_Nkoo", tmp_path)
    meta = json.loads((tmp_path / "nqo_Nkoo" / "variant.json").read_text(encoding="utf-8"))
    assert result.out_dir == tmp_path / "nqo_Nkoo" and result.rows == {"train": 701, "dev": 99, "test": 204}
    assert (meta["variant"], meta["kind"], meta["method"]) == ("nqo_Nkoo", "topic", "projection")
    assert meta["source_files"] == {s: _sha(SIB / "eng" / f"{s}.tsv") for s in ("train", "dev", "test")}
    assert [(Path(p["path"]).name, p["sha256"], p["lines"]) for p in meta["parallel"]] == [
        (DEV.name, _sha(DEV), N_DEV), (DEVTEST.name, _sha(DEVTEST), N_DEVTEST)]
    assert meta["expected_lines"] == [N_DEV, N_DEVTEST]
    assert meta["config"] == CheckConfig().to_dict() | {"expected_lines": None}
    ratio = meta["length_ratio"]
    assert set(ratio) == {"median_log_ratio", "scale"}
    model = result.checks.length_model
    assert ratio == {"median_log_ratio": round(model.center, 6), "scale": round(model.scale, 6)}
    assert meta["checks"] == json.loads(json.dumps(result.checks.to_dict()))
    assert meta["checks"]["length_outliers"]["items"] == [{"index_id": 556, "z": -3.84}]
    assert (tmp_path / "nqo_Nkoo" / "labels.txt").read_bytes() == (SIB / "eng" / "labels.txt").read_bytes()
    rows = (tmp_path / "nqo_Nkoo" / "dev.tsv").read_text(encoding="utf-8").splitlines()
    assert rows[0] == "index_id\tcategory\ttext"
    lines = _lines(DEV) + _lines(DEVTEST)
    first = read_topic_source(SIB / "eng")["dev"][0]
    assert rows[1].split("\t") == [first["index_id"], first["category"], lines[int(first["index_id"])]]


def test_a_file_in_another_script_records_its_share_and_the_script_it_looks_like(tmp_path, source):
    english, _ = source
    latin = [f"Sentence number {i} in Latin letters" for i in range(N_DEVTEST)]
    broken = _write(tmp_path / "latn.devtest", latin)
    text, checks = _check([DEV, broken], source)
    assert checks.results["script_file"].items == [{"file": str(broken), "share": 0.0, "dominant": "Latn"}]
    assert checks.results["script_lines"].items == list(range(N_DEV, N_DEV + N_DEVTEST))
    mixed = _lines(DEVTEST)
    mixed[:700] = latin[:700]  # 700 of 1,012 lines Latin: the file's share of N'Ko letters falls under 80%
    half = _write(tmp_path / "half.devtest", mixed)
    _, checks = _check([DEV, half], source)
    (item,) = checks.results["script_file"].items
    assert 0 < item["share"] < 0.8 and item["share"] == round(item["share"], 4) and item["dominant"] == "Latn"


def test_a_block_moved_with_equal_counts_stops_the_build_at_its_first_break(tmp_path, source):
    english, _ = source
    lines = _lines(DEVTEST)
    moved = lines[:300] + lines[301:700] + [lines[300]] + lines[700:]
    broken = _write(tmp_path / "m.devtest", moved)
    text, checks = _check([DEV, broken], source)
    assert checks.results["line_count"].status == "ok" and checks.results["alignment"].status == "error"
    first = checks.results["alignment"].items[0]
    with pytest.raises(AlignmentError) as err:
        raise_first_error(checks, text, "nqo_Nkoo", english)
    assert (err.value.file, err.value.record) == (str(broken), f"line {first['line']}")
    assert err.value.message.startswith(f"{N_DEVTEST} lines as expected; first misaligned line: line {first['line']}")


def test_a_file_under_the_script_share_names_its_first_line_outside_the_script(tmp_path, source):
    english, _ = source
    lines = _lines(DEVTEST)
    lines[1:701] = [f"Sentence number {i} in Latin letters" for i in range(700)]  # the first 20: Latin but one
    broken = _write(tmp_path / "s.devtest", lines)
    text, checks = _check([DEV, broken], source)
    with pytest.raises(ScriptError) as err:
        raise_first_error(checks, text, "nqo_Nkoo", english)
    share = checks.results["script_file"].items[0]["share"]
    assert err.value.message == (f"only {share:.1%} of the letters are in script Nkoo declared by nqo_Nkoo (expected at "
                                 "least 80%); the text looks like Latn; first line not in Nkoo: line 2")
    assert (err.value.file, err.value.record) == (str(broken), "line 2")


def test_a_file_under_the_script_share_without_a_line_under_the_line_share_names_its_first_line(tmp_path, source):
    english, _ = source
    # every line two thirds N'Ko, one third Latin: no line under the line share (50%), the file under 80%
    lines = [f"{line} {'a' * (sum(ch.isalpha() for ch in line) // 2)}" for line in _lines(DEVTEST)]
    broken = _write(tmp_path / "h.devtest", lines)
    text, checks = _check([DEV, broken], source)
    assert checks.results["script_lines"].items == []
    with pytest.raises(ScriptError) as err:
        raise_first_error(checks, text, "nqo_Nkoo", english)
    assert err.value.message.endswith("; first line not in Nkoo: line 1") and err.value.record == "line 1"


def test_one_line_in_another_script_is_a_script_error_when_the_check_is_an_error(tmp_path):
    src = _source(tmp_path / "src", {"test": [("0", "science", "The English sentence.")]})
    parallel = _write(tmp_path / "one.txt", ["A Latin line where N'Ko was declared"])
    config = CheckConfig(expected_lines=(1,), severity={**CheckConfig().severity, "script_file": "off",
                                                        "script_lines": "error"})
    with pytest.raises(ScriptError) as err:
        project_topic(src, [parallel], "nqo_Nkoo", tmp_path / "out", config=config)
    assert err.value.message == ("script_lines: 1 lines flagged (100.0%), more than the allowed 5% (or severity "
                                 "error); first: line 1")
    assert (err.value.file, err.value.record) == (str(parallel), "line 1")


def test_a_source_with_too_few_annotated_lines_has_no_length_model_and_its_labels_come_from_its_rows(tmp_path):
    rows = read_topic_source(SIB / "eng")["train"][:2]
    src = _source(tmp_path / "src", {"train": [(r["index_id"], r["category"], r["text"]) for r in rows]})
    project_topic(src, [DEV, DEVTEST], "nqo_Nkoo", tmp_path / "out")
    meta = json.loads((tmp_path / "out" / "nqo_Nkoo" / "variant.json").read_text(encoding="utf-8"))
    assert meta["length_ratio"] is None and meta["checks"]["length_outliers"]["count"] == 0
    assert meta["source"] == str(src)
    labels = list(dict.fromkeys(r["category"] for r in rows))
    assert (tmp_path / "out" / "nqo_Nkoo" / "labels.txt").read_text(encoding="utf-8") == "".join(
        f"{label}\n" for label in labels)


def test_an_earlier_variant_folder_is_replaced_and_a_foreign_one_refused(tmp_path):
    out = tmp_path / "out"
    (out / "nqo_Nkoo").mkdir(parents=True)
    (out / "nqo_Nkoo" / "variant.json").write_text("{}", encoding="utf-8")  # an earlier version's, unmarked
    project_topic(SIB / "eng", [DEV, DEVTEST], "nqo_Nkoo", out)
    assert json.loads((out / "nqo_Nkoo" / "variant.json").read_text(encoding="utf-8"))["variant"] == "nqo_Nkoo"
    foreign = tmp_path / "foreign"
    (foreign / "nqo_Nkoo").mkdir(parents=True)
    (foreign / "nqo_Nkoo" / "notes.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(UsageError) as err:
        project_topic(SIB / "eng", [DEV, DEVTEST], "nqo_Nkoo", foreign)
    assert "a non-empty folder without variant.json" in err.value.message
    assert (foreign / "nqo_Nkoo" / "notes.txt").read_text(encoding="utf-8") == "mine"


def test_the_count_check_carries_a_message_only_when_the_counts_differ(tmp_path, source):
    lines = _lines(DEVTEST)
    moved = _write(tmp_path / "m.devtest", lines[:300] + lines[301:700] + [lines[300]] + lines[700:])
    _, checks = _check([DEV, moved], source)
    assert checks.results["line_count"].message == "" and checks.results["alignment"].message != ""
    _, checks = _check([DEV, DEVTEST], source)
    assert checks.results["line_count"].message == "" and checks.results["alignment"].message == ""


def _latin(n: int) -> list[str]:
    return [f"Sentence number {i} in Latin letters" for i in range(n)]


def test_the_first_file_in_another_script_is_found_too(tmp_path, source):
    broken = _write(tmp_path / "latn.dev", _latin(N_DEV))
    _, checks = _check([broken, DEVTEST], source)
    assert checks.results["script_file"].items == [{"file": str(broken), "share": 0.0, "dominant": "Latn"}]


def _mostly_latin(tmp_path: Path) -> tuple[Path, float]:
    """The devtest file with 700 of its 1,012 lines Latin (all of the first 20 but one), and its share of
    N'Ko letters, counted over the file's lines joined."""
    lines = _lines(DEVTEST)
    lines[1:701] = _latin(700)
    total, inside = count_letters("\n".join(lines), "Nkoo")
    return _write(tmp_path / "half.devtest", lines), inside / total


def test_a_files_share_is_of_its_own_lines_joined(tmp_path, source):
    mixed, share = _mostly_latin(tmp_path)
    _, checks = _check([DEV, mixed], source)
    assert checks.results["script_file"].items == [{"file": str(mixed), "share": round(share, 4), "dominant": "Latn"}]


def test_a_file_without_letters_is_not_in_another_script_and_one_latin_letter_is(tmp_path, source):
    digits = _write(tmp_path / "digits.devtest", [f"{i} {i * 7}" for i in range(N_DEVTEST)])
    _, checks = _check([DEV, digits], source)
    assert checks.results["script_file"].items == []
    one = _write(tmp_path / "one.devtest", ["a"] + [f"{i}" for i in range(1, N_DEVTEST)])
    _, checks = _check([DEV, one], source)
    assert checks.results["script_file"].items == [{"file": str(one), "share": 0.0, "dominant": "Latn"}]


def test_a_file_exactly_at_the_minimum_share_passes(tmp_path, source):
    mixed, share = _mostly_latin(tmp_path)
    _, checks = _check([DEV, mixed], source, CheckConfig(script_file_min_share=share))
    assert checks.results["script_file"].items == []


def test_a_line_under_half_its_letters_in_the_script_is_flagged_and_one_at_half_is_not(tmp_path, source):
    lines = _lines(DEVTEST)
    nko = next(ch for ch in lines[0] if ch.isalpha())  # one N'Ko letter
    lines[5] = nko + " abcdefghij"  # 1 of 11 letters in N'Ko
    lines[6] = nko * 3 + " abc"  # 3 of 6: exactly half
    broken = _write(tmp_path / "l.devtest", lines)
    _, checks = _check([DEV, broken], source)
    assert checks.results["script_lines"].items == [N_DEV + 5]


def test_too_many_lines_in_another_script_escalate_to_an_error(tmp_path, source):
    english, _ = source
    lines = _lines(DEVTEST)
    lines[100:250] = _latin(150)  # 150 of 2,009 lines: over 5%, the file still 80% N'Ko
    broken = _write(tmp_path / "many.devtest", lines)
    text, checks = _check([DEV, broken], source)
    assert checks.results["script_file"].items == []
    result = checks.results["script_lines"]
    assert (result.count, result.severity, result.escalated, result.status) == (150, "warning", True, "error")
    with pytest.raises(ScriptError) as err:
        raise_first_error(checks, text, "nqo_Nkoo", english)
    assert err.value.message == ("script_lines: 150 lines flagged (7.5%), more than the allowed 5% (or severity "
                                 "error); first: line 101")


def test_the_first_line_named_for_a_file_is_a_line_of_that_file(tmp_path, source):
    english, _ = source
    half = [f"{line} {'a' * (sum(ch.isalpha() for ch in line) // 2)}" for line in _lines(DEV)]
    first_file = _write(tmp_path / "h.dev", half)  # no line under 50%, the file under 80%
    lines = _lines(DEVTEST)
    lines[0] = "Latin letters only"  # the next file's first line: not a line of the first file
    second = _write(tmp_path / "x.devtest", lines)
    text, checks = _check([first_file, second], source)
    assert checks.results["script_lines"].items == [N_DEV]
    with pytest.raises(ScriptError) as err:
        raise_first_error(checks, text, "nqo_Nkoo", english)
    assert err.value.file == str(first_file) and err.value.record == "line 1"


def test_three_annotated_lines_are_enough_for_a_length_model(tmp_path):
    rows = read_topic_source(SIB / "eng")["train"][:3]
    src = _source(tmp_path / "src", {"train": [(r["index_id"], r["category"], r["text"]) for r in rows]})
    project_topic(src, [DEV, DEVTEST], "nqo_Nkoo", tmp_path / "out")
    meta = json.loads((tmp_path / "out" / "nqo_Nkoo" / "variant.json").read_text(encoding="utf-8"))
    assert set(meta["length_ratio"]) == {"median_log_ratio", "scale"}


def test_a_files_first_line_missing_is_pinned_by_that_lines_english(tmp_path, source):
    broken = _write(tmp_path / "b.devtest", _lines(DEVTEST)[1:])  # index_id 997 has English
    _, checks = _check([DEV, broken], source)
    assert checks.results["alignment"].items == [{"file": str(broken), "kind": "missing", "line": 1, "last_line": 1,
                                                  "expected_index_id": N_DEV, "found_index_id": N_DEV + 1}]


def test_too_many_length_outliers_escalate_to_an_error_naming_the_first(tmp_path, source):
    english, _ = source
    lines = _lines(DEVTEST)
    covered = [i for i in range(N_DEVTEST) if N_DEV + i in english][:60]  # 60 of the 1,004 annotated lines
    for i in covered:
        lines[i] = lines[i][:2]  # a translation cut to two characters: far shorter than its English
    broken = _write(tmp_path / "cut.devtest", lines)
    text, checks = _check([DEV, broken], source)
    result = checks.results["length_outliers"]
    assert {item["index_id"] for item in result.items} >= {N_DEV + i for i in covered}
    assert (result.severity, result.escalated, result.status) == ("warning", True, "error")
    with pytest.raises(AlignmentError) as err:
        raise_first_error(checks, text, "nqo_Nkoo", english)
    first = result.items[0]["index_id"]  # an index_id: its line in its own file
    line, file = (first + 1, DEV) if first < N_DEV else (first - N_DEV + 1, broken)
    assert err.value.message == (f"length_outliers: {result.count} lines flagged ({result.count / 2009:.1%}), more "
                                 f"than the allowed 5% (or severity error); first: line {line}")
    assert (err.value.file, err.value.record) == (str(file), f"line {line}")


def test_too_many_duplicate_lines_escalate_to_an_error(tmp_path, source):
    lines = _lines(DEVTEST)
    for i in range(0, 240, 2):
        lines[i + 1] = lines[i]  # 120 pairs: 240 of 2,009 lines in duplicate groups
    broken = _write(tmp_path / "dup.devtest", lines)
    _, checks = _check([DEV, broken], source)
    result = checks.results["duplicates"]
    assert result.count >= 110 and (result.escalated, result.status) == (True, "error")


def test_a_projected_variant_folder_is_marked_as_extends_output(tmp_path):
    from schemas.runtime.outputs import written_by

    project_topic(SIB / "eng", [DEV, DEVTEST], "nqo_Nkoo", tmp_path)
    assert written_by(tmp_path / "nqo_Nkoo") == "variant"


def _check_one(files, english, code, expected):
    text = read_parallel(files)
    return text, check_parallel(text, english, sorted(english), code, CheckConfig(expected_lines=expected))


def test_english_of_the_next_file_s_first_line_is_not_the_english_of_this_file(tmp_path):
    # a file's English is its ids start .. start + expected - 1: id 20 is the second file's first line
    first = _write(tmp_path / "a.txt", [f"line {i} here" for i in range(22)])  # 22 lines, 20 expected
    second = _write(tmp_path / "b.txt", [f"Zeile {i} dort" for i in range(20)])
    english = {i: f"English {i} there" for i in range(20, 40)}  # English for the second file only
    _, checks = _check_one([first, second], english, "eng_Latn", (20, 20))
    assert checks.results["alignment"].items == []
    assert checks.results["line_count"].items == [{"file": str(first), "found": 22, "expected": 20}]
    assert checks.first_alignment[2] == ("22 lines, expected 20; cannot locate the first misaligned line "
                                         "(no annotated English falls in this file)")


def test_the_script_a_file_looks_like_is_read_from_its_first_20_lines_joined_by_spaces(tmp_path):
    # the sample is the first 20 lines joined with a space: a 21st line, however long, has no say
    text_file = _write(tmp_path / "s.txt", ["Да"] * 20 + ["α" * 45])
    text, checks = _check_one([text_file], {}, "hin_Deva", (21,))
    assert checks.results["script_file"].items == [{"file": str(text_file), "share": 0.0, "dominant": "Cyrl"}]
    with pytest.raises(ScriptError) as err:
        raise_first_error(checks, text, "hin_Deva", {})
    assert "; the text looks like Cyrl; " in err.value.message


def test_the_length_model_of_the_checks_pairs_each_line_with_its_own_english_only(tmp_path):
    # max_shift=0: target line i against English line i, even where every line is as long as the next English
    rng = random.Random(5)
    english = {i: "w" * rng.randint(20, 200) for i in range(31)}
    target = _write(tmp_path / "t.txt", ["v" * len(english[i + 1]) for i in range(30)])
    english.pop(30)
    text, checks = _check_one([target], english, "eng_Latn", (30,))
    model = checks.length_model
    assert (model.shift, model.n_pairs) == (0, 30)
    assert model.center == pytest.approx(float(np.median([log_ratio(text.lines[i], english[i]) for i in range(30)])),
                                         abs=1e-12)
    assert model.scale > 0.5 and checks.results["length_outliers"].items == []


def test_a_length_outlier_s_z_is_in_units_of_the_model_s_scale_also_where_it_is_the_floor(tmp_path):
    # four pairs of equal length: the model's scale is its floor 1e-6, and the fifth pair's z is finite
    english = {i: "w" * (20 + i) for i in range(5)}
    target = _write(tmp_path / "u.txt", [english[i] for i in range(4)] + ["v" * 49])
    _, checks = _check_one([target], english, "eng_Latn", (5,))
    assert (checks.length_model.center, checks.length_model.scale) == (0.0, 1e-6)
    assert checks.results["length_outliers"].items == [{"index_id": 4, "z": round(math.log(50 / 25) / 1e-6, 2)}]


def test_a_pair_whose_z_equals_the_threshold_is_no_length_outlier(tmp_path):
    # flagged are the pairs with |z| > length_z: at exactly length_z a pair passes, just under it it is flagged
    rng = random.Random(5)
    english = {i: "w" * rng.randint(20, 200) for i in range(12)}
    target = _write(tmp_path / "t.txt", ["v" * max(1, round(len(english[i]) * rng.uniform(1.1, 1.5)))
                                         for i in range(12)])
    text, checks = _check_one([target], english, "eng_Latn", (12,))
    model = checks.length_model
    z = robust_z([log_ratio(text.lines[i], english[i]) for i in range(12)], center=model.center, scale=model.scale)
    top = int(np.argmax(np.abs(z)))
    for length_z, flagged in ((float(abs(z[top])), []), (float(np.nextafter(abs(z[top]), 0)), [top])):
        config = CheckConfig(expected_lines=(12,), length_z=length_z)
        checks = check_parallel(text, english, sorted(english), "eng_Latn", config)
        assert [item["index_id"] for item in checks.results["length_outliers"].items] == flagged
