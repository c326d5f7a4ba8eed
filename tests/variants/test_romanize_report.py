"""What ``builder romanize`` reports: exact leftover counts per split, punctuation mapped, refusals.

The fixtures are small enough to count by hand; the counts are written next to
each line. With ``--scheme iast`` every candra vowel (ॉ ऑ ॅ) is left in
Devanagari, one native character each (IAST has no letter for it).

Mutant killed (issue 17): the leftover count keeping only the last row of each
split (``left = k`` for ``left += k`` in ``romanize_variant``) fails
``test_leftover_counts_are_exact_per_split_over_every_row``,
``test_leftover_error_counts_every_row_and_names_the_first_character`` and
``test_multiple_choice_fields_are_all_counted``; the earlier test asserted only "more than 0".
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from builder.cli.main import cli
from builder.variants.romanize import romanize_variant
from schemas.io import read_sib_tsv, write_jsonl_atomic, write_sib_tsv

SIB = Path(__file__).parents[1] / "data" / "sib200" / "annotated"

#: split -> texts; the comment gives the candra vowels (native characters left with iast), dandas, double dandas.
HINDI = {
    "train": ["डॉक्टर नमस्ते",  # 1 left
              "कॉलेज और डॉक्टर।",  # 2 left, 1 danda
              "नमस्ते"],  # 0 left: a count that kept only the last row of a split would say 0
    "dev": ["ऑफ़िस",  # 1 left
            "कॉफ़ी, कॅ और ऑफ़िस।"],  # 3 left, 1 danda
    "test": ["नमस्ते। नमस्ते।",  # 0 left, 2 dandas
             "कॉफ़ी॥",  # 1 left, 1 double danda
             "१२ नमस्ते"],  # 0 left; the digits become 12
}
LEFT = {"train": 3, "dev": 4, "test": 1}


def _topic_folder(root: Path, code: str, splits: dict[str, list[str]]) -> Path:
    folder = root / code
    n = 0
    for split, texts in splits.items():
        rows = []
        for text in texts:
            rows.append({"index_id": str(n), "category": "science", "text": text})
            n += 1
        write_sib_tsv(folder / f"{split}.tsv", rows)
    return folder


def test_leftover_counts_are_exact_per_split_over_every_row(tmp_path):
    folder = _topic_folder(tmp_path, "hin_Deva", HINDI)
    res = romanize_variant(folder, tmp_path / "out", scheme="iast", allow_leftover=True)
    assert res.report["native_letters_left_by_split"] == LEFT
    assert res.leftover == res.report["native_letters_left"] == 8
    assert res.report["native_symbols_kept"] == 0
    assert res.report["punctuation_mapped"] == {
        "danda": {"char": "U+0964", "to": ".", "count": 4},
        "double danda": {"char": "U+0965", "to": ".", "count": 1}}
    assert res.report["signs_removed"] == {}
    out = read_sib_tsv(tmp_path / "out" / "hin_Latn" / "test.tsv")
    assert [r["text"] for r in out] == ["namaste. namaste.", "kaॉfī.", "12 namaste"]


def test_leftover_error_counts_every_row_and_names_the_first_character(tmp_path):
    folder = _topic_folder(tmp_path, "hin_Deva", HINDI)
    res = CliRunner().invoke(cli, ["romanize", str(folder), "--out", str(tmp_path / "out"), "--scheme", "iast"])
    assert res.exit_code == 1
    assert "8 Deva letters left after romanizing with indic-transliteration (scheme iast)" in res.output
    assert "'ॉ' (U+0949 DEVANAGARI VOWEL SIGN CANDRA O)" in res.output and "train.tsv, line 2" in res.output
    assert not (tmp_path / "out" / "hin_Latn").exists()


def test_multiple_choice_fields_are_all_counted(tmp_path):
    """Leftovers in several fields of several rows (JSONL): 4 in row 1, 2 in row 2."""
    folder = tmp_path / "hin_Deva"
    base = {"dataset": "x", "split": "test", "language": "hin_Deva", "passage_id": "p", "answer3": "क", "answer4": "ख",
            "correct_answer_num": 1, "license": "CC-BY-SA-4.0"}
    rows = [dict(base, question_id="1", passage="डॉक्टर।", question="कॉलेज?", answer1="कॉफ़ी", answer2="ग",
                 correct_answer="कॉफ़ी"),
            dict(base, question_id="2", passage="नमस्ते।", question="कौन?", answer1="ऑफ़िस", answer2="ग",
                 correct_answer="ऑफ़िस")]
    write_jsonl_atomic(folder / "test.jsonl", rows)
    res = romanize_variant(folder, tmp_path / "out", scheme="iast", allow_leftover=True)
    # row 1: passage, question, answer1, correct_answer 1 each; row 2: answer1, correct_answer 1 each
    assert res.report["native_letters_left_by_split"] == {"test": 6}
    assert res.report["punctuation_mapped"]["danda"]["count"] == 2
    out = [json.loads(line) for line in (tmp_path / "out" / "hin_Latn" / "test.jsonl").read_text().splitlines()]
    assert out[1]["passage"] == "namaste." and out[0]["language"] == "hin_Latn"


def test_cli_line_reports_punctuation(tmp_path):
    res = CliRunner().invoke(cli, ["romanize", str(SIB / "hin_Deva"), "--out", str(tmp_path)])
    assert res.exit_code == 0, res.output
    dandas = sum((SIB / "hin_Deva" / f"{s}.tsv").read_text(encoding="utf-8").count("\u0964")
                 for s in ("train", "dev", "test"))
    assert dandas > 0
    assert f"native letters left 0; punctuation mapped: danda {dandas})" in res.output
    meta = json.loads((tmp_path / "hin_Latn" / "variant.json").read_text(encoding="utf-8"))
    assert meta["punctuation_mapped"]["danda"]["count"] == dandas
    assert all("\u0964" not in r["text"] for s in ("train", "dev", "test")
               for r in read_sib_tsv(tmp_path / "hin_Latn" / f"{s}.tsv"))


def test_symbols_are_kept_and_counted_apart(tmp_path):
    folder = _topic_folder(tmp_path, "ben_Beng", {"train": ["দাম ৳৫০", "৳"], "dev": ["ঠিক"]})
    res = romanize_variant(folder, tmp_path / "out")
    assert res.leftover == 0 and res.report["native_symbols_kept"] == 2
    assert [r["text"] for r in read_sib_tsv(tmp_path / "out" / "ben_Latn" / "train.tsv")] == ["dāma ৳50", "৳"]


def test_signs_with_no_reading_are_removed_and_counted(tmp_path):
    folder = _topic_folder(tmp_path, "ben_Beng", {"train": ["ঀ নমস্কার", "ক৾খ"]})
    res = romanize_variant(folder, tmp_path / "out")
    assert res.report["signs_removed"] == {"anji": {"char": "U+0980", "count": 1},
                                           "sandhi mark": {"char": "U+09FE", "count": 1}}
    assert [r["text"] for r in read_sib_tsv(tmp_path / "out" / "ben_Latn" / "train.tsv")] == [" namaskāra",
                                                                                              "kakha"]


def test_tibetan_sample_romanizes_with_uroman(tmp_path):
    res = CliRunner().invoke(cli, ["romanize", str(SIB / "bod_Tibt"), "--out", str(tmp_path)])
    assert res.exit_code == 0, res.output
    meta = json.loads((tmp_path / "bod_Latn" / "variant.json").read_text(encoding="utf-8"))
    assert meta["tool"] == "uroman" and meta["native_letters_left"] == 0
    assert meta["round_trip"]["checked"] is False
    shads = sum((SIB / "bod_Tibt" / f"{s}.tsv").read_text(encoding="utf-8").count("\u0f0d")
                for s in ("train", "dev", "test"))
    assert meta["punctuation_mapped"]["shad"]["count"] == shads > 0


@pytest.mark.parametrize("code,text", [("sat_Olck", "ᱥᱟᱱᱛᱟᱲᱤ"), ("mni_Mtei", "ꯃꯤꯇꯩ ꯃꯌꯦꯛ")])
def test_unsupported_scripts_stop_with_one_line_naming_script_and_folder(tmp_path, code, text):
    folder = _topic_folder(tmp_path, code, {"train": [text]})
    res = CliRunner().invoke(cli, ["romanize", str(folder), "--out", str(tmp_path / "out")])
    assert res.exit_code == 2
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in res.output
    script = code[-4:]
    assert str(folder) in lines[0] and f"script {script} of {code}" in lines[0] and "not supported" in lines[0]
