"""Properties of performance potential and PRR that hold for any records."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from builder.evaluation.disparity import DisparityError, analyse, fit_potentials, language_potentials

SETTINGS = settings(max_examples=5, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])


def make_records(seed: int, n_models: int = 4, n_langs: int = 5, n_tasks: int = 3, *,
                 missing: float = 0.2, noise: float = 3.0, model_sd: float = 6.0) -> pd.DataFrame:
    """Scores 60 + model + language + task + noise, with a share of cells left out."""
    rng = np.random.default_rng(seed)
    u = rng.normal(0, model_sd, n_models)
    a = rng.normal(0, 8, n_langs)
    b = rng.normal(0, 8, n_tasks)
    rows = []
    for m in range(n_models):
        for l in range(n_langs):
            for t in range(n_tasks):
                if rng.random() < missing and not (l == 0 or t == 0):
                    continue
                rows.append((f"m{m}", f"l{l}", f"t{t}", 60 + u[m] + a[l] + b[t] + rng.normal(0, noise)))
    return pd.DataFrame(rows, columns=["model", "language", "task", "score"])


seeds = st.integers(min_value=0, max_value=10_000)


@SETTINGS
@given(seeds)
def test_prr_relations_on_every_record_and_cell(seed):
    res = analyse(make_records(seed))
    r = res.records
    # PRR x PP = score, and PP is the grid value of the record's language-task pair
    np.testing.assert_allclose(r["prr"] * r["potential"], r["score"], rtol=1e-12)
    grid = res.grid.set_index(["language", "task"])["potential"]
    np.testing.assert_allclose(r["potential"], grid.loc[list(zip(r["language"], r["task"]))].to_numpy())
    for _, cell in r.groupby(["language", "task"]):
        # one denominator per cell: the cell's best model has its highest PRR, ratios are score ratios
        best = cell.loc[cell["score"].idxmax()]
        assert best["prr"] == cell["prr"].max()
        np.testing.assert_allclose(cell["prr"].to_numpy() / best["prr"],
                                   cell["score"].to_numpy() / best["score"], rtol=1e-12)
    for model, own in r.groupby("model"):
        # a model's best record (its best language-task) bounds its Mean-PRR from above
        mean = res.models.set_index("model").loc[model, "mean_prr"]
        assert own["prr"].min() <= mean <= own["prr"].max()


@SETTINGS
@given(seeds, st.sampled_from([0.01, 0.5, 3.0, 100.0]))
def test_prr_does_not_depend_on_the_score_scale(seed, c):
    # 0-1 fractions or 0-100 percentages give the same PRR; potentials scale with the scores
    t = make_records(seed)
    base = analyse(t)
    scaled = analyse(t.assign(score=t["score"] * c))
    np.testing.assert_allclose(scaled.records["prr"], base.records["prr"], rtol=1e-4)
    np.testing.assert_allclose(scaled.records["potential"], base.records["potential"] * c, rtol=1e-4)
    np.testing.assert_allclose(scaled.models[["mean_prr", "std_prr", "cv_prr"]],
                               base.models[["mean_prr", "std_prr", "cv_prr"]], rtol=1e-3)


@SETTINGS
@given(seeds, st.randoms(use_true_random=False))
def test_row_order_does_not_matter(seed, rnd):
    t = make_records(seed)
    order = list(range(len(t)))
    rnd.shuffle(order)
    a, b = analyse(t), analyse(t.iloc[order])
    pd.testing.assert_frame_equal(a.models, b.models, rtol=1e-6)
    pd.testing.assert_frame_equal(a.languages, b.languages, rtol=1e-6)


@SETTINGS
@given(seeds, st.floats(min_value=0.5, max_value=20))
def test_a_model_that_scores_delta_more_everywhere_has_higher_prr(seed, delta):
    t = make_records(seed, n_models=3)
    clone = t[t["model"] == "m0"].assign(model="m0-plus", score=lambda d: d["score"] + delta)
    res = analyse(pd.concat([t, clone], ignore_index=True))
    r = res.records.set_index(["model", "language", "task"])["prr"]
    assert (r.loc["m0-plus"] > r.loc["m0"]).all()
    m = res.models.set_index("model")
    assert m.loc["m0-plus", "mean_prr"] > m.loc["m0", "mean_prr"]


@SETTINGS
@given(seeds)
def test_balanced_design_potential_is_the_margins_and_lp_is_the_mean_score(seed):
    # With every (model, language, task) present, the ML fixed effects are the OLS ones:
    # PP = language mean + task mean - grand mean, and LP (mean over all tasks) = the
    # language's mean score, so only uneven coverage separates the two rankings.
    t = make_records(seed, missing=0.0)
    res = analyse(t, task_mean="all")
    lm, tm, g = t.groupby("language")["score"].mean(), t.groupby("task")["score"].mean(), t["score"].mean()
    expect = res.grid["language"].map(lm) + res.grid["task"].map(tm) - g
    np.testing.assert_allclose(res.grid["potential"], expect, rtol=1e-5)
    langs = res.languages
    np.testing.assert_allclose(langs["potential"], langs["mean_score"], rtol=1e-5)
    assert (langs["rank_potential"] == langs["rank_mean_score"]).all()


def test_paper_and_literal_task_means_differ_by_one_constant():
    res = analyse(make_records(3))
    paper = language_potentials(res.grid, res.records, "paper").set_index("language")["potential"]
    literal = language_potentials(res.grid, res.records, "all").set_index("language")["potential"]
    shift = (paper - literal).to_numpy()
    assert np.ptp(shift) < 1e-9
    ref = res.grid[res.grid["task"] == res.fit.reference_task]["potential"].mean()
    others = res.grid[res.grid["task"] != res.fit.reference_task]["potential"].mean()
    assert shift[0] == pytest.approx((others - ref) / 3)  # 3 tasks: drop the reference's share


def test_no_model_variance_falls_back_to_ols_fixed_effects():
    # three models share one set of scores up to +e, -e, 0: their means are equal, so the ML
    # random-intercept variance is 0 and the ML fixed effects are the OLS ones (the margins)
    base = make_records(1, n_models=1, missing=0.0)
    e = np.random.default_rng(5).normal(0, 2, len(base))
    same = pd.concat([base.assign(model=f"m{k}", score=base["score"] + sign * e)
                      for k, sign in enumerate((1, -1, 0))], ignore_index=True)
    grid, fit = fit_potentials(same)
    assert fit.boundary and fit.random_intercept_var <= 1e-8 * fit.residual_var
    lm, tm, g = same.groupby("language")["score"].mean(), same.groupby("task")["score"].mean(), same["score"].mean()
    np.testing.assert_allclose(grid["potential"], grid["language"].map(lm) + grid["task"].map(tm) - g, rtol=1e-9)


def test_model_summary_uses_the_sample_standard_deviation():
    res = analyse(make_records(11))
    for model, group in res.records.groupby("model"):
        row = res.models.set_index("model").loc[model]
        assert row["std_prr"] == pytest.approx(np.std(group["prr"], ddof=1))
        assert row["cv_prr"] == pytest.approx(row["std_prr"] / row["mean_prr"])
        assert row["n_records"] == len(group)


def test_one_model_is_refused():
    t = make_records(0, n_models=1)
    with pytest.raises(DisparityError, match="at least 2 models, found 1"):
        analyse(t)


def test_too_few_records_is_refused():
    t = pd.DataFrame({"model": ["a", "b", "a"], "language": ["en", "en", "sw"], "task": ["x"] * 3,
                      "score": [1.0, 2.0, 3.0]})
    with pytest.raises(DisparityError, match="too few records to fit: 3 records for 2 fixed effects"):
        analyse(t)


def test_non_positive_potential_is_refused():
    t = make_records(2)
    t.loc[t["language"] == "l4", "score"] -= 200  # scores far below zero: PRR would flip sign
    with pytest.raises(DisparityError, match="language 'l4' on task .* not positive, so PRR is undefined"):
        analyse(t)


def test_unknown_task_mean_is_refused():
    with pytest.raises(ValueError, match="task_mean must be one of"):
        analyse(make_records(0), task_mean="median")
