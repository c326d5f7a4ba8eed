"""The ``builder`` command: a group that dispatches to one module per task.

Subcommands are imported lazily from :data:`COMMANDS`, so ``builder --help``
and a single command start fast and one broken optional module cannot break
the others. Failures are turned into one line on stderr and a named exit code
(:class:`schemas.errors.ExitStatus`); ``--traceback`` shows the stack.
"""
from __future__ import annotations

import importlib
import sys

import click

from schemas.errors import ExitStatus, ToolkitError

from .common import AppContext, echo_error

#: name -> "module:attribute" of a click command or group, with its one-line help.
COMMANDS: dict[str, tuple[str, str]] = {
    "assemble": ("builder.cli.assemble:assemble", "Assemble a training set from source corpora."),
    "annotate": ("builder.cli.annotate:annotate", "Topic-label annotation: agreement, adjudication, curation, splits."),
    "extend": ("builder.cli.variants:extend", "Project annotated items onto a parallel translation."),
    "romanize": ("builder.cli.variants:romanize", "Write a Latin-script variant of a variant folder."),
    "qc": ("builder.cli.qc:qc", "Run the quality-control release gate."),
    "licenses": ("builder.cli.export:licenses", "Audit license terms per split and variant."),
    "export": ("builder.cli.export:export", "Export splits with card, licenses and lm-eval tasks."),
    "evaluate": ("builder.cli.evaluate:evaluate", "Score baselines on built splits, or score LLM answers."),
    "disparity": ("builder.cli.disparity:disparity", "Quantify language disparities (PRR, CV-PRR)."),
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

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except ToolkitError as err:
            app = ctx.find_object(AppContext)
            if app is not None and app.traceback:
                raise
            echo_error(str(err))
            ctx.exit(int(err.exit_code))
        except KeyboardInterrupt:
            echo_error("interrupted; outputs already in place were left unchanged")
            ctx.exit(130)


@click.group(cls=ToolkitGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--traceback", is_flag=True, help="Show the Python traceback on errors.")
@click.option("-q", "--quiet", is_flag=True, help="Print only errors and final summaries.")
@click.version_option(package_name="mc-dataset-builder", prog_name="builder")
@click.pass_context
def cli(ctx, traceback, quiet):
    """Build, check and release multilingual evaluation datasets.

    Each subcommand does one job; run `builder COMMAND --help` for its options.
    Exit codes: 0 success, 1 bad input (or a failed gate), 2 usage error
    (or, for gates, unreadable input).
    """
    ctx.obj = AppContext(traceback=traceback, quiet=quiet)


def main(argv=None) -> int:
    """Console-script entry point."""
    try:
        cli.main(args=argv, prog_name="builder", standalone_mode=True)
    except SystemExit as exc:  # click exits via SystemExit in standalone mode
        code = exc.code
        return code if isinstance(code, int) else (0 if code is None else ExitStatus.BAD_INPUT)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
