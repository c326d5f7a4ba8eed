"""The multiple-choice projection (``builder extend --translations``), called in this process.

Each check of :func:`builder.variants.project_mc.project_mc` is driven to its finding on a small
generated source (two splits, ids that repeat across passages), and every field of what it writes is
compared with what it should be: the mutation run of issue 27 found most of the module untested, the
three CLI tests in ``test_variants_project.py`` exercising one happy path and one missing item.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from builder.variants.checks import CheckConfig
from builder.variants.project_mc import project_mc, read_translations
from schemas.errors import AlignmentError, SchemaError, ScriptError
from schemas.io import write_jsonl_atomic
from schemas.records import MC_COLUMNS
from schemas.variant import VariantInfo

COLOURS = ("red", "blue", "green", "black", "white", "grey", "brown", "pink", "gold", "teal", "navy", "plum")
#: passage id -> its English text; the question ids repeat across passages only where ``repeat`` asks
PASSAGES = {"p1": "Anna paints the old barn every spring with her brother.",
            "p2": "The ferry crosses the wide river twice before each noon.",
            "p3": "A small library opens its doors to readers at dawn.",
            "p4": "The bakers sell warm bread to the village every morning."}
LAYOUT = {"train": [("p1", "q1"), ("p1", "q2"), ("p2", "q3"), ("p2", "q4"), ("p3", "q5"), ("p3", "q6"),
                    ("p3", "q7"), ("p4", "q8")],
          "dev": [("p4", "q9"), ("p4", "q10"), ("p1", "q11"), ("p2", "q12")]}
TRANSLATED_COLUMNS = ("passage", "question", "answer1", "answer2", "answer3", "answer4")


def _english(split: str, pid: str, qid: str, n: int) -> dict:
    answers = [f"the {COLOURS[(n + k) % len(COLOURS)]} one" for k in range(4)]
    num = n % 4 + 1
    return {"answer1": answers[0], "answer2": answers[1], "answer3": answers[2], "answer4": answers[3],
            "correct_answer": answers[num - 1], "correct_answer_num": num, "dataset": "toy",
            "language": "eng_Latn", "license": "CC-BY-SA-4.0", "passage": PASSAGES[pid], "passage_id": pid,
            "provenance": {"corpus": "toy", "file": "toy.txt", "record": f"#{qid}"},
            "question": f"Which colour did item {qid} pick?", "question_id": qid, "split": split}


def _french(row: dict) -> dict:
    """A stand-in translation: each word reversed (so a test can tell it from the source), the question a few
    letters longer by its id, so that the length ratios vary as real ones do (equal ratios have a zero spread,
    which makes any other ratio an outlier)."""
    flip = lambda text: " ".join(word[::-1] for word in text.split())  # noqa: E731
    out = {"passage_id": row["passage_id"], "question_id": row["question_id"],
           **{c: flip(row[c]) for c in TRANSLATED_COLUMNS}}
    out["question"] += " " + "la" * (int(row["question_id"][1:]) % 4)
    return out


@pytest.fixture
def source(tmp_path) -> Path:
    folder = tmp_path / "source"
    folder.mkdir()
    n = 0
    for split, items in LAYOUT.items():
        rows = []
        for pid, qid in items:
            rows.append(_english(split, pid, qid, n))
            n += 1
        write_jsonl_atomic(folder / f"{split}.jsonl", rows)
    return folder


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _source_rows(source: Path) -> dict[str, list[dict]]:
    return {split: _jsonl(source / f"{split}.jsonl") for split in LAYOUT}


def _all_french(source: Path) -> list[dict]:
    """The stand-in translation of every source item, in the source's order."""
    return [_french(r) for split in _source_rows(source).values() for r in split]


def _train_only(tmp_path: Path, rows: list[dict]) -> Path:
    """A source folder of one split, ``train``, holding ``rows``."""
    folder = tmp_path / "source"
    folder.mkdir()
    write_jsonl_atomic(folder / "train.jsonl", rows)
    return folder


