"""``builder.variants.romanize`` called in-process, with exact values (issue 17, mutation testing phase 2).

The console-script tests run the installed package in a subprocess, so no
mutant of this module can fail them; these tests call the functions directly
and pin each value the report and the errors carry: the romanizer's fields,
the native-character classes, the round-trip reasons and counts, the report
of a folder small enough to count by hand (the hashes recomputed with
hashlib), the summary line, and each refusal's message and record.
"""
from __future__ import annotations

import hashlib
import json
import unicodedata
from pathlib import Path

import pytest

from builder.variants import romanize as R
from schemas.errors import SchemaError, ScriptError, UsageError
from schemas.io import write_jsonl_atomic, write_sib_tsv
from schemas.variant import VariantInfo

SUPPORTED = "Arab, Beng, Deva, Gujr, Guru, Knda, Mlym, Orya, Sinh, Taml, Telu, Tibt"


# --- the romanizer --------------------------------------------------------------------------------------

def test_the_romanizer_of_a_brahmic_script():
    from importlib.metadata import version

    r = R.get_romanizer("hin_Deva")
    assert (r.script, r.tool, r.scheme, r.lossless) == ("Deva", "indic-transliteration", "iso", True)
    assert r.version == version("indic-transliteration")
    assert r.romanize("नमस्ते।") == "namastē." and r.back("namastē") == "नमस्ते"
    iast = R.get_romanizer("hin_Deva", "iast")
    assert (iast.scheme, iast.lossless) == ("iast", False)
    assert iast.romanize("नमस्ते।") == "namaste."
    assert R.get_romanizer("ben_Beng").marks.translate("১২।") == "12."


def test_the_romanizer_of_a_uroman_script_has_no_way_back():
    from importlib.metadata import version

    u = R.get_romanizer("urd_Arab")  # uroman itself loads only when the first text is romanized
    assert (u.script, u.tool, u.scheme, u.back, u.lossless) == ("Arab", "uroman", "uroman", None, False)
    assert u.version == version("uroman")
    assert R.ROMANIZATION["Tibt"].tool == "uroman" and R.ROMANIZATION["Tibt"].lossless == ()
    assert R.ROMANIZATION["Deva"].schemes == ("iso", "iast", "hk", "itrans")
    assert R.ROMANIZATION["Deva"].lossless == ("iso",)
    assert sorted(R.ROMANIZATION) == SUPPORTED.split(", ") and sorted(R.NOT_SUPPORTED) == ["Mtei", "Olck"]


@pytest.mark.parametrize("code,scheme,message", [
    ("zho_Hans", None, f"no romanizer for script Hans of zho_Hans; supported scripts: {SUPPORTED}"),
    ("sat_Olck", None, "no romanizer for script Olck of sat_Olck (not supported: " + R.NOT_SUPPORTED["Olck"]
     + f"); supported scripts: {SUPPORTED}"),
    ("hin_Deva", "x", "unknown scheme 'x' for script Deva; allowed: iso, iast, hk, itrans"),
    ("urd_Arab", "iso", "unknown scheme 'iso' for script Arab; allowed: uroman"),
])
def test_refusals_name_the_script_the_scheme_and_the_folder(code, scheme, message):
    with pytest.raises(UsageError) as info:
        R.get_romanizer(code, scheme, where=Path("the/folder"))
    assert info.value.message == message and info.value.file == "the/folder"


def test_urdu_goes_through_uroman_in_nfc():
    """uroman's reading of Urdu, normalised to NFC (loads uroman's tables: a few seconds)."""
    import unicodedata

    out = R.get_romanizer("urd_Arab").romanize("پاکستان کا دارالحکومت اسلام آباد ہے۔")
    assert out == "pakstan ka daralhkwmt aslam abad hye." and unicodedata.is_normalized("NFC", out)
    assert R.get_romanizer("urd_Arab").romanize("ہے۔") == "hye."
    # uroman reads Uyghur by its own rules only when told the language (without: "yeuyghurtchae katab")
    assert R.get_romanizer("uig_Arab").romanize("ئۇيغۇرچە كىتاب") == "uyghurche kitab"


