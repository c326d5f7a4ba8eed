"""builder.tasks.variants called directly (no click): extend's warnings, romanize's caller-given license."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from builder.tasks.base import Reporter
from builder.tasks.variants import ExtendOptions, RomanizeOptions, run_extend, run_romanize
from builder.variants.credit import DEFAULT_LICENSE, DEFAULT_LICENSE_FROM
from schemas.errors import LicenseError, UsageError
from schemas.io import read_sib_tsv, write_sib_tsv
from schemas.variant import VariantInfo

SIB = Path(__file__).parents[1] / "data" / "sib200"
RAW = SIB / "flores-raw"


def test_extend_writes_the_variant_and_keeps_its_warnings(tmp_path):
    info: list[str] = []
    result = run_extend(ExtendOptions(SIB / "eng", "nqo_Nkoo", tmp_path,
                                      parallel=(RAW / "nqo_Nkoo.dev", RAW / "nqo_Nkoo.devtest")),
                        Reporter(write=info.append))
    assert result.out_dir == tmp_path / "nqo_Nkoo" and result.rows == {"train": 701, "dev": 99, "test": 204}
    written = VariantInfo.read(result.out_dir)
    assert written.variant == "nqo_Nkoo"
    flagged = [r for r in result.projection.checks.results.values() if r.status == "warning"]
    assert result.lines == [f"wrote {result.out_dir} (train 701, dev 99, test 204; {len(flagged)} warnings)"]
    # the source declares no source name: the credit warning, reported and kept
    assert result.warnings[-1].startswith(f"{SIB / 'eng'} names no source to credit")
    assert info == [f"warning: {w}" for w in result.warnings]
    assert result.drops == []
    with pytest.raises(UsageError, match="either parallel files"):
        run_extend(ExtendOptions(SIB / "eng", "nqo_Nkoo", tmp_path / "x"))


@pytest.fixture()
def hin_small(tmp_path):
    folder = tmp_path / "src" / "hin_Deva"
    for split in ("train", "dev", "test"):
        write_sib_tsv(folder / f"{split}.tsv", read_sib_tsv(SIB / "annotated" / "hin_Deva" / f"{split}.tsv")[:3])
    return folder


def test_romanize_carries_the_source_license_by_default(tmp_path, hin_small):
    result = run_romanize(RomanizeOptions(hin_small, tmp_path / "out"))
    info = json.loads((tmp_path / "out" / "hin_Latn" / "variant.json").read_text(encoding="utf-8"))
    assert (info["license"], info["license_from"]) == (DEFAULT_LICENSE, DEFAULT_LICENSE_FROM)
    assert result.out_dir == tmp_path / "out" / "hin_Latn" and result.romanized.rows == 9
    assert result.lines == [f"wrote {result.out_dir} ({result.romanized.summary()})"]


def test_romanize_with_a_license_uses_it_where_the_source_declares_none(tmp_path, hin_small):
    run_romanize(RomanizeOptions(hin_small, tmp_path / "out", license="CC-BY-4.0", license_from="release recipe"))
    info = VariantInfo.read(tmp_path / "out" / "hin_Latn")
    assert (info.license, info.license_from) == ("CC-BY-4.0", "release recipe")
    run_romanize(RomanizeOptions(hin_small, tmp_path / "again", license="CC-BY-4.0"))
    assert VariantInfo.read(tmp_path / "again" / "hin_Latn").license_from == "declared by the caller"
    with pytest.raises(LicenseError):
        run_romanize(RomanizeOptions(hin_small, tmp_path / "bad", license="NOT-A-LICENSE"))
    assert not (tmp_path / "bad").exists()
    # one rule (schemas.licensing): the caller's license is a fallback, never over what the source declares
    VariantInfo(license="CC-BY-SA-4.0").write(hin_small)
    run_romanize(RomanizeOptions(hin_small, tmp_path / "declared", license="CC-BY-4.0", license_from="release recipe"))
    info = VariantInfo.read(tmp_path / "declared" / "hin_Latn")
    assert info.license == "CC-BY-SA-4.0" and info.license_from.startswith("source variant.json")
