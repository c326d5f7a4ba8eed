"""The mutation run's ledger (benchmarks/mutation.py save/restore): a run carried from one machine to the next.

mutmut keeps its verdicts in ``mutants/**/*.meta``; a session's machine keeps neither ``/tmp`` nor its
processes, so a run longer than a session is saved to a text ledger in the repository and written back
as ``.meta`` files before ``mutmut run`` generates the mutants again.
"""
from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("mutation_bench", ROOT / "benchmarks" / "mutation.py")
mutation = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(mutation)

META = {
    "builder/release/plan.py": {
        "exit_code_by_key": {
            "builder.release.plan.x_plan__mutmut_1": 1,      # killed
            "builder.release.plan.x_plan__mutmut_2": 0,      # survived
            "builder.release.plan.x_plan__mutmut_3": None,   # not checked yet: left out of the ledger
            "builder.release.plan.xǁPlanǁkeys__mutmut_1": 33,
        },
        "hash_by_function_name": {"x_plan": "aa11", "xǁPlanǁkeys": "bb22"},
        "type_check_error_by_key": {},
        "durations_by_key": {"builder.release.plan.x_plan__mutmut_1": 1.25,
                             "builder.release.plan.x_plan__mutmut_2": 7.5},
        "estimated_durations_by_key": {"builder.release.plan.x_plan__mutmut_1": 9.0},
    },
    "schemas/codes.py": {
        "exit_code_by_key": {"schemas.codes.x_nearest_codes__mutmut_7": -24},
        "hash_by_function_name": {"x_nearest_codes": "cc33", "x_unmutated": "dd44"},
        "type_check_error_by_key": {},
        "durations_by_key": {"schemas.codes.x_nearest_codes__mutmut_7": 30.0},
        "estimated_durations_by_key": {},
    },
}


def write_metas(root: Path, metas: dict) -> None:
    for module, meta in metas.items():
        path = root / (module + ".meta")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(meta), "utf-8")


def test_a_saved_run_is_restored_with_every_decided_verdict_hash_and_duration(tmp_path):
    write_metas(tmp_path / "old", META)
    ledger = tmp_path / "run.tsv"
    mutation.save(tmp_path / "old", ledger)
    mutation.restore(tmp_path / "new", ledger)

    for module, meta in META.items():
        back = json.loads((tmp_path / "new" / (module + ".meta")).read_text("utf-8"))
        decided = {k: v for k, v in meta["exit_code_by_key"].items() if v is not None}
        assert back["exit_code_by_key"] == decided
        assert back["hash_by_function_name"] == meta["hash_by_function_name"]
        assert back["durations_by_key"] == {k: meta["durations_by_key"].get(k, 0.0) for k in decided}
        # mutmut's own loader takes the file as it wrote it (no missing or unknown key)
        assert set(back) == set(meta)
    # and the per-module verdict table reads the restored run as the saved one (with mutmut's own verdict names)
    try:
        import mutmut  # noqa: F401  (the mutation extra)
    except ImportError as err:
        message = f"mutmut is needed for the verdict table ({err}); install it with pip install -e '.[mutation]'"
        if os.environ.get("CI"):  # .ci/run installs the extra: a missing one fails, never skips
            pytest.fail(message)
        pytest.skip(message)  # a user's `pip install -e '.[test]'` (the README's set-up) skips, with the reason
    saved = {row["module"]: row for row in mutation.verdicts(tmp_path / "old")}
    restored = {row["module"]: row for row in mutation.verdicts(tmp_path / "new")}
    assert saved.keys() == restored.keys()
    for module, row in saved.items():
        for column in ("run", "killed", "survived", "timeout", "no tests", "seconds"):
            assert restored[module][column] == row[column], (module, column)


