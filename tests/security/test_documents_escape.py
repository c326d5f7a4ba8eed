"""Issue 26: data-derived text stays text in every document the tool writes for people.

The card (``README.md``), ``ATTRIBUTION.md``, ``LICENSE``, ``qc_report.md``,
``agreement.md``, ``results.md`` and ``report.html`` are rendered here from
inputs whose every string field is hostile, and read back with the target
format's own parser (:mod:`doc_checks`: markdown-it and ``html.parser``). The
end-to-end attacks through the CLI are the ``doc_`` cases of
``tests/data/hostile/``.
"""
from __future__ import annotations

import copy
import json
import re
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent))

from doc_checks import HEADING, IMG, LINK, SCRIPT, SVG, check_markdown, check_report_html  # noqa: E402

from annotation.report import render_markdown as agreement_markdown  # noqa: E402
from builder.evaluation.report import baseline_markdown, llm_markdown  # noqa: E402
from builder.release.report import render_report  # noqa: E402
from data_cards.card import CardContext, SplitTerms, render_card  # noqa: E402
from data_cards.frontmatter import dump_front_matter, parse_front_matter  # noqa: E402
from data_cards.legal import render_attribution, render_license  # noqa: E402
from schemas.escape import md_code  # noqa: E402
from qc.gate import QCReport  # noqa: E402
from qc.report import summary_markdown, to_markdown  # noqa: E402
from qc.result import CheckResult  # noqa: E402
from schemas.license_terms import combine  # noqa: E402
from schemas.licensing import LicenseOverride  # noqa: E402

DATA = Path(__file__).parents[1] / "data"
#: One value with every attack at once, and a line break that would start a heading.
EVIL = f"{SCRIPT} {IMG} {SVG} {LINK} x`y|z"
EVIL_LINES = f"{EVIL}\n{HEADING}"
SHOWN = (SCRIPT, IMG, SVG, LINK)


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# -- the card, ATTRIBUTION.md, LICENSE ------------------------------------------------------------------


def _context(**changes) -> CardContext:
    """A topic card whose every data-derived string is hostile (the names the Hub needs stay valid)."""
    source = f"SIB {EVIL_LINES}"
    terms = combine([(source, "CC-BY-SA-4.0", 4)])
    override = LicenseOverride.from_dict({"terms": EVIL_LINES, "reason": EVIL_LINES})
    ctx = CardContext(
        name="hostile", pretty_name=EVIL_LINES, kind="topic",
        sizes={"hin_Deva": {"test": 2}, f"x{EVIL}": {"test": 2}},
        files={"hin_Deva": {"test": "hin_Deva/test.parquet"}, f"x{EVIL}": {"test": "x/test.parquet"}},
        columns=[("text", "string"), (EVIL, EVIL)],
        splits=[SplitTerms("hin_Deva", "test", terms), SplitTerms(f"x{EVIL}", "test", terms)],
        overall=terms, override=override, description=EVIL_LINES,
        manifest={"seed": EVIL, "dropped": [{"source": EVIL, "split": "test", "reason": EVIL_LINES, "count": 1}]},
        variant_info={f"x{EVIL}": {"tool": EVIL, "version": EVIL_LINES, "scheme": EVIL, "source_variant": EVIL}},
        labels=[EVIL, "travel"],
        agreement={"n_items": 2, "n_annotators": EVIL, "fleiss_kappa": 0.5},
        qc={"passed": False, "checks": [{"variant": EVIL, "check": EVIL, "passed": False, "reason": EVIL_LINES}]},
        references={source: EVIL_LINES},
        baselines={"results": [{"variant": EVIL, "baseline": EVIL, "split": EVIL, "accuracy": 0.5, "n": EVIL}]},
    )
    for key, value in changes.items():
        setattr(ctx, key, value)
    return ctx


def test_the_card_shows_every_hostile_field_as_text(tmp_path):
    card = render_card(_context())
    meta, _ = parse_front_matter(card)
    assert meta["pretty_name"] == EVIL_LINES
    plain = check_markdown(_write(tmp_path, "README.md", card), must_show=SHOWN)
    assert f"{EVIL} {HEADING}" in plain  # the line break became a space, the text is all there
    assert plain.count("x`y|z") >= 10, "a hostile value is missing from some section"


def test_a_value_with_no_markdown_in_it_keeps_its_code_span():
    assert md_code("hin_Deva") == "`hin_Deva`" and md_code("science/technology") == "`science/technology`"
    assert md_code("a`b") == "a\\`b" and md_code("<x>") == "&lt;x&gt;" and md_code("") == ""


def test_attribution_shows_names_and_references_as_text(tmp_path):
    ctx = _context()
    text = render_attribution("hostile", ctx.overall, ctx.references)
    plain = check_markdown(_write(tmp_path, "ATTRIBUTION.md", text), must_show=SHOWN)
    assert f"Reference: {EVIL} {HEADING}" in plain


def test_license_keeps_every_value_on_its_line():
    ctx = _context()
    forged = "demo\nResearch use only: no"
    text = render_license(forged, ctx.overall, ctx.override)
    lines = text.split("\n")
    assert lines[0] == "License terms of demo\\x0aResearch use only: no"
    assert len(lines[1]) == len(lines[0]) and set(lines[1]) == {"="}
    assert [ln for ln in lines if ln.startswith("Research use only:")] == ["Research use only: no"]
    for start in ("  Applies to: SIB ", "  Terms: ", "  Reason: "):
        assert any(ln.startswith(start) and SCRIPT in ln and "\\x0a# Injected heading" in ln for ln in lines), start


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(list("ab -.:'\"#>!\n\t\\`|<&*_~") + ["---", "...", "\u2028", "\x1b", "\u202e"]),
                min_size=1, max_size=30).map("".join))
