"""The one YAML loader (schemas.io.load_yaml) and the one validator (schemas.validate.Checker).

The loader must read what PyYAML's safe loader reads, refuse a key repeated in
any mapping with the line and key path, and word a malformed file as PyYAML's
own parser does on every installation. The validator words every violation
one way: ``unknown key ...; allowed: ...``, ``required key is missing``,
``expected ..., found ...``, each naming the file and the key path.
"""
from __future__ import annotations

import re

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from schemas.errors import ExitStatus, RecipeError, SchemaError, SourceError
from schemas.io import DuplicateKeyError, load_yaml, read_yaml
from schemas.validate import Checker, key_path, unknown_key

# --- the loader -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("text, line, field, message", [
    ("seed: 1\nseed: 2\n", 2, "seed", "duplicate key 'seed' (first at line 1)"),
    ("name: a\nouter:\n  x: 1\n  y: 2\n  x: 3\n", 5, "outer.x", "duplicate key 'x' (first at line 3)"),
    ("variants:\n  - romanize: {from: hin_Deva, scheme: iso, scheme: hk}\n", 2, "variants[0].romanize.scheme",
     "duplicate key 'scheme' (first at line 2)"),
    ("a: [{b: 1}, {c: {d: 1, d: 2}}]\n", 1, "a[1].c.d", "duplicate key 'd' (first at line 1)"),
    ("1: a\n1: b\n", 2, "1", "duplicate key 1 (first at line 1)"),
    ("yes: a\ntrue: b\n", 2, "True", "duplicate key True (first at line 1)"),  # both load as True
])
def test_a_duplicate_key_names_the_line_and_the_key_path(text, line, field, message):
    with pytest.raises(DuplicateKeyError) as info:
        load_yaml(text, file="r.yaml")
    err = info.value
    assert (err.file, err.record, err.field, err.message) == ("r.yaml", f"line {line}", field, message)
    assert str(err) == f"r.yaml, line {line}, field {field}: {message}"
    assert err.exit_code == ExitStatus.USAGE == 2 and isinstance(err, RecipeError)


def test_the_first_duplicate_in_document_order_is_named():
    text = "a:\n  x: 1\n  x: 2\nb: 1\nb: 2\n"
    with pytest.raises(DuplicateKeyError) as info:
        load_yaml(text)
    assert (info.value.record, info.value.field) == ("line 3", "a.x")


@pytest.mark.parametrize("text, expected", [
    ("1: a\n'1': b\n", {1: "a", "1": "b"}),  # an int and a string are different keys
    ("base: &b {x: 1, y: 2}\nother:\n  <<: *b\n  x: 3\n", {"base": {"x": 1, "y": 2}, "other": {"x": 3, "y": 2}}),
    ("a: &a {k: 1}\nb: *a\nc: *a\n", {"a": {"k": 1}, "b": {"k": 1}, "c": {"k": 1}}),  # an alias is no repeat
    ("", None),
    ("# only a comment\n", None),
    ("- a\n- a\n", ["a", "a"]),  # a list may repeat values
])
def test_what_is_not_a_duplicate_loads_as_pyyaml_loads_it(text, expected):
    assert load_yaml(text) == expected == yaml.safe_load(text)


def test_first_line_gives_the_lines_of_the_enclosing_file():
    with pytest.raises(DuplicateKeyError) as info:
        load_yaml("a: 1\na: 2\n", file="README.md", first_line=2)
    assert str(info.value) == "README.md, line 3, field a: duplicate key 'a' (first at line 2)"
    with pytest.raises(RecipeError) as info:
        load_yaml("a: 1\nb: [1\n", file="README.md", first_line=2)
    assert info.value.record == "line 4" and info.value.message.startswith("malformed YAML: ")


@pytest.mark.parametrize("text", ["a: [1, 2", "name: demo\nsources: [\n  - x\n", "a: b: c\n", "a: 1\n--- \nb: 2\n",
                                  "name: a\x07b\n", "a: *missing\n", "? [a]\n: 1\n"])
def test_malformed_yaml_is_worded_as_pyyaml_words_it(text):
    try:
        yaml.load(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        problem = (getattr(err, "problem", None) or str(err)).replace("\n", " ")
        expected = (f"line {mark.line + 1}" if mark else None, f"malformed YAML: {problem}")
    else:
        raise AssertionError(f"{text!r} is valid YAML")
    with pytest.raises(RecipeError) as info:
        load_yaml(text, file="r.yaml")
    assert type(info.value) is RecipeError and info.value.exit_code == 1
    assert (info.value.record, info.value.message) == expected and "\n" not in str(info.value)


def test_read_yaml_reads_the_file_as_utf8_and_names_it(tmp_path):
    path = tmp_path / "r.yaml"
    path.write_bytes("name: caf\xe9\n".encode("utf-8"))
    assert read_yaml(path) == {"name": "caf\xe9"}
    path.write_bytes(b"name: a\nseed: caf\xe9\n")
    with pytest.raises(SourceError) as info:  # a bad byte: the text reader's own error, line and reason
        read_yaml(path)
    assert str(info.value).startswith(f"{path}, line 2") and "not valid UTF-8" in str(info.value)


def test_a_card_front_matter_duplicate_is_a_schema_error_with_the_same_message():
    from data_cards.frontmatter import parse_front_matter

    with pytest.raises(SchemaError) as info:
        parse_front_matter("---\nlicense: mit\nlicense: other\n---\n# Card\n", file="README.md")
    assert str(info.value) == "README.md, line 3, field license: duplicate key 'license' (first at line 2)"


_keys = st.text(alphabet="abcdefghij_", min_size=1, max_size=6)
_scalars = st.one_of(st.integers(-5, 5), st.booleans(), st.text(alphabet="xyz ", max_size=4))
_docs = st.recursive(_scalars, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                       st.dictionaries(_keys, inner, max_size=3)), max_leaves=12)


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(_keys, _docs, min_size=1, max_size=4), st.sampled_from([True, False]))
def test_any_mapping_round_trips_and_a_repeated_top_level_key_is_refused(doc, flow):
    text = yaml.safe_dump(doc, default_flow_style=flow, sort_keys=False)
    assert load_yaml(text) == doc
    block = yaml.safe_dump(doc, default_flow_style=False, sort_keys=False).rstrip("\n").split("\n")
    first_key = next(iter(doc))
    repeated = "\n".join(block + [yaml.safe_dump({first_key: 0}).strip(), ""])
    with pytest.raises(DuplicateKeyError) as info:
        load_yaml(repeated)
    assert info.value.field == first_key and info.value.record == f"line {len(block) + 1}"
    assert info.value.message == f"duplicate key {first_key!r} (first at line 1)"


