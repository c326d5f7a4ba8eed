"""The gate's two reports: ``qc_report.json`` for machines, ``qc_report.md`` for people.

The Markdown report opens with the verdict, the decision rule of the run (the
multiplicity method, each family's size and alpha) and the list of failing
checks, then compares every variant's effects with the pivot's, and gives one
table per variant, failing checks first. Each row has the statistic, the raw
and the adjusted p-value with its family and family size, the effect with its
confidence interval (or the measured value), the floor (or threshold), how
the verdict relates to the pivot's, and the published figure it is compared
with (Belebele §3.2: overlap t-test p = 0.81 on the final set vs MCTest
p < 0.01; bag-of-words probe 0.28 vs chance 0.25). :func:`summary_markdown`
is the short form for a CI job's summary page. Names and details that come
from the data (variants, the input folder, reasons, details) pass
:func:`schemas.escape.md_inline`, so they stay text in one cell; the numbers
and the checks' own references (``compared with``) are the tool's.

>>> fmt(0.000012), fmt(12.3456), fmt(3), fmt(None)
('1.2e-05', '12.346', '3', '—')
"""
from __future__ import annotations

from pathlib import Path

from schemas.escape import md_code, md_inline
from schemas.io import dumps_json, replace_files_together

from .gate import QCReport
from .result import CheckResult

#: The two report files, written (and replaced) together.
REPORT_FILES = ("qc_report.json", "qc_report.md")

_ORDER = {"FAIL": 0, "WARN": 1, "pass": 2, "skip": 3}


def fmt(x) -> str:
    """A number for a table cell: integers as is, small p-values in e-notation, else 3 decimals."""
    if x is None:
        return "—"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, int):
        return str(x)
    x = float(x)
    if x != 0 and abs(x) < 1e-3:
        return f"{x:.1e}"
    return f"{x:.3f}"


def fmt_effect(x) -> str:
    """An effect size or share: 3 decimals, never e-notation (``-0.000`` reads as no effect)."""
    return "—" if x is None else f"{float(x):.3f}"


def status(r: CheckResult) -> str:
    if r.skipped:
        return "skip"
    if r.passed:
        return "pass"
    return "FAIL" if r.gate else "WARN"


def _cell(text) -> str:
    """One table cell: data-derived text (a variant, a reason, a detail) as literal Markdown, one line."""
    return md_inline(text)


def effect_cell(r: CheckResult) -> str:
    """The effect with its interval (``0.526 [0.314, 0.738]``), or the measured value."""
    if r.fails_as is not None and r.effect_ci is not None:
        return f"{fmt_effect(r.effect)} [{fmt_effect(r.effect_ci[0])}, {fmt_effect(r.effect_ci[1])}]"
    return fmt_effect(r.effect) if r.fails_as is not None else fmt(r.value)


def family_cell(r: CheckResult) -> str:
    return f"{r.family} ({r.family_size})" if r.family else "—"


def _row(r: CheckResult) -> str:
    cells = [status(r), md_code(r.check), fmt(r.statistic), fmt(r.p_value), fmt(r.p_adjusted),
             _cell(family_cell(r)), effect_cell(r), fmt(r.threshold), _cell(r.extra.get("vs_pivot") or "—"),
             r.paper or "—", _cell(r.detail or "—")]
    return "| " + " | ".join(cells) + " |"


HEADER = ("| result | check | statistic | p raw | p adjusted | family (m) | effect or value [CI] "
          "| floor or threshold | vs pivot | compared with | detail |\n"
          "|---|---|---|---|---|---|---|---|---|---|---|")


def verdict_line(report: QCReport) -> str:
    gated = [r for r in report.results if r.gate and not r.skipped]
    failures = report.failures
    return (f"**Result: {'PASSED' if report.passed else 'FAILED'}**: {len(failures)} of {len(gated)} gated checks "
            f"failed on {len({r.variant for r in failures})} of {len(report.variants)} variant(s).")


def decision_lines(report: QCReport) -> list[str]:
    """The rule of this run in words, with each family's size and alpha."""
    d = report.decision
    if not d:
        return []
    families = "; ".join(f"{md_code(name)}{_of_pivot(name, d)}: {f['size']} test(s) at {fmt(f['alpha'])}"
                         for name, f in d["families"].items()) or "no hypothesis tests ran"
    return [f"Decision: a statistical check fails when its p-value, adjusted with {d['method_name']} over every "
            f"gated test of every variant, is below {fmt(d['alpha'])} **and** its effect exceeds its floor; "
            f"other checks fail past their threshold. Families: {families}. Without the correction "
            f"{d['raw_significant']} gated test(s) had p < {fmt(d['alpha'])}. Effect intervals are "
            f"{d['confidence']:.0%}."]


def _of_pivot(family: str, decision: dict) -> str:
    return f" ({md_code(decision['pivot'])})" if family == "pivot" else ""