def _translations(source: Path, path: Path, rows: list[dict] | None = None, *, passage_ids: bool = False) -> Path:
    """Write the translation of every source item (or ``rows``) as TSV or JSONL, by ``path``'s suffix."""
    if rows is None:
        rows = _all_french(source)
    columns = ("passage_id", "question_id", *TRANSLATED_COLUMNS) if passage_ids else ("question_id", *TRANSLATED_COLUMNS)
    if path.suffix == ".jsonl":
        write_jsonl_atomic(path, ({c: r[c] for c in columns} for r in rows))
    else:
        lines = ["\t".join(columns)] + ["\t".join(str(r[c]) for c in columns) for r in rows]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _written(out: Path, variant: str = "fra_Latn") -> dict[str, list[dict]]:
    return {split: _jsonl(out / variant / f"{split}.jsonl") for split in LAYOUT}


#: a question and options mostly in Cyrillic, the passage left Latin: a line mostly in another script
CYRILLIC = {"question": "Какой цвет выбрал этот пункт", **{f"answer{k}": f"цвет номер {'раз' * k}" for k in range(1, 5)}}
LENIENT = CheckConfig(max_odd_share=1.0)  # a line-level finding stays a warning however few the items


# --- what a clean projection writes ---------------------------------------------------------------------------------


@pytest.mark.parametrize("suffix", [".tsv", ".jsonl"])
def test_every_field_of_every_item_is_the_source_s_or_its_translation(source, tmp_path, suffix):
    trans = _translations(source, tmp_path / f"fra{suffix}")
    result = project_mc(source, trans, "fra_Latn", tmp_path / "out")
    written = _written(tmp_path / "out")
    line = 1 if suffix == ".jsonl" else 2  # each item's line in the translation file: a TSV's header is line 1
    for split, rows in _source_rows(source).items():
        assert len(written[split]) == len(rows)
        for src, out in zip(rows, written[split]):  # the source's order, split by split
            assert set(out) == set(MC_COLUMNS)
            fr = _french(src)
            expected = {c: src.get(c) for c in MC_COLUMNS}
            expected.update({c: fr[c] for c in TRANSLATED_COLUMNS})
            expected.update(correct_answer=fr[f"answer{src['correct_answer_num']}"],
                            correct_answer_num=src["correct_answer_num"], language="fra_Latn",
                            license="CC-BY-SA-4.0",
                            provenance={"corpus": "translation", "file": trans.name, "record": f"line {line}"})
            assert out == expected
            line += 1
    assert result.rows == {"train": 8, "dev": 4}
    assert result.out_dir == tmp_path / "out" / "fra_Latn"


def test_variant_json_records_the_translation_file_its_rows_and_every_check(source, tmp_path):
    trans = _translations(source, tmp_path / "fra.tsv")
    project_mc(source, trans, "fra_Latn", tmp_path / "out")
    raw = json.loads((tmp_path / "out" / "fra_Latn" / "variant.json").read_text(encoding="utf-8"))
    assert raw["variant"] == "fra_Latn" and raw["kind"] == "mc" and raw["method"] == "projection"
    assert raw["translations"]["sha256"] == hashlib.sha256(trans.read_bytes()).hexdigest()
    assert raw["translations"]["rows"] == 12 and raw["translations"]["path"].endswith("fra.tsv")
    assert raw["rows"] == {"train": 8, "dev": 4}
    assert raw["license"] == "CC-BY-SA-4.0"
    assert sorted(raw["checks"]) == sorted(["ids_out_of_range", "missing_ids", "empty_fields", "script_file", "script_lines",
                                   "length_outliers", "duplicates", "duplicate_options", "inconsistent_passages"])
    assert {name: check["count"] for name, check in raw["checks"].items()} == dict.fromkeys(raw["checks"], 0)
    assert raw["config"] == CheckConfig().to_dict()


def test_the_key_comes_from_the_source_whatever_the_translation_puts_first(source, tmp_path):
    rows = _all_french(source)
    for row in rows:  # a translator who moved the right answer to answer1 moves nothing
        row["answer1"], row["answer2"] = row["answer2"], row["answer1"]
    project_mc(source, _translations(source, tmp_path / "fra.tsv", rows), "fra_Latn", tmp_path / "out")
    by_id = {r["question_id"]: r for r in rows}
    for split, items in _written(tmp_path / "out").items():
        for item, src in zip(items, _source_rows(source)[split]):
            num = src["correct_answer_num"]
            assert item["correct_answer_num"] == num
            assert item["correct_answer"] == by_id[item["question_id"]][f"answer{num}"]


