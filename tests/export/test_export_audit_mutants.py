"""``builder/export/audit.py``'s refusal word for word (issue 27): every conflict not overridden, in order,
and the input folder named."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from builder.export.audit import check_releasable
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