def test_a_later_ledger_laid_over_wins_and_drops_the_verdicts_of_a_function_edited_since(tmp_path):
    write_metas(tmp_path / "old", META)
    ledger, fast = tmp_path / "run.tsv", tmp_path / "fast.tsv"
    mutation.save(tmp_path / "old", ledger)
    mutation.write_ledger(fast, {
        "builder/release/plan.py": {  # x_plan as the run saw it (a survivor killed since); Plan.keys edited
            "exit_code_by_key": {"builder.release.plan.x_plan__mutmut_2": 1,
                                 "builder.release.plan.xǁPlanǁkeys__mutmut_4": 1},
            "hash_by_function_name": {"x_plan": "aa11", "xǁPlanǁkeys": "ee55"},
            "durations_by_key": {"builder.release.plan.x_plan__mutmut_2": 0.5,
                                 "builder.release.plan.xǁPlanǁkeys__mutmut_4": 0.25}}}, "by a test")
    mutation.restore(tmp_path / "new", ledger, added=(fast,))
    back = json.loads((tmp_path / "new" / "builder/release/plan.py.meta").read_text("utf-8"))
    assert back["exit_code_by_key"] == {"builder.release.plan.x_plan__mutmut_1": 1,
                                        "builder.release.plan.x_plan__mutmut_2": 1,
                                        "builder.release.plan.xǁPlanǁkeys__mutmut_4": 1}
    assert back["hash_by_function_name"] == {"x_plan": "aa11", "xǁPlanǁkeys": "ee55"}
    assert back["durations_by_key"]["builder.release.plan.x_plan__mutmut_2"] == 0.5
    codes = json.loads((tmp_path / "new" / "schemas/codes.py.meta").read_text("utf-8"))  # not in the fast ledger
    assert codes["exit_code_by_key"] == {"schemas.codes.x_nearest_codes__mutmut_7": -24}


def test_the_verdicts_with_a_fast_ledger_count_its_kills_only_where_the_function_is_the_runs(tmp_path):
    pytest.importorskip("mutmut")
    write_metas(tmp_path / "run", META)
    fast = tmp_path / "fast.tsv"
    mutation.write_ledger(fast, {"builder/release/plan.py": {
        "exit_code_by_key": {"builder.release.plan.x_plan__mutmut_2": 1, "builder.release.plan.x_plan__mutmut_3": 1,
                             "builder.release.plan.xǁPlanǁkeys__mutmut_1": 1},
        "hash_by_function_name": {"x_plan": "aa11", "xǁPlanǁkeys": "changed"}, "durations_by_key": {}}}, "by a test")
    before = {row["module"]: row for row in mutation.verdicts(tmp_path / "run")}["builder/release/plan.py"]
    after = {row["module"]: row for row in mutation.verdicts(tmp_path / "run", (fast,))}["builder/release/plan.py"]
    assert (before["killed"], before["survived"], before["not checked"]) == (1, 1, 1)
    assert (after["killed"], after["survived"], after["not checked"], after["no tests"]) == (3, 0, 0, 1)


