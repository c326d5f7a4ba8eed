"""An export carries its credit: re-exporting it, or auditing it, credits the real source (issue 23).

Before, ``builder licenses EXPORT`` and ``builder export EXPORT`` credited the
export's folder name ("export"), and a re-export wrote ``ATTRIBUTION.md`` ``## export``
without the reference and a card without the agreement, romanization, qc and
baseline sections. The expectations here come from the first export (the same
bytes, docs/export.md) and from the fixture's own ``variant.json`` (the source
name it declares), not from the code under test.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from builder.cli.main import cli
from builder.tasks.export import ExportOptions, LicensesOptions, run_export, run_licenses
from schemas.errors import SchemaError

TESTS = Path(__file__).parents[1]
SIB_SMALL = TESTS / "data" / "export" / "sib_small"
MC_SMALL = TESTS / "data" / "export" / "mc_small"
ANNOTATED = TESTS / "data" / "sib200" / "annotated"
CARD_FILES = ("README.md", "ATTRIBUTION.md", "LICENSE")
CITATION = "@inproceedings{ours2025, title = {Our SIB-200 variants}, year = {2025}}"


def _texts(folder: Path) -> dict[str, str]:
    return {name: (folder / name).read_text(encoding="utf-8") for name in CARD_FILES}


@pytest.fixture(scope="module")
def twice(tmp_path_factory) -> tuple[Path, Path]:
    """sib_small exported (agreement, qc, romanized variant), then that export exported from a folder named
    ``export``, the name the issue saw credited."""
    root = tmp_path_factory.mktemp("reexport")
    first = root / "export"
    run_export(ExportOptions(SIB_SMALL, first, name="sib200_sample", pretty_name="SIB-200 sample (Hindi)"))
    run_export(ExportOptions(first, root / "again"))
    return first, root / "again"


def test_reexport_is_byte_identical(twice):
    first, again = twice
    assert _texts(again) == _texts(first)
    for name in ("croissant.json", "hin_Deva/variant.json", "hin_Latn/variant.json"):
        assert (again / name).read_bytes() == (first / name).read_bytes()


def test_reexport_keeps_every_section_and_the_reference(twice):
    _, again = twice
    text = _texts(again)
    # the source name the fixture's variant.json declares, and the reference the toolkit knows for it
    declared = json.loads((SIB_SMALL / "hin_Deva" / "variant.json").read_text(encoding="utf-8"))["source_name"]
    assert declared == "SIB-200"
    assert f"## {declared}\n" in text["ATTRIBUTION.md"] and "## export" not in text["ATTRIBUTION.md"]
    assert "- Reference: Adelani et al. (2023)" in text["ATTRIBUTION.md"]
    assert "romanized with indic-transliteration" in text["ATTRIBUTION.md"]
    for heading in ("## Annotator agreement", "## Romanization", "## Quality checks"):
        assert heading in text["README.md"]


def test_exported_variant_json_carries_credit_not_the_build_path(twice):
    first, _ = twice
    info = json.loads((first / "hin_Latn" / "variant.json").read_text(encoding="utf-8"))
    assert info["source_name"] == "SIB-200" and info["scheme"] == "iso"
    assert "source" not in info  # the input path on the build machine is not a credit line
    manifest = json.loads((first / "manifest.json").read_text(encoding="utf-8"))
    assert "hin_Latn/variant.json" in manifest["files"] and manifest["files"]["hin_Latn/variant.json"]["sha256"]


def test_licenses_on_an_export_names_the_real_source(twice):
    first, _ = twice
    audit = run_licenses(LicensesOptions(first)).audit
    assert {s.name for split in audit.splits for s in split.terms.sources} == {"SIB-200"}
    res = CliRunner().invoke(cli, ["licenses", str(first)])
    assert res.exit_code == 0, res.output
    assert "    SIB-200  CC-BY-SA-4.0" in res.output and "export  " not in res.output


def test_source_name_option_survives_the_reexport(tmp_path):
    """A folder without variant.json credited by --source-name: the export records the name it credited."""
    for v in ("eng_Latn", "hin_Deva"):
        shutil.copytree(ANNOTATED / v, tmp_path / "in" / v)
    first = tmp_path / "export"
    run_export(ExportOptions(tmp_path / "in", first, license="CC-BY-SA-4.0", source="SIB-200", schema="sib200"))
    run_export(ExportOptions(first, tmp_path / "again", schema="sib200"))
    assert _texts(tmp_path / "again") == _texts(first)
    assert "## SIB-200\n" in _texts(first)["ATTRIBUTION.md"]
    # SIB-200 stores the label text, so the curated order travels in labels.txt (the card lists it as curated)
    assert (first / "eng_Latn" / "labels.txt").read_text(encoding="utf-8") == \
        (ANNOTATED / "eng_Latn" / "labels.txt").read_text(encoding="utf-8")
    sources = {s.name for split in run_licenses(LicensesOptions(first)).audit.splits for s in split.terms.sources}
    assert sources == {"SIB-200"}


def test_release_reports_and_declared_citation_survive(tmp_path):
    """A release's export: the reports of its stages (baselines included), a failed gate it went ahead
    with, and the citation its recipe wrote into variant.json, all kept by a re-export without them."""
    for v in ("hin_Deva", "hin_Latn"):
        shutil.copytree(SIB_SMALL / v, tmp_path / "in" / v)
    info = tmp_path / "in" / "hin_Deva" / "variant.json"
    info.write_text(json.dumps(dict(json.loads(info.read_text(encoding="utf-8")), citation=CITATION)),
                    encoding="utf-8")
    reports = {"agreement": json.loads((SIB_SMALL / "agreement.json").read_text(encoding="utf-8")),
               "qc": {"passed": False, "checks": [{"variant": "hin_Deva", "check": "leakage", "passed": False,
                                                   "gate": True, "reason": "2 test items in train"}]},
               "baselines": {"results": [{"variant": "hin_Deva", "baseline": "majority", "split": "test",
                                          "accuracy": 0.5, "ci_low": 0.1, "ci_high": 0.9, "n": 2}]}}
    first = tmp_path / "export"
    run_export(ExportOptions(tmp_path / "in", first, name="rel", card_reports=reports, gate_failing_allowed=True))
    run_export(ExportOptions(first, tmp_path / "again"))
    card = _texts(first)["README.md"]
    for part in ("## Baseline scores", "exported although the gate failed", "2 test items in train",
                 "## Annotator agreement", "Our SIB-200 variants"):
        assert part in card
    assert _texts(tmp_path / "again") == _texts(first)


def test_nothing_to_carry_writes_no_variant_json(tmp_path):
    # the assembled set names each record's source in its `dataset` column: nothing for a variant.json to say
    res = run_export(ExportOptions(MC_SMALL, tmp_path / "mc"))
    assert not [rel for rel in res.files if rel.endswith("variant.json")]


def test_malformed_carried_card_is_one_error_line(twice, tmp_path):
    first, _ = twice
    broken = tmp_path / "broken"
    shutil.copytree(first, broken)
    manifest = json.loads((broken / "manifest.json").read_text(encoding="utf-8"))
    manifest["card"]["qc"] = "passed"
    (broken / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    (broken / "qc_report.json").unlink(missing_ok=True)
    res = CliRunner().invoke(cli, ["export", str(broken), "--out", str(tmp_path / "out")])
    assert res.exit_code == SchemaError.exit_code  # bad input: the class decides the code
    assert res.output.count("\n") == 1 and res.output.startswith("error: ")
    assert "manifest.json" in res.output and "card.qc" in res.output
