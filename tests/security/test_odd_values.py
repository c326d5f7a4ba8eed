"""Odd values are refused with one line or counted, never lost silently and never a traceback (issue 26).

The ``loss_*`` folders of ``tests/data/hostile/`` run each finding through the CLI; these tests pin
the rule under each of them, one reader or check at a time: the lm-eval results reader of
``builder disparity`` (:mod:`builder.evaluation.disparity_io`), the NUL check of the one text decoder
(:func:`schemas.tables.decode_utf8`) and the per-field control-character rule
(:func:`schemas.tables.control_character`) with the annotation importer that applies it, the
chi-square of ``label_distribution`` on a degenerate table, and a topic baseline trained on one label.
"""
from __future__ import annotations

import copy
import json
import math
from pathlib import Path

import pandas as pd
import pytest

from builder.evaluation.disparity_io import lm_eval_records, read_records
from schemas.errors import AnnotationError, SchemaError, ToolkitError
from schemas.tables import (CONTROL_CHARACTER, ControlCharacterError, EncodingError, check_chars, control_character,
                            decode_utf8, parse_table)

DATA = Path(__file__).parents[1] / "data"
(RESULTS,) = (DATA / "export" / "lm-eval-output" / "dummy-a").glob("results_*.json")
BASE = json.loads(RESULTS.read_text(encoding="utf-8"))


def _results(tmp_path, change) -> Path:
    data = copy.deepcopy(BASE)
    change(data)
    path = tmp_path / "results_x.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _one_line(err: ToolkitError) -> str:
    text = str(err)
    assert "\n" not in text
    return text


# --- disparity: lm-eval results ---------------------------------------------------------------------------

@pytest.mark.parametrize("value, found", [
    ("0.2x", "text '0.2x'"), ("0.2", "text '0.2'"), ("N/A", "text 'N/A'"), (None, "null"),
    (True, "a boolean (true)"), (float("nan"), "the number nan"), (float("inf"), "the number inf"),
    (float("-inf"), "the number -inf"), ([0.2], "a list"), ({"value": 0.2}, "an object"),
])
def test_a_score_that_is_not_a_finite_number_names_the_file_and_key(tmp_path, value, found):
    path = _results(tmp_path, lambda d: d["results"]["sib_hau_Latn"].__setitem__("acc,none", value))
    with pytest.raises(SchemaError) as err:
        read_records(path)
    assert _one_line(err.value) == (f"{path}, results.sib_hau_Latn.acc,none: expected the score as a finite "
                                    f"number, found {found}")


def test_stderr_and_metadata_values_are_not_scores():
    # lm-eval writes "N/A" for a stderr it has none of; alias, name, sample_len are metadata
    data = copy.deepcopy(BASE)
    data["results"]["sib_hau_Latn"].update({"acc_stderr,none": "N/A", "alias": ["x"], "sample_len": "5"})
    records = lm_eval_records(data, RESULTS)
    assert len(records) == 8
    assert all(isinstance(r["score"], float) and math.isfinite(r["score"]) for r in records)


