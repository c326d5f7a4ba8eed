"""`builder evaluate baselines --backend local|ray`: the same bytes whatever the backend; progress lines.

Progress: plain lines when stderr is not a terminal, none with ``-q``.
:func:`evaluation_datasets`, :func:`evaluate_outputs` and ``OUTPUTS`` are shared
with the Ray test (``tests/core/test_fanout.py``, which starts one Ray cluster
for every Ray test: a cluster takes seconds to start).
"""
from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from builder.cli.main import cli
from schemas.io import read_sib_tsv, write_sib_tsv

DATA = Path(__file__).parents[1] / "data"
SIB = DATA / "sib200" / "annotated"
OUTPUTS = ["accuracy.png", "results.csv", "results.json", "results.md"]


def evaluation_datasets(root: Path) -> dict[str, list]:
    """Topic: three shipped SIB-200 variants cut to every 5th/2nd/3rd row; MC: the qc pivot fixture."""
    for variant in ("eng_Latn", "hin_Deva", "zho_Hans"):
        for split, k in {"train": 5, "dev": 2, "test": 3}.items():
            write_sib_tsv(root / variant / f"{split}.tsv", read_sib_tsv(SIB / variant / f"{split}.tsv")[::k])
    # every topic baseline, the MLP too (the default leaves it out), so each backend is compared on all four
    return {"topic": [root, "--baseline", "majority,mlp,char_tfidf,char_linear", "--mlp-max-iter", "20"],
            "mc": [DATA / "qc" / "pivot"]}


@pytest.fixture(scope="module")
def datasets(tmp_path_factory):
    return evaluation_datasets(tmp_path_factory.mktemp("sib_small"))


def evaluate_outputs(args, out: Path, *options: str, quiet: bool = False):
    result = CliRunner().invoke(cli, [*(["-q"] if quiet else []), "evaluate", "baselines", *map(str, args),
                                      "--out", str(out), *options])
    assert result.exit_code == 0, result.output
    return result


def files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if not p.name.startswith(".")}


def test_progress_lines_name_each_run_and_quiet_prints_none(datasets, tmp_path):
    result = evaluate_outputs(datasets["mc"], tmp_path / "a", "-j", "2", "--baseline", "chance,sliding_window")
    lines = [ln for ln in result.stderr.splitlines() if "baseline runs done" in ln]
    assert len(lines) == 6 and lines[-1].startswith("evaluate: 6/6 baseline runs done (")
    named = {ln.rsplit("(", 1)[1].rstrip(")") for ln in lines}
    assert named == {f"{v} {b}" for v in ("eng_Latn", "fra_Latn", "hin_Deva") for b in ("chance", "sliding_window")}
    quiet = evaluate_outputs(datasets["mc"], tmp_path / "b", "-j", "2", "--baseline", "chance", quiet=True)
    assert quiet.stderr == ""
    assert files(tmp_path / "b") != {} and list(files(tmp_path / "a")) == OUTPUTS


def test_local_workers_write_the_same_bytes_as_one_process(datasets, tmp_path):
    evaluate_outputs(datasets["topic"], tmp_path / "one", "-j", "1")
    evaluate_outputs(datasets["topic"], tmp_path / "two", "-j", "2", "--backend", "local")
    assert files(tmp_path / "one") == files(tmp_path / "two") and list(files(tmp_path / "one")) == OUTPUTS
