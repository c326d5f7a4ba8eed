"""``annotation/agreement.py`` where mutation showed the tests free (issue 27): the reasons Fleiss' kappa is
not given, the pairwise tables with missing ratings, the confusion list's length and what it counts, and
the report's keys, defaults and the measure its per-label intervals come from."""
from __future__ import annotations

import warnings

import numpy as np

from annotation.agreement import agreement_report, confusions, library_alpha, library_fleiss, pairwise_tables
from annotation.bootstrap import bootstrap
from annotation.importer import Annotations, from_judgements
from schemas.records import Judgement as J

LABELS = tuple("abcdef")


def _ann(codes, annotators=None):
    codes = np.asarray(codes, dtype=np.int32)
    names = annotators or tuple(f"r{j}" for j in range(codes.shape[1]))
    return Annotations(tuple(str(i) for i in range(len(codes))), names, LABELS[:codes.max() + 1], codes)


def test_the_reasons_fleiss_kappa_is_not_given():
    assert library_fleiss(np.zeros((0, 3))) == (None, "no items")
    assert library_fleiss(np.array([[2, 0], [1, 2]])) == (None, (
        "raters per item differ (min 2, max 3); Fleiss' kappa needs the same number of raters for every item: "
        "read krippendorff_alpha instead"))
    assert library_fleiss(np.array([[1, 0], [0, 1]])) == (None, "every item has a single rating")


def test_pairwise_tables_with_missing_ratings_and_a_pair_with_nothing_shared():
    codes = [[0, -1, 0], [1, -1, 1], [0, 0, -1], [-1, 1, 1], [-1, 0, 0]]  # r0 and r1 share one item
    tables, kappas = pairwise_tables(_ann(codes))
    assert tables["n_shared"] == [[3, 1, 2], [1, 3, 2], [2, 2, 4]]
    assert tables["percent_agreement"] == [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]
    codes = [[0, -1, 0], [1, -1, 1], [-1, 0, 1], [-1, 1, 1]]  # r0 and r1 share nothing; r1, r2 come after
    tables, _ = pairwise_tables(_ann(codes))
    assert tables["n_shared"] == [[2, 0, 2], [0, 2, 2], [2, 2, 4]]
    assert tables["percent_agreement"][0][1] is None and tables["cohen_kappa"][0][1] is None
    assert tables["percent_agreement"][1][2] == 0.5


def _many_confusions():
    """Two raters, 15 items: every pair of the six labels confused once, (a, b) three times, (a, c) twice; and
    items where one rating is missing, which no confusion counts."""
    pairs = [(i, j) for i in range(6) for j in range(i + 1, 6)]
    codes = [[i, j] for i, j in pairs] + [[0, 1], [1, 0], [0, 2]] + [[3, -1], [-1, 4], [5, -1]]
    return _ann(codes)


def test_confusions_counts_only_items_both_raters_rated_and_lists_ten_by_default():
    ann = _many_confusions()
    top = confusions(ann)
    assert len(top) == 10
    assert top[:3] == [{"labels": ["a", "b"], "count": 3}, {"labels": ["a", "c"], "count": 2},
                       {"labels": ["a", "d"], "count": 1}]
    every = confusions(ann, 100)
    assert len(every) == 15 and sum(c["count"] for c in every) == 18
    assert confusions(_ann([[0, 1], [0, 0], [2, 2]]), 100) == [{"labels": ["a", "b"], "count": 1}]  # no zeros