# --- what is left -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("text,script,expected", [
    ("", "Deva", (0, 0)),
    ("namaste. 12", "Deva", (0, 0)),
    ("नमस्ते", "Deva", (6, 0)),
    ("नमस्ते नमस्ते", "Deva", (12, 0)),  # every occurrence counts, not each character once
    ("a।b", "Beng", (1, 0)),  # the danda is in the Devanagari block but Script_Extensions names Beng
    ("a।b", "Arab", (0, 0)),
    ("৳৳ ক", "Beng", (1, 2)),  # a symbol is counted apart
    ("৳৲৳ কখক", "Beng", (3, 3)),  # every occurrence of every symbol and letter
    ("₹5", "Deva", (0, 0)),  # the rupee sign is Common, not Devanagari
    ("\u0d7b", "Mlym", (1, 0)),
    ("क", "Beng", (0, 0)),
])
def test_native_left_counts_letters_and_symbols(text, script, expected):
    assert R.native_left(text, script) == expected


def test_native_left_refuses_a_script_code_unicode_does_not_know():
    # It was regex's "unknown property value at position 12" (a Script_Extensions pattern built from the
    # code), after a ValueError that named the code had been caught and dropped.
    with pytest.raises(ValueError, match="unknown ISO 15924 script code 'Qqqq'"):
        R.native_left("abc", "Qqqq")
    assert R.native_left("", "Qqqq") == (0, 0)  # nothing to classify


def test_native_left_classifies_each_character_once_per_script():
    R._KINDS.pop("Gujr", None)
    assert R.native_left("કક a", "Gujr") == (2, 0)
    assert R._KINDS["Gujr"] == {"ક": 1, " ": 0, "a": 0}
    assert R._kind("৳", "Beng") == 2 and R._kind("ক", "Beng") == 1 and R._kind("x", "Beng") == 0
    assert R._kind("\u0964", "Deva") == 1 and R._kind("\u0964", "Latn") == 0


def test_kind_is_the_block_or_the_script_property_by_direct_calls():
    """``_kind`` without the per-script cache: both ends of a block count, unassigned code points too."""
    assert R._kind("\u0a00", "Guru") == 1 and R._kind("\u0a7f", "Guru") == 1  # unassigned, first and last
    assert R._kind("\u0984", "Beng") == 1  # unassigned inside the Bengali block: no script property
    assert R._kind("\u0964", "Beng") == 1  # outside the block, Script_Extensions names Beng
    assert R._kind("\u0a80", "Guru") == 0 and R._kind("\u09ff", "Guru") == 0  # just outside the Gurmukhi block
    assert R._kind("\x00", "Arab") == 0 and R._kind("\x01", "Latn") == 0  # no block: only the property
    assert R._kind("a", "Latn") == 1 and R._kind("\u0627", "Arab") == 1


def test_describe_names_the_first_three_distinct_characters():
    assert R._describe("ൻൻab c") == ("'ൻ' (U+0D7B MALAYALAM LETTER CHILLU N), 'a' (U+0061 LATIN SMALL LETTER A), "
                                     "'b' (U+0062 LATIN SMALL LETTER B)")
    assert R._describe("\ue000") == "'\\ue000' (U+E000 ?)"


# --- round trip ------------------------------------------------------------------------------------------

def test_signs_and_consonants():
    assert not R._is_sign("") and not R._is_consonant("")
    assert R._is_sign("ि") and R._is_sign("्") and R._is_sign("ः") and R._is_sign("\u0dca")  # al-lakuna
    assert not R._is_sign("क") and not R._is_sign("a")
    assert R._is_consonant("क") and R._is_consonant("ক") and R._is_consonant("ඛ")
    # Sinhala's unaspirated consonants and AMBA BAYANNA are consonants although their names start with "A"
    assert R._is_consonant("ක") and R._is_consonant("ප") and R._is_consonant("ඹ")
    assert not R._is_consonant("अ") and not R._is_consonant("ඉ") and not R._is_consonant("ऋ")
    assert not R._is_consonant("ि") and not R._is_consonant("a") and not R._is_consonant("අ")
    assert not R._is_consonant("ओ") and not R._is_consonant("ऐ") and not R._is_consonant("ඔ")
    # characters without a name: a private-use one, and a Tangut ideograph (category Lo, no name)
    assert not R._is_sign("\ue000") and not R._is_consonant("\ue000") and not R._is_consonant("\U00017000")


