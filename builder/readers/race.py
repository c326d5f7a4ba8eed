"""RACE reader: ``RACE/{split}/{level}/<n>.txt``, one JSON object per article.

Each file holds ``{"article", "questions", "options", "answers", "id"}``; the
three lists run in parallel and each answer is a letter indexing that
question's options (A = first). ``root`` may be the folder holding ``RACE/``
or ``RACE/`` itself.

Files are read level by level in natural order (``2.txt`` before ``10.txt``;
a name without a leading number, such as ``copy_a.txt``, after the numbered
ones; see :func:`builder.readers.common.natural_key`).

Ids: ``passage_id`` is ``"{split}/{level}/{file}"`` and ``question_id``
appends ``"#<question index>"``; ``record`` is ``"#<question index>"``.
``meta`` holds ``level`` (``middle``/``high``) and the corpus ``id``.
"""
from __future__ import annotations

import itertools
import os
from pathlib import Path
from typing import Iterator

from schemas.errors import SourceNotFoundError

from .base import BadRecord, RawMCItem
from .common import SourceReader, letters, natural_key

_FIELDS = ("article", "questions", "options", "answers")
_LETTERS = {chr(ord("A") + i): i for i in range(26)}
#: ``str`` for ever: ``all(map(isinstance, options, _STR))`` checks a question's options without a Python frame each
_STR = itertools.repeat(str)


class RaceReader(SourceReader):
    """Read RACE articles in their native layout.

    >>> from pathlib import Path
    >>> root = Path(__file__).parents[2] / "tests/data/sources/race"
    >>> sum(isinstance(r, RawMCItem) for r in RaceReader(root, ["train", "dev"]))
    39
    """

    name = "race"
    default_license = "RACE-research"
    many_files = True
    SPLITS = ("train", "dev", "test")

    def _base(self) -> Path:
        inner = self.root / "RACE"
        return inner if inner.is_dir() else self.root

    def locate(self, split: str) -> list[str]:
        """The files of ``split``, as strings (:meth:`builder.readers.base.Reader.files`)."""
        folder = self._base() / split
        if not folder.is_dir():
            raise SourceNotFoundError(f"RACE split folder not found (expected RACE/{split}/{{middle,high}}/*.txt)",
                                      file=folder)
        paths: list[str] = []
        for level in sorted(p for p in folder.iterdir() if p.is_dir()):
            with os.scandir(level) as entries:  # scandir: no stat call per file
                names = sorted((e.name for e in entries if e.name.endswith(".txt") and e.is_file()),
                               key=natural_key)
            prefix = os.path.join(level, "")
            paths.extend(prefix + name for name in names)
        return paths

    def parse_file(self, split: str, path: str | Path) -> Iterator[RawMCItem | BadRecord]:
        obj, bad = self.load_json(split, path)
        if bad is not None:
            yield bad
            return
        if not isinstance(obj, dict):
            yield self.bad(split, path, "line 1", "malformed_json",
                           f"expected one JSON object per article, found {type(obj).__name__}")
            return
        for key in _FIELDS:
            if key not in obj:
                yield self.bad(split, path, "line 1", "missing_field", f"field {key} is missing")
                return
        article, questions, options, answers = (obj[k] for k in _FIELDS)
        if not (isinstance(questions, list) and isinstance(options, list) and isinstance(answers, list)
                and len(questions) == len(options) == len(answers)):
            yield self.bad(split, path, "line 1", "length_mismatch",
                           "questions, options and answers must be lists of the same length, found "
                           f"{_len(questions)}, {_len(options)}, {_len(answers)}")
            return
        if not isinstance(article, str):
            yield self.bad(split, path, "line 1", "bad_value", "field article must be a string")
            return
        rel = self.rel(path)
        level, name = rel.rsplit("/", 2)[-2:]
        passage_id = f"{split}/{level}/{name}"
        meta_id = obj.get("id")
        for i, (question, opts, answer) in enumerate(zip(questions, options, answers)):
            record = f"#{i}"
            if not isinstance(question, str) or not isinstance(opts, list) or not all(map(isinstance, opts, _STR)):
                yield self.bad(split, path, record, "bad_value",
                               f"fields questions[{i}]/options[{i}] must be a string and a list of strings")
                continue
            idx = _LETTERS.get(answer, -1) if isinstance(answer, str) else -1  # a list is no key
            if not 0 <= idx < len(opts):
                yield self.bad(split, path, record, "answer_out_of_range",
                               f"field answers[{i}]: answer letter must be one of {letters(len(opts))}, "
                               f"found {answer!r}")
                continue
            yield RawMCItem("race", split, passage_id, f"{passage_id}#{i}", article, question, list(opts),
                            [idx], rel, record, {"level": level, "id": meta_id})


def _len(value) -> str:
    return str(len(value)) if isinstance(value, list) else type(value).__name__
