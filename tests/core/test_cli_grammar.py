"""One CLI grammar: shared `--variant` and `--jobs`, the `evaluate` group, exit codes decided by the class."""
from __future__ import annotations

import ast
import json
import shutil
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from builder.cli import main as cli_main
from builder.cli.common import jobs_option, variant_option
from builder.cli.main import cli
from schemas.errors import (ExitStatus, GateFailed, GateInputError, GateStatus, QCGateFailed, SchemaError,
                            ToolkitError, UsageError)

REPO = Path(__file__).parents[2]
DATA = REPO / "tests" / "data"
SOURCE_PACKAGES = ("builder", "qc", "schemas", "annotation", "data_cards")


# --- exit codes come from the error's class ----------------------------------------------------------------


def test_gate_statuses_are_their_own_names_not_aliases():
    assert [(s.name, int(s)) for s in GateStatus] == [("PASSED", 0), ("FAILED", 1), ("UNREADABLE", 2)]
    assert [s.name for s in ExitStatus] == ["SUCCESS", "BAD_INPUT", "USAGE", "INTERRUPTED",
                                            "TERMINATED"]  # no gate aliases left here
    assert QCGateFailed("x").exit_code is GateStatus.FAILED and issubclass(QCGateFailed, GateFailed)
    assert GateInputError("x").exit_code is GateStatus.UNREADABLE


def test_gate_input_error_keeps_message_and_location():
    err = SchemaError("malformed JSON: Expecting value", file="a/test.jsonl", record="line 5", field="passage")
    wrapped = GateInputError.from_error(err)
    assert str(wrapped) == str(err) == "a/test.jsonl, line 5, field passage: malformed JSON: Expecting value"
    assert (wrapped.file, wrapped.record, wrapped.field) == (err.file, err.record, err.field)


@pytest.mark.parametrize("error,code", [
    (ToolkitError("bad record"), 1),
    (UsageError("wrong flag"), 2),
    (GateFailed("gate failed"), 1),
    (GateInputError("cannot read", file="x.jsonl"), 2),
])
def test_the_class_decides_the_exit_code(monkeypatch, error, code):
    @click.command()
    def boom():
        raise error

    monkeypatch.setattr(cli_main.ToolkitGroup, "get_command", lambda self, ctx, name: boom)
    result = CliRunner().invoke(cli, ["boom"])
    assert result.exit_code == code
    assert result.output == f"error: {error}\n"


