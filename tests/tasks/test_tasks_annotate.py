"""builder.tasks.annotate called directly (no click): outputs, result fields and drops against the files written."""
from __future__ import annotations

import json
from pathlib import Path

from builder.tasks.annotate import (AdjudicateOptions, AgreementOptions, CurateOptions, SplitOptions, run_adjudicate,
                                    run_agreement, run_curate, run_split)
from builder.tasks.base import Reporter
from schemas.ledger import DropRow

ROOT = Path(__file__).parents[2]
D = ROOT / "tests" / "data" / "annotation"
LABELS = D / "labels.txt"


def test_agreement_result_is_the_written_report_and_skips_are_drops(tmp_path):
    lines: list[str] = []
    result = run_agreement(AgreementOptions(D / "bad_unknown_label.csv", tmp_path / "rep", labels=LABELS,
                                            on_error="skip", n_boot=0, plot=False), Reporter(write=lines.append))
    written = json.loads((tmp_path / "rep" / "agreement.json").read_text(encoding="utf-8"))
    assert result.report["n_items"] == written["n_items"] and result.report["skipped"] == written["skipped"]
    assert result.annotations.n_items == written["n_items"]
    assert result.drops == [DropRow("agreement", reason, n) for reason, n in sorted(written["skipped"].items())]
    assert result.drops == [DropRow("agreement", "too_few_ratings", 1), DropRow("agreement", "unknown_label", 1)]
    assert result.lines == [f"{written['n_items']} items, {written['n_annotators']} annotators: fleiss_kappa "
                            + result.lines[0].split("fleiss_kappa ")[1]]
    assert result.lines[0].endswith(f"-> {tmp_path / 'rep' / 'agreement.json'}")
    assert "skipped 1 (unknown_label): 2" in lines


def test_adjudicate_drops_are_the_skipped_and_unresolved_of_adjudication_json(tmp_path):
    result = run_adjudicate(AdjudicateOptions(D / "sib_small_long.csv", tmp_path / "adj", labels=LABELS))
    summary = json.loads((tmp_path / "adj" / "adjudication.json").read_text(encoding="utf-8"))
    assert result.summary == summary
    expected = [DropRow("adjudication", r, n) for r, n in sorted(summary["skipped"].items()) if n]
    if summary["rules"]["unresolved"]:
        expected.append(DropRow("adjudication", "unresolved", summary["rules"]["unresolved"]))
    assert result.drops == expected and summary["rules"]["unresolved"] == 4
    assert [d.item_id for d in result.decisions if d.rule == "unresolved"] == summary["unresolved_ids"]
    assert result.lines == [f"12 items (sib200): {summary['rules']['majority']} majority, 0 adjudicated, 4 unresolved"
                            f" -> {tmp_path / 'adj' / 'adjudication_sheet.csv'}"]


def test_curate_then_split_drops_are_the_log_steps(tmp_path):
    run_adjudicate(AdjudicateOptions(D / "sib_small_long.csv", tmp_path / "adj"))
    recipe = tmp_path / "r.yaml"
    recipe.write_text("steps:\n  - drop_labels: [uncategorized]\n  - merge: {science/technology: [science, "
                      "technology]}\n", encoding="utf-8")
    info: list[str] = []
    cur = run_curate(CurateOptions(tmp_path / "adj", recipe, tmp_path / "cur"), Reporter(write=info.append))
    log = json.loads((tmp_path / "cur" / "curation_log.json").read_text(encoding="utf-8"))
    assert (cur.items_in, cur.items_out, cur.log) == (log["items_in"], log["items_out"], log["steps"]) == (12, 8, cur.log)
    assert cur.drops == [DropRow("curation", s["step"], s["items_dropped"]) for s in log["steps"] if s["items_dropped"]]
    assert sum(d.count for d in cur.drops) == cur.items_in - cur.items_out
    assert info[0] == "drop_unresolved: 12 -> 8 items"
    assert cur.lines == [f"12 items -> 8 items, {len(cur.labels)} labels -> {tmp_path / 'cur' / 'curated.tsv'}"]

    split = run_split(SplitOptions(tmp_path / "cur" / "curated.tsv", tmp_path / "split"))
    assert split.info == json.loads((tmp_path / "split" / "split.json").read_text(encoding="utf-8"))
    assert sum(split.info["counts"].values()) == 8 and split.drops == []
    assert split.lines[0].startswith("8 items -> train ")


def test_a_measure_not_reported_is_a_note_after_the_summary(tmp_path):
    result = run_agreement(AgreementOptions(D / "wide_missing.csv", tmp_path, n_boot=0, plot=False))
    assert result.report["fleiss_kappa"] is None
    assert result.notes == [f"note: fleiss_kappa not reported: {result.report['fleiss_kappa_reason']}"]
