"""What every task shares: the reporter (information lines and progress), the result shape, the output folder.

A task reports through a :class:`Reporter` instead of printing: the CLI builds
one from ``-q`` (stderr lines, a rich bar on a terminal), the release one that
prefixes its stage, and tests :data:`QUIET` or a list collector.

Every line the tool prints (information, progress, warnings, the ``error:``
line, the standard-output summary) goes through :func:`echo`, the one printer:
variant names, labels and values quoted from files that strangers wrote reach
the terminal or the CI log as visible text, never as an escape sequence, a CR
or a line of their own (:func:`schemas.escape.printed_line`; under GitHub
Actions, :func:`in_ci`, never as a workflow command either).
"""
from __future__ import annotations

import contextlib
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

from schemas.escape import for_terminal, printed_line
from schemas.ledger import DropRow


def in_ci() -> bool:
    """Whether the lines printed are read by GitHub Actions (``GITHUB_ACTIONS=true``), which executes a line
    that starts with ``::`` (or holds ``##[``) as a workflow command."""
    return os.environ.get("GITHUB_ACTIONS") == "true"


class WorkflowCommand(str):
    """A line the tool prints *as* a GitHub Actions workflow command (``::error title=...::...``).

    Its writer escaped its values (:func:`schemas.escape.for_actions`, ``for_actions_property``), so
    :func:`echo` prints it as it is, only made terminal-safe, not Actions-escaped a second time. Any
    other line is printed as data.
    """


def as_printed(text, *, keep_newlines: bool = False) -> str:
    """``text`` as :func:`echo` prints it: each control character visible, under GitHub Actions also ``%``,
    CR and LF escaped (:func:`schemas.escape.printed_line`). With ``keep_newlines`` ``text`` is a block the
    tool prints on purpose as several lines (a report): each of its lines is escaped the same way.

    >>> as_printed("qc: 1/2 variants checked (nqo\\x1b]0;owned\\x07)")
    'qc: 1/2 variants checked (nqo\\\\x1b]0;owned\\\\x07)'
    >>> as_printed("report\\n\\x1b[2Jline 2", keep_newlines=True)
    'report\\n\\\\x1b[2Jline 2'
    """
    if isinstance(text, WorkflowCommand):
        return for_terminal(text)
    ci = in_ci()
    if keep_newlines:
        return "\n".join(printed_line(part, ci=ci) for part in str(text).split("\n"))
    return printed_line(text, ci=ci)


def echo(text, *, err: bool = True, keep_newlines: bool = False) -> None:
    """Print one line the tool says (stderr; stdout with ``err=False``), escaped by :func:`as_printed`."""
    print(as_printed(text, keep_newlines=keep_newlines), file=sys.stderr if err else sys.stdout, flush=True)


def _stderr(message: str) -> None:
    echo(message)