def test_the_first_translation_of_an_id_is_the_one_used(source, tmp_path):
    rows = _all_french(source)
    again = dict(rows[0], question="a later retranslation of the first question")
    project_mc(source, _translations(source, tmp_path / "fra.tsv", [*rows, again]), "fra_Latn", tmp_path / "out",
               config=LENIENT)
    first = _written(tmp_path / "out")["train"][0]
    assert first["question"] == rows[0]["question"]
    assert first["provenance"]["record"] == "line 2"


def test_ids_that_repeat_across_passages_are_told_apart_by_passage_id(tmp_path):
    rows = [_english("train", pid, qid, n) for n, (pid, qid) in enumerate((("p1", "q1"), ("p2", "q1"), ("p3", "q1"),
                                                                        ("p3", "q2")))]
    folder = _train_only(tmp_path, rows)
    trans = [_french(r) for r in rows]
    trans[1]["question"] = "the question of p2, told apart"
    path = _translations(folder, tmp_path / "fra.tsv", list(reversed(trans)), passage_ids=True)
    project_mc(folder, path, "fra_Latn", tmp_path / "out", config=LENIENT)
    out = _jsonl(tmp_path / "out" / "fra_Latn" / "train.jsonl")
    assert [(r["passage_id"], r["question"]) for r in out] == [(t["passage_id"], t["question"]) for t in trans]
    assert [r["provenance"]["record"] for r in out] == ["line 5", "line 4", "line 3", "line 2"]


# --- the checks that stop the projection ----------------------------------------------------------------------------


def _refused(source, rows, tmp_path, exc, message, config=None):
    path = _translations(source, tmp_path / "fra.tsv", rows)
    with pytest.raises(exc) as err:
        project_mc(source, path, "fra_Latn", tmp_path / "out", config=config)
    assert str(err.value) == f"{path}: {message}"
    assert not (tmp_path / "out" / "fra_Latn").exists()  # nothing half-written


def test_an_id_not_in_the_source_stops_it_before_a_missing_one(source, tmp_path):
    rows = _all_french(source)
    rows[3]["question_id"] = "q99"
    rows[5]["question_id"] = "q98"
    _refused(source, rows, tmp_path, AlignmentError, "2 × item id not in the source; first: q98")


def test_a_source_item_without_translation_is_named(source, tmp_path):
    rows = _all_french(source)
    _refused(source, rows[:4] + rows[5:], tmp_path, AlignmentError,
             "1 × source item has no translation; first: q5")


def test_an_empty_translated_field_is_named_with_its_line(source, tmp_path):
    rows = _all_french(source)
    rows[2]["answer3"] = "   "
    rows[6]["passage"] = ""
    _refused(source, rows, tmp_path, SchemaError, "2 × empty translated field; first: line 4: answer3")


def test_a_file_in_another_script_stops_it_with_the_share(source, tmp_path):
    rows = [{**r, **{c: "Привет мир" for c in TRANSLATED_COLUMNS}}
            for r in (_french(s) for split in _source_rows(source).values() for s in split)]
    for k, row in enumerate(rows):
        row["answer1"] = f"вариант {k}"  # the options must differ, or duplicate_options would speak first
        row["question"] = f"вопрос {k}"
    _refused(source, rows, tmp_path, ScriptError,
             "only 0.0% of the letters are in script Latn declared by fra_Latn (expected at least 80%)")


def test_an_empty_field_at_warning_severity_is_reported_and_written_as_it_is(source, tmp_path):
    rows = _all_french(source)
    rows[0]["answer2"] = ""
    config = CheckConfig(severity={**CheckConfig().severity, "empty_fields": "warning"})
    result = project_mc(source, _translations(source, tmp_path / "fra.tsv", rows), "fra_Latn", tmp_path / "out",
                        config=config)
    assert result.checks.counts()["empty_fields"] == 1
    assert result.checks.results["empty_fields"].items == ["line 2: answer2"]
    assert _written(tmp_path / "out")["train"][0]["answer2"] == ""


# --- the checks that warn, and the escalation of the line-level ones ------------------------------------------------


