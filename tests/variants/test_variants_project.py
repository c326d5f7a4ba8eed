"""builder extend: the SIB-200 golden projection, broken parallel files, configuration, MC items."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from builder.cli.main import cli
from schemas.io import read_sib_tsv
from builder.variants.checks import CheckConfig, load_check_config
from builder.variants.project import project_topic
from schemas.errors import AlignmentError, RecipeError, SchemaError, ScriptError
from schemas.variant import VariantInfo

DATA = Path(__file__).parents[1] / "data"
SIB = DATA / "sib200"
RAW = SIB / "flores-raw"
DEV, DEVTEST = RAW / "nqo_Nkoo.dev", RAW / "nqo_Nkoo.devtest"


def _english() -> dict[int, str]:
    return {int(r["index_id"]): r["text"] for s in ("train", "dev", "test")
            for r in read_sib_tsv(SIB / "eng" / f"{s}.tsv")}


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").split("\n")[:-1]


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return path


def _extend(*args):
    return CliRunner().invoke(cli, ["extend", *map(str, args)])


def test_golden_nqo_projection_reproduces_sib200_byte_for_byte(tmp_path):
    res = _extend("--source", SIB / "eng", "--parallel", DEV, "--parallel", DEVTEST, "--variant", "nqo_Nkoo",
                  "--out", tmp_path)
    assert res.exit_code == 0, res.output
    assert "train 701, dev 99, test 204" in res.output
    rows = 0
    for name in ("train.tsv", "dev.tsv", "test.tsv", "labels.txt"):
        got = (tmp_path / "nqo_Nkoo" / name).read_bytes()
        assert got == (SIB / "annotated" / "nqo_Nkoo" / name).read_bytes(), name
        rows += got.count(b"\n") - 1 if name.endswith(".tsv") else 0
    assert rows >= 1004  # quoted fields may hold no newlines here, so lines == rows + header
    meta = json.loads((tmp_path / "nqo_Nkoo" / "variant.json").read_text(encoding="utf-8"))
    assert meta["license"] == "CC-BY-SA-4.0"
    assert meta["rows"] == {"train": 701, "dev": 99, "test": 204}
    assert [p["lines"] for p in meta["parallel"]] == [997, 1012]
    assert all(len(p["sha256"]) == 64 for p in meta["parallel"])
    assert {c: meta["checks"][c]["status"] for c in ("line_count", "alignment", "script_file")} == \
        {"line_count": "ok", "alignment": "ok", "script_file": "ok"}
    assert meta["checks"]["length_outliers"]["items"] == [{"index_id": 556, "z": -3.84}]


def test_projection_is_deterministic(tmp_path):
    a = project_topic(SIB / "eng", [DEV, DEVTEST], "nqo_Nkoo", tmp_path / "a")
    b = project_topic(SIB / "eng", [DEV, DEVTEST], "nqo_Nkoo", tmp_path / "b")
    for name in ("train.tsv", "dev.tsv", "test.tsv", "variant.json"):
        assert (a.out_dir / name).read_bytes() == (b.out_dir / name).read_bytes()


def test_missing_line_in_the_middle_names_file_first_misaligned_line_and_expectation(tmp_path):
    # Line 558 (index 557): the English around it carries numbers, so the evidence pins the break
    # to one line. Elsewhere length ratios alone often leave a range (next test).
    lines = _lines(DEV)
    k = 557
    broken = _write(tmp_path / "nqo_Nkoo.dev", lines[:k] + lines[k + 1:])
    res = _extend("--source", SIB / "eng", "--parallel", broken, "--parallel", DEVTEST, "--variant", "nqo_Nkoo",
                  "--out", tmp_path / "out")
    assert res.exit_code == 1, res.output
    msg = res.output.strip().splitlines()[-1]
    assert msg.startswith(f"error: {broken}, line {k + 1}: 996 lines, expected 997")
    assert f"first misaligned line: line {k + 1}, expected the translation of index_id {k}" in msg
    assert "a line is missing" in msg
    assert not (tmp_path / "out" / "nqo_Nkoo").exists()


@pytest.mark.parametrize("k", [120, 453, 700, 901])
def test_missing_line_elsewhere_reports_a_range_holding_it(tmp_path, k):
    lines = _lines(DEV)
    broken = _write(tmp_path / "x.dev", lines[:k] + lines[k + 1:])
    with pytest.raises(AlignmentError) as err:
        project_topic(SIB / "eng", [broken, DEVTEST], "nqo_Nkoo", tmp_path / "out")
    item = err.value
    assert item.file == str(broken)
    first = int(item.record.split()[-1])
    text = str(item)
    latest = int(text.split(" at the latest")[0].rsplit("line ", 1)[1]) if "at the latest" in text else first
    assert first <= k + 1 <= latest
    assert f"expected the translation of index_id {first - 1}" in text


def test_extra_blank_line_is_located_exactly(tmp_path):
    lines = _lines(DEV)
    broken = _write(tmp_path / "blank.dev", lines[:500] + [""] + lines[500:])
    res = _extend("--source", SIB / "eng", "--parallel", broken, "--parallel", DEVTEST, "--variant", "nqo_Nkoo",
                  "--out", tmp_path / "out")
    assert res.exit_code == 1
    assert (f"error: {broken}, line 501: 998 lines, expected 997; first misaligned line: line 501, "
            "expected the translation of index_id 500; an extra empty line has no English counterpart") in res.output


def test_empty_line_in_place_of_a_translation_stops_the_build(tmp_path):
    lines = _lines(DEVTEST)
    lines[9] = "   "
    broken = _write(tmp_path / "e.devtest", lines)
    with pytest.raises(AlignmentError, match=r"e.devtest, line 10: empty line .*expected the translation of "
                                             r"index_id 1006"):
        project_topic(SIB / "eng", [DEV, broken], "nqo_Nkoo", tmp_path / "out")


def test_file_in_the_wrong_script_names_the_file(tmp_path):
    hin = {int(r["index_id"]): r["text"] for s in ("train", "dev", "test")
           for r in read_sib_tsv(SIB / "annotated" / "hin_Deva" / f"{s}.tsv")}
    filler = hin[sorted(hin)[0]]
    lines = [hin.get(997 + i, filler + f" {i}") for i in range(1012)]
    broken = _write(tmp_path / "hin.devtest", lines)  # a Hindi file where N'Ko was declared
    res = _extend("--source", SIB / "eng", "--parallel", DEV, "--parallel", broken, "--variant", "nqo_Nkoo",
                  "--out", tmp_path / "out")
    assert res.exit_code == 1
    assert f"error: {broken}, line 1: only 0.0% of the letters are in script Nkoo declared by nqo_Nkoo" in res.output
    assert "looks like Deva" in res.output


def test_declared_code_in_another_script(tmp_path):
    with pytest.raises(ScriptError, match="declared by nqo_Latn"):
        project_topic(SIB / "eng", [DEV, DEVTEST], "nqo_Latn", tmp_path)


def test_severity_off_and_warning_come_from_the_config(tmp_path):
    cfg = _write(tmp_path / "checks.yaml", ["severity:", "  script_file: warning", "  script_lines: 'off'",
                                            "max_odd_share: 1.0"])
    res = _extend("--source", SIB / "eng", "--parallel", DEV, "--parallel", DEVTEST, "--variant", "nqo_Latn",
                  "--out", tmp_path / "out", "--config", cfg)
    assert res.exit_code == 0, res.output
    checks = json.loads((tmp_path / "out" / "nqo_Latn" / "variant.json").read_text(encoding="utf-8"))["checks"]
    assert checks["script_file"]["status"] == "warning" and checks["script_lines"]["status"] == "off"


def test_config_errors_name_the_setting(tmp_path):
    bad = _write(tmp_path / "c.yaml", ["severity:", "  alignmnt: error"])
    with pytest.raises(RecipeError, match="field severity.alignmnt: unknown key 'alignmnt' "
                                          "\\(did you mean 'alignment'\\?\\); allowed: .*alignment"):
        load_check_config(bad)
    bad = _write(tmp_path / "d.yaml", ["script_file_min_share: 2"])
    with pytest.raises(RecipeError, match="field script_file_min_share: expected a number between 0 and 1"):
        load_check_config(bad)
    assert load_check_config(None) == CheckConfig()


def test_expected_lines_takes_several_values(tmp_path):
    joined = _write(tmp_path / "all.txt", _lines(DEV) + _lines(DEVTEST))
    res = _extend("--source", SIB / "eng", "--parallel", joined, "--expected-lines", "2009",
                  "--variant", "nqo_Nkoo", "--out", tmp_path / "o1")
    assert res.exit_code == 0, res.output
    res = _extend("--source", SIB / "eng", "--parallel", DEV, "--parallel", DEVTEST, "--expected-lines", "997",
                  "--expected-lines", "1012", "--variant", "nqo_Nkoo", "--out", tmp_path / "o2")
    assert res.exit_code == 0, res.output
    assert (tmp_path / "o1/nqo_Nkoo/test.tsv").read_bytes() == (tmp_path / "o2/nqo_Nkoo/test.tsv").read_bytes()


def test_usage_errors_exit_2(tmp_path):
    res = _extend("--source", SIB / "eng", "--variant", "nqo_Nkoo", "--out", tmp_path)
    assert res.exit_code == 2 and "either --parallel" in res.output
    res = _extend("--source", SIB / "eng", "--parallel", DEV, "--parallel", DEVTEST, "--parallel", DEV,
                  "--variant", "nqo_Nkoo", "--out", tmp_path)
    assert res.exit_code == 2 and "state the expected line counts" in res.output
    res = _extend("--source", SIB / "eng", "--parallel", DEV, "--variant", "nqo", "--out", tmp_path)
    assert res.exit_code == 2 and "expected a FLORES-200 code" in res.output and "nqo_Nkoo" in res.output
    # --parallel takes one file; several files repeat the option (no greedy "--parallel a b")
    res = _extend("--source", SIB / "eng", "--parallel", DEV, DEVTEST, "--variant", "nqo_Nkoo", "--out", tmp_path)
    assert res.exit_code == 2 and "unexpected extra argument" in res.output


def test_failed_build_leaves_the_previous_output(tmp_path):
    project_topic(SIB / "eng", [DEV, DEVTEST], "nqo_Nkoo", tmp_path)
    before = (tmp_path / "nqo_Nkoo" / "train.tsv").read_bytes()
    broken = _write(tmp_path / "b.dev", _lines(DEV)[:-1])
    with pytest.raises(AlignmentError):
        project_topic(SIB / "eng", [broken, DEVTEST], "nqo_Nkoo", tmp_path)
    assert (tmp_path / "nqo_Nkoo" / "train.tsv").read_bytes() == before


def test_console_script_runs(tmp_path):
    exe = Path(sys.executable).with_name("builder")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "builder"]
    proc = subprocess.run([*cmd, "extend", "--source", str(SIB / "eng"), "--parallel", str(DEV), "--parallel",
                           str(DEVTEST), "--variant", "nqo_Nkoo", "--out", str(tmp_path)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "nqo_Nkoo" / "dev.tsv").read_bytes() == (SIB / "annotated/nqo_Nkoo/dev.tsv").read_bytes()


MC = DATA / "variants" / "mc"


def test_mc_projection_keeps_the_key_and_rederives_the_answer(tmp_path):
    res = _extend("--source", MC / "source", "--translations", MC / "fra_Latn.tsv", "--variant", "fra_Latn",
                  "--out", tmp_path)
    assert res.exit_code == 0, res.output
    rows = [json.loads(line) for line in (tmp_path / "fra_Latn" / "train.jsonl").read_text().splitlines()]
    assert [(r["question_id"], r["correct_answer_num"], r["correct_answer"]) for r in rows] == \
        [("q1", 2, "noir"), ("q2", 1, "un chien"), ("q3", 4, "à midi")]
    assert {r["language"] for r in rows} == {"fra_Latn"}


def test_mc_projection_with_a_missing_item_names_it(tmp_path):
    res = _extend("--source", MC / "source", "--translations", MC / "fra_Latn_missing.tsv", "--variant",
                  "fra_Latn", "--out", tmp_path)
    assert res.exit_code == 1
    assert "fra_Latn_missing.tsv: 1 × source item has no translation; first: q3" in res.output


# --- the code of the new variant -------------------------------------------------------------------------------


@pytest.mark.parametrize("code, message", [
    ("nqo_Nkko", "field --variant: unknown script code 'Nkko' in 'nqo_Nkko'; nearest valid codes: nqo_Nkoo"),
    ("xyz_Nkoo", "field --variant: unknown language code 'xyz' in 'xyz_Nkoo'; nearest valid codes: nqo_Nkoo"),
    ("nqo_Latf", "field --variant: script 'Latf' of 'nqo_Latf' (Latin (Fraktur variant)) is not a Unicode script"),
])
def test_an_invalid_variant_code_stops_before_reading_anything_exit_2(tmp_path, code, message):
    res = _extend("--source", SIB / "eng", "--parallel", DEV, "--parallel", DEVTEST, "--variant", code,
                  "--out", tmp_path / "out")
    assert res.exit_code == 2, res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {message}"), lines
    assert not (tmp_path / "out").exists()


def test_the_library_refuses_an_invalid_code_too(tmp_path):
    with pytest.raises(SchemaError, match="unknown script code 'Nkko'.*nearest valid codes: nqo_Nkoo"):
        project_topic(SIB / "eng", [DEV, DEVTEST], "nqo_Nkko", tmp_path)


# --- credit: source name, license and citation are carried from the source variant -----------------------------


def _described_source(tmp_path: Path, **fields) -> Path:
    src = tmp_path / "eng"
    shutil.copytree(SIB / "eng", src)
    VariantInfo(variant="eng_Latn", kind="topic", **fields).write(src)
    return src


def test_extend_carries_source_name_license_and_citation(tmp_path):
    src = _described_source(tmp_path, source_name="SIB-200", license="CC-BY-4.0", citation="Adelani et al. 2023")
    res = _extend("--source", src, "--parallel", DEV, "--parallel", DEVTEST, "--variant", "nqo_Nkoo",
                  "--out", tmp_path / "out")
    assert res.exit_code == 0, res.output
    assert "names no source to credit" not in res.stderr
    info = VariantInfo.read(tmp_path / "out" / "nqo_Nkoo")
    assert (info.source_name, info.license, info.citation, info.source_variant) == \
        ("SIB-200", "CC-BY-4.0", "Adelani et al. 2023", "eng_Latn")
    assert info.license_from == f"source variant.json ({src / 'variant.json'})"
    assert info.variant == "nqo_Nkoo" and info.method == "projection"


def test_a_license_fallback_never_replaces_what_the_source_declares(tmp_path):
    """One license rule (schemas.licensing): the source's variant.json, then --license, then the default."""
    src = _described_source(tmp_path, source_name="SIB-200", license="CC-BY-4.0")
    project_topic(src, [DEV, DEVTEST], "nqo_Nkoo", tmp_path, license="CC-BY-SA-4.0")
    info = VariantInfo.read(tmp_path / "nqo_Nkoo")
    assert (info.license, info.license_from, info.source_name) == \
        ("CC-BY-4.0", f"source variant.json ({src / 'variant.json'})", "SIB-200")


