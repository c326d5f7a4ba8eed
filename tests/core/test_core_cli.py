"""The command group: lazy commands, one-line errors, named exit codes."""
import subprocess
import sys

import click
import pytest
from click.testing import CliRunner

from builder.cli import main as cli_main
from schemas import SourceError


def test_help_lists_every_registered_command():
    result = CliRunner().invoke(cli_main.cli, ["--help"])
    assert result.exit_code == 0
    for name in cli_main.COMMANDS:
        assert name in result.output


def test_unknown_command_is_usage_error():
    result = CliRunner().invoke(cli_main.cli, ["frobnicate"])
    assert result.exit_code == 2


def _failing_group(monkeypatch):
    @click.command()
    def boom():
        raise SourceError("malformed JSON: Expecting value", file="RACE/train/high/1.txt", record="line 1")

    monkeypatch.setitem(cli_main.COMMANDS, "boom", ("tests.core.test_core_cli:_unused", "test"))
    monkeypatch.setattr(cli_main.ToolkitGroup, "get_command",
                        lambda self, ctx, name: boom if name == "boom" else None)


def test_toolkit_error_is_one_line_and_exit_1(monkeypatch):
    _failing_group(monkeypatch)
    result = CliRunner().invoke(cli_main.cli, ["boom"])
    assert result.exit_code == 1
    assert result.output == "error: RACE/train/high/1.txt, line 1: malformed JSON: Expecting value\n"


def test_traceback_flag_reraises(monkeypatch):
    _failing_group(monkeypatch)
    result = CliRunner().invoke(cli_main.cli, ["--traceback", "boom"])
    assert isinstance(result.exception, SourceError)


def test_console_script_runs():
    proc = subprocess.run([sys.executable, "-m", "builder", "--version"], capture_output=True, text=True)
    assert proc.returncode == 0
    assert "builder" in proc.stdout
    proc = subprocess.run([sys.executable, "-m", "builder", "assemble", "no-such-recipe.yaml", "--out", "x"],
                          capture_output=True, text=True)
    assert proc.returncode == 1 and proc.stderr.startswith("error: no-such-recipe.yaml")


def test_the_console_script_exits_with_the_code_of_main_after_freezing_the_collector(monkeypatch):
    import gc

    calls = []
    monkeypatch.setattr(cli_main, "main", lambda: calls.append("main") or 3)
    monkeypatch.setattr(gc, "freeze", lambda: calls.append("freeze"))
    with pytest.raises(SystemExit) as exc:
        cli_main.console()
    assert exc.value.code == 3 and calls == ["main", "freeze"]