def test_the_front_matter_round_trips_any_pretty_name(value):
    meta, body = parse_front_matter(dump_front_matter({"pretty_name": value, "license": "mit"}) + "# Card\n")
    assert meta == {"pretty_name": value, "license": "mit"} and body == "# Card\n"


# -- qc_report.md ------------------------------------------------------------------------------------------


def _qc_report() -> QCReport:
    bad = CheckResult(variant=f"x{EVIL}", check=EVIL, passed=False, reason=EVIL_LINES, detail=EVIL_LINES,
                      extra={"vs_pivot": EVIL})
    ok = CheckResult(variant=f"x{EVIL}", check="leakage", passed=True, statistic=-1.5, value=-0.25)
    return QCReport(results=[bad, ok], variants=[f"x{EVIL}"], kind="topic",
                    config={"version": 2, "seed": EVIL, "pivot": EVIL}, input_name=f"in{EVIL}",
                    against_name=EVIL)


@pytest.mark.parametrize("render", [to_markdown, summary_markdown])
def test_qc_report_shows_data_as_text(render, tmp_path):
    plain = check_markdown(_write(tmp_path, "qc_report.md", render(_qc_report())), must_show=SHOWN)
    assert f"Input in{EVIL}" in plain and f"{EVIL} {HEADING}" in plain


def test_qc_report_numbers_are_not_escaped():
    text = to_markdown(_qc_report())
    assert "| -1.500 |" in text and "| -0.250 |" in text


# -- agreement.md, results.md -------------------------------------------------------------------------------


def test_agreement_report_shows_labels_and_annotators_as_text(tmp_path):
    rep = {"source": f"in{EVIL}", "n_items": 1, "n_annotators": 2, "n_ratings": 2,
           "ratings_per_item": {"min": 2, "max": 2, "mean": 2.0}, "labels": [EVIL_LINES, "b"],
           "label_counts": {EVIL_LINES: 1, "b": 1}, "fleiss_kappa": None, "fleiss_kappa_reason": EVIL,
           "krippendorff_alpha": None, "mean_cohen_kappa": None, "gwet_ac1": None, "percent_agreement": 0.0,
           "ci": {}, "observed_agreement": {}, "expected_agreement": {}, "per_category": {},
           "per_category_measure": "fleiss_kappa_one_vs_rest", "per_category_ci": {},
           "bootstrap": {"n_resamples": 0, "seed": 0, "level": 0.95},
           "pairwise": {"annotators": [EVIL, "b"], "cohen_kappa": [[1.0, None], [None, 1.0]],
                        "percent_agreement": [[1.0, 0.0], [0.0, 1.0]], "n_shared": [[1, 1], [1, 1]]},
           "confusions": [{"labels": [EVIL_LINES, "b"], "count": 1}], "skipped": {EVIL: 1}}
    plain = check_markdown(_write(tmp_path, "agreement.md", agreement_markdown(rep)), must_show=SHOWN)
    assert f"Source in{EVIL}" in plain and f"{EVIL} {HEADING}" in plain


def test_evaluation_reports_show_names_as_text(tmp_path):
    rows = [{"variant": EVIL_LINES, "script": EVIL, "baseline": "majority", "n": 3, "accuracy": 0.5,
             "ci_low": 0.2, "ci_high": 0.8}]
    text = baseline_markdown(rows, ["majority"], {"split": "test"})
    plain = check_markdown(_write(tmp_path, "results.md", text), must_show=SHOWN)
    assert "50.0 [20.0-80.0]" in text and "| **mean of 1** |" in text and f"{EVIL} {HEADING}" in plain
    summary = [{"variant": EVIL, "model": EVIL_LINES, "n": 3, "accuracy": 0.5, "ci_low": 0.2, "ci_high": 0.8,
                "parse_failure_rate": 0.0, "accuracy_parsed": 0.5, "lenient": 0}]
    check_markdown(_write(tmp_path, "llm.md", llm_markdown(summary, [])), must_show=SHOWN)


# -- report.html ---------------------------------------------------------------------------------------------


def _hostile(value, text: str):
    """``value`` with every string replaced by ``text`` (keys and numbers kept)."""
    if isinstance(value, dict):
        return {k: (v if k in ("kind", "version", "verdict", "status", "path", "manifest", "report")
                    else _hostile(v, text)) for k, v in value.items()}
    if isinstance(value, list):
        return [_hostile(v, text) for v in value]
    return text if isinstance(value, str) else value


def test_report_html_shows_every_summary_string_as_text_with_control_characters_visible(tmp_path):
    summary = json.loads((DATA / "release" / "summary.json").read_text(encoding="utf-8"))
    evil = f"{EVIL_LINES} </pre></title>\x1b]0;owned\x07"
    hostile = _hostile(copy.deepcopy(summary), evil)
    page = render_report(hostile, base=tmp_path)
    # the charts (builder/release/report_charts.py) escape with html.escape, which leaves control
    # characters as they are; everything report.py writes itself shows them visibly
    outside_charts = re.sub(r"<svg class=\"chart\".*?</svg>", "", page, flags=re.S)
    assert "\x1b" not in outside_charts and "\x07" not in outside_charts
    text = check_report_html(_write(tmp_path, "report.html", page), must_show=(*SHOWN, "</pre></title>"))
    assert "\\x1b]0;owned\\x07" in text