@pytest.mark.parametrize("change, where, message", [
    (lambda d: d.__setitem__("results", [["sib_eng_Latn", {"acc,none": 0.2}]]), "results",
     "expected an object (as lm-eval writes it), found a list"),
    (lambda d: d.__setitem__("results", "sib"), "results", "found text 'sib'"),
    (lambda d: d.__setitem__("results", 3), "results", "found the number 3"),
    (lambda d: d.pop("results"), "results", "found nothing (the key is missing)"),
    (lambda d: d.pop("configs"), "configs", "found nothing (the key is missing)"),
    (lambda d: d.__setitem__("configs", ["sib_eng_Latn"]), "configs", "found a list"),
    (lambda d: d["results"].__setitem__("sib_eng_Latn", [0.2]), "results.sib_eng_Latn",
     "expected an object of metrics, found a list"),
    (lambda d: d["results"].__setitem__("sib_eng_Latn", None), "results.sib_eng_Latn", "found null"),
    (lambda d: d["configs"].pop("sib_eng_Latn"), "results.sib_eng_Latn", "has no entry in configs"),
    (lambda d: d["configs"].__setitem__("sib_eng_Latn", "eng_Latn"), "configs.sib_eng_Latn",
     "expected an object, found text"),
    (lambda d: d["configs"]["sib_eng_Latn"].__setitem__("dataset_name", 5), "configs.sib_eng_Latn.dataset_name",
     "expected text or null, found the number 5"),
    (lambda d: d.__setitem__("group_subtasks", ["sib"]), "group_subtasks", "found a list"),
    (lambda d: d.__setitem__("group_subtasks", {"sib": 3}), "group_subtasks.sib",
     "expected a list of task names, found the number 3"),
    (lambda d: d.__setitem__("group_subtasks", {"sib": "sib_eng_Latn"}), "group_subtasks.sib",
     "expected a list of task names, found text"),
    (lambda d: d.__setitem__("group_subtasks", {"sib": [{"a": 1}]}), "group_subtasks.sib",
     "found an object in the list"),
    (lambda d: d.__setitem__("config", "hf"), "config", "found text 'hf'"),
    (lambda d: d["config"].__setitem__("model_args", ["pretrained=x"]), "config.model_args",
     "expected text (pretrained=...) or an object, found a list"),
    (lambda d: (d.__setitem__("config", {"model_args": {"pretrained": 7}})), "config.model_args",
     "expected the model's name as text, found the number 7"),
    (lambda d: (d.__setitem__("config", {}), d.pop("model_name")), "config", "cannot tell the model"),
])
def test_a_results_file_of_the_wrong_shape_is_one_line_naming_the_key(tmp_path, change, where, message):
    path = _results(tmp_path, change)
    with pytest.raises(SchemaError) as err:
        read_records(path)
    line = _one_line(err.value)
    assert line.startswith(f"{path}, {where}: "), line
    assert message in line


def test_a_records_file_is_not_taken_for_lm_eval(tmp_path):
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"records": [{"model": "m", "language": "en", "task": "t", "score": 1}]}))
    assert len(read_records(path).table) == 1
    path.write_text(json.dumps({"scores": []}))
    with pytest.raises(SchemaError, match=r"r.json: expected a JSON list of records .* found an object"):
        read_records(path)


@pytest.mark.parametrize("field", ["task", "dataset", "metric"])
def test_a_nested_name_in_a_records_file_is_refused_not_replaced(tmp_path, field):
    row = {"model": "m", "language": "en", "dataset": "d", "metric": "acc", "task": "t", "score": 1}
    row[field] = {"name": "x"}
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps(row) + "\n")
    with pytest.raises(SchemaError) as err:
        read_records(path)
    assert _one_line(err.value) == f"{path}, line 1, field {field}: expected a name or nothing, found an object"


def test_the_disparity_command_refuses_a_text_score_and_writes_nothing(tmp_path):
    from click.testing import CliRunner

    from builder.cli.main import cli

    path = _results(tmp_path, lambda d: d["results"]["sib_hau_Latn"].__setitem__("acc,none", "0.2x"))
    other = next((DATA / "export" / "lm-eval-output" / "dummy-b").glob("results_*.json"))
    res = CliRunner().invoke(cli, ["-q", "disparity", str(path), str(other), "--out", str(tmp_path / "d")])
    assert res.exit_code == 1 and res.stderr.count("\n") == 1, res.output
    assert "results.sib_hau_Latn.acc,none" in res.stderr and "Traceback" not in res.stderr
    assert not (tmp_path / "d").exists()


# --- NUL and control characters: the one decoder, the per-field rule --------------------------------------

def test_a_nul_in_any_text_file_is_refused_under_either_policy():
    for keep_bad in (False, True):
        with pytest.raises(ControlCharacterError) as err:
            decode_utf8(b"\xef\xbb\xbfa,b\n1,2\nx\x00y,3\n", "t.csv", keep_bad=keep_bad)
        assert str(err.value) == ("t.csv, line 3: a NUL character (0x00) at byte 12; a text file holds none "
                                  "(is it binary or corrupt?)")
        assert isinstance(err.value, EncodingError) and isinstance(err.value, SchemaError)
        assert err.value.reason == CONTROL_CHARACTER and err.value.exit_code == 1