def test_every_survivor_needs_a_reason_given_at_its_functions_present_hash(tmp_path, capsys):
    pytest.importorskip("mutmut")
    root = tmp_path / "run"
    write_metas(root, {**META, "schemas/codes.py": {**META["schemas/codes.py"], "exit_code_by_key": {
        "schemas.codes.x_nearest_codes__mutmut_7": 0, "schemas.codes.x_nearest_codes__mutmut_8": 0}}})
    (root / "mutmut-stats.json").write_text("{}", "utf-8")  # the command reads a run's folder only
    reasons = tmp_path / "reasons.tsv"
    reasons.write_text(
        "# reviewed survivors\n"
        "builder/release/plan.py\tbuilder.release.plan.x_plan__mutmut_2\taa11\tequivalent\tsorted twice\n"
        "schemas/codes.py\tschemas.codes.x_nearest_codes__mutmut_7\tcc33\tunobservable\ta cache size\n"
        "schemas/codes.py\tschemas.codes.x_nearest_codes__mutmut_8\told0\tequivalent\treviewed before an edit\n",
        "utf-8")
    rows = mutation.verdicts(root)
    assert mutation.unreviewed(rows, mutation.read_reasons(reasons)) == ["schemas.codes.x_nearest_codes__mutmut_8"]

    assert mutation.main(["--mutants", str(root), "verdicts", "--reasons", str(reasons)]) == 1
    out, err = capsys.readouterr()
    table = {line.split(" | ")[0].strip("| "): line.strip("| ").split(" | ") for line in out.splitlines()}
    assert table["module"][-5:] == ["equivalent", "unobservable", "out of run", "killable", "no reason"]
    assert table["builder/release/plan.py"][-5:] == ["1", "0", "0", "0", "0"]
    assert table["schemas/codes.py"][-5:] == ["0", "1", "0", "0", "1"]
    assert table["**all**"][-5:] == ["1", "1", "0", "0", "1"]
    assert err.splitlines() == ["no reason: schemas.codes.x_nearest_codes__mutmut_8",
                                f"1 survivors have no reason in {reasons} at their function's present hash"]

    reasons.write_text(reasons.read_text("utf-8").replace("old0", "cc33"), "utf-8")
    assert mutation.main(["--mutants", str(root), "verdicts", "--reasons", str(reasons)]) == 0
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("line", [
    "schemas/codes.py\tschemas.codes.x_f__mutmut_1\tcc33\tprobably fine\twhy",   # no such category
    "schemas/codes.py\tschemas.codes.x_f__mutmut_1\tcc33\tequivalent\t ",       # no reason
    "schemas/codes.py\tschemas.codes.x_f__mutmut_1\tequivalent\twhy",            # a field missing
])
def test_a_malformed_reason_line_names_its_file_and_number(tmp_path, line):
    reasons = tmp_path / "reasons.tsv"
    reasons.write_text("# reviewed survivors\n" + line + "\n", "utf-8")
    with pytest.raises(SystemExit, match=rf"^{reasons}:2: not a reason line .*'schemas/codes.py"):
        mutation.read_reasons(reasons)


def test_a_restore_into_a_generated_mutants_folder_is_refused(tmp_path):
    write_metas(tmp_path / "old", META)
    ledger = tmp_path / "run.tsv"
    mutation.save(tmp_path / "old", ledger)
    (tmp_path / "new" / "schemas").mkdir(parents=True)
    (tmp_path / "new" / "schemas" / "codes.py").write_text("# a mutated copy\n", "utf-8")
    with pytest.raises(SystemExit, match=r"already holds schemas/codes.py \(and 0 more\)"):
        mutation.restore(tmp_path / "new", ledger)
    assert not (tmp_path / "new" / "builder").exists()


def test_a_meta_file_being_written_stops_the_save_and_keeps_the_old_ledger(tmp_path):
    write_metas(tmp_path / "run", META)
    ledger = tmp_path / "run.tsv"
    mutation.save(tmp_path / "run", ledger)
    before = ledger.read_bytes()
    half = tmp_path / "run" / "schemas" / "codes.py.meta"
    half.write_text(half.read_text("utf-8")[:40], "utf-8")
    with pytest.raises(SystemExit, match=r"codes\.py\.meta: not JSON .* run this again"):
        mutation.save(tmp_path / "run", ledger)
    assert ledger.read_bytes() == before
    assert not ledger.with_name("run.tsv.tmp").exists()


@pytest.mark.parametrize("line", [
    "builder/release/plan.py\tbuilder.release.plan.x_plan__mutmut_1\tkilled\t1.0",  # not an exit code
    "builder/release/plan.py\tbuilder.release.plan.x_plan__mutmut_1\t1",             # a column short
    "#hash\tbuilder/release/plan.py\tx_plan",                                          # no hash
])
def test_a_malformed_ledger_line_is_named_by_its_number(tmp_path, line):
    ledger = tmp_path / "run.tsv"
    ledger.write_text("# header\n#hash\tbuilder/release/plan.py\tx_plan\taa11\n" + line + "\n", "utf-8")
    with pytest.raises(SystemExit, match=r"run\.tsv:3: not a ledger line"):
        mutation.restore(tmp_path / "new", ledger)


