"""Agreement measures against published worked examples, and their invariants.

Sources of the expected numbers:
- Fleiss (1971) table as printed in Wikipedia's "Fleiss' kappa" article (worked example):
  10 subjects, 14 raters, 5 categories; P_bar = 0.378, P_e = 0.213, kappa = 0.210,
  p_j = 0.143, 0.200, 0.279, 0.150, 0.229.
- Krippendorff, "Computing Krippendorff's Alpha-Reliability" (2011), section C: 4 coders x
  12 units with missing values, nominal alpha = 0.743.
- The `krippendorff` package README / Wikipedia "Krippendorff's alpha": 3 coders x 15 units,
  nominal alpha = 0.691.
- irrCAC (Gwet) documentation: vignette "Calculating Chance-corrected Agreement Coefficients"
  on `cont3x3abstractors` (2 raters): Cohen's kappa 0.7964094, Gwet's AC1 0.8493305,
  Krippendorff's alpha 0.7972585, percent agreement 0.89; and `gwet.ac1.raw(cac.raw4raters)`
  (= Krippendorff's 4 x 12 data): pa 0.818, pe 0.190, AC1 0.775 (as asserted in the irrCAC
  Python port's tests, afergadis/irrCAC test/unit/irrCAC/raw/test_gwet.py).
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import aggregate_raters, fleiss_kappa

from annotation.agreement import agreement_report, library_alpha, library_fleiss
from annotation.importer import Annotations, code_counts
from annotation.measures import fast_measures, item_features, measures_from_sums

FLEISS_TABLE = np.array([
    [0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7],
])

# Krippendorff (2011): rows are units 1..12, columns coders A..D, values 1..5 -> codes 0..4, -1 missing
KRIPP_4X12 = np.array([
    [0, 0, -1, 0], [1, 1, 2, 1], [2, 2, 2, 2], [2, 2, 2, 2], [1, 1, 1, 1], [0, 1, 2, 3],
    [3, 3, 3, 3], [0, 0, 1, 0], [1, 1, 1, 1], [-1, 4, 4, 4], [-1, -1, 0, 0], [-1, 2, -1, -1],
])

# krippendorff package docs: 3 coders x 15 units (values 1..4 -> codes 0..3)
_nan = -1
KRIPP_3X15 = np.array([
    [_nan, _nan, _nan, _nan, _nan, 3, 4, 1, 2, 1, 1, 3, 3, _nan, 3],
    [1, _nan, 2, 1, 3, 3, 4, 3, _nan, _nan, _nan, _nan, _nan, _nan, _nan],
    [_nan, _nan, 2, 1, 3, 4, 4, _nan, 2, 1, 1, 3, 3, _nan, 4],
]).T
KRIPP_3X15 = np.where(KRIPP_3X15 > 0, KRIPP_3X15 - 1, -1)

ABSTRACTORS = np.array([[13, 0, 0], [0, 20, 7], [0, 4, 56]])  # irrCAC cont3x3abstractors


def _codes_from_table(table: np.ndarray) -> np.ndarray:
    """Items x raters codes whose per-item counts are ``table`` (raters are interchangeable)."""
    return np.array([np.repeat(np.arange(table.shape[1]), row) for row in table])


def _codes_from_contingency(t: np.ndarray) -> np.ndarray:
    return np.array([[i, j] for i in range(t.shape[0]) for j in range(t.shape[1]) for _ in range(t[i, j])])


def _ann(codes, n_labels, names=None):
    codes = np.asarray(codes, dtype=np.int32)
    labels = tuple(names or (f"c{k}" for k in range(n_labels)))
    return Annotations(tuple(str(i) for i in range(len(codes))), tuple(f"r{j:02d}" for j in range(codes.shape[1])),
                       labels, codes)


def test_fleiss_wikipedia_worked_example():
    kappa, reason = library_fleiss(FLEISS_TABLE)
    assert reason is None and kappa == pytest.approx(0.210, abs=5e-4)
    fast = fast_measures(_codes_from_table(FLEISS_TABLE), 5)
    assert fast["fleiss_kappa"] == pytest.approx(kappa, abs=1e-12)
    assert fast["fleiss_observed"] == pytest.approx(0.378, abs=5e-4)
    assert fast["fleiss_expected"] == pytest.approx(0.213, abs=5e-4)
    # the codes -> counts path agrees with statsmodels' aggregate_raters
    counts, _ = aggregate_raters(_codes_from_table(FLEISS_TABLE), n_cat=5)
    np.testing.assert_array_equal(counts, FLEISS_TABLE)
    np.testing.assert_array_equal(code_counts(_codes_from_table(FLEISS_TABLE), 5), FLEISS_TABLE)


def test_fleiss_per_category_matches_one_vs_rest_statsmodels():
    rep = agreement_report(_ann(_codes_from_table(FLEISS_TABLE), 5), n_resamples=0)
    assert rep["per_category_measure"] == "fleiss_kappa_one_vs_rest"
    for k in range(5):
        binary = np.stack([FLEISS_TABLE[:, k], 14 - FLEISS_TABLE[:, k]], axis=1)
        assert rep["per_category"][f"c{k}"] == pytest.approx(fleiss_kappa(binary), abs=1e-6)
    # Fleiss' category kappa formula, category 1: p_1 = 0.143, kappa_1 = 1 - sum n(14-n) / (N n (n-1) p q)
    p1 = FLEISS_TABLE[:, 0].sum() / 140
    k1 = 1 - (FLEISS_TABLE[:, 0] * (14 - FLEISS_TABLE[:, 0])).sum() / (10 * 14 * 13 * p1 * (1 - p1))
    assert rep["per_category"]["c0"] == pytest.approx(k1, abs=1e-6)


def test_krippendorff_2011_four_coders_twelve_units():
    counts = code_counts(KRIPP_4X12, 5)
    assert library_alpha(counts) == pytest.approx(0.743, abs=5e-4)
    assert fast_measures(KRIPP_4X12, 5)["krippendorff_alpha"] == pytest.approx(library_alpha(counts), abs=1e-12)


def test_krippendorff_package_docs_three_coders_fifteen_units():
    counts = code_counts(KRIPP_3X15, 4)
    assert library_alpha(counts) == pytest.approx(0.691, abs=5e-4)
    assert fast_measures(KRIPP_3X15, 4)["krippendorff_alpha"] == pytest.approx(0.691358, abs=1e-6)


def test_gwet_ac1_irrcac_raw4raters():
    m = fast_measures(KRIPP_4X12, 5)
    assert round(m["gwet_observed"], 3) == 0.818
    assert round(m["gwet_expected"], 3) == 0.190
    assert round(m["gwet_ac1"], 3) == 0.775


def test_two_rater_irrcac_abstractors_table():
    codes = _codes_from_contingency(ABSTRACTORS)
    rep = agreement_report(_ann(codes, 3), n_resamples=0)
    assert rep["gwet_ac1"] == pytest.approx(0.8493305, abs=1e-6)
    assert rep["mean_cohen_kappa"] == pytest.approx(0.7964094, abs=1e-6)
    assert rep["krippendorff_alpha"] == pytest.approx(0.7972585, abs=1e-6)
    assert rep["percent_agreement"] == pytest.approx(0.89, abs=1e-9)
    fast = fast_measures(codes, 3)
    assert fast["mean_cohen_kappa"] == pytest.approx(0.7964094, abs=1e-6)


def test_fast_path_matches_libraries_on_full_data_with_missing_ratings():
    rng = np.random.default_rng(7)
    n, raters, k = 3000, 5, 8
    truth = rng.integers(0, k, n)
    codes = np.where(rng.random((n, raters)) < 0.55, truth[:, None], rng.integers(0, k, (n, raters)))
    codes[rng.random((n, raters)) < 0.25] = -1
    codes[:, 0] = np.where((codes >= 0).sum(axis=1) == 0, truth, codes[:, 0])
    rep = agreement_report(_ann(codes, k), n_resamples=0)
    fast = fast_measures(codes, k)
    assert rep["fleiss_kappa"] is None and "raters per item differ" in rep["fleiss_kappa_reason"]
    X, layout = item_features(codes, k)
    cat = measures_from_sums(X.sum(axis=0, keepdims=True), layout)["krippendorff_per_category"][0]
    assert rep["per_category_measure"] == "krippendorff_alpha_one_vs_rest"
    assert [rep["per_category"][f"c{j}"] for j in range(k)] == pytest.approx(cat.tolist(), abs=1e-6)
    assert fast["krippendorff_alpha"] == pytest.approx(rep["krippendorff_alpha"], abs=1e-6)
    assert fast["mean_cohen_kappa"] == pytest.approx(rep["mean_cohen_kappa"], abs=1e-6)
    # complete data: Fleiss too
    full = np.where(rng.random((n, raters)) < 0.55, truth[:, None], rng.integers(0, k, (n, raters)))
    rep = agreement_report(_ann(full, k), n_resamples=0)
    fast = fast_measures(full, k)
    for m in ("fleiss_kappa", "krippendorff_alpha", "mean_cohen_kappa", "gwet_ac1"):
        assert fast[m] == pytest.approx(rep[m], abs=1e-6), m


# --- properties -------------------------------------------------------------------------------------

#: Every scalar measure and the invariants it is declared to have. A measure added to the report
#: must be classified here (see test_every_measure_is_classified).
MEASURE_PROPERTIES = {
    "fleiss_kappa": {"perfect_is_one", "item_perm", "annotator_perm", "label_perm"},
    "krippendorff_alpha": {"perfect_is_one", "item_perm", "annotator_perm", "label_perm"},
    "mean_cohen_kappa": {"perfect_is_one", "item_perm", "annotator_perm", "label_perm"},
    "gwet_ac1": {"perfect_is_one", "item_perm", "annotator_perm", "label_perm"},
    "percent_agreement": {"perfect_is_one", "item_perm", "annotator_perm", "label_perm"},
}


def test_every_measure_is_classified():
    rep = agreement_report(_ann(_codes_from_table(FLEISS_TABLE), 5), n_resamples=0)
    reported = {k for k in rep["ci"]} | {"fleiss_kappa", "krippendorff_alpha", "mean_cohen_kappa", "gwet_ac1"}
    assert reported == set(MEASURE_PROPERTIES)


@st.composite
def rating_tables(draw, min_items=2, max_items=25):
    n = draw(st.integers(min_items, max_items))
    raters = draw(st.integers(2, 6))
    k = draw(st.integers(2, 5))
    codes = np.array(draw(st.lists(st.lists(st.integers(0, k - 1), min_size=raters, max_size=raters),
                                   min_size=n, max_size=n)))
    return codes, k


@settings(max_examples=60, deadline=None)
@given(rating_tables())
def test_fleiss_fast_path_agrees_with_statsmodels_on_random_tables(table):
    codes, k = table
    counts = code_counts(codes, k)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # statsmodels divides by 0 when P_e = 1
        expected = fleiss_kappa(counts, method="fleiss")
    got = fast_measures(codes, k)["fleiss_kappa"]
    if np.isfinite(expected):
        assert got == pytest.approx(expected, abs=1e-9)
    else:
        assert np.isnan(got)


def _scalars(codes, k):
    rep = agreement_report(_ann(codes, k), n_resamples=0)
    return {m: rep[m] for m in MEASURE_PROPERTIES}


@settings(max_examples=15, deadline=None)
@given(st.integers(2, 30), st.integers(2, 5), st.integers(2, 6), st.integers(0, 2**31 - 1))
def test_perfect_agreement_gives_one(n, raters, k, seed):
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, k, n)
    truth[:2] = [0, 1]  # at least two labels used, so chance agreement is below 1
    codes = np.repeat(truth[:, None], raters, axis=1)
    for m, v in _scalars(codes, k).items():
        if "perfect_is_one" in MEASURE_PROPERTIES[m]:
            assert v == pytest.approx(1.0), m


@settings(max_examples=15, deadline=None)
@given(rating_tables(min_items=4), st.integers(0, 2**31 - 1))
def test_permuting_items_annotators_or_label_names_changes_nothing(table, seed):
    codes, k = table
    rng = np.random.default_rng(seed)
    base = _scalars(codes, k)
    variants = {
        "item_perm": codes[rng.permutation(len(codes))],
        "annotator_perm": codes[:, rng.permutation(codes.shape[1])],
        "label_perm": rng.permutation(k)[codes],
    }
    for prop, other in variants.items():
        got = _scalars(other, k)
        for m, v in base.items():
            if prop in MEASURE_PROPERTIES[m]:
                assert got[m] == (pytest.approx(v, abs=2e-6) if v is not None else None), (prop, m)


def test_kappa_symmetric_in_its_two_annotators():
    codes = _codes_from_contingency(ABSTRACTORS)
    a = agreement_report(_ann(codes, 3), n_resamples=0)["pairwise"]["cohen_kappa"]
    b = agreement_report(_ann(codes[:, ::-1], 3), n_resamples=0)["pairwise"]["cohen_kappa"]
    assert a[0][1] == a[1][0] == b[0][1]


def test_unit_rated_once_leaves_alpha_unchanged():
    with_single = np.vstack([KRIPP_4X12, [[-1, -1, 3, -1]]])
    assert library_alpha(code_counts(with_single, 5)) == pytest.approx(library_alpha(code_counts(KRIPP_4X12, 5)))
    assert fast_measures(with_single, 5)["krippendorff_alpha"] == pytest.approx(0.743421, abs=1e-6)


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 30), st.integers(2, 9), st.integers(2, 6), st.data())
def test_library_fleiss_is_statsmodels_fleiss_kappa(items, raters, labels, data):
    """The report's Fleiss' kappa (annotation.agreement.library_fleiss, written out rather than imported
    from statsmodels) equals statsmodels' fleiss_kappa on any table with the same raters per item."""
    rows = [data.draw(st.lists(st.integers(0, labels - 1), min_size=raters, max_size=raters)) for _ in range(items)]
    counts = np.array([[row.count(j) for j in range(labels)] for row in rows])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        expected = fleiss_kappa(counts, method="fleiss")
    got, reason = library_fleiss(counts)
    if np.isfinite(expected):
        assert got == pytest.approx(expected, abs=1e-12) and reason is None
    else:
        assert got is None and reason.startswith("undefined")


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5)), min_size=1, max_size=60))
def test_cohen_kappa_is_scikit_learns(pairs):
    """The report's pairwise Cohen's kappa (annotation.agreement.pairwise_tables, from the measures'
    fast path) equals sklearn's cohen_kappa_score."""
    from sklearn.metrics import cohen_kappa_score

    from annotation.agreement import pairwise_tables
    from annotation.importer import from_judgements
    from schemas.records import Judgement

    ya, yb = np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs])
    ann = from_judgements([Judgement(str(i), who, f"l{code}") for i, (a, b) in enumerate(pairs)
                           for who, code in (("a", a), ("b", b))])
    with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
        warnings.simplefilter("ignore")
        expected = cohen_kappa_score(ya, yb)
    tables, defined = pairwise_tables(ann)  # the table rounded for the report, and the unrounded kappas
    if np.isfinite(expected):
        assert defined == [pytest.approx(expected, abs=1e-12)]
        assert tables["cohen_kappa"][0][1] == round(defined[0], 6)
    else:
        assert defined == [] and tables["cohen_kappa"][0][1] is None
