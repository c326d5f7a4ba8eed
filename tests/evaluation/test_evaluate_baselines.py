"""`builder evaluate baselines DATASET`: topic and MC baselines, CIs, determinism, transfer, errors."""
from __future__ import annotations

import csv
import json
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from click.testing import CliRunner

from builder.cli.main import cli
from schemas.dataset import load_dataset_dir
from builder.evaluation.runner import RunConfig, run
from builder.evaluation.stats import accuracy_ci, chance_ci
from builder.evaluation.topic_baselines import ngram_counts
from schemas.io import read_sib_tsv, write_sib_tsv

DATA = Path(__file__).parents[1] / "data"
SIB = DATA / "sib200" / "annotated"
STEPS = {"train": 5, "dev": 2, "test": 3}  # every k-th row: the files are sorted by label
SIZES = {"train": 141, "dev": 50, "test": 68}


@pytest.fixture(scope="module")
def small_sib(tmp_path_factory):
    """Three shipped variants cut to every 5th/2nd/3rd row (same rows in each variant)."""
    root = tmp_path_factory.mktemp("sib_small")
    for variant in ("eng_Latn", "hin_Deva", "zho_Hans"):
        for split, k in STEPS.items():
            rows = read_sib_tsv(SIB / variant / f"{split}.tsv")[::k]
            assert len(rows) == SIZES[split]
            write_sib_tsv(root / variant / f"{split}.tsv", rows)
    return root


def _invoke(*args):
    return CliRunner().invoke(cli, list(map(str, args)))


