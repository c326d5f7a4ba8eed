"""The count tables of a data card, checked cell by cell (survivors of issue 27's mutation run).

``data_cards.sections`` turns a manifest's read, kept and dropped counts into the Markdown tables that
people read in the card. The section tests check that the tables are there; these check what each cell
holds: the path of a nested count, the "all" row, a bare count, a record without one of the columns, and
the header a section asks for.
"""
from __future__ import annotations

from data_cards.card import license_slug
from data_cards.sections import _counts_block, _flatten, _records_table


def test_only_numbers_are_counts_and_a_bool_is_not_one():
    assert list(_flatten({"note": "text", "n": 1, "flag": True, "by": {"split": 2.5}})) == [
        (("n",), 1), (("by", "split"), 2.5)]


def test_a_nested_count_names_its_whole_path_and_a_top_level_one_is_all():
    table = _counts_block({"race": {"train": {"too long": 3}}, "too short": 1234}, ("where", "reason", "records"))
    assert table.splitlines() == [
        "| where | reason | records |",
        "| --- | --- | --- |",
        "| race / train | too long | 3 |",
        "| all | too short | 1,234 |",
    ]


def test_a_bare_count_is_one_row_for_all_under_the_sections_own_header():
    assert _counts_block(5, ("source", "why", "rows")).splitlines() == [
        "| source | why | rows |", "| --- | --- | --- |", "| all |  | 5 |"]
    assert _counts_block({}, ("source", "why", "rows")) is None


def test_records_put_known_columns_first_format_numbers_and_leave_a_missing_cell_empty():
    table = _records_table([{"language": "hin", "variant": "hin_Deva", "kept": 1234},
                            {"variant": "x|y", "kept": None, "dropped": 0.5}])
    assert table.splitlines() == [
        "| variant | language | kept | dropped |",
        "| --- | --- | ---: | ---: |",
        "| hin_Deva | hin | 1,234 |  |",
        "| x\\|y |  |  | 0.500 |",
    ]


def test_a_license_slug_has_no_dash_at_either_end_and_falls_back_to_other():
    assert license_slug("(CC-BY 4.0)") == "cc-by-4.0"
    assert license_slug("§ §") == "other"
