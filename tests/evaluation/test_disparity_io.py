"""Reading evaluation records: every format, every failure with its file and row."""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from builder.evaluation.disparity_io import AGGREGATE_NAMES, is_aggregate, read_records
from schemas.errors import SchemaError, SourceError, SourceNotFoundError

DATA = Path(__file__).parents[1] / "data" / "disparity"
BAD = DATA / "bad"


def _cells(rs):
    return rs.table[["model", "language", "task", "score"]].sort_values(["model", "language", "task"]) \
        .reset_index(drop=True)


@pytest.mark.parametrize("name", ["small_records.json", "small_records.jsonl", "small_records.tsv"])
def test_every_format_reads_the_same_records(name):
    expected = _cells(read_records(DATA / "small_records.csv"))
    got = _cells(read_records(DATA / name))
    pd.testing.assert_frame_equal(got, expected)
    assert len(got) == 54


def test_task_is_dataset_underscore_metric_as_in_the_papers_code():
    t = read_records(DATA / "small_records.csv").table
    assert set(t["task"]) == {"xnli_accuracy", "tydiqa_f1", "tydiqa_exact_match"}
    assert t.loc[0, "row"] == "line 2"
    assert read_records(DATA / "small_records.json").table.loc[0, "row"] == "record 1"


@pytest.mark.parametrize("path, where, field, words", [
    (BAD / "aggregate_avg.csv", "line 7", "language", "'Avg' is an aggregate"),
    (BAD / "bad_score.csv", "line 5", "score", "expected a finite number, found 'n/a'"),
    (BAD / "duplicate.jsonl", "line 3", None, "duplicate record for model 'm1'"),
])
def test_a_bad_row_is_one_line_naming_file_and_row(path, where, field, words):
    with pytest.raises(SchemaError) as info:
        read_records(path)
    err = info.value
    assert err.file == str(path) and err.record == where and err.field == field
    assert words in str(err) and "\n" not in str(err)


def test_aggregates_are_dropped_and_counted_when_asked():
    rs = read_records(BAD / "aggregate_avg.csv", drop_aggregates=True)
    assert len(rs.table) == 54
    assert dict(rs.dropped) == {"aggregate:avg": 1}


@pytest.mark.parametrize("label", ["avg", "AVG", "Average", "mean", "All", "overall", "Total", "macro-avg",
                                   "avg.", " micro_avg "])
def test_aggregate_labels(label):
    assert is_aggregate(label)


@pytest.mark.parametrize("label", ["en", "yo", "hin_Deva", "zh", "mal", "tl", "allemand"])
def test_language_codes_are_not_aggregates(label):
    assert not is_aggregate(label)


def test_aggregate_names_are_normalised():
    assert all(name == "".join(c for c in name if c.isalnum()).lower() for name in AGGREGATE_NAMES)


def test_missing_column_lists_what_is_required_and_what_was_found():
    with pytest.raises(SchemaError, match=r"missing column\(s\): score; .* found: model, language, dataset, "
                                          r"metric, accuracy"):
        read_records(BAD / "missing_column.csv")


def test_invalid_json_names_the_line():
    with pytest.raises(SourceError) as info:
        read_records(BAD / "invalid.json")
    assert info.value.record == "line 2"


def test_missing_file_and_unsupported_type(tmp_path):
    with pytest.raises(SourceNotFoundError):
        read_records(tmp_path / "nope.csv")
    (tmp_path / "r.xlsx").write_text("x")
    with pytest.raises(SourceError, match="unsupported file type '.xlsx'; allowed: .csv, .json"):
        read_records(tmp_path / "r.xlsx")


@pytest.mark.parametrize("text, words", [
    ("", "the file is empty"),
    ("model,language,task,score\n", "no records to analyse"),
    ("model,language,task,score\nm1,en,x,80,extra\n", "expected 4 fields as in the header, found 5"),
    ("model,language,task,score\nm1,,x,80\n", "field language: expected a non-empty name"),
    ("model,language,task,score\nm1,en,x,inf\n", "expected a finite number, found 'inf'"),
    ("Model,model,language,task,score\n", "column 'model' appears twice"),
])
def test_malformed_csv(tmp_path, text, words):
    p = tmp_path / "r.csv"
    p.write_text(text, encoding="utf-8")
    with pytest.raises(SchemaError, match=words):
        read_records(p)


