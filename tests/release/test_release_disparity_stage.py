"""The release's disparity stage (:func:`builder.release.steps.disparity`) called in process (issue 27).

The stage runs inside a whole release only (a module-scoped fixture of ``test_release_lm.py``), so a
mutation run linked none of its 108 mutants to a test. Here it is given the evaluation records a
release writes (a baselines file, whose rows name their baseline, and a model's, whose settings name
the model) and checked against what it writes: the ``records.csv`` handed to ``builder disparity``,
row by row, and the facts it returns, which must be ``models.csv``'s figures, read back.
"""
from __future__ import annotations

import csv
import json
from pathlib import Path

from builder.release import steps
from builder.tasks.base import QUIET, Reporter
from schemas.runtime.outputs import MARKER

VARIANTS = ["eng_Latn", "fra_Latn", "hin_Deva", "hin_Latn"]
BASELINES = {"settings": {"model": None}, "results": [
    *({"baseline": "char_linear", "variant": v, "accuracy": a} for v, a in zip(VARIANTS, (0.8, 0.6, 0.5, 0.7))),
    *({"baseline": "majority", "variant": v, "accuracy": a} for v, a in zip(VARIANTS, (0.6, 0.5, 0.4, 0.5))),
    {"baseline": "majority", "variant": "tam_Taml", "accuracy": None},  # not scored: no row
]}
#: a model that scores 0 everywhere: its CV-PRR is undefined (0 / 0), so the facts hold None
MODEL = {"settings": {"model": "SmolLM2"}, "results": [{"variant": v, "accuracy": 0.0} for v in VARIANTS]}


def _records(tmp_path: Path, **files) -> dict[str, Path | None]:
    out = {}
    for name, data in files.items():
        if data is None:
            out[name] = None
            continue
        out[name] = tmp_path / f"{name}.json"
        if data != "missing":
            out[name].write_text(json.dumps(data), encoding="utf-8")
    return out


def _csv(path: Path) -> list[dict]:
    with path.open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def test_the_stage_fits_every_scored_system_and_returns_models_csvs_figures(tmp_path):
    records = _records(tmp_path, baselines=BASELINES, lm_eval=MODEL, qc=None, gone="missing")
    facts = steps.disparity(records, QUIET)(tmp_path / "out")
    out = tmp_path / "out"
    assert (out / MARKER).is_file() and not (out / "not_fitted.txt").exists()
    expected_rows = ([{"model": r["baseline"], "language": r["variant"], "task": "accuracy", "score": str(r["accuracy"])}
                      for r in BASELINES["results"] if r["accuracy"] is not None]
                     + [{"model": "SmolLM2", "language": v, "task": "accuracy", "score": "0.0"} for v in VARIANTS])
    assert _csv(out / "records.csv") == expected_rows
    fitted = {r["model"]: r for r in _csv(out / "disparity" / "models.csv")}
    assert sorted(fitted) == ["SmolLM2", "char_linear", "majority"]
    assert facts == {"models": {
        m: {"mean_prr": round(float(r["mean_prr"]), 6), "cv_prr": None if r["cv_prr"] == "" else round(float(r["cv_prr"]), 6)}
        for m, r in fitted.items()}}
    assert facts["models"]["SmolLM2"] == {"mean_prr": 0.0, "cv_prr": None}
    assert facts["models"]["char_linear"]["mean_prr"] > facts["models"]["majority"]["mean_prr"] > 0


class Notes(Reporter):
    def __init__(self):
        super().__init__(quiet=True)
        self.lines: list[str] = []

    def info(self, message: str) -> None:
        self.lines.append(message)


def test_a_fit_that_cannot_run_is_the_stages_warning_with_its_reason_written(tmp_path):
    one = {"results": [{"baseline": "char_linear", "variant": v, "accuracy": 0.5} for v in VARIANTS]}
    no_results = {"settings": {"model": "m"}}  # a model's file without results adds no row
    notes = Notes()
    facts = steps.disparity(_records(tmp_path, baselines=one, lm=no_results), notes)(tmp_path / "out")
    why = "disparity not fitted: the random intercept per model needs at least 2 models, found 1"
    assert facts == {"warnings": [why]}
    # run_disparity's own progress line reaches the release's reporter, then the stage's note
    assert notes.lines == ["fitting the mixed model on 4 records", f"release: {why}"]
    out = tmp_path / "out"
    assert (out / "not_fitted.txt").read_text(encoding="utf-8") == why + "\n"
    assert sorted(p.name for p in out.iterdir()) == [MARKER, "not_fitted.txt", "records.csv"]


def test_a_models_rows_are_named_by_its_settings_and_a_rows_own_model_name_is_the_fallback(tmp_path):
    named = {"results": [{"model": "row-named", "variant": v, "accuracy": a}
                         for v, a in zip(VARIANTS, (0.3, 0.2, 0.25, 0.35))]}
    steps.disparity(_records(tmp_path, baselines=BASELINES, a=named), QUIET)(tmp_path / "out")
    assert {r["model"] for r in _csv(tmp_path / "out" / "records.csv")} == {"char_linear", "majority", "row-named"}