def test_a_nul_in_another_codec_is_named_by_character():
    with pytest.raises(ControlCharacterError, match=r"t.txt, line 2: a NUL character \(0x00\) at character 3"):
        decode_utf8("a\nb\x00\n".encode("utf-16"), "t.txt", encoding="utf-16")


def test_other_control_characters_pass_the_decoder_for_the_field_to_judge():
    assert decode_utf8(b"a\tb\x1b[0m\r\n", "t.txt") == "a\tb\x1b[0m\r\n"


@pytest.mark.parametrize("value", ["ann\x00", "a\x01", "tab\there", "new\nline", "cr\r", "\x7fdel", "c1\x85",
                                   "\x1b[2J"])
def test_a_name_holds_no_control_character(value):
    assert control_character(value) is not None
    with pytest.raises(ControlCharacterError, match=r"a.csv, line 2, field annotator: an annotator name allows no "
                                                    r"control character, found a control character \(U\+"):
        check_chars(value, "an annotator name", file="a.csv", record="line 2", field="annotator")


def test_text_allows_tab_and_newline_only():
    assert control_character("two\tcells\nand a line", text=True) is None
    assert control_character("caf\u00e9 \u2028 \x85 \x7f", text=True) is None  # no C0: not refused as text
    for bad in ("a\x00b", "a\rb", "a\x0bb", "\x1b[31m"):
        assert control_character(bad, text=True) is not None
    assert check_chars("ok\ttext", "a text", text=True) == "ok\ttext"


# --- annotation import -------------------------------------------------------------------------------------

def _ann(tmp_path, name: str, data: bytes | str, **kw):
    from annotation.importer import read_annotations

    path = tmp_path / name
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return read_annotations(path, **kw)


LONG = (DATA / "annotation" / "sib_small_long.csv").read_text(encoding="utf-8")
WIDE = (DATA / "annotation" / "sib_small_wide.tsv").read_text(encoding="utf-8")
JSONL = (DATA / "annotation" / "sib_small_long.jsonl").read_text(encoding="utf-8")


def test_the_samples_have_four_annotators(tmp_path):
    assert _ann(tmp_path, "a.csv", LONG).annotators == ("ann1", "ann2", "ann3", "ann4")
    assert _ann(tmp_path, "a.tsv", WIDE).annotators == ("ann1", "ann2", "ann3", "ann4")


@pytest.mark.parametrize("on_error", ["raise", "skip"])
def test_a_nul_byte_in_an_annotator_name_is_no_fifth_annotator(tmp_path, on_error):
    lines = LONG.splitlines()
    lines[2] = lines[2].replace("ann2", "ann\x002", 1)
    with pytest.raises(ControlCharacterError, match=r"a.csv, line 3: a NUL character"):
        _ann(tmp_path, "a.csv", "\n".join(lines), on_error=on_error)
    with pytest.raises(ControlCharacterError, match=r"a.tsv, line 1: a NUL character"):
        _ann(tmp_path, "a.tsv", WIDE.replace("\tann3\t", "\tann\x003\t", 1), on_error=on_error)


@pytest.mark.parametrize("field, value, what", [
    ("annotator", "ann\x1b[2J2", "the annotator name"), ("annotator", "ann\u00012", "the annotator name"),
    ("label", "sports\x07", "the label"), ("label", "sports\t", None), ("text", "a\x1bb", "the text"),
    ("item_id", "611\x1b", "the item id"),
])
def test_a_control_character_from_a_json_escape_is_refused_or_counted(tmp_path, field, value, what):
    lines = JSONL.splitlines()
    row = json.loads(lines[2])
    row[field] = value
    lines[2] = json.dumps(row)
    text = "\n".join(lines) + "\n"
    if what is None:  # a tab at the end of a label is stripped, as every label is
        assert _ann(tmp_path, "a.jsonl", text).annotators == ("ann1", "ann2", "ann3", "ann4")
        return
    with pytest.raises(AnnotationError) as err:
        _ann(tmp_path, "a.jsonl", text)
    line = _one_line(err.value)
    assert line.startswith(f"{tmp_path / 'a.jsonl'}, line 3") and f"{what} allows no control character" in line
    if field == "item_id":
        assert "(item" not in line  # the id itself is not repeated
    ann = _ann(tmp_path, "a.jsonl", text, on_error="skip")
    assert ann.skipped == {CONTROL_CHARACTER: 1}
    assert len(ann.annotators) == 4 and not any(control_character(a) for a in ann.annotators)
    assert ann.skipped_ids[CONTROL_CHARACTER] == (["line 3"] if field == "item_id" else [row["item_id"]])