def _csv(path: Path) -> list[dict]:
    with open(path, encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


@settings(max_examples=80, deadline=None)
@given(st.lists(st.sampled_from(["b", "a", "c", "é", "A"]), min_size=1, max_size=12), st.integers(0, 3))
def test_majority_predicts_what_scikit_learns_dummy_classifier_predicts(train_y, n_test):
    import numpy as np
    from sklearn.dummy import DummyClassifier

    from builder.evaluation.topic_baselines import fit_predict

    preds, params = fit_predict("majority", ["x"] * len(train_y), train_y, [], [], ["t"] * n_test)
    ref = DummyClassifier(strategy="most_frequent").fit(np.zeros((len(train_y), 1)), train_y)
    assert preds.tolist() == ref.predict(np.zeros((n_test, 1))).tolist()
    assert params["label"] == str(ref.classes_[np.argmax(ref.class_prior_)])  # ties: the label sorting first


def test_majority_is_the_most_frequent_training_label():
    ds = load_dataset_dir(SIB, variants=["eng_Latn"])
    (row,) = run(ds, RunConfig(baselines=("majority",)))
    train = Counter(ds.tables["eng_Latn"]["train"]["category"])
    label = max(sorted(train), key=train.get)
    test = list(ds.tables["eng_Latn"]["test"]["category"])
    assert json.loads(row["params"])["label"] == label == "science/technology"
    assert (row["correct"], row["n"]) == (test.count(label), len(test)) == (51, 204)
    assert (row["ci_low"], row["ci_high"]) == pytest.approx(accuracy_ci(51, 204), abs=1e-6)


def test_cli_writes_every_output_with_n_and_ci(small_sib, tmp_path):
    """No ``--baseline``: every topic baseline but the MLP, which runs only when asked (issue 25)."""
    out = tmp_path / "out"
    result = _invoke("evaluate", "baselines", small_sib, "--out", out, "--jobs", "1")
    assert result.exit_code == 0, result.output
    rows = _csv(out / "results.csv")
    assert list(rows[0])[:10] == ["variant", "script", "baseline", "split", "train_variant", "n", "correct",
                                  "accuracy", "ci_low", "ci_high"]
    assert [(r["variant"], r["baseline"]) for r in rows] == [
        (v, b) for v in ("eng_Latn", "hin_Deva", "zho_Hans") for b in ("majority", "char_tfidf", "char_linear")]
    for r in rows:
        n, k = int(r["n"]), int(r["correct"])
        assert n == SIZES["test"] and float(r["accuracy"]) == pytest.approx(k / n, abs=1e-6)
        assert (float(r["ci_low"]), float(r["ci_high"])) == pytest.approx(accuracy_ci(k, n), abs=1e-6)
        assert r["seed"] == "0" and r["split"] == "test"
    tfidf = json.loads(next(r for r in rows if r["baseline"] == "char_tfidf")["params"])
    assert tfidf["alpha"] in tfidf["alpha_grid"] and tfidf["dev_accuracy"] is not None
    report = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert report["settings"]["seed"] == 0 and report["settings"]["ci_method"] == "wilson"
    assert set(report["means"]) == {"majority", "char_tfidf", "char_linear"}
    md = (out / "results.md").read_text(encoding="utf-8")
    assert "| variant | script | n | majority | char_tfidf | char_linear |" in md and "**mean of 3**" in md
    assert (out / "accuracy.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "| eng_Latn | Latn | 68 |" in result.output


def test_the_mlp_runs_when_asked_with_its_settings_recorded(small_sib, tmp_path):
    result = _invoke("evaluate", "baselines", small_sib, "--out", tmp_path, "--baseline", "mlp", "--variant",
                     "eng_Latn", "--mlp-max-iter", "20", "--jobs", "1")
    assert result.exit_code == 0, result.output
    (row,) = _csv(tmp_path / "results.csv")
    mlp = json.loads(row["params"])
    assert (row["baseline"], mlp["ngram_unit"], mlp["max_iter"], mlp["ngram_range"]) == ("mlp", "char", 20, [1, 3])


def test_parallel_run_is_byte_identical_to_serial(small_sib, tmp_path):
    args = ["evaluate", "baselines", small_sib, "--baseline", "majority,char_tfidf"]
    assert _invoke(*args, "--out", tmp_path / "serial", "--jobs", "1").exit_code == 0
    result = _invoke(*args, "--out", tmp_path / "parallel", "--jobs", "2")
    assert result.exit_code == 0, result.output
    for name in ("results.csv", "results.json", "results.md", "accuracy.png"):
        assert (tmp_path / "serial" / name).read_bytes() == (tmp_path / "parallel" / name).read_bytes(), name


def test_golden_majority_table(small_sib, tmp_path, golden):
    result = _invoke("evaluate", "baselines", small_sib, "--baseline", "majority", "--out", tmp_path, "--jobs", "1")
    assert result.exit_code == 0, result.output
    golden("evaluation/majority_results.md", (tmp_path / "results.md").read_text(encoding="utf-8"))


def test_transfer_trains_on_one_variant_and_tests_on_all(small_sib, tmp_path):
    result = _invoke("evaluate", "baselines", small_sib, "--baseline", "majority,char_tfidf", "--transfer-from",
                     "eng_Latn", "--out", tmp_path, "--jobs", "1")
    assert result.exit_code == 0, result.output
    rows = _csv(tmp_path / "results.csv")
    assert {r["train_variant"] for r in rows} == {"eng_Latn"} and len(rows) == 6
    ds = load_dataset_dir(small_sib, variants=["eng_Latn"])
    (own,) = run(ds, RunConfig(baselines=("char_tfidf",)))
    eng = next(r for r in rows if r["variant"] == "eng_Latn" and r["baseline"] == "char_tfidf")
    assert int(eng["correct"]) == own["correct"]  # transfer to itself = the in-language run


def test_word_unit_breaks_devanagari_and_unspaced_scripts():
    # scikit-learn's default token pattern \w\w+ does not match Devanagari vowel signs ...
    words = ngram_counts("word").build_analyzer()("हिन्दी भाषा")
    assert "हिन्दी" not in words and "भाषा" not in words
    # ... and a Chinese sentence without spaces is one "word"
    assert ngram_counts("word").build_analyzer()("我们喜欢学习中文。") == ["我们喜欢学习中文"]
    assert "中文" in ngram_counts("char").fit(["我们喜欢学习中文。"]).get_feature_names_out().tolist()


@pytest.mark.parametrize("variant", ["eng_Latn", "hin_Deva", "zho_Hans", "nqo_Nkoo", "tha_Thai"])
def test_fast_char_counts_equal_scikit_learns(variant):
    from sklearn.feature_extraction.text import CountVectorizer

    from builder.evaluation.ngrams import CharNgramCounts

    train = [r["text"] for r in read_sib_tsv(SIB / variant / "train.tsv")][::4]
    test = [r["text"] for r in read_sib_tsv(SIB / variant / "test.tsv")][::4] + ["  Mixed   CASE, ünïcode  "]
    for ngram_range in [(1, 3), (2, 3), (1, 1)]:
        ref = CountVectorizer(analyzer="char", ngram_range=ngram_range)
        ours = CharNgramCounts(ngram_range)
        assert (ref.fit_transform(train) != ours.fit_transform(train)).nnz == 0
        assert ref.get_feature_names_out().tolist() == ours.get_feature_names_out().tolist()
        assert (ref.transform(test) != ours.transform(test)).nnz == 0


@pytest.mark.parametrize("args,message", [
    (["--baseline", "majority,svm"], "unknown baseline(s) svm"),
    (["--variant", "xxx_Latn"], "unknown variant(s) xxx_Latn"),
    (["--transfer-from", "fra_Latn"], "--transfer-from fra_Latn: unknown variant"),
    (["--split", "validation"], "has no 'validation' split"),
    (["--task", "topic"], "No such option"),  # an option of `evaluate predictions`
])
def test_bad_options_give_one_line(small_sib, tmp_path, args, message):
    result = _invoke("evaluate", "baselines", small_sib, "--out", tmp_path, "--jobs", "1", *args)
    assert result.exit_code in (1, 2)
    assert message in result.output and "Traceback" not in result.output


def test_missing_dataset_is_bad_input(tmp_path):
    result = _invoke("evaluate", "baselines", tmp_path / "nope", "--out", tmp_path / "out")
    assert result.exit_code == 1 and "not found" in result.output


def test_mc_baselines_on_a_set_that_word_matching_solves(tmp_path):
    result = _invoke("evaluate", "baselines", DATA / "qc" / "copy_passage", "--out", tmp_path, "--jobs", "1")
    assert result.exit_code == 0, result.output
    rows = {r["baseline"]: r for r in _csv(tmp_path / "results.csv")}
    assert list(rows) == ["chance", "sliding_window", "bow_lr"]
    assert float(rows["chance"]["accuracy"]) == 0.25 and rows["chance"]["correct"] == ""
    assert (float(rows["chance"]["ci_low"]), float(rows["chance"]["ci_high"])) == pytest.approx(chance_ci(100))
    # the correct option copies a passage span: the sliding window finds nearly every answer
    assert rows["sliding_window"]["n"] == "100" and int(rows["sliding_window"]["correct"]) >= 90
    assert float(rows["bow_lr"]["accuracy"]) > 0.25


def test_mc_baselines_per_variant_stay_near_chance_on_reasoning_questions(tmp_path):
    result = _invoke("evaluate", "baselines", DATA / "qc" / "pivot", "--baseline", "chance,sliding_window",
                     "--out", tmp_path, "--jobs", "1")
    assert result.exit_code == 0, result.output
    rows = _csv(tmp_path / "results.csv")
    assert {r["variant"] for r in rows} == {"eng_Latn", "fra_Latn", "hin_Deva"}
    for r in rows:
        assert float(r["ci_low"]) <= 0.25 <= float(r["ci_high"])


def test_prewarm_imports_each_named_baselines_modules_before_workers_fork():
    import sys

    from builder.evaluation.topic_baselines import prewarm

    prewarm(["char_linear", "majority"])
    assert {"scipy.linalg", "sklearn.feature_extraction.text"} <= set(sys.modules)
