"""Lexical-overlap features of multiple-choice options, and the sliding-window baseline.

Belebele screened every round of questions with lexical-overlap features
(paper §3.2, app. A.6): if the correct option overlaps the passage (or the
question) more than the wrong ones, a model can answer without reading. For
each option of each question this module computes, on Moses words
(:mod:`qc.tokens`, lower-cased, punctuation dropped):

``token_share``
    share of the option's words that occur in the passage;
``bigram_share``
    share of the option's word bigrams that occur in the passage;
``lcs_subsequence`` / ``lcs_substring``
    longest common word subsequence / contiguous substring of option and
    passage, divided by the option's length;
``option_question_share``
    share of the option's words that occur in the question;
``question_option_passage_share``
    share of the words of question + option that occur in the passage;
``sliding_window``
    the SW score of Richardson et al. (2013, MCTest, Algorithm 1): the best
    window over the passage of inverse-count-weighted words that appear in
    question + option.

The question-passage overlap (``question_passage_share``) is the same for all
options of a question, so it is reported per question, not tested.

>>> scores = sliding_window_scores("Tom fed the cat. Then Tom went to school.",
...     "Where did Tom go?", ["to school", "the zoo", "home", "to bed"])
>>> [round(s, 3) for s in scores]
[1.792, 1.504, 0.405, 1.099]
>>> sliding_window_choice("Tom fed the cat. Then Tom went to school.",
...     "Where did Tom go?", ["to school", "the zoo", "home", "to bed"])
0
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from .overlap_batch import _Units, compute
from .tokens import TokenCache, moses_language, tokenize, tokenize_many, words

__all__ = [
    "FEATURES", "option_features", "sliding_window_scores", "sliding_window_choice",
    "tokenize", "tokenize_many", "words", "TokenCache", "moses_language",
]

FEATURES = (
    "token_share", "bigram_share", "lcs_subsequence", "lcs_substring",
    "option_question_share", "question_option_passage_share", "sliding_window",
)
OPTION_COLUMNS = ("answer1", "answer2", "answer3", "answer4")


class _Vocab(dict):
    def ids(self, toks: Sequence[str]) -> np.ndarray:
        return np.fromiter((self.setdefault(t, len(self)) for t in toks), dtype=np.int64, count=len(toks))


class _Passage:
    """A passage's word ids, word and bigram sets, positions and inverse-count weights."""

    __slots__ = ("ids", "set", "bigrams", "ic", "positions")

    def __init__(self, ids: np.ndarray):
        self.ids = ids
        self.set = set(ids.tolist())
        self.bigrams = set(zip(ids[:-1].tolist(), ids[1:].tolist()))
        positions: dict[int, list[int]] = {}
        for i, w in enumerate(ids.tolist()):
            positions.setdefault(w, []).append(i)
        self.positions = positions
        counts = np.array([len(positions[w]) for w in ids.tolist()], dtype=float)
        self.ic = np.log1p(1.0 / counts) if len(ids) else np.zeros(0)


def _sw(pairs: list[tuple[_Passage, set]]) -> np.ndarray:
    """Sliding-window score of each ``(passage, target word-id set)`` pair, all at once.

    Each row of a zero-padded weight matrix holds ``log(1 + 1/C(w))`` at the
    passage positions whose word is in the target; the score is the largest
    sum over ``|target|`` consecutive positions (weights are non-negative, so
    windows cut short by the end never win and a window longer than the
    passage is the whole passage).
    """
    if not pairs:
        return np.zeros(0)
    width = max(len(p.ids) for p, _ in pairs)
    rows: list[int] = []
    cols: list[int] = []
    vals: list[float] = []
    for r, (p, target) in enumerate(pairs):
        where = [i for w in target if w in p.positions for i in p.positions[w]]
        rows += [r] * len(where)
        cols += where
        vals += p.ic[where].tolist() if where else []
    weights = np.zeros((len(pairs), width))
    weights[rows, cols] = vals
    cs = np.zeros((len(pairs), width + 1))
    np.cumsum(weights, axis=1, out=cs[:, 1:])
    w = np.array([len(t) for _, t in pairs])
    hi = np.minimum(np.arange(width + 1)[None, :] + w[:, None], width)
    return (np.take_along_axis(cs, hi, axis=1) - cs).max(axis=1)