def test_a_verdict_whose_function_has_no_hash_is_refused(tmp_path):
    ledger = tmp_path / "run.tsv"
    ledger.write_text("#hash\tschemas/codes.py\tx_other\taa11\n"
                      "schemas/codes.py\tschemas.codes.x_nearest_codes__mutmut_7\t1\t0.5\n", "utf-8")
    with pytest.raises(SystemExit, match="x_nearest_codes__mutmut_7 has no '#hash' row"):
        mutation.restore(tmp_path / "new", ledger)
    assert not (tmp_path / "new").exists()


def test_a_missing_ledger_is_one_line_naming_it(tmp_path):
    with pytest.raises(SystemExit, match=r"nope\.tsv: cannot read the ledger \(No such file or directory\)"):
        mutation.restore(tmp_path / "new", tmp_path / "nope.tsv")
    assert not (tmp_path / "new").exists()


def test_a_restore_can_leave_out_the_survivors_of_the_functions_given_so_they_run_again(tmp_path, capsys):
    write_metas(tmp_path / "old", META)
    ledger = tmp_path / "run.tsv"
    mutation.save(tmp_path / "old", ledger)
    assert mutation.main(["--mutants", str(tmp_path / "new"), "restore", "--ledger", str(ledger),
                          "--rerun-survivors", "*.x_plan__*"]) == 0
    assert "(1 survivors left out to run again)" in capsys.readouterr().out
    back = json.loads((tmp_path / "new" / "builder/release/plan.py.meta").read_text("utf-8"))
    # the survivor of x_plan goes; its killed sibling, the other function's verdict and every hash stay
    assert back["exit_code_by_key"] == {"builder.release.plan.x_plan__mutmut_1": 1,
                                        "builder.release.plan.xǁPlanǁkeys__mutmut_1": 33}
    assert "builder.release.plan.x_plan__mutmut_2" not in back["durations_by_key"]
    assert back["hash_by_function_name"] == META["builder/release/plan.py"]["hash_by_function_name"]


def test_under_mutmuts_stats_run_a_test_costs_the_setup_of_the_fixtures_it_uses(monkeypatch):
    """tests/conftest.py: mutmut orders each mutant's tests by their timed call phase; a test that needs a
    module fixture building two releases must not look free (each mutant's session builds it again)."""
    import time
    from types import SimpleNamespace

    spec = importlib.util.spec_from_file_location("root_conftest", ROOT / "tests" / "conftest.py")
    conftest = importlib.util.module_from_spec(spec)  # by path: each test folder has a module named conftest
    spec.loader.exec_module(conftest)

    def fixture(name):
        return SimpleNamespace(baseid="tests/release/test_release.py", argname=name)

    def set_up(fixturedef, seconds):
        hook = conftest.pytest_fixture_setup(fixturedef, None)
        next(hook)
        time.sleep(seconds)
        with pytest.raises(StopIteration):
            next(hook)

    def timed(item, seconds):
        call = SimpleNamespace(when="call", duration=seconds)
        hook = conftest.pytest_runtest_makereport(item, call)
        next(hook)
        with pytest.raises(StopIteration):
            next(hook)
        return call.duration

    monkeypatch.setattr(conftest, "_FIXTURE_SECONDS", {})
    reference, tmp = fixture("reference"), fixture("tmp_path")
    item = SimpleNamespace(fixturenames=["reference", "tmp_path", "request"],
                           _fixtureinfo=SimpleNamespace(name2fixturedefs={"reference": [reference], "tmp_path": [tmp]}))
    monkeypatch.setenv("MUTANT_UNDER_TEST", "stats")
    set_up(reference, 0.05)
    set_up(tmp, 0.0)
    cost = timed(item, 0.01)
    assert cost >= 0.06  # the call and the fixture it used (a sleep lasts at least as long as asked)
    monkeypatch.setenv("MUTANT_UNDER_TEST", "")  # any other session: the call phase as pytest timed it
    assert timed(item, 0.01) == 0.01


