"""The translation checks (issue 28): untranslated units, numbers, and failures inherited from a source variant.

Real rows: the 24 shipped SIB-200 variants (``tests/data/sib200/annotated``,
pivot ``eng_Latn``); what the checks find there is written in docs/qc.md
("Translation checks") and pinned here.
"""
from __future__ import annotations

import csv
import shutil
import sys
import unicodedata
from pathlib import Path

import pandas as pd
import pytest

from qc.config import load_config
from qc.gate import compare_with_sources, run_gate, source_variants
from qc.numbers_check import run as run_numbers
from qc.result import CheckResult, VariantData
from qc.translation import pivot_pairs
from qc.untranslated import run as run_untranslated
from schemas.dataset import load_dataset_dir
from schemas.textstats import digit_value, ethiopic_value, letter_digit_share, numbers
from schemas.variant import VariantInfo

SIB = Path(__file__).resolve().parents[1] / "data" / "sib200" / "annotated"
SPLITS = ("train", "dev", "test")
CONFIG = load_config()
UNTRANSLATED = CONFIG["checks"]["untranslated"]
NUMBERS = CONFIG["checks"]["numbers"]

#: The zero of every decimal-digit block issue 28 names, and the other Brahmic and South-East Asian ones.
ZEROS = {"ASCII": 0x30, "Arabic-Indic": 0x660, "Extended Arabic-Indic": 0x6F0, "N'Ko": 0x7C0,
         "Devanagari": 0x966, "Bengali": 0x9E6, "Gurmukhi": 0xA66, "Gujarati": 0xAE6, "Oriya": 0xB66,
         "Tamil": 0xBE6, "Telugu": 0xC66, "Kannada": 0xCE6, "Malayalam": 0xD66, "Sinhala Lith": 0xDE6,
         "Thai": 0xE50, "Lao": 0xED0, "Tibetan": 0xF20, "Myanmar": 0x1040, "Khmer": 0x17E0, "Mongolian": 0x1810,
         "Fullwidth": 0xFF10}


def _read(variant: str) -> dict[str, pd.DataFrame]:
    out = {}
    for split in SPLITS:
        with open(SIB / variant / f"{split}.tsv", encoding="utf-8", newline="") as f:
            out[split] = pd.DataFrame(list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE)))
    return out


@pytest.fixture(scope="module")
def sib():
    return {p.name: _read(p.name) for p in sorted(SIB.iterdir()) if p.is_dir()}


def _data(sib, variant, tables=None) -> VariantData:
    return VariantData(variant, "topic", tables or sib[variant], pivot=sib["eng_Latn"])


def _text(tables, item) -> str:
    for frame in tables.values():
        hit = frame.loc[frame["index_id"] == item, "text"]
        if len(hit):
            return hit.iloc[0]
    raise KeyError(item)


def _with(tables, item, text) -> dict[str, pd.DataFrame]:
    out = {s: f.copy() for s, f in tables.items()}
    for frame in out.values():
        frame.loc[frame["index_id"] == item, "text"] = text
    return out


# --- digits of every script ---------------------------------------------------------------------------------


def test_every_unicode_decimal_digit_reads_as_its_value():
    nd = [chr(cp) for cp in range(sys.maxunicode + 1) if unicodedata.category(chr(cp)) == "Nd"]
    assert len(nd) >= 660  # Unicode 14 (Python 3.11) has 660
    for c in nd:
        assert digit_value(c) == unicodedata.decimal(c), hex(ord(c))
        assert numbers(f"x {c} y") == [str(unicodedata.decimal(c))], hex(ord(c))


def test_every_decimal_digit_block_reads_a_whole_number():
    """Nd digits come in runs 0-9; each run, as a number and as a year, reads as ASCII."""
    zeros = [cp for cp in range(sys.maxunicode + 1)
             if unicodedata.category(chr(cp)) == "Nd" and unicodedata.decimal(chr(cp)) == 0]
    assert set(ZEROS.values()) <= set(zeros)
    for z in zeros:
        block = "".join(chr(z + k) for k in range(10))
        assert [unicodedata.decimal(c) for c in block] == list(range(10)), hex(z)
        assert numbers(block) == ["123456789"], hex(z)
        year = "".join(chr(z + int(d)) for d in "1994")
        assert numbers(f"In {year}, {chr(z + 1)},{chr(z + 5)}{chr(z)}{chr(z)} people.") == ["1994", "1500"], hex(z)


@pytest.mark.parametrize("name", sorted(ZEROS))
def test_the_named_scripts_digits_are_each_read(name):
    z = ZEROS[name]
    assert all(unicodedata.category(chr(z + k)) == "Nd" for k in range(10))
    assert [numbers(chr(z + k)) for k in range(10)] == [[str(k)] for k in range(10)]


