"""Each crafted set fails the check made for it, with its reason; the clean set passes everything."""
from __future__ import annotations

import importlib
import json
import pkgutil
import shutil

import pandas as pd
import pytest

import qc
from schemas.dataset import load_dataset_dir
from qc.config import QCConfigError, default_config, load_config, merge_config
from qc.gate import run_gate
from qc.registry import CHECKS

from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "data"
QC_DATA = DATA / "qc"


def _gate(name, **kw):
    return run_gate(load_dataset_dir(QC_DATA / name), load_config(), jobs=1, **kw)


def _blocking(report):
    return {(r.variant, r.check): r.reason for r in report.failures}


@pytest.fixture(scope="module")
def clean_report():
    return _gate("clean")


def test_clean_set_passes_every_gate(clean_report):
    assert clean_report.passed, _blocking(clean_report)
    checks = {r.check for r in clean_report.results if not r.skipped}
    assert {"overlap_ttest:token_share", "bow_probe", "sliding_window", "answer_balance", "length_bias:longest",
            "duplicates:passages", "leakage:passages", "empty_fields", "script_consistency", "license"} <= checks


@pytest.mark.parametrize("name, expected", [
    ("copy_passage", {"overlap_ttest:token_share": "separates", "overlap_ttest:bigram_share": "separates",
                      "overlap_ttest:lcs_substring": "separates", "sliding_window": "above_chance"}),
    ("longest", {"length_bias:longest": "correct_is_longest"}),
    ("always_a", {"answer_balance": "unbalanced"}),
    ("leakage", {"leakage:passages": "shared_across_splits", "leakage:questions": "shared_across_splits"}),
])
def test_crafted_set_fails_its_check(name, expected):
    report = _gate(name)
    assert not report.passed
    failing = {c: reason for (_, c), reason in _blocking(report).items()}
    for check, reason in expected.items():
        assert failing.get(check) == reason, (check, failing)


def test_always_a_fails_only_balance():
    assert set(_blocking(_gate("always_a"))) == {("eng_Latn", "answer_balance")}


def test_pivot_moved_answer_lost_item_and_wrong_script():
    report = _gate("pivot")
    # the fixture's variants are copies of the English text, which the untranslated check fails as it should
    assert _blocking(report) == {("fra_Latn", "pivot_consistency"): "answer_moved",
                                 ("fra_Latn", "untranslated"): "untranslated",
                                 ("hin_Deva", "untranslated"): "untranslated",
                                 ("hin_Deva", "script_consistency"): "wrong_script"}
    fra = next(r for r in report.results if r.variant == "fra_Latn" and r.check == "pivot_consistency")
    assert (fra.extra["missing"], fra.extra["extra"], fra.extra["changed"]) == (1, 0, 1)


def test_contamination_against_a_test_set(tmp_path):
    ds = load_dataset_dir(QC_DATA / "leakage")
    train_only = type(ds)(root=ds.root, kind=ds.kind, tables={"eng_Latn": {"train": ds.tables["eng_Latn"]["train"]}})
    report = run_gate(train_only, load_config(), against=load_dataset_dir(QC_DATA / "always_a"), jobs=1)
    r = next(r for r in report.results if r.check == "contamination")
    assert (r.passed, r.reason) == (False, "test_ngrams_in_train")
    leaked = ds.tables["eng_Latn"]["train"].query("passage_id == 'train-leak'")["passage"].iloc[0]
    assert leaked[:80] in r.extra["examples"]
    # the template also gives one clean passage a 13-gram of the test set by chance (same name, city, job)
    assert r.extra["contaminated"] == 2 and r.extra["passages"] == 61
    clean = run_gate(load_dataset_dir(QC_DATA / "clean"), load_config(),
                     against=load_dataset_dir(QC_DATA / "copy_passage"), jobs=1)
    assert next(r for r in clean.results if r.check == "contamination").passed


def test_empty_fields_and_missing_license(tmp_path):
    rows = pd.read_json(QC_DATA / "clean" / "test.jsonl", lines=True)
    rows.loc[0, "question"] = "  "
    rows.loc[1, "license"] = "unknown"
    rows.to_json(tmp_path / "test.jsonl", orient="records", lines=True)
    report = run_gate(load_dataset_dir(tmp_path), load_config(), jobs=1)
    assert _blocking(report) == {("eng_Latn", "empty_fields"): "empty_field", ("eng_Latn", "license"): "no_license"}


