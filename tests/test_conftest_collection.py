"""The suite's folders can be given to pytest together: ``pytest tests/readers tests/qc``.

Each of those folders has its own conftest.py and none is a package, and the default options collect
doctests from every module (``--doctest-modules``). pytest 9 then imported each conftest.py a second time as
a doctest module named ``conftest`` and stopped with "import file mismatch" against the conftest it had
already loaded from the other folder. mutmut's test selection gives the folders that way, so a resumed
mutation run could not even list its tests. tests/conftest.py's ``pytest_ignore_collect`` keeps conftest
files out of collection; this test runs pytest, in a subprocess, on a small project laid out the same way
with that hook as its only plugin.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

TESTS_CONFTEST = Path(__file__).parent / "conftest.py"


def test_two_folders_with_their_own_conftest_collect_together_in_a_subprocess(tmp_path):
    (tmp_path / "pytest.ini").write_text("[pytest]\naddopts = --doctest-modules -p no:cacheprovider\n",
                                         encoding="utf-8")
    (tmp_path / "conftest.py").write_text(
        "import importlib.util\n"
        f"_spec = importlib.util.spec_from_file_location('_suite_conftest', {str(TESTS_CONFTEST)!r})\n"
        "_mod = importlib.util.module_from_spec(_spec)\n"
        "_spec.loader.exec_module(_mod)\n"
        "pytest_ignore_collect = _mod.pytest_ignore_collect\n", encoding="utf-8")
    for name in ("readers", "qc"):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "conftest.py").write_text(f'"""The {name} folder\'s fixtures."""\nFOLDER = "{name}"\n',
                                            encoding="utf-8")
        (folder / f"test_{name}.py").write_text("def test_one():\n    assert True\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "readers", "qc"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "import file mismatch" not in done.stdout
    assert "2 tests collected" in done.stdout


def test_one_process_runs_the_tests_in_the_order_asked_and_a_worker_starts_the_longest_files():
    # mutmut runs a mutant's linked tests in one process, fastest first, so that a cheap failing test stops
    # it; the longest-first order (for two xdist workers) put a whole release's module fixture before them
    import importlib.util
    from types import SimpleNamespace

    spec = importlib.util.spec_from_file_location("_suite_conftest_order", TESTS_CONFTEST)
    suite = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(suite)
    root = TESTS_CONFTEST.parent.parent
    asked = ["tests/test_conftest_collection.py", "tests/schemas/test_schemas_io.py", "tests/release/test_release.py"]

    def order(config):
        items = [SimpleNamespace(path=root / name) for name in asked]
        suite.pytest_collection_modifyitems(config, items)
        return [item.path.relative_to(root).as_posix() for item in items]

    docs = {"--docs": True}.get  # the docs' blocks left as they are
    assert order(SimpleNamespace(getoption=docs)) == asked
    assert order(SimpleNamespace(getoption=docs, workerinput={"workerid": "gw0"})) == [
        "tests/release/test_release.py", "tests/test_conftest_collection.py", "tests/schemas/test_schemas_io.py"]
