"""``builder release``: recipe checks, a full release, resume after SIGKILL, the gate, interruptions."""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from builder.cli.main import cli
from builder.release.recipe import load_release_recipe, release_from_dict

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "release"
MINI = DATA / "mini-release.yaml"
FAILING = DATA / "failing-gate.yaml"
#: The one file that says what this run did (ran or skipped, seconds): not compared between runs.
RUN_LOG = "run.json"


def _release(args, env=None, check=None):
    """``builder release ARGS`` as a user runs it (a separate process: signals, exit codes, stdout)."""
    full = dict(os.environ, **(env or {}))
    # SIGINT as a terminal delivers it: a test run started in the background inherits SIGINT ignored,
    # and Python then never turns it into KeyboardInterrupt
    proc = subprocess.run([sys.executable, "-m", "builder", "release", *map(str, args)], capture_output=True,
                          text=True, env=full, cwd=ROOT, timeout=600,
                          preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    if check is not None:
        assert proc.returncode == check, proc.stderr[-3000:]
    return proc


def _in_process(args, check=None):
    """``builder release ARGS`` in this process (click's runner), for a run that is not about the process
    (its signals, exit by signal, stdout as a terminal gets it): a subprocess spent most of a release's
    time importing the libraries this process has imported already."""
    res = CliRunner().invoke(cli, ["release", *map(str, args)])
    if res.exception is not None and not isinstance(res.exception, SystemExit):
        raise res.exception
    proc = subprocess.CompletedProcess(["builder", "release", *map(str, args)], res.exit_code, res.stdout,
                                       res.stderr)
    if check is not None:
        assert proc.returncode == check, proc.stderr[-3000:]
    return proc


def _files(root: Path) -> dict[str, str]:
    """sha256 of every file under ``root`` (hidden files included: no temporary may be left behind)."""
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file() and p.name != RUN_LOG}


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """One uninterrupted release of the mini recipe, and what it printed (in process: what the process itself
    does, its signals and exit codes, is tested below with a subprocess). A test that reads what a later run
    does runs it itself, so that mutmut, which links a test to the functions called while it runs (a
    module's fixture runs once, in its first test), links it to the release's code."""
    out = tmp_path_factory.mktemp("ref") / "rel"
    first = _in_process([MINI, "--out", out, "-j", "1"], check=0)
    return out, first


def _copy(reference, tmp_path: Path) -> Path:
    """A copy of the reference release, for a test's own later run."""
    out = tmp_path / "rel"
    shutil.copytree(reference[0], out)
    return out


# -- the recipe ----------------------------------------------------------------------------------------------

def test_the_example_recipes_load():
    for name in ("sib200-release.yaml", "belebele-train-release.yaml"):
        recipe = load_release_recipe(ROOT / "examples" / name)
        assert recipe.variants and recipe.pivot == "eng_Latn"


@pytest.mark.parametrize("change, message", [
    ({"version": 2}, "version: expected 1, found 2"),
    ({"colour": "red"}, "unknown key 'colour'"),
    ({"pivot": "eng_Latin"}, "pivot"),
    ({"variants": []}, "variants: expected a non-empty list"),
    ({"variants": [{"extend": {"variant": "nqo_Nkoo", "from": "eng_Latn"}, "romanize": {"from": "x"}}]},
     "expected exactly one of"),
    ({"variants": [{"dataset": "no/such/folder"}]}, "variants[0].dataset: 'no/such/folder' does not exist"),
    ({"variants": [{"romanize": {"from": "hin_Deva", "colour": 1}}]}, "variants[0].romanize.colour"),
    ({"baselines": {"names": []}}, "baselines.names"),
    ({"qc": {"config": "missing.yaml"}}, "qc.config"),
])
def test_a_bad_recipe_is_one_error_naming_the_key(change, message):
    import yaml

    data = yaml.safe_load(MINI.read_text(encoding="utf-8"))
    data.update(change)
    with pytest.raises(Exception) as info:
        release_from_dict(data, file=MINI)
    assert message in str(info.value)
    assert str(MINI) in str(info.value)


