"""A card's front matter: the Hub's size buckets at each bound, the YAML as written, and every refusal of
:func:`data_cards.frontmatter.check_card_metadata` and :func:`parse_front_matter` with its one-line error
(issue 27's fast pass over ``data_cards/frontmatter.py``: 106 of its 234 mutants survived the card tests)."""
from __future__ import annotations

import pytest

from data_cards.frontmatter import (_REQUIRED, SIZE_CATEGORIES, check_card_metadata, dump_front_matter,
                                    parse_front_matter, size_category)
from schemas.errors import SchemaError

GOOD = {"license": "mit", "language": ["hi"], "pretty_name": "X", "task_categories": ["text-classification"],
        "size_categories": ["n<1K"],
        "configs": [{"config_name": "a", "data_files": [{"split": "test", "path": "a/test.parquet"}]}]}
LICENSE = "expected a Hub license id string (e.g. 'cc-by-sa-4.0', 'other') or a list of them, found "
CONFIGS = "expected a list of {config_name: str, data_files: [{split: str, path: str}]}, found "


def test_each_size_bucket_holds_up_to_one_below_its_bound():
    bounds = [bound for bound, _ in SIZE_CATEGORIES]
    assert bounds == [10 ** k for k in range(3, 10)]  # the Hub's buckets, written out
    assert [size_category(n) for n in (0, 999, 1_000, 9_999, 10_000, 999_999_999, 1_000_000_000)] == [
        "n<1K", "n<1K", "1K<n<10K", "1K<n<10K", "10K<n<100K", "100M<n<1B", "n>1B"]


def test_the_front_matter_keeps_key_order_unicode_long_lines_and_block_style():
    long = "a description of many words " * 5  # 140 characters: one line, not folded at 80
    assert dump_front_matter({"b": 1, "a": ["é", long.strip()], "c": {"d": "---"}}) == (
        "---\nb: 1\na:\n- é\n- " + long.strip() + "\nc:\n  d: '---'\n---\n")


@pytest.mark.parametrize("text, meta, body", [
    ("---\na: 1\n---\nbody", {"a": 1}, "body"),
    (" --- \na: 1\n--- \nbody\nmore", {"a": 1}, "body\nmore"),  # spaces around a delimiter
    ("---\na: |\n  x\n  ---\n---\n", {"a": "x\n---"}, ""),  # an indented --- is the value's, not the end
])
def test_a_card_splits_into_its_metadata_and_its_body(text, meta, body):
    assert parse_front_matter(text, file="C.md") == (meta, body)


@pytest.mark.parametrize("text, error", [
    ("x\n---", "C.md, line 1: a card must start with a '---' line opening the YAML front matter"),
    ("", "C.md, line 1: a card must start with a '---' line opening the YAML front matter"),
    ("---\na: 1\n", "C.md: the YAML front matter is not closed by a '---' line"),
    ("---\n- a\n---\n", "C.md: front matter must be a mapping, found list"),
    ("---\n---\n", "C.md: front matter must be a mapping, found NoneType"),
    ("---\na: [\n---\n", "C.md, line 2: malformed YAML: expected the node content, but found '<stream end>'"),
])
def test_a_card_that_is_not_front_matter_and_a_body_is_one_error_naming_the_line(text, error):
    with pytest.raises(SchemaError) as err:
        parse_front_matter(text, file="C.md")
    assert str(err.value) == error


@pytest.mark.parametrize("key", list(_REQUIRED))
def test_each_required_field_missing_is_named_with_its_form(key):
    with pytest.raises(SchemaError) as err:
        check_card_metadata({k: v for k, v in GOOD.items() if k != key}, file="README.md")
    assert str(err.value) == f"README.md, field {key}: missing; expected {_REQUIRED[key]}"


@pytest.mark.parametrize("change, error", [
    ({"license": 3}, "field license: " + LICENSE + "3"),
    ({"license": ["mit", 3]}, "field license: " + LICENSE + "['mit', 3]"),
    ({"license": "other"}, "field license: license 'other' needs license_name and license_link"),
    ({"license": "other", "license_name": "x"}, "field license: license 'other' needs license_name and license_link"),
    ({"license": "other", "license_link": "y"}, "field license: license 'other' needs license_name and license_link"),
    ({"language": "hi"}, "field language: expected " + _REQUIRED["language"] + ", found 'hi'"),
    ({"language": ["hi", 1]}, "field language: expected " + _REQUIRED["language"] + ", found ['hi', 1]"),
    ({"task_categories": None}, "field task_categories: expected " + _REQUIRED["task_categories"] + ", found None"),
    ({"size_categories": "n<1K"}, "field size_categories: expected " + _REQUIRED["size_categories"]
     + ", found 'n<1K'"),
    ({"size_categories": ["n<1K", "huge"]}, "field size_categories: unknown size bucket 'huge'; allowed: 100K<n<1M, "
     "100M<n<1B, 10K<n<100K, 10M<n<100M, 1K<n<10K, 1M<n<10M, n<1K, n>1B"),
    ({"language_details": "hi-Deva"}, "field language_details: expected a list of BCP-47 tags (e.g. ['hi-Deva', "
     "'hi-Latn']), found 'hi-Deva'"),
    ({"language_details": ["hi-Deva", 2]}, "field language_details: expected a list of BCP-47 tags (e.g. "
     "['hi-Deva', 'hi-Latn']), found ['hi-Deva', 2]"),
    ({"configs": ["a"]}, "field configs[0]: " + CONFIGS + "'a'"),
    ({"configs": [{"config_name": 1, "data_files": []}]}, "field configs[0]: " + CONFIGS
     + "{'config_name': 1, 'data_files': []}"),
    ({"configs": [{"config_name": "a", "data_files": "x"}]}, "field configs[0]: " + CONFIGS
     + "{'config_name': 'a', 'data_files': 'x'}"),
    ({"configs": [{"config_name": "a", "data_files": ["x"]}]}, "field configs[0]: " + CONFIGS
     + "{'config_name': 'a', 'data_files': ['x']}"),
    ({"configs": [{"config_name": "a", "data_files": [{"split": "t"}]}]}, "field configs[0]: " + CONFIGS
     + "{'config_name': 'a', 'data_files': [{'split': 't'}]}"),
    ({"configs": [{"config_name": "a", "data_files": [{"path": "p"}]}]}, "field configs[0]: " + CONFIGS
     + "{'config_name': 'a', 'data_files': [{'path': 'p'}]}"),
    ({"configs": [{"config_name": "a", "data_files": []}, {"config_name": "b", "data_files": []},
                  {"config_name": "a", "data_files": []}]}, "field configs[2]: config_name 'a' appears twice"),
])
def test_each_malformed_field_is_one_error_naming_it_and_the_accepted_form(change, error):
    with pytest.raises(SchemaError) as err:
        check_card_metadata({**GOOD, **change}, file="README.md")
    assert str(err.value) == "README.md, " + error


def test_what_the_hub_accepts_passes_as_given():
    for change in ({}, {"license": ["mit", "apache-2.0"]}, {"license": "other", "license_name": "x",
                                                              "license_link": "LICENSE"},
                   {"language_details": ["hi-Deva"]}, {"language_details": None}, {"configs": None},
                   {"configs": [{"config_name": "a", "data_files": []}, {"config_name": "b", "data_files": []}]},
                   {"size_categories": ["n>1B"]}, {"language": []}):
        meta = {**GOOD, **change}
        assert check_card_metadata(meta) is meta
