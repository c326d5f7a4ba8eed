"""``builder/export/manifest.py`` where mutation showed the tests free (issue 27): every key of an export's
``manifest.json``, a digest given with an entry kept, the card's reports carried, and the file's bytes."""
from __future__ import annotations

import hashlib
import json
from types import SimpleNamespace

from builder.export.manifest import write_manifest
from builder.export.published import SCHEMA
from schemas.runtime.provenance import tool_version


class _Terms:
    def __init__(self, **d):
        self.d, self.split = d, d.get("split")

    def to_dict(self):
        return dict(self.d)


def _source(reports):
    audit = SimpleNamespace(overall=_Terms(license="CC-BY-SA-4.0", commercial=True),
                            splits=[_Terms(split="dev", license="CC-BY-SA-4.0")], override=None)
    return SimpleNamespace(name="sib-x", pretty_name="SIB x", dataset=SimpleNamespace(kind="topic"), audit=audit,
                           published=SCHEMA["sib200"], build_info={"seed": 3, "counts": [1], "other": "left out"},
                           reports=reports)


def test_the_export_manifest_holds_every_key_and_keeps_a_given_digest(tmp_path):
    (tmp_path / "README.md").write_text("card\n", encoding="utf-8")
    (tmp_path / "eng_Latn").mkdir()
    (tmp_path / "eng_Latn" / "dev.parquet").write_bytes(b"PAR1")
    files = {"eng_Latn/dev.parquet": {"bytes": 4, "sha256": "given", "rows": 2}, "README.md": {}}
    reports = {"qc_report.json": {"passed": True}, "agreement.json": None, "baselines": {"n": 1}}
    write_manifest(tmp_path, _source(reports), {"eng_Latn": {"dev": 2}}, files, ["sib_eng_Latn"])
    text = (tmp_path / "manifest.json").read_bytes().decode("utf-8")
    assert "\r" not in text and text.endswith("\n")
    assert json.loads(text) == {
        "name": "sib-x", "pretty_name": "SIB x", "kind": "topic", "generator": f"mc-dataset-builder {tool_version()}",
        "schema": "sib200",
        "files": {"eng_Latn/dev.parquet": {"bytes": 4, "sha256": "given", "rows": 2},
                  "README.md": {"bytes": 5, "sha256": hashlib.sha256(b"card\n").hexdigest()}},
        "variants": {"eng_Latn": {"dev": 2}},
        "terms": {"license": "CC-BY-SA-4.0", "commercial": True},
        "splits": [{"split": "validation", "license": "CC-BY-SA-4.0"}],  # the published split name
        "license_override": None, "lm_eval_tasks": ["sib_eng_Latn"], "build": {"seed": 3, "counts": [1]},
        "card": {"agreement": None, "qc": {"passed": True}, "baselines": {"n": 1}, "models": None,
                 "gate_failing_allowed": False}}


def test_a_release_that_let_a_failing_gate_through_says_so(tmp_path):
    write_manifest(tmp_path, _source({}), {}, {}, [], gate_failing_allowed=True)
    assert json.loads((tmp_path / "manifest.json").read_text())["card"]["gate_failing_allowed"] is True


def test_the_override_the_audit_carries_is_written_whole(tmp_path):
    source = _source({})
    source.audit.override = SimpleNamespace(to_dict=lambda: {"terms": "CC-BY-SA-4.0", "reason": "checked"})
    write_manifest(tmp_path, source, {}, {}, [])
    written = json.loads((tmp_path / "manifest.json").read_text(encoding="utf-8"))
    assert written["license_override"] == {"terms": "CC-BY-SA-4.0", "reason": "checked"}