@pytest.mark.parametrize("on_error", ["raise", "skip"])
def test_a_json_nul_escape_is_a_nul(tmp_path, on_error):
    lines = JSONL.splitlines()
    row = json.loads(lines[2])
    row["annotator"] = "ann\x002"
    lines[2] = json.dumps(row)
    assert "\\u0000" in lines[2]
    with pytest.raises(ControlCharacterError, match=r"a.jsonl, line 3: a NUL character \(the JSON escape \\u0000\)"):
        _ann(tmp_path, "a.jsonl", "\n".join(lines) + "\n", on_error=on_error)


@pytest.mark.parametrize("text, bad", [
    (r'{"a": "x\u0000"}', True), (r'{"a": "x\\u0000"}', False), (r'{"a": "x\\\u0000"}', True),
    (r'{"a": "\\\\u0000"}', False), ('{"a": "x"}\n{"b": "\\u0000y"}', True),
])
def test_only_an_escape_that_is_one_is_refused(text, bad):
    if not bad:
        assert json.loads(decode_utf8(text.encode(), "a.jsonl"))["a"].endswith("u0000")
        return
    with pytest.raises(ControlCharacterError, match=r"a.jsonl, line \d: a NUL character \(the JSON escape"):
        decode_utf8(text.encode(), "a.jsonl")
    assert decode_utf8(text.encode(), "a.csv") == text  # not JSON: the six characters are text


def test_a_nul_escape_in_jsonl_translations_is_not_written_into_the_variant(tmp_path):
    import csv

    from click.testing import CliRunner

    from builder.cli.main import cli

    with open(DATA / "variants" / "mc" / "fra_Latn.tsv", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))
    rows[1]["passage"] = "Tom\x00 a un chat."
    path = tmp_path / "fra_Latn.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    res = CliRunner().invoke(cli, ["-q", "extend", "--source", str(DATA / "variants" / "mc" / "source"),
                                   "--translations", str(path), "--variant", "fra_Latn", "--out", str(tmp_path / "o")])
    assert res.exit_code == 1, res.output
    assert res.stderr.startswith(f"error: {path}, line 2: a NUL character (the JSON escape \\u0000)")
    assert not (tmp_path / "o").exists()


def test_text_with_tabs_and_newlines_is_kept(tmp_path):
    lines = JSONL.splitlines()
    row = json.loads(lines[0])
    row["text"] = "first\tcell\nsecond line"
    lines[0] = json.dumps(row)
    for n in range(1, 4):  # the item's other ratings carry the same text
        other = json.loads(lines[n])
        if other["item_id"] == row["item_id"]:
            other["text"] = row["text"]
            lines[n] = json.dumps(other)
    ann = _ann(tmp_path, "a.jsonl", "\n".join(lines) + "\n")
    assert ann.texts[row["item_id"]] == "first\tcell\nsecond line"


def test_a_wide_annotator_key_with_a_control_character_is_an_error_under_either_policy(tmp_path):
    lines = WIDE.splitlines()
    header = lines[0].split("\t")
    rows = [dict(zip(header, line.split("\t"))) for line in lines[1:]]
    rows[1]["ann\x1b5"] = "sports"
    text = "".join(json.dumps(r) + "\n" for r in rows)
    for on_error in ("raise", "skip"):
        with pytest.raises(AnnotationError, match=r"a.jsonl, line 2: an annotator column name allows no control "
                                                  r"character, found a control character \(U\+001B\)"):
            _ann(tmp_path, "a.jsonl", text, format="wide", on_error=on_error)


