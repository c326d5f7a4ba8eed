"""``builder/export/audit.py``'s refusal word for word (issue 27): every conflict not overridden, in order,
and the input folder named."""
from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from builder.export.audit import audit_dataset, check_releasable
from schemas.dataset import load_dataset_dir
from schemas.errors import LicenseError


def _split(variant, split, *conflicts):
    terms = SimpleNamespace(conflicts=[SimpleNamespace(reason=r, overridden=o) for r, o in conflicts])
    return SimpleNamespace(variant=variant, split=split, terms=terms)


def test_the_refusal_names_the_splits_the_first_ones_open_conflicts_and_the_folder():
    blocking = [_split("eng_Latn", "train", ("CC-BY-SA-4.0 and MSR-LA cannot be combined", False),
                       ("an overridden one", True), ("CC-BY-NC-4.0 forbids commercial use", False)),
                _split("fra_Latn", "dev", ("another", False))]
    with pytest.raises(LicenseError) as err:
        check_releasable(SimpleNamespace(blocking=lambda: blocking), "built/")
    assert err.value.message == (
        "2 split(s) have unresolved license conflicts, first eng_Latn/train: CC-BY-SA-4.0 and MSR-LA cannot be "
        "combined; CC-BY-NC-4.0 forbids commercial use. Add license_override {terms, reason} to the recipe to "
        "release them anyway")
    assert str(err.value.file) == "built/"
    check_releasable(SimpleNamespace(blocking=lambda: []), "built/")  # nothing blocking: no refusal


def _folder(root, manifest=None):
    (root / "hin_Deva").mkdir(parents=True)
    (root / "hin_Deva" / "train.jsonl").write_text(
        json.dumps({"index_id": 1, "category": "science", "text": "A sentence."}) + "\n", encoding="utf-8")
    if manifest is not None:
        (root / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return root


def test_the_audit_credits_the_callers_source_else_the_folder_and_uses_the_folder_already_loaded(tmp_path):
    root = _folder(tmp_path / "built")
    audit = audit_dataset(tmp_path / "gone", license_id="CC-BY-4.0", source="FLORES-200",
                          loaded=load_dataset_dir(root))  # the loaded folder is used: the root is not read
    assert audit.defaults == {"hin_Deva": "FLORES-200"} and audit.override is None
    assert [(s.variant, s.split, s.rows) for s in audit.splits] == [("hin_Deva", "train", 1)]
    assert audit_dataset(root, license_id="CC-BY-4.0").defaults == {"hin_Deva": "built"}


def test_the_audit_carries_the_override_the_folder_wrote(tmp_path):
    root = _folder(tmp_path / "built", {"license_override": {"terms": "CC-BY-SA-4.0", "reason": "checked"}})
    audit = audit_dataset(root, license_id="CC-BY-4.0")
    assert (audit.override.terms, audit.override.reason) == ("CC-BY-SA-4.0", "checked")


def test_the_audit_keeps_each_variants_json_and_the_license_it_declares(tmp_path):
    root = _folder(tmp_path / "built")
    (root / "hin_Deva" / "variant.json").write_text(
        json.dumps({"license": "CC-BY-SA-4.0", "source_name": "SIB-200"}), encoding="utf-8")
    ds = load_dataset_dir(root)
    audit = audit_dataset(root, license_id="CC-BY-4.0", loaded=ds)  # the fallback never replaces a declared one
    assert audit.dataset is ds and list(audit.variant_info) == ["hin_Deva"]
    assert audit.variant_info["hin_Deva"].source_name == "SIB-200" and audit.defaults == {"hin_Deva": "SIB-200"}
    (split,) = audit.splits
    assert split.declared == "CC-BY-SA-4.0" and split.terms.to_dict()["licenses"] == ["CC-BY-SA-4.0"]


def test_an_unknown_license_in_a_record_names_the_split_file(tmp_path):
    root = _folder(tmp_path / "built")
    (root / "hin_Deva" / "train.jsonl").write_text(json.dumps(
        {"index_id": 1, "category": "science", "text": "A sentence.", "license": "NOPE-1"}) + "\n", encoding="utf-8")
    with pytest.raises(LicenseError) as err:
        audit_dataset(root, license_id="CC-BY-4.0")
    assert err.value.file == str(root / "hin_Deva" / "train.jsonl") and "unknown license id 'NOPE-1'" in str(err.value)
