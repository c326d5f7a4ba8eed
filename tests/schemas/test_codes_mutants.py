"""``schemas/codes.py``'s suggestions for a language name (issue 27): when no code is near in its own case,
the suggestion comes from the case-folded codes."""
from __future__ import annotations

from schemas.codes import nearest_codes


def test_a_language_name_in_any_case_suggests_its_code():
    assert nearest_codes("Hindi") == ["hin_Deva"] == nearest_codes("HINDI")
    assert nearest_codes("Hin") == ["hin_Deva", "hin_Latn"]
