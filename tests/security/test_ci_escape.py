"""Issue 26: data stays data in what the tool prints and in what CI reads (terminal, GitHub Actions, JUnit).

Every line the tool prints passes :func:`builder.tasks.base.echo` (through
:func:`schemas.escape.printed_line`); the qc annotations are escaped by their
writer (:func:`qc.ci.annotation`) and the JUnit file by :func:`qc.ci.to_junit`
(:func:`schemas.escape.for_xml`). The hostile-input corpus (``ci_`` cases of
``tests/data/hostile/``, :mod:`ci_checks`) runs the same attacks through the CLI.
"""
from __future__ import annotations

import re
import sys
import unicodedata
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from builder.cli.main import cli
from builder.tasks.base import Reporter, WorkflowCommand, as_printed, echo
from qc.ci import annotation, github_annotations, to_junit
from qc.gate import QCReport
from qc.result import CheckResult
from schemas.escape import for_terminal, for_xml, printed_line

sys.path.insert(0, str(Path(__file__).parent))
import ci_checks  # noqa: E402  (the corpus' setups: the same hostile inputs)

ROOT = Path(__file__).resolve().parents[2]
CONTROL = ("Cc", "Cf", "Cs", "Zl", "Zp")
HOSTILE = "nqo\x1b]0;owned\x07\x1b[2J\r\u202e_Nkoo\n::warning file=x::owned ##[error]owned 50%"
C0 = "".join(map(chr, range(0x20))) + "\x7f"
SURROGATES = "\ud800\udbff\udc00\udfff"


def _controls(text: str) -> list[str]:
    return [f"U+{ord(ch):04X}" for ch in text if unicodedata.category(ch) in CONTROL and ch != "\t"]


def _report(results: list[CheckResult], variants: list[str], *, name: str = "data", pivot: str = "eng_Latn"):
    return QCReport(results=results, variants=variants, kind="topic", config={"pivot": pivot, "version": 1,
                    "seed": 0}, input_name=name, decision={"method": "holm", "alpha": 0.05})


def _unescape_data(text: str) -> str:
    """What GitHub's runner makes of a workflow command's message."""
    return text.replace("%0D", "\r").replace("%0A", "\n").replace("%25", "%")


def _unescape_property(text: str) -> str:
    return _unescape_data(text.replace("%3A", ":").replace("%2C", ","))


def _parse_command(line: str) -> tuple[str, dict[str, str], str]:
    """``::name k=v,k=v::message`` as the runner reads it (properties split at ``,`` then the first ``=``)."""
    assert line.startswith("::"), line
    head, sep, message = line[2:].partition("::")
    assert sep, line
    name, _, props = head.partition(" ")
    properties = dict(p.split("=", 1) for p in props.split(",")) if props else {}
    return name, {k: _unescape_property(v) for k, v in properties.items()}, _unescape_data(message)


def _visible(text: str) -> str:
    """``text`` as it should arrive once unescaped: CR/LF restored, every other control visible."""
    return "".join(ch if ch in "\r\n" else for_terminal(ch) for ch in text)


# -- GitHub annotations --------------------------------------------------------------------------------------

@pytest.mark.parametrize("variant, check, detail", [
    ("eng_Latn\n::warning file=x::owned", "labels", "plain"),
    ("a:b,c=d", "x::y,z", "50% of\r\nlines\x1b]0;owned\x07\u202e"),
    (HOSTILE, HOSTILE, HOSTILE),
])
def test_annotation_is_one_command_whose_title_and_message_come_back(variant, check, detail):
    line = annotation(CheckResult(variant, check, False, reason="bad", detail=detail), "error")
    assert len(line.splitlines()) == 1 and not _controls(line), line
    name, props, message = _parse_command(line)
    assert name == "error" and set(props) == {"title"}
    assert props["title"] == _visible(f"qc {variant} {check}")
    assert message == _visible(f"bad: {detail}").replace("##[", "##\\x5b")  # no legacy command either


def test_github_annotations_of_a_hostile_report():
    results = [CheckResult(HOSTILE, "labels", False, reason="label_too_rare", detail=HOSTILE),
               CheckResult("eng_Latn", HOSTILE, False, gate=False, reason="warned", detail="\x1b[2J"),
               CheckResult("eng_Latn", "ok", True)]
    lines = github_annotations(_report(results, [HOSTILE, "eng_Latn"]))
    assert [_parse_command(ln)[0] for ln in lines] == ["error", "warning"]
    for line in lines:  # (a ``##[`` of the title is inert: the line parses as a ``::`` command, which the
        # runner then never reads as a legacy one; the message is escaped as any line printed in CI)
        assert len(line.splitlines()) == 1 and not _controls(line) and "##[" not in line.split("::", 2)[2]


