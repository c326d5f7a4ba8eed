"""The gate's ``license`` check: one resolution (schemas.licensing) with the audit, split by split.

Each case names why a split fails (``no_license``: none known, ``license_conflict``) or
which ids it passes with; the folder-level cases check that the gate reads
``variant.json`` and the written override as the audit does, and that a
manifest's ``license`` key is no second fallback.
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from qc import license
from qc.result import VariantData
from schemas.dataset import LoadedDataset
from schemas.licensing import LicenseContext, LicenseOverride, license_contexts
from schemas.variant import VariantInfo

OVERRIDE = LicenseOverride("Research use only.", "The sources' terms were checked by hand.")


@pytest.mark.parametrize("values, context, expected", [
    (["MIT", "CC-BY-4.0", "MIT"], LicenseContext(), (None, "CC-BY-4.0,MIT")),
    (["MIT", "CC-BY-NC-3.0", "RACE-research"], LicenseContext(), (None, "CC-BY-NC-3.0,MIT,RACE-research")),
    # the column is the answer: variant.json and a fallback do not replace it
    (["unknown"], LicenseContext(license="CC-BY-SA-4.0", fallback="MIT"),
     ("no_license", "unknown: the license of x is unknown; no use is known to be permitted")),
    (["CC-BY-SA-4.0", "CC-BY-NC-4.0"], LicenseContext(),
     ("license_conflict", "CC-BY-NC-4.0 AND CC-BY-SA-4.0: CC-BY-SA-4.0 requires the split to carry its own terms, "
                          "which do not impose the non-commercial restriction of CC-BY-NC-4.0")),
    # the written override lets a conflict pass, as the audit's --intended-use research does
    (["unknown", "MIT"], LicenseContext(override=OVERRIDE), (None, "MIT,unknown")),
])
def test_a_split_with_a_license_column(values, context, expected):
    frame = pd.DataFrame({"license": values, "dataset": ["x"] * len(values)})
    assert license.split_license(frame, context, "train") == expected


@pytest.mark.parametrize("values, message", [
    (["MIT", " Unknown "], "row 2, field license: unknown license id ' Unknown '; known ids: Apache-2.0, "),
    (["MIT", None], "row 2, field license: record has no license id; every record needs one of: Apache-2.0, "),
    (["NOASSERTION"], "row 1, field license: unknown license id 'NOASSERTION'; known ids: "),
])
def test_a_missing_or_unregistered_id_fails_with_the_audits_message(values, message):
    reason, text = license.split_license(pd.DataFrame({"license": values}), LicenseContext(license="MIT"), "train")
    assert reason == "no_license" and text.startswith(message), text


def test_a_split_without_a_column_takes_variant_json_then_the_fallback():
    frame = pd.DataFrame({"text": ["a", "b"]})
    assert license.split_license(frame, LicenseContext(license="CC-BY-SA-4.0", fallback="MIT")) == \
        (None, "CC-BY-SA-4.0")
    assert license.split_license(frame, LicenseContext(fallback="MIT")) == (None, "MIT")
    reason, text = license.split_license(frame, LicenseContext(variant="x"), "train")
    assert reason == "no_license" and text.startswith("variant x, split train: no license information (no license "
                                                      "column, no variant.json with a license field, no --license ID)")
    reason, text = license.split_license(frame, LicenseContext(license="NoAssertion", folder=Path("v")))
    assert reason == "no_license" and text.startswith(
        f"{Path('v') / 'variant.json'}, field license: unknown license id 'NoAssertion'")
    assert license.split_license(pd.DataFrame({"license": []}), LicenseContext()) == (None, "none (no records)")


def test_the_check_counts_the_failing_splits_and_names_the_first_reason():
    data = VariantData("x", "topic", {"train": pd.DataFrame({"license": ["MIT"]}),
                                      "dev": pd.DataFrame({"text": ["a"]}),
                                      "test": pd.DataFrame({"license": ["unknown"]})},
                       licenses=LicenseContext(variant="x"))
    (r,) = license.run(data, {})
    assert (r.variant, r.check, r.passed, r.value, r.threshold, r.reason) == ("x", "license", False, 2, 0,
                                                                              "no_license")
    assert r.detail.startswith("train: MIT; dev: variant x, split dev: no license information")
    assert r.extra["unlicensed"] == ["dev", "test"]
    assert r.extra["licenses"]["test"] == \
        "unknown: the license of records is unknown; no use is known to be permitted"  # records that name no source
    assert r.paper == "Belebele: CC BY-SA 4.0; its training set mostly CC BY-NC (app. A.3)"
    data.licenses = LicenseContext(variant="x", license="MIT", override=OVERRIDE)
    (r,) = license.run(data, {})
    assert (r.passed, r.value, r.reason, r.detail) == (True, 0, None, "train: MIT; dev: MIT; test: unknown")
    data.licenses = None  # nothing but the records: the column or a failure
    (r,) = license.run(data, {})
    assert (r.passed, r.value, r.reason) == (False, 2, "no_license")
    assert "variant x, split dev: no license information" in r.detail  # the variant still named
    (r,) = license.run(VariantData("x", "topic", {}), {})
    assert r.skipped and r.detail == "no splits" and (r.variant, r.check) == ("x", "license")


def _folder(tmp_path: Path, manifest: dict, info: VariantInfo | None) -> LoadedDataset:
    folder = tmp_path / "hin_Deva"
    folder.mkdir()
    if info is not None:
        info.write(folder)
    files = {("hin_Deva", s): folder / f"{s}.tsv" for s in ("train", "test")}
    tables = {"hin_Deva": {s: pd.DataFrame({"category": ["a"]}) for s in ("train", "test")}}
    return LoadedDataset(root=tmp_path, kind="topic", tables=tables, files=files, manifest=manifest)


def test_the_gate_reads_variant_json_and_the_override_as_the_audit(tmp_path):
    info = VariantInfo(variant="hin_Deva", kind="topic", license="unknown", source_name="Hindi News")
    ds = _folder(tmp_path, {"license_override": OVERRIDE.to_dict()}, info)
    (ctx,) = license_contexts(ds).values()
    assert (ctx.variant, ctx.license, ctx.source_name, ctx.override, ctx.fallback) == \
        ("hin_Deva", "unknown", "Hindi News", OVERRIDE, None)
    assert ctx.files == {"train": tmp_path / "hin_Deva" / "train.tsv", "test": tmp_path / "hin_Deva" / "test.tsv"}
    got = ctx.resolve(ds.tables["hin_Deva"]["train"], "train")
    assert (got.origin, got.declared, got.terms.terms) == \
        (f"variant.json ({tmp_path / 'hin_Deva' / 'variant.json'})", "unknown", "unknown")
    assert not got.terms.unresolved and got.terms.sources[0].name == "Hindi News"


def test_a_manifest_license_key_is_no_second_fallback(tmp_path):
    """Before one rule, the gate took ``manifest.json``'s ``license`` where the audit stopped; now both stop."""
    ds = _folder(tmp_path, {"license": "MIT"}, None)
    data = VariantData("hin_Deva", "topic", ds.tables["hin_Deva"], licenses=license_contexts(ds)["hin_Deva"])
    (r,) = license.run(data, {})
    assert (r.passed, r.reason, r.value) == (False, "no_license", 2)


def test_every_standing_conflict_is_named_and_the_check_gives_the_first_failing_splits_reason():
    frame = pd.DataFrame({"license": ["CC-BY-SA-4.0", "CC-BY-NC-4.0", "CC-BY-ND-4.0"]})
    reason, text = license.split_license(frame, LicenseContext(), "train")
    assert reason == "license_conflict" and text.count("; ") == 2
    assert text.startswith("CC-BY-NC-4.0 AND CC-BY-ND-4.0 AND CC-BY-SA-4.0: CC-BY-ND-4.0 forbids sharing adapted "
                           "data, so its records cannot be combined with others; CC-BY-SA-4.0 requires")
    data = VariantData("hin_Deva", "topic", {"train": frame, "test": pd.DataFrame({"license": ["MIT"]})})
    (result,) = license.run(data, {})
    assert (result.passed, result.value, result.reason) == (False, 1, "license_conflict")
