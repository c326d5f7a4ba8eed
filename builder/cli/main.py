"""The ``builder`` command: a group that dispatches to one module per task.

Subcommands are imported lazily from :data:`COMMANDS`, so ``builder --help``
and a single command start fast and one broken optional module cannot break
the others. Every failure is one line on stderr and a named exit code
(:class:`schemas.errors.ExitStatus`): a :class:`schemas.errors.ToolkitError`
(an output that cannot be written is an :class:`~schemas.errors.OutputError`,
exit 2), click's own usage errors (``error: Invalid value for '--out': ...;
see 'builder assemble --help'``, exit 2), and an interruption: Ctrl-C exits
130, SIGTERM 143, both stopping workers and removing temporary files
(:func:`main` turns SIGTERM into the same ``KeyboardInterrupt`` as Ctrl-C).
``--traceback`` shows the stack.
"""
from __future__ import annotations

import importlib
import logging
import os
import signal
import sys

import click

from schemas.errors import ExitStatus, ToolkitError, os_reason
from schemas.runtime import stop as run_stop

from .common import AppContext, echo_error

#: name -> "module:attribute" of a click command or group, with its one-line help.
COMMANDS: dict[str, tuple[str, str]] = {
    "assemble": ("builder.cli.assemble:assemble", "Assemble a training set from source corpora."),
    "annotate": ("builder.cli.annotate:annotate", "Topic-label annotation: agreement, adjudication, curation, splits."),
    "extend": ("builder.cli.variants:extend", "Project annotated items onto a parallel translation."),
    "romanize": ("builder.cli.variants:romanize", "Write a Latin-script variant of a variant folder."),
    "describe": ("builder.cli.describe:describe", "Declare license, source and citation of a variant folder."),
    "qc": ("builder.cli.qc:qc", "Run the quality-control release gate."),
    "licenses": ("builder.cli.export:licenses", "Audit license terms per split and variant."),
    "export": ("builder.cli.export:export", "Export splits with card, licenses and lm-eval tasks."),
    "evaluate": ("builder.cli.evaluate:evaluate", "Score baselines on built splits, or score LLM answers."),
    "disparity": ("builder.cli.disparity:disparity", "Quantify language disparities (PRR, CV-PRR)."),
    "release": ("builder.cli.release:release", "From a release recipe to a gated, documented release."),
}


class ToolkitGroup(click.Group):
    """A click group with lazy subcommands and one-line error reporting."""

    def list_commands(self, ctx):
        return sorted(COMMANDS)

    def get_command(self, ctx, name):
        if name not in COMMANDS:
            return None
        target, short = COMMANDS[name]
        module_name, attr = target.split(":")
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as err:
            if err.name != module_name:
                raise

            @click.command(name=name, help=f"{short} (not available: {module_name} is missing)")
            def unavailable():
                raise ToolkitError(f"the '{name}' command is not available in this installation")

            return unavailable
        return getattr(module, attr)

    def make_context(self, info_name, args, parent=None, **extra):
        try:
            return super().make_context(info_name, args, parent=parent, **extra)
        except click.UsageError as err:  # the group's own options (builder --bogus)
            if isinstance(err, _NO_ARGS):
                raise
            _echo_usage_error(err, info_name)
            raise click.exceptions.Exit(ExitStatus.USAGE) from None

    def invoke(self, ctx):
        try:
            value = super().invoke(ctx)
        except KeyboardInterrupt:
            self._stopped(ctx)
        except click.exceptions.Exit:
            raise
        except Exception as err:
            if run_stop.requested():  # whatever the interruption turned into (a C extension's import fails
                self._stopped(ctx)     # with ImportError, a stage wraps it): the run was stopped
            self._failed(ctx, err)
        else:
            if run_stop.requested():  # the interruption was swallowed on the way: still the stop it was
                self._stopped(ctx)
            return value

    @staticmethod
    def _stopped(ctx) -> None:
        code, line = _stop_line(run_stop.requested() or signal.SIGINT)
        echo_error(line)
        ctx.exit(code)

    @staticmethod
    def _failed(ctx, err: Exception) -> None:
        """One line and the error's exit code; an error of no known kind is raised (a bug: its traceback)."""
        app = ctx.find_object(AppContext)
        if isinstance(err, ToolkitError):
            if app is not None and app.traceback:
                raise err
            echo_error(str(err))
            ctx.exit(int(err.exit_code))
        if isinstance(err, click.UsageError):
            if isinstance(err, _NO_ARGS):  # `builder evaluate` alone: click shows the group's help
                raise err
            _echo_usage_error(err, ctx.info_name)
            ctx.exit(ExitStatus.USAGE)
        if isinstance(err, OSError):  # an I/O error no reader or writer turned into a ToolkitError: one line
            if app is not None and app.traceback:
                raise err
            where = f"{err.filename}: " if err.filename else ""
            echo_error(f"{where}{os_reason(err)}")
            ctx.exit(ExitStatus.USAGE)  # never 1, which the gates use for "failed"
        raise err


