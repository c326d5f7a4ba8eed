"""ReClor reader: ``{split}.json`` (``train``, ``val``), one JSON array per split.

Each element has ``context`` (passage), ``question``, ``answers`` (4 option
strings), ``label`` (0-based index of the correct option) and ``id_string``
(e.g. ``val_0``). The ``test`` split has no labels, so it is refused with a
:class:`RecipeError` rather than read into unusable items.

Ids: ``passage_id`` and ``question_id`` are the ``id_string``
(``"{split}_<index>"`` when absent); ``record`` is ``"#<index>"``.
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterator

from schemas.errors import SourceNotFoundError

from .base import BadRecord, RawMCItem
from .common import SourceReader

_FIELDS = ("context", "question", "answers", "label")


class ReClorReader(SourceReader):
    """Read ReClor in its native layout.

    >>> from pathlib import Path
    >>> root = Path(__file__).parents[2] / "tests/data/sources/reclor"
    >>> sum(1 for _ in ReClorReader(root, ["val"]))
    50
    """

    name = "reclor"
    default_license = "ReClor-research"
    SPLITS = ("train", "val")
    REJECTED_SPLITS = {"test": "the ReClor test split has no answer labels"}

    def locate(self, split: str) -> list[Path]:
        path = self.root / f"{split}.json"
        if not path.is_file():
            raise SourceNotFoundError(f"ReClor file not found (expected {split}.json)", file=path)
        return [path]

    def parse_file(self, split: str, path: str | Path) -> Iterator[RawMCItem | BadRecord]:
        path = Path(path)
        rel = self.rel(path)
        for got in self.json_array_rows(split, path, _FIELDS):
            if isinstance(got, BadRecord):
                yield got
                continue
            i, record, row = got
            context, question, answers, label = (row[k] for k in _FIELDS)
            if not (isinstance(context, str) and isinstance(question, str) and isinstance(answers, list)
                    and all(isinstance(a, str) for a in answers)):
                yield self.bad(split, path, record, "bad_value",
                               "fields context, question must be strings and answers a list of strings")
                continue
            if isinstance(label, bool) or not isinstance(label, int) or not 0 <= label < len(answers):
                yield self.bad(split, path, record, "answer_out_of_range",
                               f"field label must be an integer 0-{len(answers) - 1}, found {label!r}")
                continue
            rid = row.get("id_string") or f"{split}_{i}"
            yield RawMCItem("reclor", split, rid, rid, context, question, list(answers), [label], rel, record,
                            {"id": rid})
