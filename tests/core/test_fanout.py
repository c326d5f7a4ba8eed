"""`schemas.runtime.fanout.fan_out`: results in task order and the same values whatever the backend and worker count.

Local backend: in process (``jobs=1``), forked workers, and the pickled path
used where fork is missing. Ray backend: one local cluster of 2 CPUs for the
module (a cluster takes seconds to start), started by a fan-out that starts
its own cluster and then kept open for the other Ray tests: ``fan_out``
directly, and ``builder qc``, ``builder evaluate baselines`` and ``builder export`` run through
click's CliRunner with ``--backend ray``, every output byte compared with the
local backend's (the inputs of tests/qc/test_qc_backend.py and
tests/evaluation/test_evaluate_backend.py, which test the local backend). The Ray tests are marked ``ray``;
where Ray is missing they fail under CI (the ``CI`` environment variable,
which ``.ci/run`` sets; the test extra installs Ray) and skip elsewhere, with
the install command.
"""
from __future__ import annotations

import contextlib
import os
import pickle
import signal
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from builder.cli.main import cli
from schemas.errors import SchemaError, UsageError
from schemas.runtime.fanout import RAY_EXTRA, fan_out, require_ray
from schemas.io import read_sib_tsv, write_sib_tsv

DATA = Path(__file__).resolve().parents[1] / "data"
SIB = DATA / "sib200" / "annotated"


# -- task functions (module level: workers import them by name) ---------------------------------------------

def square(x):
    return x * x


def scaled(shared, x):
    return {"task": x, "value": shared["factor"] * x, "pid_free": True}


def fails_on_three(x):
    if x == 3:
        raise SchemaError("bad record", file="data.tsv", record="line 3")
    return x


def blas_threads(_x):
    import numpy  # noqa: F401 - its BLAS loaded, so that there are threads to count
    from threadpoolctl import threadpool_info

    return sorted({pool["num_threads"] for pool in threadpool_info()})


def _pickled(values) -> bytes:
    return pickle.dumps(values, protocol=5)


# -- local ---------------------------------------------------------------------------------------------------

def test_results_come_in_task_order_and_progress_counts_every_task():
    tasks = list(range(11, 0, -1))
    seen = []
    out = fan_out(scaled, tasks, shared={"factor": 3}, jobs=3, labels=[f"t{t}" for t in tasks],
                  progress=lambda label, done, total: seen.append((label, done, total)))
    assert out == [scaled({"factor": 3}, t) for t in tasks]
    assert [d for _l, d, _t in seen] == list(range(1, 12)) and {t for _l, _d, t in seen} == {11}
    assert sorted(label for label, _d, _t in seen) == sorted(f"t{t}" for t in tasks)


@settings(max_examples=8, deadline=None)
@given(st.lists(st.integers(-1000, 1000), max_size=12), st.integers(1, 3))
def test_any_worker_count_gives_the_same_bytes_as_a_plain_loop(tasks, jobs):
    assert _pickled(fan_out(square, tasks, jobs=jobs)) == _pickled([square(t) for t in tasks])


def test_without_fork_the_tasks_travel_pickled(monkeypatch):
    monkeypatch.setattr("schemas.runtime.fanout.multiprocessing.get_all_start_methods", lambda: ["spawn"])
    tasks = [5, 1, 4]
    assert fan_out(scaled, tasks, shared={"factor": 2}, jobs=2) == [scaled({"factor": 2}, t) for t in tasks]


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_worker_error_is_raised_here_as_itself(jobs):
    with pytest.raises(SchemaError) as err:
        fan_out(fails_on_three, [1, 2, 3, 4], jobs=jobs)
    assert str(err.value) == "data.tsv, line 3: bad record"


@pytest.mark.parametrize("jobs", [1, 2])
def test_workers_run_with_one_blas_thread(jobs):
    assert fan_out(blas_threads, [0, 1], jobs=jobs) == [[1], [1]]


