"""The strong classical topic baseline ``char_linear`` (issue 16): its counter, selection on dev, its floor.

``char_linear`` is TF-IDF on word-boundary-aware character 1-5-grams + one-vs-rest
ridge classification whose alpha is chosen on dev. These tests pin down that:

- its n-gram counts are scikit-learn's ``CountVectorizer(analyzer="char_wb")``
  (real sentences in several scripts, and Hypothesis on arbitrary text);
- alpha is the best of the grid by dev accuracy (ties to the larger), recomputed here
  with scikit-learn's own ``TfidfVectorizer`` and ``RidgeClassifier``; test labels never take part (a
  poisoned test split leaves the choice and the predictions unchanged, a
  poisoned dev split does not);
- it is deterministic, registered and documented, and clears a known floor
  on a shipped variant.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import CountVectorizer, RidgeClassifier, TfidfVectorizer

from builder.evaluation import topic_baselines
from builder.evaluation.ngrams import CharNgramCounts
from builder.evaluation.runner import RunConfig, default_baselines, run
from schemas.dataset import load_dataset_dir
from schemas.io import read_sib_tsv, write_sib_tsv

ROOT = Path(__file__).parents[2]
SIB = ROOT / "tests" / "data" / "sib200" / "annotated"


def _split(variant: str, split: str, step: int = 1):
    rows = read_sib_tsv(SIB / variant / f"{split}.tsv")[::step]
    return [r["text"] for r in rows], [r["category"] for r in rows]


def _same_matrix(a, b) -> bool:
    return a.shape == b.shape and (a != b).nnz == 0


# -- the counter ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("variant", ["eng_Latn", "hin_Deva", "zho_Hans", "tha_Thai", "bod_Tibt", "amh_Ethi"])
@pytest.mark.parametrize("ngram_range", [(1, 5), (3, 5), (2, 2)])
def test_char_wb_counts_equal_scikit_learns(variant, ngram_range):
    train = _split(variant, "train", 4)[0] + ["a", "  Mixed   CASE, ünïcode  ", "x y\tz\u00a0w", ""]
    test = _split(variant, "test", 4)[0] + ["ŋ 新 unseen ∑", "   "]
    ref = CountVectorizer(analyzer="char_wb", ngram_range=ngram_range)
    ours = CharNgramCounts(ngram_range, analyzer="char_wb")
    assert _same_matrix(ref.fit_transform(train), ours.fit_transform(train))
    assert ours.packed_  # the NumPy path, not the fallback
    assert ref.get_feature_names_out().tolist() == ours.get_feature_names_out().tolist()
    assert _same_matrix(ref.transform(test), ours.transform(test))


def test_keys_that_do_not_fit_64_bits_fall_back_to_scikit_learn():
    # every 3rd Chinese training sentence: 1,377 distinct characters, 11 bits each: 5-grams fit 64 bits, 6-grams not
    train = _split("zho_Hans", "train", 3)[0]
    assert CharNgramCounts((1, 5), analyzer="char_wb").fit(train).packed_
    ours = CharNgramCounts((1, 6), analyzer="char_wb")
    ref = CountVectorizer(analyzer="char_wb", ngram_range=(1, 6))
    assert _same_matrix(ref.fit_transform(train), ours.fit_transform(train)) and ours.packed_ is False
    test = _split("zho_Hans", "test", 4)[0]
    assert _same_matrix(ref.transform(test), ours.transform(test))
    assert ref.get_feature_names_out().tolist() == ours.get_feature_names_out().tolist()


# short words (a padded word shorter than n is counted once, whole), runs of white space, any script
_TEXT = st.text(alphabet=st.sampled_from(list("ab AB\t\n\u00a0éक्ष中ŋ")), max_size=30)


@settings(max_examples=150, deadline=None)
@given(train=st.lists(_TEXT, min_size=1, max_size=6), test=st.lists(_TEXT, max_size=4),
       analyzer=st.sampled_from(["char", "char_wb"]),
       ngram_range=st.sampled_from([(1, 1), (1, 3), (2, 4), (1, 5), (4, 5)]))
def test_counts_equal_scikit_learns_on_any_text(train, test, analyzer, ngram_range):
    ref = CountVectorizer(analyzer=analyzer, ngram_range=ngram_range)
    try:
        expected = ref.fit_transform(train)
    except ValueError:  # scikit-learn refuses an empty vocabulary
        assert len(CharNgramCounts(ngram_range, analyzer=analyzer).fit(train).get_feature_names_out()) == 0
        return
    ours = CharNgramCounts(ngram_range, analyzer=analyzer)
    assert _same_matrix(expected, ours.fit_transform(train))
    assert ref.get_feature_names_out().tolist() == ours.get_feature_names_out().tolist()
    assert _same_matrix(ref.transform(test), ours.transform(test))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2 ** 64 - 1), st.integers(0, 40)), max_size=30), st.booleans())
def test_entries_are_sorted_by_key_then_row_whether_or_not_they_pack_into_64_bits(pairs, narrow):
    """The counter's two ways of ordering its (n-gram, row) entries agree: packed into one integer when the key
    and the row fit 64 bits together, numbered by ``numpy.unique`` when they do not."""
    if narrow:  # keys of 20 bits: the packed sort
        pairs = [(k >> 44, r) for k, r in pairs]
    keys = np.array([k for k, _ in pairs], dtype=np.uint64)
    rows = np.array([r for _, r in pairs], dtype=np.int64)
    k, r = CharNgramCounts._sorted_entries(keys, rows, 41)
    assert list(zip(k.tolist(), r.tolist())) == sorted(pairs)


def test_bad_counter_settings_are_named():
    with pytest.raises(ValueError, match="analyzer must be one of char, char_wb; found 'word'"):
        CharNgramCounts((1, 3), analyzer="word")
    with pytest.raises(ValueError, match=r"1 <= min_n <= max_n; found \(3, 2\)"):
        CharNgramCounts((3, 2))


# -- selection on dev, never on test -------------------------------------------------------------------------


def _reference(alpha):
    """scikit-learn's own ridge classifier, its conjugate gradients run far past our exact solve's rounding."""
    return RidgeClassifier(alpha=alpha, solver="sparse_cg", tol=1e-12, max_iter=100_000)


def test_alpha_is_the_best_on_dev_recomputed_with_scikit_learn():
    (tx, ty), (dx, dy), (sx, _) = (_split("hin_Deva", s) for s in ("train", "dev", "test"))
    preds, params = topic_baselines.fit_predict("char_linear", tx, ty, dx, dy, sx)
    analyzer, ngram_range = topic_baselines.CHAR_LINEAR_NGRAMS
    vec = TfidfVectorizer(analyzer=analyzer, ngram_range=ngram_range, sublinear_tf=True)
    X, Xd, Xs = vec.fit_transform(tx), vec.transform(dx), vec.transform(sx)
    dev_acc = {}
    for alpha in topic_baselines.RIDGE_ALPHA_GRID:
        model = _reference(alpha).fit(X, ty)
        dev_acc[alpha] = float(np.mean(model.predict(Xd) == np.asarray(dy)))
    best = max(dev_acc.values())
    chosen = max(a for a in topic_baselines.RIDGE_ALPHA_GRID if dev_acc[a] == best)  # ties: the larger alpha
    assert (params["alpha"], params["dev_accuracy"]) == (chosen, round(best, 6))
    assert params["alpha_grid"] == list(topic_baselines.RIDGE_ALPHA_GRID) and params["model"] == "ridge"
    assert params["n_features"] == X.shape[1]  # the vocabulary of train alone
    assert len(set(dev_acc.values())) > 1  # the grid matters on this variant: the choice is a real one
    assert preds.tolist() == _reference(chosen).fit(X, ty).predict(Xs).tolist()


def test_a_tie_on_dev_goes_to_the_larger_alpha(monkeypatch):
    """Every alpha scores the same on this dev split, so the choice is the tie rule's alone."""
    x = ["goal match team", "vote party law", "team wins cup", "law passed vote"]
    y = ["sports", "politics", "sports", "politics"]
    for grid in ((0.01, 0.1, 1.0), (1.0, 0.01, 0.1)):
        monkeypatch.setattr(topic_baselines, "RIDGE_ALPHA_GRID", grid)
        _, params = topic_baselines.fit_predict("char_linear", x, y, x, y, ["the team match"])
        assert (params["alpha"], params["dev_accuracy"]) == (1.0, 1.0)