def _warned(source, rows, tmp_path, config=LENIENT):
    result = project_mc(source, _translations(source, tmp_path / "fra.tsv", rows), "fra_Latn", tmp_path / "out",
                        config=config)
    return {name: res.items for name, res in result.checks.results.items() if res.count}


def test_two_different_questions_translated_alike_are_a_duplicate_pair(source, tmp_path):
    rows = _all_french(source)
    rows[6]["question"] = rows[1]["question"] + "  "
    assert _warned(source, rows, tmp_path) == {"duplicates": [["q2", "q7"]]}


def test_the_same_english_question_translated_alike_is_no_duplicate(tmp_path):
    rows = [_english("train", pid, qid, n) for n, (pid, qid) in enumerate((("p1", "q1"), ("p2", "q2"), ("p3", "q3")))]
    for row in rows:
        row["question"] = "What is it about?"
    folder = _train_only(tmp_path, rows)
    result = project_mc(folder, _translations(folder, tmp_path / "fra.tsv", [_french(r) for r in rows]), "fra_Latn",
                        tmp_path / "out", config=LENIENT)
    assert result.checks.counts()["duplicates"] == 0


def test_options_translated_alike_and_a_passage_translated_two_ways_are_reported(source, tmp_path):
    rows = _all_french(source)
    rows[3]["answer4"] = rows[3]["answer2"] + " "
    rows[5]["passage"] = rows[5]["passage"].upper()  # the same length: no length outlier
    assert _warned(source, rows, tmp_path) == {"duplicate_options": ["q4"], "inconsistent_passages": ["p3"]}


def test_a_line_mostly_in_another_script_is_reported_by_its_line(source, tmp_path):
    rows = _all_french(source)
    rows[4] = {**rows[4], **CYRILLIC}  # the passage stays Latin: the letters are mostly Cyrillic
    assert _warned(source, rows, tmp_path) == {"script_lines": [6]}


def test_a_translation_far_longer_than_its_source_is_a_length_outlier(source, tmp_path):
    rows = _all_french(source)
    rows[9]["passage"] = " ".join([rows[9]["passage"]] * 12)
    found = _warned(source, rows, tmp_path)
    assert list(found) == ["length_outliers", "inconsistent_passages"]
    assert [item["id"] for item in found["length_outliers"]] == ["q10"]
    assert found["length_outliers"][0]["z"] > 3.5
    assert found["inconsistent_passages"] == ["p4"]


def test_one_odd_line_in_twelve_is_over_the_odd_share_and_stops_it(source, tmp_path):
    rows = _all_french(source)
    rows[6]["question"] = rows[1]["question"]
    _refused(source, rows, tmp_path, SchemaError, "1 × duplicates flagged; first: ['q2', 'q7']")


def test_with_fewer_than_three_items_no_length_is_an_outlier(tmp_path):
    rows = [_english("train", pid, qid, n) for n, (pid, qid) in enumerate((("p1", "q1"), ("p2", "q2")))]
    folder = _train_only(tmp_path, rows)
    trans = [_french(r) for r in rows]
    trans[0]["passage"] = " ".join([trans[0]["passage"]] * 30)
    result = project_mc(folder, _translations(folder, tmp_path / "fra.tsv", trans), "fra_Latn", tmp_path / "out")
    assert result.checks.counts()["length_outliers"] == 0


# --- licenses -------------------------------------------------------------------------------------------------------


def test_one_own_license_of_every_item_is_the_variant_s_license(source, tmp_path):
    for split in LAYOUT:
        path = source / f"{split}.jsonl"
        rows = [dict(r, license="CC-BY-4.0") for r in _jsonl(path)]
        write_jsonl_atomic(path, rows)
    project_mc(source, _translations(source, tmp_path / "fra.tsv"), "fra_Latn", tmp_path / "out")
    info = VariantInfo.read(tmp_path / "out" / "fra_Latn")
    assert info.license == "CC-BY-4.0"
    assert info.license_from == "the source items' own licenses (CC-BY-4.0)"
    assert {r["license"] for rows in _written(tmp_path / "out").values() for r in rows} == {"CC-BY-4.0"}


