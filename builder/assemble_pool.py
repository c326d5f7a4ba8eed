"""Worker processes that run tasks and stream each task's results back in task order, with bounded memory.

:func:`ordered_results` runs ``work(task)`` (a generator of results) for every
task and yields ``(task, result)`` pairs in task order, then ``(task, DONE)``
when a task is finished. With ``jobs == 1`` everything runs in this process.
Otherwise ``jobs`` forked workers each hold up to ``depth`` tasks; each has its
own result queue of at most ``queue`` results, so a worker that runs ahead of
the consumer waits instead of filling memory, and the results of the oldest
task are always read first (no deadlock: its worker is never the one kept
waiting). The order of the results, and so everything built from them, does
not depend on ``jobs``.

A task that is an exception (an error met while planning the tasks) is raised
when its turn comes, so errors surface in the order a single process meets
them. An exception in a worker is raised here, as the same class with the same
message. Workers ignore Ctrl-C (the CLI stops them) and are ended on the way
out, whatever the reason.

>>> def work(n):
...     yield from range(n)
>>> [r for _, r in ordered_results(work, [2, 1], jobs=1) if r is not DONE]
[0, 1, 0]
"""
from __future__ import annotations

import multiprocessing
import pickle
import queue as queue_module
import signal
from collections import deque
from typing import Any, Callable, Iterable, Iterator

#: The result that marks the end of a task.
DONE = "__done__"


def ordered_results(work: Callable[[Any], Iterable], tasks: Iterable, *, jobs: int = 1, depth: int = 2,
                    queue: int = 8) -> Iterator[tuple[Any, Any]]:
    if jobs <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        for task in tasks:
            if isinstance(task, BaseException):
                raise task
            for result in work(task):
                yield task, result
            yield task, DONE
        return
    yield from _Pool(work, jobs, depth, queue).run(iter(tasks))


def _worker(work, inbox, outbox) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the CLI process handles Ctrl-C and ends the workers
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    for task in iter(inbox.get, None):
        try:
            for result in work(task):
                outbox.put(("result", result))
            outbox.put(("done", None))
        except BaseException as err:  # noqa: BLE001 - every failure travels to the main process
            outbox.put(("error", _portable(err)))
            return


def _portable(err: BaseException) -> BaseException:
    try:
        pickle.loads(pickle.dumps(err))
        return err
    except Exception:  # an exception that cannot travel: its class name and message do
        return RuntimeError(f"{type(err).__name__}: {err}")


class _Pool:
    def __init__(self, work, jobs: int, depth: int, queue: int):
        self.work, self.jobs, self.depth, self.queue = work, jobs, depth, queue

    def run(self, tasks: Iterator) -> Iterator[tuple[Any, Any]]:
        ctx = multiprocessing.get_context("fork")
        workers = []
        try:
            for _ in range(self.jobs):
                inbox, outbox = ctx.SimpleQueue(), ctx.Queue(self.queue)
                proc = ctx.Process(target=_worker, args=(self.work, inbox, outbox), daemon=True)
                proc.start()
                workers.append((proc, inbox, outbox))
            pending: deque = deque()

            def give(worker) -> bool:
                task = next(tasks, None)
                if task is None:
                    return False
                if isinstance(task, BaseException):
                    pending.append((task, None))
                    return give(worker)  # the worker gets the next real task
                worker[1].put(task)
                pending.append((task, worker))
                return True

            for _ in range(self.depth):
                for worker in workers:
                    give(worker)
            while pending:
                task, worker = pending.popleft()
                if worker is None:
                    raise task
                while True:
                    kind, payload = self._get(worker)
                    if kind == "result":
                        yield task, payload
                        continue
                    if kind == "error":
                        raise payload
                    give(worker)
                    yield task, DONE
                    break
            for _, inbox, _ in workers:
                inbox.put(None)
            for proc, _, _ in workers:
                proc.join()
        finally:
            for proc, _, outbox in workers:
                if proc.is_alive():
                    proc.terminate()
                proc.join()
                outbox.cancel_join_thread()
                outbox.close()

    @staticmethod
    def _get(worker):
        proc, _, outbox = worker
        while True:
            try:
                return outbox.get(timeout=0.5)
            except queue_module.Empty:
                if not proc.is_alive():
                    raise RuntimeError(f"an assembly worker process ended unexpectedly "
                                       f"(exit code {proc.exitcode})") from None
