"""The dataset contract has one owner: variant.json, the license override, split order, Arrow types.

A malformed ``variant.json`` stops every stage that reads it with the same
one line naming the file; the override has one set of rules wherever it is
read; both writers (assemble, export) take their Arrow types from
:mod:`schemas.features`.
"""
import json
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from hypothesis import given, strategies as st

from builder.cli.main import cli
from schemas import SchemaError
from schemas.dataset import load_dataset_dir
from schemas.splits import SPLIT_ORDER, order_splits
from schemas.errors import LicenseError, RecipeError
from schemas.features import arrow_schema, class_label_names
from schemas.licensing import LicenseOverride
from schemas.records import MC_COLUMNS, TOPIC_COLUMNS
from schemas.variant import VARIANT_JSON, VariantInfo

DATA = Path(__file__).parents[1] / "data"
SIB_SMALL = DATA / "export" / "sib_small"


# --- variant.json ---------------------------------------------------------------------------------------------

def test_read_then_write_is_byte_identical(tmp_path):
    for folder in ("hin_Deva", "hin_Latn"):
        src = SIB_SMALL / folder / VARIANT_JSON
        info = VariantInfo.read(src.parent)
        info.write(tmp_path / folder)
        assert (tmp_path / folder / VARIANT_JSON).read_bytes() == src.read_bytes()


def test_fields_and_details():
    info = VariantInfo.read(SIB_SMALL / "hin_Latn")
    assert (info.variant, info.license, info.source_name, info.source_variant) == (
        "hin_Latn", "CC-BY-SA-4.0", "SIB-200", "hin_Deva")
    assert info.details["scheme"] == "iso" and info.get("tool") == "indic-transliteration"
    assert VariantInfo.read(SIB_SMALL) is None  # no variant.json: None, not an error


@pytest.mark.parametrize("text, fragment", [
    ("{not json", "malformed JSON"),
    ("[1, 2]", "expected a JSON object, found list"),
    ('{"license": 5}', "field license: expected text, found 5"),
    ('{"variant": "hindi"}', "field variant: expected a FLORES-200 code"),
    ('{"kind": "quiz"}', "field kind: expected one of mc, topic"),
    ('{"license_override": {"terms": "x"}}', "field license_override.reason: required key is missing"),
])
def test_malformed_variant_json_is_one_error_naming_the_file(tmp_path, text, fragment):
    (tmp_path / VARIANT_JSON).write_text(text, encoding="utf-8")
    with pytest.raises(SchemaError if "override" not in text else LicenseError) as info:
        VariantInfo.read(tmp_path)
    msg = str(info.value)
    assert msg.startswith(str(tmp_path / VARIANT_JSON)) and fragment in msg and "\n" not in msg


@pytest.fixture
def broken_variant(tmp_path):
    """sib_small with a malformed variant.json in hin_Deva."""
    root = tmp_path / "sib"
    shutil.copytree(SIB_SMALL, root)
    (root / "hin_Deva" / VARIANT_JSON).write_text('{"license": "CC-BY-SA-4.0",', encoding="utf-8")
    return root


@pytest.mark.parametrize("args, code", [
    (["qc", "{root}", "--out", "{out}"], 2),
    (["licenses", "{root}"], 2),
    (["export", "{root}", "--out", "{out}"], 1),
    (["romanize", "{root}/hin_Deva", "--out", "{out}"], 1),
])
def test_every_stage_reads_variant_json_with_one_policy(broken_variant, tmp_path, args, code):
    args = [a.format(root=broken_variant, out=tmp_path / "out") for a in args]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == code, result.output
    lines = [ln for ln in result.output.splitlines() if ln.startswith("error:")]
    assert len(lines) == 1, result.output
    assert f"{broken_variant / 'hin_Deva' / VARIANT_JSON}, line 1: malformed JSON" in lines[0]
    assert "Traceback" not in result.output
    assert not (tmp_path / "out").exists()


# --- license override ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("data, field", [
    ({"terms": "x"}, "license_override.reason"),
    ({"reason": "why"}, "license_override.terms"),
    ({"terms": "x", "reason": " "}, "license_override.reason"),
    ({"terms": "x", "reason": "why", "note": 1}, "license_override.note"),
    ("research only", "license_override"),
])
def test_override_has_one_set_of_rules(data, field):
    for error in (LicenseError, RecipeError):
        with pytest.raises(error) as info:
            LicenseOverride.from_dict(data, file="recipe.yaml", error=error)
        assert str(info.value).startswith(f"recipe.yaml, field {field}: ")


def test_override_round_trips():
    o = LicenseOverride.from_dict({"terms": "research only", "reason": "as published"})
    assert LicenseOverride.from_dict(o.to_dict()) == o


# --- splits and columns --------------------------------------------------------------------------------------

@given(st.lists(st.sampled_from([*SPLIT_ORDER, "extra", "zzz", "a"]), unique=True))
def test_split_order_puts_known_splits_first(names):
    ordered = order_splits(names)
    assert sorted(ordered) == sorted(names)
    known = [n for n in ordered if n in SPLIT_ORDER]
    assert known == [n for n in SPLIT_ORDER if n in names]
    assert ordered[len(known):] == sorted(n for n in names if n not in SPLIT_ORDER)


def test_loader_checks_every_split_against_the_record_columns(tmp_path):
    root = tmp_path / "sib"
    shutil.copytree(SIB_SMALL, root)
    dev = root / "hin_Latn" / "dev.jsonl"  # a JSON Lines split wins over the TSV beside it
    dev.write_text(json.dumps({"index_id": 1, "label": "health", "text": "x"}) + "\n", encoding="utf-8")
    for lazy in (False, True):
        with pytest.raises(SchemaError) as info:  # eagerly at once, lazily when the variant is read
            ds = load_dataset_dir(root, lazy=lazy)
            for variant in ds.variants:
                ds.tables[variant]
        msg = str(info.value)
        assert msg.startswith(f"{dev}: topic records need the columns index_id, category, text; missing category")


def test_both_writers_use_the_record_schema(tmp_path):
    runner = CliRunner()
    built, out = tmp_path / "train", tmp_path / "export"
    example = Path(__file__).parents[2] / "examples" / "belebele-train.yaml"
    assert runner.invoke(cli, ["assemble", str(example), "--out", str(built)]).exit_code == 0
    assembled = pq.read_schema(built / "train.parquet")
    assert assembled.names == list(MC_COLUMNS)
    assert assembled.remove_metadata().equals(arrow_schema("mc", required=True))
    assert runner.invoke(cli, ["export", str(built), "--out", str(out)]).exit_code == 0
    exported = pq.read_schema(out / "eng_Latn" / "train.parquet").remove_metadata()
    assert exported.equals(arrow_schema("mc"))
    assert runner.invoke(cli, ["export", str(SIB_SMALL), "--out", str(tmp_path / "sib")]).exit_code == 0
    topic = pq.read_schema(tmp_path / "sib" / "hin_Deva" / "train.parquet").remove_metadata()
    record = arrow_schema("topic")
    assert topic.names == ["index_id", "category", "text", "license"]  # record order, the columns it has
    assert topic.names == [c for c in TOPIC_COLUMNS if c in topic.names]
    # the label is a ClassLabel (issue 15): its index is stored, the names are in the schema metadata
    assert all(topic.field(n).type == record.field(n).type for n in topic.names if n != "category")
    assert str(topic.field("category").type) == "int64"
    assert class_label_names(pq.read_schema(tmp_path / "sib" / "hin_Deva" / "train.parquet"))["category"][0] \
        == "science/technology"
