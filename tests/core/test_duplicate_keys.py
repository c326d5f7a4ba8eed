"""A key given twice in any YAML file the tool reads is one error line naming the file, line and key (exit 2).

PyYAML keeps the last value silently (``seed: 1`` then ``seed: 2`` loads 2);
every reader goes through :func:`schemas.io.load_yaml`, which refuses it. Each
case is a real recipe or config with one line added, run through the CLI.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from builder.cli.main import cli

ROOT = Path(__file__).parents[2]
DATA = ROOT / "tests" / "data"
SIB = DATA / "sib200"
RAW = SIB / "flores-raw"


def _with_line(text: str, after: str, line: str) -> tuple[str, int, int]:
    """``text`` with ``line`` inserted after the line ``after``; (new text, line of ``after``, line of ``line``)."""
    lines = text.split("\n")
    at = lines.index(after)
    lines.insert(at + 1, line)
    return "\n".join(lines), at + 1, at + 2


# name: (source file, the line to repeat, the repeated line, key path, command args with {file} and {tmp})
CASES = {
    "assemble": (ROOT / "examples" / "belebele-train.yaml", "seed: 0", "seed: 1", "seed",
                 ["assemble", "{file}", "--out", "{tmp}/out"]),
    "release": (DATA / "release" / "mini-release.yaml", "      from: eng_Latn", "      from: hin_Deva",
                "variants[1].extend.from", ["release", "{file}", "--out", "{tmp}/out"]),
    "annotate curate": (ROOT / "examples" / "sib200-curation.yaml", "version: 1", "version: 2", "version",
                        ["annotate", "curate", str(SIB / "eng_14"), "--recipe", "{file}", "--out", "{tmp}/out"]),
    "qc --config": (DATA / "qc" / "bad_config.yaml", "  alpha: 0.05", "  alpha: 0.01", "decision.alpha",
                    ["qc", str(DATA / "qc" / "clean"), "--config", "{file}", "--out", "{tmp}/out"]),
    "extend --config": (None, "  alignment: warning", "  alignment: error", "severity.alignment",
                        ["extend", "--source", str(SIB / "eng"), "--parallel", str(RAW / "nqo_Nkoo.dev"),
                         "--parallel", str(RAW / "nqo_Nkoo.devtest"), "--variant", "nqo_Nkoo",
                         "--out", "{tmp}/out", "--config", "{file}"]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_a_duplicate_key_is_one_error_line_with_file_line_and_key(tmp_path, name):
    source, after, line, key, args = CASES[name]
    original = source.read_text(encoding="utf-8") if source else "severity:\n  alignment: warning\n"
    text, first, again = _with_line(original, after, line)
    path = tmp_path / (source.name if source else "checks.yaml")
    path.write_text(text, encoding="utf-8")
    res = CliRunner().invoke(cli, ["-q", *[a.replace("{file}", str(path)).replace("{tmp}", str(tmp_path))
                                           for a in args]])
    assert res.exit_code == 2, res.output
    leaf = key.rsplit(".", 1)[-1]
    assert res.stderr.splitlines() == [
        f"error: {path}, line {again}, field {key}: duplicate key {leaf!r} (first at line {first})"]
    assert not (tmp_path / "out").exists()
