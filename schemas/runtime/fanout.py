"""One fan-out for every per-variant stage: run ``fn`` over tasks on local processes or on a Ray cluster.

``fan_out(fn, tasks, jobs=..., backend=...)`` returns ``[fn(t) for t in
tasks]``, in task order, whatever the backend and the number of workers:
the stages that use it (``builder qc``, ``builder evaluate baselines``) give
the same bytes out with ``--backend local -j 1``, ``-j 8`` or ``--backend
ray`` (docs/scale.md).

Backends
--------
``local`` (default)
    ``jobs`` worker processes on this machine (``jobs=1``: in this process).
    Workers are forked where the platform can (they inherit ``shared`` and the
    tasks; only an index goes through the pipe), spawned otherwise. Each
    worker runs with one BLAS/OpenMP thread: the parallelism is across tasks.
    Interrupted (Ctrl-C, or SIGTERM turned into ``KeyboardInterrupt`` by the
    CLI) the pool is ended on the way out and no worker is left behind.
``ray``
    Tasks run as Ray tasks (one CPU each) on the cluster at ``address``
    (``auto``, ``HOST:6379`` or ``ray://HOST:10001``), or, without one, on a
    local cluster of ``jobs`` CPUs started for the run (and shut down after
    it). A Ray session already open in this process is used as it is. The
    driver (this process) holds the tasks; ``shared`` goes once into the object
    store; ``prepare(task)`` runs here just before a task is sent (for
    example to read the variant's files, so that the workers need no shared
    filesystem), and at most twice the cluster's CPUs are in flight at once.
    Ray is an optional extra: ``pip install 'mc-dataset-builder[ray]'``.

``progress(label, done, total)`` is called in this process as each task
finishes (in the order they finish); ``labels[i]`` names task ``i``
(default: its index). An exception raised by ``fn`` in a worker is raised
here, as the same class with the same message, whatever the backend.

For a stream too long to hold, :func:`ordered_map` runs a generator per task
on local processes and hands each task's results over as they come, in task
order, with a bounded number of tasks in flight (the assembly's records).

>>> fan_out(abs, [-3, 2, -1], jobs=1)
[3, 2, 1]
>>> seen = []
>>> fan_out(divmod, [7, 9], shared=100, jobs=1, progress=lambda *a: seen.append(a), labels=["a", "b"])
[(14, 2), (11, 1)]
>>> seen
[('a', 1, 2), ('b', 2, 2)]
"""
from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import pickle
import queue as queue_module
import signal
import threading
from collections import deque
from typing import Any, Callable, Iterable, Iterator, Sequence

from ..errors import UsageError

#: The backends ``--backend`` accepts.
BACKENDS = ("local", "ray")

#: What a missing Ray installation tells the user.
RAY_EXTRA = "pip install 'mc-dataset-builder[ray]'"

_NO_SHARED = object()

Progress = Callable[[str, int, int], None]


