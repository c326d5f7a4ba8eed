"""Checks of the ``recipe_*`` hostile cases: a recipe mistake stops the release before its first stage.

Every value of a release recipe is validated against what its stage accepts when the recipe is
read (:mod:`builder.release.recipe`) and planned (:mod:`builder.release.plan`), so a mistake the
stages used to find minutes in (after the earlier stages ran) is now one error line and no stage
output at all.
"""
from __future__ import annotations

from pathlib import Path


def no_stage_ran(result, work: Path, subs: dict) -> None:
    """No stage wrote anything: ``{tmp}/out/stages`` is absent or empty, and the release folder was not even
    made or marked (the error comes before :func:`builder.release.pipeline.prepare_root`)."""
    out = work / "out"
    stages = out / "stages"
    assert not stages.exists() or not any(stages.iterdir()), f"a stage ran: {sorted(p.name for p in stages.iterdir())}"
    assert not out.exists(), f"the release folder was made: {sorted(p.name for p in out.rglob('*'))}"
    assert "release:" not in result.stderr, "a stage was started"
    assert result.stdout == "", f"a release summary was printed: {result.stdout!r}"