_LOADED_INSIDE = """
import os, sys
from schemas.runtime.fanout import fan_out

def task(_x):
    import scipy.linalg  # scipy's own OpenBLAS is loaded here, inside the run
    from threadpoolctl import threadpool_info
    return sorted({p["num_threads"] for p in threadpool_info() if "scipy" in p["filepath"]})

before = os.environ.get("OPENBLAS_NUM_THREADS")
print(fan_out(task, [0], jobs=int(sys.argv[1])), before == os.environ.get("OPENBLAS_NUM_THREADS"))
"""


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_blas_library_loaded_during_a_task_runs_one_thread_too(jobs):
    """threadpool_limits reaches only the libraries already loaded; scipy.linalg's OpenBLAS is loaded on a
    task's first Cholesky and reads its thread count from the environment (a fresh interpreter, so it is
    not loaded before). The environment is put back after an in-process run."""
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if not k.endswith("_NUM_THREADS")}
    out = subprocess.run([sys.executable, "-c", _LOADED_INSIDE, str(jobs)], capture_output=True, text=True,
                         env=env, check=True).stdout.split()
    assert out == ["[[1]]", "True"]


def test_bad_arguments_are_one_line_usage_errors():
    with pytest.raises(UsageError, match="unknown backend 'dask'; expected one of local, ray"):
        fan_out(square, [1], backend="dask")
    with pytest.raises(UsageError, match="needs --backend ray"):
        fan_out(square, [1], address="auto")
    with pytest.raises(ValueError, match="1 labels for 2 tasks"):
        fan_out(square, [1, 2], labels=["a"])
    assert fan_out(square, [], jobs=4) == []


# -- progress of a stage (the CLI's reporter: builder.tasks.base.Reporter.progress) ----------------------------

def test_plain_progress_lines_every_tenth_or_every_ten_seconds_and_the_last(capsys):
    from builder.cli.common import AppContext

    now = [0.0]
    with AppContext().reporter().progress("evaluate", 200, "runs done", clock=lambda: now[0]) as report:
        for done in range(1, 201):
            if done == 55:
                now[0] += 10.0  # ten seconds pass during the 55th task
            report(f"v{done}", done, 200)
    lines = capsys.readouterr().err.splitlines()
    shown = [int(line.split()[1].split("/")[0]) for line in lines]
    assert shown == [20, 40, 55, 60, 80, 100, 120, 140, 160, 180, 200]
    assert lines[-1] == "evaluate: 200/200 runs done (v200)"
    with AppContext(quiet=True).reporter().progress("evaluate", 200) as report:
        assert report is None


# -- Ray missing: a one-line error naming the extra -----------------------------------------------------------

