"""``release.json`` and ``report.html``: what a release holds, from its stages' outputs.

The summary is built from files only (never from timings or from which stages
this run skipped), so a release resumed after a crash writes the same bytes.
"""
from __future__ import annotations

import json
from pathlib import Path

from schemas.codes import variant_language, variant_script
from schemas.ledger import DropRow, total_drops
from schemas.runtime.provenance import tool_info
from schemas.io import write_json_atomic, write_text_atomic

from .plan import Plan
from .stages import STAGE_JSON


def _json(path: Path | None):
    if path is None or not Path(path).is_file():
        return None
    return json.loads(Path(path).read_text(encoding="utf-8"))


def _output(plan: Plan, name: str) -> Path | None:
    st = next((s for s in plan.stages if s.name == name), None)
    return None if st is None else st.output


def _gate(plan: Plan, qc: dict | None, allowed: bool) -> dict:
    if qc is None:
        return {"verdict": "not run", "allowed_failing": False, "failing": [], "report": None}
    details = {(c.get("variant"), c.get("check")): c for c in qc.get("checks", [])}
    failing = []
    for f in qc.get("failed", []):
        c = details.get((f.get("variant"), f.get("check")), {})
        detail = " ".join(str(c.get("detail") or f.get("reason") or "").split())
        failing.append({"variant": f.get("variant"), "check": f.get("check"), "detail": detail})
    return {"verdict": "pass" if qc.get("passed") else "fail", "allowed_failing": allowed, "failing": failing,
            "report": "stages/qc/output/qc_report.md"}


def _records(plan: Plan) -> list[tuple[str, dict]]:
    """``(stage, record)`` of every recorded stage, in plan order."""
    out = []
    for st in plan.stages:
        record = _json(plan.root / "stages" / st.name / STAGE_JSON)
        if record is not None:
            out.append((st.name, record))
    return out


def _drops(records: list[tuple[str, dict]]) -> list[dict]:
    """The drop ledger: what each stage left out (records, lines, items), by source and reason, summed
    from the one row type every stage records (:class:`schemas.ledger.DropRow`)."""
    rows = [DropRow.from_dict(d, file=f"stages/{name}/{STAGE_JSON}")
            for name, record in records for d in (record.get("facts") or {}).get("drops", [])]
    return [r.to_dict() for r in total_drops(rows)]


def _agreement(plan: Plan, records: dict[str, dict]) -> dict | None:
    if plan.agreement is None:
        return None
    rep = _json(plan.agreement.output / "agreement.json")
    if rep is None:
        return None
    labels = list(rep.get("labels") or [])
    matrix = ((records.get(plan.agreement.name) or {}).get("facts") or {}).get("matrix")
    keys = ("fleiss_kappa", "krippendorff_alpha", "mean_cohen_kappa", "gwet_ac1", "percent_agreement")
    return {"labels": labels, "annotators": rep.get("n_annotators"), "items": rep.get("n_items"),
            "measures": {k: rep[k] for k in keys if k in rep}, "matrix": matrix}


def build_summary(plan: Plan, *, gate_failing_allowed: bool, stopped_at_gate: bool) -> dict:
    r = plan.recipe
    qc = _json(plan.qc.output / "qc_report.json") if plan.qc is not None else None
    licenses = _json((_output(plan, "licenses") or Path("-")) / "licenses.json") or []
    results = _json((_output(plan, "baselines") or Path("-")) / "results.json") or {}
    gate = _gate(plan, qc, gate_failing_allowed)
    failing_by_variant: dict[str, list[str]] = {}
    for f in gate["failing"]:
        failing_by_variant.setdefault(f["variant"], []).append(f["check"])
    variants = []
    codes = sorted({s["variant"] for s in licenses} | set(plan.variants))
    for code in codes:
        splits = [s for s in licenses if s["variant"] == code]
        v = plan.variants.get(code)
        variants.append({
            "variant": code, "language": variant_language(code), "script": variant_script(code),
            "origin": v.origin if v else "",
            "rows": {s["split"]: s["records"] for s in splits},
            "gate": {"verdict": "not run" if qc is None else ("fail" if code in failing_by_variant else "pass"),
                     "failing": failing_by_variant.get(code, [])},
            "licenses": [{"split": s["split"], "license": s["terms"], "commercial": s.get("commercial_use")}
                         for s in splits],
            "baselines": [{k: row.get(k) for k in ("baseline", "accuracy", "ci_low", "ci_high", "n")}
                          for row in results.get("results", []) if row.get("variant") == code],
        })
    records = _records(plan)
    stages = [{"name": name, "status": "done", "seconds": None, "manifest": f"stages/{name}/{STAGE_JSON}"}
              for name, _ in records]
    links = [(title, path) for title, path in (
        ("Dataset card", "export/README.md"), ("Export manifest", "export/manifest.json"),
        ("QC report", "stages/qc/output/qc_report.md"), ("QC report (JSON)", "stages/qc/output/qc_report.json"),
        ("QC JUnit", "stages/qc/output/junit.xml"),
        ("License audit (JSON)", "stages/licenses/output/licenses.json"),
        ("Baselines", "stages/baselines/output/results.md"),
        ("Baselines (JSON)", "stages/baselines/output/results.json"),
        ("Release summary (JSON)", "release.json")) if (plan.root / path).is_file() or path == "release.json"]
    if plan.agreement is not None:
        rel = (plan.agreement.output / "agreement.json").relative_to(plan.root).as_posix()
        links.insert(2, ("Agreement report", rel.replace(".json", ".md")))
    return {
        "version": 1,
        "dataset": {"name": r.name, "pretty_name": r.pretty_name or r.name, "citation": r.citation,
                    "pivot": r.pivot, "kind": plan.kind},
        "tool": tool_info(),
        "released": not stopped_at_gate,
        "stages": stages,
        "gate": gate,
        "variants": variants,
        "drops": _drops(records),
        "agreement": _agreement(plan, dict(records)),
        "links": [{"title": t, "path": p} for t, p in links],
    }


def write_summary(plan: Plan, *, gate_failing_allowed: bool, stopped_at_gate: bool) -> dict:
    """Write ``release.json`` and ``report.html`` into the release folder; return the summary."""
    from .report import render_report

    summary = build_summary(plan, gate_failing_allowed=gate_failing_allowed, stopped_at_gate=stopped_at_gate)
    write_json_atomic(plan.root / "release.json", summary)
    write_text_atomic(plan.root / "report.html", render_report(summary, base=plan.root))
    return summary
