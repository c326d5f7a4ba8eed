"""Variant codes (schemas.codes): every FLORES-200 code, every ISO 15924 script, typos and their suggestions."""
from __future__ import annotations

from pathlib import Path

import pycountry
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schemas.codes import (SPECIAL_LANGUAGES, SPECIAL_SCRIPTS, check_language_code, flores200_codes,
                           is_known_language, is_known_script, is_known_variant_code, is_variant_code, iso15924,
                           iso639_3, listed_codes, nearest_codes, validate_variant_code, variant_language,
                           variant_script)
from schemas.errors import SchemaError
from schemas.records import topic_item_from_dict
from schemas.variant import VariantInfo

SIB = Path(__file__).parents[1] / "data" / "sib200"
FLORES = flores200_codes()
#: Languages crossed with every script: a FLORES language, a macrolanguage, a language FLORES-200 keeps but
#: ISO 639-3 retired (ajp), a local-use code, an extinct and a constructed one.
LANGUAGES = ("eng", "hin", "nqo", "zho", "ajp", "qaa", "qtz", "got", "epo")
SCRIPTS = sorted(iso15924())


def _error(code: str, **where) -> str:
    with pytest.raises(SchemaError) as err:
        validate_variant_code(code, **where)
    text = str(err.value)
    assert "\n" not in text
    return text


# --- the list ------------------------------------------------------------------------------------------------


def test_the_list_holds_the_205_flores200_codes_and_belebele_additions():
    # called here, not only at import: a mutation run forks each mutant from a process that imported this module
    assert flores200_codes() == FLORES
    assert FLORES == tuple(c for c, origin in listed_codes().items() if origin.startswith("FLORES-200"))
    assert len(FLORES) == 205 and len(set(FLORES)) == 205
    assert "nqo_Nkoo" in FLORES and "arb_Latn" in FLORES and "sat_Olck" in FLORES and "ajp_Arab" in FLORES
    additions = {c for c, origin in listed_codes().items() if not origin.startswith("FLORES-200")}
    assert additions == {"ben_Latn", "hin_Latn", "npi_Latn", "sin_Latn", "urd_Latn"}
    assert all(is_variant_code(c) for c in listed_codes())


def test_every_shipped_sib200_variant_is_a_flores200_code():
    shipped = sorted(p.name for p in (SIB / "annotated").iterdir() if p.is_dir())
    assert len(shipped) == 24
    assert set(shipped) <= set(FLORES)


def test_tables_come_from_pycountry_without_special_codes():
    assert len(iso639_3()) > 7000 and "nqo" in iso639_3() and not SPECIAL_LANGUAGES & set(iso639_3())
    assert set(iso15924()) == {s.alpha_4 for s in pycountry.scripts} - SPECIAL_SCRIPTS


# --- accepted ------------------------------------------------------------------------------------------------


def test_every_flores200_code_is_accepted():
    """One test over the whole table (205 codes): the failures are listed together, by code."""
    refused = [code for code in FLORES
               if not (validate_variant_code(code) == code and check_language_code(code) == code
                       and is_known_language(code) and is_known_script(code))]
    assert len(FLORES) == 205 and refused == []


@pytest.mark.parametrize("code", sorted(c for c, o in listed_codes().items() if not o.startswith("FLORES-200")))
def test_every_listed_addition_is_accepted(code):
    assert validate_variant_code(code) == code


def test_every_iso15924_script_is_accepted_with_every_sampled_language():
    """Every script of the ISO 15924 table with every sampled language, one test: failures listed by code."""
    codes = [f"{lang}_{script}" for script in SCRIPTS for lang in LANGUAGES]
    refused = [code for code in codes if not (is_known_variant_code(code) and validate_variant_code(code) == code)]
    assert len(SCRIPTS) > 200 and refused == []


def test_romanized_variants_of_flores_languages_are_accepted():
    # builder romanize writes <lang>_Latn for every Brahmic FLORES variant, ajp included
    for code in FLORES:
        assert validate_variant_code(f"{variant_language(code)}_Latn")


# --- refused, with the nearest valid codes ------------------------------------------------------------------


@pytest.mark.parametrize("code, message", [
    ("nqo_Nkko", "unknown script code 'Nkko' in 'nqo_Nkko'; nearest valid codes: nqo_Nkoo"),
    ("xyz_Nkoo", "unknown language code 'xyz' in 'xyz_Nkoo'; nearest valid codes: nqo_Nkoo, "),
    ("xyz_Abcd", "unknown language code 'xyz' and script code 'Abcd' in 'xyz_Abcd'; no valid code is near it"),
    ("hin_Dvea", "unknown script code 'Dvea' in 'hin_Dvea'; nearest valid codes: hin_Deva, "),
    ("zho_Hnas", "nearest valid codes: zho_Hans, "),
    ("arb_Latm", "nearest valid codes: arb_Latn, arb_Arab, "),
    ("ary_Arba", "nearest valid codes: ary_Arab"),
    ("hin_deva", "expected a FLORES-200 code like 'eng_Latn' (ISO 639-3 + '_' + ISO 15924), found 'hin_deva'; "
                 "nearest valid codes: hin_Deva"),
    ("HIN-Deva", "found 'HIN-Deva'; nearest valid codes: hin_Deva"),
    ("tam", "found 'tam'; nearest valid codes: tam_Taml"),
    ("kas", "found 'kas'; nearest valid codes: kas_Arab, kas_Deva"),
    ("engLatn", "found 'engLatn'; nearest valid codes: eng_Latn, "),
    ("und_Latn", "language code 'und' in 'und_Latn' is an ISO 639-3 special code that names no language"),
    ("eng_Zyyy", "script code 'Zyyy' in 'eng_Zyyy' is an ISO 15924 special code that names no writing system; "
                 "nearest valid codes: eng_Latn"),
    ("eng_Qaaa", "script code 'Qaaa' in 'eng_Qaaa' is an ISO 15924 special code"),
    ("", "found ''; no valid code is near it"),
])
def test_refused_with_the_nearest_valid_codes(code, message):
    assert message in _error(code)


