"""The Ray backend's driver (`schemas.runtime.fanout._run_ray`, `_ray_session`, `_ray_task`) against a stand-in
for the ``ray`` module, in this process.

The tests marked ``ray`` in test_fanout.py run a real local cluster, which takes seconds to start; mutation
runs leave them out (docs/testing.md), so without these tests no mutant of the driver would ever be checked.
:class:`StandInRay` has the calls the driver makes (``is_initialized``, ``init``, ``remote``, ``put``,
``wait``, ``get``, ``cancel``, ``cluster_resources``, ``shutdown``) and runs a task when ``wait`` hands it
back, in an order the test chooses: the driver's bookkeeping (results in task order, the window of tasks in
flight, progress, errors, the session it opens or leaves open) is checked for any completion order.
"""
from __future__ import annotations

import logging
import random
import signal
import sys
import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schemas.errors import SchemaError, UsageError
from schemas.runtime import fanout
from schemas.runtime.fanout import fan_out
from test_fanout import blas_threads, fails_on_three, square  # the task functions of the local backend's tests


class Ref:
    """An object reference: one per ``put`` and per submitted task."""

    def __init__(self, n: int):
        self.n = n

    def __repr__(self):
        return f"Ref({self.n})"


class StandInRay:
    """What ``_run_ray`` asks of ``ray``, with every call recorded in ``calls``.

    ``order(pending)`` picks which pending task ``wait`` returns (default: the oldest); the task runs then,
    its top-level ``Ref`` arguments replaced by what ``put`` stored, as Ray does.
    """

    def __init__(self, *, cpus=2, initialized=False, order=None, init_error=None, resources=None):
        self.cpus, self.initialized, self.init_error = cpus, initialized, init_error
        self.resources = {"CPU": float(cpus)} if resources is None else resources
        self.order = order or (lambda pending: pending[0])
        self.calls: list = []
        self.stored: dict = {}
        self.submitted: dict = {}
        self.in_flight: list[int] = []  # the number of pending tasks at each wait
        self.sent: list = []  # the task argument of each submission, in order
        self.finished: list[int] = []  # the submission index of each task run, in the order they ran
        self._index: dict = {}
        self._n = 0

    def _ref(self) -> Ref:
        self._n += 1
        return Ref(self._n)

    def is_initialized(self):
        self.calls.append(("is_initialized",))
        return self.initialized

    def init(self, **options):
        self.calls.append(("init", options))
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, signal.SIG_DFL)  # Ray installs its own SIGTERM handler
        if self.init_error is not None:
            raise self.init_error
        self.initialized = True

    def shutdown(self):
        self.calls.append(("shutdown",))
        self.initialized = False

    def cluster_resources(self):
        return dict(self.resources)

    def put(self, value):
        ref = self._ref()
        self.stored[ref] = value
        self.calls.append(("put", value))
        return ref

    def remote(self, **options):
        self.calls.append(("remote", options))

        def wrap(fn):
            ray = self

            class Remote:
                @staticmethod
                def remote(*args):
                    ref = ray._ref()
                    ray.submitted[ref] = (fn, args)
                    ray._index[ref] = len(ray.sent)
                    ray.sent.append(args[-1])
                    return ref

            return Remote

        return wrap

    def wait(self, refs, num_returns=1):
        assert num_returns == 1 and refs and all(ref in self.submitted for ref in refs)
        self.in_flight.append(len(refs))
        ready = self.order(list(refs))
        return [ready], [ref for ref in refs if ref is not ready]

    def get(self, ref):
        fn, args = self.submitted.pop(ref)
        self.finished.append(self._index[ref])
        return fn(*(self.stored[a] if isinstance(a, Ref) else a for a in args))

    def cancel(self, ref, force=False):
        self.calls.append(("cancel", ref, force))


@pytest.fixture
def stand_in(monkeypatch):
    """``make(**options)``: a :class:`StandInRay` that ``import ray`` gives in fanout."""
    def make(**options):
        ray = StandInRay(**options)
        monkeypatch.setitem(sys.modules, "ray", ray)
        return ray
    return make


def scaled(shared, x):  # a number, where test_fanout's scaled gives a record
    return shared["factor"] * x


def _names(ray) -> list[str]:
    return [call[0] for call in ray.calls]


