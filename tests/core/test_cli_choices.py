"""The CLI's ``click.Choice`` lists are the owners' lists: a value a stage accepts (and the release recipe,
which asks the same owners, accepts) is accepted on the command line, and nothing else. The CLI keeps
literal copies so that ``builder --help`` does not import the stages; this test is what keeps them the same."""
from __future__ import annotations

import click
import pytest

from builder.cli.main import cli


def _choices(path: list[str], option: str) -> tuple[str, ...]:
    command, ctx = cli, click.Context(cli)
    for name in path:
        command = command.get_command(ctx, name)
        ctx = click.Context(command, parent=ctx)
    param = next(p for p in command.params if option in p.opts)
    assert isinstance(param.type, click.Choice), f"{' '.join(path)} {option} is not a choice"
    return tuple(param.type.choices)


def _owner(name: str):
    import importlib

    module, attr = name.rsplit(".", 1)
    return tuple(getattr(importlib.import_module(module), attr))


@pytest.mark.parametrize("path, option, owner", [
    (["annotate", "adjudicate"], "--policy", "annotation.adjudicate.POLICIES"),
    (["annotate", "agreement"], "--format", "annotation.importer.FORMATS"),
    (["evaluate", "baselines"], "--ngram-unit", "builder.evaluation.topic_baselines.NGRAM_UNITS"),
])
def test_a_cli_choice_is_its_owners_list(path, option, owner):
    assert sorted(_choices(path, option)) == sorted(_owner(owner))