def _write(root: Path, variant: str, splits: dict[str, list[dict]]) -> None:
    for split, rows in splits.items():
        write_sib_tsv(root / variant / f"{split}.tsv", rows)


def _rotate_labels(rows: list[dict]) -> list[dict]:
    """Every label replaced by the next one in sorted order: every gold label is wrong."""
    labels = sorted({r["category"] for r in rows})
    nxt = {a: labels[(i + 1) % len(labels)] for i, a in enumerate(labels)}
    return [{**r, "category": nxt[r["category"]]} for r in rows]


def test_poisoned_test_labels_change_nothing_but_the_score(tmp_path):
    variant = "eng_Latn"
    clean = {s: read_sib_tsv(SIB / variant / f"{s}.tsv") for s in ("train", "dev", "test")}
    _write(tmp_path / "clean", variant, clean)
    _write(tmp_path / "poisoned_test", variant, {**clean, "test": _rotate_labels(clean["test"])})
    _write(tmp_path / "poisoned_dev", variant, {**clean, "dev": _rotate_labels(clean["dev"])})
    cfg = RunConfig(baselines=("char_linear",))
    rows = {name: run(load_dataset_dir(tmp_path / name), cfg)[0] for name in ("clean", "poisoned_test",
                                                                                "poisoned_dev")}
    # the same alpha, dev accuracy and features, so the same model ...
    assert rows["poisoned_test"]["params"] == rows["clean"]["params"]
    # ... and the same predictions: each run's count is what the clean predictions score against its labels
    preds, _ = topic_baselines.fit_predict("char_linear", *(
        [r[c] for r in clean[s]] for s, c in (("train", "text"), ("train", "category"), ("dev", "text"),
                                               ("dev", "category"), ("test", "text"))))
    for name, test in (("clean", clean["test"]), ("poisoned_test", _rotate_labels(clean["test"]))):
        assert rows[name]["correct"] == sum(p == r["category"] for p, r in zip(preds.tolist(), test))
    assert rows["poisoned_test"]["correct"] < 30 < rows["clean"]["correct"]
    # the control: dev labels are what selection reads
    dev_clean = json.loads(rows["clean"]["params"])["dev_accuracy"]
    dev_poisoned = json.loads(rows["poisoned_dev"]["params"])["dev_accuracy"]
    assert dev_poisoned < 0.3 < dev_clean