def test_an_item_with_a_blank_license_takes_the_variant_s(source, tmp_path):
    path = source / "train.jsonl"
    rows = _jsonl(path)
    rows[0]["license"] = " "
    write_jsonl_atomic(path, rows)
    project_mc(source, _translations(source, tmp_path / "fra.tsv"), "fra_Latn", tmp_path / "out")
    assert _written(tmp_path / "out")["train"][0]["license"] == "CC-BY-SA-4.0"
    assert VariantInfo.read(tmp_path / "out" / "fra_Latn").license == "CC-BY-SA-4.0"


# --- what is refused before anything is checked ---------------------------------------------------------------------


def test_a_malformed_json_line_is_named(tmp_path):
    path = tmp_path / "fra.jsonl"
    path.write_text('{"question_id": "q1"}\n\n{"question_id": \n', encoding="utf-8")
    with pytest.raises(SchemaError) as err:
        read_translations(path)
    assert str(err.value).startswith(f"{path}, line 3: malformed JSON: ")


def test_a_missing_column_is_named_with_its_line(tmp_path):
    path = tmp_path / "fra.tsv"
    path.write_text("question_id\tpassage\tquestion\tanswer1\tanswer2\n" "q1\ta\tb\tc\td\n", encoding="utf-8")
    with pytest.raises(SchemaError) as err:
        read_translations(path)
    assert str(err.value) == (f"{path}, line 2: missing column(s) answer3, answer4; expected question_id, passage, "
                              "question, answer1-answer4")


def _one_row(tmp_path, column: str, value: str) -> Path:
    """A one-line JSONL translation whose ``column`` holds ``value``."""
    row = {"question_id": "q1", **{c: "texte" for c in TRANSLATED_COLUMNS}}
    row[column] = value
    path = tmp_path / "fra.jsonl"
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("column", ["question_id", *TRANSLATED_COLUMNS])
def test_an_escape_sequence_in_any_column_is_refused_naming_it(tmp_path, column):
    path = _one_row(tmp_path, column, "te\x1b[31mxte")
    with pytest.raises(SchemaError) as err:
        read_translations(path)
    assert f"{path}, line 1" in str(err.value) and column in str(err.value)


def test_read_translations_gives_each_row_with_its_line(tmp_path, source):
    path = _translations(source, tmp_path / "fra.tsv")
    rows = read_translations(path)
    assert [n for n, _ in rows] == list(range(2, 14))
    assert rows[0][1]["question_id"] == "q1" and rows[0][1]["answer4"] == _french(_source_rows(source)["train"][0])["answer4"]


def test_a_topic_source_is_refused(tmp_path, data_dir):
    source = data_dir / "sib200" / "eng"
    with pytest.raises(SchemaError) as err:
        project_mc(source, tmp_path / "none.tsv", "fra_Latn", tmp_path / "out")
    assert str(err.value) == f"{source}: expected multiple-choice items (question, answer1-4, correct_answer_num)"


def test_of_several_variants_english_is_the_one_projected(tmp_path, source):
    both = tmp_path / "both"
    both.mkdir()
    for code in ("deu_Latn", "eng_Latn"):  # German first: the fallback to the first variant would take it
        folder = both / code
        folder.mkdir()
        for split in LAYOUT:
            rows = _source_rows(source)[split]
            if code == "deu_Latn":
                rows = [dict(r, language=code, correct_answer_num=1, correct_answer=r["answer1"]) for r in rows]
            write_jsonl_atomic(folder / f"{split}.jsonl", rows)
    project_mc(both, _translations(source, tmp_path / "fra.tsv"), "fra_Latn", tmp_path / "out")
    nums = [r["correct_answer_num"] for rows in _written(tmp_path / "out").values() for r in rows]
    assert nums == [r["correct_answer_num"] for rows in _source_rows(source).values() for r in rows]
    assert set(nums) != {1}


def test_a_source_of_several_variants_without_english_is_refused(tmp_path, source):
    both = tmp_path / "both"
    both.mkdir()
    for code in ("deu_Latn", "spa_Latn"):
        folder = both / code
        folder.mkdir()
        for split in LAYOUT:
            rows = [dict(r, language=code) for r in _source_rows(source)[split]]
            write_jsonl_atomic(folder / f"{split}.jsonl", rows)
    with pytest.raises(SchemaError) as err:
        project_mc(both, _translations(source, tmp_path / "fra.tsv"), "fra_Latn", tmp_path / "out")
    assert str(err.value) == f"{both}: several variants and no eng_Latn to project from: deu_Latn, spa_Latn"