def test_a_bad_recipe_through_the_cli_is_one_line(tmp_path):
    bad = tmp_path / "r.yaml"
    bad.write_text(MINI.read_text(encoding="utf-8").replace("pivot: eng_Latn", "pivot: eng_Latn\nextra: 1"),
                   encoding="utf-8")
    res = CliRunner().invoke(cli, ["release", str(bad), "--out", str(tmp_path / "out")])
    assert res.exit_code == 2 or res.exit_code == 1
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "extra" in lines[0] and str(bad) in lines[0]
    assert not (tmp_path / "out").exists()


def test_a_variant_made_from_one_not_yet_made_is_refused(tmp_path):
    import yaml

    from builder.release.plan import make_plan
    from schemas.errors import RecipeError

    data = yaml.safe_load(MINI.read_text(encoding="utf-8"))
    data["variants"] = data["variants"][1::-1]  # the projection before the annotation that makes its source
    recipe = release_from_dict(data, file=MINI)
    with pytest.raises(RecipeError, match="variants\\[0\\].extend.from: variant eng_Latn is not made by an "
                                          "earlier entry"):
        make_plan(recipe, tmp_path / "out", jobs=1)


# -- a whole release -----------------------------------------------------------------------------------------

def test_a_release_writes_every_stage_an_export_and_a_report(reference):
    import datasets

    out, first = reference
    stages = sorted(p.name for p in (out / "stages").iterdir())
    assert stages == sorted(["agreement-eng_Latn", "adjudicate-eng_Latn", "curate-eng_Latn", "split-eng_Latn",
                             "variant-eng_Latn", "extend-nqo_Nkoo", "align-hin_Deva", "dataset", "qc", "licenses",
                             "baselines", "export"])
    for name in stages:
        record = json.loads((out / "stages" / name / "stage.json").read_text(encoding="utf-8"))
        assert record["stage"] == name and record["tool"]["name"] == "mc-dataset-builder"
        assert all(len(i["sha256"]) == 64 for i in record["inputs"].values())
        assert len(record["output"]["sha256"]) == 64
    ds = datasets.load_dataset(str(out / "export"), "nqo_Nkoo")
    assert ds["test"].num_rows == 203 and ds["train"].num_rows == 701
    assert (out / "export" / "lm_eval").is_dir()
    summary = json.loads((out / "release.json").read_text(encoding="utf-8"))
    assert summary["gate"]["verdict"] == "pass" and summary["released"] is True
    assert [v["variant"] for v in summary["variants"]] == ["eng_Latn", "hin_Deva", "nqo_Nkoo"]
    assert summary["variants"][1]["rows"] == {"train": 701, "dev": 100, "test": 203}
    assert {d["reason"] for d in summary["drops"] if d["source"] == "curation"} >= {"min_count", "remove_labels"}
    assert summary["agreement"]["items"] == 12 and len(summary["agreement"]["matrix"]) == 10
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "nqo_Nkoo" in html and "<html" in html
    # stdout is the release's own summary line; the stages' output went to stderr
    assert first.stdout.count("\n") == 1 and first.stdout.startswith("release mini-release: 3 variant(s), gate pass")


def test_the_card_records_gate_licenses_agreement_and_baselines(reference):
    card = (reference[0] / "export" / "README.md").read_text(encoding="utf-8")
    assert "Gate: **passed**." in card
    assert "## Annotator agreement" in card and "Measured on a 12-item sample, 4 annotators:" in card
    assert "## Baseline scores" in card and "| `nqo_Nkoo` | 25.1 [19.7, 31.5] (n=203) |" in card
    assert "CC-BY-SA-4.0" in card