def test_the_license_fallback_applies_where_the_source_declares_none(tmp_path):
    src = _described_source(tmp_path, source_name="SIB-200")
    project_topic(src, [DEV, DEVTEST], "nqo_Nkoo", tmp_path, license="CC-BY-4.0")
    info = VariantInfo.read(tmp_path / "nqo_Nkoo")
    assert (info.license, info.license_from, info.source_name) == ("CC-BY-4.0", "--license", "SIB-200")


def test_without_a_source_variant_json_the_default_license_is_said_and_a_warning_names_the_fix(tmp_path):
    res = _extend("--source", SIB / "eng", "--parallel", DEV, "--parallel", DEVTEST, "--variant", "nqo_Nkoo",
                  "--out", tmp_path)
    assert res.exit_code == 0, res.output
    assert "names no source to credit" in res.stderr
    assert f"builder describe {tmp_path / 'nqo_Nkoo'} --source-name NAME" in res.stderr
    info = VariantInfo.read(tmp_path / "nqo_Nkoo")
    assert (info.license, info.license_from, info.source_name) == \
        ("CC-BY-SA-4.0", "default (FLORES-200 and SIB-200 are CC BY-SA 4.0)", None)


def test_an_unknown_license_id_stops_extend_like_export(tmp_path):
    res = _extend("--source", SIB / "eng", "--parallel", DEV, "--parallel", DEVTEST, "--variant", "nqo_Nkoo",
                  "--out", tmp_path, "--license", "CC-BY-SA")
    assert res.exit_code == 1
    assert res.stderr.startswith("error: field --license: unknown license id 'CC-BY-SA'; known ids: ")
    assert not (tmp_path / "nqo_Nkoo").exists()