#: The nine blocks laid out as ISCII: independent vowels at offsets 0x04-0x14 and 0x60-0x61, consonants at
#: 0x15-0x39 (the Unicode code charts; Malayalam has its VEDIC ANUSVARA at 0x04), whatever a letter's name says.
_ISCII_BLOCKS = {"Deva": 0x0900, "Beng": 0x0980, "Guru": 0x0A00, "Gujr": 0x0A80, "Orya": 0x0B00, "Taml": 0x0B80,
                 "Telu": 0x0C00, "Knda": 0x0C80, "Mlym": 0x0D00}


@pytest.mark.parametrize("script", sorted(_ISCII_BLOCKS))
def test_every_letter_of_a_brahmic_block_is_a_vowel_or_a_consonant_by_its_place(script):
    base = _ISCII_BLOCKS[script]
    letters = lambda lo, hi: [chr(base + k) for k in range(lo, hi + 1)  # noqa: E731
                              if unicodedata.category(chr(base + k)) == "Lo"]
    vowels, consonants = letters(0x04, 0x14) + letters(0x60, 0x61), letters(0x15, 0x39)
    assert len(vowels) >= 10 and len(consonants) >= 18
    assert [c for c in vowels if R._is_consonant(c)] == []
    assert [c for c in consonants if not R._is_consonant(c)] == []


def test_every_sinhala_letter_is_a_vowel_or_a_consonant_by_its_place():
    vowels = [chr(k) for k in range(0x0D85, 0x0D97) if unicodedata.category(chr(k)) == "Lo"]
    consonants = [chr(k) for k in range(0x0D9A, 0x0DC7) if unicodedata.category(chr(k)) == "Lo"]
    assert (len(vowels), len(consonants)) == (18, 41)
    assert [c for c in vowels if R._is_consonant(c)] == []
    assert [c for c in consonants if not R._is_consonant(c)] == []


@pytest.mark.parametrize("vowel", ["\u0904", "\u090d", "\u090e", "\u0911", "\u0912", "\u0972"])
def test_a_vowel_sign_after_a_devanagari_vowel_named_like_no_vowel_is_a_sign_after_a_vowel(vowel):
    """SHORT A, CANDRA E, SHORT E, CANDRA O (Marathi's ऑ), SHORT O and CANDRA A: their names start with no
    vowel, and were taken for consonants."""
    assert R.round_trip_reason(vowel + "\u093f", vowel + "i") == "sign_after_vowel"
    assert R.round_trip_reason("\u0915\u093f", "ki") == "other"


@pytest.mark.parametrize("source,back,script,reason", [
    ("উৎস", "উত্স", None, "khanda_ta"),
    ("উৎস", "উৎস", None, "khanda_ta"),
    ("ओं", "ॐ", None, "om"),
    ("ॐ", "ॐ", None, "other"),
    ("अवൻ", "x", "Mlym", "chillu"),
    ("अवൻ", "x", None, "other"),
    ("अ्या", "अया", None, "sign_after_vowel"),
    ("ि", "x", None, "sign_after_vowel"),  # a sign that opens the run
    ("कि", "कु", None, "other"),
    ("ड़ि", "x", None, "other"),  # a sign after a nukta
    ("क़", "x", None, "other"),  # a letter with its nukta
    ("अ\u093c", "x", None, "other"),  # the nukta sign itself is never the fault, even after a vowel
    ("\ue000ि", "x", None, "sign_after_vowel"),  # after a character with no name
    ("किं", "x", None, "other"),  # anusvara after a vowel sign
    ("ां", "x", None, "sign_after_vowel"),
    ("अं", "x", None, "sign_after_vowel"),
    ("किः", "x", None, "sign_after_vowel"),  # visarga (Mc) after a vowel sign
    ("කි", "x", None, "other"),  # a vowel sign after Sinhala ALPAPRAANA KAYANNA, a consonant
    ("අි", "x", None, "sign_after_vowel"),
])
def test_round_trip_reason_of_each_branch(source, back, script, reason):
    assert R.round_trip_reason(source, back, script) == reason