def test_one_line_in_another_script_or_one_outlier_in_twelve_stops_it_too(source, tmp_path):
    rows = _all_french(source)
    _refused(source, [*rows[:4], {**rows[4], **CYRILLIC}, *rows[5:]], tmp_path, SchemaError,
             "1 × script_lines flagged; first: 6")
    rows[9]["passage"] = " ".join([rows[9]["passage"]] * 12)
    config = CheckConfig(severity={**CheckConfig().severity, "inconsistent_passages": "off"})
    path = _translations(source, tmp_path / "long.tsv", rows)
    with pytest.raises(SchemaError) as err:
        project_mc(source, path, "fra_Latn", tmp_path / "out", config=config)
    assert str(err.value).startswith(f"{path}: 1 × length_outliers flagged; first: {{'id': 'q10', 'z': ")


def test_the_result_carries_the_source_s_credit(source, tmp_path):
    result = project_mc(source, _translations(source, tmp_path / "fra.tsv"), "fra_Latn", tmp_path / "out")
    assert result.credit is not None and result.credit.license == "CC-BY-SA-4.0"
    raw = json.loads((tmp_path / "out" / "fra_Latn" / "variant.json").read_text(encoding="utf-8"))
    assert raw["source"].endswith("source")


def test_a_source_of_one_variant_that_is_not_english_is_projected_from(tmp_path, source):
    one = tmp_path / "one" / "deu_Latn"
    one.mkdir(parents=True)
    for split in LAYOUT:
        rows = [dict(r, language="deu_Latn") for r in _source_rows(source)[split]]
        write_jsonl_atomic(one / f"{split}.jsonl", rows)
    result = project_mc(tmp_path / "one", _translations(source, tmp_path / "fra.tsv"), "fra_Latn", tmp_path / "out")
    assert result.rows == {"train": 8, "dev": 4}


# --- survivors of the whole mutation run at 2041c07 (docs/testing.md, issue 27, sixth pass) --------------------------


def test_a_missing_translation_file_is_named_as_one(tmp_path):
    from schemas.errors import SourceNotFoundError

    with pytest.raises(SourceNotFoundError) as err:
        read_translations(tmp_path / "fra.tsv")
    assert str(err.value) == f"{tmp_path / 'fra.tsv'}: translation file not found"


def test_a_folder_given_as_the_translation_file_is_refused_as_the_wrong_kind(tmp_path):
    from schemas.io import WrongPathKind

    (tmp_path / "fra.tsv").mkdir()
    with pytest.raises(WrongPathKind) as err:
        read_translations(tmp_path / "fra.tsv")
    assert str(err.value) == f"{tmp_path / 'fra.tsv'}: expected a translation file, found a folder"


def test_the_refusal_of_a_control_character_says_what_the_field_allows(tmp_path):
    path = _one_row(tmp_path, "question_id", "q\x1b1")
    with pytest.raises(SchemaError) as err:
        read_translations(path)
    assert str(err.value) == (f"{path}, line 1, field question_id: a question id allows no control character, "
                              "found a control character (U+001B) at character 2")
    path = _one_row(tmp_path, "answer3", "te\x1bxte")
    with pytest.raises(SchemaError) as err:
        read_translations(path)
    assert str(err.value) == (f"{path}, line 1, field answer3: a translation allows no control character but tab "
                              "and newline, found a control character (U+001B) at character 3")


@pytest.mark.parametrize("column", TRANSLATED_COLUMNS)
def test_a_tab_or_a_newline_inside_a_translation_is_kept(tmp_path, column):
    path = _one_row(tmp_path, column, "une ligne\tpuis\nune autre")
    assert read_translations(path)[0][1][column] == "une ligne\tpuis\nune autre"


def test_a_tab_in_a_question_id_is_refused(tmp_path):
    with pytest.raises(SchemaError, match="field question_id: a question id allows no control character"):
        read_translations(_one_row(tmp_path, "question_id", "q\t1"))


