"""Tests that kill mutants of the evaluation statistics (``builder/evaluation/stats.py`` and
``builder/evaluation/disparity.py``; docs/testing.md).

Each test names the small bug it catches. Interval edges and the conventions
of the PRR paper (which mean, which standard deviation, which reference task)
are pinned with numbers computed here by hand or with an independent library.
"""
from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

from builder.evaluation.stats import CI_METHODS, accuracy_ci, chance_ci
from schemas.errors import SchemaError


# --- stats.py ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("level", [0, 0.0, 1, 1.0, -0.5, 1.5])
def test_the_confidence_level_must_lie_strictly_between_0_and_1(level):
    # Mutants: ``0 <= level < 1`` / ``0 < level <= 1`` (scipy then hangs or returns a degenerate interval).
    with pytest.raises(SchemaError, match=r"^confidence level must be in \(0, 1\); found "):
        accuracy_ci(3, 10, level=level)


def test_chance_interval_edges():
    # Mutants: ``n < 0`` (chance_ci(0) then divides by zero) and ``n <= 1`` (one item has an interval).
    assert all(math.isnan(x) for x in chance_ci(0))
    assert all(math.isnan(x) for x in chance_ci(-3))
    assert chance_ci(1) == (0.0, 1.0)
    assert chance_ci(4, p=0.5, level=0.5) == (0.25, 0.75)  # scipy.stats.binom(4, 0.5).interval(0.5) = (1, 3)


def test_bad_counts_are_refused_with_the_numbers():
    for correct, n in ((-1, 4), (5, 4), (0, -1)):
        with pytest.raises(SchemaError, match=rf"^need 0 <= correct <= n; found correct={correct}, n={n}$"):
            accuracy_ci(correct, n)
    with pytest.raises(SchemaError, match=r"^CI method must be one of wilson, clopper-pearson; found 'wald'$"):
        accuracy_ci(1, 4, method="wald")
    assert CI_METHODS == {"wilson": "wilson", "clopper-pearson": "exact"}


@pytest.mark.parametrize("method", ["wilson", "clopper-pearson"])
def test_intervals_match_statsmodels_at_other_levels_and_at_the_edges(method):
    from statsmodels.stats.proportion import proportion_confint

    sm = {"wilson": "wilson", "clopper-pearson": "beta"}[method]
    for correct, n, level in ((81, 263, 0.9), (15, 148, 0.99), (0, 20, 0.95), (20, 20, 0.95), (1, 1, 0.8)):
        low, high = accuracy_ci(correct, n, level=level, method=method)
        want = proportion_confint(correct, n, alpha=1 - level, method=sm)
        assert (low, high) == pytest.approx(want, abs=1e-9)
        assert (low == 0.0) is (correct == 0) and (high == 1.0) is (correct == n)


# --- disparity.py ------------------------------------------------------------------------------------------

def small_table() -> pd.DataFrame:
    """The docstring example of ``analyse``: 3 models x 2 languages x 2 tasks, balanced."""
    return pd.DataFrame({"model": list("aabbcc") * 2, "language": ["en", "sw"] * 6,
                         "task": ["x"] * 6 + ["y"] * 6,
                         "score": [80, 60, 70, 52, 90, 71, 60, 41, 50, 30, 70, 49]})


def test_result_tables_have_exactly_their_documented_columns():
    # Mutants: ``reset_index(drop=False)`` on the records or the potentials (an extra "index" column).
    from builder.evaluation.disparity import analyse

    table = small_table()
    table.index = range(100, 112)  # a caller's own index does not leak into the result
    res = analyse(table, task_mean="all")
    assert list(res.records.columns) == ["model", "language", "task", "score", "potential", "prr"]
    assert list(res.records.index) == list(range(12))
    assert list(res.potentials.columns) == ["language", "task", "potential", "n_records"]
    assert list(res.potentials.index) == list(range(4))
    assert res.task_mean == "all" and analyse(small_table()).task_mean == "paper"


