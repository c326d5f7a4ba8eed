"""The lm-eval task writer's small decisions, pinned in process (issue 27's mutation run): how every
YAML file is serialized, which split a task tests on and which it draws shots from, where a data root
ends, and the refusal of a task file name that would leave the folder.

The export tests reach these through two shipped sources (splits ``train``/``dev`` and ``dev``/``test``);
these add the other split names curators use and the edges of the serializer.
"""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from builder.export.lmeval import dump, group_yaml, task_yaml, write_lm_eval
from schemas.errors import OutputError
from schemas.names import shown


def test_dump_keeps_the_order_the_letters_and_one_line_per_value():
    long = "हिन्दी " + "word " * 40  # past PyYAML's default width of 80, and past 60
    text = dump({"zeta": long.strip(), "alpha": 1, "list": ["b", "a"]})
    assert text == f"zeta: {long.strip()}\nalpha: 1\nlist:\n- b\n- a\n"  # not sorted, not escaped, not folded
    assert yaml.safe_load(text) == {"zeta": long.strip(), "alpha": 1, "list": ["b", "a"]}


@pytest.mark.parametrize("name", ["test", "validation", "dev", "val", "valid"])
def test_the_test_split_is_the_first_of_the_usual_names(name):
    doc = yaml.safe_load(task_yaml("t", "_t", {name: f"v/{name}.parquet", "train": "v/train.parquet"}))
    assert doc["test_split"] == name and doc["fewshot_split"] == "train"


@pytest.mark.parametrize("name", ["dev", "validation", "val", "valid", "train"])
def test_the_shots_come_from_the_first_usual_split_that_is_not_the_test_split(name):
    doc = yaml.safe_load(task_yaml("t", "_t", {"test": "v/test.parquet", name: f"v/{name}.parquet",
                                                "zzz": "v/zzz.parquet"}))
    assert (doc["test_split"], doc["fewshot_split"]) == ("test", name)


def test_without_a_usual_name_the_last_split_is_taken_and_one_split_serves_both():
    doc = yaml.safe_load(task_yaml("t", "_t", {"b": "v/b.parquet", "a": "v/a.parquet"}))
    assert (doc["test_split"], doc["fewshot_split"]) == ("a", "b")
    doc = yaml.safe_load(task_yaml("t", "_t", {"only": "v/only.parquet"}))
    assert (doc["test_split"], doc["fewshot_split"]) == ("only", "only")


@pytest.mark.parametrize("root", ["hf://datasets/ORG/BOX", "hf://datasets/ORG/BOX/", "/srv/X//"])
def test_a_data_root_loses_only_its_trailing_slashes(root):
    doc = yaml.safe_load(task_yaml("t", "_t", {"test": "hin_Deva/test.parquet"}, root))
    assert doc["dataset_kwargs"]["data_files"]["test"] == root.rstrip("/") + "/hin_Deva/test.parquet"


def test_a_group_carries_the_version_lm_eval_reports():
    assert yaml.safe_load(group_yaml("g", ["g_a"]))["metadata"] == {"version": 1.0}


@pytest.mark.parametrize("where", ["name", "variant"])
def test_a_refused_task_file_name_is_named_with_the_folder(tmp_path, where):
    folder = tmp_path / "lm_eval"
    name, variant = ("a/b", "v") if where == "name" else ("ok", "v\\w")
    fname = "_a/b_template_yaml" if where == "name" else "ok_v\\w.yaml"
    with pytest.raises(OutputError) as err:
        write_lm_eval(folder, name=name, kind="mc", files={variant: {"test": "v/test.parquet"}})
    assert str(err.value) == (f"cannot write {folder}: an lm-eval task file name must be one file name, "
                              f"found {shown(fname)}; refused")


def test_names_of_any_letters_are_written_into_a_folder_made_on_the_way(tmp_path):
    folder = tmp_path / "new" / "export" / "lm_eval"
    written, tasks = write_lm_eval(folder, name="XNLI", kind="mc",
                                   files={"X_Xxxx": {"test": "X_Xxxx/test.parquet"}})
    assert tasks == ["XNLI_X_Xxxx"]
    assert sorted(p.name for p in folder.iterdir()) == sorted(written) == [
        "XNLI_X_Xxxx.yaml", "_XNLI.yaml", "_XNLI_template_yaml", "_builder_data.py"]


def test_a_topic_template_decontaminates_on_the_text_column(tmp_path):
    # the written topic template turns decontamination on and names the column ``text`` as it is spelt
    write_lm_eval(tmp_path, name="SIB", kind="topic", labels=["sports", "travel"],
                  files={"fra_Latn": {"test": "fra_Latn/test.parquet"}}, data_root="/data")
    doc = yaml.safe_load((tmp_path / "_SIB_template_yaml").read_text(encoding="utf-8"))
    assert doc["should_decontaminate"] is True and doc["doc_to_decontamination_query"] == "text"