def test_a_foreign_folder_at_the_target_is_refused_and_kept(source, tmp_path):
    from schemas.errors import UsageError

    target = tmp_path / "out" / "fra_Latn"
    target.mkdir(parents=True)
    (target / "notes.txt").write_text("mine\n", encoding="utf-8")
    with pytest.raises(UsageError) as err:
        project_mc(source, _translations(source, tmp_path / "fra.tsv"), "fra_Latn", tmp_path / "out")
    assert str(err.value) == (f"{target}: a non-empty folder without variant.json: it is not an earlier variant "
                              "output, and the output folder is replaced as a whole, so choose a new or empty folder")
    assert [p.name for p in target.iterdir()] == ["notes.txt"]


def test_an_unmarked_earlier_variant_folder_is_replaced_and_the_new_one_is_marked(source, tmp_path):
    from schemas.runtime.outputs import MARKER

    target = tmp_path / "out" / "fra_Latn"
    target.mkdir(parents=True)
    (target / "variant.json").write_text("{}\n", encoding="utf-8")  # an output of a version before the marker
    (target / "old.jsonl").write_text("{}\n", encoding="utf-8")
    project_mc(source, _translations(source, tmp_path / "fra.tsv"), "fra_Latn", tmp_path / "out")
    assert sorted(p.name for p in target.iterdir()) == sorted([MARKER, "dev.jsonl", "train.jsonl", "variant.json"])
    assert json.loads((target / MARKER).read_text(encoding="utf-8")) == {"command": "variant"}


def _three_items(tmp_path):
    """A one-split source of three items and their translations, the third far longer than its source."""
    rows = [_english("train", pid, qid, n) for n, (pid, qid) in enumerate((("p1", "q1"), ("p2", "q2"), ("p3", "q3")))]
    trans = [_french(r) for r in rows]
    trans[2]["passage"] = " ".join([trans[2]["passage"]] * 30)
    return _train_only(tmp_path, rows), rows, trans


def _length_z(rows, trans) -> np.ndarray:
    """The robust z of each item's length ratio, computed as the projection does (an independent reading)."""
    from schemas.textstats import log_ratio, robust_z

    return robust_z([log_ratio(t["passage"] + t["question"], r["passage"] + r["question"]) for r, t in zip(rows, trans)])


def test_with_exactly_three_items_a_far_longer_translation_is_a_length_outlier(tmp_path):
    folder, rows, trans = _three_items(tmp_path)
    result = project_mc(folder, _translations(folder, tmp_path / "fra.tsv", trans), "fra_Latn", tmp_path / "out",
                        config=LENIENT)
    z = round(float(_length_z(rows, trans)[2]), 2)
    assert z > 3.5
    assert result.checks.results["length_outliers"].items == [{"id": "q3", "z": z}]  # two digits, a float
    assert isinstance(result.checks.results["length_outliers"].items[0]["z"], float)


def test_a_z_equal_to_the_threshold_is_no_outlier(tmp_path):
    folder, rows, trans = _three_items(tmp_path)
    z = float(_length_z(rows, trans)[2])
    config = CheckConfig(max_odd_share=1.0, length_z=abs(z))
    result = project_mc(folder, _translations(folder, tmp_path / "fra.tsv", trans), "fra_Latn", tmp_path / "out",
                        config=config)
    assert result.checks.counts()["length_outliers"] == 0


def test_with_two_items_no_length_is_an_outlier_even_under_a_low_threshold(tmp_path):
    rows = [_english("train", pid, qid, n) for n, (pid, qid) in enumerate((("p1", "q1"), ("p2", "q2")))]
    folder = _train_only(tmp_path, rows)
    trans = [_french(r) for r in rows]
    trans[0]["passage"] = " ".join([trans[0]["passage"]] * 30)
    assert abs(_length_z(rows, trans)).max() > 0.5  # two values' robust z are +/-0.6745
    result = project_mc(folder, _translations(folder, tmp_path / "fra.tsv", trans), "fra_Latn", tmp_path / "out",
                        config=CheckConfig(max_odd_share=1.0, length_z=0.5))
    assert result.checks.counts()["length_outliers"] == 0


def _latin_share(rows) -> float:
    from schemas.scripts import count_letters

    counts = [count_letters(" ".join(r[c] for c in TRANSLATED_COLUMNS), "Latn") for r in rows]
    return sum(s for _, s in counts) / sum(t for t, _ in counts)


