"""The release workflow template (examples/ci/release.yml): linted, and its command as it runs there."""
from __future__ import annotations

import subprocess
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = ROOT / "examples" / "ci" / "release.yml"


def test_the_release_workflow_passes_actionlint(actionlint):
    proc = subprocess.run([*actionlint, str(WORKFLOW)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_workflow_runs_the_release_and_uploads_the_report_whatever_the_verdict():
    flow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    job = flow["jobs"]["release"]
    default = flow[True]["workflow_dispatch"]["inputs"]["recipe"]["default"]  # PyYAML reads `on` as true
    assert f"'{default}'" in job["env"]["RECIPE"] and (ROOT / default).is_file()
    runs = "\n".join(s.get("run", "") for s in job["steps"])
    assert 'builder release "$RECIPE" --out "$RELEASE_DIR"' in runs and "exit 1" in runs
    report = next(s for s in job["steps"] if s.get("name") == "Upload the report")
    assert report["if"] == "always()"
    assert "${{ env.RELEASE_DIR }}/report.html" in report["with"]["path"].splitlines()
    export = next(s for s in job["steps"] if s.get("name") == "Upload the export")
    assert export["if"] == "steps.release.outputs.status == '0'"