def test_a_label_file_with_a_control_character_is_refused(tmp_path):
    from annotation.importer import read_labels

    path = tmp_path / "labels.txt"
    path.write_text("sports\ntra\x1bvel\n", encoding="utf-8")
    with pytest.raises(AnnotationError, match=r"labels.txt, line 2: a label allows no control character"):
        read_labels(path)


def test_parse_table_keeps_quoted_newlines_for_the_field_to_judge():
    t = parse_table('a,b\n1,"x\ny"\n', "t.csv", delimiter=",")
    assert t.rows[0].fields == ["1", "x\ny"] and control_character("x\ny", text=True) is None


# --- qc: label_distribution on a degenerate table ----------------------------------------------------------

def _topic(tables):
    from qc.result import VariantData

    return VariantData("hin_Deva", "topic", {s: pd.DataFrame({"category": c}, dtype=object) for s, c in tables.items()})


def test_a_split_with_no_rows_gives_no_chi_square_and_says_why():
    from qc import label_distribution

    (r,) = label_distribution.run(_topic({"train": ["a", "b", "b"], "test": []}), {"min_count": 0})
    assert r.passed and not r.skipped and r.statistic is None and r.p_value is None
    assert r.extra["chi2_skipped"] == "split 'test' has no rows"
    assert r.detail.endswith("; chi-square not computed: split 'test' has no rows")
    (r,) = label_distribution.run(_topic({"train": ["a", "b", "b"], "test": []}), {"min_count": 1})
    assert not r.passed and r.reason == "label_too_rare" and r.statistic is None


@pytest.mark.parametrize("tables, why", [
    ({"train": ["a", "b"]}, "one split only"),
    ({"train": ["a", "a"], "test": ["a"]}, "one label only"),
    ({"train": [], "dev": [], "test": []}, None),  # no rows at all: the check is skipped
])
def test_every_degenerate_table_has_a_reason(tables, why):
    from qc import label_distribution

    (r,) = label_distribution.run(_topic(tables), {"min_count": 0})
    if why is None:
        assert r.skipped and r.detail == "no rows"
    else:
        assert r.statistic is None and r.extra["chi2_skipped"] == why


def test_chi2_undefined_names_a_label_in_no_split():
    from qc.label_distribution import chi2_undefined

    counts = pd.DataFrame({"test": [1, 0], "train": [2, 0]}, index=["a", "z"])
    assert chi2_undefined(counts) == "label 'z' is in no split"


# --- topic baselines on one training label -----------------------------------------------------------------

@pytest.mark.parametrize("name", ["mlp", "char_tfidf", "char_linear"])
def test_a_baseline_that_learns_refuses_a_train_split_of_one_label(name):
    from builder.evaluation.topic_baselines import fit_predict

    with pytest.raises(SchemaError) as err:
        fit_predict(name, ["a goal", "the match"], ["sports", "sports"], ["x"], ["travel"], ["team"],
                    mlp_max_iter=5, where="variant eng_Latn, split train")
    assert _one_line(err.value) == (f"variant eng_Latn, split train: baseline {name!r} needs at least 2 labels "
                                    f"in the train split to learn from, found 1 ('sports' in all 2 rows)")


def test_majority_on_one_label_is_that_label():
    from builder.evaluation.topic_baselines import fit_predict

    preds, params = fit_predict("majority", ["a", "b"], ["sports", "sports"], [], [], ["c"])
    assert preds.tolist() == ["sports"] and params == {"label": "sports"}


# --- corpus readers: a NUL where the bad-bytes corpus has its bad byte -------------------------------------

def _reader_cases():
    import sys

    sys.path.insert(0, str(Path(__file__).parents[1] / "readers"))
    from test_readers_bad_bytes import INVALID_UTF8

    return INVALID_UTF8


