"""builder.tasks.evaluate called directly (no click): the result holds what the files written hold."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from builder.tasks.base import Reporter
from builder.tasks.evaluate import (BaselinesOptions, PredictionsOptions, PromptsOptions, run_baselines,
                                    run_predictions, run_prompts)
from schemas.errors import UsageError
from schemas.io import read_sib_tsv, write_sib_tsv

DATA = Path(__file__).parents[1] / "data"
SIB = DATA / "sib200" / "annotated"


def test_baselines_result_is_results_json_and_lines_are_results_md_table(tmp_path):
    small = tmp_path / "sib"
    for split, k in {"train": 5, "dev": 2, "test": 3}.items():
        write_sib_tsv(small / "eng_Latn" / f"{split}.tsv", read_sib_tsv(SIB / "eng_Latn" / f"{split}.tsv")[::k])
    info: list[str] = []
    result = run_baselines(BaselinesOptions(small, tmp_path / "out", baselines=("majority", "char_tfidf")),
                           Reporter(write=info.append, terminal=False))
    written = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    assert [(r["variant"], r["baseline"], r["correct"]) for r in written["results"]] == \
        [(r["variant"], r["baseline"], r["correct"]) for r in result.rows]
    assert [(r["variant"], r["baseline"]) for r in result.rows] == [("eng_Latn", "majority"), ("eng_Latn", "char_tfidf")]
    assert list(result.baselines) == written["settings"]["baselines"] == ["majority", "char_tfidf"]
    assert result.means == pytest.approx(written["means"])
    assert "| eng_Latn | Latn | 68 |" in "\n".join(result.lines) and result.drops == []
    assert info[0] == "evaluating 2 baseline(s) on 1 topic variant(s) with 1 worker(s)"
    assert result.notes == [f"wrote {tmp_path / 'out' / 'results.csv'}; mean accuracy: majority 25.0, char_tfidf "
                            f"{100 * written['means']['char_tfidf']:.1f}"]


def test_predictions_count_every_answer(tmp_path):
    files = tuple(sorted((DATA / "sib200" / "llm-outputs" / "gpt-4").glob("eng_Latn.tsv")))
    result = run_predictions(PredictionsOptions(files, "topic", tmp_path / "out",
                                                labels=DATA / "sib200" / "eng" / "labels.txt"))
    items = (tmp_path / "out" / "items.jsonl").read_text(encoding="utf-8").splitlines()
    assert result.n_answers == len(items) == 204
    assert [(r["variant"], r["model"], r["n"]) for r in result.summary] == [("eng_Latn", "gpt-4", 204)]
    assert any("| eng_Latn | gpt-4 | 204 | 80.4 |" in line for line in result.lines)
    assert result.notes == [f"wrote {tmp_path / 'out' / 'results.csv'} and {tmp_path / 'out' / 'items.jsonl'} "
                            "(204 answers)"]
    with pytest.raises(UsageError, match="--lenient applies to --task mc only"):
        run_predictions(PredictionsOptions(files, "topic", tmp_path / "other", lenient=True))


def test_prompts_written_matches_prompts_json(tmp_path):
    result = run_prompts(PromptsOptions(DATA / "qc" / "pivot", tmp_path / "out", "zero-shot"))
    meta = json.loads((tmp_path / "out" / "prompts.json").read_text(encoding="utf-8"))
    assert result.written == meta["variants"] and set(result.written) == {"eng_Latn", "fra_Latn", "hin_Deva"}
    for entry in result.written.values():
        assert len((tmp_path / "out" / entry["file"]).read_text(encoding="utf-8").splitlines()) == entry["n"]
    assert result.shots is None and result.lines[0].startswith("wrote ") and result.lines[0].endswith(
        f"zero-shot prompts for 3 variant(s) to {tmp_path / 'out' / 'prompts'}")