def _instance_exit_code_assignments(path: Path) -> list[str]:
    """``something.exit_code = ...`` anywhere (a class body's ``exit_code = ...`` is a plain name, allowed)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
        for t in targets:
            if isinstance(t, ast.Attribute) and t.attr == "exit_code":
                found.append(f"{path.relative_to(REPO)}:{node.lineno}")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr" \
                and len(node.args) > 1 and isinstance(node.args[1], ast.Constant) and node.args[1].value == "exit_code":
            found.append(f"{path.relative_to(REPO)}:{node.lineno}")
    return found


def test_no_code_changes_an_errors_exit_code_after_it_was_raised():
    found = [hit for pkg in SOURCE_PACKAGES for path in sorted((REPO / pkg).rglob("*.py"))
             for hit in _instance_exit_code_assignments(path)]
    assert found == []


def test_the_cli_uses_no_private_click_parser_api():
    private = ("_long_opt", "_short_opt", "parser._", ".process =")
    found = [f"{p.relative_to(REPO)}: {name}" for p in sorted((REPO / "builder").rglob("*.py"))
             for name in private if name in p.read_text(encoding="utf-8")]
    assert found == []


# --- --variant and --jobs: one option each, shared by every command -------------------------------------------


@click.command()
@variant_option
@jobs_option
def _probe(variants, jobs):
    click.echo(json.dumps({"variants": variants, "jobs": jobs}))


def _probe_run(*args):
    result = CliRunner().invoke(_probe, list(args))
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


@pytest.mark.parametrize("args", [
    ["--variant", "eng_Latn,hin_Deva"],
    ["--variant", "eng_Latn", "--variant", "hin_Deva"],
    ["--variant", "eng_Latn, hin_Deva", "--variant", "eng_Latn"],  # spaces and a repeat are harmless
])
def test_variant_comma_list_equals_repeated_option(args):
    assert _probe_run(*args)["variants"] == ["eng_Latn", "hin_Deva"]


def test_no_variant_means_all_and_an_empty_name_is_a_usage_error():
    assert _probe_run()["variants"] == []
    result = CliRunner().invoke(_probe, ["--variant", "eng_Latn,,hin_Deva"])
    assert result.exit_code == 2 and "expected NAME or NAME,NAME,..." in result.output


def test_jobs_defaults_to_the_usable_cpus():
    from qc.gate import default_jobs

    assert _probe_run()["jobs"] == default_jobs()
    assert _probe_run("-j", "3")["jobs"] == _probe_run("--jobs", "3")["jobs"] == 3
    assert CliRunner().invoke(_probe, ["--jobs", "0"]).exit_code == 2


@pytest.mark.parametrize("command", [["qc"], ["evaluate", "baselines"], ["evaluate", "prompts"]])
def test_every_variant_selecting_command_shares_the_options(command):
    ctx = click.Context(cli)
    cmd = cli.get_command(ctx, command[0])
    for name in command[1:]:
        cmd = cmd.get_command(ctx, name)
    params = {p.name: p for p in cmd.params}
    assert params["variants"].opts == ["--variant"] and params["variants"].multiple
    assert params["variants"].callback is variant_option(lambda: None).__click_params__[0].callback
    if "jobs" in params:
        assert params["jobs"].opts == ["--jobs", "-j"] and params["jobs"].default is None


def test_prompts_for_a_comma_list_equal_prompts_for_repeated_variants(tmp_path):
    pivot = str(DATA / "qc" / "pivot")
    outs = {}
    for name, args in (("comma", ["--variant", "eng_Latn,hin_Deva"]),
                       ("repeat", ["--variant", "eng_Latn", "--variant", "hin_Deva"])):
        outs[name] = tmp_path / name
        result = CliRunner().invoke(cli, ["evaluate", "prompts", pivot, "--mode", "zero-shot", *args,
                                          "--out", str(outs[name])])
        assert result.exit_code == 0, result.output
    assert sorted(p.name for p in (outs["comma"] / "prompts").iterdir()) == \
        ["eng_Latn.zero-shot.jsonl", "hin_Deva.zero-shot.jsonl"]
    for rel in ("prompts.json", "prompts/eng_Latn.zero-shot.jsonl", "prompts/hin_Deva.zero-shot.jsonl"):
        assert (outs["comma"] / rel).read_bytes() == (outs["repeat"] / rel).read_bytes(), rel


# --- builder evaluate: a group whose subcommands own their options ---------------------------------------------

OWN_OPTIONS = {
    "baselines": {"--out", "--baseline", "--variant", "--ngram-unit", "--jobs", "--backend", "--address", "--seed",
                  "--split", "--transfer-from", "--mlp-max-iter", "--ci"},
    "predictions": {"--task", "--out", "--gold", "--split", "--labels", "--model", "--answer-column", "--lenient",
                    "--ci"},
    "prompts": {"--mode", "--out", "--shots-from", "--variant", "--split", "--seed"},
}
EVERY_OPTION = set().union(*OWN_OPTIONS.values()) | {"--predictions", "--render-prompts", "--baselines",
                                                    "--variants"}


def _listed_options(help_text: str) -> set[str]:
    options = help_text.split("Options:", 1)[1]
    return {word.rstrip(",") for line in options.splitlines() for word in line.split()[:2]
            if word.startswith("--")} - {"--help"}


@pytest.mark.parametrize("sub", sorted(OWN_OPTIONS))
def test_each_evaluate_subcommand_lists_only_its_options(sub):
    result = CliRunner().invoke(cli, ["evaluate", sub, "--help"])
    assert result.exit_code == 0, result.output
    listed = _listed_options(result.output)
    assert listed == OWN_OPTIONS[sub]
    assert not (EVERY_OPTION - OWN_OPTIONS[sub]) & listed


def test_evaluate_without_a_subcommand_shows_help_listing_them():
    result = CliRunner().invoke(cli, ["evaluate"])
    assert result.exit_code in (0, 2)  # click >= 8.2 exits 2 when a group gets no command
    assert "Usage: cli evaluate [OPTIONS] COMMAND [ARGS]..." in result.output
    commands = result.output.split("Commands:", 1)[1].split()
    assert {"baselines", "predictions", "prompts"} <= set(commands)
    assert "--out" not in result.output.split("Commands:", 1)[0].split("Options:", 1)[1]


def test_an_option_of_another_subcommand_is_a_usage_error(tmp_path):
    result = CliRunner().invoke(cli, ["evaluate", "predictions", str(DATA / "evaluation" / "mc_predictions.jsonl"),
                                      "--task", "mc", "--baseline", "chance", "--out", str(tmp_path)])
    assert result.exit_code == 2 and "No such option" in result.output


# --- one meaning per option name (issue 24): --source is a folder, --source-name a name --------------------------


def _commands(group=cli, prefix=()):
    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        cmd = group.get_command(ctx, name)
        if isinstance(cmd, click.Group):
            yield from _commands(cmd, (*prefix, name))
        else:
            yield " ".join((*prefix, name)), cmd


def test_source_is_a_path_and_source_name_a_name_in_every_command():
    path_opts, name_opts = {}, {}
    for name, cmd in _commands():
        for p in cmd.params:
            if isinstance(p, click.Option) and not p.hidden:
                if "--source" in p.opts:
                    path_opts[name] = p
                if "--source-name" in p.opts:
                    name_opts[name] = p
    assert sorted(path_opts) == ["extend"] and isinstance(path_opts["extend"].type, click.Path)
    assert sorted(name_opts) == ["describe", "export", "licenses"]
    assert not any(isinstance(p.type, click.Path) for p in name_opts.values())


def _err_lines(result) -> list[str]:
    return [line for line in result.stderr.splitlines() if line.strip()]


def test_the_old_source_spelling_works_with_one_warning_line():
    new = CliRunner().invoke(cli, ["licenses", str(DATA / "export" / "sib_small"), "--source-name", "X"])
    old = CliRunner().invoke(cli, ["licenses", str(DATA / "export" / "sib_small"), "--source", "X"])
    assert new.exit_code == old.exit_code == 0, old.stderr
    assert old.stdout == new.stdout
    assert _err_lines(old) == ["warning: --source NAME is deprecated here, use --source-name X "
                               "(--source is a folder, as in builder extend)"]
    both = CliRunner().invoke(cli, ["licenses", str(DATA / "export" / "sib_small"), "--source", "X",
                                    "--source-name", "Y"])
    assert both.exit_code == 2 and _err_lines(both) == [
        "error: --source X and --source-name Y name the same thing; give --source-name only"]


def test_export_help_gives_the_real_default_of_name():
    text = " ".join(CliRunner().invoke(cli, ["export", "--help"]).output.split())
    assert "[default: the input manifest.json's name or recipe, else the input folder's name]" in text
    assert "(default: the folder name)" not in text


def test_a_name_that_is_not_config_safe_is_said_in_one_line(tmp_path):
    out = tmp_path / "ex"
    result = CliRunner().invoke(cli, ["export", str(DATA / "export" / "sib_small"), "--out", str(out),
                                      "--name", "my name", "-j", "1"])
    assert result.exit_code == 0, result.stderr
    said = [line for line in _err_lines(result) if "my name" in line]
    assert said == ["export: name 'my name' is shown as given on the card; configs, the lm-eval group and task "
                    "names use 'my_name' (letters, digits and _ only)"]
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["name"] == "my_name" and manifest["pretty_name"] == "my name"
    quiet = CliRunner().invoke(cli, ["export", str(DATA / "export" / "sib_small"), "--out", str(tmp_path / "e2"),
                                     "--name", "sib_small", "-j", "1"])
    assert quiet.exit_code == 0 and not any("shown as given" in line for line in _err_lines(quiet))


def test_export_of_unknown_licenses_through_the_override_says_so(tmp_path):
    out = tmp_path / "ex"
    result = CliRunner().invoke(cli, ["export", str(DATA / "export" / "mc_small"), "--out", str(out), "-j", "1"])
    assert result.exit_code == 0, result.stderr
    warnings = [line for line in _err_lines(result) if line.startswith("warning:")]
    assert len(warnings) == 1, result.stderr
    assert warnings[0].startswith("warning: the license of MCScript, MultiRC is unknown and exported only because of the "
                                  f"written license_override in {DATA / 'export' / 'mc_small' / 'manifest.json'}; ")
    assert "qc's license check passes it only through the same override" in warnings[0]
    # what the line says qc does: qc's license check takes the same override (schemas.licensing, one rule)
    CliRunner().invoke(cli, ["qc", str(DATA / "export" / "mc_small"), "--out", str(tmp_path / "qc"), "-j", "1"])
    report = json.loads((tmp_path / "qc" / "qc_report.json").read_text(encoding="utf-8"))
    checks = report.get("checks") or report.get("results")
    assert [c["passed"] for c in checks if c["check"] == "license"] == [True]


def test_export_with_a_license_fallback_says_qc_will_fail(tmp_path):
    data = tmp_path / "ds"
    shutil.copytree(DATA / "sib200" / "annotated" / "hin_Deva", data / "hin_Deva")  # no variant.json: no license
    result = CliRunner().invoke(cli, ["export", str(data), "--out", str(tmp_path / "ex"), "--license",
                                      "CC-BY-SA-4.0", "-j", "1"])
    assert result.exit_code == 0, result.stderr
    warnings = [line for line in _err_lines(result) if line.startswith("warning:")]
    assert warnings == ["warning: qc's license check fails 3 split(s) (it takes no fallback such as --license "
                        "CC-BY-SA-4.0), first hin_Deva/train: no_license: the release gate will stop; confirm the "
                        "terms before a release"]
    qc = CliRunner().invoke(cli, ["qc", str(data), "--out", str(tmp_path / "qc"), "-j", "1"])
    assert qc.exit_code == 1 and "hin_Deva:license" in qc.stderr  # what the warning said
