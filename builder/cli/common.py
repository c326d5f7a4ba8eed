"""Pieces shared by the subcommands: the context object (and the task reporter it makes), options, messages.

Every line a command prints goes through :func:`builder.tasks.base.echo`, the one printer, which makes the
data in it (a variant name, a label, a value quoted in an error) inert for the terminal and the CI log.
"""
from __future__ import annotations

import functools
import sys
from dataclasses import dataclass
from pathlib import Path

import click


@dataclass
class AppContext:
    """Built once from the global options; subcommands receive it via ``@pass_app``."""

    traceback: bool = False
    quiet: bool = False
    verify: bool = True  # check dataset folders against their manifest.json (builder --no-verify: False)

    def info(self, message: str) -> None:
        if not self.quiet:
            echo(message)

    def reporter(self):
        """The :class:`builder.tasks.base.Reporter` of a command: stderr lines unless ``-q``, a bar on a terminal."""
        from builder.tasks.base import Reporter

        return Reporter(quiet=self.quiet, write=echo, terminal=_is_terminal())

    @staticmethod
    def echo_lines(lines, *, keep_newlines: bool = False) -> None:
        """A task's standard-output summary (its result's ``lines``), each one line; with ``keep_newlines``
        each is a block of lines the task joined on purpose (``builder licenses``)."""
        for line in lines:
            echo(line, err=False, keep_newlines=keep_newlines)

    def show(self, result, *, keep_newlines: bool = False) -> None:
        """A task's result as the command prints it: ``lines`` on stdout, then its ``notes`` as info lines."""
        self.echo_lines(result.lines, keep_newlines=keep_newlines)
        for note in result.notes:
            self.info(note)


pass_app = click.make_pass_decorator(AppContext, ensure=True)


def echo(text, *, err: bool = True, keep_newlines: bool = False) -> None:
    """Print one line (stderr; stdout with ``err=False``): :func:`builder.tasks.base.echo`, the one printer."""
    from builder.tasks.base import echo as _echo

    _echo(text, err=err, keep_newlines=keep_newlines)


def echo_error(message: str) -> None:
    """Print one error line to stderr (the message may quote hostile data: :func:`echo` makes it inert)."""
    echo(f"error: {message}")


def on_error_option(f):
    """``--on-error raise|skip``: stop at the first bad record, or skip it and count its reason."""
    return click.option(
        "--on-error", type=click.Choice(["raise", "skip"]), default="raise", show_default=True,
        help="On a bad record: stop with one error line, or skip it and count it with its reason.",
    )(f)


def _names(ctx, param, values):
    """Flatten repeated values that may each be a comma list, in the order given, without repeats."""
    names: list[str] = []
    for value in values:
        for name in value.split(","):
            name = name.strip()
            if not name:
                raise click.BadParameter(f"expected NAME or NAME,NAME,...; found {value!r}", ctx, param)
            if name not in names:
                names.append(name)
    return tuple(names)


def names_option(*decls, metavar: str = "NAME", help: str):
    """A repeatable option whose every value may also be a comma list; the command gets a tuple of names.

    ``--variant eng_Latn,hin_Deva`` is the same as ``--variant eng_Latn --variant hin_Deva``;
    a name given twice counts once. The grammar is shared by every option that names several
    things (``--variant``, ``--baseline``), so that it is implemented and documented once.
    """
    return click.option(*decls, multiple=True, metavar=f"{metavar}[,{metavar}...]", callback=_names,
                        help=f"{help} Repeatable, or a comma list.")


def variant_option(f):
    """``--variant NAME``: work on these variants only (default: all of them)."""
    return names_option("--variant", "variants",
                        help="Only this variant, e.g. hin_Deva [default: every variant].")(f)


def _jobs(ctx, param, value):
    if value is not None:
        return value
    from schemas.runtime.fanout import default_jobs  # the one definition of "the usable CPUs"

    return default_jobs()


def jobs_option(f):
    """``--jobs/-j N``: worker processes; default the CPUs this process may use (:func:`schemas.runtime.fanout.default_jobs`)."""
    return click.option("--jobs", "-j", type=click.IntRange(min=1), default=None, callback=_jobs,
                        help="Worker processes; the result does not depend on it [default: the usable CPUs].")(f)


def backend_option(f):
    """``--backend local|ray`` and ``--address ADDRESS``: where the per-variant tasks run (:mod:`schemas.runtime.fanout`).

    The command receives ``backend`` and ``address``. Checked before the
    command runs, each in one line (exit 2): ``--address`` without
    ``--backend ray``, and ``--backend ray`` where Ray is not installed
    (the message names the extra that installs it).
    """
    @functools.wraps(f)
    def checked(*args, backend, address, **kwargs):
        from schemas.errors import UsageError
        from schemas.runtime.fanout import require_ray

        if address is not None and backend != "ray":
            raise UsageError(f"--address {address} names a Ray cluster; add --backend ray")
        if backend == "ray":
            require_ray()
        return f(*args, backend=backend, address=address, **kwargs)

    checked = click.option(
        "--address", metavar="ADDRESS", default=None,
        help="With --backend ray: the cluster to use (auto, HOST:6379 or ray://HOST:10001) "
             "[default: a local cluster of --jobs CPUs, started for the run].")(checked)
    return click.option(
        "--backend", type=click.Choice(["local", "ray"]), default="local", show_default=True,
        help="Where the per-variant tasks run: processes on this machine, or a Ray cluster "
             "(pip install 'mc-dataset-builder[ray]'); the result does not depend on it.")(checked)


def source_name_option(f):
    """``--source-name NAME``: the name to credit for records that name no source (``licenses``, ``export``,
    ``describe``: one meaning per option name; ``--source`` is a folder, in ``builder extend``).

    ``--source NAME``, its old spelling in ``licenses`` and ``export``, is kept as a hidden alias that
    prints one ``warning:`` line; both with different values is a usage error (exit 2).
    """
    @functools.wraps(f)
    def merged(*args, source_name, old_source, **kwargs):
        if old_source is not None:
            from schemas.errors import UsageError

            if source_name is not None and source_name != old_source:
                raise UsageError(f"--source {old_source} and --source-name {source_name} name the same thing; "
                                 "give --source-name only")
            echo(f"warning: --source NAME is deprecated here, use --source-name {old_source} "
                 "(--source is a folder, as in builder extend)")
            source_name = old_source
        return f(*args, source_name=source_name, **kwargs)

    merged = click.option("--source", "old_source", metavar="NAME", hidden=True,
                          help="Deprecated spelling of --source-name.")(merged)
    return click.option("--source-name", metavar="NAME",
                        help="Source name of records that name none, where their variant.json names none either "
                             "[default: the input folder's name].")(merged)


def _is_terminal() -> bool:
    return sys.stderr.isatty()


class OutputFolder(click.ParamType):
    """An ``--out`` folder, checked when the option is read, before any work is done.

    A file of that name, a file in its path or a folder this process may not
    write in is an :class:`schemas.errors.OutputError` (one line,
    ``error: cannot write PATH: REASON``, exit code 2) from
    :func:`schemas.runtime.outputs.check_writable`. ``inside``: the command writes
    into the folder (``OUT/<variant>/``, reports) rather than replacing it.
    """

    name = "directory"

    def __init__(self, *, inside: bool = False):
        self.inside = inside

    def convert(self, value, param, ctx):
        from schemas.runtime.outputs import check_writable

        return check_writable(Path(value), inside=self.inside)
