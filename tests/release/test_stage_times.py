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
            out.mkdir(parents=True, exist_ok=True)
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
    assert said == ["release: [1/2] extend-a ...", "release: [2/2] extend-b ...",
                    "release: [1/2] extend-a: done in 1.0 s (1 of 2 run together)",
                    "release: [2/2] extend-b: done in 3.0 s (1 of 2 run together)"]
    # one stage alone: its place among all the plan's stages, and no "run together"
    said.clear()
    todo[1].action = takes(0.5)
    pipeline._run(plan, todo[1:], [recorder.expected(todo[1])], recorder, result, {id(todo[1]): 1}, said.append)
    assert said == ["release: [2/2] extend-b ...", "release: [2/2] extend-b: done in 0.5 s"]


def _rusage_total() -> float:
    import resource

    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return sum(getattr(u, f) for u in (own, children) for f in ("ru_utime", "ru_stime"))


def test_a_stages_cpu_counts_its_own_and_its_childrens_user_and_system_seconds():
    """``_timed`` on a real stage: one that runs a child busy with system calls and then spins itself.
    The CPU seconds lie between the process's and its children's totals read around the stage."""
    import subprocess
    import sys
    import time

    def busy(output):
        subprocess.run([sys.executable, "-c", "import os\nfor _ in range(300000): os.stat('/')"], check=True)
        start = time.process_time()
        while time.process_time() - start < 0.05:
            pass
        return {"done": output}

    before = _rusage_total()
    facts, wall, cpu = pipeline._timed(SimpleNamespace(name="busy", action=busy, output="o"))
    spent = _rusage_total() - before
    assert facts == {"done": "o"}
    assert 0.05 <= cpu <= spent + 0.001 and wall >= 0.05
    low = _rusage_total()
    assert low <= pipeline._cpu() <= _rusage_total()  # every one of the four parts added, none subtracted


def test_a_stages_seconds_are_rounded_to_the_millisecond(monkeypatch):
    clock, cpu = _Clock(), iter([10.0, 10.23456])
    monkeypatch.setattr(pipeline, "time", clock)
    monkeypatch.setattr(pipeline, "_cpu", lambda: next(cpu))

    def action(output):
        clock.now += 0.12345
        return None

    assert pipeline._timed(SimpleNamespace(name="s", action=action, output=None)) == ({}, 0.123, 0.235)


def test_the_summary_key_changes_with_everything_the_summary_is_written_from(tmp_path):
    """``summary_key``: the same inputs give the same key (a rerun keeps release.json and report.html); a
    change to any one of the recipe, the folder, the kind, the variants, the stages not run, the gate's verdict
    or the stage that stopped the run gives another, so the summary is written again."""
    from dataclasses import replace

    def plan(**kw):
        base = dict(recipe=("recipe", 1), root=tmp_path / "rel", kind="topic", variants={"a": "v-a"}, not_run={},
                    stages=[])
        return SimpleNamespace(**{**base, **kw})

    result = pipeline.RunResult()
    key = pipeline.summary_key(plan(), result, False)
    assert pipeline.summary_key(plan(), pipeline.RunResult(), False) == key
    others = [pipeline.summary_key(plan(recipe=("recipe", 2)), result, False),
              pipeline.summary_key(plan(root=tmp_path / "other"), result, False),
              pipeline.summary_key(plan(kind="mc"), result, False),
              pipeline.summary_key(plan(variants={"a": "v-b"}), result, False),
              pipeline.summary_key(plan(not_run={"baselines": "no baselines: key"}), result, False),
              pipeline.summary_key(plan(), result, True),
              pipeline.summary_key(plan(), replace(result, stopped_at_gate=True), False),
              pipeline.summary_key(plan(), replace(result, stopped={"stage": "qc", "error": "x"}), False)]
    assert len({key, *others}) == len(others) + 1
