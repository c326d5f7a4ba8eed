"""Check ``bow_probe``: can a bag of words answer without the passage?

Belebele trained a logistic regression on bag-of-words features of question
and option, without the passage, and reached 0.28 accuracy on its 900
questions against 0.25 chance (§3.2). :func:`probe_accuracy` does the same:
each option becomes one row (label 1 for the correct option; word counts
from one vocabulary learnt on all rows, labels unseen), the classifier
scores the four options of a held-out question and the best one is its
answer. Folds are :class:`sklearn.model_selection.GroupKFold` groups of
passages (so a passage's questions never sit on both sides), shuffled with the
seed. Accuracy is tested against chance with a one-sided
:func:`scipy.stats.binomtest` and given with its Clopper-Pearson interval.

The folds are *forward-chained* (issue 28): fold k is answered by a model
trained on folds 0..k-1 only, and fold 0 only trains. With ordinary k-fold
cross-validation each fold's model learns from the other folds' answer keys,
so the folds' hits are not independent trials (a chance association of a word
with the correct options, learnt in both directions, moves every fold the
same way) and the binomial test was anti-conservative: on clean data with the
options fixed and random answer keys, the variance of the number of hits was
above the binomial one. Forward-chained, the hits of fold k are independent
Bernoulli(1/4) trials given everything before it when the key is uniform and
the options exchangeable, so the number of hits over folds 1..k-1 is exactly
Binomial(n, 1/4) and the p-value is exact. The price: the first fold
(1/``folds`` of the questions) is not scored and the models train on less.

Each probe is one hypothesis test of the run (:mod:`qc.decision`): it fails as
``above_chance`` when its p-value, adjusted over the whole run, is below
``decision.alpha`` *and* the accuracy exceeds chance + ``margin`` (default
0.05; Belebele's 0.28 passes).

>>> import pandas as pd
>>> rows = pd.DataFrame([{"passage_id": f"p{i}", "passage": "x", "question": "Which one?",
...     "answer1": "right answer", "answer2": "wrong", "answer3": "bad", "answer4": "no",
...     "correct_answer_num": 1} for i in range(20)])
>>> probe_accuracy(rows, folds=4)["accuracy"]
1.0
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from schemas.codes import flores_code

from .result import CheckResult, VariantData, skipped
from .tokens import TokenCache

NAME = "bow_probe"
KINDS = ("mc",)
PAPER = "Belebele probe 0.28 vs chance 0.25 (§3.2)"
OPTION_COLUMNS = ("answer1", "answer2", "answer3", "answer4")
FEATURE_SETS = ("question+option", "option")


def _identity(doc):
    return doc


def _documents(frame: pd.DataFrame, features: str, cache: TokenCache, language) -> tuple[list[str], np.ndarray]:
    """Words of every document (one per option, in row order), flat, and each document's length."""
    langs = (frame["language"].astype(str).tolist() if language is None and "language" in frame.columns
             else [language or "eng_Latn"] * len(frame))
    values = frame[["question", *OPTION_COLUMNS]].astype(str).to_numpy()
    words_of: dict[tuple[str, str], list[str]] = {}
    for lang in sorted(set(langs)):
        distinct = pd.unique(values[[x == lang for x in langs]].ravel())
        cache.fill(distinct, lang)
        for text in distinct:
            words_of[(lang, text)] = cache.get(text, lang)
    flat: list[str] = []
    lengths = []
    with_question = features == "question+option"
    for row, lang in zip(values, langs):
        q = words_of[(lang, row[0])] if with_question else []
        for option in row[1:]:
            o = words_of[(lang, option)]
            flat += q
            flat += o
            lengths.append(len(q) + len(o))
    return flat, np.array(lengths, dtype=np.int64)