# --- the validator --------------------------------------------------------------------------------------

PHRASING = re.compile(r"^(unknown key .+; allowed: .+|required key is missing( \(.+\))?|expected .+, found .+)$")


@pytest.mark.parametrize("call, field, message", [
    (lambda c: c.keys("", {"nmae": 1}, {"name": True}), "nmae",
     "unknown key 'nmae' (did you mean 'name'?); allowed: name"),
    (lambda c: c.keys("outputs", {"zip": 1}, {"formats": False}), "outputs.zip", "unknown key 'zip'; allowed: formats"),
    (lambda c: c.keys("a", {}, {"b": True}, missing="give b"), "a.b", "required key is missing (give b)"),
    (lambda c: c.keys("", [1], {"b": True}), "(top level)", "expected a mapping, found list"),
    (lambda c: c.mapping("m", [1]), "m", "expected a mapping, found list [1]"),
    (lambda c: c.text("t", " "), "t", "expected non-empty text, found ' '"),
    (lambda c: c.flag("f", "yes"), "f", "expected true or false, found 'yes'"),
    (lambda c: c.integer("i", True, 0), "i", "expected an integer >= 0, found True"),
    (lambda c: c.integer("i", 1.5), "i", "expected an integer, found 1.5"),
    (lambda c: c.number("n", 2, 0, 1), "n", "expected a number between 0 and 1, found 2"),
    (lambda c: c.number("n", 0, 0, 1, exclusive=True), "n", "expected a number between 0 and 1 (exclusive), found 0"),
    (lambda c: c.number("n", 0, 0, exclusive=True), "n", "expected a number > 0, found 0"),
    (lambda c: c.number("n", -1, 0), "n", "expected a number >= 0, found -1"),
    (lambda c: c.number("n", 3, high=2), "n", "expected a number <= 2, found 3"),
    (lambda c: c.number("n", "x"), "n", "expected a number, found 'x'"),
    (lambda c: c.choice("c", "fdr", ("holm", "bonferroni")), "c", "expected one of holm, bonferroni, found 'fdr'"),
    (lambda c: c.names("l", []), "l", "expected a name or a non-empty list of names, found []"),
])
def test_every_violation_names_the_file_and_key_in_one_phrasing(call, field, message):
    with pytest.raises(SchemaError) as info:
        call(Checker("cfg.yaml", error=SchemaError))
    assert (info.value.file, info.value.field, info.value.message) == ("cfg.yaml", field, message)
    assert PHRASING.match(message)


@settings(max_examples=100, deadline=None)
@given(st.lists(_keys, min_size=1, max_size=6, unique=True), _keys, st.text(alphabet="abc.[]0", max_size=8))
def test_an_unknown_key_is_named_with_its_path_and_every_allowed_key(allowed, key, where):
    spec = dict.fromkeys(allowed, False)
    if key in spec:
        assert Checker().keys(where, {key: 1}, spec) == {key: 1}
        return
    with pytest.raises(RecipeError) as info:
        Checker("r.yaml").keys(where, {key: 1}, spec)
    message = info.value.message
    assert info.value.field == key_path(where, key) and message == unknown_key(key, allowed)
    assert message.startswith(f"unknown key {key!r}") and message.endswith(f"; allowed: {', '.join(allowed)}")
    hint = re.search(r"\(did you mean '([^']*)'\?\)", message)
    assert hint is None or hint.group(1) in allowed
    assert PHRASING.match(message)


@settings(max_examples=100, deadline=None)
@given(st.one_of(st.integers(-3, 3), st.floats(-2, 2, allow_nan=False), st.booleans(), st.text(max_size=2)),
       st.sampled_from([(0, 1, False), (0, 1, True), (0, None, False), (0, None, True), (None, 1, False)]))
def test_number_accepts_exactly_the_numbers_in_range(value, bounds):
    low, high, exclusive = bounds
    inside = isinstance(value, (int, float)) and not isinstance(value, bool) and (
        low is None or (value > low if exclusive else value >= low)) and (
        high is None or (value < high if exclusive else value <= high))
    if inside:
        assert Checker().number("k", value, low, high, exclusive=exclusive) == value
    else:
        with pytest.raises(RecipeError) as info:
            Checker().number("k", value, low, high, exclusive=exclusive)
        assert info.value.message.endswith(f", found {value!r}") and PHRASING.match(info.value.message)