def test_a_second_run_with_nothing_changed_skips_every_stage(reference, tmp_path):
    out = _copy(reference, tmp_path)
    second = _in_process([MINI, "--out", out, "-j", "1"], check=0)
    assert "12 up to date" in second.stdout and "0 stage(s) ran" in second.stdout
    log = json.loads((out / RUN_LOG).read_text(encoding="utf-8"))
    assert {s["status"] for s in log["stages"]} == {"skipped"}
    assert second.stderr.count("up to date, skipped") == 12
    # run.json lists the stages in the plan's order, as the progress lines number them; a skipped stage took
    # no time
    said = re.findall(r"release: \[(\d+)/12\] ([^\s:]+).*: up to date, skipped", second.stderr)
    assert said == [(str(i), s["name"]) for i, s in enumerate(log["stages"], 1)]
    assert all((s["seconds"], s["cpu_seconds"]) == (0.0, 0.0) for s in log["stages"])


def test_a_changed_input_reruns_its_stage_and_those_after_it(reference, tmp_path):
    out = _copy(reference, tmp_path)
    _in_process([MINI, "--out", out, "-j", "1", "--from", "qc"], check=0)
    log = json.loads((out / RUN_LOG).read_text(encoding="utf-8"))
    status = {s["name"]: s["status"] for s in log["stages"]}
    assert status["dataset"] == "skipped" and status["qc"] == "ran" and status["export"] == "ran"
    times = {s["name"]: (s["seconds"], s["cpu_seconds"]) for s in log["stages"]}
    assert times["qc"][0] > 0 and times["qc"][1] > 0 and times["dataset"] == (0.0, 0.0)  # each stage's own
    assert _files(out) == _files(reference[0])  # same inputs, same bytes
    # run.json lists the stages in the plan's order, which release.json's stages follow
    summary = json.loads((out / "release.json").read_text(encoding="utf-8"))
    assert [s["name"] for s in log["stages"]] == [s["name"] for s in summary["stages"]]


def test_what_a_killed_run_left_of_the_releases_own_files_and_stage_records_is_removed(reference, tmp_path):
    """The temporary names a killed run left of release.json, report.html, run.json and a stage's record
    (its process gone: a pid above Linux's largest) are removed by the next run, even one that skips every
    stage; it then holds what an uninterrupted run holds."""
    out = _copy(reference, tmp_path)
    _in_process([MINI, "--out", out, "-j", "1"], check=0)  # the copy's stamps recorded: the next run writes
    dead = 4194305                                          # only run.json, so its writers clean up nothing else
    left = [out / f".{name}.{dead}.0123abcd.tmp" for name in ("release.json", "report.html", "run.json")]
    left.append(out / "stages" / "qc" / f".stage.json.{dead}.0123abcd.tmp")
    for path in left:
        path.write_text("half", encoding="utf-8")
    _in_process([MINI, "--out", out, "-j", "1"], check=0)
    assert [p.name for p in left if p.exists()] == []
    assert _files(out) == _files(reference[0])


def test_allowing_a_failing_gate_where_the_gate_passed_allows_nothing(reference, tmp_path):
    out = _copy(reference, tmp_path)
    _in_process([MINI, "--out", out, "-j", "1", "--from", "export", "--allow-failing-gate"], check=0)
    gate = json.loads((out / "release.json").read_text(encoding="utf-8"))["gate"]
    assert (gate["verdict"], gate["allowed_failing"]) == ("pass", False)


def test_two_workers_write_the_same_bytes_and_run_independent_stages_together(reference, tmp_path):
    out = tmp_path / "rel"
    res = _in_process([MINI, "--out", out, "-j", "2"], check=0)
    assert "extend-nqo_Nkoo: done in" in res.stderr and "(1 of 2 run together)" in res.stderr
    assert _files(out) == _files(reference[0])


