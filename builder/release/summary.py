"""``release.json`` and ``report.html``: what a release holds, from its stages' outputs.

The summary is built from files only (never from timings or from which stages
this run skipped), so a release resumed after a crash writes the same bytes.
It reads only the stages this run ran or found up to date (``current``): a stage
the run did not reach (the gate stopped it, or an earlier stage failed) keeps its
earlier output under ``stages/`` for the next run, and the summary lists it as
``not reached`` without reading it, so nothing of an earlier run is shown as this
one's. ``superseded`` lists what was moved aside (:mod:`builder.release.superseded`),
``warnings`` every warning a stage gave, ``drops`` the ledger per stage kept apart
by what it counts (:mod:`builder.release.findings`).

Two things it carries for the report beyond counts: each variant's ``derived``
(``{"method", "from"}`` for a romanized, projected or aligned variant, read from
its ``variant.json``, else from how the release made it; None for a variant as
found) and each failing check's ``items``, the records it is about
(``[{"ids": [...], "texts": [...]}]``, read from the check's ``extra`` in
``qc_report.json``, texts cut to :data:`TEXT_CHARS`; see :func:`failing_items`).
"""
from __future__ import annotations

import json
from pathlib import Path

from schemas.codes import variant_language, variant_script
from schemas.errors import SchemaError
from schemas.runtime.provenance import tool_info
from schemas.io import write_json_atomic, write_text_atomic
from schemas.variant import VariantInfo

from . import findings
from .plan import Plan, Variant
from .stages import STAGE_JSON
from .superseded import superseded

#: A failing check's records in the summary: at most this many, each text cut to this many characters.
MAX_ITEMS, TEXT_CHARS = 10, 160
#: How the release plan words a variant it made from another one (plan.py), and the method it stands for.
_MADE = (("romanized from ", "romanization"), ("projected from ", "projection"), ("aligned to ", "alignment"))
#: Why a release's gate skips a check, where the qc report's own reason names an option of ``builder qc``
#: that a release recipe does not have.
RELEASE_SKIPS = {"contamination": "a release recipe names no test set to compare against, so the gate cannot "
                                  "look for its passages here; run builder qc DATASET --contamination-against "
                                  "TESTSET on the exported data for that check"}


def _json(path: Path | None):
    if path is None or not Path(path).is_file():
        return None
    return json.loads(Path(path).read_text(encoding="utf-8"))


def _gate(qc: dict | None, allowed: bool) -> dict:
    if qc is None:
        return {"verdict": "not run", "allowed_failing": False, "failing": [], "report": None, "skipped": [],
                "warnings": []}
    details = {(c.get("variant"), c.get("check")): c for c in qc.get("checks", [])}
    failing = []
    for f in qc.get("failed", []):
        c = details.get((f.get("variant"), f.get("check")), {})
        detail = " ".join(str(c.get("detail") or f.get("reason") or "").split())
        failing.append({"variant": f.get("variant"), "check": f.get("check"), "detail": detail,
                        "items": failing_items(c)})
    skipped, warned = findings.qc_notes(qc)
    for row in skipped:
        if row["check"] in RELEASE_SKIPS:
            row["release"] = RELEASE_SKIPS[row["check"]]
    return {"verdict": "pass" if qc.get("passed") else "fail", "allowed_failing": allowed, "failing": failing,
            "report": "stages/qc/output/qc_report.md", "skipped": skipped, "warnings": warned}


def _listed(value) -> list:
    return [] if value is None else list(value) if isinstance(value, (list, tuple)) else [value]


def _item(value) -> dict | None:
    """One record group of a check's ``extra``: ``{"ids", "texts"}`` from a dict, an id list or a text."""
    jaccard = None
    if isinstance(value, dict):
        ids = _listed(value.get("ids", value.get("id")))
        texts = _listed(value.get("texts", value.get("text")))
        jaccard = value.get("jaccard")
    elif isinstance(value, (list, tuple)):  # a group of ids (duplicates: ``exact_examples``, ``near_examples``)
        ids, texts = list(value), []
    elif isinstance(value, str):  # a text without its ids (leakage's exact ``examples``)
        ids, texts = [], [value]
    else:
        return None
    ids = [str(i) for i in ids if i is not None and not isinstance(i, (dict, list))]
    texts = [" ".join(str(t).split())[:TEXT_CHARS] for t in texts if isinstance(t, str)]
    if not ids and not texts:
        return None
    item = {"ids": ids, "texts": texts}
    if isinstance(jaccard, (int, float)) and not isinstance(jaccard, bool):
        item["jaccard"] = round(float(jaccard), 4)
    return item


#: Where a check's result names its records, richest first: ``items`` (any check), then exact and near pairs
#: or groups as dicts with ids and texts (``exact_pairs``, ``exact_named``: the exact ones; ``near_pairs``,
#: ``near_named``: leakage's and duplicates' near ones), then bare id groups (duplicates), then bare texts.
RECORD_KEYS = ("items", "exact_pairs", "exact_named", "exact_examples", "near_pairs", "near_named",
               "near_examples")