def test_round_trip_counts_every_run_and_caches_words():
    r = R.get_romanizer("hin_Deva")
    rt = R.round_trip(["नमस्ते नमस्ते।", "ओं शांति", "ओं ओं ओं ओं"], r)
    assert rt == {"checked": True, "runs": 8, "exact": 3, "failures": {"om": 5},
                  "examples": {"om": [["ओं", "ōṁ", "ॐ"]]}, "lossless_scheme": True}
    assert R.round_trip([], r) == {"checked": True, "runs": 0, "exact": 0, "failures": {}, "examples": {},
                                   "lossless_scheme": True}
    iast = R.get_romanizer("hin_Deva", "iast")  # the way back is IAST's too: "namaste" -> नमस्ते
    assert R.round_trip(["नमस्ते"], iast) == {"checked": True, "runs": 1, "exact": 1, "failures": {},
                                              "examples": {}, "lossless_scheme": False}


def test_round_trip_keeps_three_examples_per_reason_and_sorts_the_reasons():
    r = R.get_romanizer("hin_Deva")
    words = ["अ्या", "इ्या", "उ्या", "ए्या", "ओं"]
    rt = R.round_trip([" ".join(words)], r)
    assert rt["runs"] == 5 and rt["exact"] == 0
    assert rt["failures"] == {"om": 1, "sign_after_vowel": 4}
    assert list(rt["failures"]) == ["om", "sign_after_vowel"]
    assert [e[0] for e in rt["examples"]["sign_after_vowel"]] == words[:3]


def test_round_trip_names_the_scripts_lossy_letters():
    rt = R.round_trip(["അവൻ"], R.get_romanizer("mal_Mlym"))
    assert rt["failures"] == {"chillu": 1} and rt["examples"] == {"chillu": [["അവൻ", "avan", "അവന്"]]}


def test_a_run_that_is_only_joiners_is_not_a_run():
    r = R.get_romanizer("hin_Deva")
    rt = R.round_trip(["\u200d \u200dक"], r)
    assert (rt["runs"], rt["exact"]) == (1, 1)


def test_no_way_back_is_said():
    assert R.round_trip(["x"], R.get_romanizer("urd_Arab")) == {
        "checked": False, "reason": "uroman defines no way back to the native script"}


# --- variant folders -----------------------------------------------------------------------------------

def _hindi(root: Path) -> Path:
    folder = root / "hin_Deva"
    write_sib_tsv(folder / "train.tsv", [{"index_id": "1", "category": "science", "text": "नमस्ते।"},
                                         {"index_id": "2", "category": "travel", "text": "ओं ₹५"}])
    write_sib_tsv(folder / "test.tsv", [{"index_id": "3", "category": "science", "text": "नमस्ते नमस्ते॥"}])
    (folder / "labels.txt").write_bytes("\ufeffscience\r\ntravel\r\n".encode())
    return folder


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_the_report_of_a_small_folder_exactly(tmp_path):
    from importlib.metadata import version

    folder = _hindi(tmp_path)
    res = R.romanize_variant(folder, tmp_path / "out")
    out = tmp_path / "out" / "hin_Latn"
    assert (res.out_dir, res.rows, res.tool, res.version, res.scheme, res.leftover) == (
        out, 3, "indic-transliteration", version("indic-transliteration"), "iso", 0)
    assert res.report == {
        "variant": "hin_Latn", "source_variant": "hin_Deva", "source": str(folder),
        "source_files": {"train": _sha(folder / "train.tsv"), "test": _sha(folder / "test.tsv")},
        "method": "romanization", "tool": "indic-transliteration", "version": version("indic-transliteration"),
        "scheme": "iso", "native_letters_left": 0, "native_letters_left_by_split": {"train": 0, "test": 0},
        "native_symbols_kept": 0,
        "punctuation_mapped": {"danda": {"char": "U+0964", "to": ".", "count": 1},
                               "double danda": {"char": "U+0965", "to": ".", "count": 1}},
        "signs_removed": {}, "deterministic": True,
        "round_trip": {"checked": True, "runs": 4, "exact": 3, "failures": {"om": 1},
                       "examples": {"om": [["ओं", "ōṁ", "ॐ"]]}, "lossless_scheme": True},
        "rows": {"train": 2, "test": 1},
        "license": "CC-BY-SA-4.0", "license_from": "default (FLORES-200 and SIB-200 are CC BY-SA 4.0)"}
    assert list(res.report["source_files"]) == ["train", "test"]
    assert sorted(p.name for p in out.iterdir()) == [".builder.json", "labels.txt", "test.tsv", "train.tsv",
                                                     "variant.json"]
    assert (out / "train.tsv").read_text(encoding="utf-8") == (
        "index_id\tcategory\ttext\n1\tscience\tnamastē.\n2\ttravel\tōṁ ₹5\n")
    assert (out / "test.tsv").read_text(encoding="utf-8") == "index_id\tcategory\ttext\n3\tscience\tnamastē namastē.\n"
    assert (out / "labels.txt").read_bytes() == b"science\ntravel\n"
    meta = json.loads((out / "variant.json").read_text(encoding="utf-8"))
    assert meta["round_trip"] == res.report["round_trip"] and meta["rows"] == {"train": 2, "test": 1}
    assert res.summary() == ("3 rows; tool indic-transliteration " + version("indic-transliteration")
                             + ", scheme iso; native letters left 0; punctuation mapped: danda 1, double danda 1")