def test_without_ray_the_backend_is_a_one_line_error_naming_the_extra(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError
    with pytest.raises(UsageError) as err:
        require_ray()
    assert RAY_EXTRA in str(err.value)
    data = DATA / "qc" / "pivot"
    for args in (["qc", data, "--out", tmp_path / "qc", "--backend", "ray"],
                 ["evaluate", "baselines", data, "--out", tmp_path / "ev", "--backend", "ray"]):
        result = CliRunner().invoke(cli, list(map(str, args)))
        assert result.exit_code == 2, result.output
        assert result.stderr.splitlines() == [f"error: --backend ray needs Ray, which is not installed: {RAY_EXTRA}"]
        assert not (tmp_path / "qc").exists() and not (tmp_path / "ev").exists()


def test_address_without_the_ray_backend_is_a_usage_error(tmp_path):
    result = CliRunner().invoke(cli, ["qc", str(DATA / "qc" / "pivot"), "--out", str(tmp_path / "qc"), "--address", "auto"])
    assert result.exit_code == 2
    assert result.stderr.splitlines() == ["error: --address auto names a Ray cluster; add --backend ray"]


def test_an_address_that_does_not_answer_is_one_line_at_once():
    from schemas.runtime.fanout import _probe

    with pytest.raises(UsageError) as err:  # Ray itself would retry for minutes, printing its own warnings
        _probe("ray://127.0.0.1:1")
    assert str(err.value).startswith("cannot connect to the Ray cluster at ray://127.0.0.1:1: ")
    assert _probe("auto") is None  # Ray looks for the local cluster itself, and says so in one line


# -- Ray -----------------------------------------------------------------------------------------------------

def _ray_or_fail():
    try:
        import ray
    except ImportError:
        message = f"ray is not installed: pip install -e '.[test]' (or {RAY_EXTRA})"
        if os.environ.get("CI"):  # CI installs the test extra, Ray included: a missing one fails, never skips
            pytest.fail(message)
        pytest.skip(message)
    return ray


@pytest.fixture(scope="module")
def ray_runs():
    """A fan-out that starts its own local cluster; the cluster then stays open for the module's other tests.

    ``ray.shutdown`` is recorded, not run, during that first fan-out (one cluster start for the module);
    the module's end shuts the cluster down.
    """
    ray = _ray_or_fail()
    assert not ray.is_initialized()
    # Ray's workers cannot import a test module: its task functions travel by value
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    shutdown, calls, seen = ray.shutdown, [], []
    ray.shutdown = lambda *a, **k: calls.append("shutdown")
    tasks = list(range(9, 0, -1))
    try:
        own = fan_out(scaled, tasks, shared={"factor": 3}, jobs=2, backend="ray",
                      progress=lambda label, done, total: seen.append((label, done, total)),
                      labels=[f"t{t}" for t in tasks], prepare=lambda t: t + 100)
        cpus = ray.cluster_resources().get("CPU")
    finally:
        ray.shutdown = shutdown
    yield {"tasks": tasks, "own": own, "seen": seen, "calls": calls, "cpus": cpus}
    ray.shutdown()


@pytest.mark.ray
def test_ray_starts_a_cluster_for_the_run_and_shuts_it_down(ray_runs):
    tasks = ray_runs["tasks"]
    assert ray_runs["calls"] == ["shutdown"] and ray_runs["cpus"] == 2  # num_cpus=jobs, closed after the run
    assert ray_runs["own"] == [scaled({"factor": 3}, t + 100) for t in tasks]  # prepare ran before sending
    assert [d for _l, d, _t in ray_runs["seen"]] == list(range(1, 10))
    assert sorted(label for label, _d, _t in ray_runs["seen"]) == sorted(f"t{t}" for t in tasks)


@pytest.mark.ray
def test_ray_gives_the_same_results_as_local_workers_and_keeps_an_open_session(ray_runs):
    import ray

    tasks = list(range(-20, 21, 3))
    local = fan_out(scaled, tasks, shared={"factor": 7}, jobs=1)  # (no fork while Ray's threads run)
    remote = fan_out(scaled, tasks, shared={"factor": 7}, jobs=2, backend="ray")
    assert remote == local and repr(remote) == repr(local)
    assert ray.is_initialized()  # a session it did not open is left open
    assert fan_out(blas_threads, [0, 1], backend="ray") in ([[1], [1]], [[], []])


@pytest.mark.ray
def test_ray_raises_a_worker_error_as_itself(ray_runs):
    with pytest.raises(SchemaError) as err:
        fan_out(fails_on_three, [1, 2, 3, 4], backend="ray")
    assert str(err.value) == "data.tsv, line 3: bad record"


# -- the commands on Ray ------------------------------------------------------------------------------------

QC_RUNS = {  # name -> (exit code, arguments); each also writes a JUnit file
    "mc": (1, [DATA / "qc" / "pivot", "--contamination-against", DATA / "qc" / "copy_passage"]),
    "topic": (None, [SIB, "--variant", "eng_Latn,hin_Deva,nqo_Nkoo"]),
}
OUTPUTS = ["accuracy.png", "results.csv", "results.json", "results.md"]


def qc_outputs(name: str, out: Path, *options: str):
    code, args = QC_RUNS[name]
    result = CliRunner().invoke(cli, ["qc", *map(str, args), "--out", str(out), "--junit", str(out / "junit.xml"),
                                      *options])
    assert result.exit_code in ((0, 1) if code is None else (code,)), result.output
    return result


def evaluation_datasets(root: Path) -> dict[str, list]:
    """Topic: three shipped SIB-200 variants cut to every 5th/2nd/3rd row; MC: the qc pivot fixture."""
    for variant in ("eng_Latn", "hin_Deva", "zho_Hans"):
        for split, k in {"train": 5, "dev": 2, "test": 3}.items():
            write_sib_tsv(root / variant / f"{split}.tsv", read_sib_tsv(SIB / variant / f"{split}.tsv")[::k])
    # every topic baseline, the MLP too (the default leaves it out), so each backend is compared on all four
    return {"topic": [root, "--baseline", "majority,mlp,char_tfidf,char_linear", "--mlp-max-iter", "20"],
            "mc": [DATA / "qc" / "pivot"]}


def evaluate_outputs(args, out: Path, *options: str):
    result = CliRunner().invoke(cli, ["evaluate", "baselines", *map(str, args), "--out", str(out), *options])
    assert result.exit_code == 0, result.output
    return result


def files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if not p.name.startswith(".")}