def test_topic_data_from_sib200():
    ds = load_dataset_dir(DATA / "sib200" / "annotated", variants=["eng_Latn", "fra_Latn", "amh_Ethi"])
    report = run_gate(ds, load_config(), jobs=1)
    checks = {r.check for r in report.results}
    assert "label_distribution" in checks and "overlap_ttest:token_share" not in checks
    lab = next(r for r in report.results if r.check == "label_distribution" and r.variant == "eng_Latn")
    assert lab.passed and lab.value >= 1 and lab.p_value is not None
    pivot = [r for r in report.results if r.check == "pivot_consistency" and not r.skipped]
    assert pivot and all(r.passed for r in pivot)
    script = next(r for r in report.results if r.check == "script_consistency" and r.variant == "amh_Ethi")
    assert script.passed and script.value > 0.9


def test_parallel_run_gives_the_same_report(monkeypatch):
    ds = load_dataset_dir(QC_DATA / "pivot")
    one = run_gate(ds, load_config(), jobs=1).to_dict()
    two = run_gate(ds, load_config(), jobs=2).to_dict()
    assert one == two
    lazy = load_dataset_dir(QC_DATA / "pivot", lazy=True)  # each worker reads its own variant
    assert run_gate(lazy, load_config(), jobs=2).to_dict() == one
    assert run_gate(lazy, load_config(), jobs=1).to_dict() == one
    # where fork is not available (macOS, Windows), the tasks travel pickled, lazy tables included
    monkeypatch.setattr("schemas.runtime.fanout.multiprocessing.get_all_start_methods", lambda: ["spawn"])
    assert run_gate(lazy, load_config(), jobs=2).to_dict() == one


def test_every_check_module_is_registered_and_configured():
    modules = {m.name for m in pkgutil.iter_modules(qc.__path__)}
    with_run = {n for n in modules if hasattr(importlib.import_module(f"qc.{n}"), "run")}
    assert with_run == {m.__name__.split(".")[-1] for m in CHECKS.values()}
    assert set(default_config()["checks"]) == set(CHECKS)
    for name, module in CHECKS.items():
        assert set(module.KINDS) <= {"mc", "topic"}, name


def test_config_override_and_validation(tmp_path):
    cfg = merge_config(default_config(), {"checks": {"answer_balance": {"gate": False}}})
    assert cfg["checks"]["answer_balance"]["gate"] is False
    report = run_gate(load_dataset_dir(QC_DATA / "always_a"), cfg, jobs=1)
    assert report.passed and any(r.check == "answer_balance" and not r.passed for r in report.results)
    with pytest.raises(QCConfigError, match="field decision.alpah: unknown key 'alpah' \\(did you mean 'alpha'\\?\\); "
                                            "allowed: alpha, confidence, method, pivot_share"):
        load_config(QC_DATA / "bad_config.yaml")
    for bad, message in [({"checks": {"bow_probe": {"margin": "big"}}},
                          "field checks.bow_probe.margin: expected a number >= 0, found 'big'"),
                         ({"checks": {"bow_probe": {"margin": 2}}},
                          "field checks.bow_probe.margin: expected a number between 0 and 1, found 2"),
                         ({"decision": {"alpha": 1.0}},
                          "field decision.alpha: expected a number between 0 and 1 \\(exclusive\\), found 1.0"),
                         ({"decision": {"pivot_share": 0}},
                          "field decision.pivot_share: expected a number between 0 and 1 \\(exclusive\\), found 0"),
                         ({"decision": {"method": "fdr"}},
                          "field decision.method: expected one of holm, fdr_bh, bonferroni, found 'fdr'"),
                         ({"checks": {"overlap_ttest": {"alpha": 0.05}}},
                          "field checks.overlap_ttest.alpha: unknown key 'alpha'"),
                         ({"version": 1}, "field version: expected 2 \\(the version this toolkit reads\\), "
                                          "found 1; version 2"),
                         ({"version": 9}, "field version: expected 2 \\(the version this toolkit reads\\), found 9$"),
                         ({"checkz": {}}, "field checkz: unknown key 'checkz' \\(did you mean 'checks'\\?\\)")]:
        with pytest.raises(QCConfigError, match=message):
            merge_config(default_config(), bad)
    assert QCConfigError("x").exit_code == 2


