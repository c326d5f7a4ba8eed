"""The gate's outputs for CI systems: a JUnit XML file and GitHub Actions annotations.

:func:`to_junit` writes one ``<testsuite>`` per variant and one
``<testcase>`` per variant x check, as JUnit readers (GitHub, GitLab,
Jenkins, ``junitparser``) expect: a check that fails the release is a
``<failure>`` (its reason as the type, the numbers and the detail as the
text), a check that could not run is ``<skipped>``, and a failed check with
``gate: false`` passes with a ``WARN`` line in ``<system-out>``. The file has
no timestamps, so a re-run writes the same bytes.

:func:`github_annotations` gives the ``::error``/``::warning`` workflow
commands that GitHub Actions shows on the run's summary page (at most
``limit`` errors; the rest are counted in one last line).

Variant names, labels and ids in the messages come from the data: every
string written to the XML passes :func:`schemas.escape.for_xml` (ESC, BEL,
NUL and lone surrogates would make the file unreadable), and every value of
an annotation :func:`~schemas.escape.for_actions_property` (``title=``),
then :func:`~schemas.escape.for_terminal`, or (the message)
:func:`~schemas.escape.printed_line` under GitHub Actions: one line, one
command, its own.

>>> from qc.result import CheckResult
>>> r = CheckResult("eng_Latn", "answer_balance", False, reason="unbalanced", detail="A=40, B=0")
>>> escape_data("50%\\nrest"), escape_property("a:b,c")
('50%25%0Arest', 'a%3Ab%2Cc')
>>> annotation(r, "error")
'::error title=qc eng_Latn answer_balance::unbalanced: A=40, B=0'
>>> annotation(CheckResult("x\\n::warning::y", "labels", False, reason="bad", detail="\\x1b[2J"), "error")
'::error title=qc x%0A%3A%3Awarning%3A%3Ay labels::bad: \\\\x1b[2J'
"""
from __future__ import annotations

import xml.etree.ElementTree as ET

from schemas.escape import for_actions, for_actions_property, for_terminal, for_xml, printed_line

from .gate import QCReport
from .report import fmt, status
from .result import CheckResult


def numbers(r: CheckResult) -> str:
    """One line with the numbers behind a verdict: p raw and adjusted, family, effect with CI and floor."""
    parts = []
    if r.p_value is not None:
        parts.append(f"p = {fmt(r.p_value)}")
    if r.p_adjusted is not None:
        parts.append(f"adjusted p = {fmt(r.p_adjusted)} ({r.family}, m = {r.family_size})")
    if r.fails_as is not None:
        ci = "" if r.effect_ci is None else f" [{fmt(r.effect_ci[0])}, {fmt(r.effect_ci[1])}]"
        parts.append(f"{r.effect_name or 'effect'} = {fmt(r.effect)}{ci}, floor {fmt(r.floor)}")
    elif r.value is not None or r.threshold is not None:
        parts.append(f"value {fmt(r.value)}, threshold {fmt(r.threshold)}")
    if r.extra.get("vs_pivot") not in (None, "pivot", "ok"):
        parts.append(f"vs pivot: {r.extra['vs_pivot']}")
    return "; ".join(parts)


def to_junit(report: QCReport) -> str:
    """The report as JUnit XML: a ``<testsuite>`` per variant, a ``<testcase>`` per check."""
    by_variant: dict[str, list[CheckResult]] = {v: [] for v in report.variants}
    for r in report.results:
        by_variant.setdefault(r.variant, []).append(r)
    root = ET.Element("testsuites", name=f"builder qc {report.input_name}")
    totals = {"tests": 0, "failures": 0, "skipped": 0}
    for variant, results in by_variant.items():
        suite = ET.SubElement(root, "testsuite", name=f"qc.{variant}")
        props = ET.SubElement(suite, "properties")
        for key, value in (("pivot", report.config["pivot"]), ("method", report.decision.get("method")),
                           ("alpha", report.decision.get("alpha"))):
            ET.SubElement(props, "property", name=key, value=str(value))
        counts = {"tests": len(results), "failures": 0, "skipped": 0}
        for r in results:
            case = ET.SubElement(suite, "testcase", classname=f"qc.{variant}", name=r.check)
            st = status(r)
            text = "\n".join(x for x in (numbers(r), r.detail) if x)
            if st == "FAIL":
                counts["failures"] += 1
                failure = ET.SubElement(case, "failure", type=r.reason or "failed",
                                        message=f"{r.reason}: {numbers(r)}".rstrip(": "))
                failure.text = text
            elif st == "skip":
                counts["skipped"] += 1
                ET.SubElement(case, "skipped", message=r.detail or "skipped")
            elif st == "WARN":
                ET.SubElement(case, "system-out").text = f"WARN (gate: false): {r.reason}\n{text}"
            elif text:
                ET.SubElement(case, "system-out").text = text
        suite.set("tests", str(counts["tests"]))
        suite.set("failures", str(counts["failures"]))
        suite.set("errors", "0")
        suite.set("skipped", str(counts["skipped"]))
        for key in totals:
            totals[key] += counts[key]
    for key, value in totals.items():
        root.set(key, str(value))
    root.set("errors", "0")
    for element in root.iter():  # every string of the file, names and messages from the data included
        element.attrib.update({key: for_xml(value) for key, value in element.attrib.items()})
        if element.text:
            element.text = for_xml(element.text)
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


#: A workflow command's message and property value, escaped as GitHub Actions' toolkit does (the names
#: earlier versions gave the functions of :mod:`schemas.escape`).
escape_data, escape_property = for_actions, for_actions_property


def annotation(r: CheckResult, level: str) -> str:
    """One ``::error`` (or ``::warning``) line for a failed check: its values Actions-escaped, then any
    control character left (ESC, BEL, a bidi override) made visible, so the line is one command; the
    message as any line printed under GitHub Actions (:func:`schemas.escape.printed_line`: no ``##[``)."""
    message = f"{r.reason}: " + "; ".join(x for x in (numbers(r), r.detail) if x)
    title = for_terminal(for_actions_property(f"qc {r.variant} {r.check}"))
    return f"::{level} title={title}::{printed_line(message, ci=True)}"


def github_annotations(report: QCReport, *, limit: int = 50) -> list[str]:
    """``::error`` lines for the checks that fail the release, ``::warning`` for ``gate: false`` ones."""
    errors = [annotation(r, "error") for r in report.failures]
    warnings = [annotation(r, "warning") for r in report.results if status(r) == "WARN"]
    out = errors[:limit]
    if len(errors) > limit:
        out.append(f"::error title=qc::{len(errors) - limit} more failing check(s); see qc_report.md")
    return out + warnings[:limit]