def test_ethiopic_numerals_every_one_and_compounds():
    for cp in range(0x1369, 0x137D):  # the 20 numerals (category No: not decimal digits)
        c = chr(cp)
        assert unicodedata.category(c) == "No" and digit_value(c) is None
        assert numbers(c) == [str(int(unicodedata.numeric(c)))], hex(cp)
    assert ethiopic_value("፲፱፻፺፬") == 1994  # 19 x 100 + 94
    assert numbers("በ፲፱፻፺፬ ዓ.ም. ፪ ሰዎች") == ["1994", "2"]
    assert numbers("፼") == ["10000"] and numbers("፫፻፴፫፼") == ["3330000"]


def test_digits_that_are_not_decimal_are_not_numbers():
    """Superscripts, circled digits, Tibetan half digits, fractions: a digit value but no place value."""
    others = [chr(cp) for cp in range(sys.maxunicode + 1)
              if unicodedata.category(chr(cp)) != "Nd" and unicodedata.digit(chr(cp), None) is not None
              and not 0x1369 <= cp <= 0x137C]
    assert "²" in others and "①" in others
    assert all(numbers(c) == [] for c in others)
    assert numbers("3136 mm² and ༣") == ["3136", "3"]  # TIBETAN DIGIT THREE is Nd; HALF THREE (U+0F2C) is not
    assert numbers("\u0f2c") == []


def test_group_and_decimal_marks():
    assert numbers("1,000 1.000 1 000 1\u00a0000 1\u202f000 1,00,000 ١٬٠٠٠") == ["1000"] * 5 + ["100000", "1000"]
    assert numbers("3.7 3,7 3٫7 3۔7 10.00 10:00") == ["37"] * 4 + ["1000", "10", "0"]
    assert numbers("5 2021, 1994 200, in 1994, 200") == ["5", "2021", "1994", "200", "1994", "200"]
    assert numbers("19 500 km") == ["19500"] and numbers("007") == ["7"]


def test_arabizi_digits_are_letters_only_when_asked():
    text = "Ma3a taraju3 alma3rifa 3an 35 sana"
    assert numbers(text) == ["3", "3", "3", "3", "35"]
    assert numbers(text, letter_digits=True) == ["35"]
    assert letter_digit_share([text]) == 0.8


# --- real rows: numbers ---------------------------------------------------------------------------------


def test_real_rows_in_other_scripts_match_the_english_numbers(sib):
    """Urdu's 3۔7 is 3.7, Kashmiri's 19،500 is 19,500, Amharic's 'September 5 2021' two numbers."""
    eng = sib["eng_Latn"]
    cases = [("urd_Arab", "1939", ["37"]), ("kas_Arab", "1720", ["19500", "14"]),
             ("kas_Arab", "1813", ["2500", "130000", "7000"]), ("amh_Ethi", "1809", ["24", "5", "2021"])]
    for variant, item, expected in cases:
        assert numbers(_text(sib[variant], item)) == expected, (variant, item)
        assert sorted(numbers(_text(eng, item))) == sorted(expected), item


@pytest.mark.parametrize("variant", ["mar_Deva", "ben_Beng", "nqo_Nkoo", "kas_Arab", "arb_Arab"])
def test_native_digits_agree_with_the_pivot(sib, variant):
    """Variants that write their own digits: most units with digits on both sides have the pivot's numbers."""
    pairs = pivot_pairs(_data(sib, variant))["texts"]
    native = [(t, p) for t, p in zip(pairs["text"], pairs["pivot_text"])
              if any(digit_value(c) is not None and not c.isascii() for c in t) and numbers(p)]
    assert len(native) >= 5
    same = sum(sorted(numbers(t)) == sorted(numbers(p)) for t, p in native)
    assert same / len(native) >= 0.7, (variant, same, len(native))


def test_numbers_lists_the_misaligned_and_changed_numbers(sib):
    npi = run_numbers(_data(sib, "npi_Deva"), NUMBERS)[0]
    assert (npi.passed, npi.gate, npi.reason) == (False, True, "numbers_differ")  # gate: the gate's config says
    assert npi.extra["differ"] == 10 and npi.extra["conflicts"] == 7
    found = {e["id"]: (e["variant"], e["pivot"]) for e in npi.extra["examples"]}
    assert found["texts:train/1098"] == (["10", "15"], ["6000", "330000"])  # the translation of 1097 again
    assert found["texts:train/1099"] == (["6000", "330000"], ["491", "1000", "17500"])  # 1098's translation
    assert "texts:train/1098: [10, 15] vs [6000, 330000]" in npi.detail
    fra = run_numbers(_data(sib, "fra_Latn"), NUMBERS)[0]
    assert {"id": "texts:train/195", "variant": ["2019"], "pivot": ["2009"], "conflict": True} in fra.extra["examples"]
    hau = run_numbers(_data(sib, "hau_Latn"), NUMBERS)[0]
    assert hau.extra["differ"] == 3 and hau.extra["conflicts"] == 0  # 547 a 9 more, 63 ten in words, 1319 a 100
    assert numbers(_text(sib["hau_Latn"], "1272"))[:2] == numbers(_text(sib["eng_Latn"], "1272"))[:2] == ["4", "4130"]


