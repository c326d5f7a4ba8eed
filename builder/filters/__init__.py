"""Filters: one module per decision, each dropping records with a short, stable reason name.

:data:`FILTERS` maps the name a recipe uses to the step class. Every class
lists the reasons it can emit in ``reasons``; :data:`REASONS` collects them,
together with the assembly's own reasons, so a test can check that each drop
in a ledger comes from a declared rule.

>>> sorted(FILTERS)[:3]
['complete_options', 'duplicate_question', 'empty_option']
>>> get_filter("too_many_sentences", max_sentences=10).max_sentences
10
"""
from __future__ import annotations

from schemas.errors import RecipeError

from .base import Drop, Filter, Ledger, StepContext, Transform
from .complete_options import CompleteOptions
from .duplicate_question import DuplicateQuestion
from .empty_option import EmptyOption
from .empty_passage import EmptyPassage
from .fill_in_blank import FillInBlank
from .four_options import FourOptions
from .sample_four_options import SampleFourOptions
from .too_many_sentences import TooManySentences

#: recipe name -> step class (FourOptions is not listed: the assembly always appends it).
FILTERS: dict[str, type[Filter]] = {cls.name: cls for cls in (
    FillInBlank, TooManySentences, EmptyPassage, EmptyOption, DuplicateQuestion, SampleFourOptions,
    CompleteOptions,
)}

#: every reason a filter step can write to the ledger.
REASONS: frozenset[str] = frozenset(r for cls in (*FILTERS.values(), FourOptions) for r in cls.reasons)


def get_filter(name: str, **params) -> Filter:
    """Build the filter registered as ``name``; an unknown name lists the known ones."""
    try:
        cls = FILTERS[name]
    except KeyError:
        raise RecipeError(f"unknown filter {name!r}; known: {', '.join(sorted(FILTERS))}") from None
    return cls(**params)


__all__ = ["FILTERS", "REASONS", "Drop", "Filter", "FourOptions", "Ledger", "StepContext", "Transform",
           "get_filter"]
