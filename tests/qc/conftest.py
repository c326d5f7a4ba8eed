"""Shared inputs of the qc tests: the MCTest sample as MC rows and the assembled training set."""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

DATA = Path(__file__).resolve().parents[1] / "data"
QC_DATA = DATA / "qc"
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _no_ci_summary(monkeypatch):
    """A test run inside GitHub Actions must not append the gate's verdicts to the job's summary page."""
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)


def mctest_rows() -> pd.DataFrame:
    """The shipped MCTest sample (train + dev) read with the toolkit's reader, as MC rows."""
    from builder.readers import get_reader

    rows = []
    for item in get_reader("mctest")(DATA / "sources" / "mctest", ["train", "dev"]):
        opts = list(item.options)
        rows.append({"dataset": "mctest", "split": item.split, "language": "eng_Latn",
                     "passage_id": item.passage_id, "question_id": item.question_id, "passage": item.passage,
                     "question": item.question, **{f"answer{i + 1}": o for i, o in enumerate(opts)},
                     "correct_answer_num": item.correct[0] + 1, "correct_answer": opts[item.correct[0]],
                     "license": "MSR-LA"})
    return pd.DataFrame(rows)


@pytest.fixture(scope="session")
def mctest_frame() -> pd.DataFrame:
    return mctest_rows()


@pytest.fixture(scope="session")
def mctest_dir(tmp_path_factory) -> Path:
    """The MCTest sample written as an assembled-style folder (train.parquet, dev.parquet)."""
    out = tmp_path_factory.mktemp("mctest")
    frame = mctest_rows()
    for split, part in frame.groupby("split"):
        part.to_parquet(out / f"{split}.parquet", index=False)
    return out


@pytest.fixture(scope="session")
def assembled_dir(tmp_path_factory) -> Path:
    """The Belebele-style training set assembled from the shipped samples (builder assemble)."""
    from click.testing import CliRunner

    from builder.cli.main import cli

    out = tmp_path_factory.mktemp("assembled") / "belebele-train"
    result = CliRunner().invoke(cli, ["-q", "assemble", str(ROOT / "examples" / "belebele-train.yaml"),
                                      "--out", str(out)])
    if result.exit_code != 0:
        pytest.fail(f"builder assemble of the example recipe failed: {result.output[-300:]}")
    return out