@settings(max_examples=60, deadline=None)
@given(tasks=st.lists(st.integers(-50, 50), max_size=12), cpus=st.integers(1, 4), seed=st.integers(0, 2**16))
def test_results_and_progress_for_any_completion_order(tasks, cpus, seed):
    """Results in task order, progress once per task in completion order, prepare() per task in task order,
    and exactly ``2 x CPUs`` tasks in flight while that many are left."""
    rng = random.Random(seed)
    ray = StandInRay(cpus=cpus, order=lambda pending: rng.choice(pending))
    seen = []
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(sys.modules, "ray", ray)
        got = fan_out(scaled, tasks, shared={"factor": 3}, jobs=cpus, backend="ray",
                      labels=[f"t{i}" for i in range(len(tasks))], prepare=lambda t: t + 100,
                      progress=lambda label, done, total: seen.append((label, done, total)))
    assert got == [3 * (t + 100) for t in tasks]
    assert ray.sent == [t + 100 for t in tasks]
    assert [(done, total) for _, done, total in seen] == [(k, len(tasks)) for k in range(1, len(tasks) + 1)]
    assert [label for label, _, _ in seen] == [f"t{i}" for i in ray.finished]
    assert sorted(ray.finished) == list(range(len(tasks)))
    window = 2 * cpus
    assert ray.in_flight == [min(window, len(tasks) - k) for k in range(len(tasks))]


def test_the_window_is_two_tasks_a_cpu_and_two_when_the_cluster_names_no_cpus(stand_in):
    ray = stand_in(cpus=3)
    fan_out(square, list(range(10)), backend="ray")
    assert max(ray.in_flight) == 6
    ray = stand_in(resources={})
    fan_out(square, list(range(10)), backend="ray")
    assert max(ray.in_flight) == 2
    ray = stand_in(resources={"CPU": 0.0})  # a cluster with no CPU yet still takes tasks, two at a time
    fan_out(square, list(range(10)), backend="ray")
    assert max(ray.in_flight) == 2


def test_no_tasks_touch_no_cluster(stand_in):
    ray = stand_in()
    assert fan_out(square, [], backend="ray") == []
    assert ray.calls == []


@pytest.mark.parametrize("jobs, n, cpus", [(2, 5, 2), (8, 3, 3), (0, 4, 1), (-3, 2, 1)])
def test_a_run_starts_a_local_cluster_of_its_cpus_and_shuts_it_down(stand_in, jobs, n, cpus):
    ray = stand_in()
    assert fan_out(square, list(range(n)), jobs=jobs, backend="ray") == [x * x for x in range(n)]
    inits = [call for call in ray.calls if call[0] == "init"]
    assert inits == [("init", {"num_cpus": cpus, "include_dashboard": False, "log_to_driver": False,
                               "logging_level": logging.ERROR})]
    assert _names(ray)[0] == "is_initialized" and _names(ray)[-1] == "shutdown"
    assert ("remote", {"num_cpus": 1}) in ray.calls
    assert ray.initialized is False


def test_an_open_session_is_used_and_left_open(stand_in):
    ray = stand_in(initialized=True)
    assert fan_out(square, [1, 2, 3], jobs=4, backend="ray") == [1, 4, 9]
    assert "init" not in _names(ray) and "shutdown" not in _names(ray)
    assert ray.initialized is True


def test_an_address_is_probed_then_joined_without_a_cpu_count(stand_in, monkeypatch):
    probed = []
    monkeypatch.setattr(fanout, "_probe", probed.append)
    ray = stand_in()
    assert fan_out(square, [2], jobs=3, backend="ray", address="10.0.0.5:6379") == [4]
    assert probed == ["10.0.0.5:6379"]
    assert [call for call in ray.calls if call[0] == "init"] == [
        ("init", {"address": "10.0.0.5:6379", "include_dashboard": False, "log_to_driver": False,
                  "logging_level": logging.ERROR})]
    assert _names(ray)[-1] == "shutdown"


def test_no_address_is_not_probed(stand_in, monkeypatch):
    monkeypatch.setattr(fanout, "_probe", lambda address: pytest.fail(f"probed {address}"))
    stand_in()
    assert fan_out(square, [2], backend="ray") == [4]


@pytest.mark.parametrize("address, error, message", [
    (None, RuntimeError("port 6379 taken\nsee the log"), "cannot connect to a local Ray cluster: port 6379 taken"),
    ("auto", ConnectionError("  no cluster found  \n"), "cannot connect to the Ray cluster at auto: no cluster found"),
    ("auto", TimeoutError(), "cannot connect to the Ray cluster at auto: TimeoutError"),
    (None, ValueError("   "), "cannot connect to a local Ray cluster: ValueError"),
])
def test_a_cluster_that_cannot_start_or_answer_is_one_usage_error(stand_in, address, error, message):
    ray = stand_in(init_error=error)
    with pytest.raises(UsageError) as err:
        fan_out(square, [1], backend="ray", address=address)
    assert str(err.value) == message
    assert err.value.__cause__ is None and err.value.__suppress_context__
    assert "shutdown" not in _names(ray)