def count_matrix(flat: list[str], lengths: np.ndarray, max_features: int | None = None):
    """The matrix ``CountVectorizer(analyzer=identity, max_features=...).fit_transform(docs)`` gives.

    Same columns (terms in sorted order), same counts and the same order of
    entries within a row (liblinear's sums follow it), built with NumPy from
    the documents' words given flat (``lengths`` words per document). Falls
    back to CountVectorizer when the vocabulary exceeds ``max_features``.

    >>> x = count_matrix(["b", "a", "b", "c"], np.array([3, 1]))
    >>> x.toarray().tolist()
    [[1, 2, 0], [0, 0, 1]]
    """
    from scipy import sparse

    codes, terms = pd.factorize(np.array(flat, dtype=object)) if flat else (np.zeros(0, np.int64), [])
    n_terms = len(terms)
    if n_terms == 0 or (max_features is not None and n_terms > max_features):
        from sklearn.feature_extraction.text import CountVectorizer

        starts = np.concatenate(([0], np.cumsum(lengths)))
        docs = [flat[a:b] for a, b in zip(starts[:-1], starts[1:])]
        return CountVectorizer(analyzer=_identity, max_features=max_features).fit_transform(docs).tocsr()
    owner = np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)
    # entries sorted by (document, order of the term's first appearance), as CountVectorizer sorts them
    keys, counts = np.unique(owner * n_terms + codes, return_counts=True)
    rank = np.empty(n_terms, dtype=np.int64)
    rank[np.argsort(np.asarray(terms, dtype=object), kind="stable")] = np.arange(n_terms)
    indptr = np.concatenate(([0], np.cumsum(np.bincount(keys // n_terms, minlength=len(lengths)))))
    x = sparse.csr_matrix((counts.astype(np.int64), rank[keys % n_terms].astype(np.int32),
                           indptr.astype(np.int32)), shape=(len(lengths), n_terms))
    return x[:, np.arange(n_terms)]  # what CountVectorizer's feature limiting does when nothing is cut


def probe_accuracy(frame: pd.DataFrame, *, seed: int = 0, folds: int = 5, features: str = "question+option",
                   cache: TokenCache | None = None, language: str | None = None, chance: float = 0.25,
                   confidence: float = 0.95, max_features: int | None = 20000) -> dict:
    """Forward-chained accuracy of the bag-of-words probe on MC rows, with an exact binomial p-value.

    Parameters
    ----------
    frame : DataFrame
        MC rows: ``question``, ``answer1``..``answer4``, ``correct_answer_num``
        and ``passage_id`` (or ``passage``) for the groups.
    seed : int
        Shuffles which passages share a fold.
    folds : int
        Number of GroupKFold folds (fewer when there are fewer passages);
        the questions of folds 1.. are scored, fold 0 only trains.
    features : {"question+option", "option"}
        Words of question and option, or of the option alone.

    Returns
    -------
    dict with ``accuracy``, ``correct``, ``n`` (questions scored), ``p_value`` (one-sided, vs
    ``chance``), ``ci_low``, ``ci_high``, ``folds``, ``seed``, ``features``.
    """
    from scipy import stats
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GroupKFold

    if features not in FEATURE_SETS:
        raise ValueError(f"features must be one of {', '.join(FEATURE_SETS)}, found {features!r}")
    cache = cache if cache is not None else TokenCache()
    correct = pd.to_numeric(frame["correct_answer_num"], errors="coerce").fillna(0).astype(int).to_numpy()
    flat, lengths = _documents(frame, features, cache, language)
    y = (np.tile(np.arange(1, 5), len(frame)) == np.repeat(correct, 4)).astype(int)
    key = frame["passage_id"] if "passage_id" in frame.columns else frame["passage"]
    codes, uniques = pd.factorize(key.astype(str), sort=True)
    n_groups = len(uniques)
    n_splits = min(folds, n_groups)
    if n_splits < 2:
        raise ValueError(f"the probe needs at least 2 passages for grouped folds, found {n_groups}")
    perm = np.random.default_rng(seed).permutation(n_groups)
    groups = perm[codes]
    # The vocabulary is learnt once from all rows (no labels involved); each fold fits its own model.
    x = count_matrix(flat, lengths, max_features)
    pred = np.zeros(len(frame), dtype=int)
    fold_sets = [test_q for _, test_q in GroupKFold(n_splits=n_splits).split(np.zeros(len(frame)), groups=groups)]
    scored = np.zeros(len(frame), dtype=bool)
    for k in range(1, n_splits):  # forward-chained: fold k is answered by a model of folds 0..k-1
        train_q, test_q = np.concatenate(fold_sets[:k]), fold_sets[k]
        scored[test_q] = True
        train = (train_q[:, None] * 4 + np.arange(4)).ravel()
        test = (test_q[:, None] * 4 + np.arange(4)).ravel()
        if len(set(y[train])) < 2:  # no positive (or no negative) example in training
            pred[test_q] = 1
            continue
        model = LogisticRegression(solver="liblinear", random_state=seed)
        model.fit(x[train], y[train])
        scores = model.decision_function(x[test]).reshape(-1, 4)
        pred[test_q] = scores.argmax(axis=1) + 1
    k = int((pred[scored] == correct[scored]).sum())
    n = int(scored.sum())
    test = stats.binomtest(k, n, chance, alternative="greater")
    ci = stats.binomtest(k, n, chance).proportion_ci(confidence_level=confidence, method="exact")
    return {"accuracy": k / n, "correct": k, "n": n, "p_value": float(test.pvalue), "ci_low": float(ci.low),
            "ci_high": float(ci.high), "confidence": confidence, "folds": n_splits, "seed": seed,
            "features": features, "chance": chance}


def run(data: VariantData, params: dict) -> list[CheckResult]:
    frame = data.combined
    out = []
    for features in params["features"]:
        name = NAME if features == "question+option" else f"{NAME}:option_only"
        try:
            r = probe_accuracy(frame, seed=data.seed, folds=params["folds"], features=features, cache=data.cache,
                               language=flores_code(data.variant), chance=params["chance"],
                               confidence=data.confidence, max_features=params["max_features"] or None)
        except ValueError as err:
            out.append(skipped(data.variant, name, str(err)))
            continue
        limit = params["chance"] + params["margin"]
        out.append(CheckResult(
            data.variant, name, True, statistic=r["accuracy"], p_value=r["p_value"], value=r["accuracy"],
            threshold=limit, paper=PAPER, fails_as="above_chance", effect=r["accuracy"],
            effect_ci=(r["ci_low"], r["ci_high"]), effect_name="accuracy", floor=limit,
            detail=(f"{features}: {r['correct']}/{r['n']} = {r['accuracy']:.3f} "
                    f"({r['confidence']:.0%} CI {r['ci_low']:.3f}-{r['ci_high']:.3f}) vs chance "
                    f"{params['chance']}"),
            extra={k: r[k] for k in ("accuracy", "correct", "n", "ci_low", "ci_high", "folds", "seed",
                                     "features", "chance")}))
    return out