@pytest.mark.parametrize("check", ["duplicates", "leakage", "label_conflict"])
@pytest.mark.parametrize("override, message", [
    ({"bands": 0}, "field checks.{c}.bands: expected an integer >= 1, found 0"),
    ({"bands": 2.0}, "field checks.{c}.bands: expected an integer >= 1, found 2.0"),
    ({"bands": 128, "num_perm": 64}, "field checks.{c}.num_perm: expected a multiple of checks.{c}.bands \\(128\\), "
                                     "found 64"),
    ({"bands": 10, "num_perm": 64}, "field checks.{c}.num_perm: expected a multiple of checks.{c}.bands \\(10\\), "
                                    "found 64"),
    ({"num_perm": 0}, "field checks.{c}.num_perm: expected an integer >= 1, found 0"),
    ({"shingle": 0}, "field checks.{c}.shingle: expected an integer >= 1, found 0"),
])
def test_the_minhash_parameters_of_every_check_that_searches_near_texts_are_checked(check, override, message):
    """bands 0 divided by zero in the middle of a run (a traceback, exit 1 as if the gate had failed), and
    bands that do not cut the signature into whole rows searched other texts than configured."""
    with pytest.raises(QCConfigError, match=message.format(c=check)):
        merge_config(default_config(), {"checks": {check: override}})
    good = merge_config(default_config(), {"checks": {check: {"bands": 4, "num_perm": 64, "shingle": 3}}})
    assert {k: good["checks"][check][k] for k in ("bands", "num_perm", "shingle")} == {"bands": 4, "num_perm": 64,
                                                                                      "shingle": 3}


def test_a_shingle_of_untranslated_items_below_one_character_is_refused():
    with pytest.raises(QCConfigError, match="field checks.untranslated.shingle: expected an integer >= 1, found 0"):
        merge_config(default_config(), {"checks": {"untranslated": {"shingle": 0}}})


def test_defaults_cite_a_source_for_every_threshold():
    text = (qc.__path__[0] + "/defaults.yaml")
    lines = open(text, encoding="utf-8").read().splitlines()
    numeric = [ln for ln in lines if ":" in ln and ln.split(":", 1)[1].split("#")[0].strip()
               .replace(".", "", 1).isdigit()]
    skip = {"version", "shingle", "bands"}
    for ln in numeric:
        key = ln.split(":", 1)[0].strip()
        assert key in skip or "#" in ln, f"no source comment: {ln}"


def test_near_duplicate_passage_is_found(tmp_path):
    rows = pd.read_json(QC_DATA / "clean" / "test.jsonl", lines=True)
    first = rows[rows.passage_id == rows.passage_id.iloc[0]].copy()
    first["passage_id"] = "test-copy"
    first["question_id"] = first["question_id"] + "-copy"
    first["passage"] = first["passage"].str.replace(".", "!", n=1, regex=False)  # one character changed
    pd.concat([rows, first]).to_json(tmp_path / "test.jsonl", orient="records", lines=True)
    report = run_gate(load_dataset_dir(tmp_path), load_config(), jobs=1)
    r = next(r for r in report.results if r.check == "duplicates:passages")
    assert (r.passed, r.reason, r.extra["exact"], r.extra["near_pairs"]) == (False, "near_duplicate", 0, 1)