def test_only_aggregates_left_nothing(tmp_path):
    p = tmp_path / "r.csv"
    p.write_text("model,language,task,score\nm1,avg,x,80\n", encoding="utf-8")
    with pytest.raises(SchemaError, match=r"no records to analyse \(1 aggregate rows dropped\)"):
        read_records(p, drop_aggregates=True)


def test_json_wrappers_and_non_objects(tmp_path):
    p = tmp_path / "r.json"
    p.write_text('{"records": [{"model": "m", "language": "en", "task": "t", "score": "71.5"}]}')
    assert float(read_records(p).table.loc[0, "score"]) == 71.5
    p.write_text('[{"model": "m", "language": "en", "task": "t", "score": 1}, 3]')
    with pytest.raises(SchemaError, match="record 2: expected a JSON object, found int"):
        read_records(p)
    p.write_text('[{"model": "m", "language": "en", "task": "t", "score": true}]')
    with pytest.raises(SchemaError, match="expected a finite number, found True"):
        read_records(p)


# --- lm-evaluation-harness results files (tests/data/export/lm-eval-output, real lm-eval 0.4.13 output) ---

LM_EVAL_OUT = Path(__file__).parents[1] / "data" / "export" / "lm-eval-output"


def test_lm_eval_results_file_gives_one_record_per_task_and_metric():
    import json

    from builder.evaluation.disparity_io import read_many

    (path,) = LM_EVAL_OUT.glob("dummy-a/results_*.json")
    t = read_records(path).table
    data = json.loads(path.read_text(encoding="utf-8"))
    expected = {(task, key.split(",")[0]): value for task, r in data["results"].items() for key, value in r.items()
                if "," in key and "_stderr" not in key}
    assert len(t) == len(expected) == 8  # acc, acc_norm of 3 tasks; acc, f1 of AfroBench's
    assert set(t["model"]) == {"dummy-a"}  # pretrained= of model_args
    got = {(r.dataset, r.language, r.metric): r.score for r in t.itertuples()}
    assert got[("sib", "hau_Latn", "acc")] == expected[("sib_hau_Latn", "acc")]
    assert got[("afrobench_sib_prompt_1", "eng_Latn", "f1")] == expected[("afrobench_sib_prompt_1_eng_Latn", "f1")]
    assert got[("belebele_local", "eng_Latn", "acc_norm")] == expected[("belebele_eng_Latn_local", "acc_norm")]
    assert set(t["task"]) >= {"sib_acc", "sib_acc_norm"}  # dataset_metric, as the paper's code builds it
    both = read_many(sorted(LM_EVAL_OUT.glob("*/results_*.json")))
    assert sorted(set(both.table["model"])) == ["dummy-a", "dummy-b"] and len(both.table) == 8 + 6


def test_lm_eval_results_language_and_duplicates(tmp_path):
    import json

    from builder.evaluation.disparity_io import read_many

    (path,) = LM_EVAL_OUT.glob("dummy-b/results_*.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    data["results"]["hellaswag"] = {"alias": "hellaswag", "acc,none": 0.3}
    data["configs"]["hellaswag"] = {"dataset_name": None}
    odd = tmp_path / "results_odd.json"
    odd.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(SchemaError, match=r"results_odd.json, results.hellaswag: cannot tell the language "
                                          r"of lm-eval task 'hellaswag'"):
        read_records(odd)
    with pytest.raises(SchemaError, match=r"duplicate record for model 'dummy-b', language 'eng_Latn'"):
        read_many([path, path])


def test_disparity_command_reads_lm_eval_results_of_two_models(tmp_path):
    from click.testing import CliRunner

    from builder.cli.main import cli

    files = sorted(LM_EVAL_OUT.glob("*/results_*.json"))
    res = CliRunner().invoke(cli, ["disparity", *map(str, files), "--out", str(tmp_path / "d")])
    assert res.exit_code == 0, res.output
    assert "14 records: 2 models, 2 languages, 6 tasks" in res.output
    records = pd.read_csv(tmp_path / "d" / "records.csv")
    assert set(records["model"]) == {"dummy-a", "dummy-b"}