def test_balanced_design_potentials_are_cell_means_by_hand():
    # In a balanced additive design the ML fixed effects are the OLS ones: PP = row mean + column mean - mean.
    from builder.evaluation.disparity import analyse

    t = small_table()
    res = analyse(t)
    lang, task, grand = t.groupby("language")["score"].mean(), t.groupby("task")["score"].mean(), t["score"].mean()
    for (lg, tk), pp in res.potentials.set_index(["language", "task"])["potential"].items():
        assert pp == pytest.approx(lang[lg] + task[tk] - grand, abs=1e-6)
    assert (res.potentials["n_records"] == 3).all()
    assert res.records["prr"].to_numpy() == pytest.approx(t["score"].to_numpy() / res.records["potential"].to_numpy())


def test_a_zero_or_negative_potential_is_refused_naming_the_first_pair(monkeypatch):
    # Mutants: ``potential < 0`` (a zero potential would divide by zero) and ``bad.iloc[1]``.
    import builder.evaluation.disparity as disparity

    real = disparity.fit_potentials

    def fake(table, potentials):
        grid, info = real(table)
        grid["potential"] = [potentials.get((lg, tk), 50.0) for lg, tk in zip(grid["language"], grid["task"])]
        return grid, info

    monkeypatch.setattr(disparity, "fit_potentials", lambda table: fake(table, {("sw", "y"): 0.0}))
    with pytest.raises(disparity.DisparityError, match=r"language 'sw' on task 'y' is 0, not positive"):
        disparity.analyse(small_table())
    monkeypatch.setattr(disparity, "fit_potentials",
                        lambda table: fake(table, {("sw", "x"): -2.0, ("en", "x"): -1.0}))
    with pytest.raises(disparity.DisparityError, match=r"language 'en' on task 'x' is -1, not positive"):
        disparity.analyse(small_table())  # en/x is the first record (sw/x the second)


def test_language_table_columns_ranks_and_the_papers_task_mean():
    # Mutants: ``len(tasks) == 2`` (the reference task kept in the paper's mean), rank ``method`` dropped,
    # ranks left as floats, an extra "index" column, another default ``task_mean``.
    from builder.evaluation.disparity import analyse, language_potentials

    res = analyse(small_table())
    pp = res.potentials.set_index(["language", "task"])["potential"]
    langs = res.languages.set_index("language")
    assert list(res.languages.columns) == ["language", "potential", "rank_potential", "mean_score",
                                           "rank_mean_score", "n_records", "n_tasks"]
    assert list(res.languages.index) == [0, 1]
    # two tasks: the paper's code averages over every task but the reference one ("x"), i.e. PP of "y"
    assert langs.loc["en", "potential"] == pytest.approx(pp[("en", "y")])
    assert langs.loc["sw", "potential"] == pytest.approx(pp[("sw", "y")])
    every = language_potentials(res.grid, res.records, "all").set_index("language")
    assert every.loc["en", "potential"] == pytest.approx((pp[("en", "x")] + pp[("en", "y")]) / 2)
    assert language_potentials(res.grid, res.records).equals(res.languages)  # "paper" is the default
    for col in ("rank_potential", "rank_mean_score", "n_records", "n_tasks"):
        assert res.languages[col].dtype.kind == "i", col
    with pytest.raises(ValueError, match=r"^task_mean must be one of \('paper', 'all'\), found 'mean'$"):
        language_potentials(res.grid, res.records, "mean")


def test_tied_languages_share_the_best_rank():
    # ``rank(method="min")``: three languages tied at the top all get rank 1 (the average would give 2).
    from builder.evaluation.disparity import language_potentials

    grid = pd.DataFrame({"language": ["a", "b", "c", "d"], "task": ["x"] * 4, "potential": [70.0, 70, 70, 60]})
    rec = pd.DataFrame({"language": ["a", "b", "c", "d"], "task": ["x"] * 4, "score": [50.0, 50, 50, 40]})
    out = language_potentials(grid, rec).set_index("language")
    assert out["rank_potential"].tolist() == [1, 1, 1, 4]
    assert out["rank_mean_score"].tolist() == [1, 1, 1, 4]