def test_exact_duplicates_fail_with_their_count_and_ids(tmp_path):
    """A failing duplicates row says how many and which, not the near-duplicate share (0.000)."""
    rows = pd.read_json(QC_DATA / "clean" / "test.jsonl", lines=True)
    first = rows[rows.passage_id == rows.passage_id.iloc[0]].copy()
    first["passage_id"] = "test-copy"
    first["question_id"] = first["question_id"] + "-copy"
    first["question"] = first["question"] + " Really?"  # the passage is copied, the questions are not
    pd.concat([rows, first]).to_json(tmp_path / "test.jsonl", orient="records", lines=True)
    report = run_gate(load_dataset_dir(tmp_path), load_config(), jobs=1)
    r = next(r for r in report.results if r.check == "duplicates:passages")
    assert (r.passed, r.reason, r.value, r.threshold) == (False, "exact_duplicate", 1, 0)
    assert r.extra["exact_examples"] == [["test:test-p000", "test:test-copy"]]
    assert "1 exact duplicate(s) (max 0), first: test:test-p000 = test:test-copy" in r.detail
    from qc.report import to_markdown

    row = next(ln for ln in to_markdown(report).splitlines() if ln.startswith(f"| {r.variant} | `duplicates:"))
    assert "| `duplicates:passages` | exact_duplicate | — | — | 1 | 0 |" in row  # the failing-checks table
    assert "test:test-p000 = test:test-copy" in row and "0.000" not in row


def test_an_unknown_script_code_fails_the_script_check(tmp_path):
    """nqo_Nkko: Unicode knows N'Ko as Nkoo, so the gate cannot vouch for the script: FAIL, not skip."""
    rows = pd.read_json(QC_DATA / "clean" / "test.jsonl", lines=True).head(8)
    for code in ("eng_Latn", "nqo_Nkko"):
        (tmp_path / code).mkdir()
        rows.assign(language=code).to_json(tmp_path / code / "test.jsonl", orient="records", lines=True)
    report = run_gate(load_dataset_dir(tmp_path), load_config(), jobs=1)
    r = next(r for r in report.results if r.check == "script_consistency" and r.variant == "nqo_Nkko")
    assert (r.passed, r.skipped, r.reason) == (False, False, "unknown_script")
    assert "unknown ISO 15924 script code 'Nkko'" in r.detail
    assert ("nqo_Nkko", "script_consistency") in _blocking(report)
    eng = next(r for r in report.results if r.check == "script_consistency" and r.variant == "eng_Latn")
    assert eng.passed


def test_answer_balance_effect_is_the_largest_deviation():
    from qc.answer_balance import position_test

    r = position_test([1] * 15 + [2] * 40 + [3] * 25 + [4] * 20)
    assert r["position"] == 2 and r["deviation"] == pytest.approx(0.15)
    low, high = r["ci"]
    assert low < 0.15 < high and low > 0  # the interval of B's share (0.40) minus 1/4
    tie = position_test([1] * 10 + [2] * 40 + [3] * 40 + [4] * 10)
    assert tie["position"] == 1 and tie["deviation"] == pytest.approx(-0.15)  # first of the largest


@pytest.mark.parametrize("lazy", [False, True])
def test_each_variants_checks_get_the_gates_pivot_seed_and_confidence(monkeypatch, lazy):
    """What the gate hands the checks of each variant (``qc.gate._work``): the configured pivot's name and
    tables (none for a variant when the dataset lacks the pivot), the seed and the interval level."""
    import qc.gate as gate

    seen = {}
    monkeypatch.setattr(gate, "run_variant", lambda data, config: seen.setdefault(data.variant, data) and [])
    root = DATA / "sib200" / "annotated"
    config = merge_config(default_config(), {"pivot": "hin_Deva", "seed": 7, "decision": {"confidence": 0.9}})
    run_gate(load_dataset_dir(root, variants=["hin_Deva", "mar_Deva"], lazy=lazy), config, jobs=1)
    data = seen["mar_Deva"]
    assert (data.pivot_name, data.seed, data.confidence, data.kind) == ("hin_Deva", 7, 0.9, "topic")
    assert set(data.pivot) == set(data.tables) and len(data.pivot["test"]) == len(data.tables["test"])
    first = (root / "mar_Deva" / "test.tsv").read_text(encoding="utf-8").splitlines()[1].split("\t")
    assert data.tables["test"]["text"].iloc[0] in first
    seen.clear()
    run_gate(load_dataset_dir(root, variants=["mar_Deva"], lazy=lazy), config, jobs=1)
    assert seen["mar_Deva"].pivot is None and seen["mar_Deva"].pivot_name == "hin_Deva"


