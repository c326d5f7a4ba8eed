"""The gate's contamination check against a topic test set in a language with its own tokenizer (issue 27).

``qc.gate._against_hashes`` hashes the n-grams of the set given with ``--contamination-against``. The
gate tests gave it multiple-choice sets in English only, so a mutation run found that reading the wrong
column or tokenizing without the variant's language changed nothing there. A topic set keeps its text
in ``text``, not ``passage``; and French elisions (``l'``, ``qu'``) are split by the French tokenizer
differently from the language-less default, so a test set hashed without the language shares no
13-gram with the training text that copies it.
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from qc import gate
from qc.config import load_config
from qc.gate import run_gate
from schemas.dataset import load_dataset_dir

SIB_FRA = Path(__file__).resolve().parents[1] / "data" / "sib200" / "annotated" / "fra_Latn"
PIVOT = Path(__file__).resolve().parents[1] / "data" / "qc" / "pivot"

# one elision at most every four words: each 13-word window of it holds one
COPIED = ("L'homme d'affaires qu'il a vu hier soir l'a dit à l'enfant d'Anne, qu'elle n'a pas l'air d'être "
          "là aujourd'hui puisqu'elle s'est levée tôt jusqu'à l'aube d'hiver.")


def test_a_french_topic_test_sentence_copied_into_train_is_contamination():
    ds = load_dataset_dir(SIB_FRA)
    row = pd.DataFrame([{"index_id": 9999, "category": "travel", "text": COPIED}])
    train = pd.concat([ds.tables["fra_Latn"]["train"], row], ignore_index=True)
    mine = type(ds)(root=ds.root, kind="topic", tables={"fra_Latn": {"train": train}})
    against = type(ds)(root=ds.root, kind="topic", tables={"fra_Latn": {"test": row}})
    report = run_gate(mine, load_config(), against=against, jobs=1)
    r = next(r for r in report.results if r.check == "contamination")
    assert (r.passed, r.reason) == (False, "test_ngrams_in_train")
    assert (r.extra["contaminated"], r.extra["passages"]) == (1, len(train))
    assert r.extra["examples"] == [COPIED[:80]]


def test_the_gate_runs_every_variant_in_this_process_unless_given_jobs(monkeypatch):
    # jobs defaults to 1: no worker processes, each variant's checks run here, in order
    ran = []
    monkeypatch.setattr(gate, "run_variant", lambda data, config: ran.append(data.variant) or [])
    ds = load_dataset_dir(PIVOT)
    report = run_gate(ds, load_config())
    assert ran == ds.variants == ["eng_Latn", "fra_Latn", "hin_Deva"]
    assert report.results == [] and report.variants == ds.variants