def test_annotations_are_printed_as_commands_once_escaped(capsys, monkeypatch):
    """The tool's own commands are not escaped a second time (``%25`` stays ``%25``); other lines are data."""
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    line = annotation(CheckResult("eng_Latn", "script", False, reason="wrong", detail="0.0% of \x1b[2J"), "error")
    echo(WorkflowCommand(line), err=False)
    echo("::warning::from data", err=False)
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "::error title=qc eng_Latn script::wrong: 0.0%25 of \\x1b[2J"
    assert out[1] == "\\x3a:warning::from data"


# -- JUnit ---------------------------------------------------------------------------------------------------

def test_junit_with_every_c0_control_and_lone_surrogates_parses_and_round_trips():
    hostile = "v" + C0 + SURROGATES + "\u202e<&>\"'"
    results = [CheckResult(hostile, hostile, False, reason=hostile, detail=hostile),
               CheckResult(hostile, "skipped", False, skipped=True, detail=hostile),
               CheckResult(hostile, "warned", False, gate=False, reason=hostile, detail=hostile),
               CheckResult(hostile, "passed", True, detail=hostile)]
    text = to_junit(_report(results, [hostile], name=hostile, pivot=hostile))
    data = text.encode("utf-8")  # strict: no lone surrogate is left to encode
    root = ET.fromstring(data)
    shown = for_xml(hostile)
    assert "\\x00" in shown and "\\x1b" in shown and "\\ud800" in shown and "\\udfff" in shown

    def same(value):  # an XML parser turns a CR of text into a LF (attributes keep it: &#13;)
        return value.replace("\r\n", "\n").replace("\r", "\n")

    assert root.get("name") == f"builder qc {shown}"
    (suite,) = root.iter("testsuite")
    assert suite.get("name") == f"qc.{shown}"
    assert {p.get("name"): p.get("value") for p in suite.iter("property")}["pivot"] == shown
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    assert set(cases) == {shown, "skipped", "warned", "passed"}
    failure = cases[shown].find("failure")
    assert failure.get("type") == shown and failure.get("message").startswith(f"{shown}")
    assert same(failure.text) == same(shown)
    assert cases["skipped"].find("skipped").get("message") == shown
    assert same(cases["warned"].find("system-out").text) == same(f"WARN (gate: false): {shown}\n{shown}")
    assert same(cases["passed"].find("system-out").text) == same(shown)
    from junitparser import JUnitXml

    assert JUnitXml.fromstring(data).failures == 1


def test_junit_of_a_run_on_hostile_labels_parses(tmp_path):
    ci_checks.c0_label(tmp_path, {})
    result = CliRunner().invoke(cli, ["-q", "qc", str(tmp_path / "ds"), "--junit", str(tmp_path / "junit.xml"),
                                      "-j", "1"], env={"GITHUB_ACTIONS": "false"})
    assert result.exit_code == 1, result.output
    ci_checks.junit_parses(result, tmp_path, {})


# -- printed lines -------------------------------------------------------------------------------------------

def test_reporter_lines_and_progress_are_escaped(capsys, monkeypatch):
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    rep = Reporter(terminal=False)
    rep.info(f"qc: 1 variant(s) in {HOSTILE}")
    rep.warn(HOSTILE)
    with rep.progress("qc", 1, "variants checked", clock=lambda: 0) as progress:
        progress(HOSTILE, 1, 1)
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 3 and not any(_controls(ln) for ln in err), err
    assert err[0] == f"qc: 1 variant(s) in {for_terminal(HOSTILE)}"
    assert err[1] == f"warning: {for_terminal(HOSTILE)}"
    assert err[2] == f"qc: 1/1 variants checked ({for_terminal(HOSTILE)})"


def test_reporter_lines_under_github_actions(capsys, monkeypatch):
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    Reporter(terminal=False).info(f"qc: 1/2 variants checked ({HOSTILE})")
    (line,) = capsys.readouterr().err.splitlines()
    assert "%0A::warning file=x::owned ##\\x5berror]owned 50%25" in line and "\\x1b]0;owned\\x07" in line
    assert "%0D" in line and not _controls(line)


