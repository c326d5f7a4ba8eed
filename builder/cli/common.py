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


def progress(iterable, *, total=None, description="", quiet=False):
    """Wrap ``iterable`` in a rich progress bar on stderr when it is a terminal."""
    if quiet or not sys.stderr.isatty():
        return iterable
    from rich.progress import track

    return track(iterable, total=total, description=description, transient=True)
