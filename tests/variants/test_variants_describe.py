"""builder describe (license, source, citation of a variant folder) and what export makes of it and of codes."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from builder.cli.main import cli
from schemas.variant import VariantInfo

DATA = Path(__file__).parents[1] / "data"
SIB = DATA / "sib200"
SMALL = DATA / "export" / "sib_small"
BIB = "@article{adelani2023sib,\n  title={SIB-200},\n  author={Adelani, David Ifeoluwa and others},\n  year={2023}\n}\n"


def _run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


@pytest.fixture
def folder(tmp_path):
    dst = tmp_path / "hin_Deva"
    shutil.copytree(SIB / "annotated" / "hin_Deva", dst)
    return dst


def test_describe_writes_the_declared_fields_and_shows_them(folder, tmp_path):
    (tmp_path / "sib.bib").write_text(BIB, encoding="utf-8")
    res = _run("describe", folder, "--license", "CC-BY-SA-4.0", "--source-name", "SIB-200",
               "--citation-file", tmp_path / "sib.bib")
    assert res.exit_code == 0, res.output
    assert res.stdout.splitlines() == [
        f"wrote {folder / 'variant.json'}", "license: CC-BY-SA-4.0  [declared with builder describe]",
        "source_name: SIB-200", "citation: @article{adelani2023sib, (+4 lines)"]
    data = json.loads((folder / "variant.json").read_text(encoding="utf-8"))
    assert data == {"citation": BIB.strip(), "license": "CC-BY-SA-4.0",
                    "license_from": "declared with builder describe", "source_name": "SIB-200"}
    shown = _run("describe", folder)
    assert shown.exit_code == 0 and shown.stdout.splitlines()[1:] == res.stdout.splitlines()[2:]


def test_describe_changes_only_the_fields_given_and_keeps_the_rest(tmp_path):
    folder = tmp_path / "hin_Latn"
    shutil.copytree(SMALL / "hin_Latn", folder)
    before = json.loads((folder / "variant.json").read_text(encoding="utf-8"))
    res = _run("describe", folder, "--citation", "Adelani et al. (2023)")
    assert res.exit_code == 0, res.output
    after = json.loads((folder / "variant.json").read_text(encoding="utf-8"))
    assert after == {**before, "citation": "Adelani et al. (2023)"}
    res = _run("describe", folder, "--source-name", "SIB-200 (romanized)")
    assert res.exit_code == 0
    assert VariantInfo.read(folder).source_name == "SIB-200 (romanized)"
    assert VariantInfo.read(folder).get("tool") == "indic-transliteration"


def test_describe_without_a_variant_json_shows_nothing_declared_and_writes_nothing(folder):
    res = _run("describe", folder)
    assert res.exit_code == 0
    assert res.stdout == "license: (not declared)\nsource_name: (not declared)\ncitation: (not declared)\n"
    assert not (folder / "variant.json").exists()


@pytest.mark.parametrize("args, code, message", [
    (["--license", "CC-BY-SA"], 1, "error: field --license: unknown license id 'CC-BY-SA'; known ids: Apache-2.0,"),
    (["--source-name", " "], 2, "error: field --source-name: expected one non-empty line"),
    (["--citation", "x", "--citation-file", "x.bib"], 2, "error: give --citation TEXT or --citation-file FILE"),
    (["--citation", "  "], 2, "error: field --citation: expected a citation"),
])
def test_describe_refuses_bad_values_in_one_line_and_writes_nothing(folder, args, code, message):
    res = _run("describe", folder, *args)
    assert res.exit_code == code, res.output
    assert res.stderr.count("\n") == 1 and res.stderr.startswith(message), res.stderr
    assert not (folder / "variant.json").exists()


def test_describe_refuses_a_missing_folder_and_a_folder_without_splits(tmp_path):
    res = _run("describe", tmp_path / "nope", "--license", "CC-BY-SA-4.0")
    assert res.exit_code == 1 and res.stderr == f"error: {tmp_path / 'nope'}: variant folder not found\n"
    res = _run("describe", tmp_path, "--license", "CC-BY-SA-4.0")
    assert res.exit_code == 1 and "not a variant folder: no split file" in res.stderr
    assert not (tmp_path / "variant.json").exists()


def test_describe_refuses_a_malformed_variant_json_naming_it(folder):
    (folder / "variant.json").write_text("[1, 2]", encoding="utf-8")
    res = _run("describe", folder, "--source-name", "SIB-200")
    assert res.exit_code == 1
    assert res.stderr == f"error: {folder / 'variant.json'}: expected a JSON object, found list\n"


def test_a_declared_citation_of_an_unknown_source_reaches_the_export(tmp_path, folder):
    built = tmp_path / "built"
    built.mkdir()
    folder.rename(built / "hin_Deva")
    res = _run("describe", built / "hin_Deva", "--license", "CC-BY-4.0", "--source-name", "My Hindi News",
               "--citation", "Doe, J. (2024). My Hindi News.\nA corpus.")
    assert res.exit_code == 0, res.output
    res = _run("export", built, "--out", tmp_path / "export")
    assert res.exit_code == 0, res.output
    attribution = (tmp_path / "export" / "ATTRIBUTION.md").read_text(encoding="utf-8")
    assert "## My Hindi News" in attribution and "Reference: Doe, J. (2024). My Hindi News. A corpus." in attribution
    card = (tmp_path / "export" / "README.md").read_text(encoding="utf-8")
    assert "- Doe, J. (2024). My Hindi News. A corpus." in card.split("## Citation", 1)[1]


# --- export: config names and --name ----------------------------------------------------------------------


@pytest.mark.parametrize("name, message", [
    ("nqo_Nkko", "unknown script code 'Nkko' in 'nqo_Nkko'; nearest valid codes: nqo_Nkoo"),
    ("xyz_Nkoo", "unknown language code 'xyz' in 'xyz_Nkoo'; nearest valid codes: nqo_Nkoo"),
])
def test_export_refuses_a_config_named_by_an_invalid_code_naming_the_folder(tmp_path, name, message):
    built = tmp_path / "built"
    shutil.copytree(SIB / "annotated" / "nqo_Nkoo", built / name)
    res = _run("export", built, "--out", tmp_path / "export", "--license", "CC-BY-SA-4.0")
    assert res.exit_code == 1, res.output
    assert res.stderr == f"error: {built / name}: {message}" + res.stderr.split(message, 1)[1]
    assert res.stderr.count("\n") == 1
    assert not (tmp_path / "export").exists()


@pytest.mark.parametrize("name", ["../../etc", "a/b", "..", "a\\b", " "])
def test_export_name_is_a_name_not_a_path(tmp_path, name):
    res = _run("export", SMALL, "--out", tmp_path / "export", "--name", name)
    assert res.exit_code == 2, res.output
    assert res.stderr.startswith("error: field --name: expected a name") and res.stderr.count("\n") == 1
    assert not (tmp_path / "export").exists()


def test_the_example_script_runs_the_credit_chain(tmp_path):
    exe = Path(sys.executable).with_name("builder")
    assert exe.exists(), f"the builder console script is not installed beside {sys.executable} (pip install -e .)"
    env = {**os.environ, "PATH": f"{exe.parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    root = Path(__file__).parents[2]
    proc = subprocess.run(["bash", "examples/describe-variant.sh", str(tmp_path / "out")], cwd=root, env=env,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "source_name: SIB-200" in proc.stdout and "## SIB-200" in proc.stdout and "NLLB Team" in proc.stdout
    info = VariantInfo.read(tmp_path / "out" / "built" / "nqo_Nkoo")
    assert info.source_name == "SIB-200" and info.citation.startswith("@misc{adelani2023sib200,")