def test_a_file_share_under_the_minimum_is_reported_with_the_file_and_its_share_to_four_digits(source, tmp_path):
    rows = _all_french(source)
    rows[4] = {**rows[4], **CYRILLIC}
    share = _latin_share(rows)
    assert 0.8 < share < 0.99 and round(share, 4) != round(share, 5)
    config = CheckConfig(severity={**CheckConfig().severity, "script_file": "warning"}, max_odd_share=1.0,
                         script_file_min_share=0.99)
    path = _translations(source, tmp_path / "fra.tsv", rows)
    result = project_mc(source, path, "fra_Latn", tmp_path / "out", config=config)
    assert result.checks.results["script_file"].items == [{"file": str(path), "share": round(share, 4)}]


def test_a_file_share_equal_to_the_minimum_passes(source, tmp_path):
    rows = _all_french(source)
    rows[4] = {**rows[4], **CYRILLIC}
    config = CheckConfig(max_odd_share=1.0, script_file_min_share=_latin_share(rows))
    result = project_mc(source, _translations(source, tmp_path / "fra.tsv", rows), "fra_Latn", tmp_path / "out",
                        config=config)
    assert result.checks.counts()["script_file"] == 0


def test_a_translation_without_letters_passes_the_script_check(source, tmp_path):
    rows = [{**r, "passage": f"{r['passage_id'][1:]} 000", "question": f"{r['question_id'][1:]}?",
             **{f"answer{k}": f"{k}.{r['question_id'][1:]}" for k in range(1, 5)}} for r in _all_french(source)]
    result = project_mc(source, _translations(source, tmp_path / "fra.tsv", rows), "fra_Latn", tmp_path / "out",
                        config=CheckConfig(max_odd_share=1.0, length_z=1e9))
    assert result.checks.counts()["script_file"] == 0 and result.checks.counts()["script_lines"] == 0


def test_a_line_with_exactly_half_its_letters_in_the_script_is_not_odd(source, tmp_path):
    from schemas.scripts import count_letters

    def with_cyrillic(row: dict, letters: int) -> dict:
        """``row`` with its question and options in Cyrillic, ``letters`` letters in all (the passage stays Latin)."""
        options = ["а", "б", "в", "г"]  # distinct: no duplicate options
        return {**row, "question": "д" * (letters - 4), **{f"answer{k}": o for k, o in enumerate(options, 1)}}

    latin, _ = count_letters(_all_french(source)[4]["passage"], "Latn")
    config = CheckConfig(max_odd_share=1.0, length_z=1e9)  # only the script of the line is looked at
    rows = _all_french(source)
    rows[4] = with_cyrillic(rows[4], latin)  # as many Cyrillic letters as Latin: a share of exactly 0.5
    assert count_letters(" ".join(rows[4][c] for c in TRANSLATED_COLUMNS), "Latn") == (2 * latin, latin)
    assert "script_lines" not in _warned(source, rows, tmp_path, config)
    rows[4] = with_cyrillic(rows[4], latin + 1)  # one more: under 0.5
    (tmp_path / "again").mkdir()
    assert _warned(source, rows, tmp_path / "again", config) == {"script_lines": [6]}


def test_a_key_written_as_a_string_in_the_source_is_written_as_a_number(tmp_path):
    # each item's correct_answer_num is the int the key was read as, not the source's value as it stands
    rows = [_english("train", pid, qid, n) for n, (pid, qid) in enumerate(LAYOUT["train"][:4])]
    for row in rows:
        row["correct_answer_num"] = str(row["correct_answer_num"])  # "1" .. "4": the source loads as it is
    folder = _train_only(tmp_path, rows)
    project_mc(folder, _translations(folder, tmp_path / "fra.tsv", [_french(r) for r in rows]), "fra_Latn",
               tmp_path / "out")
    out = _jsonl(tmp_path / "out" / "fra_Latn" / "train.jsonl")
    assert [item["correct_answer_num"] for item in out] == [1, 2, 3, 4]
    assert [item["correct_answer"] for item in out] == [_french(r)[f"answer{r['correct_answer_num']}"] for r in rows]