def test_an_urdu_folder_goes_through_uroman(tmp_path):
    from importlib.metadata import version

    folder = tmp_path / "urd_Arab"
    write_sib_tsv(folder / "test.tsv", [{"index_id": "1", "category": "a", "text": "اسلام آباد ہے۔"}])
    res = R.romanize_variant(folder, tmp_path / "out")
    assert (res.tool, res.scheme, res.version, res.leftover) == ("uroman", "uroman", version("uroman"), 0)
    assert res.report["round_trip"] == {"checked": False, "reason": "uroman defines no way back to the native script"}
    assert res.report["deterministic"] is True and res.report["variant"] == "urd_Latn"
    assert (res.out_dir / "test.tsv").read_text(encoding="utf-8") == "index_id\tcategory\ttext\n1\ta\taslam abad hye.\n"


def test_round_trip_can_be_skipped_and_the_variant_json_names_the_code(tmp_path):
    folder = tmp_path / "any-name"
    write_sib_tsv(folder / "dev.tsv", [{"index_id": "1", "category": "a", "text": "কাল"}])
    VariantInfo(variant="ben_Beng", kind="topic").write(folder)
    res = R.romanize_variant(folder, tmp_path / "out", check_round_trip=False)
    assert res.out_dir == tmp_path / "out" / "ben_Latn" and res.report["source_variant"] == "ben_Beng"
    assert res.report["round_trip"] == {"checked": False, "reason": "skipped"}
    assert not (res.out_dir / "labels.txt").exists()


def test_multiple_choice_rows_keep_other_fields_and_get_the_new_language(tmp_path):
    folder = tmp_path / "hin_Deva"
    row = {"dataset": "x", "split": "test", "language": "hin_Deva", "passage_id": "p", "question_id": "1",
           "passage": "नमस्ते।", "question": "क?", "answer1": "ख", "answer2": "ग", "answer3": "घ", "answer4": "च",
           "correct_answer_num": 1, "correct_answer": "ख", "license": "CC-BY-SA-4.0", "note": "कोई"}
    write_jsonl_atomic(folder / "test.jsonl", [row, {**row, "question_id": "2", "answer4": 5}])
    res = R.romanize_variant(folder, tmp_path / "out")
    out = [json.loads(line) for line in (res.out_dir / "test.jsonl").read_text(encoding="utf-8").splitlines()]
    assert out[0] == {**row, "language": "hin_Latn", "passage": "namastē.", "question": "ka?", "answer1": "kha",
                      "answer2": "ga", "answer3": "gha", "answer4": "ca", "correct_answer": "kha"}
    assert out[0]["note"] == "कोई"  # not a text field: left as it is
    assert out[1]["answer4"] == 5
    assert res.report["rows"] == {"test": 2} and res.rows == 2
    assert res.report["round_trip"]["runs"] == 13  # 7 fields in row 1, 6 in row 2 (answer4 is a number)