def default_jobs() -> int:
    """Worker processes: the CPUs this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def require_ray():
    """The ``ray`` module, or a one-line :class:`UsageError` naming the extra that installs it."""
    try:
        import ray
    except ImportError:
        raise UsageError(f"--backend ray needs Ray, which is not installed: {RAY_EXTRA}") from None
    return ray


def fan_out(fn: Callable, tasks: Sequence, *, shared: Any = _NO_SHARED, jobs: int = 1, backend: str = "local",
            address: str | None = None, progress: Progress | None = None, labels: Sequence[str] | None = None,
            prepare: Callable[[Any], Any] | None = None) -> list:
    """``[fn(task) for task in tasks]`` (``fn(shared, task)`` when ``shared`` is given), run in parallel.

    Parameters
    ----------
    fn : callable
        A module-level function (workers import it by name); it must not
        depend on the worker it runs in (seed it from the task).
    tasks : sequence
        Picklable tasks; results come back in this order.
    shared : object, optional
        Sent once to every worker (inherited by forked workers, put once in
        Ray's object store) and passed as ``fn``'s first argument.
    jobs : int
        Local: worker processes (1 runs in this process). Ray: the CPUs of the
        cluster started for the run (ignored when one is given or open).
    backend : {"local", "ray"}
    address : str, optional
        Ray: the cluster to connect to (``auto``, ``HOST:PORT``, ``ray://HOST:10001``).
    progress : callable, optional
        ``progress(label, done, total)``, called in this process as tasks finish.
    labels : sequence of str, optional
        One label per task for ``progress`` (default: the task's index).
    prepare : callable, optional
        Ray only: ``prepare(task)`` is sent instead of ``task``, computed here just before sending.
    """
    if backend not in BACKENDS:
        raise UsageError(f"unknown backend {backend!r}; expected one of {', '.join(BACKENDS)}")
    if address is not None and backend != "ray":
        raise UsageError("--address names a Ray cluster; it needs --backend ray")
    tasks = list(tasks)
    labels = [str(i) for i in range(len(tasks))] if labels is None else [str(x) for x in labels]
    if len(labels) != len(tasks):
        raise ValueError(f"{len(labels)} labels for {len(tasks)} tasks")
    call = (fn, shared)
    if backend == "ray":
        return _run_ray(call, tasks, jobs, address, progress, labels, prepare)
    jobs = max(1, min(jobs, len(tasks)))
    if jobs == 1:
        return _run_here(call, tasks, progress, labels)
    return _run_pool(call, tasks, jobs, progress, labels)


def _apply(call, task):
    fn, shared = call
    return fn(task) if shared is _NO_SHARED else fn(shared, task)


#: what a BLAS or OpenMP library reads when it is loaded, for its thread count
_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS",
                     "VECLIB_MAXIMUM_THREADS")


def _one_blas_thread_from_now():
    """One BLAS/OpenMP thread for the libraries loaded now (``threadpool_limits``) and later (the environment:
    scipy.linalg's OpenBLAS, for one, is loaded on a task's first Cholesky, and reads its thread count then).
    Returns the limits, to restore."""
    from threadpoolctl import threadpool_limits

    os.environ.update(dict.fromkeys(_THREAD_VARIABLES, "1"))
    return threadpool_limits(1)


@contextlib.contextmanager
def _one_blas_thread():
    """Parallelism is across tasks: BLAS threads would oversubscribe the cores.

    Without the environment half, a ``-j 1`` run factorised on two threads: 1.7x the CPU time of the same
    run in a worker, and other rounding.
    """
    saved = {name: os.environ.get(name) for name in _THREAD_VARIABLES}
    limits = _one_blas_thread_from_now()
    try:
        yield
    finally:
        limits.restore_original_limits()
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


# -- local ---------------------------------------------------------------------------------------------------

def _run_here(call, tasks, progress, labels) -> list:
    out = []
    with _one_blas_thread():  # the same arithmetic as a worker's, so the same bytes
        for i, task in enumerate(tasks):
            out.append(_apply(call, task))
            if progress is not None:
                progress(labels[i], i + 1, len(tasks))
    return out


#: ``(call, tasks)`` of the running fan-out, for forked workers: they inherit it, so nothing but a
#: task's index goes through the pipe. Spawned workers get ``call`` once, from the pool's initializer.
_FORKED: list = []


def _init_worker(call=None):
    _one_blas_thread_from_now()  # kept for the worker's life
    if call is not None:
        _FORKED[:] = [call, None]


def _by_index(i: int):
    """A forked worker's task: the index in, the index and its result out."""
    call, tasks = _FORKED
    return i, _apply(call, tasks[i])


def _with_task(arg):
    """A spawned worker's task: the index and the task in, the index and its result out."""
    i, task = arg
    return i, _apply(_FORKED[0], task)


def _run_pool(call, tasks, jobs, progress, labels) -> list:
    fork = "fork" in multiprocessing.get_all_start_methods()
    ctx = multiprocessing.get_context("fork" if fork else None)
    total = len(tasks)
    out: list = [None] * total
    _FORKED[:] = [call, tasks] if fork else []
    try:
        # one task per message: no worker sits idle at the end while another holds a batch
        with ctx.Pool(jobs, initializer=_init_worker, initargs=() if fork else (call,)) as pool:
            work, args = (_by_index, range(total)) if fork else (_with_task, list(enumerate(tasks)))
            for done, (i, result) in enumerate(pool.imap_unordered(work, args, chunksize=1), 1):
                out[i] = result
                if progress is not None:
                    progress(labels[i], done, total)
            # let the workers finish: Pool.terminate (the with block's exit) can race the pool's own
            # thread, which then forks a replacement worker that is never ended
            pool.close()
            pool.join()
    finally:
        _FORKED.clear()
    return out


# -- Ray -----------------------------------------------------------------------------------------------------

class _Failed:
    """What a worker sends when ``fn`` raised (a Ray task, an :func:`ordered_map` worker): the exception,
    re-raised in this process."""

    def __init__(self, err: BaseException):
        try:
            pickle.loads(pickle.dumps(err))
        except Exception:  # an exception that cannot travel: its class name and message do
            err = RuntimeError(f"{type(err).__name__}: {err}")
        self.err = err


def _ray_task(fn, has_shared: bool, shared, task):
    """One Ray task; ``shared`` arrives as a top-level argument, so Ray fetches it from the object store."""
    with _one_blas_thread():
        try:
            return fn(shared, task) if has_shared else fn(task)
        except Exception as err:  # raised in the driver as itself, not as Ray's wrapper
            return _Failed(err)


def _ray_session(ray, jobs: int, address: str | None) -> bool:
    """Connect to ``address`` or start a local cluster of ``jobs`` CPUs; True when this call opened the session."""
    if ray.is_initialized():
        return False
    main = threading.current_thread() is threading.main_thread()
    handler = signal.getsignal(signal.SIGTERM) if main else None
    options = dict(include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR)
    if address is not None:
        _probe(address)
    try:
        if address is None:
            ray.init(num_cpus=max(1, jobs), **options)
        else:
            ray.init(address=address, **options)
    except Exception as err:  # a cluster that cannot be reached or started: one line
        where = f"the Ray cluster at {address}" if address else "a local Ray cluster"
        message = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise UsageError(f"cannot connect to {where}: {message}") from None
    finally:
        if main and handler is not None:  # ray.init sets its own SIGTERM handler; the CLI's stops cleanly
            signal.signal(signal.SIGTERM, handler)
    return True


def _probe(address: str, timeout: float = 10.0) -> None:
    """A one-line :class:`UsageError` when ``HOST:PORT`` does not answer (Ray itself would retry for minutes)."""
    import socket

    hostport = address.split("://", 1)[1] if "://" in address else address
    host, sep, port = hostport.rpartition(":")
    if not sep or not port.isdigit():  # "auto", or a form Ray reads itself
        return
    try:
        socket.create_connection((host.strip("[]") or "127.0.0.1", int(port)), timeout=timeout).close()
    except OSError as err:
        raise UsageError(f"cannot connect to the Ray cluster at {address}: "
                         f"{err.strerror or type(err).__name__}") from None


def _run_ray(call, tasks, jobs, address, progress, labels, prepare) -> list:
    ray = require_ray()
    total = len(tasks)
    if not total:
        return []
    opened = _ray_session(ray, min(jobs, total), address)
    pending: dict = {}
    try:
        remote = ray.remote(num_cpus=1)(_ray_task)
        fn, shared = call
        has_shared = shared is not _NO_SHARED
        shared_ref = ray.put(shared) if has_shared else None
        window = 2 * max(1, int(ray.cluster_resources().get("CPU", 1)))
        out: list = [None] * total
        nxt = done = 0
        while done < total:
            while nxt < total and len(pending) < window:
                task = tasks[nxt] if prepare is None else prepare(tasks[nxt])
                pending[remote.remote(fn, has_shared, shared_ref, task)] = nxt
                nxt += 1
            (ready,), _ = ray.wait(list(pending), num_returns=1)
            i = pending.pop(ready)
            result = ray.get(ready)
            if isinstance(result, _Failed):
                raise result.err
            out[i] = result
            done += 1
            if progress is not None:
                progress(labels[i], done, total)
        return out
    finally:
        for left in pending:  # interrupted or failed: stop what still runs
            try:
                ray.cancel(left, force=True)
            except Exception:  # pragma: no cover - already finished or the session is gone
                pass
        if opened:
            ray.shutdown()


# -- ordered streaming map -----------------------------------------------------------------------------------

def ordered_map(work: Callable[[Any], Iterable], tasks: Iterable, *, jobs: int = 1, depth: int = 2,
                queue: int = 8) -> Iterator[tuple[Any, Iterator]]:
    """``(task, results)`` for each of ``tasks`` in order, ``results`` iterating over ``work(task)`` as it runs.

    ``work(task)`` is a generator (a module-level function: forked workers
    inherit it). With ``jobs > 1``, ``jobs`` forked worker processes each hold
    up to ``depth`` tasks, so at most ``jobs * depth`` are in flight, and each
    worker's queue holds at most ``queue`` results: a worker that runs ahead
    of the consumer waits instead of filling memory, and the oldest task's
    results are always read first (its worker is never the one kept waiting).
    The results, and their order, do not depend on ``jobs``. Where ``fork`` is
    not available, or ``jobs == 1``, everything runs in this process.

    ``results`` must be read before the next pair is taken (as with
    :func:`itertools.groupby`); what is left of it is skipped. A task that is
    an exception (an error met while planning the tasks) is raised when its
    turn comes, so errors surface in the order one process meets them. An
    exception in a worker is raised here as the same class with the same
    message (:class:`_Failed`). Workers ignore Ctrl-C (this process is
    interrupted and ends them) and are ended on the way out, whatever the reason.

    >>> def count_to(n):
    ...     yield from range(n)
    >>> [(task, list(results)) for task, results in ordered_map(count_to, [2, 0, 1], jobs=1)]
    [(2, [0, 1]), (0, []), (1, [0])]
    """
    if jobs <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        for task in tasks:
            if isinstance(task, BaseException):
                raise task
            yield task, iter(work(task))
        return
    yield from _StreamPool(work, jobs, depth, queue).run(iter(tasks))


def _stream_worker(work, inbox, outbox) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the main process is interrupted and ends the workers
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    for blob in iter(inbox.get, None):
        try:
            for result in work(pickle.loads(blob)):
                # pickled here, not by the queue's feeder thread, which prints an error and drops the message
                outbox.put(("result", pickle.dumps(result)))
            outbox.put(("done", None))
        except BaseException as err:  # noqa: BLE001 - every failure travels to the main process
            outbox.put(("error", _Failed(err)))
            return


class _StreamPool:
    def __init__(self, work, jobs: int, depth: int, queue: int):
        self.work, self.jobs, self.depth, self.queue = work, jobs, depth, queue

    def run(self, tasks: Iterator) -> Iterator[tuple[Any, Iterator]]:
        ctx = multiprocessing.get_context("fork")
        workers = []
        try:
            for _ in range(self.jobs):
                # the inbox is a Queue, whose feeder thread writes the pipe, so handing out a task never
                # blocks this process: a SimpleQueue's put wrote the pipe here, and a task larger than the
                # pipe's buffer (128 long paths) blocked it while the worker waited on a full outbox.
                inbox, outbox = ctx.Queue(), ctx.Queue(self.queue)
                proc = ctx.Process(target=_stream_worker, args=(self.work, inbox, outbox), daemon=True)
                proc.start()
                workers.append((proc, inbox, outbox))
            pending: deque = deque()

            def give(worker) -> None:
                for task in tasks:
                    if isinstance(task, BaseException):
                        pending.append((task, None))  # raised in its turn; the worker gets the next real task
                        continue
                    worker[1].put(pickle.dumps(task))  # an error here, not lost
                    pending.append((task, worker))
                    return

            for _ in range(self.depth):
                for worker in workers:
                    give(worker)
            while pending:
                task, worker = pending.popleft()
                if worker is None:
                    raise task
                results = self._results(worker, give)
                yield task, results
                for _ in results:  # what the consumer left
                    pass
            for _, inbox, _ in workers:
                inbox.put(None)
            for proc, _, _ in workers:
                proc.join()
        finally:
            for proc, inbox, outbox in workers:
                if proc.is_alive():
                    proc.terminate()
                proc.join()
                for box in (inbox, outbox):
                    box.cancel_join_thread()  # a task left unsent to an ended worker must not hold the exit
                    box.close()

    @staticmethod
    def _results(worker, give) -> Iterator:
        """The results of the worker's oldest task; at its end the worker is given the next task."""
        proc, _, outbox = worker
        while True:
            try:
                kind, payload = outbox.get(timeout=0.5)
            except queue_module.Empty:
                if not proc.is_alive():
                    raise RuntimeError(f"a worker process ended unexpectedly (exit code {proc.exitcode})") from None
                continue
            if kind == "done":
                give(worker)
                return
            if kind == "error":
                raise payload.err
            yield pickle.loads(payload)