_NO_ARGS = getattr(click.exceptions, "NoArgsIsHelpError", ())


def _echo_usage_error(err: click.UsageError, info_name: str | None) -> None:
    """click's usage error as one line: ``error: MESSAGE; see 'builder CMD --help'``."""
    path = (err.ctx.command_path if err.ctx is not None else info_name or "builder").split()
    path[0] = "builder"  # the program's name, whatever a test runner called it
    message = " ".join(err.format_message().split()).rstrip(".")
    echo_error(f"{message}; see '{' '.join(path)} --help'")


class _InfoLines(logging.Handler):
    """Log records of the shared layer (``schemas``: recovery after a killed run) as info lines."""

    def __init__(self, app: AppContext):
        super().__init__(logging.INFO)
        self.app = app

    def emit(self, record):
        self.app.info(record.getMessage())


class _Route:
    """While a command runs, info lines of ``schemas`` go to ``app.info`` (stderr unless ``-q``)."""

    def __init__(self, app: AppContext):
        self.handler, self.logger = _InfoLines(app), logging.getLogger("schemas")

    def __enter__(self):
        self.level = self.logger.level
        self.logger.addHandler(self.handler)
        self.logger.setLevel(logging.INFO)

    def __exit__(self, *exc):
        self.logger.removeHandler(self.handler)
        self.logger.setLevel(self.level)


