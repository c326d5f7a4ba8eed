"""``builder export`` reads its text inputs as every reader does (issue 12).

``labels.txt``, ``qc_report.json``, ``agreement.json`` and ``manifest.json`` go
through :func:`schemas.io.read_text_utf8` and :func:`schemas.tables.split_lines`:
a UTF-8 BOM and CRLF line ends give byte-identical exports; a byte that is not
UTF-8 or a malformed report is one ``error:`` line naming the file and the line,
exit 1 (bad input), no traceback, and no export folder.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from builder.cli.main import cli

DATA = Path(__file__).parents[1] / "data" / "export"


def _run(*args):
    return CliRunner().invoke(cli, ["-q", *[str(a) for a in args]])


def _bom_crlf(path: Path) -> None:
    data = path.read_bytes()
    assert b"\r" not in data and not data.startswith(b"\xef\xbb\xbf")
    path.write_bytes(b"\xef\xbb\xbf" + data.replace(b"\n", b"\r\n"))


def _files(folder: Path) -> dict[str, bytes]:
    return {str(f.relative_to(folder)): f.read_bytes() for f in sorted(folder.rglob("*")) if f.is_file()}


def _copy(tmp_path: Path, sample: str, parent: str) -> Path:
    dst = tmp_path / parent / sample  # the same folder name: it is the default dataset name
    shutil.copytree(DATA / sample, dst)
    return dst


@pytest.mark.parametrize("sample, marked", [
    ("sib_small", ["qc_report.json", "agreement.json", "hin_Deva/labels.txt", "hin_Latn/labels.txt",
                   "hin_Deva/variant.json", "hin_Latn/variant.json"]),
    ("mc_small", ["manifest.json"]),
])
def test_bom_and_crlf_give_a_byte_identical_export(tmp_path, sample, marked):
    plain = _copy(tmp_path, sample, "plain")
    bom = _copy(tmp_path, sample, "bom")
    for rel in marked:
        _bom_crlf(bom / rel)
    for name, folder in (("plain", plain), ("bom", bom)):
        res = _run("export", folder, "--out", tmp_path / f"export_{name}")
        assert res.exit_code == 0, res.output
    a, b = _files(tmp_path / "export_plain"), _files(tmp_path / "export_bom")
    assert a == b


def _one_error(res) -> str:
    assert "Traceback" not in res.stderr
    lines = [x for x in res.stderr.splitlines() if x.strip()]
    assert len(lines) == 1, res.stderr
    return lines[0]


@pytest.mark.parametrize("sample, rel, line", [
    ("sib_small", "qc_report.json", 3),
    ("sib_small", "agreement.json", 2),
    ("sib_small", "hin_Deva/labels.txt", 2),
    ("mc_small", "manifest.json", 4),
])
def test_a_bad_byte_is_one_line_naming_file_and_line(tmp_path, sample, rel, line):
    folder = _copy(tmp_path, sample, "in")
    lines = (folder / rel).read_bytes().split(b"\n")
    lines[line - 1] = lines[line - 1] + b"\xff"
    (folder / rel).write_bytes(b"\n".join(lines))
    res = _run("export", folder, "--out", tmp_path / "out")
    assert res.exit_code == 1, res.output
    error = _one_error(res)
    assert error.startswith(f"error: {folder / rel}, line {line}: not valid UTF-8 at byte "), error
    assert error.endswith("(0xff, invalid start byte)"), error
    assert not (tmp_path / "out").exists()


def test_a_malformed_report_is_one_line_naming_file_and_line(tmp_path):
    folder = _copy(tmp_path, "sib_small", "in")
    text = (folder / "qc_report.json").read_text(encoding="utf-8")
    (folder / "qc_report.json").write_text(text.replace('"check"', "check", 1), encoding="utf-8")
    res = _run("export", folder, "--out", tmp_path / "out")
    assert res.exit_code == 1, res.output
    error = _one_error(res)
    assert error.startswith(f"error: {folder / 'qc_report.json'}, line 4: malformed JSON: "), error
    assert not (tmp_path / "out").exists()


def test_an_earlier_export_whose_manifest_has_a_bom_is_still_replaced(tmp_path):
    folder = _copy(tmp_path, "sib_small", "in")
    out = tmp_path / "out"
    assert _run("export", folder, "--out", out).exit_code == 0
    before = _files(out)
    _bom_crlf(out / "manifest.json")  # an editor re-saved it: it is still the earlier export
    res = _run("export", folder, "--out", out)
    assert res.exit_code == 0, res.output
    assert _files(out) == before