def test_stages_that_read_each_other_run_one_after_the_other():
    from builder.release.pipeline import batches
    from builder.release.plan import make_plan

    recipe = load_release_recipe(ROOT / "examples" / "sib200-release.yaml")
    plan = make_plan(recipe, ROOT / "out" / "never-written", jobs=2)
    names = [[st.name for st in b] for b in batches(plan.stages)]
    assert ["extend-nqo_Nkoo", "align-hin_Deva"] in names      # both read only the pivot
    assert ["romanize-hin_Latn"] in names                        # reads align-hin_Deva's output
    assert all(len(b) == 1 for b in names if b[0] in ("dataset", "qc", "export"))


def test_from_an_unknown_stage_is_a_usage_error(tmp_path):
    res = CliRunner().invoke(cli, ["release", str(MINI), "--out", str(tmp_path / "o"), "--from", "nope"])
    assert res.exit_code == 2 and "--from nope: no such stage; stages: agreement-eng_Latn, " in res.stderr


# -- resume after a crash --------------------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("point", [
    "stage-started:split-eng_Latn",      # between two stages
    "stage-recorded:extend-nqo_Nkoo",    # a stage's output written and recorded
    "new-moved-in",                      # inside the first command, as its output is swapped in
    "stage-started:qc",
    "read-nqo_Nkoo",                     # a qc worker reading a variant
    "stage-started:export",
    "release-set-aside",                 # every stage done, what the run does not stand behind moved aside
])
def test_killed_anywhere_a_rerun_ends_with_the_same_bytes(reference, tmp_path, point):
    out = tmp_path / "rel"
    killed = _release([MINI, "--out", out, "-j", "1"], env={"BUILDER_FAULT_POINT": point})
    assert killed.returncode == -signal.SIGKILL, (point, killed.returncode, killed.stderr[-2000:])
    assert not (out / "report.html").exists()
    _in_process([MINI, "--out", out, "-j", "1"], check=0)
    assert _files(out) == _files(reference[0])


