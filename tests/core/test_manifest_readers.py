"""Every reader of a split file checks it against the ``manifest.json`` beside it (issue 24, manifests).

An assembled folder holds each split in several formats (``train.parquet``, ``train.jsonl``,
``train.tsv``), all listed in ``manifest.json`` with their sha256. The loader reads the Parquet
file, and a ``train.jsonl`` altered beside it used to pass unnoticed (exit 0) through every
command. Now each command that reads the folder, or one of its split files, stops with exit 2
(an input altered after its manifest was written, README "A tour of the command line") and one
``error:`` line naming the altered file; ``builder --no-verify`` reads it anyway. The check has
one owner, :func:`schemas.manifest.verify_against_manifest`, which the loader shares.
"""
from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from corpus import DATA, invoke

ALTERED = "differs from the sha256 that manifest.json recorded"


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _list_in_manifest(folder: Path, names) -> None:
    manifest = json.loads((folder / "manifest.json").read_text()) if (folder / "manifest.json").exists() else {}
    manifest.setdefault("files", {}).update({name: _sha(folder / name) for name in names})
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=2))


@pytest.fixture
def assembled(tmp_path) -> Path:
    """An assembled multiple-choice folder with train/dev in Parquet and JSONL, whose train.jsonl lost its
    first line after the manifest was written."""
    built = tmp_path / "built"
    shutil.copytree(DATA / "bad" / "manifest_altered_export" / "built", built)
    for split in ("train", "dev"):
        frame = pd.read_parquet(built / f"{split}.parquet")
        frame.to_json(built / f"{split}.jsonl", orient="records", lines=True, force_ascii=False)
    # the manifest now matches every file (the sample's train.parquet lost a row: recorded as it is)
    _list_in_manifest(built, ["train.parquet", "dev.parquet", "train.jsonl", "dev.jsonl"])
    lines = (built / "train.jsonl").read_text().splitlines(keepends=True)
    (built / "train.jsonl").write_text("".join(lines[1:]))
    return built


@pytest.fixture
def topic(tmp_path) -> Path:
    """A SIB-200 variant folder (hin_Deva) with a manifest.json, whose train.tsv lost a row afterwards."""
    folder = tmp_path / "hin_Deva"
    shutil.copytree(DATA / "sib200" / "annotated" / "hin_Deva", folder)
    _list_in_manifest(folder, ["train.tsv", "dev.tsv", "test.tsv"])
    lines = (folder / "train.tsv").read_text(encoding="utf-8").splitlines(keepends=True)
    (folder / "train.tsv").write_text("".join(lines[:1] + lines[2:]), encoding="utf-8")
    return folder


def _one_error(result, names: str) -> str:
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.exit_code == 2, (result.exit_code, result.stderr)
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert f"{names}: {ALTERED}" in lines[0], lines[0]
    return lines[0]


MC_READERS = {
    "qc": lambda d, out: ["qc", d, "--out", out],
    "licenses": lambda d, out: ["licenses", d, "--intended-use", "research"],
    "export": lambda d, out: ["export", d, "--out", out],
    "evaluate baselines": lambda d, out: ["evaluate", "baselines", d, "--baseline", "chance", "--out", out],
    "evaluate prompts": lambda d, out: ["evaluate", "prompts", d, "--mode", "zero-shot", "--split", "train",
                                        "--out", out],
}


@pytest.mark.parametrize("command", list(MC_READERS))
def test_an_altered_jsonl_beside_the_parquet_stops_every_reader(assembled, tmp_path, command):
    out = tmp_path / "out"
    result = invoke(MC_READERS[command](assembled, out))
    _one_error(result, "built/train.jsonl")
    assert not out.exists(), "a command that stopped wrote its output folder"


def test_no_verify_reads_the_altered_folder_anyway(assembled):
    result = invoke(["--no-verify", "licenses", assembled, "--intended-use", "research"])
    assert result.exit_code == 0, result.stderr


TOPIC_READERS = {
    "romanize": lambda d, out: ["romanize", d, "--out", out],
    "extend": lambda d, out: ["extend", "--source", d, "--parallel", DATA / "sib200" / "flores-raw" / "nqo_Nkoo.dev",
                              "--parallel", DATA / "sib200" / "flores-raw" / "nqo_Nkoo.devtest",
                              "--variant", "nqo_Nkoo", "--out", out],
    "annotate curate": lambda d, out: ["annotate", "curate", d, "--recipe", REPO_EXAMPLE, "--out", out],
    "annotate split (a file)": lambda d, out: ["annotate", "split", d / "train.tsv", "--out", out],
    "qc": lambda d, out: ["qc", d, "--out", out],
}
REPO_EXAMPLE = DATA.parents[1] / "examples" / "sib200-curation.yaml"


@pytest.mark.parametrize("command", list(TOPIC_READERS))
def test_an_altered_tsv_stops_the_readers_that_read_it_themselves(topic, tmp_path, command):
    out = tmp_path / "out"
    result = invoke(TOPIC_READERS[command](topic, out))
    _one_error(result, "hin_Deva/train.tsv")
    assert not out.exists() or not any(out.iterdir()), "a command that stopped wrote into its output folder"


def test_a_file_the_manifest_lists_and_the_folder_lacks_is_named(assembled, tmp_path):
    (assembled / "dev.jsonl").unlink()
    (assembled / "train.jsonl").write_text("")  # the first check to fail is the missing one or the altered one
    result = invoke(["licenses", assembled])
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.exit_code == 2 and len(lines) == 1
    assert "built/dev.jsonl: manifest.json lists this file, and it is missing" in lines[0] or ALTERED in lines[0]