def failing_items(check: dict) -> list[dict]:
    """The records a failing check is about, from its result in ``qc_report.json`` (``extra`` is flattened
    into it): a list of ``{"ids": [...], "texts": [...]}`` (``jaccard`` too for a near pair), e.g.
    ``{"ids": ["train:17", "test:204"], "texts": ["the shared text"]}``, from the keys of
    :data:`RECORD_KEYS` in that order, then ``examples`` (id groups or bare texts: leakage names its exact
    matches so, without ids); a group named twice (ids alone, then with texts) is one, with its texts.
    At most :data:`MAX_ITEMS`.

    >>> failing_items({"items": [{"ids": ["train:1", "test:9"], "texts": ["A  cat."]}]})
    [{'ids': ['train:1', 'test:9'], 'texts': ['A cat.']}]
    >>> failing_items({"exact_examples": [["train:1", "train:4"]], "near_pairs": 2})
    [{'ids': ['train:1', 'train:4'], 'texts': []}]
    """
    found: list[dict] = []
    by_ids: dict[tuple, dict] = {}
    for key in (*RECORD_KEYS, "examples"):
        for value in _listed(check.get(key)):
            item = _item(value)
            if item is None:
                continue
            same = by_ids.get(tuple(item["ids"])) if item["ids"] else None
            if same is not None:
                same["texts"] = same["texts"] or item["texts"]
                continue
            if not item["ids"] and any(t in f["texts"] for f in found for t in item["texts"]):
                continue  # a text already named with its ids
            found.append(item)
            if item["ids"]:
                by_ids[tuple(item["ids"])] = item
    return found[:MAX_ITEMS]


def _derived(code: str, v: Variant | None, pivot: str) -> dict | None:
    """``{"method", "from"}`` of a variant made from another one; None for one as found (or assembled)."""
    if v is None or v.assembled:
        return None
    try:
        info = VariantInfo.read(v.folder)  # None where the folder (not made yet) has none
    except SchemaError:
        info = None
    if info is not None and info.details.get("aligned") is not None:
        return {"method": "alignment", "from": pivot}
    if info is not None and info.method and info.source_variant and info.source_variant != code:
        return {"method": info.method, "from": info.source_variant}
    for prefix, method in _MADE:
        if v.origin.startswith(prefix):
            return {"method": method, "from": v.origin[len(prefix):].split(" ", 1)[0]}
    return None


def _records(plan: Plan, current: set[str]) -> list[tuple[str, dict]]:
    """``(stage, record)`` of every stage of ``current`` (this run ran it or found it up to date), in plan order."""
    out = []
    for st in plan.stages:
        if st.name not in current:
            continue
        record = _json(plan.root / "stages" / st.name / STAGE_JSON)
        if record is not None:
            out.append((st.name, record))
    return out


def _agreement(plan: Plan, records: dict[str, dict], rows: dict[str, dict]) -> dict | None:
    """The agreement measures, and what they were measured on: ``sample`` when the released items are not
    the judged ones (the curation reads a labelled set of its own), with the variant's released rows."""
    if plan.agreement is None or plan.agreement.name not in records:
        return None
    rep = _json(plan.agreement.output / "agreement.json")
    if rep is None:
        return None
    labels = list(rep.get("labels") or [])
    matrix = ((records.get(plan.agreement.name) or {}).get("facts") or {}).get("matrix")
    keys = ("fleiss_kappa", "krippendorff_alpha", "mean_cohen_kappa", "gwet_ac1", "percent_agreement")
    code = plan.agreement.name.split("-", 1)[1]
    sample = plan.agreement.name not in findings.dataset_stages(plan)
    return {"labels": labels, "annotators": rep.get("n_annotators"), "items": rep.get("n_items"),
            "measures": {k: rep[k] for k in keys if k in rep}, "matrix": matrix,
            "variant": code, "sample": sample,
            "released_rows": sum((rows.get(code) or {}).values()) if rows.get(code) else None,
            "judgements": Path(plan.agreement.inputs["judgements"]).name
            if "judgements" in plan.agreement.inputs else None}


def _status(name: str, current: set[str], stopped: dict | None, stopped_at_gate: bool) -> str:
    if name in current:
        return "done"
    if stopped and stopped.get("stage") == name:
        return "failed"
    if stopped_at_gate and name == "export":
        return "not run (the gate failed)"
    return "not reached"


