"""The release folder agrees with the last run (issue 24): what ``DIR`` holds, what ``release.json`` says
and what ``report.html`` shows, after a failing gate, ``--allow-failing-gate``, a stage's error, another
recipe, and a kill and resume.

Every case starts from one release of the smallest recipe whose gate fails (English curated and split,
the shipped Hindi taken as split elsewhere: ``pivot_consistency`` fails), made once with
``--allow-failing-gate`` in a folder of its own with copies of its inputs, so a test can break an input
without touching ``tests/data``. Later runs find every stage before the export up to date, so each step
costs about one export.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner

from builder.cli.main import cli

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
RECIPE = """\
# the gate fails: Hindi is split as SIB-200 splits it, the English pivot anew (tests/data/release/failing-gate.yaml)
version: 1
name: failing-gate
pivot: eng_Latn
license: CC-BY-SA-4.0
variants:
  - annotation: {variant: eng_Latn, labelled: eng_14, curation: curation.yaml}
  - dataset: annotated
    only: [hin_Deva]
"""
STAGES = ["curate-eng_Latn", "split-eng_Latn", "variant-eng_Latn", "dataset", "qc", "licenses", "export"]
DEBRIS = re.compile(r"\..+\.(\d+\.[0-9a-f]{8}\.(staging|tmp)|\d+\.(old|commit)|lock)$")


def _case(where: Path) -> Path:
    where.mkdir(parents=True)
    shutil.copytree(DATA / "sib200" / "eng_14", where / "eng_14")
    shutil.copytree(DATA / "sib200" / "annotated" / "hin_Deva", where / "annotated" / "hin_Deva")
    shutil.copyfile(ROOT / "examples" / "sib200-curation.yaml", where / "curation.yaml")
    (where / "recipe.yaml").write_text(RECIPE, encoding="utf-8")
    return where


def _release(case: Path, *more: str):
    """``builder release`` in this process (click's runner): exit code, stdout, stderr apart."""
    runner = CliRunner(mix_stderr=False) if "mix_stderr" in CliRunner.__init__.__code__.co_varnames else CliRunner()
    return runner.invoke(cli, ["release", str(case / "recipe.yaml"), "--out", str(case / "rel"), "-j", "1", *more])


@pytest.fixture(scope="module")
def seed(tmp_path_factory) -> Path:
    case = _case(tmp_path_factory.mktemp("seed") / "case")
    res = _release(case, "--allow-failing-gate")
    assert res.exit_code == 0, res.stderr[-2000:]
    return case


@pytest.fixture
def case(seed, tmp_path) -> Path:
    """A copy of the seed (recipe, inputs, release folder): its stages are up to date there too, since a
    stage records its inputs relative to the recipe's folder."""
    out = tmp_path / "case"
    shutil.copytree(seed, out, symlinks=True)
    return out


class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.hrefs: list[str] = []
        self.ids: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "a" and a.get("href") and not a["href"].startswith("#"):
            self.hrefs.append(a["href"])
        if a.get("id"):
            self.ids.append(a["id"])


def _errors(res) -> list[str]:
    return [line for line in res.stderr.splitlines() if line.startswith("error:")]


def check_agrees(rel: Path, last: str) -> dict:
    """The invariant: the folder, ``release.json`` and ``report.html`` say what the last run did.

    ``last``: ``released`` (the gate failing allowed), ``gate`` (stopped by the gate) or ``stopped:STAGE``.
    """
    summary = json.loads((rel / "release.json").read_text(encoding="utf-8"))
    released = last == "released"
    assert summary["released"] is released
    assert (rel / "export").is_dir() is released
    status = {s["name"]: s["status"] for s in summary["stages"]}
    assert list(status) == STAGES
    if released:
        assert set(status.values()) == {"done"} and summary["stopped"] is None
        card = (rel / "export" / "README.md").read_text(encoding="utf-8")
        assert "Gate: **FAILED**." in card and "--allow-failing-gate" in card
    elif last == "gate":
        assert status["export"] == "not run (the gate failed)" and summary["stopped"] is None
        assert summary["gate"]["verdict"] == "fail"
    else:
        stage = last.split(":", 1)[1]
        assert summary["stopped"]["stage"] == stage and status[stage] == "failed"
        after = STAGES[STAGES.index(stage) + 1:]
        assert all(status[s] == "not reached" for s in after) and summary["gate"]["verdict"] == "not run"
    # what the summary says was done has its record; nothing under stages/ that the plan lacks
    for name, st in status.items():
        assert (rel / "stages" / name / "stage.json").is_file() or st != "done"
    assert {p.name for p in (rel / "stages").iterdir()} <= set(STAGES)
    # what was set aside is listed, each with why; nothing else is there
    listed = sorted(e["stage"] for e in summary["superseded"])
    held = sorted(p.name for p in (rel / "superseded").iterdir()) if (rel / "superseded").is_dir() else []
    assert listed == held
    for e in summary["superseded"]:
        assert json.loads((rel / e["path"] / "superseded.json").read_text(encoding="utf-8"))["reason"] == e["reason"]
    # every file the summary and the report link is there; the export is linked only when released
    paths = [link["path"] for link in summary["links"]]
    assert all((rel / p).is_file() for p in paths)
    assert ("export/README.md" in paths) is released
    page = (rel / "report.html").read_text(encoding="utf-8")
    links = _Links()
    links.feed(page)
    assert all((rel / h).exists() for h in links.hrefs), links.hrefs
    assert any(h.startswith("export/") for h in links.hrefs) is released
    assert ("Not released" in page) is (not released)
    assert ("superseded" in links.ids) is bool(summary["superseded"])
    for e in summary["superseded"]:
        assert f'href="{e["path"]}"' in page
    # no temporary of a killed writer, and the marker names the recipe
    assert not [p for p in rel.rglob(".*") if DEBRIS.match(p.name)]
    marker = json.loads((rel / ".builder.json").read_text(encoding="utf-8"))
    assert marker["recipe"]["name"] == "failing-gate"
    return summary


# -- each case through the CLI -----------------------------------------------------------------------------

def test_the_seed_agrees_with_its_run(seed):
    check_agrees(seed / "rel", "released")


def test_a_failing_gate_moves_the_earlier_export_aside_and_says_so(case):
    rel = case / "rel"
    card = (rel / "export" / "README.md").read_bytes()
    res = _release(case)
    assert res.exit_code == 1
    assert "stopped before the export" in res.stdout and not _errors(res)
    moved = [line for line in res.stderr.splitlines() if "aside" in line]
    assert moved == [f"release: moved export/ aside to {rel / 'superseded' / 'export'}/ (this run's qc gate "
                     "failed and --allow-failing-gate was not given, so the export of an earlier run is not this "
                     "release; it is not deleted)"]
    summary = check_agrees(rel, "gate")
    assert (rel / "superseded" / "export" / "output" / "README.md").read_bytes() == card  # kept, not deleted
    assert (rel / "superseded" / "export" / "stage.json").is_file()
    assert summary["superseded"] == [{"stage": "export", "was": "export", "made_by": "failing-gate",
                                      "path": "superseded/export", "reason": summary["superseded"][0]["reason"]}]
    # released again: the export is made anew and the copy set aside stays listed
    again = _release(case, "--allow-failing-gate")
    assert again.exit_code == 0, again.stderr[-2000:]
    check_agrees(rel, "released")
    # stopped by the gate a second time: the new copy replaces the old one, and the line says so
    third = _release(case)
    assert third.exit_code == 1
    assert "it replaces the copy an earlier run moved there" in third.stderr
    check_agrees(rel, "gate")


def test_another_recipe_into_a_release_folder_is_refused(case):
    rel = case / "rel"
    before = sorted((p.relative_to(rel).as_posix(), p.read_bytes()) for p in rel.rglob("*") if p.is_file())
    other = ROOT / "examples" / "belebele-train-release.yaml"
    made_by = json.loads((rel / ".builder.json").read_text(encoding="utf-8"))["recipe"]["file"]  # the seed's
    res = CliRunner().invoke(cli, ["release", str(other), "--out", str(rel)])
    assert res.exit_code == 2
    errors = [line for line in res.output.splitlines() if line.startswith("error:")]
    assert errors == [f"error: {rel}: this folder holds the release of 'failing-gate' (recipe {made_by}), "
                      f"not of 'belebele-train' (recipe {other}): a release folder holds one recipe's release; "
                      "choose another --out, or remove this folder first"]
    after = sorted((p.relative_to(rel).as_posix(), p.read_bytes()) for p in rel.rglob("*") if p.is_file())
    assert after == before


def test_a_release_folder_from_before_the_marker_named_its_recipe_is_known_by_its_summary(case):
    rel = case / "rel"
    (rel / ".builder.json").write_text('{"command": "release"}\n', encoding="utf-8")  # as `cp -a` of an older one
    res = CliRunner().invoke(cli, ["release", str(ROOT / "examples" / "belebele-train-release.yaml"), "--out", str(rel)])
    assert res.exit_code == 2
    errors = [line for line in res.output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "holds the release of 'failing-gate', not of 'belebele-train'" in errors[0]
    assert (rel / "export" / "README.md").is_file()  # untouched
    ok = _release(case, "--allow-failing-gate")  # its own recipe is still welcome, and names itself now
    assert ok.exit_code == 0, ok.stderr[-2000:]
    check_agrees(rel, "released")


def _break_curation_input(case: Path) -> None:
    """A line of one field in the English labelled set: the curate stage fails (exit 1, naming the line)."""
    train = case / "eng_14" / "train.tsv"
    lines = train.read_text(encoding="utf-8").splitlines(keepends=True)
    train.write_text("".join([lines[0], "one field only\n", *lines[2:]]), encoding="utf-8")


def test_a_stage_error_stops_the_run_and_the_summary_says_so(case):
    rel = case / "rel"
    _break_curation_input(case)
    res = _release(case, "--allow-failing-gate")
    assert res.exit_code == 1, res.stderr[-2000:]
    errors = _errors(res)
    assert errors == [f"error: {case / 'eng_14' / 'train.tsv'}, line 2: expected 3 fields as in the header, found 1"]
    summary = check_agrees(rel, "stopped:curate-eng_Latn")
    assert summary["superseded"][0]["reason"] == ("this run stopped at stage curate-eng_Latn, so the export of "
                                                   "an earlier run is not this release")
    assert summary["stopped"]["error"] == errors[0][len("error: "):]
    run = json.loads((rel / "run.json").read_text(encoding="utf-8"))
    assert (run["stopped_at_gate"], run["stopped_at"]) == (False, "curate-eng_Latn")
    assert "stopped at stage <code>curate-eng_Latn</code>" in (rel / "report.html").read_text(encoding="utf-8")
    # the stages it did not reach keep their outputs for the next run, which is not shown as this one's
    assert (rel / "stages" / "qc" / "stage.json").is_file()
    assert not [link for link in summary["links"] if link["path"].startswith("stages/qc/")]


# -- any sequence of runs --------------------------------------------------------------------------------

def _kill(case: Path, point: str) -> None:
    """A run killed (SIGKILL) at a fault point, as a separate process."""
    env = dict(os.environ, BUILDER_FAULT_POINT=point)
    proc = subprocess.run([sys.executable, "-m", "builder", "release", str(case / "recipe.yaml"), "--out",
                           str(case / "rel"), "-j", "1"], capture_output=True, text=True, env=env, cwd=ROOT,
                          timeout=600)
    assert proc.returncode == -signal.SIGKILL, proc.stderr[-2000:]


#: Each step: what runs, and what the folder must then say (None: a killed run, checked by the next step).
STEPS = {
    "allow": (("--allow-failing-gate",), 0, "released"),
    "gate": ((), 1, "gate"),
    "break": (("--allow-failing-gate",), 1, "stopped:curate-eng_Latn"),
}


@pytest.mark.slow
@pytest.mark.parametrize("sequence", [
    ["gate", "allow", "break", "fix", "allow"],
    # killed halfway through moving the export aside (its record moved, the output not yet): the next
    # run finishes the move
    ["kill:superseded-record-moved:export", "gate", "allow"],
    # killed as a run starts its export: the last finished run's summary still agrees with the folder
    ["break", "fix", "gate", "kill:stage-started:export", "allow"],
])
def test_after_any_sequence_of_runs_the_folder_agrees_with_the_last(case, sequence):
    original = (case / "eng_14" / "train.tsv").read_bytes()
    last = "released"  # the seed's
    for step in sequence:
        if step == "fix":
            (case / "eng_14" / "train.tsv").write_bytes(original)
            continue
        if step.startswith("kill:"):
            point = step.split(":", 1)[1]
            _kill(case, point)
            if point.startswith("stage-started:"):  # between whole steps: nothing half-moved
                check_agrees(case / "rel", last)
            continue
        if step == "break":
            _break_curation_input(case)
        args, code, last = STEPS[step]
        res = _release(case, *args)
        assert res.exit_code == code, (sequence, step, res.stderr[-2000:])
        check_agrees(case / "rel", last)


def test_a_warning_of_the_gate_reaches_release_json_and_the_report(case, tmp_path):
    """The qc stage's own warning (a GitHub step summary it cannot append to) is printed, as `builder qc`
    prints it, and kept in release.json and the report; before, the release dropped it."""
    where = tmp_path / "no-such-folder" / "summary.md"
    runner = CliRunner(mix_stderr=False) if "mix_stderr" in CliRunner.__init__.__code__.co_varnames else CliRunner()
    res = runner.invoke(cli, ["release", str(case / "recipe.yaml"), "--out", str(case / "rel"), "-j", "1",
                              "--allow-failing-gate", "--from", "qc"], env={"GITHUB_STEP_SUMMARY": str(where)})
    assert res.exit_code == 0, res.stderr[-2000:]
    line = f"cannot append to GITHUB_STEP_SUMMARY ({where}): No such file or directory"
    assert f"warning: {line}" in res.stderr.splitlines()
    summary = check_agrees(case / "rel", "released")
    assert summary["warnings"] == [{"stage": "qc", "variant": None, "message": line, "items": []}]
    assert line in (case / "rel" / "report.html").read_text(encoding="utf-8")


def test_the_folder_of_a_stage_the_recipe_no_longer_has_is_moved_aside(case):
    """As a stage of an earlier version of the recipe (an extend entry since removed) would be left."""
    rel = case / "rel"
    shutil.copytree(rel / "stages" / "licenses", rel / "stages" / "extend-nqo_Nkoo")
    res = _release(case, "--allow-failing-gate")
    assert res.exit_code == 0, res.stderr[-2000:]
    assert [line for line in res.stderr.splitlines() if "aside" in line] == [
        f"release: moved stages/extend-nqo_Nkoo/output/ aside to {rel / 'superseded' / 'extend-nqo_Nkoo'}/ "
        "(the recipe no longer has this stage; it is not deleted)"]
    summary = check_agrees(rel, "released")
    assert [(e["stage"], e["reason"]) for e in summary["superseded"]] == [
        ("extend-nqo_Nkoo", "the recipe no longer has this stage")]
    assert (rel / "superseded" / "extend-nqo_Nkoo" / "output" / "licenses.json").is_file()
