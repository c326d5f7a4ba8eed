"""The release's lm_eval stage (:func:`builder.release.steps.lm_eval`) called in process (issue 27).

The real stage runs a language model (``test_release_lm.py``, a module-scoped fixture of a whole
release), so a mutation run linked none of its 71 mutants to a test. Here the export and the model run
are replaced by recorders, which is what the stage is responsible for: the options it hands each (the
recipe's export settings and lm_eval settings, where the tasks and results go), the notes it passes on,
and the facts it returns from the model's result. What ``run_export`` and ``run_lm`` do with them is
tested in ``tests/export`` and ``tests/evaluation``.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from builder.release import steps
from builder.tasks import evaluate, export
from builder.tasks.evaluate import LmResult, LmSettings
from schemas.runtime.outputs import MARKER


class Notes:
    def __init__(self):
        self.lines: list[str] = []

    def info(self, line: str) -> None:
        self.lines.append(line)


def test_the_stage_exports_the_tasks_runs_the_model_on_them_and_returns_its_scores(tmp_path, monkeypatch):
    calls = {}

    def fake_export(options, report):
        calls["export"] = options
        (options.out / "lm_eval").mkdir(parents=True)
        (options.out / "lm_eval" / "task.yaml").write_text("task: t\n", encoding="utf-8")

    def fake_lm(options, report):
        calls["lm"] = options
        assert (options.export / "lm_eval" / "task.yaml").is_file()  # run on the tasks just exported
        options.out.mkdir()
        (options.out / "results.json").write_text("{}", encoding="utf-8")
        return LmResult(lines=["note one", "note two"], model="SmolLM2-135M",
                        summary=[{"variant": "eng_Latn", "accuracy": 0.5}, {"variant": "hin_Deva", "accuracy": 0.25}],
                        lm_acc={"sib_eng_Latn": 0.5, "sib_hin_Deva": 0.25})

    monkeypatch.setattr(export, "run_export", fake_export)
    monkeypatch.setattr(evaluate, "run_lm", fake_lm)
    settings = LmSettings(model=Path("/models/smol.gguf"), tasks=("eng_Latn",), limit=8, batch_size=2, seed=3,
                          num_fewshot=1)
    options = {"license": "CC-BY-SA-4.0", "name": "sib", "pretty_name": "SIB demo"}
    where = {"jobs": 2, "backend": "local", "address": None}
    notes = Notes()
    facts = steps.lm_eval(tmp_path / "dataset", settings, options, where, notes)(tmp_path / "out")

    out = tmp_path / "out"
    assert sorted(p.name for p in out.iterdir()) == sorted([MARKER, "tasks", "results"])
    assert (out / "tasks" / "lm_eval" / "task.yaml").is_file() and (out / "results" / "results.json").is_file()
    e = calls["export"]
    assert (e.built, e.lm_eval, e.license, e.name, e.pretty_name, e.jobs, e.backend, e.address) == (
        tmp_path / "dataset", True, "CC-BY-SA-4.0", "sib", "SIB demo", 2, "local", None)
    assert e.out.name == "tasks" and e.out.parent.name != "out"  # written in the staging folder
    lm = calls["lm"]
    assert lm.export == e.out and lm.out == e.out.parent / "results"
    assert (lm.model, lm.tasks, lm.limit, lm.batch_size, lm.device, lm.seed, lm.num_fewshot) == (
        Path("/models/smol.gguf"), ("eng_Latn",), 8, 2, "cpu", 3, 1)
    assert notes.lines == ["lm_eval: note one", "lm_eval: note two"]
    assert facts == {"model": "SmolLM2-135M", "accuracy": {"eng_Latn": 0.5, "hin_Deva": 0.25},
                     "lm_eval_acc": {"sib_eng_Latn": 0.5, "sib_hin_Deva": 0.25}}


def test_a_model_run_that_fails_leaves_no_output(tmp_path, monkeypatch):
    monkeypatch.setattr(export, "run_export", lambda options, report: options.out.mkdir(parents=True))

    def broken(options, report):
        raise RuntimeError("the model could not be loaded")

    monkeypatch.setattr(evaluate, "run_lm", broken)
    action = steps.lm_eval(tmp_path / "d", LmSettings(model=Path("m")), {"license": None, "name": None,
                                                                       "pretty_name": None},
                           {"jobs": 1, "backend": "local", "address": None}, Notes())
    with pytest.raises(RuntimeError, match="^the model could not be loaded$"):
        action(tmp_path / "out")
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # no output, no staging folder left


def test_the_stage_hands_on_where_to_run_and_whose_notes(tmp_path, monkeypatch):
    """A release fanned out over a Ray cluster exports its tasks there too (the recipe's backend and address,
    not the defaults); the export's own lines stay quiet and the model run reports to the release's notes."""
    from builder.tasks.base import QUIET

    calls = {}

    def fake_export(options, report):
        calls["export"] = (options, report)
        options.out.mkdir(parents=True)

    def fake_lm(options, report):
        calls["lm_report"] = report
        options.out.mkdir()
        return LmResult(lines=[], model="m", summary=[], lm_acc={})

    monkeypatch.setattr(export, "run_export", fake_export)
    monkeypatch.setattr(evaluate, "run_lm", fake_lm)
    notes = Notes()
    steps.lm_eval(tmp_path / "d", LmSettings(model=Path("m")), {"license": None, "name": None, "pretty_name": None},
                  {"jobs": 3, "backend": "ray", "address": "ray://head:10001"}, notes)(tmp_path / "out")
    options, report = calls["export"]
    assert (options.jobs, options.backend, options.address) == (3, "ray", "ray://head:10001")
    assert report is QUIET
    assert calls["lm_report"] is notes
