"""Drop records whose passage has more than ``max_sentences`` sentences (default 25).

The number comes from Belebele's script (``num_sentences <= 25``); the paper
only says "excessively long passages" (appendix A.2). Sentences are counted
with :func:`builder.filters.sentences.count_sentences`, which works beyond
English. A reader that knows the sentence count exactly (MultiRC marks each
sentence with ``<b>Sent N: </b>``, which Belebele counted) passes the
sentences in ``item.meta["sentences"]`` (or their number in
``item.meta["num_sentences"]``), and that count is used instead.

>>> from builder.readers.base import RawMCItem
>>> item = RawMCItem("sciq", "train", "p", "q", "One. Two. Three.", "Why?", ["a", "b", "c", "d"], [0], "f", "#0")
>>> TooManySentences(max_sentences=2).keep(item), TooManySentences(max_sentences=3).keep(item)
(False, True)
"""
from __future__ import annotations

from .base import Filter
from .sentences import count_sentences, more_sentences_than

#: Belebele's script, assemble_training_set.py (``num_sentences <= 25``).
DEFAULT_MAX_SENTENCES = 25


class TooManySentences(Filter):
    name = "too_many_sentences"
    reasons = ("too_many_sentences",)
    scope = "item"  # the last-passage cache below changes no verdict
    params = {"max_sentences": int}

    def __init__(self, max_sentences: int = DEFAULT_MAX_SENTENCES, **params) -> None:
        super().__init__(max_sentences=max_sentences, **params)
        if max_sentences < 1:
            from schemas.errors import RecipeError

            raise RecipeError(f"filter 'too_many_sentences' parameter 'max_sentences' must be >= 1, "
                              f"found {max_sentences}")
        self.max_sentences = max_sentences
        # the last passage and its verdict: a passage's questions come one after another (readers'
        # contract), and a cache of every passage would hold the whole corpus's text
        self._last: tuple[str | None, bool] = (None, True)

    def known_count(self, item) -> int | None:
        """The reader's own sentence count, if it gives one (MultiRC)."""
        if item.meta:
            known = item.meta.get("num_sentences")
            if isinstance(known, int):
                return known
            listed = item.meta.get("sentences")
            if isinstance(listed, list):
                return len(listed)
        return None

    def sentences(self, item) -> int:
        """Number of sentences of the item's passage."""
        known = self.known_count(item)
        return count_sentences(item.passage) if known is None else known

    def keep(self, item) -> bool:
        known = self.known_count(item)
        if known is not None:
            return known <= self.max_sentences
        passage, verdict = self._last  # passages repeat once per question
        if passage is not item.passage and passage != item.passage:
            verdict = not more_sentences_than(item.passage, self.max_sentences)
            self._last = (item.passage, verdict)
        return verdict
