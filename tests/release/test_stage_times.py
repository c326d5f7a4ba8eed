"""Stages that run together record each one's own seconds, not the group's time shared out evenly
(issue 25). A fake clock makes the seconds exact: stage ``a`` takes 1 s, ``b`` 3 s; the group's
4 s split evenly would give 2 s to each."""
from __future__ import annotations

from types import SimpleNamespace

from builder.release import pipeline
from builder.release.stages import Recorder, Stage


class _Clock:
    now = 0.0

    def perf_counter(self):
        return self.now


def test_stages_run_together_record_their_own_seconds(tmp_path, monkeypatch):
    clock = _Clock()
    monkeypatch.setattr(pipeline, "time", clock)

    def takes(seconds):
        def action(out):
            out.mkdir(parents=True)
            (out / "made.txt").write_text(f"{seconds}\n", encoding="utf-8")
            clock.now += seconds
            return {}
        return action

    todo = [Stage(name, {}, {}, takes(s), tmp_path / "rel" / "stages" / name / "output",
                  describe=name, parallel=True)
            for name, s in (("extend-a", 1.0), ("extend-b", 3.0))]
    plan = SimpleNamespace(stages=todo, qc=None, where={"jobs": 1, "backend": "local", "address": None})
    recorder = Recorder(tmp_path / "rel", tmp_path, {"name": "builder"})
    result = pipeline.RunResult()
    said = []
    pipeline._run(plan, todo, [recorder.expected(st) for st in todo], recorder, result,
                  {id(st): i for i, st in enumerate(todo)}, said.append)
    assert result.stages == [("extend-a", "ran", 1.0), ("extend-b", "ran", 3.0)]
    assert set(result.cpu_seconds) == {"extend-a", "extend-b"}  # each stage's own CPU, for run.json
    assert all(cpu >= 0 for cpu in result.cpu_seconds.values())
    assert any("extend-b: done in 3.0 s (1 of 2 run together)" in line for line in said)
