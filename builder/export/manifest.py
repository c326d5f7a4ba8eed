"""The export's manifest step: ``manifest.json`` lists every file with its bytes and sha256.

It also records what the export is (name, kind, published schema, the
generator that says it is an earlier export, :func:`.writer.is_export`), the
rows per variant and split, the terms of the release and of every split (the
audit's), the written override, the lm-eval tasks and the build's counts and
drops. ``dumps_json`` sorts keys, so the file is the same for the same input.
"""
from __future__ import annotations

from pathlib import Path

from schemas.io import dumps_json, sha256_file
from schemas.runtime.provenance import tool_version

#: The card's reports by their key in ``ExportInput.reports`` -> their key in the export manifest's ``card``
#: (what a re-export reads back: :func:`builder.export.writer.carried_reports`).
CARD_REPORTS = {"agreement.json": "agreement", "qc_report.json": "qc", "baselines": "baselines",
                "models": "models"}

#: The keys of the build's manifest that the export keeps (``build``).
BUILD_KEYS = ("seed", "counts", "dropped", "sources", "description")


def write_manifest(stage: Path, source, sizes: dict[str, dict[str, int]], files: dict[str, dict],
                   tasks: list[str], *, gate_failing_allowed: bool = False) -> None:
    """Write ``stage/manifest.json`` for ``source`` (a :class:`.writer.ExportInput`).

    ``files``: export-relative path -> entry; entries without a ``sha256`` (the card, license and
    task files) are completed here from the staged file. ``sizes``: variant -> split -> rows.
    ``card`` carries the reports the card was rendered from (agreement, qc, baselines) and whether it
    says the gate failed and the release went ahead, so a re-export renders the same card
    (:func:`.writer.carried_reports` reads them back).
    """
    for rel, entry in files.items():
        if "sha256" not in entry:
            p = stage / rel
            entry.update(bytes=p.stat().st_size, sha256=sha256_file(p))
    audit, published, build_info = source.audit, source.published, source.build_info
    manifest = {
        "name": source.name, "pretty_name": source.pretty_name, "kind": source.dataset.kind,
        "generator": f"mc-dataset-builder {tool_version()}",
        "schema": published.name,
        "files": files,
        "variants": sizes,
        "terms": audit.overall.to_dict(),
        "splits": [dict(s.to_dict(), split=published.split_name(s.split)) for s in audit.splits],
        "license_override": None if audit.override is None else audit.override.to_dict(),
        "lm_eval_tasks": tasks,
        "build": {k: build_info[k] for k in BUILD_KEYS if k in build_info},
        "card": {**{kind: source.reports.get(key) for key, kind in CARD_REPORTS.items()},
                 "gate_failing_allowed": gate_failing_allowed},
    }
    (stage / "manifest.json").write_text(dumps_json(manifest), encoding="utf-8", newline="\n")
