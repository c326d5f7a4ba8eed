"""The bad-input corpus: every folder of ``tests/data/bad/`` is one fault, run through the CLI.

Each folder holds a copy of a real sample with one change, and a ``case.yaml``
(its keys and what every case must show: :mod:`corpus`, the runner this
module shares with the hostile-input corpus of ``tests/data/hostile/``).
"""
from __future__ import annotations

import pytest

from corpus import DATA, cases, run_case

BAD = DATA / "bad"
CASES = cases(BAD)


def test_corpus_is_there():
    assert len(CASES) >= 20, f"the bad-input corpus in {BAD} has only {len(CASES)} cases"


@pytest.mark.parametrize("case", CASES, ids=[p.name for p in CASES])
def test_bad_input(case, tmp_path, readonly_dir):
    run_case(case, tmp_path, readonly_dir)
