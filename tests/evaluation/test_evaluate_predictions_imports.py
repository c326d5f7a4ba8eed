"""`builder evaluate predictions` reads and scores answer files on the standard library.

pandas, pyarrow, numpy and scipy together cost most of a CPU second to
import; scoring an answer file that carries its gold labels needs none of them
(issue 25). ``--gold`` loads a built dataset, and ``--ci clopper-pearson``
takes scipy's beta quantiles; those two may import them. Each case runs the
CLI in a fresh interpreter, so modules imported by other tests do not count.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
DATA = ROOT / "tests" / "data"
HEAVY = ("pandas", "pyarrow", "numpy", "scipy")

_PROGRAM = """
import json, sys
from builder.cli.main import cli
try:
    cli.main(sys.argv[1:], prog_name="builder", standalone_mode=False)
finally:
    print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in {heavy!r})))
"""


def _heavy_modules_after(args: list, tmp_path: Path) -> list[str]:
    proc = subprocess.run([sys.executable, "-c", _PROGRAM.format(heavy=HEAVY), "evaluate", "predictions",
                           *map(str, args), "--out", str(tmp_path / "out")],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "out" / "items.jsonl").exists()
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("args", [
    pytest.param([DATA / "sib200" / "llm-outputs" / "gpt-4" / "arb_Arab.tsv", "--task", "topic"], id="sib200-tsv"),
    pytest.param([*sorted((DATA / "export" / "lm-eval-output" / "dummy-a").glob("samples_sib_*.jsonl")),
                  "--task", "topic"], id="lm-eval-samples"),
])
def test_answers_with_their_gold_are_scored_without_pandas(args, tmp_path):
    assert _heavy_modules_after(args, tmp_path) == []

