"""Write evaluation results: CSV and JSON for machines, Markdown for people, a PNG.

Outputs are deterministic: rows in a fixed order, numbers rounded to six
places, JSON with sorted keys, no timestamps (the PNG carries no software
metadata either). Every table cell passes :func:`schemas.escape.md_inline`
(variant and model names come from the data); the bold mean row is the
report's own.

>>> print(markdown_table([{"a": 1, "b": "x"}], ["a", "b"]), end="")
| a | b |
|---|---|
| 1 | x |
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Collection, Sequence

from schemas.escape import md_inline
from schemas.io import csv_line, write_json_atomic, write_jsonl_atomic, write_text_atomic

BASELINE_COLUMNS = ("variant", "script", "baseline", "split", "train_variant", "n", "correct", "accuracy",
                    "ci_low", "ci_high", "seed", "params")
LLM_COLUMNS = ("variant", "model", "task", "n", "correct", "accuracy", "ci_low", "ci_high", "parsed",
               "parse_failures", "parse_failure_rate", "accuracy_parsed", "lenient")


def csv_text(rows: Sequence[dict], columns: Sequence[str]) -> str:
    """Rows as CSV text with ``\\n`` line ends; None and NaN become empty fields."""
    return csv_line(columns) + "".join(csv_line(["" if _missing(r.get(c)) else r.get(c) for c in columns])
                                       for r in rows)


def _missing(x) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def _cell(x, raw: bool = False) -> str:
    return "" if _missing(x) else (str(x) if raw else md_inline(x))


def markdown_table(rows: Sequence[dict], columns: Sequence[str], raw: Collection[str] = ()) -> str:
    """A GitHub Markdown table of ``rows`` restricted to ``columns``; every cell literal text but those of
    the ``raw`` columns (numbers the report formats itself).

    >>> print(markdown_table([{"a": "<b>|x"}], ["a"]), end="")
    | a |
    |---|
    | &lt;b&gt;\\|x |
    """
    lines = ["| " + " | ".join(map(md_inline, columns)) + " |", "|" + "|".join("---" for _ in columns) + "|"]
    lines += ["| " + " | ".join(_cell(r.get(c), c in raw) for c in columns) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def pct(x) -> str:
    """A fraction as a percentage with one decimal (``0.6491`` -> ``64.9``)."""
    return "" if _missing(x) else f"{100 * x:.1f}"


def baseline_means(rows: Sequence[dict], baselines: Sequence[str]) -> dict[str, float]:
    """Unweighted mean accuracy over variants, per baseline (the papers' "Average" row).

    >>> baseline_means([{"baseline": "m", "accuracy": 0.5}, {"baseline": "m", "accuracy": 0.7}], ["m"])
    {'m': 0.6}
    """
    out = {}
    for b in baselines:
        accs = [r["accuracy"] for r in rows if r["baseline"] == b and not _missing(r["accuracy"])]
        out[b] = round(sum(accs) / len(accs), 6) if accs else float("nan")
    return out


def baseline_markdown(rows: Sequence[dict], baselines: Sequence[str], settings: dict) -> str:
    """One line per variant (grouped by script), one column per baseline: accuracy % [95% CI]."""
    by_variant: dict[str, dict] = {}
    for r in rows:
        cell = f"{pct(r['accuracy'])} [{pct(r['ci_low'])}-{pct(r['ci_high'])}]"
        entry = by_variant.setdefault(r["variant"], {"variant": r["variant"], "script": r["script"], "n": r["n"]})
        entry[r["baseline"]] = cell
    table = sorted(by_variant.values(), key=lambda e: (e["script"], e["variant"]))
    means = baseline_means(rows, baselines)
    mean_row = ("| " + " | ".join([f"**mean of {len(by_variant)}**", "", "",
                                   *(f"**{pct(means[b])}**" for b in baselines)]) + " |\n")
    head = [f"# Baseline accuracy ({settings.get('split', 'test')} split)", "",
            "Accuracy in %, 95% " + settings.get("ci_method", "wilson") + " interval in brackets; n items per variant.",
            "Settings: " + ", ".join(f"{k}={v}" for k, v in sorted(settings.items()) if v not in (None, "")), ""]
    return ("\n".join(head) + "\n" + markdown_table(table, ["variant", "script", "n", *baselines], raw=baselines)
            + mean_row)


def llm_markdown(summary: Sequence[dict], kinds: Sequence[str]) -> str:
    """One line per variant and model: accuracy, failure rate and failures by kind."""
    rows = [{**r, "accuracy %": pct(r["accuracy"]), "95% CI": f"{pct(r['ci_low'])}-{pct(r['ci_high'])}",
             "parse failures %": pct(r["parse_failure_rate"]), "accuracy on parsed %": pct(r["accuracy_parsed"])}
            for r in summary]
    cols = ["variant", "model", "n", "accuracy %", "95% CI", "parse failures %", "accuracy on parsed %",
            *[f"fail_{k}" for k in kinds], "lenient"]
    head = ("# LLM answer scores\n\nAccuracy counts a parse failure as wrong; failures by kind beside it; "
            "`lenient` counts answers read only by Belebele's first-character fallback.\n\n")
    return head + markdown_table(rows, cols)


def write_baseline_report(out: str | Path, rows: Sequence[dict], baselines: Sequence[str], settings: dict,
                          dataset: dict) -> dict[str, Path]:
    """results.csv, results.json, results.md and accuracy.png in ``out``."""
    from .plots import plot_accuracy

    out = Path(out)
    paths = {
        "csv": write_text_atomic(out / "results.csv", csv_text(rows, BASELINE_COLUMNS)),
        "json": write_json_atomic(out / "results.json", {
            "settings": settings, "dataset": dataset, "means": baseline_means(rows, baselines),
            "results": [{c: r.get(c) for c in BASELINE_COLUMNS} for r in rows]}),
        "md": write_text_atomic(out / "results.md", baseline_markdown(rows, baselines, settings)),
    }
    paths["png"] = plot_accuracy(rows, baselines, out / "accuracy.png")
    return paths


def write_llm_report(out: str | Path, summary: Sequence[dict], items: Sequence[dict], kinds: Sequence[str],
                     settings: dict) -> dict[str, Path]:
    """results.csv/.json/.md (one row per variant and model) and items.jsonl (one row per answer)."""
    out = Path(out)
    cols = (*LLM_COLUMNS, *[f"fail_{k}" for k in kinds])
    return {
        "csv": write_text_atomic(out / "results.csv", csv_text(summary, cols)),
        "json": write_json_atomic(out / "results.json", {"settings": settings, "results": list(summary)}),
        "md": write_text_atomic(out / "results.md", llm_markdown(summary, kinds)),
        "items": write_jsonl_atomic(out / "items.jsonl", items),
    }