@pytest.mark.parametrize("signame, code", [("INT", 130), ("TERM", 143)])
def test_an_interrupted_stage_prints_one_line_and_keeps_earlier_outputs(reference, tmp_path, signame, code):
    out = _copy(reference, tmp_path)
    before = _files(out / "stages" / "dataset")
    # the qc command is interrupted while a worker reads a variant; every earlier stage is up to date
    res = _release([MINI, "--out", out, "-j", "1", "--from", "qc"],
                   env={"BUILDER_FAULT_POINT": "read-nqo_Nkoo", "BUILDER_FAULT_SIGNAL": signame})
    assert res.returncode == code, res.stderr[-2000:]
    errors = [line for line in res.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "interrupted by" in errors[0]
    assert "Traceback" not in res.stderr
    assert _files(out / "stages" / "dataset") == before
    assert not [p for p in out.rglob(".*") if p.name != ".builder.json"]


# -- the gate ------------------------------------------------------------------------------------------------

def test_a_failing_gate_stops_before_the_export(tmp_path):
    out = tmp_path / "rel"
    res = _in_process([FAILING, "--out", out, "-j", "1"])
    assert res.returncode == 1
    assert "the qc gate failed (1 check(s): hin_Deva:pivot_consistency)" in res.stdout
    assert not (out / "export").exists()
    summary = json.loads((out / "release.json").read_text(encoding="utf-8"))
    assert summary["released"] is False and summary["gate"]["verdict"] == "fail"
    assert summary["gate"]["failing"][0]["check"] == "pivot_consistency"
    run = json.loads((out / "run.json").read_text(encoding="utf-8"))
    assert (run["stopped_at_gate"], run["stopped_at"]) == (True, None)
    assert run["note"] == "this run only; every other file of the release is the same whichever run made it"
    assert (out / "report.html").is_file()
    allowed = _in_process([FAILING, "--out", out, "-j", "1", "--allow-failing-gate"], check=0)
    assert "gate fail (failing gate allowed)" in allowed.stdout
    card = (out / "export" / "README.md").read_text(encoding="utf-8")
    assert "Gate: **FAILED**." in card and "--allow-failing-gate" in card
    summary = json.loads((out / "release.json").read_text(encoding="utf-8"))
    assert summary["released"] is True and summary["gate"]["allowed_failing"] is True


def test_a_foreign_folder_is_not_used_as_a_release(tmp_path):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("keep me", encoding="utf-8")
    res = CliRunner().invoke(cli, ["release", str(MINI), "--out", str(out)])
    assert res.exit_code == 2 and (out / "notes.txt").read_text(encoding="utf-8") == "keep me"


def test_every_warning_drop_and_skip_reaches_the_summary_the_report_and_the_card(reference):
    """Issue 24: extend's length_outliers warning (nqo_Nkoo index_id 556, z = -3.84, as its variant.json
    records it), the dataset's curation drops kept apart from the agreement sample's unresolved items,
    the labels each curation step dropped, the skipped contamination check, the 12-item sample."""
    root = reference[0]
    summary = json.loads((root / "release.json").read_text(encoding="utf-8"))
    page = (root / "report.html").read_text(encoding="utf-8")
    card = (root / "export" / "README.md").read_text(encoding="utf-8")
    attribution = (root / "export" / "ATTRIBUTION.md").read_text(encoding="utf-8")
    info = json.loads((root / "stages" / "extend-nqo_Nkoo" / "output" / "nqo_Nkoo" / "variant.json").read_text())
    assert info["checks"]["length_outliers"]["items"] == [{"index_id": 556, "z": -3.84}]
    assert summary["warnings"] == [{"stage": "extend-nqo_Nkoo", "variant": "nqo_Nkoo",
                                    "message": "length_outliers: 1 flagged (see variant.json)",
                                    "items": ["index_id 556 (z = -3.84)"]}]
    assert "length_outliers: 1 flagged (see variant.json)" in page and "index_id 556 (z = -3.84)" in page
    assert "## Warnings" in card and "`nqo_Nkoo`, `length_outliers`: 1 lines flagged (index_id 556, z = -3.84)." in card
    # 323 + 107 curation drops are the dataset's; the 4 unresolved of the 12 judged items are the sample's
    dataset = [d for d in summary["drops"] if d["in_dataset"]]
    side = [d for d in summary["drops"] if not d["in_dataset"]]
    assert [(d["stage"], d["reason"], d["count"]) for d in side] == [("adjudicate-eng_Latn", "unresolved", 4)]
    assert sum(d["count"] for d in dataset) == 430
    # the labels each step dropped, as the curation recipe's comments count them (examples/sib200-curation.yaml)
    labels = {d["reason"]: d["labels"] for d in dataset}
    assert labels == {"min_count": {"business": 80, "disasters": 73, "crime": 72, "education": 52, "religion": 46},
                      "remove_labels": {"nature": 107}}
    text = " ".join(page.split())
    assert "430 records dropped from the dataset" in text and "434" not in text
    assert "4 items of the agreement sample (adjudication: unresolved)" in text
    assert "min_count (business 80, disasters 73, crime 72, education 52, religion 46)" in text
    # the skipped contamination check, explained in the summary, the report and the card
    skipped = {s["check"]: s for s in summary["gate"]["skipped"]}
    assert skipped["contamination"]["variants"] == ["eng_Latn", "hin_Deva", "nqo_Nkoo"]
    assert "--contamination-against TESTSET" in skipped["contamination"]["release"]
    assert "<b>contamination</b> skipped on 3 variants" in page
    assert "- `contamination` on `eng_Latn`, `hin_Deva`, `nqo_Nkoo`: no --contamination-against set given." in card
    # the agreement is of a 12-item sample, not of the dataset's items
    assert summary["agreement"]["sample"] is True and summary["agreement"]["items"] == 12
    assert "Measured on a 12-item sample (sib_small_long.csv)" in text
    # ATTRIBUTION.md names a card section only if the card has it
    assert ("Filters applied" in attribution) is ("## Filters applied" in card)
