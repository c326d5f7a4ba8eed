"""Multiple-choice baselines on a built MC split; the work is done by the QC code.

``chance``
    A uniform guesser over four options: accuracy 0.25 with the analytic
    central 95% interval of ``Binomial(n, 0.25) / n``.
``sliding_window``
    The lexical sliding-window baseline of Richardson et al. (2013, MCTest):
    the option with the best SW score of :func:`qc.overlap.option_features`
    (the batched form of :func:`qc.overlap.sliding_window_scores`), ties
    broken at random with the seed by :func:`qc.sliding_window.pick_with_ties`
    exactly as the QC check does.
``bow_lr``
    Belebele's bag-of-words logistic-regression option scorer (§3.2: 0.28 on
    the 900 questions, chance 0.25): :func:`qc.bow_probe.probe_accuracy`,
    cross-validated over passage-grouped folds of the evaluated split, words
    of question + option, no passage.

The QC modules are imported when a baseline runs, so importing this module
stays cheap.

>>> import pandas as pd
>>> rows = pd.DataFrame([{"passage": "Tom went to school.", "question": "Where did Tom go?",
...     "answer1": "to school", "answer2": "the zoo", "answer3": "home", "answer4": "to bed",
...     "correct_answer_num": 1}])
>>> result = run("sliding_window", rows, language="eng_Latn")
>>> result.correct, result.n
(1, 1)
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from schemas.errors import SchemaError, UsageError, row_at

from .stats import chance_ci

if TYPE_CHECKING:  # frames come from the loader; a release's plan asks only MC_BASELINES here (no NumPy either)
    import numpy as np
    import pandas as pd

MC_BASELINES = ("chance", "sliding_window", "bow_lr")
CHANCE = 0.25
#: Folds of the BoW probe (qc.bow_probe's default).
BOW_FOLDS = 5


@dataclass
class MCResult:
    """Outcome of one MC baseline on one split."""

    correct: int | None
    n: int
    params: dict = field(default_factory=dict)
    accuracy: float | None = None
    ci: tuple[float, float] | None = None  # set only where the CI is analytic (chance)


def _gold(frame: pd.DataFrame) -> np.ndarray:
    if "correct_answer_num" not in frame.columns:
        raise SchemaError(f"MC split lacks correct_answer_num; found {sorted(frame.columns)}")
    import numpy as np
    import pandas as pd

    gold = pd.to_numeric(frame["correct_answer_num"], errors="coerce").to_numpy()
    bad = ~np.isin(gold, [1, 2, 3, 4])
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        found = frame["correct_answer_num"].tolist()[i]  # a Python value: NumPy's repr is not the file's text
        raise SchemaError(f"correct_answer_num must be 1-4; found {found!r}",
                          record=str(frame["question_id"].iloc[i]) if "question_id" in frame else row_at(i),
                          field="correct_answer_num")
    return gold.astype(int)


def _chance(frame, *, language, seed):
    n = len(frame)
    return MCResult(None, n, {"p": CHANCE, "ci": "binomial central interval"}, accuracy=CHANCE, ci=chance_ci(n))


def _sliding_window(frame, *, language, seed):
    from qc.overlap import option_features
    import numpy as np

    from qc.sliding_window import pick_with_ties

    gold = _gold(frame)
    feats = option_features(frame.reset_index(drop=True), language=language)
    scores = feats["sliding_window"].to_numpy(float).reshape(-1, 4)
    choice = pick_with_ties(scores, np.random.default_rng(seed)) + 1
    return MCResult(int((choice == gold).sum()), len(frame), {"ties": "random", "source": "qc.overlap"})


def _bow_lr(frame, *, language, seed):
    from qc.bow_probe import probe_accuracy

    _gold(frame)
    try:
        r = probe_accuracy(frame.reset_index(drop=True), seed=seed, folds=BOW_FOLDS, language=language)
    except ValueError as err:  # fewer than two passages
        raise UsageError(f"bow_lr: {err}") from None
    return MCResult(int(r["correct"]), int(r["n"]), {"folds": r["folds"], "features": r["features"],
                                                     "source": "qc.bow_probe", "protocol": "grouped CV on split"})


_FUNCTIONS = {"chance": _chance, "sliding_window": _sliding_window, "bow_lr": _bow_lr}


def run(name: str, frame: pd.DataFrame, *, language: str | None = None, seed: int = 0) -> MCResult:
    """Score MC baseline ``name`` on the rows of ``frame``.

    Parameters
    ----------
    name : {"chance", "sliding_window", "bow_lr"}
    frame : DataFrame
        MC rows (``passage``, ``question``, ``answer1``..``answer4``,
        ``correct_answer_num``; ``passage_id`` for the BoW folds).
    language : str, optional
        FLORES code used for tokenisation (default: each row's ``language``).
    seed : int, default 0
        Tie-breaking (sliding window) and fold assignment (BoW).

    Returns
    -------
    MCResult

    Examples
    --------
    >>> import pandas as pd
    >>> round(run("chance", pd.DataFrame({"x": range(900)})).ci[0], 4)
    0.2222
    """
    if name not in _FUNCTIONS:
        raise UsageError(f"unknown MC baseline {name!r}; known: {', '.join(MC_BASELINES)}")
    return _FUNCTIONS[name](frame, language=language, seed=seed)
