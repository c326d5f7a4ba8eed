"""A stage's error crosses a process boundary whole (issue 27's mutation run).

A release's stages run in worker processes; the error a stage raises reaches the driver pickled, and the
release stops naming the stage and the stage's own error. Pickling an exception rebuilds it from its
``args``, so ``StageStopped`` must keep both there.
"""
from __future__ import annotations

import pickle

from builder.release.pipeline import StageStopped


def test_a_stopped_stage_survives_pickling_with_its_name_and_error():
    back = pickle.loads(pickle.dumps(StageStopped("qc", ValueError("row 3: no text"))))
    assert back.stage == "qc"
    assert type(back.error) is ValueError and str(back.error) == "row 3: no text"
    assert back.args[0] == "qc" and back.args[1] is back.error
    assert str(back) == "stage qc: row 3: no text"