def _clip_tree(tree: Path, test_body: str, pyproject: str = "") -> None:
    """A project of one module, ``pkg/m.py`` (``clip(x) = max(0, x)``, five mutants), and one test of it,
    ``tests/test_m.py``, whose body is ``test_body`` followed by ``assert clip(5) == 5``."""
    (tree / "pkg").mkdir()
    (tree / "tests").mkdir()
    (tree / "pyproject.toml").write_text('[tool.mutmut]\nsource_paths = ["pkg"]\n' + pyproject, "utf-8")
    (tree / "pkg" / "__init__.py").write_text("", "utf-8")
    (tree / "pkg" / "m.py").write_text("def clip(x):\n    return max(0, x)\n", "utf-8")
    (tree / "tests" / "test_m.py").write_text(
        "import os\nimport signal\nimport time\n\nfrom pkg.m import clip\n\n\ndef test_clip():\n" + test_body
        + "    assert clip(5) == 5\n", "utf-8")


def test_the_fast_pass_names_the_mutants_the_given_tests_miss_and_refuses_a_checkout(tmp_path):
    import subprocess
    import sys

    pytest.importorskip("mutmut")
    # the project's own addopts spread tests over two xdist workers: the pass must still run them in its process
    _clip_tree(tmp_path, "    with open(os.path.join(os.path.dirname(__file__), 'pids'), 'a') as fh:\n"
                         "        fh.write(f'{os.getpid()} {os.getppid()}\\n')\n",
               pyproject='\n[tool.pytest.ini_options]\naddopts = "-n 2"\n')
    cmd = [sys.executable, str(ROOT / "benchmarks" / "mutation.py"), "fast", "--tree", str(tmp_path), "pkg/m.py",
           "--", "tests/test_m.py"]
    env = {k: v for k, v in os.environ.items() if k != "MUTANT_UNDER_TEST"}
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    survivors = [line for line in done.stdout.splitlines() if line.startswith("pkg.m.x_clip__mutmut_")]
    assert survivors and done.stdout.splitlines()[-1].startswith(f"{len(survivors)} of ")
    shown = subprocess.run([sys.executable, "-m", "mutmut", "show", survivors[0]], cwd=tmp_path,
                           capture_output=True, text=True).stdout
    assert "max(1, x)" in shown  # a floor of 1 that clip(5) cannot see
    # the clean run in the pass's own process, every mutant's in a process it forked (not in xdist workers)
    (first, _), *forked = [line.split() for line in (tmp_path / "tests" / "pids").read_text("utf-8").splitlines()]
    assert forked and {parent for _, parent in forked} == {first} and first not in {pid for pid, _ in forked}
    # --record: the kills (and the module's hashes) laid over a ledger that restore --add reads; no survivor
    recorded = subprocess.run([*cmd[:5], "--record", str(tmp_path / "fast.tsv"), *cmd[5:]], capture_output=True,
                              text=True, env=env, timeout=300)
    assert recorded.returncode == 0, recorded.stderr
    (meta,) = mutation.read_ledger(tmp_path / "fast.tsv").values()
    assert meta["hash_by_function_name"].keys() == {"x_clip"} and set(meta["exit_code_by_key"].values()) == {1}
    assert not set(meta["exit_code_by_key"]) & set(survivors) and len(meta["exit_code_by_key"]) >= 2
    # --pattern, repeated: the mutants that match any of them, and only those
    two = [survivors[0], sorted(meta["exit_code_by_key"])[0]]
    picked = subprocess.run([*cmd[:5], "--pattern", two[0], "--pattern", two[1], *cmd[5:]], capture_output=True,
                            text=True, env=env, timeout=300)
    assert picked.returncode == 0, picked.stderr
    assert picked.stdout.splitlines()[-2:] == [two[0], "1 of 2 mutants survived the tests given"]
    (tmp_path / ".git").mkdir()
    refused = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=60)
    assert refused.returncode == 1 and "is a git checkout" in refused.stderr
    for tree, module, said in ((tmp_path / "none", "pkg/m.py", "no such folder"),
                               (tmp_path / "pkg", "nope.py", "module not found in the tree")):
        bad = subprocess.run([*cmd[:4], str(tree), module, "--", "tests/test_m.py"], capture_output=True, text=True,
                             env=env, timeout=60)
        assert (bad.returncode, bad.stderr.count("\n"), said in bad.stderr) == (1, 1, True), bad.stderr


