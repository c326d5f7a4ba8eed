"""The package layers hold: builder > qc | annotation | data_cards > schemas (import-linter).

The contract lives in ``pyproject.toml`` under ``[tool.importlinter]``. The
first test runs it on the real tree; the second runs the same contract text
on a tiny tree with deliberate upward and sideways imports (lazy ones
included) and checks that it fails, so a contract that checks nothing would
be noticed.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = ROOT / "pyproject.toml"
PACKAGES = ("schemas", "data_cards", "annotation", "qc", "builder")
RUNTIME_FORBIDDEN = ("codes", "dataset", "features", "io", "licensing", "records", "scripts", "splits", "tables",
                     "variant")


def lint_imports_exe() -> str:
    beside = Path(sys.executable).with_name("lint-imports")
    exe = str(beside) if beside.exists() else shutil.which("lint-imports")
    if exe is None:
        pytest.fail("lint-imports not found: install the test extra (pip install -e '.[test]')")
    return exe


def importlinter_section(text: str) -> str:
    """The ``[tool.importlinter]`` tables of a pyproject.toml, verbatim."""
    out, inside = [], False
    for line in text.splitlines():
        header = line.strip()
        if header.startswith("["):
            inside = header.lstrip("[").startswith("tool.importlinter")
        if inside:
            out.append(line)
    return "\n".join(out) + "\n"


def run_lint(config: Path, cwd: Path, pythonpath: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(pythonpath)}
    return subprocess.run([lint_imports_exe(), str(config), "--no-cache", "--no-logo"], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def test_real_tree_keeps_the_layers_contract():
    section = importlinter_section(PYPROJECT.read_text(encoding="utf-8"))
    assert all(f'"{name}"' in section for name in PACKAGES), section
    result = run_lint(PYPROJECT, ROOT, ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def test_an_upward_import_breaks_the_contract(tmp_path):
    src = tmp_path / "src"
    for name in PACKAGES:
        (src / name).mkdir(parents=True)
        (src / name / "__init__.py").write_text("")
    # qc imports builder lazily, schemas imports qc, annotation imports its sibling qc.
    (src / "qc" / "upward.py").write_text("def f():\n    import builder\n    return builder\n")
    (src / "schemas" / "upward.py").write_text("from qc import upward\n")
    (src / "annotation" / "sideways.py").write_text("import qc.upward\n")
    # the runtime imports a contract module other than the error family
    (src / "schemas" / "runtime").mkdir()
    (src / "schemas" / "runtime" / "__init__.py").write_text("")
    for module in RUNTIME_FORBIDDEN:
        (src / "schemas" / f"{module}.py").write_text("")
    (src / "schemas" / "runtime" / "bad.py").write_text("def f():\n    from schemas import codes\n    return codes\n")
    config = tmp_path / "pyproject.toml"
    config.write_text(importlinter_section(PYPROJECT.read_text(encoding="utf-8")), encoding="utf-8")

    result = run_lint(config, tmp_path, src)
    out = result.stdout + result.stderr
    assert result.returncode != 0, out
    assert "Layers: builder > qc | annotation | data_cards > schemas BROKEN" in out
    for importer, imported in [("qc.upward", "builder"), ("schemas.upward", "qc.upward"),
                               ("annotation.sideways", "qc.upward")]:
        assert f"{importer} -> {imported}" in out, out
    assert "Runtime: schemas.runtime imports only schemas.errors BROKEN" in out, out
    assert "schemas.runtime.bad -> schemas.codes" in out, out