def test_arabizi_variant_reads_its_letter_digits_as_letters(sib):
    r = run_numbers(_data(sib, "arb_Latn"), NUMBERS)[0]
    assert r.extra["digits_as_letters"] and r.extra["letter_digit_share"] > 0.9
    assert "read as letters (Arabizi)" in r.detail
    assert r.extra["differ"] < 100  # 999 of 1000 units differed when 3 and 7 were numbers
    fra = run_numbers(_data(sib, "fra_Latn"), NUMBERS)[0]
    assert not fra.extra["digits_as_letters"]


def test_numbers_is_a_warning_by_default():
    assert NUMBERS["gate"] is False and UNTRANSLATED["gate"] is True


# --- real rows: untranslated ---------------------------------------------------------------------------------


def test_no_shipped_translation_is_untranslated(sib):
    """23 real translations, five in Latin script: none near the English (highest 0.53, yor_Latn 1094)."""
    highest = {}
    for variant in sib:
        if variant == "eng_Latn":
            continue
        gated, partial = run_untranslated(_data(sib, variant), UNTRANSLATED)
        assert gated.passed and gated.value == 0, (variant, gated.detail)
        assert gated.extra["units"] == 1004
        highest[variant] = gated.extra["max_jaccard"]
        assert partial.gate is False
        assert partial.passed == (variant != "yor_Latn"), (variant, partial.detail)
    assert max(highest.values()) == pytest.approx(0.525, abs=0.001)
    assert max(v for k, v in highest.items() if k in ("fra_Latn", "deu_Latn", "swh_Latn", "hau_Latn")) < 0.4


def test_yoruba_loans_are_a_warning_not_a_failure(sib):
    gated, partial = run_untranslated(_data(sib, "yor_Latn"), UNTRANSLATED)
    assert gated.passed and not partial.passed and not partial.blocks
    assert [e["id"] for e in partial.extra["examples"]] == ["texts:dev/1094"]  # English disease name kept


def test_a_planted_untranslated_line_is_caught(sib):
    fra, eng = sib["fra_Latn"], sib["eng_Latn"]
    tables = _with(fra, "1232", _text(eng, "1232"))  # the English sentence as it is
    tables = _with(tables, "282", _text(eng, "282").replace(" also ", " aussi "))  # one word translated: 0.90
    half = _text(eng, "1098").replace("However, the percentage of", "Cependant, le pourcentage de")  # 0.79
    tables = _with(tables, "1098", half)
    gated, partial = run_untranslated(_data(sib, "fra_Latn", tables), UNTRANSLATED)
    assert (gated.passed, gated.reason, gated.value, gated.extra["identical"]) == (False, "untranslated", 2, 1)
    assert [e["id"] for e in gated.extra["examples"]] == ["texts:train/1232", "texts:train/282"]
    assert "texts:train/1232 (1.00)" in gated.detail
    assert not partial.passed and [e["id"] for e in partial.extra["examples"]] == ["texts:train/1098"]
    # the real French of 282 shares Paris, Sofia, Vilnius, Valletta, Tallinn, Edinburgh and Glasgow: not flagged
    assert run_untranslated(_data(sib, "fra_Latn"), UNTRANSLATED)[0].passed


def test_a_short_pivot_unit_is_not_judged():
    piv = {"test": pd.DataFrame({"index_id": ["1", "2"], "text": ["Paris", "The cat sat on the mat all day."]})}
    mine = {"test": pd.DataFrame({"index_id": ["1", "2"], "text": ["Paris", "Le chat est resté sur le tapis."]})}
    gated, _ = run_untranslated(VariantData("fra_Latn", "topic", mine, pivot=piv), UNTRANSLATED)
    assert gated.passed and gated.extra["units"] == 1


def test_mc_units_are_passages_and_items():
    piv = {"test": pd.DataFrame({"passage_id": ["p"], "question_id": ["1"], "passage": ["A long passage about cats."],
                                 "question": ["What do the cats do all day?"], "answer1": ["Sleep"],
                                 "answer2": ["Run"], "answer3": ["Eat"], "answer4": ["Swim"]})}
    mine = {"test": piv["test"].assign(passage="Un long passage sur les chats.")}
    gated, _ = run_untranslated(VariantData("fra_Latn", "mc", mine, pivot=piv), UNTRANSLATED)
    assert gated.value == 1 and [e["id"] for e in gated.extra["examples"]] == ["questions:test/p/1"]


