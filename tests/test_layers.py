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
PIPELINE = ("cli", "release", "tasks", "assemble", "variants", "export", "evaluation", "recipe", "filters", "readers")
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
    for layer in PIPELINE:  # the pipeline's floors, empty
        (src / "builder" / layer).mkdir()
        (src / "builder" / layer / "__init__.py").write_text("")
    # the release drives the CLI
    (src / "builder" / "release" / "steps.py").write_text("def f():\n    from builder.cli import main\n")
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
    assert "Pipeline: cli > release > tasks > stages > assembly recipe > filters > readers BROKEN" in out, out
    assert "builder.release.steps -> builder.cli" in out, out
    assert "schemas.runtime.bad -> schemas.codes" in out, out


def import_cycles(packages=PACKAGES) -> list[list[str]]:
    """Every group of modules that import each other, directly or through others (lazy imports
    count: grimp reads every import statement, except those under ``if TYPE_CHECKING:``, which name a
    type for annotations and never run), as sorted lists; none when the graph is acyclic."""
    import sys

    import grimp

    graph = grimp.build_graph(*packages, include_external_packages=False, exclude_type_checking_imports=True,
                              cache_dir=None)
    edges = {m: graph.find_modules_directly_imported_by(m) for m in graph.modules}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                cycles.append(sorted(group))

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10 * len(edges) + 100))
    try:
        for module in sorted(edges):
            if module not in index:
                visit(module)
    finally:
        sys.setrecursionlimit(limit)
    return sorted(cycles)


def test_no_module_imports_itself_through_others():
    assert import_cycles() == []


def test_a_cycle_is_found(tmp_path, monkeypatch):
    pkg = tmp_path / "loopy"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from . import b\n")
    (pkg / "b.py").write_text("def f():\n    from . import c\n")
    (pkg / "c.py").write_text("import loopy.a\n")
    (pkg / "d.py").write_text("from . import a\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert import_cycles(("loopy",)) == [["loopy.a", "loopy.b", "loopy.c"]]


def test_no_loose_assembly_modules():
    assert not sorted(p.name for p in (ROOT / "builder").glob("assemble_*.py"))
    assert not (ROOT / "builder" / "assemble.py").exists()