@pytest.mark.parametrize("name", ["mutation-run.tsv", "mutation-fast.tsv"])
def test_the_committed_ledgers_restore_every_verdict_with_its_functions_hash(tmp_path, name):
    ledger = ROOT / "docs" / name
    modules = mutation.read_ledger(ledger)
    mutation.restore(tmp_path / "mutants", ledger)  # refuses a verdict whose function has no hash
    assert sum(len(m["exit_code_by_key"]) for m in modules.values()) > 1000
    if name == "mutation-fast.tsv":  # a fast pass records kills only: its survivors may die to another test
        assert {code for m in modules.values() for code in m["exit_code_by_key"].values()} == {1}


def test_the_committed_reasons_name_a_category_and_a_reason_for_each_survivor_they_list():
    reasons = mutation.read_reasons(ROOT / "docs" / "mutation-survivors.tsv")  # a malformed line names itself
    assert len(reasons) > 100
    assert {category for _, category, _ in reasons.values()} <= set(mutation.CATEGORIES)
    assert all(len(digest) == 12 and len(why) > 20 for digest, _, why in reasons.values())


def test_a_fast_pass_stopped_part_way_keeps_the_kills_it_found(tmp_path):
    import signal
    import subprocess
    import sys

    pytest.importorskip("mutmut")
    # the last mutant's run stops the pass (SIGTERM to its process: SIGINT may be ignored under xdist) before its end
    _clip_tree(tmp_path, "    if os.environ.get('MUTANT_UNDER_TEST', '').endswith('__mutmut_5'):\n"
                         "        os.kill(os.getppid(), signal.SIGTERM)\n")
    record = tmp_path / "fast.tsv"
    env = {k: v for k, v in os.environ.items() if k != "MUTANT_UNDER_TEST"}
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "mutation.py"), "fast", "--tree", str(tmp_path),
                           "--record", str(record), "pkg/m.py", "--", "tests/test_m.py"],
                          capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 128 + signal.SIGTERM, done.stderr
    assert "mutants survived the tests given" not in done.stdout  # it did not reach its end
    assert done.stderr == f"stopped after 4 of 5 mutants, 0 survived; 4 kills laid over {record}\n"  # one line
    (meta,) = mutation.read_ledger(record).values()
    assert sorted(meta["exit_code_by_key"]) == [f"pkg.m.x_clip__mutmut_{k}" for k in (1, 2, 3, 4)]


def test_a_fast_pass_ends_what_a_timed_out_mutant_forked(tmp_path):
    """A mutant that hangs past ``--timeout`` is ended with the processes it forked (a pool whose workers
    wait forever), not only its own: the pass leaves no process behind."""
    import subprocess
    import sys
    import time

    pytest.importorskip("mutmut")
    _clip_tree(tmp_path, "    if os.environ.get('MUTANT_UNDER_TEST', '').endswith('__mutmut_5'):\n"
                         "        if os.fork() == 0:\n"
                         "            time.sleep(600)\n"
                         "            os._exit(0)\n"
                         "        time.sleep(600)\n")
    env = {k: v for k, v in os.environ.items() if k != "MUTANT_UNDER_TEST"}
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "mutation.py"), "fast", "--tree", str(tmp_path),
                           "--timeout", "5", "pkg/m.py", "--", "tests/test_m.py"],
                          capture_output=True, text=True, env=env, timeout=120)  # a process left holds the pipes
    assert done.returncode == 0, done.stderr
    assert "pkg.m.x_clip__mutmut_5\ttimeout" in done.stderr
    time.sleep(0.5)  # a killed process leaves the table once reaped (init reaps orphans)
    table = subprocess.run(["ps", "-eo", "pid,stat,args"], capture_output=True, text=True).stdout.splitlines()
    left = [line for line in table if str(tmp_path) in line and " Z" not in line]
    assert left == [], left