def _lcs(passage_ids: np.ndarray, options: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Longest common subsequence and substring lengths of each option with one passage.

    A one-passage entry point to :func:`qc.overlap_batch.lcs_lengths`, which
    computes them for a whole variant.
    """
    from .overlap_batch import lcs_lengths

    opt_len = np.array([len(o) for o in options], dtype=np.int64)
    opt = np.concatenate(options).astype(np.int64) if len(options) else np.zeros(0, dtype=np.int64)
    owner = np.repeat(np.arange(len(options)), opt_len)
    pos = np.arange(len(opt)) - np.repeat(np.cumsum(opt_len) - opt_len, opt_len)
    return lcs_lengths(np.asarray(passage_ids, dtype=np.int64), np.array([len(passage_ids)]), opt, owner, pos,
                       opt_len, np.zeros(len(options), dtype=np.int64))


def _row_language(frame: pd.DataFrame, language: str | None) -> list[str]:
    if language is not None or "language" not in frame.columns:
        return [language or "eng_Latn"] * len(frame)
    return [str(x) if isinstance(x, str) and x else "eng_Latn" for x in frame["language"]]


def option_features(frame: pd.DataFrame, *, language: str | None = None,
                    cache: TokenCache | None = None) -> pd.DataFrame:
    """One row per (question, option) with every feature of :data:`FEATURES`.

    Parameters
    ----------
    frame : DataFrame
        MC rows (``passage``, ``question``, ``answer1``..``answer4``,
        ``correct_answer_num``; ``language`` and ``passage_id`` if present).
    language : str, optional
        Tokenisation language for every row; default: each row's ``language``.
    cache : TokenCache, optional
        Reused across calls (e.g. by the bias probe on the same variant).

    Returns
    -------
    DataFrame with ``row`` (position in ``frame``), ``option`` (1-4),
    ``correct`` (bool), ``question_passage_share`` and the feature columns;
    ``4 * len(frame)`` rows.

    >>> rows = pd.DataFrame([{"passage": "The cat sat on the mat.", "question": "Where did the cat sit?",
    ...     "answer1": "on the mat", "answer2": "in a box", "answer3": "on a dog", "answer4": "at home",
    ...     "correct_answer_num": 1}])
    >>> f = option_features(rows)
    >>> f.loc[f.correct, "token_share"].item(), f.loc[~f.correct, "token_share"].round(3).tolist()
    (1.0, [0.0, 0.333, 0.0])
    """
    cache = cache if cache is not None else TokenCache()
    langs = _row_language(frame, language)
    cols = ["passage", "question", *OPTION_COLUMNS]
    values = frame[cols].astype(str).to_numpy()
    for lang in sorted(set(langs)):
        mask = [x == lang for x in langs]
        cache.fill(pd.unique(values[mask].ravel()), lang)
    # each distinct (language, text) is one unit of word ids
    lang_codes, lang_names = pd.factorize(pd.Series(langs, dtype=object))
    text_codes, texts = pd.factorize(values.ravel())
    pair = text_codes.reshape(values.shape).astype(np.int64) * max(len(lang_names), 1) + lang_codes[:, None]
    first_cell, unit = np.unique(pair.ravel(), return_index=True, return_inverse=True)[1:]
    flat_langs = np.repeat(np.asarray(lang_names, dtype=object)[lang_codes], len(cols))
    units = _Units([cache.get(texts[text_codes[i]], flat_langs[i]) for i in first_cell])
    unit = unit.reshape(values.shape)
    feats = compute(units, unit[:, 0], unit[:, 1], unit[:, 2:])
    correct = pd.to_numeric(frame["correct_answer_num"], errors="coerce").fillna(0).astype(int).to_numpy()
    out = np.column_stack([feats[f] for f in FEATURES]) if len(frame) else np.zeros((0, len(FEATURES)))
    qshare = np.repeat(feats["question_passage_share"], 4)
    result = pd.DataFrame(out, columns=list(FEATURES))
    result.insert(0, "row", np.repeat(np.arange(len(frame)), 4))
    result.insert(1, "option", np.tile(np.arange(1, 5), len(frame)))
    result.insert(2, "correct", result["option"].to_numpy() == np.repeat(correct, 4))
    result.insert(3, "question_passage_share", qshare)
    if "passage_id" in frame.columns:
        result.insert(1, "passage_id", np.repeat(frame["passage_id"].astype(str).to_numpy(), 4))
    return result


def sliding_window_scores(passage: str, question: str, options: Sequence[str],
                          language: str | None = "eng_Latn") -> list[float]:
    """SW scores of Richardson et al. (2013, Algorithm 1) for each option.

    For option *i* let ``S = words(question) ∪ words(option i)``; the score is
    the largest sum, over windows of ``|S|`` consecutive passage words, of
    ``log(1 + 1/C(w))`` for each word *w* of the window in ``S``, where ``C(w)``
    counts *w* in the passage.
    """
    cache = TokenCache()
    cache.fill([passage, question, *options], language)
    vocab = _Vocab()
    p = _Passage(vocab.ids(cache.get(passage, language)))
    q = set(vocab.ids(cache.get(question, language)).tolist())
    targets = [q | set(vocab.ids(cache.get(o, language)).tolist()) for o in options]
    return [float(x) for x in _sw([(p, t) for t in targets])]


def sliding_window_choice(passage: str, question: str, options: Sequence[str],
                          language: str | None = "eng_Latn") -> int:
    """0-based index of the option with the best SW score (first one on ties)."""
    scores = sliding_window_scores(passage, question, options, language)
    return int(np.argmax(scores))
