"""Keep questions with exactly one correct answer and at least four options; choose four.

This is Belebele's MultiRC rule (script: ``num_correct_answers == 1 &
num_answers >= 4``, then ``np.random.choice(answers, 4)`` until the correct
one is among them). Sampling the correct option plus three of the wrong ones
gives the same distribution without the retry loop. Options keep their
corpus order; the answer shuffle comes later.

Reasons: ``not_one_correct`` (checked first), ``too_few_options``.

>>> from builder.readers.base import RawMCItem
>>> from builder.filters.base import Ledger, StepContext
>>> item = RawMCItem("multirc", "train", "p", "q", "Text.", "Why?", list("abcdef"), [4], "f", "#0")
>>> [kept] = SampleFourOptions().run([item], StepContext("multirc", "train", "train", 0, Ledger()))
>>> len(kept.options), kept.options[kept.correct[0]]
(4, 'e')
"""
from __future__ import annotations

from .base import Transform, replace_options


class SampleFourOptions(Transform):
    name = "sample_four_options"
    reasons = ("not_one_correct", "too_few_options")

    def apply(self, item):
        correct = sorted(set(item.correct))
        if len(correct) != 1:
            return "not_one_correct", f"{len(correct)} options are marked correct"
        if len(item.options) < 4:
            return "too_few_options", f"{len(item.options)} options, at least 4 needed"
        if len(item.options) == 4:
            return item
        right = correct[0]
        wrong = [i for i in range(len(item.options)) if i != right]
        picked = sorted([right, *(wrong[j] for j in self.rng.choice(len(wrong), 3, replace=False))])
        return replace_options(item, [item.options[i] for i in picked], [picked.index(right)])
