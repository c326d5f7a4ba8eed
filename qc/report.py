"""The gate's two reports: ``qc_report.json`` for machines, ``qc_report.md`` for people.

The Markdown report opens with the verdict and the list of failing checks,
then gives one table per variant, failing checks first, each with its
statistic, p-value, effect size, value, threshold and the published figure it
is compared with (Belebele §3.2: overlap t-test p = 0.81 on the final set vs
MCTest p < 0.01; bag-of-words probe 0.28 vs chance 0.25).

>>> fmt(0.000012), fmt(12.3456), fmt(3), fmt(None)
('1.2e-05', '12.346', '3', '—')
"""
from __future__ import annotations

from pathlib import Path

from schemas.io import dumps_json, write_text_atomic

from .gate import QCReport
from .result import CheckResult

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


def status(r: CheckResult) -> str:
    if r.skipped:
        return "skip"
    if r.passed:
        return "pass"
    return "FAIL" if r.gate else "WARN"


def _cell(text) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _row(r: CheckResult) -> str:
    effect = r.extra.get("effect_size")
    cells = [status(r), f"`{r.check}`", fmt(r.statistic), fmt(r.p_value), fmt(effect), fmt(r.value),
             fmt(r.threshold), r.paper or "—", r.detail or "—"]
    return "| " + " | ".join(_cell(c) for c in cells) + " |"


HEADER = ("| result | check | statistic | p-value | effect size (g) | value | threshold | compared with | detail |\n"
          "|---|---|---|---|---|---|---|---|---|")


def to_markdown(report: QCReport) -> str:
    """The human-readable report (deterministic for a given report)."""
    results = report.results
    gated = [r for r in results if r.gate and not r.skipped]
    failures = report.failures
    lines = ["# QC report", ""]
    verdict = "PASSED" if report.passed else "FAILED"
    lines.append(f"**Result: {verdict}**: {len(failures)} of {len(gated)} gated checks failed on "
                 f"{len({r.variant for r in failures})} of {len(report.variants)} variant(s).")
    lines.append("")
    lines.append(f"Input `{report.input_name}` ({report.kind}, {len(report.variants)} variant(s)); "
                 f"config version {report.config['version']}, seed {report.config['seed']}, "
                 f"pivot `{report.config['pivot']}`"
                 + (f"; contamination checked against `{report.against_name}`" if report.against_name else "")
                 + ".")
    lines.append("")
    lines.append("Exit code: 0 all gates pass, 1 a gate failed, 2 input or config unreadable. "
                 "`WARN` is a failed check with `gate: false`; `skip` could not run (see detail).")
    lines.append("")
    if failures:
        lines += ["## Failing checks", "", "| variant | check | reason | value | threshold | p-value |",
                  "|---|---|---|---|---|---|"]
        for r in failures:
            lines.append("| " + " | ".join(_cell(c) for c in (r.variant, f"`{r.check}`", r.reason or "—",
                                                                   fmt(r.value), fmt(r.threshold),
                                                                   fmt(r.p_value))) + " |")
        lines.append("")
    by_variant: dict[str, list[CheckResult]] = {}
    for r in results:
        by_variant.setdefault(r.variant, []).append(r)
    for variant in report.variants:
        rs = by_variant.get(variant, [])
        n_fail = sum(1 for r in rs if r.blocks)
        lines.append(f"## {variant}: {'FAILED' if n_fail else 'passed'}"
                     + (f" ({n_fail} failing)" if n_fail else ""))
        lines.append("")
        lines.append(HEADER)
        order = sorted(range(len(rs)), key=lambda i: (_ORDER[status(rs[i])], i))
        lines += [_row(rs[i]) for i in order]
        lines.append("")
    return "\n".join(lines)


def write_reports(report: QCReport, out_dir: str | Path) -> tuple[Path, Path]:
    """Write ``qc_report.json`` and ``qc_report.md`` into ``out_dir`` atomically."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    j = write_text_atomic(out / "qc_report.json", dumps_json(report.to_dict()))
    m = write_text_atomic(out / "qc_report.md", to_markdown(report))
    return j, m
