"""The hostile-input corpus: every folder of ``tests/data/hostile/`` is one attack, run through the CLI.

Datasets, annotation exports and recipes come from strangers. Each case is a
``case.yaml`` (its keys: :mod:`corpus`, the runner shared with the bad-input
corpus) plus the files it needs; inputs a file cannot hold (a folder name with
a newline) are built by a ``python:`` setup step from a module in this folder.
Beyond what every corpus case must show, a hostile case shows that nothing
was written outside its output folders, that no control character reached the
terminal, and (its ``check``) that the hostile text arrived inert in each
output, read back with that format's own parser.
"""
from __future__ import annotations

import pytest

from corpus import DATA, cases, run_case

HOSTILE = DATA / "hostile"
CASES = cases(HOSTILE)


def test_corpus_is_there():
    assert len(CASES) >= 20, f"the hostile-input corpus in {HOSTILE} has only {len(CASES)} cases"


@pytest.mark.parametrize("case", CASES, ids=[p.name for p in CASES])
def test_hostile_input(case, tmp_path, readonly_dir):
    run_case(case, tmp_path, readonly_dir, hostile=True)
