"""The drop ledger's one row type: what a stage left out, from which source, and why.

Every stage that drops records, items or lines (assembly filters, adjudication,
curation, the re-split to the pivot, skipped bad records) reports them as
:class:`DropRow` values; the release sums them into ``release.json`` without
knowing which stage made them. Input = kept + dropped is checked per stage
against these rows.

>>> rows = [DropRow("curation", "merge_labels", 3), DropRow("curation", "merge_labels", 2),
...         DropRow("race", "too_many_sentences", 1, split="train")]
>>> [r.to_dict() for r in total_drops(rows)]
[{'source': 'curation', 'reason': 'merge_labels', 'count': 5}, {'source': 'race', 'reason': 'too_many_sentences', 'count': 1}]
>>> DropRow.from_dict({"source": "x", "reason": "y", "count": 2})
DropRow(source='x', reason='y', count=2, split=None)
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from .errors import SchemaError


@dataclass(frozen=True)
class DropRow:
    """``count`` records of ``source`` (and ``split``, where the stage has splits) dropped for ``reason``."""

    source: str
    reason: str
    count: int
    split: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"source": self.source, "reason": self.reason, "count": int(self.count)}
        if self.split is not None:
            out["split"] = self.split
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, file=None) -> "DropRow":
        try:
            count = data["count"]
            if isinstance(count, bool) or not isinstance(count, int) or count < 0:
                raise ValueError(f"count must be a whole number >= 0, found {count!r}")
            return cls(source=str(data["source"]), reason=str(data["reason"]), count=count,
                       split=None if data.get("split") is None else str(data["split"]))
        except (KeyError, TypeError, ValueError) as err:
            raise SchemaError(f"a drop-ledger row needs source, reason and count: {err}", file=file) from None


def total_drops(rows: Iterable[DropRow]) -> list[DropRow]:
    """``rows`` summed by (source, reason) over splits, sorted; rows of count 0 left out."""
    sums: dict[tuple[str, str], int] = {}
    for r in rows:
        if r.count:
            sums[(r.source, r.reason)] = sums.get((r.source, r.reason), 0) + int(r.count)
    return [DropRow(s, reason, n) for (s, reason), n in sorted(sums.items())]