def test_the_error_names_where_the_code_was_read():
    assert _error("nqo_Nkko", file="x/variant.json", field="variant").startswith(
        "x/variant.json, field variant: unknown script code 'Nkko'")


def test_a_script_typo_of_every_flores_code_suggests_it_with_its_language_first():
    """Three script typos of each of the 205 FLORES codes; every miss is listed as (typo, suggestions)."""
    misses, tried = [], 0
    for code in FLORES:
        lang, script = code.split("_")
        typos = {script[0] + script[2] + script[1] + script[3], script[:3] + "q", script[:2] + script[3] + script[2]}
        for typo in sorted(typos):
            wrong = f"{lang}_{typo}"
            if is_known_variant_code(wrong):  # e.g. a swap that spells another real script
                continue
            tried += 1
            near = nearest_codes(wrong)
            if not (code in near and near[0].startswith(lang + "_")
                    and f"nearest valid codes: {near[0]}" in _error(wrong)):
                misses.append((wrong, near))
    assert tried > 400 and misses == []


@pytest.mark.parametrize("wrong, meant", [
    ("nqo_Nkko", "nqo_Nkoo"), ("nqx_Nkoo", "nqo_Nkoo"), ("ihn_Deva", "hin_Deva"), ("eng_Ltan", "eng_Latn"),
    ("yrx_Latn", "yor_Latn"), ("amh_Etih", "amh_Ethi"), ("zho_Hnat", "zho_Hant"), ("tzm_Tnfg", "tzm_Tfng"),
    ("swh_Ltn", "swh_Latn"), ("Hin_Deva", "hin_Deva"), ("npi-Deva", "npi_Deva"),
])
def test_typos_are_refused_and_the_meant_code_is_suggested(wrong, meant):
    assert not is_known_variant_code(wrong)
    assert meant in nearest_codes(wrong)
    assert meant in _error(wrong)


@pytest.mark.parametrize("lang", sorted(SPECIAL_LANGUAGES))
def test_special_languages_are_refused(lang):
    assert not is_known_language(lang)
    assert "ISO 639-3 special code" in _error(f"{lang}_Latn")


@pytest.mark.parametrize("script", sorted(SPECIAL_SCRIPTS))
def test_special_scripts_are_refused(script):
    assert not is_known_script(script)
    assert "ISO 15924 special code" in _error(f"eng_{script}")


def test_non_text_is_not_a_code():
    for value in (None, 3, ["eng_Latn"]):
        assert not is_known_variant_code(value) and not is_variant_code(value)
        assert not is_known_language(value) and not is_known_script(value)
        assert nearest_codes(value) == []


# --- where codes are read --------------------------------------------------------------------------------------


def test_records_refuse_an_unknown_language_code():
    row = {"index_id": "1", "category": "sports", "text": "x", "language": "nqo_Nkko", "split": "train",
           "license": "CC-BY-SA-4.0"}
    with pytest.raises(SchemaError, match="field language: unknown script code 'Nkko'.*nqo_Nkoo"):
        topic_item_from_dict(row)


def test_variant_json_refuses_an_unknown_code_naming_the_file(tmp_path):
    (tmp_path / "variant.json").write_text('{"variant": "xyz_Nkoo"}', encoding="utf-8")
    with pytest.raises(SchemaError, match=r"variant\.json, field variant: unknown language code 'xyz'"):
        VariantInfo.read(tmp_path)


# --- properties --------------------------------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(set(iso639_3()) | {c[:3] for c in FLORES})), st.sampled_from(SCRIPTS))
def test_round_trip_of_language_and_script(lang, script):
    code = f"{lang}_{script}"
    assert variant_language(code) == lang and variant_script(code) == script
    assert validate_variant_code(code) == code
    assert f"{variant_language(code)}_{variant_script(code)}" == code


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=12) | st.from_regex(r"\A[a-z]{3}_[A-Z][a-z]{3}\Z"))
def test_any_text_is_either_a_valid_code_or_refused_in_one_line(text):
    if variant_language(text) is None:
        assert variant_script(text) is None and not is_variant_code(text)
    else:
        assert f"{variant_language(text)}_{variant_script(text)}" == text
    if is_known_variant_code(text):
        assert validate_variant_code(text) == text
    else:
        message = _error(text)
        assert "nearest valid codes: " in message or "no valid code is near it" in message
        if "nearest valid codes: " in message:
            assert all(is_known_variant_code(c) for c in message.split("nearest valid codes: ")[1].split(", "))