@pytest.mark.parametrize("init_error", [None, RuntimeError("cannot start")])
def test_the_callers_sigterm_handler_is_put_back_after_ray_init(stand_in, init_error):
    def handler(signum, frame):  # pragma: no cover - never delivered
        pass

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        stand_in(init_error=init_error)
        try:
            fan_out(square, [1], backend="ray")
        except UsageError:
            assert init_error is not None
        assert signal.getsignal(signal.SIGTERM) is handler
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_a_run_from_another_thread_leaves_the_signal_handlers_alone(stand_in):
    """``signal.signal`` works in the main thread only; a fan-out from a worker thread must not call it."""
    ray = stand_in()
    got, errors = [], []

    def run():
        try:
            got.append(fan_out(square, [1, 2], backend="ray"))
        except BaseException as err:  # noqa: BLE001 - reported below
            errors.append(err)

    before = signal.getsignal(signal.SIGTERM)
    calls = []
    real = signal.signal
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(signal, "signal", lambda *args: calls.append(args) or real(*args))
        mp.setattr(signal, "getsignal", lambda *args: calls.append(args) or before)
        thread = threading.Thread(target=run)
        thread.start()
        thread.join()
    assert errors == [] and got == [[1, 4]] and calls == []
    assert _names(ray)[-1] == "shutdown"


def test_shared_is_put_once_and_given_first(stand_in):
    ray = stand_in()
    shared = {"factor": 5}
    assert fan_out(scaled, [1, 2, 3, 4, 5], shared=shared, backend="ray") == [5, 10, 15, 20, 25]
    assert [call for call in ray.calls if call[0] == "put"] == [("put", shared)]


def test_without_shared_nothing_is_put_and_the_function_takes_the_task_alone(stand_in):
    ray = stand_in()
    assert fan_out(square, [3, 4], backend="ray") == [9, 16]
    assert "put" not in _names(ray)
    shared_none = stand_in()
    assert fan_out(lambda shared, x: (shared, x), [7], shared=None, backend="ray") == [(None, 7)]
    assert [call for call in shared_none.calls if call[0] == "put"] == [("put", None)]


def test_a_task_error_is_raised_as_itself_and_what_is_still_running_is_cancelled(stand_in):
    """Tasks 1-4 are sent (window 4) and come back oldest first, a new one sent after each; task 3 fails: tasks
    4-6, still pending, are force-cancelled, and the session this run opened is shut down."""
    ray = stand_in()
    with pytest.raises(SchemaError) as err:
        fan_out(fails_on_three, [1, 2, 3, 4, 5, 6], backend="ray")
    assert type(err.value) is SchemaError and str(err.value) == "data.tsv, line 3: bad record"
    cancelled = [call for call in ray.calls if call[0] == "cancel"]
    assert [(ref.n, force) for _, ref, force in cancelled] == [(4, True), (5, True), (6, True)]
    assert _names(ray)[-1] == "shutdown"


def test_an_error_in_an_open_session_cancels_but_does_not_shut_it_down(stand_in):
    ray = stand_in(initialized=True)
    with pytest.raises(SchemaError):
        fan_out(fails_on_three, [3, 1, 2], backend="ray")
    assert "shutdown" not in _names(ray)
    assert sorted(ref.n for _, ref, _ in (c for c in ray.calls if c[0] == "cancel")) == [2, 3]


def test_a_cancel_that_fails_does_not_hide_the_tasks_error(stand_in):
    ray = stand_in()

    def cancel(ref, force=False):
        raise RuntimeError("already finished")

    ray.cancel = cancel
    with pytest.raises(SchemaError):
        fan_out(fails_on_three, [3, 1, 2], backend="ray")
    assert _names(ray)[-1] == "shutdown"


def test_a_ray_task_runs_with_one_blas_thread_and_sends_an_error_back_as_a_value():
    assert fanout._ray_task(blas_threads, False, None, 0) == [1]
    assert fanout._ray_task(scaled, True, {"factor": 2}, 4) == 8
    assert fanout._ray_task(square, False, {"factor": 2}, 4) == 16
    failed = fanout._ray_task(fails_on_three, False, None, 3)
    assert isinstance(failed, fanout._Failed)
    assert type(failed.err) is SchemaError and str(failed.err) == "data.tsv, line 3: bad record"


def test_a_sigterm_handler_not_set_from_python_is_left_to_ray(stand_in, monkeypatch):
    """``signal.getsignal`` gives None for a handler not installed from Python; there is nothing to put back
    (``signal.signal(SIGTERM, None)`` would raise TypeError)."""
    ray = stand_in()
    previous = signal.getsignal(signal.SIGTERM)
    monkeypatch.setattr(signal, "getsignal", lambda signum: None)
    try:
        assert fan_out(square, [3], backend="ray") == [9]
        assert _names(ray)[-1] == "shutdown"
    finally:
        signal.signal(signal.SIGTERM, previous)  # the stand-in's init set SIG_DFL, as Ray's does
