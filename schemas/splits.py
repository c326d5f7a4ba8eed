"""The one split order: how split names are listed and written everywhere.

Kept apart from :mod:`schemas.dataset` (which needs pandas) so that stages
that only order names (assembly, romanization) stay light.

>>> order_splits(["test", "extra", "train", "dev"])
['train', 'dev', 'test', 'extra']
"""
from __future__ import annotations

from typing import Iterable

#: The order splits are listed and written in, everywhere; other names follow.
SPLIT_ORDER = ("train", "dev", "validation", "valid", "val", "test")


def split_rank(name: str) -> int:
    """Position of ``name`` in :data:`SPLIT_ORDER`; names not in it rank after all of them."""
    return SPLIT_ORDER.index(name) if name in SPLIT_ORDER else len(SPLIT_ORDER)


def order_splits(names: Iterable[str]) -> list[str]:
    """Split names in :data:`SPLIT_ORDER`, other names after them in sorted order."""
    return sorted(names, key=lambda s: (split_rank(s), s))