def test_the_progress_bar_label_is_escaped_and_not_markup(monkeypatch):
    import rich.progress

    seen = []
    real = rich.progress.Progress.update
    monkeypatch.setattr(rich.progress.Progress, "update",
                        lambda self, task, **kw: (seen.append(kw.get("description")), real(self, task, **kw))[1])
    with Reporter(terminal=True).progress("qc", 1) as progress:
        progress(f"[bold red]{HOSTILE}", 1, 1)
    assert seen == [as_printed(f"[bold red]{HOSTILE}")] and not _controls(seen[0])


def test_a_block_keeps_its_lines_and_escapes_within_them(capsys, monkeypatch):
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    echo("report:\n  source: a\x1b[2J\n::warning::b", err=False, keep_newlines=True)
    assert capsys.readouterr().out.splitlines() == ["report:", "  source: a\\x1b[2J", "\\x3a:warning::b"]


def test_qc_progress_line_of_a_variant_named_with_a_newline(tmp_path):
    """The issue's finding: the progress line (not quiet) put ``::warning`` at the start of a stderr line."""
    ds = ci_checks._copy(tmp_path)
    (ds / "hin_Latn").rename(ds / ci_checks.NEWLINE_NAME)
    result = CliRunner().invoke(cli, ["qc", str(ds), "--out", str(tmp_path / "out"), "-j", "1"],
                                env={"GITHUB_ACTIONS": "true"})
    assert result.exit_code in (1, 2), result.output  # the gate fails, or the name is refused
    lines = result.stdout.splitlines() + result.stderr.splitlines()
    assert lines and not any(_controls(ln) or ln.lstrip().startswith("::") for ln in lines), lines
    assert any("::error::x" in ln for ln in result.stderr.splitlines())


def test_usage_error_line_quotes_the_argument_escaped():
    result = CliRunner().invoke(cli, ["-q", "x\x1b]0;owned\x07\n::error::y"], env={"GITHUB_ACTIONS": "true"})
    assert result.exit_code == 2
    assert result.stderr.splitlines() == ["error: No such command 'x\\x1b]0;owned\\x07\\n::error::y'; "
                                          "see 'builder --help'"]  # click quotes it with repr(); echo keeps it


def test_every_printer_goes_through_echo():
    """No module prints by itself: ``click.echo``, ``print(``, ``sys.stdout/stderr.write`` only in the one printer."""
    pattern = re.compile(r"\bclick\.(echo|secho)\(|(?<![\w.])print\(|sys\.(stdout|stderr)\.write\(")
    found = []
    for package in ("builder", "qc", "annotation", "schemas", "data_cards"):
        for path in sorted((ROOT / package).rglob("*.py")):
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if pattern.search(line) and not line.lstrip().startswith((">>>", "...", "#")):
                    found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert [f for f in found if not f.startswith("builder/tasks/base.py:")] == []
    assert len(found) == 1, found  # echo's own print


# -- the one function: properties ----------------------------------------------------------------------------

ANY_TEXT = st.text(st.characters(blacklist_categories=()), max_size=60)


@settings(max_examples=300, deadline=None)
@given(ANY_TEXT)
def test_printed_line_is_one_line_without_controls(text):
    for ci in (False, True):
        line = printed_line(text, ci=ci)
        assert not _controls(line) and len(line.splitlines()) <= 1
        line.encode("utf-8")  # printable on any UTF-8 stream


@settings(max_examples=300, deadline=None)
@given(ANY_TEXT, st.sampled_from(["", "qc: 1/2 variants checked (", "error: ", "   ", "\t"]))
def test_printed_line_in_ci_is_never_a_workflow_command(text, prefix):
    line = prefix + printed_line(text, ci=True)
    assert not line.lstrip().startswith("::") and "##[" not in line
    assert len(line.splitlines()) <= 1


@settings(max_examples=300, deadline=None)
@given(st.text(st.characters(blacklist_categories=CONTROL), max_size=60))
def test_printed_line_in_ci_comes_back_as_it_was_written(text):
    """Text without controls (no ``::`` start, no ``##[``) reads back the same once Actions unescapes it."""
    if text.lstrip().startswith("::") or "##[" in text:
        return
    assert _unescape_data(printed_line(text, ci=True)) == text
    assert printed_line(text) == text


def test_the_corpus_cases_are_listed_in_the_readme():
    readme = (ROOT / "tests" / "data" / "hostile" / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Terminal, GitHub Actions, JUnit", 1)[1].split("\n## ", 1)[0]
    cases = sorted(p.name for p in (ROOT / "tests" / "data" / "hostile").glob("ci_*") if (p / "case.yaml").is_file())
    assert len(cases) >= 4
    assert [c for c in cases if f"`{c}`" not in section] == []