def test_the_pivot_and_a_run_without_pivot_are_skipped(sib):
    assert run_untranslated(VariantData("eng_Latn", "topic", sib["eng_Latn"], pivot=sib["eng_Latn"]),
                            UNTRANSLATED)[0].skipped
    r = run_numbers(VariantData("fra_Latn", "topic", sib["fra_Latn"], pivot=None), NUMBERS)[0]
    assert r.skipped and "not in the dataset" in r.detail


# --- inherited failures -----------------------------------------------------------------------------------


def test_source_variants_come_from_variant_json():
    infos = {"hin_Latn": VariantInfo(source_variant="hin_Deva", method="romanization"),
             "fra_Latn": VariantInfo(source_variant="eng_Latn", method="projection"),
             "zul_Latn": VariantInfo(source_variant="zul_Latn"), "xho_Latn": VariantInfo(source_variant="not_here")}
    assert source_variants(infos, ["eng_Latn", "fra_Latn", "hin_Deva", "hin_Latn", "zul_Latn", "xho_Latn"]) == {
        "hin_Latn": "hin_Deva", "fra_Latn": "eng_Latn"}


def test_compare_with_sources_words():
    src = [CheckResult("hin_Deva", "a", False), CheckResult("hin_Deva", "b", True),
           CheckResult("hin_Deva", "c", True, skipped=True)]
    mine = [CheckResult("hin_Latn", "a", False, detail="x"), CheckResult("hin_Latn", "b", False, detail="y"),
            CheckResult("hin_Latn", "c", False), CheckResult("hin_Latn", "d", True)]
    rows = compare_with_sources(src + mine, {"hin_Latn": "hin_Deva"})
    assert rows == [{"variant": "hin_Latn", "source_variant": "hin_Deva", "inherited": ["a"], "introduced": ["b"]}]
    assert [r.extra["vs_source"] for r in mine] == ["inherited", "introduced", None, None]
    assert mine[0].detail == "inherited from hin_Deva (it fails a too); x"
    assert mine[1].detail == "introduced here (hin_Deva passes b); y"
    assert all(r.extra == {} for r in src)
    assert {r.extra["source_variant"] for r in mine} == {"hin_Deva"}  # skipped or compared, each names its source
    # two derived variants: one row each
    other = [CheckResult("urd_Latn", "a", True)]
    rows = compare_with_sources([CheckResult("urd_Arab", "a", False)] + src + other + mine,
                                {"hin_Latn": "hin_Deva", "urd_Latn": "urd_Arab"})
    assert [(r["variant"], r["source_variant"]) for r in rows] == [("urd_Latn", "urd_Arab"), ("hin_Latn", "hin_Deva")]


def test_a_romanized_variant_inherits_its_sources_untranslated_line(tmp_path):
    """hin_Latn (variant.json: source_variant hin_Deva) keeps the English line of hin_Deva: inherited."""
    root = tmp_path / "sib"
    for variant in ("eng_Latn", "hin_Deva", "hin_Latn"):
        src = SIB / ("hin_Deva" if variant == "hin_Latn" else variant)
        shutil.copytree(src, root / variant)
    eng_dev = (root / "eng_Latn" / "dev.tsv").read_text(encoding="utf-8").splitlines()
    item, _, english = eng_dev[1].split("\t")
    for variant in ("hin_Deva", "hin_Latn"):
        path = root / variant / "dev.tsv"
        lines = path.read_text(encoding="utf-8").splitlines()
        lines = [ln if ln.split("\t")[0] != item else "\t".join(ln.split("\t")[:2] + [english]) for ln in lines]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    VariantInfo.from_dict({"variant": "hin_Latn", "source_variant": "hin_Deva", "method": "romanization"}).write(
        root / "hin_Latn")
    report = run_gate(load_dataset_dir(root), load_config(), jobs=1)
    of = {(r.variant, r.check): r for r in report.results}
    deva, latn = of[("hin_Deva", "untranslated")], of[("hin_Latn", "untranslated")]
    assert not deva.passed and not latn.passed and deva.extra["examples"][0]["id"] == f"texts:dev/{item}"
    assert latn.extra["vs_source"] == "inherited" and latn.detail.startswith("inherited from hin_Deva")
    assert "vs_source" not in deva.extra
    # the Devanagari letters are hin_Latn's own failure (hin_Deva is in its script)
    script = of[("hin_Latn", "script_consistency")]
    assert script.extra["vs_source"] == "introduced" and of[("hin_Deva", "script_consistency")].passed
    row = next(r for r in report.source_comparison if r["variant"] == "hin_Latn")
    assert row["source_variant"] == "hin_Deva"
    assert "untranslated" in row["inherited"] and "script_consistency" in row["introduced"]
    assert report.to_dict()["source_comparison"] == report.source_comparison
