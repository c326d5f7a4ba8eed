"""The export and the license audit as tasks (builder.tasks.export), as the CLI and the release call them.

The CLI prints a task's ``lines`` (export) or ``text`` (licenses) and raises
the ``--intended-use`` verdict from the result; these tests call the tasks
directly and check that what they return is what the commands print.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from builder.cli.main import cli
from builder.tasks.base import Reporter
from builder.tasks.export import ExportOptions, LicensesOptions, run_export, run_licenses
from schemas.errors import GateFailed, GateInputError

EXPORT_DATA = Path(__file__).parents[1] / "data" / "export"


def test_run_export_returns_the_commands_summary_and_reports_progress(tmp_path):
    lines = []
    res = run_export(ExportOptions(EXPORT_DATA / "sib_small", tmp_path / "task", lm_eval=True),
                     Reporter(write=lines.append, terminal=False))
    assert res.lines == [f"exported 2 variant(s), {len(res.files)} file(s), {len(res.lm_eval_tasks)} lm-eval task(s) "
                         f"to {tmp_path / 'task'} (terms: {res.terms})"]
    assert lines[-1].startswith("export: 2/2 variants written (")
    assert res.variants == ["hin_Deva", "hin_Latn"] and (res.drops, res.warnings) == ([], [])
    cli_out = CliRunner().invoke(cli, ["-q", "export", str(EXPORT_DATA / "sib_small"), "--out", str(tmp_path / "cli"),
                                       "--lm-eval"])
    assert cli_out.exit_code == 0, cli_out.output
    assert cli_out.stdout == res.lines[0].replace(str(tmp_path / "task"), str(tmp_path / "cli")) + "\n"
    for rel in res.files:  # the same bytes through the task and the command
        assert (tmp_path / "task" / rel).read_bytes() == (tmp_path / "cli" / rel).read_bytes(), rel


def test_export_options_are_frozen():
    options = ExportOptions(Path("a"), Path("b"))
    with pytest.raises(AttributeError):
        options.license = "MIT"
    assert (options.schema, options.jobs, options.backend, options.lm_eval) == ("ours", 1, "local", False)


def test_run_licenses_holds_the_rows_the_text_and_the_verdict():
    res = run_licenses(LicensesOptions(EXPORT_DATA / "mc_small", as_json=True, intended_use="commercial"))
    assert json.loads(res.text) == res.rows and res.lines == [res.text[:-1]] and res.text.endswith("]\n")
    assert [(r["variant"], r["split"]) for r in res.rows] == [(s.variant, s.split) for s in res.audit.splits]
    assert not res.allowed and res.failing == [f"{r['variant']}/{r['split']}" for r in res.rows]
    assert res.notes == []
    with pytest.raises(GateFailed, match=r"do not allow commercial use: eng_Latn/"):
        res.gate()
    ok = run_licenses(LicensesOptions(EXPORT_DATA / "mc_small", intended_use="research"))
    ok.gate()
    assert ok.allowed and ok.notes == [f"all {len(ok.rows)} split(s) allow research use"]
    plain = run_licenses(LicensesOptions(EXPORT_DATA / "mc_small"))  # no use asked about: no verdict
    plain.gate()
    assert plain.notes == [] and plain.lines == [plain.text] and not plain.text.endswith("\n")


def test_the_licenses_command_prints_the_tasks_result():
    res = run_licenses(LicensesOptions(EXPORT_DATA / "mc_small", as_json=True, intended_use="research"))
    out = CliRunner().invoke(cli, ["licenses", str(EXPORT_DATA / "mc_small"), "--json", "--intended-use", "research"])
    assert out.exit_code == 0 and out.stdout == res.text and out.stderr == res.notes[0] + "\n"


def test_run_licenses_on_an_unreadable_folder_is_a_gate_input_error(tmp_path):
    with pytest.raises(GateInputError, match="dataset folder not found"):
        run_licenses(LicensesOptions(tmp_path / "missing"))