def test_without_a_dev_split_alpha_is_the_grids_middle():
    (tx, ty), (sx, _) = _split("eng_Latn", "train", 3), _split("eng_Latn", "test", 3)
    _, params = topic_baselines.fit_predict("char_linear", tx, ty, [], [], sx)
    assert (params["alpha"], params["alpha_grid"], params["dev_accuracy"]) == (0.1, [0.1], None)
    assert topic_baselines.RIDGE_ALPHA == sorted(topic_baselines.RIDGE_ALPHA_GRID)[2]


# -- determinism, the floor, the registry --------------------------------------------------------------------


def test_same_inputs_and_seed_give_the_same_predictions():
    (tx, ty), (dx, dy), (sx, _) = (_split("tha_Thai", s, 2) for s in ("train", "dev", "test"))
    first = topic_baselines.fit_predict("char_linear", tx, ty, dx, dy, sx, seed=3)
    again = topic_baselines.fit_predict("char_linear", tx, ty, dx, dy, sx, seed=3)
    assert first[0].tolist() == again[0].tolist() and first[1] == again[1]


@pytest.mark.parametrize("variant,floor", [
    # SIB-200 Table 8's MLP + 4 points; ours scores 74.5 and 75.0 (BENCHMARKS.md), char_tfidf 63.7 and 70.6
    ("eng_Latn", 59.91 + 4), ("hin_Deva", 66.71 + 4)])
def test_beats_the_published_mlp_by_four_points_on_a_shipped_variant(variant, floor):
    ds = load_dataset_dir(SIB, variants=[variant])
    strong, tfidf = run(ds, RunConfig(baselines=("char_linear", "char_tfidf")))
    assert strong["n"] == 204
    assert 100 * strong["accuracy"] >= floor
    assert strong["correct"] > tfidf["correct"]


def test_registered_as_a_default_topic_baseline_and_documented():
    assert "char_linear" in default_baselines("topic")
    assert {"mlp", "char_tfidf", "majority"} <= set(topic_baselines.TOPIC_BASELINES)  # the old names still work
    docs = (ROOT / "docs" / "evaluate.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"^\| `(\w+)` \|", docs, flags=re.M))
    assert set(topic_baselines.TOPIC_BASELINES) <= documented