def test_the_report_of_uneven_ratings_gives_no_fleiss_and_alpha_intervals_per_label():
    codes = np.array([[0, 0, -1], [1, 1, 1], [0, 1, 0], [1, -1, 1], [2, 2, 2], [2, 0, -1], [1, 1, 1], [0, 0, 0]])
    ann = _ann(codes, ("ann", "bea", "cal"))
    rep = agreement_report(ann, n_resamples=200, seed=5, level=0.9)
    assert rep["annotators"] == ["ann", "bea", "cal"]
    assert rep["fleiss_kappa"] is None and rep["ci"]["fleiss_kappa"] is None
    assert rep["observed_agreement"]["fleiss_kappa"] is None is rep["expected_agreement"]["fleiss_kappa"]
    assert rep["fleiss_kappa_reason"].startswith("raters per item differ (min 2, max 3)")
    boot = bootstrap(ann.codes, 3, n_resamples=200, seed=5, level=0.9)
    assert rep["per_category_measure"] == "krippendorff_alpha_one_vs_rest"
    assert rep["per_category_ci"] == {ann.labels[k]: None if v is None else [round(v[0], 6), round(v[1], 6)]
                                      for k, v in boot.per_category_ci["krippendorff_per_category"].items()}
    assert rep["bootstrap"] == {"method": "percentile", "unit": "item", "n_resamples": 200, "seed": 5,
                                "level": 0.9, "n_valid": boot.n_valid}
    assert set(rep["ci"]) == set(boot.ci)
    assert len(agreement_report(ann, n_resamples=20, top_confusions=1)["confusions"]) == 1


def test_two_ratings_for_every_item_is_constant_and_gives_fleiss_per_label():
    rep = agreement_report(_ann([[0, 0], [1, 1], [0, 1], [2, 2], [1, 1], [0, 0]]), n_resamples=50)
    assert rep["per_category_measure"] == "fleiss_kappa_one_vs_rest" and rep["fleiss_kappa"] is not None


def test_the_report_defaults():
    rep = agreement_report(_many_confusions())
    assert {k: rep["bootstrap"][k] for k in ("n_resamples", "seed", "level")} == {
        "n_resamples": 1000, "seed": 0, "level": 0.95}
    assert len(rep["confusions"]) == 10


def test_a_report_of_one_item():
    rep = agreement_report(_ann([[0, 1]]), n_resamples=20)
    assert (rep["n_items"], rep["ratings_per_item"]) == (1, {"min": 2, "max": 2, "mean": 2.0})
    assert rep["per_category_measure"] == "fleiss_kappa_one_vs_rest"
    # one pairable item whose two ratings use two labels: alpha is defined (0.0), not withheld
    assert rep["krippendorff_alpha"] == 0.0 and library_alpha(np.array([[1, 1]])) == 0.0


def test_where_fleiss_kappa_is_undefined_its_observed_and_expected_agreement_are_not_reported():
    """All ratings in one label: Fleiss' kappa is 0/0, and its parts (1.0 and 1.0 from the pair counts) are
    withheld with it, while Krippendorff's and Gwet's parts, defined there, are given."""
    from annotation.importer import from_judgements
    from schemas.records import Judgement as J

    ann = from_judgements([J(str(i), a, "x") for i in range(5) for a in "ab"], labels=["x", "y"])
    rep = agreement_report(ann, n_resamples=20)
    assert rep["fleiss_kappa"] is None
    assert rep["observed_agreement"] == {"fleiss_kappa": None, "krippendorff_alpha": 1.0, "gwet_ac1": 1.0}
    assert rep["expected_agreement"] == {"fleiss_kappa": None, "krippendorff_alpha": 1.0, "gwet_ac1": 0.0}


def test_a_report_where_every_rating_uses_one_label_warns_nothing():
    # Fleiss' kappa is 0/0 there: the report gives the reason, and no NumPy RuntimeWarning reaches the caller
    ann = from_judgements([J(str(i), a, "x") for i in range(3) for a in "ab"], labels=["x", "y"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rep = agreement_report(ann, n_resamples=20)
        assert library_fleiss(np.array([[2, 0], [2, 0]])) == (None, "undefined: all ratings use one label")
    assert rep["fleiss_kappa"] is None and rep["fleiss_kappa_reason"] == "undefined: all ratings use one label"


def test_a_report_of_one_annotator_has_no_mean_kappa_and_warns_nothing():
    # with no pair of annotators there is no kappa to average (and no mean of an empty list is taken)
    ann = from_judgements([J("1", "a", "x"), J("2", "a", "y")])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rep = agreement_report(ann, n_resamples=20)
    assert rep["n_annotators"] == 1 and rep["mean_cohen_kappa"] is None