def test_too_few_records_for_the_fixed_effects_is_refused():
    # 2 languages and 3 tasks: 1 + 1 + 2 = 4 fixed effects plus 2 variances need more than 5 records.
    # Mutant: ``n_fe = 1 + (L - 1) - (T - 1)``.
    from builder.evaluation.disparity import DisparityError, fit_potentials

    t = pd.DataFrame({"model": ["a", "b", "a", "b", "a"], "language": ["en", "sw", "en", "sw", "en"],
                      "task": ["x", "x", "y", "y", "z"], "score": [80.0, 60, 70, 50, 65]})
    with pytest.raises(DisparityError, match=r"^too few records to fit: 5 records for 4 fixed effects plus 2 "
                                             r"variances$"):
        fit_potentials(t)


DATA = __import__("pathlib").Path(__file__).parents[1] / "data" / "disparity"


def test_the_fit_is_maximum_likelihood_as_the_paper_fits_it():
    # Mutants: ``reml=True`` / ``reml`` dropped (statsmodels' default is REML). The figures are those of
    # tests/golden/disparity/summary.md, which tests/test_golden_sources.py checks against a numpy ML fit.
    from builder.evaluation.disparity import analyse
    from builder.evaluation.disparity_io import read_records

    res = analyse(read_records(DATA / "small_records.csv").table)
    assert res.fit.log_likelihood == pytest.approx(-133.168, abs=0.005)
    assert res.fit.random_intercept_var == pytest.approx(27.78, abs=0.01)
    assert res.fit.residual_var == pytest.approx(5.971, abs=0.005)
    assert res.fit.tried == {"lbfgs": "-133.17", "bfgs": "-133.17"} and res.fit.optimizer == "lbfgs"


class FakeFit:
    """What ``fit_potentials`` reads from a statsmodels MixedLM result."""

    def __init__(self, llf, sigma_u2=20.0, scale=1.0):
        self.llf, self.scale, self.converged = llf, scale, True
        self.cov_re = pd.DataFrame([[sigma_u2]])

    def predict(self, exog):
        return np.full(len(exog), 50.0)


def fake_fits(monkeypatch, results: dict):
    """Make MixedLM.fit return (or raise) ``results[method]`` and record how it was called."""
    from statsmodels.regression.mixed_linear_model import MixedLM

    calls = []

    def fit(self, *args, **kwargs):
        calls.append(kwargs)
        out = results[kwargs.get("method")]
        if isinstance(out, Exception):
            raise out
        warnings.warn(f"fake {kwargs.get('method')} fit", UserWarning)
        return out

    monkeypatch.setattr(MixedLM, "fit", fit)
    return calls


def test_both_optimisers_are_tried_by_ml_and_the_better_wins(monkeypatch):
    from builder.evaluation.disparity import TIE, fit_potentials

    calls = fake_fits(monkeypatch, {"lbfgs": FakeFit(-100.0), "bfgs": FakeFit(-90.0)})
    _, info = fit_potentials(small_table())
    assert calls == [{"method": "lbfgs", "reml": False}, {"method": "bfgs", "reml": False}]
    assert (info.optimizer, info.tried) == ("bfgs", {"lbfgs": "-100.00", "bfgs": "-90.00"})
    assert info.warnings == ("UserWarning: fake bfgs fit",)  # the warnings of the fit that was kept
    # a tie within TIE goes to L-BFGS, the paper's optimiser (mutant: ``>`` instead of ``>=``)
    fake_fits(monkeypatch, {"lbfgs": FakeFit(-100.0 - TIE), "bfgs": FakeFit(-100.0)})
    assert fit_potentials(small_table())[1].optimizer == "lbfgs"
    fake_fits(monkeypatch, {"lbfgs": FakeFit(float("inf")), "bfgs": FakeFit(-90.0)})
    _, info = fit_potentials(small_table())
    assert info.optimizer == "bfgs" and info.tried["lbfgs"] == "non-finite log-likelihood (inf)"


