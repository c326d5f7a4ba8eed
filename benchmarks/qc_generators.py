"""Clean generators of translated MC releases for the calibration of `builder qc` (issue 28).

One generator is a dictionary of parameters (:data:`GENERATORS`); every one is
*clean*: the four options of a question are drawn independently in exactly
the same way and the correct position is uniform, so no check should find a
difference between correct and wrong options. They differ where a test's
null distribution could be mis-specified:

* ``base``: the generator of issue 13 (benchmarks/qc_calibration.py): Zipf
  vocabulary of 3000 words, options of 2 + Poisson(2) words, each word from the
  passage with probability 0.5, two questions per passage;
* ``wide``: options of 1 to 30 words (uniform; wide, heavy differences in
  length between the options of a question), a small vocabulary (300 words,
  so a bag of words sees the same words again and again) and six questions per
  passage (fewer, larger groups for the probe's folds);
* ``copy``: options copied from the passage: each option is, with probability
  0.5, a verbatim span of the passage (for right and wrong answers alike),
  otherwise words from the passage with probability 0.9; long passages of
  150-250 words; 120 questions (a small split);
* ``sparse``: options of 1 + Poisson(1) words that rarely touch the passage
  (probability 0.1), a large vocabulary (10000 words), 900 questions, three
  questions per passage.
"""
from __future__ import annotations

import numpy as np

GENERATORS = {
    "base": {"vocab": 3000, "option_len": ("poisson", 2, 2), "p_passage": 0.5, "copy_share": 0.0,
             "passage_len": (60, 101), "per_passage": 2, "questions": 360},
    "wide": {"vocab": 300, "option_len": ("uniform", 1, 31), "p_passage": 0.5, "copy_share": 0.0,
             "passage_len": (60, 101), "per_passage": 6, "questions": 360},
    "copy": {"vocab": 3000, "option_len": ("poisson", 2, 3), "p_passage": 0.9, "copy_share": 0.5,
             "passage_len": (150, 251), "per_passage": 2, "questions": 120},
    "sparse": {"vocab": 10000, "option_len": ("poisson", 1, 1), "p_passage": 0.1, "copy_share": 0.0,
               "passage_len": (60, 101), "per_passage": 3, "questions": 900},
}


def option_length(rng, spec) -> int:
    kind, a, b = spec
    return int(a + rng.poisson(b)) if kind == "poisson" else int(rng.integers(a, b))


def zipf_weights(vocab: int) -> np.ndarray:
    w = 1.0 / np.arange(1, vocab)  # ids 1..vocab-1; 0 is reserved (the give-away word)
    return w / w.sum()


def draw_option(rng, passage: np.ndarray, gen: dict, weights, p_passage: float | None = None) -> list[int]:
    """One option's word ids, drawn the same way for right and wrong answers."""
    n = option_length(rng, gen["option_len"])
    if gen["copy_share"] and rng.random() < gen["copy_share"] and len(passage) > n:
        start = int(rng.integers(len(passage) - n))
        return passage[start:start + n].tolist()
    p = gen["p_passage"] if p_passage is None else p_passage
    from_passage = rng.random(n) < p
    words = np.where(from_passage, rng.choice(passage, size=n), rng.choice(len(weights), size=n, p=weights) + 1)
    return words.tolist()


def pivot_items(rng, gen: dict, n_questions: int | None = None) -> list[dict]:
    """The release's questions as word ids: passage sentences, question, four options, correct index."""
    n_questions = n_questions or gen["questions"]
    weights = zipf_weights(gen["vocab"])
    items: list[dict] = []
    p = 0
    while len(items) < n_questions:
        sentences, total = [], rng.integers(*gen["passage_len"])
        while sum(map(len, sentences)) < total:
            sentences.append((rng.choice(len(weights), size=rng.integers(8, 16), p=weights) + 1).tolist())
        flat = np.array([w for s in sentences for w in s])
        for q in range(min(gen["per_passage"], n_questions - len(items))):
            n_q = rng.integers(6, 11)
            question = np.where(rng.random(n_q) < 0.5, rng.choice(flat, size=n_q),
                                rng.choice(len(weights), size=n_q, p=weights) + 1).tolist()
            options = [draw_option(rng, flat, gen, weights) for _ in range(4)]
            items.append({"pid": f"p{p:03d}", "qid": f"p{p:03d}-q{q + 1}", "sentences": sentences, "flat": flat,
                          "question": question, "options": options, "correct": int(rng.integers(4))})
        p += 1
    return items