def test_export_of_an_extended_variant_credits_sib200_and_flores(tmp_path):
    src = _described_source(tmp_path, source_name="SIB-200", license="CC-BY-SA-4.0")
    built = tmp_path / "built"
    project_topic(src, [DEV, DEVTEST], "nqo_Nkoo", built)
    res = CliRunner().invoke(cli, ["export", str(built), "--out", str(tmp_path / "export")])
    assert res.exit_code == 0, res.output
    attribution = (tmp_path / "export" / "ATTRIBUTION.md").read_text(encoding="utf-8")
    assert "## SIB-200" in attribution and "Adelani et al. (2023). SIB-200" in attribution
    assert "## built" not in attribution  # the folder name is no longer credited
    card = (tmp_path / "export" / "README.md").read_text(encoding="utf-8")
    citation = card.split("## Citation", 1)[1]
    assert "Adelani et al. (2023). SIB-200" in citation and "NLLB Team (2022)" in citation


def test_mc_items_keep_their_own_license_unless_license_is_given(tmp_path):
    src = tmp_path / "src"
    shutil.copytree(MC / "source", src)
    lines = (src / "train.jsonl").read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    first["license"] = "CC-BY-4.0"
    (src / "train.jsonl").write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n", encoding="utf-8")
    res = _extend("--source", src, "--translations", MC / "fra_Latn.tsv", "--variant", "fra_Latn",
                  "--out", tmp_path / "a")
    assert res.exit_code == 0, res.output
    rows = [json.loads(x) for x in (tmp_path / "a" / "fra_Latn" / "train.jsonl").read_text().splitlines()]
    assert [r["license"] for r in rows] == ["CC-BY-4.0", "CC-BY-SA-4.0", "CC-BY-SA-4.0"]
    assert {r["dataset"] for r in rows} == {"toy"}
    info = VariantInfo.read(tmp_path / "a" / "fra_Latn")
    assert info.license is None and info.license_from == "the source items' own licenses (CC-BY-4.0, CC-BY-SA-4.0)"
    res = _extend("--source", src, "--translations", MC / "fra_Latn.tsv", "--variant", "fra_Latn",
                  "--out", tmp_path / "b", "--license", "CC0-1.0")
    assert res.exit_code == 0, res.output
    rows = [json.loads(x) for x in (tmp_path / "b" / "fra_Latn" / "train.jsonl").read_text().splitlines()]
    assert {r["license"] for r in rows} == {"CC0-1.0"}
    assert VariantInfo.read(tmp_path / "b" / "fra_Latn").license == "CC0-1.0"
