"""Topic-classification baselines: one function per baseline, train -> predict.

``majority``
    The most frequent training label (what scikit-learn's ``DummyClassifier``
    predicts; ties go to the label that sorts first).
``mlp``
    SIB-200's baseline (Adelani et al. 2023, Table 8 "MLP"): scikit-learn's
    ``MLPClassifier`` with default settings and ``max_iter=300`` on 1-3-gram
    counts (``CountVectorizer(ngram_range=(1, 3))``). The paper does not say
    which unit the n-grams are made of; ``unit="char"`` (the default) lands
    close to the published column, ``unit="word"`` (scikit-learn's default
    ``\\w\\w+`` tokens) collapses on scripts written without spaces and splits
    Devanagari words at vowel signs. Counts are float32, which halves the
    training time and leaves the published settings unchanged.
``char_tfidf``
    TF-IDF over character 1-3-grams (sublinear tf) and one-vs-rest ridge
    classification (scikit-learn's ``RidgeClassifier``: a least-squares fit to
    +1/-1 per label, the label of the highest score wins) whose
    regularisation ``alpha`` is chosen on the dev split from
    :data:`RIDGE_ALPHA_GRID` (ties to the larger ``alpha``, the simpler model;
    :data:`RIDGE_ALPHA` without a dev split), then trained on train only.
``char_linear``
    The default strong baseline: the same model on word-boundary-aware
    character 1-5-grams (scikit-learn's ``char_wb``: n-grams inside each word
    padded with spaces, so word starts and ends are features and no n-gram
    spans two words). The longer n-grams carry most of the gain over
    ``char_tfidf`` (BENCHMARKS.md, "Strong classical baseline"). The test
    split is only ever predicted: selection sees train and dev alone.

The n-gram counts and their TF-IDF weights are fitted once per variant, and
so is the Gram matrix of the training rows, which every label and every
``alpha`` of the grid then solves against exactly
(:class:`~builder.evaluation.ridge.RidgePath`). Until issue 25 the linear
baselines were a ``LinearSVC`` with ``C`` on a grid: on the 24 shipped
variants ridge scores 73.26 against its 72.92 (``char_tfidf``: 68.42 against
68.40) for a third of the CPU (BENCHMARKS.md, "Issue 25, third pass").

Every function takes texts and labels and returns ``(predictions, params)``;
``params`` records the settings and choices that produced the predictions.

>>> preds, params = fit_predict("majority", ["a", "b", "c"], ["x", "y", "y"], [], [], ["d", "e"])
>>> list(preds), params["label"]
(['y', 'y'], 'y')
"""
from __future__ import annotations

import warnings
from typing import Callable, Sequence

from schemas.errors import SchemaError, UsageError

TOPIC_BASELINES = ("majority", "mlp", "char_tfidf", "char_linear")
NGRAM_UNITS = ("char", "word")
DEFAULT_NGRAM_UNIT = "char"
#: SIB-200 Table 8: "MLP ... default settings ... 300 iterations".
MLP_MAX_ITER = 300
#: the linear baselines' ridge regularisation, half-decade steps; the shipped variants choose 0.03-1 on dev
RIDGE_ALPHA_GRID = (0.01, 0.03, 0.1, 0.3, 1.0)
#: ``alpha`` without a dev split to choose on: the grid's middle
RIDGE_ALPHA = 0.1
#: word-boundary-aware character n-grams of ``char_linear``
CHAR_LINEAR_NGRAMS = ("char_wb", (1, 5))


def ngram_counts(unit: str = DEFAULT_NGRAM_UNIT):
    """The 1-3-gram ``CountVectorizer`` of the MLP baseline for ``unit`` (float32 counts).

    The MLP keeps scikit-learn's own vectorizer, so its input is the published
    setting down to the order of the sparse entries (which decides float
    rounding in the first layer). The linear baselines use the faster
    :class:`~builder.evaluation.ngrams.CharNgramCounts` instead.

    Examples
    --------
    >>> ngram_counts("word").fit(["a big cat"]).get_feature_names_out().tolist()
    ['big', 'big cat', 'cat']
    >>> ngram_counts("char").fit(["ab"]).get_feature_names_out().tolist()
    ['a', 'ab', 'b']
    """
    import numpy as np
    from sklearn.feature_extraction.text import CountVectorizer

    if unit not in NGRAM_UNITS:
        raise UsageError(f"n-gram unit must be one of {', '.join(NGRAM_UNITS)}; found {unit!r}")
    return CountVectorizer(analyzer=unit, ngram_range=(1, 3), dtype=np.float32)


