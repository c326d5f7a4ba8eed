"""What an assembly counts: records read and kept per source and split, and the check that they add up.

Before anything is renamed into place, :meth:`Assembly.check_counts` checks
``read == kept + dropped`` for every source and split, and that the rows of
each output split are the records kept for it.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from schemas.errors import ToolkitError
from schemas.splits import split_rank

from ..filters import Ledger
from ..recipe import Recipe


class InternalError(ToolkitError):
    """The assembly's own bookkeeping does not add up (a bug, not bad input)."""


@dataclass
class Count:
    source: str
    split: str
    read: int = 0
    kept: int = 0

    def dropped(self, ledger: Ledger) -> int:
        return ledger.dropped(self.source, self.split)


@dataclass
class Assembly:
    """What an assembly counted: records read and kept per source and split, the ledger's counts, the licenses."""

    recipe: Recipe
    seed: int
    on_error: str
    counts: dict[tuple[str, str], Count] = field(default_factory=dict)
    ledger: Ledger = field(default_factory=Ledger)
    licenses: dict[str, str] = field(default_factory=dict)
    n_rows: dict[str, int] = field(default_factory=dict)  # rows written per output split

    def rows(self, split: str) -> int:
        return self.n_rows[split]

    def check_counts(self) -> None:
        """Raise :class:`InternalError` unless read == kept + dropped everywhere."""
        for (source, split), c in self.counts.items():
            dropped = c.dropped(self.ledger)
            if c.read != c.kept + dropped:
                raise InternalError(f"internal error: {source}/{split} read {c.read} records but kept {c.kept} "
                                    f"and dropped {dropped}; nothing was written (please report this)")
        if len(self.ledger) != sum(c.dropped(self.ledger) for c in self.counts.values()):
            raise InternalError(f"internal error: the ledger holds {len(self.ledger)} drops but the sources "
                                "account for fewer; nothing was written (please report this)")
        for split in self.n_rows:
            kept, rows = sum(c.kept for (_, s), c in self.counts.items() if s == split), self.rows(split)
            if kept != rows:
                raise InternalError(f"internal error: split {split} has {rows} rows but "
                                    f"the counts say {kept}; nothing was written (please report this)")


def output_splits(recipe: Recipe) -> list[str]:
    """Output split names in a stable order: train, dev, ..., then the rest as first named."""
    seen = list(dict.fromkeys(s for src in recipe.sources for s in src.splits.values()))
    return sorted(seen, key=lambda s: (split_rank(s), seen.index(s)))


class CountLedger(Ledger):
    """The counts of a streamed ledger (``counts`` and ``total``); its entries are in ``dropped.jsonl``, not in memory."""

    def __init__(self) -> None:
        super().__init__()
        self.total = 0

    def __len__(self) -> int:
        return self.total