@click.group(cls=ToolkitGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--traceback", is_flag=True, help="Show the Python traceback on errors.")
@click.option("-q", "--quiet", is_flag=True, help="Print only errors and final summaries.")
@click.option("--no-verify", is_flag=True,
              help="Read dataset folders whose files no longer match the sha256 in their manifest.json "
                   "(by default such a folder stops the command, exit 2).")
@click.version_option(package_name="mc-dataset-builder", prog_name="builder")
@click.pass_context
def cli(ctx, traceback, quiet, no_verify):
    """Build, check and release multilingual evaluation datasets.

    Each subcommand does one job; run `builder COMMAND --help` for its options.
    Exit codes: 0 success, 1 bad input (or a failed gate), 2 usage error, an
    output that cannot be written or replaced, or an input altered after its
    manifest.json was written (for gates: the input cannot be read); 130 Ctrl-C,
    143 SIGTERM.
    """
    ctx.obj = app = AppContext(traceback=traceback, quiet=quiet, verify=not no_verify)
    ctx.with_resource(_Route(app))
    if no_verify:
        from schemas.manifest import manifest_verification

        ctx.with_resource(manifest_verification(False))


_STOPPING: dict[str, int] = {}  # the CLI's pid while a run is on (the signal that stops it: schemas.runtime.stop)
_AT_FORK = False
_IN_CHILD = False  # a process forked from the CLI (a worker)
_STOPPED = False  # a run of this process was stopped by a signal
_IN_HOOK = False  # the unraisable hook is re-delivering a swallowed interruption (:func:`_unraisable`)
#: Seconds the clean-up after Ctrl-C or SIGTERM may take before the process ends anyway (with its line and
#: exit code): an interruption raised where Python cannot propagate it must still stop the run.
STOP_GRACE = 30.0


def _on_stop_signal(signum, frame):
    """Ctrl-C and SIGTERM stop the command the same way: a ``KeyboardInterrupt`` in the main thread.

    Worker pools are ended and staging folders removed on the way out. Forked
    workers do not keep this handler (:func:`main` resets it at fork); a
    second signal while the first is being handled is ignored (SIGKILL still
    ends the process), unless it is the CLI's own re-delivery of one that
    Python swallowed (:func:`_unraisable`). The first one also arms
    :func:`_watchdog`.
    """
    if _IN_CHILD:
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
        return
    if _IN_HOOK:  # raised here, it would be swallowed by the hook in turn: sent again once the hook is done
        _redeliver(signum)
        return
    if os.getpid() != _STOPPING.get("pid"):  # no run now: after one was stopped, a late copy is ignored
        if _STOPPED:
            return
        raise KeyboardInterrupt
    if run_stop.requested() and not _STOPPING.pop("again", None):
        return
    run_stop.note(signum)  # the first one counts; should its KeyboardInterrupt be swallowed, the run's next step
    raise KeyboardInterrupt  # still stops (builder.release.pipeline asks before each stage)


def _stop_line(signum: int) -> tuple[int, str]:
    code = ExitStatus.TERMINATED if signum == signal.SIGTERM else ExitStatus.INTERRUPTED
    by = "SIGTERM" if code == ExitStatus.TERMINATED else "Ctrl-C"
    return int(code), f"interrupted by {by}; workers stopped, temporary files removed, no output left half-written"


def _watchdog() -> tuple[int, int] | None:
    """Watch for Ctrl-C and SIGTERM from a thread of its own, and end the process with the interruption's
    line and exit code if the clean-up has not ended it within :data:`STOP_GRACE` seconds.

    The signal's number reaches the watcher through ``signal.set_wakeup_fd``, which the interpreter writes
    whichever thread the kernel delivered the signal to; so the grace period starts even when the main
    thread cannot run the Python handler (it waits on a pool whose result thread is stuck on a lock an
    interrupted thread left held). Returns the pipe, for :func:`main` to close; None off the main thread.
    """
    import threading

    try:
        read, write = os.pipe()
        os.set_blocking(write, False)
        signal.set_wakeup_fd(write, warn_on_full_buffer=False)
    except (ValueError, OSError):  # not the main thread of the main interpreter
        return None

    def expire(signum: int) -> None:
        if _STOPPING.get("pid") == os.getpid():
            code, line = _stop_line(run_stop.requested() or signum)
            echo_error(line + f" (the clean-up did not end within {STOP_GRACE:.0f} s)")
            os._exit(code)

    def watch() -> None:
        while True:
            try:
                data = os.read(read, 64)
            except OSError:
                return
            if not data:
                return
            for signum in data:
                if signum in (signal.SIGINT, signal.SIGTERM):
                    timer = threading.Timer(STOP_GRACE, expire, args=(signum,))
                    timer.daemon = True
                    timer.start()
                    return

    threading.Thread(target=watch, name="builder-stop-watchdog", daemon=True).start()
    return read, write


def _unraisable(hook):
    """A ``sys.unraisablehook`` that re-delivers an interruption Python swallowed.

    A ``KeyboardInterrupt`` raised while the main thread runs a weakref
    callback, a ``__del__`` or a finalizer cannot propagate: Python prints
    "Exception ignored" and goes on, and the run would finish as if never
    interrupted (once in 7 Ctrl-C in a release's qc stage). The CLI sends the
    same signal to itself again (:func:`_redeliver`), so the interruption is
    raised at the next point that can take it, after the hook.
    """

    def unraisable(info):
        global _IN_HOOK
        if (issubclass(info.exc_type, KeyboardInterrupt) and _STOPPING.get("pid") == os.getpid()
                and run_stop.requested()):
            _IN_HOOK = True
            _STOPPING["again"] = 1
            _redeliver(run_stop.requested())
            _IN_HOOK = False  # an assignment, not a call: the signal's handler cannot run between it and the return
            return
        hook(info)

    return unraisable


def _redeliver(signum: int) -> None:
    """Send ``signum`` to this process from a thread of its own.

    Python runs a signal's handler in the main thread at its next check, which, for a signal the hook sent
    itself, is inside the hook: the handler's ``KeyboardInterrupt`` would then be swallowed again, printed
    as "Exception ignored in sys.unraisablehook" with a traceback. Sent from another thread a moment later,
    it finds the hook returned; should it not, the handler sees :data:`_IN_HOOK` and sends it once more.
    """
    import threading
    import time

    def again() -> None:
        time.sleep(0.005)  # the thread's start returns to the hook before the signal goes
        os.kill(os.getpid(), signum)

    threading.Thread(target=again, name="builder-stop-again", daemon=True).start()


def _in_forked_child() -> None:
    """A forked worker dies at SIGTERM at once (as ``Pool.terminate`` expects) and does not write to the
    CLI's watchdog pipe: only a signal to the CLI process starts its grace period."""
    global _IN_CHILD
    _IN_CHILD = True
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        signal.set_wakeup_fd(-1)
    except ValueError:  # pragma: no cover - a fork from a thread the child does not see as main
        pass


def main(argv=None) -> int:
    """Console-script entry point; exit codes as in :class:`schemas.errors.ExitStatus`."""
    from schemas.runtime.outputs import FAULT_ENV, FAULT_PID_ENV

    global _AT_FORK, _STOPPED
    _STOPPED = False
    _STOPPING.clear()
    _STOPPING["pid"] = os.getpid()
    run_stop.reset()
    handlers = {signum: signal.signal(signum, _on_stop_signal) for signum in (signal.SIGINT, signal.SIGTERM)}
    hook = sys.unraisablehook
    sys.unraisablehook = _unraisable(hook)
    pipe = _watchdog()
    if not _AT_FORK:  # a forked worker dies at SIGTERM at once, as Pool.terminate expects
        os.register_at_fork(after_in_child=_in_forked_child)
        _AT_FORK = True
    if os.environ.get(FAULT_ENV):  # the fault tests' hook: workers signal this process
        os.environ[FAULT_PID_ENV] = str(os.getpid())
    try:
        cli.main(args=argv, prog_name="builder", standalone_mode=True)
    except SystemExit as exc:  # click exits via SystemExit in standalone mode
        code = exc.code
        return code if isinstance(code, int) else (0 if code is None else ExitStatus.BAD_INPUT)
    finally:
        _STOPPED = _STOPPED or bool(run_stop.requested())
        _STOPPING.clear()
        run_stop.reset()  # a later in-process command (a test's) starts with no stop asked  # a watchdog that fires now finds no run of this process to end
        if pipe is not None:
            signal.set_wakeup_fd(-1)
            for fd in pipe:
                os.close(fd)
        sys.unraisablehook = hook
        if not _STOPPED:  # after a stop the CLI's handler stays: a late copy of the signal is ignored
            for signum, handler in handlers.items():
                signal.signal(signum, handler)
    return 0


def console() -> None:
    """The ``builder`` console script and ``python -m builder``: :func:`main`, then the exit.

    What the command made is freed at exit either way; :func:`gc.freeze` first spares the interpreter's
    last collections going over all of it (45 ms of the 3 s the benchmark's assembly takes). Only here:
    :func:`main` called in a process that goes on (a test's) leaves its collector as it was.
    """
    import gc

    code = main()
    gc.freeze()
    sys.exit(code)


if __name__ == "__main__":  # pragma: no cover
    console()
