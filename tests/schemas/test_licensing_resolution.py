"""The one license resolution (schemas.licensing): its order, where each answer came from, the override.

Every stage resolves a split's license with :class:`LicenseContext`: the
audit, the export, the qc gate (tests/qc/test_qc_license.py) and the credit
that extend and romanize carry (builder.variants.credit). These tests pin the
order (column, variant.json, fallback, override) on small frames and folders.
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from builder.variants.credit import DEFAULT_LICENSE, DEFAULT_LICENSE_FROM, carried_credit
from schemas.dataset import load_dataset_dir
from schemas.errors import LicenseError
from schemas.licensing import COLUMN, LicenseContext, LicenseOverride, dataset_override, license_contexts
from schemas.variant import VariantInfo

OVERRIDE = LicenseOverride("Research use only.", "Checked by hand.")
TEXT = pd.DataFrame({"text": ["a", "b", "c"]})


def test_the_column_answers_first_and_a_declared_license_is_not_mixed_in():
    ctx = LicenseContext(variant="x", license="CC-BY-SA-4.0", fallback="MIT")
    got = ctx.resolve(pd.DataFrame({"license": ["CC-BY-4.0", "CC-BY-4.0"]}), "train")
    assert (got.origin, got.declared, got.terms.licenses) == (COLUMN, None, ("CC-BY-4.0",))


def test_variant_json_answers_before_the_fallback_which_never_replaces_it():
    folder = Path("data") / "hin_Deva"
    got = LicenseContext(variant="hin_Deva", license="CC-BY-SA-4.0", fallback="MIT", folder=folder).resolve(TEXT)
    assert (got.origin, got.declared, got.terms.terms) == \
        (f"variant.json ({folder / 'variant.json'})", "CC-BY-SA-4.0", "CC-BY-SA-4.0")
    got = LicenseContext(variant="hin_Deva", fallback="MIT", fallback_field="license").resolve(TEXT)
    assert (got.origin, got.declared) == ("license", "MIT")


def test_nothing_declared_is_one_error_naming_the_split_its_file_and_the_fallback():
    ctx = LicenseContext(variant="hin_Deva", files={"test": Path("d/test.tsv")}, fallback_field="license")
    with pytest.raises(LicenseError) as err:
        ctx.resolve(TEXT, "test")
    assert str(err.value).startswith(f"{Path('d/test.tsv')}: variant hin_Deva, split test: no license information "
                                     "(no license column, no variant.json with a license field, no license ID); "
                                     "known ids: Apache-2.0, ")


def test_the_override_marks_conflicts_and_changes_no_id():
    frame = pd.DataFrame({"license": ["CC-BY-SA-4.0", "CC-BY-NC-4.0"], "dataset": ["a", "b"]})
    bare = LicenseContext().resolve(frame)
    covered = LicenseContext(override=OVERRIDE).resolve(frame)
    assert bare.terms.unresolved and not covered.terms.unresolved
    assert bare.terms.licenses == covered.terms.licenses and bare.terms.terms == covered.terms.terms
    assert not covered.terms.commercial_use  # the override lifts no restriction
    assert [s.name for s in covered.terms.sources] == ["a", "b"]


def test_an_empty_split_has_no_terms_to_resolve():
    got = LicenseContext().resolve(pd.DataFrame({"text": []}))
    assert (got.origin, got.terms.terms, got.terms.unresolved) == ("no records", "none (no records)", False)


def test_source_names_come_from_the_records_then_variant_json_then_the_caller():
    info = VariantInfo(license="MIT", source_name="SIB-200")
    assert LicenseContext.of(info, source="folder").resolve(TEXT).terms.sources[0].name == "SIB-200"
    assert LicenseContext.of(None, license="MIT", source="folder").resolve(TEXT).terms.sources[0].name == "folder"
    frame = pd.DataFrame({"text": ["a"], "provenance": [{"corpus": "RACE"}]})
    assert LicenseContext.of(info).resolve(frame).terms.sources[0].name == "RACE"


def test_the_manifest_override_comes_before_a_variant_json_one():
    other = LicenseOverride("Other terms.", "Another reason.")
    infos = {"x": VariantInfo(license_override=other)}
    assert dataset_override({"license_override": OVERRIDE.to_dict()}, infos) == OVERRIDE
    assert dataset_override({}, infos) == other and dataset_override(None, {}) is None


def test_contexts_of_a_folder_and_an_unregistered_fallback(tmp_path):
    root = Path(__file__).resolve().parents[1] / "data" / "export" / "sib_small"
    ds = load_dataset_dir(root)
    contexts = license_contexts(ds, fallback="MIT", source="S")
    assert list(contexts) == ds.variants
    for variant, ctx in contexts.items():
        info = ds.variant_info(variant)
        assert (ctx.variant, ctx.license, ctx.fallback, ctx.source) == \
            (variant, info.license if info else None, "MIT", "S")
    with pytest.raises(LicenseError, match="field --license: unknown license id 'CC-BY-SA'"):
        license_contexts(ds, fallback="CC-BY-SA")


def test_a_new_variant_carries_its_license_by_the_same_order(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    assert (carried_credit(src, None).license, carried_credit(src, None).license_from) == \
        (DEFAULT_LICENSE, DEFAULT_LICENSE_FROM)
    assert (carried_credit(src, "CC-BY-4.0").license, carried_credit(src, "CC-BY-4.0").license_from) == \
        ("CC-BY-4.0", "--license")
    VariantInfo(variant="hin_Deva", license="CC-BY-SA-4.0").write(src)
    credit = carried_credit(src, "CC-BY-4.0")  # the fallback does not replace what the source declares
    assert (credit.license, credit.license_from) == ("CC-BY-SA-4.0", f"source variant.json ({src / 'variant.json'})")