def failing_table(failures: list[CheckResult], limit: int | None = None) -> list[str]:
    lines = ["| variant | check | reason | p raw | p adjusted | effect or value | floor or threshold | vs pivot "
             "| detail |", "|---|---|---|---|---|---|---|---|---|"]
    shown = failures if limit is None else failures[:limit]
    for r in shown:
        cells = (_cell(r.variant), md_code(r.check), _cell(r.reason or "—"), fmt(r.p_value), fmt(r.p_adjusted),
                 effect_cell(r), fmt(r.threshold), _cell(r.extra.get("vs_pivot") or "—"), _cell(r.detail or "—"))
        lines.append("| " + " | ".join(cells) + " |")
    if len(shown) < len(failures):
        lines += ["", f"... and {len(failures) - len(shown)} more failing check(s): see qc_report.md."]
    return lines


def pivot_lines(report: QCReport) -> list[str]:
    """The pivot comparison: one row per statistical check (only when there are other variants)."""
    rows = report.pivot_comparison
    if not rows:
        return []
    pivot = report.config["pivot"]
    lines = ["## Compared with the pivot", "",
             f"Every variant carries the pivot's ({md_code(pivot)}) questions. Per statistical check: the pivot's effect "
             "and verdict, the other variants' median and largest effect, and the variants that fail it: "
             "*introduced* (the pivot passes, so the translation added the bias) or *inherited* (the pivot fails "
             "too: fix the source questions).", "",
             "| check | effect | pivot | variants: median | largest (variant) | failing | introduced | inherited |",
             "|---|---|---|---|---|---|---|---|"]
    for row in rows:
        verdict = "—" if row["pivot_passed"] is None else ("pass" if row["pivot_passed"] else "FAIL")
        largest = (f"{fmt_effect(row['largest_effect'])} ({_cell(row['largest_variant'])})"
                   if row["largest_variant"] else "—")
        cells = (md_code(row['check']), _cell(row["effect_name"] or "—"),
                 f"{fmt_effect(row['pivot_effect'])} {verdict}", fmt_effect(row["median_effect"]), largest,
                 f"{len(row['failing'])} of {row['variants']}", _names(row["introduced"]), _names(row["inherited"]))
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    return lines


def _names(variants: list[str], limit: int = 5) -> str:
    if not variants:
        return "—"
    return ", ".join(map(_cell, variants[:limit])) + (f" (+{len(variants) - limit})" if len(variants) > limit else "")


def _opening(report: QCReport, title: str) -> list[str]:
    lines = [title, "", verdict_line(report), ""]
    lines.append(f"Input {md_code(report.input_name)} ({_cell(report.kind)}, {len(report.variants)} variant(s)); "
                 f"config version {_cell(report.config['version'])}, seed {_cell(report.config['seed'])}, "
                 f"pivot {md_code(report.config['pivot'])}"
                 + (f"; contamination checked against {md_code(report.against_name)}" if report.against_name else "")
                 + ".")
    lines.append("")
    lines += decision_lines(report)
    lines.append("")
    return lines


def to_markdown(report: QCReport) -> str:
    """The human-readable report (deterministic for a given report)."""
    results = report.results
    failures = report.failures
    lines = _opening(report, "# QC report")
    lines.append("Exit code: 0 all gates pass, 1 a gate failed, 2 input or config unreadable. "
                 "`WARN` is a failed check with `gate: false`; `skip` could not run (see detail).")
    lines.append("")
    if failures:
        lines += ["## Failing checks", ""] + failing_table(failures) + [""]
    lines += pivot_lines(report)
    by_variant: dict[str, list[CheckResult]] = {}
    for r in results:
        by_variant.setdefault(r.variant, []).append(r)
    for variant in report.variants:
        rs = by_variant.get(variant, [])
        n_fail = sum(1 for r in rs if r.blocks)
        lines.append(f"## {_cell(variant)}: {'FAILED' if n_fail else 'passed'}"
                     + (f" ({n_fail} failing)" if n_fail else ""))
        lines.append("")
        lines.append(HEADER)
        order = sorted(range(len(rs)), key=lambda i: (_ORDER[status(rs[i])], i))
        lines += [_row(rs[i]) for i in order]
        lines.append("")
    return "\n".join(lines)


def summary_markdown(report: QCReport, *, max_failures: int = 100) -> str:
    """The verdict, the rule, the failing checks (at most ``max_failures``) and the pivot comparison.

    For a CI job's summary page (``$GITHUB_STEP_SUMMARY``), which shows at most 1 MiB per step:
    the per-variant tables stay in ``qc_report.md``.
    """
    lines = _opening(report, f"## QC gate {md_code(report.input_name)}: {'passed' if report.passed else 'FAILED'}")
    if report.failures:
        lines += ["### Failing checks", ""] + failing_table(report.failures, max_failures) + [""]
    lines += [ln.replace("## Compared", "### Compared", 1) for ln in pivot_lines(report)]
    return "\n".join(lines).rstrip("\n") + "\n"


def write_reports(report: QCReport, out_dir: str | Path) -> tuple[Path, Path]:
    """Write ``qc_report.json`` and ``qc_report.md`` into ``out_dir``, replaced together.

    A kill at any point leaves the earlier pair or the new pair (a run killed
    between the two renames is finished by the next one), never a new JSON
    beside an old Markdown.
    """
    j, m = replace_files_together(out_dir, {"qc_report.json": dumps_json(report.to_dict()),
                                            "qc_report.md": to_markdown(report)})
    return j, m