def test_failed_fits_are_named(monkeypatch):
    from builder.evaluation.disparity import DisparityError, fit_potentials

    fake_fits(monkeypatch, {"lbfgs": np.linalg.LinAlgError("singular"), "bfgs": FakeFit(-90.0)})
    assert fit_potentials(small_table())[1].tried == {"lbfgs": "failed: LinAlgError", "bfgs": "-90.00"}
    fake_fits(monkeypatch, {"lbfgs": np.linalg.LinAlgError("singular"), "bfgs": ValueError("nan")})
    with pytest.raises(DisparityError, match=r"^the mixed model could not be fitted: lbfgs failed: LinAlgError; "
                                             r"bfgs failed: ValueError$"):
        fit_potentials(small_table())


@pytest.mark.parametrize("sigma_u2, scale, boundary", [
    (1e-8, 1.0, True),      # exactly at the threshold counts as the boundary (``<=``, not ``<``)
    (5e-7, 100.0, True),    # 5e-7 <= 1e-8 * 100 (mutant ``BOUNDARY / scale``: 5e-7 > 1e-10)
    (5e-7, 1.0, False),
])
def test_the_boundary_is_relative_to_the_residual_variance(monkeypatch, sigma_u2, scale, boundary):
    from builder.evaluation.disparity import fit_potentials

    fake_fits(monkeypatch, {m: FakeFit(-90.0, sigma_u2, scale) for m in ("lbfgs", "bfgs")})
    grid, info = fit_potentials(small_table())
    assert info.boundary is boundary
    assert (info.converged, info.reference_language, info.reference_task) == (True, "en", "x")
    assert (info.random_intercept_var, info.residual_var) == (sigma_u2, scale)
    if not boundary:
        assert (grid["potential"] == 50.0).all()  # the mixed model's prediction, not OLS
    else:  # at the boundary the ML fixed effects are the OLS ones: here (balanced) row + column - grand mean
        t = small_table()
        lang, task = t.groupby("language")["score"].mean(), t.groupby("task")["score"].mean()
        want = [lang[lg] + task[tk] - t["score"].mean() for lg, tk in zip(grid["language"], grid["task"])]
        assert grid["potential"].tolist() == pytest.approx(want)


def test_n_fe_plus_two_records_are_enough():
    # 2 languages, 1 task: 2 fixed effects + 2 variances; 4 records fit (mutant ``<= n_fe + 2`` refuses them).
    from builder.evaluation.disparity import fit_potentials

    t = pd.DataFrame({"model": ["a", "b", "a", "b"], "language": ["en", "en", "sw", "sw"], "task": ["x"] * 4,
                      "score": [80.0, 70, 60, 52]})
    grid, info = fit_potentials(t)
    assert info.n_fixed_effects == 2
    assert grid["potential"].tolist() == pytest.approx([75.0, 56.0], abs=1e-3)


def test_a_gold_answer_outside_1_to_4_names_its_question_else_its_row_counted_from_one():
    from builder.evaluation.mc_baselines import _gold

    with pytest.raises(SchemaError) as err:
        _gold(pd.DataFrame({"question_id": ["q1", "q2"], "correct_answer_num": [2, 5]}))
    assert str(err.value) == "q2, field correct_answer_num: correct_answer_num must be 1-4; found 5"
    with pytest.raises(SchemaError) as err:
        _gold(pd.DataFrame({"correct_answer_num": [2, "x"]}))
    assert str(err.value) == "row 2, field correct_answer_num: correct_answer_num must be 1-4; found 'x'"


def test_a_prediction_file_entry_that_is_not_an_object_is_named_by_its_row_counted_from_one(tmp_path):
    from builder.evaluation.llm_scoring import read_prediction_rows

    path = tmp_path / "predictions.json"
    path.write_text('[{"id": "1", "prediction": "A"}, 5]', encoding="utf-8")
    with pytest.raises(SchemaError) as err:
        read_prediction_rows(path)
    assert str(err.value) == f"{path}, row 2: expected one JSON object per row"
