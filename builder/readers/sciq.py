"""SciQ reader: ``SciQ dataset-2 3/{split}.json``, one JSON array per split.

Each element has ``question``, ``correct_answer``, ``distractor1``-``3`` and
``support`` (the passage; may be empty). Options are
``[correct_answer, distractor1, distractor2, distractor3]``, so ``correct`` is
always ``[0]``: the assembly shuffles them. ``root`` may be the folder holding
``SciQ dataset-2 3/`` or that folder itself.

Ids: ``passage_id`` is ``"{split}/<index>"``, ``question_id`` appends ``"#0"``;
``record`` is ``"#<index>"`` in the array.
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterator

from schemas.errors import SourceNotFoundError

from .base import BadRecord, RawMCItem
from .common import SourceReader

FOLDER = "SciQ dataset-2 3"
_FIELDS = ("question", "correct_answer", "distractor1", "distractor2", "distractor3", "support")


class SciQReader(SourceReader):
    """Read SciQ in its native layout.

    >>> from pathlib import Path
    >>> root = Path(__file__).parents[2] / "tests/data/sources/sciq"
    >>> [len(item.options) for item in SciQReader(root, ["valid"])]
    [4, 4, 4]
    """

    name = "sciq"
    default_license = "CC-BY-NC-3.0"
    SPLITS = ("train", "valid", "test")

    def locate(self, split: str) -> list[Path]:
        inner = self.root / FOLDER
        base = inner if inner.is_dir() else self.root
        path = base / f"{split}.json"
        if not path.is_file():
            raise SourceNotFoundError(f"SciQ file not found (expected '{FOLDER}/{split}.json')", file=path)
        return [path]

    def parse_file(self, split: str, path: str | Path) -> Iterator[RawMCItem | BadRecord]:
        path = Path(path)
        rel = self.rel(path)
        for got in self.json_array_rows(split, path, _FIELDS):
            if isinstance(got, BadRecord):
                yield got
                continue
            i, record, row = got
            values = [row[k] for k in _FIELDS]
            if not all(isinstance(v, str) for v in values):
                yield self.bad(split, path, record, "bad_value", f"fields {', '.join(_FIELDS)} must be strings")
                continue
            question, correct, d1, d2, d3, support = values
            pid = f"{split}/{i}"
            yield RawMCItem("sciq", split, pid, f"{pid}#0", support, question, [correct, d1, d2, d3], [0],
                            rel, record, {})
