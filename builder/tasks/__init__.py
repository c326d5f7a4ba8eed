"""Each command's body as a plain function: typed options in, a typed result out.

The CLI (:mod:`builder.cli`) is a thin click adapter over these functions, and
the release (:mod:`builder.release`) calls the same functions for its stages,
so a stage does exactly what the command does, with no command line rebuilt,
no working directory changed and no output stream redirected.

The convention every task keeps:

* ``run_NAME(options: NAMEOptions, report: Reporter = QUIET) -> NAMEResult``.
  The options are a frozen dataclass (paths as :class:`pathlib.Path`); the
  result a dataclass that holds what the command prints (``lines``: its
  standard-output summary, as text), the drops it made (``drops``: a list of
  :class:`schemas.ledger.DropRow`) and whatever the release reads next.
* Bad input, a refused output or a failed gate raise the error family
  (:mod:`schemas.errors`); the CLI turns them into one line and an exit code,
  the release stops (or, for a gate, records the verdict).
* Information and progress go through the :class:`~builder.tasks.base.Reporter`
  (stderr lines, a progress bar on a terminal); a task never prints itself.

Modules import click nowhere under ``builder/tasks``.
"""
