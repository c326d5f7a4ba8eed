"""Shuffle the answer options with a seeded generator so the correct position is balanced.

Belebele's script permutes each question's options with NumPy seeded to 0,
which balances the correct position only on average. Here the correct
positions of one source and split are a seeded permutation of ``1, 2, 3, 4,
1, 2, ...``: each position holds the correct answer ``n/4`` times, give or
take one, and the wrong options fill the other slots in a seeded random
order. The generator is seeded from (seed, source, split), so adding a source
leaves the order of the others unchanged.

The draws (:func:`split_draws`): first the correct positions of the whole
split (:func:`balanced_positions`, which needs the split's size), then each
row's order of its wrong options (:func:`wrong_orders`; NumPy draws the same
numbers for a split in batches as at once). The streaming assembly
(:mod:`builder.assemble.stream`) draws them at the end of each split, and its
workers apply them to the split's batches of kept rows (:func:`shuffled_columns`).

>>> import numpy as np
>>> rows = [("race", "p", f"q{i}", "Text.", "Why?", ["w", "x", "y", "z"], [0], "f", f"#{i}") for i in range(8)]
>>> cols = shuffled_columns(rows, *split_draws(8, np.random.default_rng(0)))
>>> sorted(cols["correct_answer_num"])
[1, 1, 2, 2, 3, 3, 4, 4]
>>> set(cols["correct_answer"])
{'w'}
"""
from __future__ import annotations

import numpy as np


def balanced_positions(n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` correct positions (0-3), each used ``n // 4`` or ``n // 4 + 1`` times, in seeded order.

    >>> np.bincount(balanced_positions(10, np.random.default_rng(1)), minlength=4).tolist()
    [3, 3, 2, 2]
    """
    return rng.permutation(np.resize(np.arange(4), n)) if n else np.zeros(0, dtype=np.int64)


def wrong_orders(m: int, rng: np.random.Generator) -> np.ndarray:
    """``m`` seeded permutations of ``0, 1, 2``: the order of each row's three wrong options (shape ``(m, 3)``).

    >>> wrong_orders(2, np.random.default_rng(0)).shape
    (2, 3)
    """
    return rng.permuted(np.tile(np.arange(3), (m, 1)), axis=1)


def split_draws(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The shuffle's draws for a split's ``n`` kept rows: their correct positions, then their wrong options' orders.

    ``rng`` is the split's ``shuffle`` generator (:meth:`builder.filters.StepContext.rng`).

    >>> positions, orders = split_draws(5, np.random.default_rng(0))
    >>> positions.shape, orders.shape
    ((5,), (5, 3))
    """
    return balanced_positions(n, rng), wrong_orders(n, rng)


def shuffled_columns(rows: list[tuple], positions: np.ndarray, orders: np.ndarray) -> dict[str, list]:
    """Output columns of kept rows, their options shuffled.

    ``rows``: ``(corpus, passage_id, question_id, passage, question, options,
    correct, file, record)`` tuples of four options, one correct. Row ``r``'s
    correct option goes to slot ``positions[r]``; its wrong options, in their
    corpus order, fill the other slots in the order ``orders[r]``.

    >>> row = ("race", "p", "p#0", "Text.", "Why?", ["w", "x", "y", "z"], [1], "f", "#0")
    >>> cols = shuffled_columns([row], np.array([0]), np.array([[2, 0, 1]]))
    >>> [cols[f"answer{k}"][0] for k in range(1, 5)], cols["correct_answer"], cols["correct_answer_num"]
    (['x', 'z', 'w', 'y'], ['x'], [1])
    """
    corpus, pid, qid, passage, question, opts, correct, files, records = (list(c) for c in zip(*rows))
    m = len(rows)
    right = np.array([c[0] for c in correct], dtype=np.int64)[:, None]
    positions = np.asarray(positions, dtype=np.int64)[:, None]
    slot = np.arange(4)[None, :]
    k = orders[np.arange(m)[:, None], np.minimum(np.where(slot > positions, slot - 1, slot), 2)]
    source = np.where(slot == positions, right, k + (k >= right))  # the j-th wrong option is option j or j + 1
    table = np.empty((m, 4), dtype=object)
    table[:] = opts if m else table
    answers = table[np.arange(m)[:, None], source]
    return {"passage_id": pid, "question_id": qid, "passage": passage, "question": question,
            **{f"answer{s + 1}": answers[:, s].tolist() for s in range(4)},
            "correct_answer": table[np.arange(m), right[:, 0]].tolist(),
            "correct_answer_num": (positions[:, 0] + 1).tolist(), "corpus": corpus, "file": files,
            "record": records}
