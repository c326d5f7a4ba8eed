"""A stop asked for by Ctrl-C or SIGTERM, kept where long runs can look at it.

The CLI turns the signal into a ``KeyboardInterrupt`` in the main thread. Code
that catches everything (a library's ``except BaseException``, a clean-up
that does not re-raise) can swallow it, and the run would go on as if never
interrupted. So the CLI also notes the signal here (:func:`note`), and a run
of several steps calls :func:`check` before each: a noted stop ends the run
at the next step, whatever became of the exception.

>>> reset(); check()
>>> note(15); requested()
15
>>> try:
...     check()
... except KeyboardInterrupt:
...     print("stopped")
stopped
>>> reset(); requested() is None
True
"""
from __future__ import annotations

_NOTED: list[int] = []


def note(signum: int) -> None:
    """Record that signal ``signum`` asked this run to stop (the first one counts)."""
    if not _NOTED:
        _NOTED.append(int(signum))


def requested() -> int | None:
    """The signal that asked this run to stop, or None."""
    return _NOTED[0] if _NOTED else None


def check() -> None:
    """Raise ``KeyboardInterrupt`` if a stop was asked for (the CLI turns it into its one line and code)."""
    if _NOTED:
        raise KeyboardInterrupt


def reset() -> None:
    """Forget a stop: the start of a new run in this process."""
    _NOTED.clear()
