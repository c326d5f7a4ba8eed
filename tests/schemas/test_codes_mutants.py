"""``schemas/codes.py``'s suggestions for a language name (issue 27): when no code is near in its own case,
the suggestion comes from the case-folded codes."""
from __future__ import annotations

import pytest

from schemas.codes import check_language_code, nearest_codes
from schemas.errors import SchemaError


def test_a_language_name_in_any_case_suggests_its_code():
    assert nearest_codes("Hindi") == ["hin_Deva"] == nearest_codes("HINDI")
    assert nearest_codes("Hin") == ["hin_Deva", "hin_Latn"]


def test_suggestions_are_the_n_nearest_in_order():
    """The whole list, not only its first entry: how many close matches each step asks difflib for (the
    caller's ``n``, not difflib's default of 3), the case-folded step for a code in capitals, and the ISO
    15924 look-alikes of a script written backwards. Found by the whole mutation run of issue 27, where
    each of these changed the list past its first entry."""
    assert nearest_codes("ac_Arab") == ["apc_Arab", "acq_Arab", "acm_Arab", "ace_Arab", "knc_Arab"]
    assert nearest_codes("ace_latna") == ["ace_Latn", "kac_Latn", "ces_Latn", "ceb_Latn"]
    assert nearest_codes("ACE_ARABS") == ["ace_Arab", "apc_Arab", "aeb_Arab", "acq_Arab", "acm_Arab"]
    assert nearest_codes("ckb_barA") == ["ckb_Arab", "ckb_Wara", "ckb_Sara", "ckb_Gara", "ckb_Brai"]


def test_an_unknown_language_in_a_known_script_keeps_the_script():
    # ISO 639-3 look-alikes of "zzz" combined with Armenian itself, not with scripts that look like "Armn"
    assert nearest_codes("zzz_Armn", 3) == ["hye_Armn", "zzj_Armn", "zza_Armn"]


def test_a_refused_code_names_the_file_record_and_field_it_came_from():
    with pytest.raises(SchemaError) as err:
        check_language_code("nqo_Nkko", file="train.tsv", record="line 3")
    assert (err.value.file, err.value.record, err.value.field) == ("train.tsv", "line 3", "language")
    assert str(err.value).startswith("train.tsv, line 3, field language: ")