@dataclass
class Reporter:
    """Where a task's information lines and progress go.

    ``quiet``: no information lines and no progress (errors are the caller's).
    ``write``: where a line goes (stderr through :func:`echo` by default; a
    ``write`` of one's own receives the line as the task wrote it, unescaped).
    ``terminal``: draw a rich progress bar instead of plain lines (default:
    whether stderr is a terminal).
    """

    quiet: bool = False
    write: Callable[[str], None] = _stderr
    terminal: bool | None = None

    def info(self, message: str) -> None:
        if not self.quiet:
            self.write(message)

    def warn(self, message: str) -> None:
        """A ``warning: MESSAGE`` line; a task also keeps the warning in its result's ``warnings``."""
        self.info(f"warning: {message}")

    def is_terminal(self) -> bool:
        return sys.stderr.isatty() if self.terminal is None else self.terminal

    @contextlib.contextmanager
    def progress(self, stage: str, total: int, noun: str = "tasks done", *, steps: int = 10,
                 interval: float = 10.0, clock=time.monotonic) -> Iterator[Callable | None]:
        """A ``progress(label, done, total)`` callback for a long stage, or None when quiet (or nothing to do).

        On a terminal: a rich progress bar on stderr, removed when the block ends.
        Otherwise (CI logs, pipes): plain lines ``STAGE: DONE/TOTAL NOUN (LABEL)``,
        one each time another 1/``steps`` of the work is done (10%) or
        ``interval`` seconds have passed since the last line, whichever comes
        first, and always the last one. ``clock`` is the time source.

        >>> lines = []
        >>> with Reporter(write=lines.append, terminal=False).progress("qc", 25, "variants checked",
        ...                                                           clock=lambda: 0) as report:
        ...     for done in range(1, 26):
        ...         report(f"v{done}", done, 25)
        >>> lines[:3] + lines[-1:]
        ['qc: 3/25 variants checked (v3)', 'qc: 5/25 variants checked (v5)', 'qc: 8/25 variants checked (v8)', 'qc: 25/25 variants checked (v25)']
        """
        if self.quiet or not total:
            yield None
            return
        if not self.is_terminal():
            last = {"done": 0, "at": clock()}

            def line(label, done, n):
                now = clock()
                if done >= n or done * steps // n > last["done"] * steps // n or now - last["at"] >= interval:
                    self.write(f"{stage}: {done}/{n} {noun} ({label})")
                    last.update(done=done, at=now)

            yield line
            return
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        # the label (a variant name) is data: escaped as every printed line is, and not read as rich markup
        with Progress(TextColumn(stage, markup=False), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                      TextColumn("{task.description}", markup=False), console=Console(stderr=True),
                      transient=True) as bar:
            task = bar.add_task("", total=total)
            yield lambda label, done, n: bar.update(task, completed=done, description=as_printed(label))

    def lazy_progress(self, stack: contextlib.ExitStack, stage: str, noun: str, **options) -> Callable:
        """A ``progress(label, done, total)`` that opens :meth:`progress` at its first call (for work whose
        size is known only once it has started, such as the export's variants); ``options`` are
        :meth:`progress`'s (``steps``, ``interval``, ``clock``)."""
        state: dict = {}

        def report(label, done, total):
            if "cb" not in state:
                state["cb"] = stack.enter_context(self.progress(stage, total, noun, **options))
            if state["cb"] is not None:
                state["cb"](label, done, total)
        return report


#: A reporter that says nothing (tests, and callers that only want the result).
QUIET = Reporter(quiet=True)


@dataclass
class TaskResult:
    """The part of every task's result the CLI and the release read.

    ``lines``: the command's standard-output summary (each one line, printed
    through :func:`echo`; a :class:`WorkflowCommand` is printed as a command).
    ``drops``: what it left out and why. ``warnings``: the warnings it gave
    (each also reported as it happened), for the release's report. ``notes``:
    information lines that belong after the summary (where the results were
    written, a measure not reported); the caller reports them once it has
    shown ``lines``.
    """

    lines: list[str] = field(default_factory=list)
    drops: list[DropRow] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


# -- output folders ------------------------------------------------------------------------------------------

def check_output(out: Path, command: str, *, inputs=(), legacy: str | None = None) -> None:
    """The checks of :func:`output_folder`, to run before a long computation (exit 2 at once)."""
    from schemas.runtime.outputs import check_replaceable, refuse_inputs_inside

    refuse_inputs_inside(out, inputs)
    check_replaceable(out, legacy, command)


@contextlib.contextmanager
def output_folder(out: Path, command: str, *, inputs=(), legacy: str | None = None) -> Iterator[Path]:
    """Stage the output folder ``out`` of ``command``; it replaces ``out`` whole when the block ends.

    Refuses (exit 2) an ``out`` that holds one of ``inputs``, and a non-empty
    ``out`` that is not an earlier output of ``command`` (its ``.builder.json``,
    or for outputs of earlier versions the file ``legacy``), before the block
    runs. Yields the staging folder to write into; on an error or an
    interruption ``out`` is left as it was.
    """
    from schemas.runtime.outputs import refuse_inputs_inside, staging_dir

    refuse_inputs_inside(out, inputs)
    with staging_dir(out, marker=legacy, what=command) as stage:
        yield stage
