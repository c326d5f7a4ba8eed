"""The release calls the tasks (issue 22): one license for the variants it makes, each input hashed once,
each split parsed once per stage, the recipe's pivot reaching the gate, one drop ledger.

These run the release in this process (``make_plan`` + ``run_release`` with one worker), so the
counters below see every hash and every parse the stages make.
"""
from __future__ import annotations

import collections
import json
import shutil
from pathlib import Path

import pytest

from builder.release.pipeline import run_release
from builder.release.plan import make_plan
from builder.release.recipe import load_release_recipe

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
MINI = DATA / "release" / "mini-release.yaml"


def _recipe(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "recipe.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def _hindi(tmp_path: Path) -> Path:
    """A copy of the shipped Hindi variant (no variant.json: it declares no license)."""
    folder = tmp_path / "data" / "hin_Deva"
    shutil.copytree(DATA / "sib200" / "annotated" / "hin_Deva", folder)
    assert not (folder / "variant.json").exists()
    return folder


def _release(recipe: Path, out: Path):
    plan = make_plan(load_release_recipe(recipe), out, jobs=1, quiet=True)
    return plan, run_release(plan, say=lambda line: None)


def _romanized_release(tmp_path: Path, folder: Path, qc: str = "false") -> Path:
    """A release of ``folder`` (hin_Deva) and its romanized copy, recipe license CC-BY-4.0; its folder."""
    recipe = _recipe(tmp_path, f"""version: 1
name: lic
pivot: hin_Deva
license: CC-BY-4.0
variants:
  - dataset: {folder}
  - romanize: {{from: hin_Deva}}
qc: {qc}
""")
    out = tmp_path / "rel"
    _release(recipe, out)
    return out


def _terms(out: Path) -> dict[str, set[str]]:
    summary = json.loads((out / "release.json").read_text(encoding="utf-8"))
    return {v["variant"]: {s["license"] for s in v["licenses"]} for v in summary["variants"]}


def test_a_romanized_variant_gets_the_recipe_license_not_the_default(tmp_path):
    out = _romanized_release(tmp_path, _hindi(tmp_path))
    assert _terms(out) == {"hin_Deva": {"CC-BY-4.0"}, "hin_Latn": {"CC-BY-4.0"}}
    card = (out / "export" / "README.md").read_text(encoding="utf-8")
    assert "license: cc-by-4.0" in card.lower() and "cc-by-sa" not in card.lower()
    made = json.loads((out / "stages" / "romanize-hin_Latn" / "output" / "hin_Latn" / "variant.json")
                      .read_text(encoding="utf-8"))
    assert made["license"] == "CC-BY-4.0" and made["license_from"] == "release recipe"


def test_a_source_that_declares_its_license_passes_it_to_the_romanized_variant(tmp_path):
    folder = _hindi(tmp_path)
    (folder / "variant.json").write_text(json.dumps({"variant": "hin_Deva", "kind": "topic",
                                                     "license": "CC-BY-SA-4.0"}), encoding="utf-8")
    out = _romanized_release(tmp_path, folder)
    assert _terms(out) == {"hin_Deva": {"CC-BY-SA-4.0"}, "hin_Latn": {"CC-BY-SA-4.0"}}


class _Counters:
    """Files read and hashed (each time its bytes go through sha256), and split files parsed by stage."""

    def __init__(self, monkeypatch):
        import sys

        import schemas.dataset
        import schemas.io
        from builder.release import pipeline

        self.hashes: collections.Counter = collections.Counter()
        self.parses: collections.Counter = collections.Counter()
        self.stage = None
        real_hash, real_read = schemas.io._sha256_bytes_of, schemas.dataset.read_table

        def hashed(path, *args, **kwargs):
            self.hashes[Path(path).resolve()] += 1
            return real_hash(path, *args, **kwargs)

        def read(path, *args, **kwargs):
            self.parses[(self.stage, Path(path).resolve())] += 1
            return real_read(path, *args, **kwargs)

        monkeypatch.setattr(schemas.io, "_sha256_bytes_of", hashed)
        for module in list(sys.modules.values()):
            if getattr(module, "read_table", None) is real_read:
                monkeypatch.setattr(module, "read_table", read)
        real_timed = pipeline._timed

        def timed(stage):
            self.stage = stage.name
            try:
                return real_timed(stage)
            finally:
                self.stage = None

        monkeypatch.setattr(pipeline, "_timed", timed)


def test_a_release_hashes_each_file_once_and_parses_each_split_once_per_stage(tmp_path, monkeypatch):
    counters = _Counters(monkeypatch)
    out = tmp_path / "rel"
    _release(MINI, out)
    # every stage asks one owner for a file's digest: the release's records, extend's parallel files,
    # the manifests the readers verify; an input an earlier stage made is named by that stage's digest
    inputs = {p for p in counters.hashes if out not in p.parents}
    assert {p.name for p in inputs} >= {"nqo_Nkoo.dev", "nqo_Nkoo.devtest", "sib_small_long.csv", "labels.txt"}
    assert max(counters.hashes.values()) == 1, {p: n for p, n in counters.hashes.items() if n > 1}
    parsed = {k: n for k, n in counters.parses.items() if n > 1}
    assert not parsed, parsed
    assert {stage for stage, _ in counters.parses} >= {"qc", "licenses", "baselines", "export"}
    # the gate's record names the dataset by the dataset stage and that stage's recorded digest
    qc = json.loads((out / "stages" / "qc" / "stage.json").read_text(encoding="utf-8"))
    made = json.loads((out / "stages" / "dataset" / "stage.json").read_text(encoding="utf-8"))
    assert qc["inputs"]["dataset"] == {"path": "stages/dataset/output", "stage": "dataset",
                                       "sha256": made["output"]["sha256"]}
    # a second run with nothing changed hashes no file (each one's stat stamp is the one the first run
    # recorded in run.json: builder.release.stages.Digests) and parses no split
    counters.hashes.clear()
    counters.parses.clear()
    _, result = _release(MINI, out)
    assert {s for _, s, _ in result.stages} == {"skipped"}
    assert not counters.hashes, counters.hashes
    assert not counters.parses


def test_the_recipe_pivot_reaches_the_gate_with_a_qc_config(tmp_path):
    config = tmp_path / "qc.yaml"
    config.write_text("pivot: eng_Latn\n", encoding="utf-8")
    out = _romanized_release(tmp_path, _hindi(tmp_path), qc=f"{{config: {config}}}")
    report = json.loads((out / "stages" / "qc" / "output" / "qc_report.json").read_text(encoding="utf-8"))
    assert report["pivot"] == "hin_Deva"


def test_the_drop_ledger_sums_what_every_stage_recorded(tmp_path):
    out = tmp_path / "rel"
    plan, _ = _release(MINI, out)
    summary = json.loads((out / "release.json").read_text(encoding="utf-8"))
    recorded = collections.Counter()
    for st in plan.stages:
        record = json.loads((out / "stages" / st.name / "stage.json").read_text(encoding="utf-8"))
        for d in record["facts"].get("drops", []):
            recorded[(d["source"], d["reason"])] += d["count"]
    assert {(d["source"], d["reason"]): d["count"] for d in summary["drops"]} == dict(recorded)
    log = json.loads((out / "stages" / "curate-eng_Latn" / "output" / "curation_log.json").read_text(encoding="utf-8"))
    curation = {d["reason"]: d["count"] for d in summary["drops"] if d["source"] == "curation"}
    assert sum(curation.values()) == log["items_in"] - log["items_out"]
    assert curation == {s["step"]: s["items_dropped"] for s in log["steps"] if s["items_dropped"]}


@pytest.mark.parametrize("field", ["chdir", "redirect_stdout", "CliRunner", "builder.cli"])
def test_the_release_never_drives_the_cli(field):
    for path in (ROOT / "builder" / "release").glob("*.py"):
        assert field not in path.read_text(encoding="utf-8"), path


def _romanize_plan(tmp_path: Path, folder: Path, entry: str, quiet: bool = True):
    """The plan of a release of the dataset ``folder`` and a romanize ``entry`` (a flow mapping)."""
    recipe = _recipe(tmp_path, f"""version: 1
name: rom
pivot: {folder.name}
license: CC-BY-4.0
variants:
  - dataset: {folder}
  - romanize: {entry}
""")
    return make_plan(load_release_recipe(recipe), tmp_path / "rel", jobs=1, quiet=quiet)


def _romanize_stage(tmp_path: Path, folder: Path, entry: str, quiet: bool = True):
    """The plan's romanize stage for ``entry`` over the dataset ``folder``."""
    (stage,) = [s for s in _romanize_plan(tmp_path, folder, entry, quiet).stages if s.name.startswith("romanize-")]
    return stage


def test_the_romanize_stage_runs_with_the_entrys_scheme_and_leftover_policy(tmp_path, monkeypatch, capsys):
    # U+A8F2 (Devanagari Extended spacing candrabindu) is left as it is by every scheme: a leftover
    folder = _hindi(tmp_path)
    train = folder / "train.tsv"
    lines = train.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[1] = lines[1].rstrip("\n") + " \ua8f2\n"
    train.write_text("".join(lines), encoding="utf-8")
    stage = _romanize_stage(tmp_path, folder, "{from: hin_Deva, scheme: iast, allow_leftover: true}", quiet=False)
    # what the stage's record holds (a change to any of these runs it again), and it runs beside others
    assert stage.options == {"scheme": "iast", "allow_leftover": True, "license": "CC-BY-4.0"}
    assert stage.inputs == {"source": folder} and stage.parallel is True
    monkeypatch.setenv("CI", "true")  # progress as plain lines
    stage.action(tmp_path / "out")
    text = (tmp_path / "out" / "hin_Latn" / "train.tsv").read_text(encoding="utf-8")
    assert "\ua8f2" in text                       # kept, as the entry allows
    assert "ṃ" in text and "ṁ" not in text        # the anusvara in IAST, not in ISO 15919 (the default)
    assert "romanize: 1004/1004 rows romanized (test)" in capsys.readouterr().err  # the release's reporter


def test_the_romanize_stage_records_the_scheme_it_runs(tmp_path):
    # without a scheme the romanizer takes the script's first; the stage's record names that one
    hindi = _romanize_stage(tmp_path / "h", _hindi(tmp_path / "h"), "{from: hin_Deva}")
    urdu = tmp_path / "u" / "data" / "urd_Arab"
    shutil.copytree(DATA / "sib200" / "annotated" / "urd_Arab", urdu)
    assert hindi.options["scheme"] == "iso"
    assert _romanize_stage(tmp_path / "u", urdu, "{from: urd_Arab}").options["scheme"] == "uroman"


def test_a_romanized_multiple_choice_variant_is_multiple_choice(tmp_path):
    # the romanized copy has its source's kind: an mc release stays one kind of data
    folder = tmp_path / "data" / "hin_Deva"
    shutil.copytree(DATA / "qc" / "pivot" / "hin_Deva", folder)
    plan = _romanize_plan(tmp_path, folder, "{from: hin_Deva}")
    assert plan.kind == "mc" and {v.kind for v in plan.variants.values()} == {"mc"}
    assert plan.variants["hin_Latn"].origin == "romanized from hin_Deva"
