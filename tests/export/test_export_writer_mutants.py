"""Three small decisions of the export writer, pinned case by case (issue 27's mutation run).

``is_export`` tells an earlier export (re-exported, its card kept) from any other folder with a
manifest.json; ``carried_reports`` reads the card's reports such an export carries; ``default_pretty_name``
titles a card nobody named. The export tests go through them with a well-formed manifest and one or two
sources; these add the edges.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path
from types import SimpleNamespace as NS

import pytest

from builder.export.writer import (_labels, carried_reports, check_config_names, default_pretty_name, is_export,
                                   read_input, slug, write_export)
from schemas.dataset import load_dataset_dir
from schemas.errors import LicenseError, SchemaError, UsageError


def test_only_a_manifest_object_naming_the_toolkit_makes_an_earlier_export(tmp_path):
    def folder(name, manifest):
        (tmp_path / name).mkdir()
        (tmp_path / name / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
        return tmp_path / name

    assert is_export(folder("ours", {"generator": "mc-dataset-builder 0.1.0"}))
    assert not is_export(folder("list", [{"generator": "mc-dataset-builder 0.1.0"}]))  # JSON, not an object
    assert not is_export(folder("other", {"generator": "datasets"}))
    assert not is_export(folder("unnamed", {"files": {}}))
    assert not is_export(tmp_path / "nothing-here")


def _audit(sources, variants):
    return NS(overall=NS(sources=[NS(name=s) for s in sources]), dataset=NS(variants=variants))


def test_the_default_title_lists_up_to_three_sources_and_counts_the_variants():
    assert default_pretty_name(_audit(["SIB-200"], ["eng_Latn"]), None) == "SIB-200 (1 language variant)"
    assert default_pretty_name(_audit(["RACE", "SciQ", "RACE"], ["a", "b"]), None) == (
        "RACE, SciQ (2 language variants)")
    assert default_pretty_name(_audit(["RACE", "SciQ", "MCTest"], ["a"] * 3), None) == (
        "RACE, SciQ, MCTest (3 language variants)")
    assert default_pretty_name(_audit(["RACE", "SciQ", "MCTest", "ReClor"], ["a"]), None) is None
    assert default_pretty_name(_audit([], ["a"]), None) is None
    assert default_pretty_name(_audit(["RACE"], ["a"]), "my-org/race-plus") == "race-plus"


def test_the_reports_an_earlier_export_carries_come_from_its_card_or_are_none(tmp_path):
    card = {"qc": {"passed": True}, "agreement": None, "gate_failing_allowed": True}
    assert carried_reports({"card": card}, tmp_path) == card
    assert carried_reports({"files": {}}, tmp_path) == {}
    assert carried_reports({"card": None}, tmp_path) == {}
    # a manifest that is not an object carries nothing (it is no export of ours)
    assert carried_reports([{"card": card}], tmp_path) == {}
    assert carried_reports(None, tmp_path) == {}


@pytest.mark.parametrize("card, field, found", [
    ([], "card", "expected a JSON object, found list"),
    ({"qc": "passed"}, "card.qc", "expected a JSON object or null, found str"),
    ({"baselines": [1]}, "card.baselines", "expected a JSON object or null, found list"),
    ({"gate_failing_allowed": "yes"}, "card.gate_failing_allowed", "expected true or false, found 'yes'"),
    ({"gate_failing_allowed": 1}, "card.gate_failing_allowed", "expected true or false, found 1"),
])
def test_a_malformed_card_in_an_earlier_export_names_its_manifest_and_field(tmp_path, card, field, found):
    with pytest.raises(SchemaError) as err:
        carried_reports({"card": card}, tmp_path)
    assert str(err.value) == f"{tmp_path / 'manifest.json'}, field {field}: {found}"
    assert (err.value.file, err.value.field) == (str(tmp_path / "manifest.json"), field)


@pytest.mark.parametrize("name, expected", [
    (" _Belebele Train_ ", "Belebele_Train"),  # the separators at either end go, the capitals stay
    ("Xhosa set X", "Xhosa_set_X"),  # an X at either end is a letter like any other
    ("---", "dataset"), ("", "dataset"),
])
def test_a_slug_keeps_letters_digits_and_inner_underscores_and_is_never_empty(name, expected):
    assert slug(name) == expected


def test_a_variant_shaped_like_a_code_that_is_not_one_stops_the_export_naming_its_folder(tmp_path):
    for variant in ("hin_Deva", "nqo_Nkko"):  # nqo_Nkko: a typo for nqo_Nkoo
        (tmp_path / variant).mkdir()
        (tmp_path / variant / "train.jsonl").write_text(
            json.dumps({"index_id": 1, "category": "science", "text": "A sentence."}) + "\n", encoding="utf-8")
    ds = load_dataset_dir(tmp_path)
    with pytest.raises(SchemaError) as err:
        check_config_names(ds)
    assert err.value.file == str(tmp_path / "nqo_Nkko") and "nqo_Nkoo" in str(err.value)
    check_config_names(load_dataset_dir(tmp_path, variants=["hin_Deva"]))  # a valid code passes


def _topic(folder, categories):
    folder.mkdir(parents=True)
    (folder / "train.jsonl").write_text("".join(
        json.dumps({"index_id": i, "category": c, "text": f"Sentence {i}."}) + "\n" for i, c in enumerate(categories)),
        encoding="utf-8")


def test_without_a_label_list_the_labels_are_those_seen_sorted_and_a_labels_txt_wins(tmp_path):
    _topic(tmp_path / "hin_Deva", ["travel", "science", "travel"])
    _topic(tmp_path / "npi_Deva", ["health"])
    assert _labels(load_dataset_dir(tmp_path)) == ["health", "science", "travel"]
    (tmp_path / "hin_Deva" / "labels.txt").write_text("travel\nscience\n\nhealth\n", encoding="utf-8")
    assert _labels(load_dataset_dir(tmp_path)) == ["travel", "science", "health"]


def test_a_hub_repo_and_a_data_root_together_are_refused_before_any_work(tmp_path):
    _topic(tmp_path / "built" / "hin_Deva", ["science"])
    with pytest.raises(UsageError) as err:
        read_input(tmp_path / "built", tmp_path / "out", license_id="CC-BY-4.0", hub_repo="me/sib",
                   lm_eval_data_root="/data")
    assert str(err.value) == "--hub-repo and --lm-eval-data-root both say where the tasks read the data; give one"
    assert not (tmp_path / "out").exists()


def test_an_earlier_export_may_be_replaced_and_the_output_of_another_command_may_not(tmp_path):
    _topic(tmp_path / "built" / "hin_Deva", ["science"])
    out = tmp_path / "out"
    out.mkdir()
    (out / ".builder.json").write_text('{"command": "export"}', encoding="utf-8")
    (out / "README.md").write_text("an earlier export\n", encoding="utf-8")
    assert read_input(tmp_path / "built", out, license_id="CC-BY-4.0").dataset.variants == ["hin_Deva"]
    (out / ".builder.json").write_text('{"command": "assemble"}', encoding="utf-8")
    with pytest.raises(UsageError) as err:
        read_input(tmp_path / "built", out, license_id="CC-BY-4.0")
    assert str(err.value) == (f"{out}: a non-empty folder holding the output of 'builder assemble': it is not an "
                              "earlier export output, and the output folder is replaced as a whole, so choose a "
                              "new or empty folder")


def test_licenses_that_cannot_be_combined_stop_the_export_naming_the_input_folder(tmp_path):
    built = tmp_path / "built"
    (built / "hin_Deva").mkdir(parents=True)
    (built / "hin_Deva" / "train.jsonl").write_text("".join(
        json.dumps({"index_id": i, "category": "science", "text": f"Sentence {i}.", "license": license_id}) + "\n"
        for i, license_id in enumerate(["CC-BY-SA-4.0", "MSR-LA"])), encoding="utf-8")  # one split, two terms
    with pytest.raises(LicenseError) as err:
        read_input(built, tmp_path / "out")
    assert err.value.file == str(built) and "unresolved license conflicts" in str(err.value)


def test_a_re_export_reads_the_build_facts_from_the_earlier_manifests_build_entry(tmp_path):
    built = tmp_path / "built"
    _topic(built / "hin_Deva", ["science"])
    (built / "manifest.json").write_text(json.dumps({"seed": 1, "build": {"seed": 7}}), encoding="utf-8")
    assert read_input(built, tmp_path / "out", license_id="CC-BY-4.0").build_info == {"seed": 7}
    (built / "manifest.json").write_text(json.dumps({"seed": 1}), encoding="utf-8")  # an assembled folder's own
    assert read_input(built, tmp_path / "out", license_id="CC-BY-4.0").build_info == {"seed": 1}


def test_the_title_is_the_name_the_input_gives_and_a_releases_own_reports_never_carry_a_failing_gate(tmp_path):
    built = tmp_path / "built"
    _topic(built / "hin_Deva", ["science"])
    (built / "manifest.json").write_text(json.dumps({"name": "sib-hi"}), encoding="utf-8")
    given = read_input(built, tmp_path / "out", license_id="CC-BY-4.0")
    assert (given.name, given.pretty_name) == ("sib_hi", "sib-hi")
    released = read_input(built, tmp_path / "out", license_id="CC-BY-4.0", card_reports={})
    assert released.gate_failing_allowed is False and released.reports == {
        "agreement.json": None, "qc_report.json": None, "baselines": None, "models": None}


def _credited(built):
    _topic(built / "hin_Deva", ["science"])
    (built / "hin_Deva" / "variant.json").write_text(json.dumps({"license": "CC-BY-4.0", "source_name": "SIB-200"}),
                                                     encoding="utf-8")
    return built


def test_a_release_hands_its_own_reports_to_the_card_under_their_file_names(tmp_path):
    reports = {"agreement": {"kappa": 0.8}, "qc": {"passed": True}, "baselines": {"n": 2}, "models": {"m": 1}}
    given = read_input(_credited(tmp_path / "built"), tmp_path / "out", card_reports=reports)
    assert given.reports == {"agreement.json": {"kappa": 0.8}, "qc_report.json": {"passed": True},
                             "baselines": {"n": 2}, "models": {"m": 1}}


def test_an_earlier_exports_reports_fill_only_what_the_folder_lacks_and_carry_its_failing_gate(tmp_path):
    built = _credited(tmp_path / "built")
    card = {"agreement": {"kappa": 0.5}, "qc": {"passed": False}, "baselines": None, "gate_failing_allowed": True}
    (built / "manifest.json").write_text(json.dumps({"card": card}), encoding="utf-8")
    carried = read_input(built, tmp_path / "out")
    assert carried.reports["agreement.json"] == {"kappa": 0.5}
    assert carried.reports["qc_report.json"] == {"passed": False}
    assert carried.reports.get("baselines") is None and carried.gate_failing_allowed is True
    (built / "qc_report.json").write_text(json.dumps({"passed": True}), encoding="utf-8")  # a report of its own
    own = read_input(built, tmp_path / "out")
    assert own.reports["qc_report.json"] == {"passed": True} and own.reports["agreement.json"] == {"kappa": 0.5}
    assert own.gate_failing_allowed is False  # the failing gate went with the carried qc report
    (built / "qc_report.json").unlink()
    card.update(qc=None)
    (built / "manifest.json").write_text(json.dumps({"card": card}), encoding="utf-8")
    assert read_input(built, tmp_path / "out").gate_failing_allowed is False  # no qc report, no failing gate


def test_the_export_input_keeps_the_hub_repo_the_name_given_the_credit_and_the_class_labels_of_the_schema(tmp_path):
    built = _credited(tmp_path / "built")
    given = read_input(built, tmp_path / "out", hub_repo="me/sib-hi")  # the folder's name says nothing
    assert (given.name, given.given_name, given.pretty_name) == ("built", "built", "sib-hi")
    assert given.hub_repo == "me/sib-hi"
    assert list(given.credit) == ["hin_Deva"] and given.class_labels == ["science"] and given.labels == ["science"]
    assert read_input(built, tmp_path / "out", pretty_name="SIB Hindi").pretty_name == "SIB Hindi"
    assert given.published.name == "ours" and [s.variant for s in given.audit.splits] == ["hin_Deva"]
    (built / "manifest.json").write_text(json.dumps({"pretty_name": "SIB in Hindi"}), encoding="utf-8")
    assert read_input(built, tmp_path / "out").pretty_name == "SIB in Hindi"
    (built / "manifest.json").unlink()
    assert read_input(built, tmp_path / "out").pretty_name == "SIB-200 (1 language variant)"
    sib = read_input(built, tmp_path / "out", schema="sib200")  # SIB-200's own schema keeps labels as text
    assert sib.class_labels is None and sib.labels == ["science"]


def test_the_writers_defaults_give_no_lm_eval_tasks_no_failing_gate_and_refuse_another_commands_output(tmp_path):
    source = read_input(_credited(tmp_path / "built"), tmp_path / "out")
    files, tasks = write_export(source, tmp_path / "out")
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text(encoding="utf-8"))
    assert tasks == [] and not (tmp_path / "out" / "lm_eval").exists() and "hin_Deva/train.parquet" in files
    assert manifest["lm_eval_tasks"] == [] and manifest["card"]["gate_failing_allowed"] is False
    other = tmp_path / "other"
    other.mkdir()
    (other / ".builder.json").write_text('{"command": "assemble"}', encoding="utf-8")
    (other / "train.parquet").write_bytes(b"PAR1")
    with pytest.raises(UsageError, match="it is not an earlier export output"):
        write_export(source, other)
    assert sorted(p.name for p in other.iterdir()) == [".builder.json", "train.parquet"]


def test_an_export_with_tasks_lists_them_reads_the_data_root_and_uses_the_schemas_split_names(tmp_path):
    built = tmp_path / "built"
    (built / "hin_Deva").mkdir(parents=True)
    for split in ("train", "dev", "test"):
        rows = "".join(json.dumps({"index_id": i, "category": c, "text": f"Sentence {i}."}) + "\n"
                       for i, c in enumerate(["science", "travel"]))
        (built / "hin_Deva" / f"{split}.jsonl").write_text(rows, encoding="utf-8")
    (built / "hin_Deva" / "variant.json").write_text(json.dumps({"license": "CC-BY-4.0", "source_name": "SIB-200"}),
                                                     encoding="utf-8")
    out = tmp_path / "out"
    files, tasks = write_export(read_input(built, out, schema="sib200"), out, lm_eval=True,
                                lm_eval_data_root="/data/sib")
    assert tasks == ["built_hin_Deva"] and "lm_eval/built_hin_Deva.yaml" in files
    assert json.loads((out / "manifest.json").read_text(encoding="utf-8"))["lm_eval_tasks"] == tasks
    task = (out / "lm_eval" / "built_hin_Deva.yaml").read_text(encoding="utf-8")
    assert "    validation: /data/sib/hin_Deva/validation.parquet\n" in task and "fewshot_split: validation\n" in task
    assert "they read the Parquet files under `/data/sib`" in (out / "README.md").read_text(encoding="utf-8")
    assert (out / "hin_Deva" / "labels.txt").read_text(encoding="utf-8") == "science\ntravel\n"  # text labels
    write_export(read_input(built, out), out)  # our schema types the labels: no labels.txt beside them
    assert not (out / "hin_Deva" / "labels.txt").exists()


def test_multiple_choice_tasks_under_belebeles_schema_read_its_column_names(tmp_path):
    shutil.copytree(Path(__file__).parents[1] / "data" / "export" / "mc_small", tmp_path / "mc")
    out = tmp_path / "out"
    _, tasks = write_export(read_input(tmp_path / "mc", out, schema="belebele"), out, lm_eval=True)
    template = (out / "lm_eval" / "_belebele_train_template_yaml").read_text(encoding="utf-8")
    assert tasks == ["belebele_train_eng_Latn"]
    assert 'doc_to_text: "P: {{flores_passage}}\\nQ: {{question.strip()}}\\nA: {{mc_answer1}}' in template