@pytest.mark.ray
@pytest.mark.parametrize("name", sorted(QC_RUNS))
def test_ray_qc_writes_every_byte_the_local_backend_writes(ray_runs, tmp_path, name):
    local = qc_outputs(name, tmp_path / "local", "-j", "1")
    remote = qc_outputs(name, tmp_path / "ray", "--backend", "ray", "-j", "2")
    assert remote.exit_code == local.exit_code
    assert files(tmp_path / "ray") == files(tmp_path / "local")
    assert remote.stdout == local.stdout  # the verdict line
    lines = [ln for ln in remote.stderr.splitlines() if "variants checked" in ln]
    assert len(lines) == 3 and lines[-1].startswith("qc: 3/3 variants checked (")


@pytest.mark.ray
@pytest.mark.parametrize("kind", ["mc", "topic"])
def test_ray_evaluate_baselines_writes_every_byte_the_local_backend_writes(ray_runs, tmp_path, kind):
    args = evaluation_datasets(tmp_path / "data")[kind]
    local = evaluate_outputs(args, tmp_path / "local", "-j", "1")
    remote = evaluate_outputs(args, tmp_path / "ray", "--backend", "ray", "-j", "2")
    assert list(files(tmp_path / "ray")) == OUTPUTS
    assert files(tmp_path / "ray") == files(tmp_path / "local")
    assert remote.stdout == local.stdout  # the Markdown table
    assert "baseline runs done" in remote.stderr


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.ray
@pytest.mark.parametrize("kind", ["mc", "topic"])
def test_ray_export_writes_every_byte_the_local_backend_writes(ray_runs, tmp_path, kind):
    data = {"topic": evaluation_datasets(tmp_path / "data")["topic"][0], "mc": DATA / "qc" / "pivot"}[kind]
    outs = {}
    for name, options in {"local": ["-j", "1"], "ray": ["--backend", "ray", "-j", "2"]}.items():
        result = CliRunner().invoke(cli, ["export", str(data), "--out", str(tmp_path / name), "--lm-eval",
                                          "--license", "CC-BY-SA-4.0", "--name", "fanout", *options])
        assert result.exit_code == 0, result.output
        outs[name] = result
    assert _tree(tmp_path / "ray") == _tree(tmp_path / "local")
    assert "variants written" in outs["ray"].stderr


@pytest.mark.ray
def test_ray_release_writes_every_byte_the_local_backend_writes(ray_runs, tmp_path):
    """The release's per-variant stages (extend and a re-split run together, qc, baselines, export) on Ray."""
    recipe = DATA / "release" / "mini-release.yaml"
    outs = {}
    for name, options in {"local": ["-j", "1"], "ray": ["--backend", "ray", "-j", "2"]}.items():
        result = CliRunner().invoke(cli, ["release", str(recipe), "--out", str(tmp_path / name), *options])
        assert result.exit_code == 0, result.output
        outs[name] = _tree(tmp_path / name)
    assert "(1 of 2 run together)" in result.stderr
    assert {k: v for k, v in outs["ray"].items() if k != "run.json"} == \
        {k: v for k, v in outs["local"].items() if k != "run.json"}


# -- ordered_map: the assembly's ordered streaming map -------------------------------------------------------

def parts(task):
    """``task = (name, n, sleeps)``: ``n`` results, each after a short sleep (workers finish in any order)."""
    import time

    name, n, sleeps = task
    for k in range(n):
        time.sleep(sleeps[k % len(sleeps)] if sleeps else 0)
        yield f"{name}.{k}"