def test_a_worker_sent_a_variants_tables_checks_those(monkeypatch):
    """On Ray the driver reads each variant and sends its tables with the task; the worker checks them."""
    import qc.gate as gate
    from schemas.dataset import LoadedDataset

    seen = []
    monkeypatch.setattr(gate, "run_variant", lambda data, config: seen.append(data) or [])
    tables = {"test": pd.DataFrame({"index_id": [1], "category": ["x"], "text": ["sent"]})}
    gate._work((LoadedDataset(root="r", kind="topic", tables={}), default_config(), None),
               ("eng_Latn", None, None, tables))
    assert seen[0].tables == tables and seen[0].pivot is None


# -- qc_report.json: the fields docs/qc.md shows, no more and no fewer -----------------------------------------

def _documented_report() -> dict:
    """The first JSON block under docs/qc.md's "## Reports", read with the docs tests' own block parser."""
    from docs.docs_blocks import fenced_blocks  # tests/docs (tests/ is on sys.path: tests/conftest.py)

    text = (Path(__file__).resolve().parents[2] / "docs" / "qc.md").read_text(encoding="utf-8")
    reports = text[:text.index("## Reports")].count("\n") + 1  # the heading's line
    block = next(b for b in fenced_blocks(text, "docs/qc.md") if b.lang == "json" and b.line > reports)
    return json.loads("\n".join(block.body))


def test_qc_report_json_has_the_fields_the_docs_show_with_what_produced_it(tmp_path):
    doc = _documented_report()
    root = tmp_path / "release-1.0"
    shutil.copytree(QC_DATA / "pivot", root)
    against = tmp_path / "benchmark"
    shutil.copytree(QC_DATA / "clean", against)
    report = run_gate(load_dataset_dir(root), load_config(), against=load_dataset_dir(against), jobs=1)
    got = json.loads(json.dumps(report.to_dict()))
    assert sorted(got) == sorted(doc)
    assert (got["input"], got["contamination_against"], got["kind"], got["variants"]) == (
        "release-1.0", "benchmark", "mc", ["eng_Latn", "fra_Latn", "hin_Deva"])
    assert (got["config_version"], got["seed"], got["pivot"]) == (2, 0, "eng_Latn")
    assert sorted(got["decision"]) == sorted(doc["decision"])
    assert got["failed"] == [{"variant": r.variant, "check": r.check, "reason": r.reason} for r in report.failures]
    assert got["failed"] and all(sorted(f) == sorted(doc["failed"][0]) for f in got["failed"])
    [token] = [c for c in got["checks"] if (c["variant"], c["check"]) == ("hin_Deva", "overlap_ttest:token_share")]
    assert sorted(token) == sorted(doc["checks"][0])
    assert token["gate"] is True and token["threshold"] == token["floor"] and token["family"] in ("pivot", "variants")
    assert token["effect_name"] == "Hedges' g"
    assert token["paper"] and token["family_alpha"] == got["decision"]["families"][token["family"]]["alpha"]
    assert sorted(got["pivot_comparison"][0]) == sorted(doc["pivot_comparison"][0])
    derived = run_gate(load_dataset_dir(DATA / "export" / "sib_small"), load_config(), jobs=1).to_dict()
    assert derived["source_comparison"] == [{"variant": "hin_Latn", "source_variant": "hin_Deva",
                                             "inherited": ["label_distribution"], "introduced": []}]
    assert sorted(derived["source_comparison"][0]) == sorted(doc["source_comparison"][0])
    assert derived["contamination_against"] is None and derived["input"] == "sib_small"


def test_the_gate_compares_each_question_with_its_answers_against_the_pivot(tmp_path):
    # the crafted pivot set: fra_Latn repeats the pivot's English almost everywhere (58 of its 59 units); an answer
    # translated makes that question differ from the pivot's, so the gate must read the pivot's answers too
    def untranslated(root):
        report = run_gate(load_dataset_dir(root), load_config(), jobs=1)
        [got] = [r for r in report.results if r.variant == "fra_Latn" and r.check == "untranslated"]
        return got.extra["identical"], got.extra["units"]

    root = tmp_path / "pivot"
    shutil.copytree(QC_DATA / "pivot", root)
    assert untranslated(root) == (58, 59)
    path = root / "fra_Latn" / "test.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    rows[0]["answer1"] += " (traduit)"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    assert untranslated(root) == (57, 59)


