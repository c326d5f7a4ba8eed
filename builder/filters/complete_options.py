"""Complete questions with fewer than four options using answers from the same passage.

MCScript gives two answers per question. Belebele's script fills the two
missing slots with answers drawn at random from the *other* questions of the
same passage (both their right and wrong answers), skipping draws that repeat
one of the question's own answers. This step does the same with distinct
answer texts and the step's seeded generator. Where a passage has too few
distinct other answers, Belebele fell back to correct answers from the whole
corpus; here the question is dropped as ``cannot_complete_options`` instead,
so every added distractor still comes from its own passage.

>>> from builder.readers.base import RawMCItem
>>> from builder.filters.base import Ledger, StepContext
>>> qs = [RawMCItem("mcscript", "train", "p1", f"q{i}", "Text.", f"Q{i}?", [f"a{i}", f"b{i}"], [0], "f", f"#{i}")
...       for i in range(3)]
>>> kept = CompleteOptions().run(qs, StepContext("mcscript", "train", "train", 0, Ledger()))
>>> [len(q.options) for q in kept], kept[0].options[:2]
([4, 4, 4], ['a0', 'b0'])
"""
from __future__ import annotations

from collections import defaultdict

from .base import Filter, StepContext, replace_options


class CompleteOptions(Filter):
    name = "complete_options"
    reasons = ("cannot_complete_options",)
    params = {"target": int}
    scope = "passage"
    uses_meta = False

    def __init__(self, target: int = 4, **params) -> None:
        super().__init__(target=target, **params)
        self.target = target

    def decide_passage(self, items: list, ctx: StepContext) -> list:
        """Complete the questions of one passage, drawing from the split's generator ``self.rng``."""
        by_passage: dict[str, list[int]] = defaultdict(list)
        for i, item in enumerate(items):
            by_passage[item.passage_id].append(i)
        kept = []
        for i, item in enumerate(items):
            need = self.target - len(item.options)
            if need <= 0:
                kept.append(item)
                continue
            own = {o.strip() for o in item.options}
            pool: dict[str, str] = {}  # stripped text -> first spelling, in passage order
            for j in by_passage[item.passage_id]:
                if j != i:
                    for option in items[j].options:
                        text = option.strip()
                        if text and text not in own:
                            pool.setdefault(text, option)
            candidates = list(pool.values())
            if len(candidates) < need:
                ctx.drop(item, "cannot_complete_options", self.name,
                         f"{len(candidates)} distinct answers from other questions of passage "
                         f"{item.passage_id}, {need} needed")
                continue
            extra = [candidates[k] for k in self.rng.choice(len(candidates), need, replace=False)]
            kept.append(replace_options(item, [*item.options, *extra], list(item.correct)))
        return kept
