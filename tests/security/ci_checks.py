"""Setup and check steps of the ``ci_`` cases of the hostile-input corpus (terminal, GitHub Actions, JUnit).

Each setup builds, from the small topic export ``tests/data/export/sib_small``,
an input whose hostile text a file of the case folder could not hold well (a
folder name with a newline, labels with ESC, BEL and other C0 controls); each
check reads what the command printed and wrote with its own parser and finds
the hostile text there as visible text, never as a line or a command of its own.
"""
from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

from schemas.escape import for_terminal, for_xml

SIB_SMALL = Path(__file__).resolve().parents[1] / "data" / "export" / "sib_small"

#: A variant folder name that, printed raw under GitHub Actions, is a second line and a workflow command
#: (short: the error line quotes it twice, after the folder's path, and stays under the corpus' 300 characters).
NEWLINE_NAME = "v\n::error::x"
#: A label that sets the window title, clears the screen and reverses the text after it (sorted first).
TITLE_LABEL = "\x1b]0;owned\x07\x1b[2J\u202eart"
#: A label of C0 controls XML 1.0 cannot hold (a NUL is refused by the reader: no text file holds one).
C0_LABEL = "\x01\x02\x08\x1b[2J\x07\x1f\x7fart"
#: A source name that, in a block printed line by line, starts a line with a command, and holds the legacy form.
SOURCE_NAME = "SIB\x1b]0;owned\x07\u202e200\n::warning file=x::owned ##[error]owned"
CITATION = "@misc{sib,\n  title = {\x1b[2J\x07owned}\n}\n::error::cited"


def _copy(work: Path) -> Path:
    ds = work / "ds"
    shutil.copytree(SIB_SMALL, ds)
    (ds / "qc_report.json").unlink()
    return ds


def _relabel(path: Path, label: str) -> None:
    """The first record of ``path`` (a TSV split) gets ``label`` as its category."""
    lines = path.read_text(encoding="utf-8").split("\n")
    fields = lines[1].split("\t")
    fields[1] = label
    lines[1] = "\t".join(fields)
    path.write_text("\n".join(lines), encoding="utf-8")


def _lines(result) -> list[str]:
    return result.stdout.splitlines() + result.stderr.splitlines()


def _no_command(lines, allowed=()) -> None:
    """No printed line is a workflow command (a leading ``::``, or ``##[`` anywhere) but those ``allowed``."""
    for line in lines:
        if line.lstrip().startswith("::"):
            assert line.startswith(allowed) and allowed, f"a workflow command printed from the data: {line!r}"
            continue
        assert "##[" not in line, f"a legacy workflow command printed from the data: {line!r}"


# -- setups ----------------------------------------------------------------------------------------------

def variant_name_newline(work: Path, subs) -> None:
    """``ds/`` with its variant hin_Latn renamed to :data:`NEWLINE_NAME`; its test.tsv lacks the category
    column, so that a loader that reads the folder and one that refuses its name both stop with exit 2 and
    an error line that names it."""
    ds = _copy(work)
    bad = ds / NEWLINE_NAME
    (ds / "hin_Latn").rename(bad)
    (bad / "test.tsv").write_text("index_id\ttext\n1\tx\n", encoding="utf-8")


def title_label(work: Path, subs) -> None:
    """``ds/`` where one dev record of hin_Deva is labelled :data:`TITLE_LABEL` (too rare: the gate fails)."""
    _relabel(_copy(work) / "hin_Deva" / "dev.tsv", TITLE_LABEL)


def c0_label(work: Path, subs) -> None:
    """``ds/`` where one dev record of hin_Deva is labelled :data:`C0_LABEL`."""
    _relabel(_copy(work) / "hin_Deva" / "dev.tsv", C0_LABEL)


def hostile_credits(work: Path, subs) -> None:
    """``ds/`` whose hin_Deva/variant.json credits :data:`SOURCE_NAME` with :data:`CITATION`; hin_Latn removed."""
    ds = _copy(work)
    shutil.rmtree(ds / "hin_Latn")
    path = ds / "hin_Deva" / "variant.json"
    info = json.loads(path.read_text(encoding="utf-8"))
    info.update(source_name=SOURCE_NAME, citation=CITATION)
    path.write_text(json.dumps(info, indent=2), encoding="utf-8")


# -- checks ----------------------------------------------------------------------------------------------

def no_command_printed(result, work: Path, subs) -> None:
    """The error line names the folder, on one line, and nothing printed is a workflow command."""
    _no_command(_lines(result))
    (line,) = [ln for ln in result.stderr.splitlines() if ln.strip()]
    assert "/ds/v%0A::error::x" in line or "/ds/v\\n::error::x" in line, line


def annotations_and_junit(result, work: Path, subs) -> None:
    """Only the tool's own annotations are commands, one per failing check; the label is visible text in
    them and in the JUnit file, which parses."""
    report = json.loads((work / "ds" / "qc_report.json").read_text(encoding="utf-8"))
    commands = [ln for ln in result.stdout.splitlines() if ln.startswith("::")]
    _no_command(_lines(result), allowed=("::error title=qc ", "::warning title=qc "))
    assert len([c for c in commands if c.startswith("::error")]) == len(report["failed"]) > 0
    shown = for_terminal(TITLE_LABEL)  # \x1b]0;owned\x07\x1b[2J\u202eart
    (deva,) = [c for c in commands if c.startswith("::error title=qc hin_Deva label_distribution::")]
    assert f"low: {shown}@test=0" in deva, deva
    case = _junit_case(work / "junit.xml", "qc.hin_Deva", "label_distribution")
    assert for_xml(TITLE_LABEL) in case.find("failure").text


def junit_parses(result, work: Path, subs) -> None:
    """The JUnit file parses (standard library and junitparser); the label arrives as its visible escape."""
    case = _junit_case(work / "junit.xml", "qc.hin_Deva", "label_distribution")
    failure = case.find("failure")
    assert f"low: {for_xml(C0_LABEL)}@test=0" in failure.text, failure.text
    assert "\\x01\\x02\\x08\\x1b[2J\\x07\\x1f" in failure.text
    try:
        from junitparser import JUnitXml
    except ImportError:  # pragma: no cover - a test extra
        return
    xml = JUnitXml.fromfile(str(work / "junit.xml"))
    assert xml.failures >= 1


def credits_printed_inert(result, work: Path, subs) -> None:
    """``describe`` prints the credits on stdout: each on its one line, its controls visible."""
    _no_command(_lines(result))
    out = result.stdout.splitlines()
    (source,) = [ln for ln in out if ln.startswith("source_name: ")]
    assert "\\x1b]0;owned\\x07\\u202e200" in source and "owned ##\\x5berror]owned" in source, source
    assert any(ln.startswith("citation: @misc{sib,") for ln in out), out


def licenses_block_inert(result, work: Path, subs) -> None:
    """``licenses`` prints a block of lines, each value from the data escaped in its own line: the source
    name's newline is visible (it starts no line, so under GitHub Actions no command), and so are its
    escape sequences."""
    _no_command(_lines(result))
    out = result.stdout
    assert "SIB\\x1b]0;owned\\x07\\u202e200" in out and "owned ##\\x5berror]owned" in out, out
    assert "200\\x0a::warning file=x::owned" in out, out


def _junit_case(path: Path, suite: str, name: str) -> ET.Element:
    root = ET.parse(path).getroot()
    (found,) = [c for s in root.iter("testsuite") if s.get("name") == suite
                for c in s.iter("testcase") if c.get("name") == name]
    return found
