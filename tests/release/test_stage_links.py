"""The dataset stage links its unchanged inputs instead of copying them, and a rerun hashes nothing it
hashed before unless a file's stat stamp changed (issue 25); a changed input is never taken as up to
date (issue 27).

One small release (two shipped variants, no gate, the license audit and the export), run in process
with one worker, so the hashing that :mod:`builder.release.stages` does can be counted.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

import schemas.io

from builder.cli.main import cli
from builder.release import stages as release_stages
from builder.release.steps import link_or_copy

ROOT = Path(__file__).resolve().parents[2]
SIB = ROOT / "tests" / "data" / "sib200" / "annotated"
VARIANTS = ("eng_Latn", "hin_Deva")
RECIPE = """version: 1
name: linked
pivot: eng_Latn
license: CC-BY-SA-4.0
variants:
  - dataset: src
qc: false
"""


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _inputs(src: Path) -> dict[str, str]:
    return {p.relative_to(src).as_posix(): _sha(p) for p in sorted(src.rglob("*")) if p.is_file()}


@pytest.fixture()
def release(tmp_path, monkeypatch):
    """``run()`` runs the release again and returns (run.json, files whose bytes the stages hashed)."""
    src = tmp_path / "src"
    for v in VARIANTS:
        shutil.copytree(SIB / v, src / v)
    recipe = tmp_path / "recipe.yaml"
    recipe.write_text(RECIPE, encoding="utf-8")
    out = tmp_path / "out"
    hashed: list[str] = []
    real = schemas.io._sha256_bytes_of  # every sha256 of a file's bytes goes through it

    def counting(path, *a, **k):
        hashed.append(os.path.relpath(path, tmp_path))
        return real(path, *a, **k)

    monkeypatch.setattr(schemas.io, "_sha256_bytes_of", counting)

    def run():
        hashed.clear()
        result = CliRunner().invoke(cli, ["release", str(recipe), "--out", str(out), "-j", "1"])
        assert result.exit_code == 0, result.output
        return json.loads((out / "run.json").read_text(encoding="utf-8")), list(hashed)

    return src, out, run


def _status(log: dict) -> dict[str, str]:
    return {s["name"]: s["status"] for s in log["stages"]}


def test_dataset_stage_links_its_inputs_and_leaves_them_as_they_were(release):
    src, out, run = release
    before = _inputs(src)
    log, _ = run()
    assert set(_status(log).values()) == {"ran"}
    for v in VARIANTS:
        for name in ("train.tsv", "dev.tsv", "test.tsv", "labels.txt"):
            staged = out / "stages" / "dataset" / "output" / v / name
            assert staged.stat().st_ino == (src / v / name).stat().st_ino, (v, name)
        # variant.json is the stage's own (it credits the source): a new file, not the input's
        assert (out / "stages" / "dataset" / "output" / v / "variant.json").stat().st_nlink == 1
    record = json.loads((out / "stages" / "dataset" / "stage.json").read_text(encoding="utf-8"))
    assert record["output"]["sha256"] == release_stages.tree_sha256(out / "stages" / "dataset" / "output")
    # no stage wrote into a linked file: the inputs have the bytes they had
    assert _inputs(src) == before


def test_rerun_with_nothing_changed_skips_every_stage_and_hashes_nothing(release):
    _, out, run = release
    first, hashed_first = run()
    assert hashed_first  # the first run hashed the inputs and the outputs
    stamps = first[release_stages.RUN_STAMPS]
    assert "stages/dataset/output/eng_Latn/train.tsv" in stamps["release"]
    assert "src/eng_Latn/train.tsv" in stamps["recipe"]  # outside the release: relative to the recipe
    again, hashed = run()
    assert set(_status(again).values()) == {"skipped"}
    assert hashed == []
    assert again[release_stages.RUN_STAMPS] == stamps


def test_an_input_changed_in_place_with_its_size_is_hashed_again_and_its_stages_rerun(release):
    src, out, run = release
    run()
    target = src / "eng_Latn" / "test.tsv"
    data = target.read_bytes()
    second = data.index(b"\n") + 1
    i = data.rindex(b"e", second, data.index(b"\n", second))  # in the first row's text (the last column)
    st = target.stat()
    with open(target, "r+b") as fh:  # in place: the same inode (and the linked file in stages/ with it)
        fh.seek(i)
        fh.write(b"E")
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    assert (target.stat().st_size, target.stat().st_ino) == (st.st_size, st.st_ino)
    log, hashed = run()
    status = _status(log)
    assert status["dataset"] == "ran" and status["export"] == "ran", status
    assert "src/eng_Latn/test.tsv" in hashed
    assert "src/eng_Latn/train.tsv" not in hashed  # unchanged stamp: its digest is the last run's
    exported = (out / "stages" / "dataset" / "output" / "eng_Latn" / "test.tsv").read_bytes()
    assert exported == target.read_bytes()
    log, hashed = run()
    assert set(_status(log).values()) == {"skipped"} and hashed == []


def test_link_or_copy_copies_where_no_link_can_be_made(tmp_path, monkeypatch):
    src = tmp_path / "a.txt"
    src.write_text("x\n", encoding="utf-8")
    assert link_or_copy(src, tmp_path / "b.txt") == "link"
    assert (tmp_path / "b.txt").stat().st_ino == src.stat().st_ino

    def cross_device(*_):
        raise OSError(18, "Invalid cross-device link")

    monkeypatch.setattr(os, "link", cross_device)
    assert link_or_copy(src, tmp_path / "c.txt") == "copy"
    assert (tmp_path / "c.txt").read_text(encoding="utf-8") == "x\n"
    assert (tmp_path / "c.txt").stat().st_ino != src.stat().st_ino


def test_an_input_made_by_an_earlier_stage_is_recorded_as_that_stages_output(release):
    src, out, run = release
    run()
    records = {name: json.loads((out / "stages" / name / "stage.json").read_text(encoding="utf-8"))
               for name in ("dataset", "licenses", "export")}
    made = records["dataset"]["output"]
    assert made == {"path": "stages/dataset/output", "sha256": release_stages.tree_sha256(
        out / "stages" / "dataset" / "output")}
    for name in ("licenses", "export"):  # named by the stage that made it and that stage's digest
        assert records[name]["inputs"]["dataset"] == {"path": made["path"], "stage": "dataset",
                                                      "sha256": made["sha256"]}
    # an input from outside the release: its path (relative to the recipe) and its own digest
    assert records["dataset"]["inputs"] == {
        f"variant:{v}": {"path": f"src/{v}", "sha256": release_stages.tree_sha256(src / v)} for v in VARIANTS}


@pytest.mark.parametrize("text", ["[]", '{"file_stamps": []}', '"stamps"', "{", ""])
def test_a_run_json_without_stamps_gives_none_and_every_file_is_hashed_again(tmp_path, text):
    (tmp_path / "run.json").write_text(text, encoding="utf-8")
    assert release_stages.last_stamps(release_stages.last_run(tmp_path / "run.json")) == {}
    assert release_stages.last_stamps(release_stages.last_run(tmp_path / "missing.json")) == {}


def test_a_rerun_with_nothing_changed_keeps_the_summary_files_and_writes_only_run_json(release, monkeypatch):
    from builder.release import summary as release_summary

    _, out, run = release
    run()
    files = {name: (out / name).stat() for name in ("release.json", "report.html")}
    built = []
    monkeypatch.setattr(release_summary, "build_summary",
                        lambda *a, real=release_summary.build_summary, **k: built.append(1) or real(*a, **k))
    log, _ = run()
    assert set(_status(log).values()) == {"skipped"} and built == []
    for name, st in files.items():  # neither file was written again
        assert ((out / name).stat().st_ino, (out / name).stat().st_mtime_ns) == (st.st_ino, st.st_mtime_ns), name


@pytest.mark.parametrize("change", ["edit release.json", "delete report.html", "run.json without the key",
                                    "another key"])
def test_a_summary_file_changed_since_or_another_summary_key_writes_both_again(release, change):
    _, out, run = release
    run()
    want = {name: (out / name).read_bytes() for name in ("release.json", "report.html")}
    if change == "edit release.json":
        (out / "release.json").write_text("{}\n", encoding="utf-8")
    elif change == "delete report.html":
        (out / "report.html").unlink()
    else:
        log = json.loads((out / "run.json").read_text(encoding="utf-8"))
        if change == "another key":
            log["summary_of"]["key"] = "0" * 64
        else:
            del log["summary_of"]
        (out / "run.json").write_text(json.dumps(log), encoding="utf-8")
    log, _ = run()
    assert set(_status(log).values()) == {"skipped"}
    assert {name: (out / name).read_bytes() for name in want} == want


def test_the_summary_key_changes_with_a_stage_record_the_verdict_and_what_was_set_aside(release):
    from builder.release.pipeline import RunResult, summary_key
    from builder.release.plan import make_plan
    from builder.release.recipe import load_release_recipe

    _, out, run = release
    run()
    plan = make_plan(load_release_recipe(out.parent / "recipe.yaml"), out, jobs=1, quiet=True)
    result = RunResult(stages=[(st.name, "skipped", 0.0) for st in plan.stages])
    key = summary_key(plan, result, False)
    assert summary_key(plan, result, False) == key
    assert summary_key(plan, result, True) != key
    assert summary_key(plan, RunResult(stages=result.stages[:-1]), False) != key
    assert summary_key(plan, RunResult(stages=result.stages, stopped={"stage": "export", "error": "x"}), False) != key
    record = out / "stages" / "licenses" / "stage.json"
    record.write_bytes(record.read_bytes() + b" ")
    assert summary_key(plan, result, False) != key
    record.write_bytes(record.read_bytes()[:-1])
    assert summary_key(plan, result, False) == key
    (out / "superseded" / "qc").mkdir(parents=True)
    assert summary_key(plan, result, False) != key