@pytest.mark.parametrize("lazy", [False, True])
def test_on_ray_each_task_carries_its_variants_tables_and_the_shared_dataset_none(monkeypatch, lazy):
    """The Ray path of ``run_gate`` without a cluster: ``fan_out`` replaced by one that sends what Ray would
    (the shared part and each prepared task through pickle) and runs the worker's function on it."""
    import pickle

    import qc.gate as gate

    seen, calls = {}, {}

    def ray_like(fn, tasks, *, shared, jobs, backend, address, progress, labels, prepare):
        calls.update(jobs=jobs, backend=backend, address=address, labels=labels, progress=progress)
        sent = pickle.loads(pickle.dumps(shared))
        calls["shared"] = sent[0]
        return [fn(sent, pickle.loads(pickle.dumps(prepare(task)))) for task in tasks]

    monkeypatch.setattr(gate, "fan_out", ray_like)
    monkeypatch.setattr(gate, "run_variant", lambda data, config: seen.setdefault(data.variant, data) and [])
    root = DATA / "sib200" / "annotated"
    ds = load_dataset_dir(root, variants=["hin_Deva", "mar_Deva"], lazy=lazy)
    run_gate(ds, merge_config(default_config(), {"pivot": "hin_Deva"}), jobs=2, backend="ray", address="auto",
             progress=print)
    assert calls == {"jobs": 2, "backend": "ray", "address": "auto", "labels": ["hin_Deva", "mar_Deva"],
                     "progress": print, "shared": calls["shared"]}
    assert (calls["shared"].root, calls["shared"].kind, calls["shared"].tables) == (ds.root, "topic", {})
    for variant in ("hin_Deva", "mar_Deva"):
        expected = load_dataset_dir(root, variants=[variant]).tables[variant]
        assert sorted(seen[variant].tables) == sorted(expected) and seen[variant].kind == "topic"
        assert all(seen[variant].tables[s].equals(expected[s]) for s in expected)
    if lazy:  # the driver reads a variant for its task and lets it go (205 variants need not fit at once)
        assert "mar_Deva" not in ds.tables._loaded


def test_contamination_hashes_go_to_the_variant_of_the_same_name_else_to_a_lone_one(monkeypatch):
    """``--against`` with the variant's own name checks against that; a one-variant test set is checked
    against by every variant (the usual English-only test set); several, none of the name: nothing to match."""
    import qc.gate as gate

    seen = {}
    monkeypatch.setattr(gate, "run_variant", lambda data, config: seen.update({data.variant: data.against}) or [])
    ds = load_dataset_dir(QC_DATA / "pivot")
    for hashes, expected in (({"eng_Latn": 1, "x_Latn": 2}, {"eng_Latn": {"eng_Latn": 1}, "fra_Latn": {}}),
                             ({"x_Latn": 2}, {"eng_Latn": {"x_Latn": 2}, "fra_Latn": {"x_Latn": 2}})):
        monkeypatch.setattr(gate, "_against_hashes", lambda against, n, hashes=hashes: hashes)
        seen.clear()
        run_gate(ds, load_config(), against=ds, jobs=1)
        assert {v: seen[v] for v in expected} == expected
    seen.clear()
    run_gate(ds, load_config(), jobs=1)  # no --against: None, not an empty match
    assert set(seen.values()) == {None}


def test_no_pivot_comparison_when_the_pivot_is_not_among_the_variants(monkeypatch):
    import qc.gate as gate
    from qc.result import CheckResult

    monkeypatch.setattr(gate, "run_variant", lambda data, config: [CheckResult(
        data.variant, "length_bias:longest", True, p_value=0.5, effect=0.3, fails_as="longest_correct")])
    monkeypatch.setattr(gate, "decide", lambda results, config, pivot: {})  # the verdicts do not matter here
    ds = load_dataset_dir(QC_DATA / "pivot")
    assert run_gate(ds, merge_config(default_config(), {"pivot": "eng_Latn"}), jobs=1).pivot_comparison
    assert run_gate(ds, merge_config(default_config(), {"pivot": "deu_Latn"}), jobs=1).pivot_comparison == []