@pytest.mark.parametrize("case", sorted(_reader_cases()))
def test_every_corpus_reader_refuses_or_counts_a_nul(tmp_path, case):
    import shutil

    from builder.readers import READERS, BadRecord

    name, root, splits, options, bad_file, record, line, _ = _reader_cases()[case]
    shutil.copytree(DATA / "bad" / case, tmp_path / case)
    path = tmp_path / case / root / bad_file
    path.write_bytes(path.read_bytes().replace(b"\xe9", b"\x00").replace(b"\xff", b"\x00"))
    reason = "malformed_xml" if name == "mcscript" else CONTROL_CHARACTER  # expat refuses it itself
    with pytest.raises(ToolkitError) as err:
        list(READERS[name](tmp_path / case / root, splits, **options))
    assert _one_line(err.value).startswith(f"{path}, {line}: ") and f"[{reason}]" in str(err.value)
    try:
        recs = list(READERS[name](tmp_path / case / root, splits, on_error="skip", **options))
    except ToolkitError as skip_err:  # a file read line by line is refused whole: the NUL is no line's
        assert isinstance(skip_err, ControlCharacterError) and f"{path}, {line}: " in str(skip_err)
    else:  # a file that is one record is that record, counted
        assert [(r.record, r.reason) for r in recs if isinstance(r, BadRecord)] == [(record, reason)]
        assert not any("\x00" in (r.passage + r.question) for r in recs if not isinstance(r, BadRecord))


# --- parallel text (builder extend --parallel) -------------------------------------------------------------

@pytest.mark.parametrize("line, found", [("a\x1b[2Jb", "U+001B"), ("lone\rcr", "U+000D"), ("bell\x07", "U+0007")])
def test_a_parallel_sentence_holds_no_control_character_but_tab(tmp_path, line, found):
    from builder.variants.parallel import read_parallel

    path = tmp_path / "x.dev"
    path.write_bytes(f"one\ntwo\t(tab is text)\n{line}\n".encode("utf-8"))
    with pytest.raises(ControlCharacterError) as err:
        read_parallel([path])
    assert _one_line(err.value).startswith(f"{path}, line 3: a sentence allows no control character but tab and "
                                           f"newline, found a control character ({found})")
    path.write_bytes(b"one\r\ntwo\t(tab is text)\r\n")  # CRLF line ends are no lone CR
    assert read_parallel([path]).lines == ("one", "two\t(tab is text)")


@pytest.mark.parametrize("field", ["model", "language", "task"])
def test_a_disparity_name_holds_no_control_character(tmp_path, field):
    row = {"model": "m", "language": "en", "task": "t", "score": 1}
    row[field] = "x\x1b[2Jy"
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps(row) + "\n")
    with pytest.raises(SchemaError) as err:
        read_records(path)
    assert _one_line(err.value) == (f"{path}, line 1, field {field}: a name allows no control character, found a "
                                    f"control character (U+001B) at character 2")


def test_an_lm_eval_model_name_with_a_control_character_is_refused(tmp_path):
    path = _results(tmp_path, lambda d: d["config"].__setitem__("model_args", "pretrained=evil\x1b[2J"))
    with pytest.raises(SchemaError, match=r"results_x.json, results.afrobench_sib_prompt_1_eng_Latn.acc,none, field "
                                          r"model: a name allows no control character"):
        read_records(path)


# -- a final newline is part of the value: "$" in a pattern also matches before it ----------------------------

def test_a_variant_code_with_a_final_newline_is_no_variant_code():
    from schemas.codes import flores200_codes, is_known_language, is_variant_code

    codes = flores200_codes()
    assert all(is_variant_code(c) for c in codes)
    assert not any(is_variant_code(c + "\n") for c in codes)  # a folder may be named "hin_Deva\n"
    assert not is_known_language("qaa\n") and is_known_language("qaa")


def test_an_output_split_or_hub_repo_with_a_final_newline_is_refused():
    from builder.export.hub import check_hub_repo
    from builder.recipe import recipe_from_dict
    from schemas.errors import RecipeError, UsageError

    with pytest.raises(UsageError, match=r"expected a Hub dataset id ORG/NAME, found 'org/name\\n'"):
        check_hub_repo("org/name\n")
    assert check_hub_repo("org/name") == "org/name"
    recipe = {"name": "x", "language": "eng_Latn", "seed": 0,
              "sources": [{"name": "SciQ", "reader": "sciq", "path": str(DATA / "sources" / "sciq"),
                           "splits": {"train": "train\n"}, "filters": ["fill_in_blank"]}]}
    with pytest.raises(RecipeError, match=r"expected an output split name such as 'train' or 'dev', found 'train\\n'"):
        recipe_from_dict(recipe)
