"""Regenerate the small export fixtures in this folder (run from the repository root).

- ``sib_small/``: the first 4/2/2 rows of the real SIB-200 ``hin_Deva`` train/dev/test
  files (``tests/data/sib200/annotated/hin_Deva``), a ``hin_Latn`` variant romanized
  from them with indic-transliteration (ISO 15919 scheme), ``variant.json`` files
  shaped like those ``builder extend``/``romanize`` write (plus ``source_name``), ``labels.txt``, and two crafted
  reports (``agreement.json``, ``qc_report.json``) in the shapes those commands write.
- ``mc_small/``: an assembled-style set: two real records of each source and split
  taken from ``builder assemble examples/belebele-train.yaml`` output, with a
  manifest in ``builder assemble``'s shape (sources, counts, dropped, seed) and
  the recipe's written ``license_override``.

Usage: ``python tests/data/export/make_fixtures.py [ASSEMBLED_DIR]`` (mc_small only with the folder).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pandas as pd
from indic_transliteration import sanscript

from schemas.io import dumps_json, read_sib_tsv, write_sib_tsv

HERE = Path(__file__).parent
SIB = HERE.parent / "sib200" / "annotated" / "hin_Deva"
SIZES = {"train": 4, "dev": 2, "test": 2}


def sib_small() -> None:
    out = HERE / "sib_small"
    for split, n in SIZES.items():
        rows = read_sib_tsv(SIB / f"{split}.tsv")[:n]
        write_sib_tsv(out / "hin_Deva" / f"{split}.tsv", rows)
        latn = [dict(r, text=sanscript.transliterate(r["text"], sanscript.DEVANAGARI, sanscript.ISO)) for r in rows]
        write_sib_tsv(out / "hin_Latn" / f"{split}.tsv", latn)
    labels = (SIB / "labels.txt").read_text(encoding="utf-8")
    for v in ("hin_Deva", "hin_Latn"):
        (out / v / "labels.txt").write_text(labels, encoding="utf-8")
    (out / "hin_Deva" / "variant.json").write_text(dumps_json(
        {"variant": "hin_Deva", "kind": "topic", "license": "CC-BY-SA-4.0", "source_name": "SIB-200",
         "source": "tests/data/sib200/annotated/hin_Deva"}), encoding="utf-8")
    import importlib.metadata as md
    (out / "hin_Latn" / "variant.json").write_text(dumps_json(
        {"variant": "hin_Latn", "method": "romanization", "license": "CC-BY-SA-4.0", "source_name": "SIB-200",
         "source_variant": "hin_Deva", "source": "tests/data/export/sib_small/hin_Deva",
         "tool": "indic-transliteration", "version": md.version("indic-transliteration"), "scheme": "iso"}),
        encoding="utf-8")
    (out / "agreement.json").write_text(dumps_json(
        {"source": "judgements.csv", "n_items": 8, "n_annotators": 3, "fleiss_kappa": 0.712,
         "krippendorff_alpha": 0.715, "percent_agreement": 0.833,
         "ci": {"fleiss_kappa": [0.48, 0.9], "krippendorff_alpha": [0.49, 0.91]}}), encoding="utf-8")
    (out / "qc_report.json").write_text(dumps_json(
        {"passed": True, "checks": [
            {"variant": v, "check": c, "passed": True, "gate": True, "skipped": False, "reason": None,
             "detail": ""} for v in ("hin_Deva", "hin_Latn") for c in ("leakage", "script_consistency")]}),
        encoding="utf-8")


def mc_small(assembled: Path) -> None:
    out = HERE / "mc_small"
    out.mkdir(parents=True, exist_ok=True)
    manifest = json.loads((assembled / "manifest.json").read_text(encoding="utf-8"))
    for split in ("train", "dev"):
        frame = pd.read_parquet(assembled / f"{split}.parquet")
        part = frame.groupby("dataset", sort=True).head(2)
        with open(out / f"{split}.jsonl", "w", encoding="utf-8", newline="\n") as fh:
            for row in part.to_dict("records"):
                fh.write(json.dumps(row, ensure_ascii=False, sort_keys=False) + "\n")
    keep = {k: manifest[k] for k in ("recipe", "seed", "language", "counts", "dropped", "license_override")}
    keep["sources"] = [{k: s[k] for k in ("name", "reader", "license")} for s in manifest["sources"]]
    (out / "manifest.json").write_text(dumps_json(keep), encoding="utf-8")


if __name__ == "__main__":
    sib_small()
    if len(sys.argv) > 1:
        mc_small(Path(sys.argv[1]))