def fails_at_three(task):
    yield task
    if task == 3:
        raise ValueError(f"bad {task}")


class _Unpicklable(Exception):
    def __init__(self, message, handle):
        super().__init__(message)
        self.handle = handle


def fails_unpicklably(task):
    yield task
    raise _Unpicklable("cannot travel", lambda: None)


def sleeps_long(task):
    import time

    yield task
    time.sleep(60)
    yield task


@settings(max_examples=12, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.lists(st.sampled_from([0, 0.001, 0.004]), max_size=3)),
                max_size=8),
       st.integers(1, 3), st.integers(1, 3))
def test_ordered_map_gives_each_tasks_results_in_task_order_whatever_finishes_first(specs, jobs, depth):
    from schemas.runtime.fanout import ordered_map

    tasks = [(f"t{i}", n, sleeps) for i, (n, sleeps) in enumerate(specs)]
    got = [(task, list(results)) for task, results in ordered_map(parts, tasks, jobs=jobs, depth=depth, queue=2)]
    assert got == [(task, list(parts(task))) for task in tasks]


def test_ordered_map_does_not_hang_on_a_task_larger_than_the_pipe_buffer():
    """A task pickled larger than a pipe's buffer (64 KiB: 128 paths of 550 characters), handed to a worker
    whose results fill its queue, blocked this process in the put while the worker waited for a reader:
    the assembly hung for good. Run in a child, so a hang fails the test instead of holding the suite."""
    import subprocess
    import sys

    script = (
        "from schemas.runtime.fanout import ordered_map\n"
        "def work(task):\n"
        "    for _ in range(40):\n"
        "        yield 'r' * 100_000\n"
        "tasks = [f't{i}' + 'x' * 70_000 for i in range(10)]\n"
        "got = [sum(1 for _ in results) for _, results in ordered_map(work, tasks, jobs=2, depth=2, queue=8)]\n"
        "print(sum(got))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "400"


@pytest.mark.parametrize("jobs, depth", [(1, 2), (2, 1), (2, 3)])
def test_ordered_map_holds_at_most_jobs_times_depth_tasks_in_flight(jobs, depth):
    from schemas.runtime.fanout import ordered_map

    pulled = []

    def tasks():
        for i in range(12):
            pulled.append(i)
            yield (f"t{i}", 2, [0.001 * (i % 3)])

    for k, (task, results) in enumerate(ordered_map(parts, tasks(), jobs=jobs, depth=depth)):
        assert task == (f"t{k}", 2, [0.001 * (k % 3)])
        assert len(pulled) - k <= jobs * depth  # handed out, this one among them, and not yet finished
        assert list(results) == [f"t{k}.0", f"t{k}.1"]
        assert len(pulled) - (k + 1) <= jobs * depth  # this one finished: its worker got the next
    assert len(pulled) == 12


def pid_of(task):
    yield os.getpid()


@pytest.mark.parametrize("jobs", [None, 0, 1, 2])
def test_ordered_map_runs_in_this_process_with_one_job_and_in_workers_with_more(jobs):
    # "Where fork is not available, or jobs == 1 (the default), everything runs in this process": a pool of
    # one worker gives the same results, so only where the work ran tells them apart.
    from schemas.runtime.fanout import ordered_map

    kw = {} if jobs is None else {"jobs": jobs}
    pids = {pid for _, results in ordered_map(pid_of, range(4), **kw) for pid in results}
    assert (pids == {os.getpid()}) is (jobs is None or jobs <= 1)


def test_ordered_map_workers_are_forked_and_daemonic():
    # forked: they inherit the work function and the caller's state (the assembly's recipe), which a
    # spawned or forkserver worker would not; daemonic: an interpreter that exits never waits on them.
    import multiprocessing

    from schemas.runtime.fanout import ordered_map

    for _, results in ordered_map(parts, [("a", 1, [])], jobs=2):
        workers = multiprocessing.active_children()
        assert len(workers) == 2
        assert all(type(w).__name__ == "ForkProcess" and w.daemon for w in workers)
        list(results)


def test_ordered_map_holds_two_tasks_per_worker_by_default():
    from schemas.runtime.fanout import ordered_map

    pulled = []

    def tasks():
        for i in range(12):
            pulled.append(i)
            yield (f"t{i}", 1, [])

    for k, (_, results) in enumerate(ordered_map(parts, tasks(), jobs=2)):
        assert len(pulled) - k == min(4, 12 - k)  # two workers hold two tasks each, this one among them
        list(results)


def slow_then_dies(task):
    import os
    import time

    time.sleep(1.2 if task == 0 else 0)  # longer than one wait on a worker's queue (0.5 s)
    if task == 2:
        time.sleep(0.3)  # the queue's thread sends what the worker put before (os._exit would lose it)
        os._exit(3)  # a worker killed mid-task (out of memory, a signal): no "done", no "error"
    yield task


@contextlib.contextmanager
def fails_after(seconds: int):
    """Raise in this test instead of hanging it for good."""
    def alarm(*_):
        raise TimeoutError(f"still waiting after {seconds} s")

    old = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def test_ordered_map_waits_out_a_slow_task_and_names_a_worker_that_died():
    from schemas.runtime.fanout import ordered_map

    seen, before = [], multiprocessing_children()
    with fails_after(30), pytest.raises(RuntimeError, match=r"^a worker process ended unexpectedly \(exit code 3\)$"):
        for task, results in ordered_map(slow_then_dies, range(4), jobs=2):
            seen.append((task, list(results)))
    assert seen == [(0, [0]), (1, [1])]  # the slow task is waited for, in full; the dead one is named
    assert multiprocessing_children() == before


def test_ordered_map_skips_what_the_consumer_leaves_of_a_task():
    from schemas.runtime.fanout import ordered_map

    tasks = [("a", 3, []), ("b", 2, [])]
    assert [task[0] for task, _ in ordered_map(parts, tasks, jobs=2)] == ["a", "b"]
    firsts = [next(results) for _, results in ordered_map(parts, tasks, jobs=2)]
    assert firsts == ["a.0", "b.0"]


@pytest.mark.parametrize("jobs", [1, 2])
def test_ordered_map_raises_a_worker_error_as_itself_after_the_earlier_results(jobs):
    from schemas.runtime.fanout import ordered_map

    seen, before = [], multiprocessing_children()
    with pytest.raises(ValueError, match=r"^bad 3$"):
        for _, results in ordered_map(fails_at_three, range(6), jobs=jobs):
            seen.extend(results)
    assert seen == [0, 1, 2, 3]
    assert multiprocessing_children() == before


def test_ordered_map_carries_an_unpicklable_error_by_class_name_and_message():
    from schemas.runtime.fanout import ordered_map

    before = multiprocessing_children()
    with pytest.raises(RuntimeError, match=r"^_Unpicklable: cannot travel$"):
        for _, results in ordered_map(fails_unpicklably, range(3), jobs=2):
            list(results)
    assert multiprocessing_children() == before


def yields_unpicklably(task):
    yield task
    yield lambda: None  # a result that cannot be pickled


def test_ordered_map_raises_a_result_that_cannot_travel_instead_of_losing_it():
    """A queue's feeder thread that cannot pickle a message prints a traceback and drops it: the consumer
    got the task's other results, no error, and an assembly wrote 0 rows with exit code 0."""
    from schemas.runtime.fanout import ordered_map

    before, seen = multiprocessing_children(), []
    with pytest.raises((pickle.PicklingError, AttributeError, TypeError), match="pickle"):
        for task, results in ordered_map(yields_unpicklably, range(3), jobs=2):
            seen.extend(results)
    assert seen == [0]
    assert multiprocessing_children() == before


def test_ordered_map_raises_a_task_that_cannot_travel_instead_of_waiting_for_it():
    from schemas.runtime.fanout import ordered_map

    before = multiprocessing_children()
    with pytest.raises((pickle.PicklingError, AttributeError, TypeError), match="pickle"):
        for _, results in ordered_map(parts, [("a", 1, []), ("b", 1, [lambda: None])], jobs=2):
            list(results)
    assert multiprocessing_children() == before


@pytest.mark.parametrize("jobs", [1, 2])
def test_ordered_map_raises_a_planning_error_in_its_turn(jobs):
    from schemas.runtime.fanout import ordered_map

    seen = []
    with pytest.raises(SchemaError, match="^planned badly$"):
        for task, results in ordered_map(parts, [("a", 1, []), SchemaError("planned badly"), ("b", 1, [])],
                                         jobs=jobs):
            seen.append((task[0], list(results)))
    assert seen == [("a", ["a.0"])]


def test_ctrl_c_ends_the_ordered_maps_workers():
    import signal

    pids, before = [], multiprocessing_children()
    # SIGINT as a terminal delivers it: a test run started in the background inherits SIGINT ignored,
    # and Python then never turns it into KeyboardInterrupt
    handler = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        interrupted(pids)
    finally:
        signal.signal(signal.SIGINT, handler)
    assert len(pids) == 2 and multiprocessing_children() == before
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def interrupted(pids: list) -> None:
    """Interrupt this process while it waits for a worker, with SIGINT sent to every worker as well."""
    import signal

    from schemas.runtime.fanout import ordered_map

    before = multiprocessing_children()
    with pytest.raises(KeyboardInterrupt):
        for task, results in ordered_map(sleeps_long, range(4), jobs=2):
            next(results)
            pids[:] = sorted(set(multiprocessing_children()) - set(before))
            for pid in pids:  # a terminal's Ctrl-C reaches every process of the group: the workers ignore it
                os.kill(pid, signal.SIGINT)
            os.kill(os.getpid(), signal.SIGINT)
            next(results)  # the worker sleeps: this process is interrupted while it waits


def multiprocessing_children() -> list[int]:
    """The pids of this process's live multiprocessing children (an earlier test may have left some)."""
    import multiprocessing

    return sorted(p.pid for p in multiprocessing.active_children())


@pytest.mark.parametrize("address, connects_to", [
    ("ray://10.0.0.5:10001", ("10.0.0.5", 10001)),
    ("10.0.0.5:6379", ("10.0.0.5", 6379)),
    ("ray://Xhead-X:10001", ("Xhead-X", 10001)),  # only the brackets of an IPv6 literal are stripped
    ("[::1]:6379", ("::1", 6379)),            # the last colon is the port's
    ("ray://[fe80::1]:10001", ("fe80::1", 10001)),
    (":6379", ("127.0.0.1", 6379)),            # no host: this machine
    ("auto", None), ("head-node", None), ("head-node:port", None), ("ray://auto", None),  # Ray reads these itself
])
def test_the_ray_address_probe_connects_to_the_host_and_port_it_names(monkeypatch, address, connects_to):
    """``--address`` is checked with one connection before Ray is started (Ray would retry for minutes);
    issue 27: the whole mutation run left the parsing free to change (no test ran it without a cluster)."""
    import socket

    from schemas.runtime import fanout

    calls = []

    class Conn:
        def close(self):
            calls.append("closed")

    def connect(where, timeout):
        calls.append((where, timeout))
        return Conn()

    monkeypatch.setattr(socket, "create_connection", connect)
    fanout._probe(address, timeout=2.5)
    fanout._probe(address)  # the default wait: 10 s
    assert calls == ([] if connects_to is None else [(connects_to, 2.5), "closed", (connects_to, 10.0), "closed"])


@pytest.mark.parametrize("error, reason", [
    (ConnectionRefusedError(111, "Connection refused"), "Connection refused"),
    (TimeoutError(), "TimeoutError"),            # no strerror: the error's kind
])
def test_a_ray_address_that_does_not_answer_is_one_usage_error(monkeypatch, error, reason):
    import socket

    from schemas.errors import UsageError
    from schemas.runtime import fanout

    def refuse(where, timeout):
        raise error

    monkeypatch.setattr(socket, "create_connection", refuse)
    with pytest.raises(UsageError) as err:
        fanout._probe("ray://10.0.0.5:10001")
    assert str(err.value) == f"cannot connect to the Ray cluster at ray://10.0.0.5:10001: {reason}"


# -- what fork spares (issue 27: the start method and the worker count were not pinned) -----------------------

class _LockHolder:
    """A task that cannot be pickled (it holds a lock), as a task holding an open file or a model can be."""

    def __init__(self, n):
        import threading

        self.n, self.lock = n, threading.Lock()


def test_with_fork_neither_the_function_nor_the_tasks_are_pickled():
    # where fork exists the workers inherit the call and the tasks: a closure and tasks that cannot be pickled
    # work, and only the task's index travels (spawn would fail to pickle either)
    offset = 10
    tasks = [_LockHolder(n) for n in range(5)]
    assert fan_out(lambda task: task.n + offset, tasks, jobs=2) == [10, 11, 12, 13, 14]


def _pid_after_a_nap(_x):
    import time

    time.sleep(0.05)
    return os.getpid()


def test_the_pool_has_jobs_workers_however_many_cpus_there_are(monkeypatch):
    monkeypatch.setattr(os, "cpu_count", lambda: 8)  # a pool of the default size would have eight
    pids = fan_out(_pid_after_a_nap, list(range(16)), jobs=2)
    assert 1 <= len(set(pids)) <= 2 and os.getpid() not in pids


def test_one_job_or_one_task_runs_in_this_process():
    """No worker is forked for one job (the default), nor for one task whatever the jobs: the task sees this
    process."""
    assert fan_out(_pid_after_a_nap, [0, 1, 2], jobs=1) == [os.getpid()] * 3
    assert fan_out(_pid_after_a_nap, [0, 1]) == [os.getpid()] * 2
    assert fan_out(_pid_after_a_nap, [0], jobs=4) == [os.getpid()]


@pytest.mark.parametrize("cpus, jobs", [(3, 3), (None, 1), (1, 1)])
def test_default_jobs_without_an_affinity_mask_is_the_cpu_count_or_one(monkeypatch, cpus, jobs):
    from schemas.runtime import fanout

    monkeypatch.delattr(os, "sched_getaffinity", raising=False)  # not Linux
    monkeypatch.setattr(os, "cpu_count", lambda: cpus)
    assert fanout.default_jobs() == jobs


def _double(x):
    return 2 * x


def test_an_address_without_ray_is_refused_and_progress_labels_default_to_the_task_index():
    with pytest.raises(UsageError) as err:
        fan_out(_double, [1], address="auto")
    assert str(err.value) == "--address names a Ray cluster; it needs --backend ray"
    seen = []
    assert fan_out(_double, [3, 4], progress=lambda label, done, total: seen.append((label, done, total))) == [6, 8]
    assert seen == [("0", 1, 2), ("1", 2, 2)]


def meets_the_other_task(barrier, i):
    barrier.wait(timeout=5)  # returns once both tasks are running at the same time
    return i


def test_each_worker_takes_one_task_at_a_time_so_two_tasks_run_side_by_side():
    # pins chunksize=1: a worker holding a batch of two would run them one after the other
    import multiprocessing

    barrier = multiprocessing.get_context("fork").Barrier(2)
    assert fan_out(meets_the_other_task, [0, 1], shared=barrier, jobs=2) == [0, 1]


def test_the_ray_address_probe_reads_everything_after_the_first_scheme_separator_as_host_and_port(monkeypatch):
    # pins the split at the first "://" only: the rest, another "://" included, is HOST:PORT
    import socket

    from schemas.runtime import fanout

    calls = []

    class Conn:
        def close(self):
            calls.append("closed")

    monkeypatch.setattr(socket, "create_connection", lambda where, timeout: calls.append(where) or Conn())
    fanout._probe("ray://x://h:1")
    assert calls == [("x://h", 1), "closed"]


def test_ordered_map_hands_the_next_real_task_to_the_worker_when_a_planning_error_comes_first():
    # pins that a planning error is skipped over while tasks are handed out: two workers still get two tasks each
    from schemas.runtime.fanout import ordered_map

    pulled = []

    def tasks():
        yield SchemaError("planned badly")
        for i in range(6):
            pulled.append(i)
            yield (f"t{i}", 1, [])

    with pytest.raises(SchemaError, match="^planned badly$"):
        next(ordered_map(parts, tasks(), jobs=2, depth=2))
    assert pulled == [0, 1, 2, 3]
