"""The overlap features of a whole frame at once, on integer word ids.

:func:`qc.overlap.option_features` defines the features; this module computes
them for every (question, option) of a frame with NumPy instead of a Python
loop per question. Every distinct text is tokenised once (through the
:class:`~qc.tokens.TokenCache`) and its words become integer ids; a "text"
here is a *unit*, and a role (passage, question, option) of each row points at
a unit. Set membership ("is this option word in that passage?") is a sorted
search of ``owner * V + word`` keys, so all shares are integer counts divided
by integer lengths, exactly as the per-question definition computes them.
Longest common subsequence/substring run as dynamic programming vectorised
over many (passage, option) pairs; the sliding window as cumulative sums over
a weight matrix, in chunks of pairs (each pair's score depends only on its
own row, so the chunking does not change any number).

>>> units = _Units([["a", "b"], ["b", "c", "b"]])
>>> units.vocab, units.lengths.tolist()
(3, [2, 3])
>>> _member(np.array([0, 1]), np.array([1, 2]), np.array([0, 0, 1]), np.array([0, 1, 2]))
array([ True,  True])
"""
from __future__ import annotations

import numpy as np
import pandas as pd


class _Units:
    """Word ids of distinct texts: a flat id array plus offsets (one vocabulary for all)."""

    def __init__(self, token_lists: list[list[str]]):
        self.lengths = np.fromiter((len(t) for t in token_lists), dtype=np.int64, count=len(token_lists))
        self.offsets = np.concatenate(([0], np.cumsum(self.lengths)))
        flat = np.empty(int(self.offsets[-1]), dtype=object)
        flat[:] = [w for t in token_lists for w in t]
        codes, uniques = pd.factorize(flat) if len(flat) else (np.zeros(0, dtype=np.int64), [])
        self.ids = np.asarray(codes, dtype=np.int64)
        self.vocab = max(len(uniques), 1)

    def expand(self, units: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Words of ``units`` one after another: ``(ids, owner, position)`` with ``owner`` indexing ``units``."""
        lens = self.lengths[units]
        owner = np.repeat(np.arange(len(units)), lens)
        starts = np.cumsum(lens) - lens
        pos = np.arange(int(lens.sum())) - starts[owner]
        return self.ids[self.offsets[units][owner] + pos], owner, pos


def _member(owner_a, word_a, owner_b, word_b, vocab: int | None = None) -> np.ndarray:
    """For each ``(owner_a, word_a)``: does the same ``(owner, word)`` occur among the b pairs?"""
    v = vocab if vocab is not None else int(max(word_a.max(initial=0), word_b.max(initial=0))) + 1
    keys_b = np.sort(owner_b * v + word_b)  # repeated keys do no harm to the search
    keys_a = owner_a * v + word_a
    if not len(keys_b):
        return np.zeros(len(keys_a), dtype=bool)
    at = np.minimum(np.searchsorted(keys_b, keys_a), len(keys_b) - 1)
    return keys_b[at] == keys_a


def _shares(hits: np.ndarray, owner: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Hit count per owner divided by its length (0 where the length is 0)."""
    counts = np.bincount(owner, weights=hits.astype(float), minlength=len(lengths))
    out = np.zeros(len(lengths))
    np.divide(counts, lengths, out=out, where=lengths > 0)
    return out


def _pad(ids: np.ndarray, owner: np.ndarray, pos: np.ndarray, rows: np.ndarray, fill: int, width: int):
    """Rows ``rows`` of a ragged array as a padded matrix."""
    sel = np.isin(owner, rows)
    index = np.full(int(owner.max(initial=-1)) + 1, -1, dtype=np.int64)
    index[rows] = np.arange(len(rows))
    out = np.full((len(rows), max(width, 1)), fill, dtype=np.int64)
    out[index[owner[sel]], pos[sel]] = ids[sel]
    return out


def lcs_lengths(psg, psg_len, opt, opt_owner, opt_pos, opt_len, pair_psg,
                chunk: int = 256) -> tuple[np.ndarray, np.ndarray]:
    """Longest common subsequence and substring lengths of option ``u`` with passage ``pair_psg[u]``.

    Passages are a ragged array (ids one passage after another, a length per
    passage); options too (``ids, owner, position`` and a length per option). Pairs are sorted by option length, then passage length,
    and processed ``chunk`` at a time with the row recurrence
    ``sub[j] = max(sub[j-1], prev[j], prev[j-1] + eq[j])`` (a running maximum,
    since each row is non-decreasing).
    """
    n = len(opt_len)
    subseq_out, substr_out = np.zeros(n), np.zeros(n)
    plen = psg_len[pair_psg]
    order = np.lexsort((plen, opt_len))
    order = order[(opt_len[order] > 0) & (plen[order] > 0)]
    p_start = np.cumsum(psg_len) - psg_len
    for start in range(0, len(order), chunk):
        idx = order[start:start + chunk]
        k = len(idx)
        m, width = int(opt_len[idx].max()), int(plen[idx].max())
        o = _pad(opt, opt_owner, opt_pos, idx, -1, m)
        # passages of the chunk's pairs, one row per pair (a passage may serve several pairs)
        lens = plen[idx]
        row = np.repeat(np.arange(k), lens)
        col = np.arange(int(lens.sum())) - np.repeat(np.cumsum(lens) - lens, lens)
        p = np.full((k, width), -3, dtype=np.int64)
        p[row, col] = psg[p_start[pair_psg[idx]][row] + col]
        subseq = np.zeros((k, width + 1), dtype=np.int32)
        substr = np.zeros((k, width + 1), dtype=np.int32)
        best = np.zeros(k, dtype=np.int32)
        for r in range(m):
            e = o[:, r:r + 1] == p
            v = np.maximum(subseq[:, 1:], subseq[:, :-1] + e)
            subseq[:, 1:] = np.maximum.accumulate(v, axis=1)
            substr[:, 1:] = (substr[:, :-1] + 1) * e
            best = np.maximum(best, substr.max(axis=1))
        subseq_out[idx] = subseq[:, -1]
        substr_out[idx] = best
    return subseq_out, substr_out


def sliding_window(weight, w_owner, w_pos, width_of_pair, window, chunk: int = 256) -> np.ndarray:
    """Best sum of ``window[u]`` consecutive weights of pair ``u`` (weights given as a ragged array)."""
    n = len(window)
    out = np.zeros(n)
    bounds = np.searchsorted(w_owner, np.arange(0, n + chunk, chunk))
    for c, start in enumerate(range(0, n, chunk)):
        stop = min(start + chunk, n)
        lo, hi_ = bounds[c], bounds[c + 1]
        width = int(width_of_pair[start:stop].max(initial=0))
        weights = np.zeros((stop - start, width))
        weights[w_owner[lo:hi_] - start, w_pos[lo:hi_]] = weight[lo:hi_]
        cs = np.zeros((stop - start, width + 1))
        np.cumsum(weights, axis=1, out=cs[:, 1:])
        top = np.minimum(np.arange(width + 1)[None, :] + window[start:stop, None], width)
        out[start:stop] = (np.take_along_axis(cs, top, axis=1) - cs).max(axis=1)
    return out


def compute(units: _Units, passage: np.ndarray, question: np.ndarray, options: np.ndarray) -> dict[str, np.ndarray]:
    """Every feature for rows whose passage/question/options are the given unit indices.

    ``options`` has shape ``(rows, 4)``; results are per (row, option) in row
    order (``4 * rows`` values), plus ``question_passage_share`` per row.
    """
    n = len(passage)
    v = units.vocab
    opt_units = options.reshape(-1)
    pair_row = np.repeat(np.arange(n), 4)
    o_ids, o_own, o_pos = units.expand(opt_units)
    o_len = units.lengths[opt_units]
    # passages and questions as their distinct units
    p_units, p_of_row = np.unique(passage, return_inverse=True)
    q_units, q_of_row = np.unique(question, return_inverse=True)
    p_ids, p_own, p_pos = units.expand(p_units)
    q_ids, q_own, _ = units.expand(q_units)
    p_of_pair, q_of_pair = p_of_row[pair_row], q_of_row[pair_row]
    # option words in the passage / in the question
    o_in_p = _member(p_of_pair[o_own], o_ids, p_own, p_ids, v)
    o_in_q = _member(q_of_pair[o_own], o_ids, q_own, q_ids, v)
    token_share = _shares(o_in_p, o_own, o_len)
    option_question = _shares(o_in_q, o_own, o_len)
    # bigrams: (previous word, word) inside one text, as ids of their own
    ob = o_pos > 0
    pb = p_pos > 0
    o_big = np.roll(o_ids, 1)[ob] * v + o_ids[ob]
    p_big = np.roll(p_ids, 1)[pb] * v + p_ids[pb]
    codes, big_uniques = pd.factorize(np.concatenate([o_big, p_big]))
    nb = max(len(big_uniques), 1)
    big_hits = _member(p_of_pair[o_own[ob]], codes[:len(o_big)], p_own[pb], codes[len(o_big):], nb)
    bigram_share = _shares(big_hits, o_own[ob], np.maximum(o_len - 1, 0))
    # question words in the passage, per row
    rq_ids, rq_own, _ = units.expand(question)
    q_len = units.lengths[question]
    q_in_p = _member(p_of_row[rq_own], rq_ids, p_own, p_ids, v)
    q_hits = np.bincount(rq_own, weights=q_in_p.astype(float), minlength=n)
    qp_share = np.zeros(n)
    np.divide(q_hits, q_len, out=qp_share, where=q_len > 0)
    o_hits = np.bincount(o_own, weights=o_in_p.astype(float), minlength=len(opt_units))
    qo_len = q_len[pair_row] + o_len
    qop_share = np.zeros(len(opt_units))
    np.divide(q_hits[pair_row] + o_hits, qo_len, out=qop_share, where=qo_len > 0)
    subseq, substr = _lcs(units, passage, o_ids, o_own, o_pos, o_len, n, v)
    with np.errstate(invalid="ignore", divide="ignore"):
        lcs_subsequence = np.where(o_len > 0, subseq / np.maximum(o_len, 1), 0.0)
        lcs_substring = np.where(o_len > 0, substr / np.maximum(o_len, 1), 0.0)
    sw = _sliding_window(units, p_units, p_of_pair, p_ids, p_own, q_units, q_of_pair, q_ids, o_ids, o_own, v)
    return {"token_share": token_share, "bigram_share": bigram_share, "lcs_subsequence": lcs_subsequence,
            "lcs_substring": lcs_substring, "option_question_share": option_question,
            "question_option_passage_share": qop_share, "sliding_window": sw,
            "question_passage_share": qp_share}


def _lcs(units, passage, o_ids, o_own, o_pos, o_len, n, v):
    """LCS lengths of each option with its row's passage, compressed to the row's option words.

    In each row's passage, a run of words that none of the row's four options
    uses is collapsed to one breaker (-2); neither LCS length changes.
    """
    r_ids, r_own, _ = units.expand(passage)
    used = _member(r_own, r_ids, o_own // 4, o_ids, v)
    first = np.ones(len(r_ids), dtype=bool)
    first[1:] = r_own[1:] != r_own[:-1]
    prev_used = np.concatenate(([False], used[:-1])) & ~first
    keep = used | prev_used | first
    short = np.where(used, r_ids, -2)[keep]
    s_len = np.bincount(r_own[keep], minlength=n)
    return lcs_lengths(short, s_len, o_ids, o_own, o_pos, o_len, np.repeat(np.arange(n), 4))


def _sliding_window(units, p_units, p_of_pair, p_ids, p_own, q_units, q_of_pair, q_ids, o_ids, o_own, v):
    """Richardson et al.'s SW score of every (question + option, passage) pair."""
    n_pairs = len(p_of_pair)
    # inverse-count weight of each passage word: log(1 + 1/C(w)), C counted in its passage
    _, inv, counts = np.unique(p_own * v + p_ids, return_inverse=True, return_counts=True)
    ic = np.log1p(1.0 / counts[inv].astype(float))
    p_len = units.lengths[p_units]
    p_start = np.cumsum(p_len) - p_len
    # target word set of each pair: question words and option words
    q_sizes = units.lengths[q_units]
    q_start = np.cumsum(q_sizes) - q_sizes
    lens = q_sizes[q_of_pair]
    t_own_q = np.repeat(np.arange(n_pairs), lens)
    t_pos_q = np.arange(int(lens.sum())) - np.repeat(np.cumsum(lens) - lens, lens)
    t_ids_q = q_ids[q_start[q_of_pair][t_own_q] + t_pos_q]
    t_keys = np.unique(np.concatenate([t_own_q * v + t_ids_q, o_own * v + o_ids]))
    window = np.bincount(t_keys // v, minlength=n_pairs)
    # passage words of each pair that are in its target set, with their weights
    plens = p_len[p_of_pair]
    w_own = np.repeat(np.arange(n_pairs), plens)
    w_pos = np.arange(int(plens.sum())) - np.repeat(np.cumsum(plens) - plens, plens)
    flat = p_start[p_of_pair][w_own] + w_pos
    keys = w_own * v + p_ids[flat]
    at = np.minimum(np.searchsorted(t_keys, keys), max(len(t_keys) - 1, 0))
    hit = t_keys[at] == keys if len(t_keys) else np.zeros(len(keys), dtype=bool)
    return sliding_window(ic[flat][hit], w_own[hit], w_pos[hit], plens, window)