def _majority(train_x, train_y, dev_x, dev_y, test_x, *, seed, **_):
    from collections import Counter

    counts = Counter(train_y)
    most = max(counts.values())
    label = min(y for y, n in counts.items() if n == most)  # DummyClassifier("most_frequent")'s tie rule
    return [label] * len(test_x), {"label": str(label)}


def _mlp(train_x, train_y, dev_x, dev_y, test_x, *, seed, unit=DEFAULT_NGRAM_UNIT, mlp_max_iter=MLP_MAX_ITER, **_):
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.neural_network import MLPClassifier

    vec = ngram_counts(unit)
    X = vec.fit_transform(train_x)
    model = MLPClassifier(max_iter=mlp_max_iter, random_state=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(X, train_y)
    params = {"ngram_unit": unit, "ngram_range": [1, 3], "max_iter": mlp_max_iter, "n_iter": int(model.n_iter_),
              "converged": bool(model.n_iter_ < mlp_max_iter), "n_features": int(X.shape[1])}
    return model.predict(vec.transform(test_x)), params


def _ridge_on_char_ngrams(train_x, train_y, dev_x, dev_y, test_x, *, analyzer, ngram_range):
    """TF-IDF (sublinear tf) on character n-grams + one-vs-rest ridge, ``alpha`` chosen on dev; ``(predictions, params)``.

    Each ``alpha`` of :data:`RIDGE_ALPHA_GRID` is solved on train and scored
    on dev; the best dev accuracy wins, ties to the larger ``alpha``; without a
    dev split :data:`RIDGE_ALPHA`. The test texts are transformed and
    predicted once, by the chosen solution only.
    """
    import numpy as np
    from sklearn.feature_extraction.text import TfidfTransformer

    from .ngrams import CharNgramCounts
    from .ridge import RidgePath

    # = TfidfVectorizer(analyzer=analyzer, ngram_range=ngram_range, sublinear_tf=True), with the faster counter
    counts = CharNgramCounts(ngram_range, dtype=np.float64, analyzer=analyzer)
    tfidf = TfidfTransformer(sublinear_tf=True)
    path = RidgePath(tfidf.fit_transform(counts.fit_transform(train_x)), train_y)

    def features(texts):
        return tfidf.transform(counts.transform(texts))

    grid = RIDGE_ALPHA_GRID if len(dev_y) else (RIDGE_ALPHA,)
    Xd = features(dev_x) if len(dev_y) else None
    best = None
    for alpha in sorted(grid, reverse=True):  # the larger alpha first: it keeps a tie
        solution = path.solve(alpha)
        dev_acc = float(np.mean(path.predict(solution, Xd) == np.asarray(dev_y))) if Xd is not None else None
        if best is None or (dev_acc is not None and dev_acc > best[0]):
            best = (dev_acc, alpha, solution)
    dev_acc, alpha, solution = best
    params = {"analyzer": analyzer, "ngram_range": list(ngram_range), "sublinear_tf": True, "model": "ridge",
              "alpha": alpha, "alpha_grid": list(grid), "dev_accuracy": None if dev_acc is None else round(dev_acc, 6),
              "n_features": int(path.X.shape[1])}
    return path.predict(solution, features(test_x)), params


def _char_tfidf(train_x, train_y, dev_x, dev_y, test_x, **_):
    return _ridge_on_char_ngrams(train_x, train_y, dev_x, dev_y, test_x, analyzer="char", ngram_range=(1, 3))


def _char_linear(train_x, train_y, dev_x, dev_y, test_x, **_):
    analyzer, ngram_range = CHAR_LINEAR_NGRAMS
    return _ridge_on_char_ngrams(train_x, train_y, dev_x, dev_y, test_x, analyzer=analyzer, ngram_range=ngram_range)


#: the scikit-learn modules each baseline imports when it runs (:func:`prewarm`)
_MODULES = {"majority": (), "mlp": ("sklearn.neural_network", "sklearn.feature_extraction.text"),
            "char_tfidf": ("sklearn.feature_extraction.text", "scipy.linalg"),
            "char_linear": ("sklearn.feature_extraction.text", "scipy.linalg")}


def prewarm(names: Sequence[str]) -> None:
    """Import what the baselines ``names`` use, once, before worker processes are forked: each worker then
    inherits the modules instead of importing scikit-learn again (about 2 CPU s a worker)."""
    import importlib

    for module in sorted({m for n in names for m in _MODULES.get(n, ())}):
        importlib.import_module(module)


_FUNCTIONS: dict[str, Callable] = {"majority": _majority, "mlp": _mlp, "char_tfidf": _char_tfidf,
                                   "char_linear": _char_linear}


def fit_predict(name: str, train_x: Sequence[str], train_y: Sequence[str], dev_x: Sequence[str],
                dev_y: Sequence[str], test_x: Sequence[str], *, seed: int = 0, unit: str = DEFAULT_NGRAM_UNIT,
                mlp_max_iter: int = MLP_MAX_ITER, where: str | None = None):
    """Train baseline ``name`` on train (dev for model selection) and predict ``test_x``.

    Parameters
    ----------
    name : {"majority", "mlp", "char_tfidf", "char_linear"}
    train_x, train_y : sequences of str
        Training texts and labels.
    dev_x, dev_y : sequences of str
        Dev texts and labels (may be empty).
    test_x : sequence of str
        Texts to label.
    seed : int, default 0
        ``random_state`` of the models.
    unit : {"char", "word"}, default "char"
        n-gram unit of the MLP baseline.
    mlp_max_iter : int, default 300
        The paper's value; smaller only for quick checks.
    where : str, optional
        What the train split is (``"variant hin_Deva, split train"``, its file), named in errors.

    Raises
    ------
    UsageError
        An unknown baseline, an empty train split.
    SchemaError
        A train split whose rows all hold one label, for a baseline that learns
        (every baseline but ``majority``): a classifier needs two classes (it
        was scikit-learn's ``ValueError`` traceback).

    Returns
    -------
    predictions : ndarray of str, shape (len(test_x),)
    params : dict
        Settings and choices (e.g. the ``alpha`` chosen on dev, the MLP's iterations).

    Examples
    --------
    >>> x = ["goal match team", "vote party law", "team wins cup", "law passed vote"]
    >>> y = ["sports", "politics", "sports", "politics"]
    >>> preds, _ = fit_predict("char_tfidf", x, y, [], [], ["the team match"])
    >>> preds.tolist()
    ['sports']
    >>> preds, params = fit_predict("char_linear", x, y, x[:2], y[:2], ["the team match"])
    >>> preds.tolist(), params["analyzer"], params["alpha"]  # every alpha is perfect on this dev: the largest wins
    (['sports'], 'char_wb', 1.0)
    >>> fit_predict("mlp", x[:2], ["sports", "sports"], [], [], ["a"], where="variant x, split train")
    Traceback (most recent call last):
    ...
    schemas.errors.SchemaError: variant x, split train: baseline 'mlp' needs at least 2 labels in the train split to learn from, found 1 ('sports' in all 2 rows)
    """
    if name not in _FUNCTIONS:
        raise UsageError(f"unknown topic baseline {name!r}; known: {', '.join(TOPIC_BASELINES)}")
    if len(train_y) == 0:
        raise UsageError(f"baseline {name!r} needs a non-empty train split")
    classes = sorted({str(y) for y in train_y})
    if len(classes) < 2 and name != "majority":
        raise SchemaError(f"baseline {name!r} needs at least 2 labels in the train split to learn from, found 1 "
                          f"({classes[0]!r} in all {len(train_y)} rows)", file=where)
    preds, params = _FUNCTIONS[name](list(train_x), list(train_y), list(dev_x), list(dev_y), list(test_x),
                                     seed=seed, unit=unit, mlp_max_iter=mlp_max_iter)
    import numpy as np

    return np.asarray(preds, dtype=object), params
