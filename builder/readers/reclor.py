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

    def parse_file(self, split: str, path: Path) -> Iterator[RawMCItem | BadRecord]:
        data, bad = self.load_json(split, path)
        if bad is not None:
            yield bad
            return
        if not isinstance(data, list):
            yield self.bad(split, path, "line 1", "malformed_json",
                           f"expected a JSON array of questions, found {type(data).__name__}")
            return
        rel = self.rel(path)
        for i, row in enumerate(data):
            record = f"#{i}"
            if not isinstance(row, dict):
                yield self.bad(split, path, record, "malformed_json", f"expected an object, found {type(row).__name__}")
                continue
            missing = [k for k in _FIELDS if k not in row]
            if missing:
                yield self.bad(split, path, record, "missing_field", f"field {missing[0]} is missing")
                continue
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
