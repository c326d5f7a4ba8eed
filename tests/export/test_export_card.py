"""Golden files for the card, LICENSE and ATTRIBUTION of small exports; front matter parsed back."""
from __future__ import annotations

from pathlib import Path

import pytest

from builder.tasks.export import ExportOptions, run_export
from data_cards.frontmatter import check_card_metadata, parse_front_matter
from schemas.license_registry import get_license
from schemas.errors import SchemaError

EXPORT_DATA = Path(__file__).parents[1] / "data" / "export"


@pytest.fixture(scope="module")
def sib_export(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("exp") / "sib"
    run_export(ExportOptions(EXPORT_DATA / "sib_small", out, name="sib200_sample",
                             pretty_name="SIB-200 sample (Hindi)"))
    return out


@pytest.fixture(scope="module")
def mc_export(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("exp") / "mc"
    run_export(ExportOptions(EXPORT_DATA / "mc_small", out))
    return out


@pytest.mark.parametrize("fname", ["README.md", "LICENSE", "ATTRIBUTION.md"])
def test_topic_export_golden(sib_export, golden, fname):
    golden(f"export/sib_small/{fname}", (sib_export / fname).read_text(encoding="utf-8"))


@pytest.mark.parametrize("fname", ["README.md", "LICENSE", "ATTRIBUTION.md"])
def test_mc_export_golden(mc_export, golden, fname):
    golden(f"export/mc_small/{fname}", (mc_export / fname).read_text(encoding="utf-8"))


def test_front_matter_parses_back_and_matches_the_sources(sib_export):
    meta, body = parse_front_matter((sib_export / "README.md").read_text(encoding="utf-8"))
    check_card_metadata(meta)
    assert meta["license"] == get_license("CC-BY-SA-4.0").hf_id == "cc-by-sa-4.0"
    assert meta["language"] == ["hi"]  # ISO 639-1 where it exists
    assert meta["language_details"] == ["hi-Deva", "hi-Latn"]  # BCP-47: the romanized config stays apart
    assert meta["task_categories"] == ["text-classification"]
    assert meta["size_categories"] == ["n<1K"]
    assert [c["config_name"] for c in meta["configs"]] == ["hin_Deva", "hin_Latn"]
    assert meta["configs"][1]["data_files"] == [{"split": s, "path": f"hin_Latn/{s}.parquet"}
                                                for s in ("train", "dev", "test")]
    for cfg in meta["configs"]:
        for f in cfg["data_files"]:
            assert (sib_export / f["path"]).is_file()
    assert body.lstrip().startswith("# SIB-200 sample (Hindi)")
    for section in ("## Languages", "## Sources and licenses", "## Annotator agreement", "## Romanization",
                    "## Quality checks", "## Intended use and restrictions", "## Citation"):
        assert section in body
    assert "indic-transliteration" in body and "| `hin_Latn` | `hin_Deva` |" in body
    assert "The `test` split is for evaluation only" in body


def test_mc_card_lists_every_source_license_and_prints_the_override(mc_export):
    meta, body = parse_front_matter((mc_export / "README.md").read_text(encoding="utf-8"))
    check_card_metadata(meta)
    assert meta["license"] == "other" and meta["license_link"] == "LICENSE"
    # the Hub's license_name is an id, not an expression: the slug of the combined terms
    assert meta["license_name"] == "cc-by-nc-3.0-and-msr-la-and-race-research-and-reclor-research-and-unknown"
    lic_ids = {"CC-BY-NC-3.0", "MSR-LA", "RACE-research", "ReClor-research", "unknown"}
    assert f"**Terms of the whole release:** {' AND '.join(sorted(lic_ids, key=str.lower))}" in body
    for lic in lic_ids:
        assert f"(`{lic}`)" in body  # the sources table names every license of the terms
    assert "### License override" in body and "Belebele's own training set is non-commercial" in body
    assert "**Not for commercial use.**" in body
    assert "| RACE | train | fill_in_blank | 10 |" in body


def test_duplicate_keys_are_rejected(sib_export):
    text = (sib_export / "README.md").read_text(encoding="utf-8")
    dup = text.replace("pretty_name:", "license: mit\npretty_name:", 1)
    lines = dup.split("\n")
    first, again = [n for n, line in enumerate(lines, start=1) if line.startswith("license:")]
    with pytest.raises(SchemaError) as info:  # lines of the card file (its YAML starts on line 2)
        parse_front_matter(dup, file="README.md")
    assert str(info.value) == f"README.md, line {again}, field license: duplicate key 'license' (first at line {first})"
    nested = "---\nconfigs:\n- config_name: a\n  config_name: b\n---\n"
    with pytest.raises(SchemaError) as info:
        parse_front_matter(nested)
    assert str(info.value) == "line 4, field configs[0].config_name: duplicate key 'config_name' (first at line 3)"


@pytest.mark.parametrize("text, message", [
    ("# no front matter\n", "must start with a '---' line"),
    ("---\nlicense: mit\n", "not closed"),
    ("---\n- a\n---\n", "must be a mapping"),
    ("---\nlicense: [mit\n---\n", "malformed YAML"),
])
def test_malformed_front_matter(text, message):
    with pytest.raises(SchemaError, match=message):
        parse_front_matter(text)


def test_metadata_check_shows_accepted_forms(sib_export):
    meta, _ = parse_front_matter((sib_export / "README.md").read_text(encoding="utf-8"))
    bad = dict(meta, size_categories=["tiny"])
    with pytest.raises(SchemaError, match="unknown size bucket 'tiny'; allowed: .*1K<n<10K"):
        check_card_metadata(bad)
    bad = dict(meta, configs=[{"config_name": "x"}])
    with pytest.raises(SchemaError, match=r"configs\[0\]: expected a list of \{config_name"):
        check_card_metadata(bad)


GOLDEN = Path(__file__).parents[1] / "golden" / "export"


def test_golden_cards_hub_fields_match_independent_sources():
    """The golden cards' language codes, BCP-47 tags and dataset_info, recomputed without the exporter:
    pycountry's ISO 639 tables, labels.txt, the fixtures' line counts and the MCItem dataclass."""
    import dataclasses
    import json

    import pycountry

    from schemas.records import MCItem

    meta, _ = parse_front_matter((GOLDEN / "sib_small" / "README.md").read_text(encoding="utf-8"))
    hi = pycountry.languages.get(alpha_3="hin").alpha_2
    assert meta["language"] == [hi] and meta["language_details"] == [f"{hi}-Deva", f"{hi}-Latn"]
    labels = (EXPORT_DATA / "sib_small" / "hin_Deva" / "labels.txt").read_text(encoding="utf-8").split()
    for info in meta["dataset_info"]:
        variant = info["config_name"]
        feats = {f["name"]: f["dtype"] for f in info["features"]}
        assert feats == {"index_id": "int64", "text": "string", "license": "string",
                         "category": {"class_label": {"names": {str(i): n for i, n in enumerate(labels)}}}}
        for split in info["splits"]:
            lines = (EXPORT_DATA / "sib_small" / variant / f"{split['name']}.tsv").read_text(encoding="utf-8")
            assert split["num_examples"] == lines.count("\n") - 1
        assert info["dataset_size"] == sum(s["num_bytes"] for s in info["splits"])

    meta, _ = parse_front_matter((GOLDEN / "mc_small" / "README.md").read_text(encoding="utf-8"))
    assert meta["language"] == [pycountry.languages.get(alpha_3="eng").alpha_2] == ["en"]
    assert meta["language_details"] == ["en-Latn"]
    (info,) = meta["dataset_info"]
    types = {"str": "string", "int": "int64"}
    expected = [{"name": f.name, "dtype": types[f.type]} for f in dataclasses.fields(MCItem) if f.type in types]
    assert [f for f in info["features"] if "dtype" in f] == expected
    assert info["features"][-1] == {"name": "provenance", "struct": [
        {"name": n, "dtype": "string"} for n in ("corpus", "file", "record")]}
    for split in info["splits"]:
        lines = (EXPORT_DATA / "mc_small" / f"{split['name']}.jsonl").read_text(encoding="utf-8").splitlines()
        assert split["num_examples"] == len([x for x in lines if x.strip()]) == len(
            [json.loads(x) for x in lines if x.strip()])
