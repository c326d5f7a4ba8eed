"""`builder qc --backend local|ray`: every output byte is the same whatever the backend and the workers.

``RUNS`` and :func:`qc_outputs` are shared with the Ray test
(``tests/core/test_fanout.py``, which starts one Ray cluster for every Ray
test: a cluster takes seconds to start).
"""
from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from builder.cli.main import cli

DATA = Path(__file__).resolve().parents[1] / "data"
QC_DATA = DATA / "qc"
SIB = DATA / "sib200" / "annotated"

RUNS = {  # name -> (exit code, arguments); each also writes a JUnit file
    "mc": (1, [QC_DATA / "pivot", "--contamination-against", QC_DATA / "copy_passage"]),
    "topic": (None, [SIB, "--variant", "eng_Latn,hin_Deva,nqo_Nkoo"]),
}


def qc_outputs(name: str, out: Path, *options: str):
    code, args = RUNS[name]
    result = CliRunner().invoke(cli, ["qc", *map(str, args), "--out", str(out), "--junit", str(out / "junit.xml"),
                                      *options])
    assert result.exit_code in ((0, 1) if code is None else (code,)), result.output
    return result


def files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_local_workers_write_the_same_bytes_as_one_process(tmp_path):
    one = qc_outputs("mc", tmp_path / "one", "-j", "1")
    two = qc_outputs("mc", tmp_path / "two", "-j", "2", "--backend", "local")
    assert one.exit_code == two.exit_code
    assert files(tmp_path / "one") == files(tmp_path / "two")
    assert set(files(tmp_path / "one")) == {"junit.xml", "qc_report.json", "qc_report.md"}