def build_summary(plan: Plan, *, gate_failing_allowed: bool, stopped_at_gate: bool,
                  current: set[str] | None = None, stopped: dict | None = None) -> dict:
    """The summary of the run whose ``current`` stages (ran or up to date; default every stage) are read;
    ``stopped``: ``{"stage", "error"}`` of the stage that stopped the run."""
    r = plan.recipe
    current = {st.name for st in plan.stages} if current is None else set(current)

    outputs = {st.name: st.output for st in plan.stages}

    def read(name: str, *path: str):  # a file of a stage of this run; any other stage: nothing is read
        return _json(outputs[name].joinpath(*path)) if name in current else None

    qc = _json(plan.qc.output / "qc_report.json") if plan.qc is not None and plan.qc.name in current else None
    licenses = read("licenses", "licenses.json") or []
    results = read("baselines", "results.json") or {}
    model_results = read("lm_eval", "results", "results.json") or {}
    model_name = f"{(model_results.get('settings') or {}).get('model', 'model')} (lm-eval)"
    gate = _gate(qc, gate_failing_allowed)
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
            "derived": _derived(code, v, r.pivot),
            "rows": {s["split"]: s["records"] for s in splits},
            "gate": {"verdict": "not run" if qc is None else ("fail" if code in failing_by_variant else "pass"),
                     "failing": failing_by_variant.get(code, [])},
            "licenses": [{"split": s["split"], "license": s["terms"], "commercial": s.get("commercial_use")}
                         for s in splits],
            "baselines": [{k: row.get(k) for k in ("baseline", "accuracy", "ci_low", "ci_high", "n")}
                          for row in results.get("results", []) if row.get("variant") == code]
            + [{"baseline": model_name, **{k: row.get(k) for k in ("accuracy", "ci_low", "ci_high", "n")}}
               for row in model_results.get("results", []) if row.get("variant") == code],
        })
    records = _records(plan, current)
    stages = [{"name": st.name, "status": _status(st.name, current, stopped, stopped_at_gate), "seconds": None,
               "manifest": f"stages/{st.name}/{STAGE_JSON}" if st.name in current else None}
              for st in plan.stages]
    released = not stopped_at_gate and not stopped and "export" in current
    made = {"export": released, "qc": plan.qc is not None and plan.qc.name in current,
            "licenses": "licenses" in current, "baselines": "baselines" in current,
            "lm_eval": "lm_eval" in current, "disparity": "disparity" in current}
    links = [(title, path) for title, path in (
        ("Dataset card", "export/README.md"), ("Export manifest", "export/manifest.json"),
        ("QC report", "stages/qc/output/qc_report.md"), ("QC report (JSON)", "stages/qc/output/qc_report.json"),
        ("QC JUnit", "stages/qc/output/junit.xml"),
        ("License audit (JSON)", "stages/licenses/output/licenses.json"),
        ("Baselines", "stages/baselines/output/results.md"),
        ("Baselines (JSON)", "stages/baselines/output/results.json"),
        ("Language model (lm-eval)", "stages/lm_eval/output/results/results.md"),
        ("Disparity (PRR)", "stages/disparity/output/disparity/summary.md"),
        ("Disparity not fitted", "stages/disparity/output/not_fitted.txt"),
        ("Release summary (JSON)", "release.json"))
        if path == "release.json" or (made.get(path.split("/")[1] if path.startswith("stages/") else "export")
                                      and (plan.root / path).is_file())]
    if plan.agreement is not None and plan.agreement.name in current:
        rel = (plan.agreement.output / "agreement.json").relative_to(plan.root).as_posix()
        links.insert(2, ("Agreement report", rel.replace(".json", ".md")))
    return {
        "version": 1,
        "dataset": {"name": r.name, "pretty_name": r.pretty_name or r.name, "citation": r.citation,
                    "pivot": r.pivot, "kind": plan.kind},
        "tool": tool_info(),
        "released": released,
        "stopped": None if not stopped else {"stage": stopped["stage"], "error": " ".join(str(stopped["error"]).split())},
        "stages": stages,
        "gate": gate,
        "variants": variants,
        "drops": findings.drops(plan, records),
        "warnings": findings.warnings(plan, records),
        "agreement": _agreement(plan, dict(records), {v["variant"]: v["rows"] for v in variants}),
        "model": None if not model_results else {
            "name": model_name, "settings": {k: (model_results.get("settings") or {}).get(k)
                                             for k in ("model", "limit", "seed", "num_fewshot", "selection")},
            "disparity": ((dict(records).get("disparity") or {}).get("facts") or {}).get("models")},
        "links": [{"title": t, "path": p} for t, p in links],
        "superseded": superseded(plan.root),
        "not_run": dict(plan.not_run),  # stage -> why the recipe has it not run (no `baselines:` key)
    }


def write_summary(plan: Plan, *, gate_failing_allowed: bool, stopped_at_gate: bool,
                  current: set[str] | None = None, stopped: dict | None = None) -> dict:
    """Write ``release.json`` and ``report.html`` into the release folder; return the summary."""
    from .report import render_report

    summary = build_summary(plan, gate_failing_allowed=gate_failing_allowed, stopped_at_gate=stopped_at_gate,
                            current=current, stopped=stopped)
    write_json_atomic(plan.root / "release.json", summary)
    write_text_atomic(plan.root / "report.html", render_report(summary, base=plan.root))
    return summary