def test_a_topic_row_without_a_language_column_gets_none(tmp_path):
    folder = tmp_path / "hin_Deva"
    write_jsonl_atomic(folder / "test.jsonl", [{"passage": "क", "question": "ख"}])
    res = R.romanize_variant(folder, tmp_path / "out")
    out = json.loads((res.out_dir / "test.jsonl").read_text(encoding="utf-8"))
    assert out == {"passage": "ka", "question": "kha"}


@pytest.mark.parametrize("kind,line", [("tsv", "line 3"), ("jsonl", "line 2")])
def test_leftover_stops_naming_the_file_the_record_and_the_first_characters(tmp_path, kind, line):
    folder = tmp_path / "hin_Deva"
    texts = ["नमस्ते", "कॉफ़ी कॅ", "ऑ"]  # with iast: 0, 2, 1 candra vowels left
    if kind == "tsv":
        write_sib_tsv(folder / "dev.tsv", [{"index_id": str(i), "category": "a", "text": t}
                                           for i, t in enumerate(texts)])
    else:
        write_jsonl_atomic(folder / "dev.jsonl", [{"passage": "क", "question": t} for t in texts])
    with pytest.raises(ScriptError) as info:
        R.romanize_variant(folder, tmp_path / "out", scheme="iast")
    field = "text" if kind == "tsv" else "question"
    assert info.value.message == (
        "3 Deva letters left after romanizing with indic-transliteration (scheme iast), expected none; first: "
        "'ॉ' (U+0949 DEVANAGARI VOWEL SIGN CANDRA O), 'ॅ' (U+0945 DEVANAGARI VOWEL SIGN CANDRA E) in field "
        f"{field} (use --allow-leftover to write it anyway)")
    assert info.value.file == str(folder / f"dev.{kind}") and info.value.record == line
    assert not (tmp_path / "out").exists()


def test_a_missing_folder_and_a_file_are_refused_naming_them(tmp_path):
    from schemas.errors import SourceError, SourceNotFoundError

    with pytest.raises(SourceNotFoundError) as info:
        R.romanize_variant(tmp_path / "hin_Deva", tmp_path / "out")
    assert info.value.message == "variant folder not found" and info.value.file == str(tmp_path / "hin_Deva")
    file = tmp_path / "hin_Deva.tsv"
    file.write_text("index_id\tcategory\ttext\n", encoding="utf-8")
    with pytest.raises(SourceError) as info:
        R.romanize_variant(file, tmp_path / "out")
    assert info.value.message.startswith("expected a variant folder") and info.value.message.endswith(
        "found a file") and info.value.file == str(file)


