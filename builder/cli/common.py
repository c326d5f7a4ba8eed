"""Pieces shared by the subcommands: the context object, options, messages, progress."""
from __future__ import annotations

import sys
from dataclasses import dataclass

import click


@dataclass
class AppContext:
    """Built once from the global options; subcommands receive it via ``@pass_app``."""

    traceback: bool = False
    quiet: bool = False

    def info(self, message: str) -> None:
        if not self.quiet:
            click.echo(message, err=True)


pass_app = click.make_pass_decorator(AppContext, ensure=True)


def echo_error(message: str) -> None:
    """Print one error line to stderr."""
    click.echo(f"error: {message}", err=True)


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
    from qc.gate import default_jobs  # the one definition of "the usable CPUs"

    return default_jobs()


def jobs_option(f):
    """``--jobs/-j N``: worker processes; default the CPUs this process may use (:func:`qc.gate.default_jobs`)."""
    return click.option("--jobs", "-j", type=click.IntRange(min=1), default=None, callback=_jobs,
                        help="Worker processes; the result does not depend on it [default: the usable CPUs].")(f)


def progress(iterable, *, total=None, description="", quiet=False):
    """Wrap ``iterable`` in a rich progress bar on stderr when it is a terminal."""
    if quiet or not sys.stderr.isatty():
        return iterable
    from rich.progress import track

    return track(iterable, total=total, description=description, transient=True)
