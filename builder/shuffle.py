"""Shuffle the answer options with a seeded generator so the correct position is balanced.

Belebele's script permutes each question's options with NumPy seeded to 0,
which balances the correct position only on average. Here the correct
positions of one source and split are a seeded permutation of ``1, 2, 3, 4,
1, 2, ...``: each position holds the correct answer ``n/4`` times, give or
take one, and the wrong options fill the other slots in a seeded random
order. The generator is seeded from (seed, source, split), so adding a source
leaves the order of the others unchanged.

>>> import numpy as np
>>> from builder.readers.base import RawMCItem
>>> items = [RawMCItem("race", "train", "p", f"q{i}", "Text.", "Why?", ["w", "x", "y", "z"], [0], "f", f"#{i}")
...          for i in range(8)]
>>> rows = shuffle_options(items, np.random.default_rng(0))
>>> sorted(r[1] for r in rows)
[1, 1, 2, 2, 3, 3, 4, 4]
>>> all(r[0][r[1] - 1] == "w" for r in rows)
True
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from .readers.base import RawMCItem


def balanced_positions(n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` correct positions (0-3), each used ``n // 4`` or ``n // 4 + 1`` times, in seeded order.

    >>> np.bincount(balanced_positions(10, np.random.default_rng(1)), minlength=4).tolist()
    [3, 3, 2, 2]
    """
    return rng.permutation(np.resize(np.arange(4), n)) if n else np.zeros(0, dtype=np.int64)


def shuffle_options(items: Sequence[RawMCItem], rng: np.random.Generator
                    ) -> list[tuple[tuple[str, str, str, str], int]]:
    """``(answers, correct_answer_num)`` per item; items must have 4 options, one correct.

    ``correct_answer_num`` is 1-based, as in Belebele's TSV.
    """
    n = len(items)
    positions = balanced_positions(n, rng)
    wrong_order = rng.permuted(np.tile(np.arange(3), (n, 1)), axis=1) if n else np.zeros((0, 3), int)
    out = []
    for item, pos, order in zip(items, positions.tolist(), wrong_order.tolist()):
        right = item.correct[0]
        wrong = [o for i, o in enumerate(item.options) if i != right]
        answers = [wrong[k] for k in order]
        answers.insert(pos, item.options[right])
        out.append((tuple(answers), pos + 1))
    return out
