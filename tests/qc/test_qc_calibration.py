"""The calibration generator of benchmarks/qc_calibration.py on one small release, through the gate.

The full simulation (20 variants x 360 questions, dozens of releases) is a
benchmark recorded in BENCHMARKS.md; here one release of 6 variants x 200
questions checks what it relies on: a clean pivot and clean translations
pass, and each kind of bias a translation adds fails that translation only,
through the check made for it.
"""
from __future__ import annotations

import importlib.util
from pathlib import Path

from qc.config import load_config
from qc.gate import run_gate
from schemas.dataset import LoadedDataset

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "qc_calibration.py"


def _calibration():
    spec = importlib.util.spec_from_file_location("qc_calibration", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_biased_translations_fail_and_clean_ones_pass():
    cal = _calibration()
    biases = {"fra_Latn": "overlap", "spa_Latn": "giveaway", "ita_Latn": "copy"}
    tables = cal.release(seed=7, n_variants=6, n_questions=200, biases=biases)
    assert list(tables) == ["eng_Latn", "deu_Latn", "fra_Latn", "spa_Latn", "ita_Latn", "por_Latn"]
    eng, deu = tables["eng_Latn"], tables["deu_Latn"]
    assert len(eng) == 200 and (eng["correct_answer_num"] == deu["correct_answer_num"]).all()
    assert (eng["question_id"] == deu["question_id"]).all() and not (eng["passage"] == deu["passage"]).any()
    ds = LoadedDataset(root=Path("calibration"), kind="mc", tables={c: {"test": f} for c, f in tables.items()})
    report = run_gate(ds, load_config(), jobs=1)
    failing: dict[str, set[str]] = {}
    for r in report.failures:
        failing.setdefault(r.variant, set()).add(r.check)
    assert set(failing) == set(biases), failing
    assert "overlap_ttest:token_share" in failing["fra_Latn"]
    assert "bow_probe:option_only" in failing["spa_Latn"]
    assert {"overlap_ttest:bigram_share", "overlap_ttest:lcs_substring"} <= failing["ita_Latn"]
    rows = {row["check"]: row for row in report.pivot_comparison}
    assert "fra_Latn" in rows["overlap_ttest:token_share"]["introduced"]  # copying raises it too (ita_Latn)
    assert rows["overlap_ttest:token_share"]["pivot_passed"] is True