def test_an_earlier_output_is_replaced_and_a_foreign_folder_refused(tmp_path):
    folder = _hindi(tmp_path)
    out = tmp_path / "out" / "hin_Latn"
    out.mkdir(parents=True)
    (out / "variant.json").write_text("{}", encoding="utf-8")  # an output of an earlier version: no marker
    R.romanize_variant(folder, tmp_path / "out")
    assert json.loads((out / ".builder.json").read_text(encoding="utf-8")) == {"command": "variant"}
    R.romanize_variant(folder, tmp_path / "out")  # its own output again
    other = tmp_path / "other" / "hin_Latn"
    other.mkdir(parents=True)
    (other / "notes.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(UsageError) as info:
        R.romanize_variant(folder, tmp_path / "other")
    assert info.value.message == ("a non-empty folder without variant.json: it is not an earlier variant output, "
                                  "and the output folder is replaced as a whole, so choose a new or empty folder")
    assert (other / "notes.txt").read_text(encoding="utf-8") == "mine"


def test_the_determinism_check_uses_the_same_scheme(tmp_path):
    folder = tmp_path / "hin_Deva"
    write_sib_tsv(folder / "test.tsv", [{"index_id": "1", "category": "a", "text": "नमस्ते"}])
    res = R.romanize_variant(folder, tmp_path / "out", scheme="iast")
    assert res.report["deterministic"] is True and res.scheme == "iast"
    assert (res.out_dir / "test.tsv").read_text(encoding="utf-8").endswith("\tnamaste\n")


def test_the_summary_line_names_symbols_and_removed_signs():
    res = R.RomanizeResult(Path("o"), 5, "t", "1", "s", 2, {
        "native_symbols_kept": 3, "punctuation_mapped": {"danda": {"count": 4}},
        "signs_removed": {"anji": {"count": 1}, "sandhi mark": {"count": 2}}})
    assert res.summary() == ("5 rows; tool t 1, scheme s; native letters left 2; native symbols kept 3; "
                             "punctuation mapped: danda 4; signs removed: anji 1, sandhi mark 2")
    assert R.RomanizeResult(Path("o"), 0, "t", "1", "s", 0, {"punctuation_mapped": None}).summary() == (
        "0 rows; tool t 1, scheme s; native letters left 0")


def test_read_variant_texts_in_split_order_tsv_first(tmp_path):
    folder = tmp_path / "hin_Deva"
    write_sib_tsv(folder / "test.tsv", [{"index_id": "1", "category": "a", "text": "x"}])
    write_jsonl_atomic(folder / "test.jsonl", [{"passage": "y"}])
    write_jsonl_atomic(folder / "train.jsonl", [{"passage": "z"}, {"passage": "w"}])
    (folder / "other.tsv").write_text("index_id\tcategory\ttext\n", encoding="utf-8")
    splits = R.read_variant_texts(folder)
    assert list(splits) == ["train", "test"]
    assert splits["train"] == ("jsonl", [{"passage": "z"}, {"passage": "w"}])
    assert splits["test"][0] == "tsv" and splits["test"][1][0]["text"] == "x"
    assert R._fields("tsv") == ("text",) and R._fields("jsonl") == R.MC_TEXT_FIELDS
    assert R.MC_TEXT_FIELDS == ("passage", "question", "answer1", "answer2", "answer3", "answer4",
                                "correct_answer")


def test_a_folder_without_splits_and_a_bad_json_line_are_one_error_each(tmp_path):
    with pytest.raises(SchemaError) as info:
        R.read_variant_texts(tmp_path)
    assert info.value.message == "no split file (train/dev/test/... .tsv or .jsonl) in the variant folder"
    assert info.value.file == str(tmp_path)
    bad = tmp_path / "dev.jsonl"
    bad.write_text('{"passage": "a"}\n\n{"passage": \n', encoding="utf-8")
    with pytest.raises(SchemaError) as info:
        R._read_jsonl(bad)
    assert info.value.message.startswith("malformed JSON: ") and info.value.record == "line 3"
    assert info.value.file == str(bad)


def test_the_variant_code_comes_from_variant_json_or_the_folder_name(tmp_path):
    assert R._variant_code(tmp_path / "hin_Deva", None) == "hin_Deva"
    assert R._variant_code(tmp_path / "x", VariantInfo(variant="ben_Beng", kind="topic")) == "ben_Beng"
    assert R._variant_code(tmp_path / "hin_Deva", VariantInfo(variant=None, kind="topic")) == "hin_Deva"
    with pytest.raises(SchemaError) as info:
        R._variant_code(tmp_path / "not-a-code", None)
    assert info.value.field == "variant folder name" and info.value.file == str(tmp_path / "not-a-code")


def test_a_vowel_sign_that_opens_a_run_follows_no_consonant():
    # the character before the first is none (an empty string): a sign that opens the run is a sign after a vowel
    assert R.round_trip_reason("\u093e", "x") == "sign_after_vowel"
    assert R.round_trip_reason("\u094d", "x", "Deva") == "sign_after_vowel"


def test_a_brahmic_variant_never_touches_uroman(tmp_path, monkeypatch):
    # only a uroman variant resets uroman's token cache (before and after romanizing); a Brahmic one never loads it
    def no_uroman():
        raise AssertionError("uroman loaded for a Brahmic variant")

    monkeypatch.setattr(R, "_uroman", no_uroman)
    res = R.romanize_variant(_hindi(tmp_path), tmp_path / "out")
    assert (res.tool, res.rows) == ("indic-transliteration", 3)
