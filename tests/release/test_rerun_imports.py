"""A release rerun with nothing changed reads the stage records only: no pandas, no model library.

Planning the release (recipe checks, variant folders, stage records) used to import pandas through
the dataset loader and the MC baselines, and the sanscript tables through the romanizer's scheme
check: about a CPU second of a rerun that runs no stage (issue 25). The rerun runs in a fresh
interpreter, so modules imported by other tests do not count.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from builder.cli.main import cli

ROOT = Path(__file__).resolve().parents[2]
#: the README's release: every kind of entry (annotation, extend, dataset with align, romanize) is planned
EXAMPLE = ROOT / "examples" / "sib200-release.yaml"
HEAVY = ("numpy", "pandas", "pyarrow", "sklearn", "scipy", "indic_transliteration", "statsmodels", "matplotlib")

_PROGRAM = """
import json, sys
from builder.cli.main import cli
try:
    cli.main(sys.argv[1:], prog_name="builder", standalone_mode=False)
finally:
    print(json.dumps(sorted({{m.split(".")[0] for m in sys.modules}} & set({heavy!r}))))
"""


def test_a_rerun_with_nothing_changed_imports_no_heavy_library(tmp_path):
    out = tmp_path / "rel"
    first = CliRunner().invoke(cli, ["-q", "release", str(EXAMPLE), "--out", str(out), "-j", "1"])
    assert first.exit_code == 0, first.output
    proc = subprocess.run([sys.executable, "-c", _PROGRAM.format(heavy=HEAVY), "-q", "release", str(EXAMPLE),
                           "--out", str(out), "-j", "1"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.strip().splitlines()
    assert "0 stage(s) ran" in lines[0]
    assert json.loads(lines[-1]) == []
