"""MultiRC reader: the authors' ``splitv2/*-fixedIds.json`` and the SuperGLUE ``*.jsonl`` layout.

splitv2 (``splitv2/train_456-fixedIds.json``, ``splitv2/dev_83-fixedIds.json``)
is one JSON document ``{"data": [{"id", "paragraph": {"text", "questions":
[{"question", "answers": [{"text", "isAnswer"}], ...}]}}]}``. SuperGLUE
(``train.jsonl``, ``val.jsonl`` for our ``dev``) has one paragraph per line:
``{"idx", "passage": {"text", "questions": [{"question", "idx", "answers":
[{"text", "idx", "label"}]}]}}``. In both, the paragraph text marks its
sentences as ``<b>Sent N: </b>...<br>``; the markup is stripped, the sentences
are joined with single spaces and kept in ``meta["sentences"]`` (absent when a
text has no markup). Every answer is kept and ``correct`` lists all that are
right (often several): the filters keep single-answer questions.

Option ``layout``: ``auto`` (default: splitv2 when ``*-fixedIds.json`` files
are present, else SuperGLUE), ``splitv2`` or ``superglue``. ``root`` may be the
folder holding ``splitv2/`` (or ``MultiRC/`` for SuperGLUE) or that folder.

Ids: ``passage_id`` is the paragraph ``id`` (splitv2) or ``"{split}/<idx>"``
(SuperGLUE); ``question_id`` appends ``"#<question index>"``. ``record`` is
``"#<paragraph>.<question>"`` (splitv2) or ``"line <n>"`` (SuperGLUE).
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Iterator

from schemas.errors import RecipeError, SourceNotFoundError

from .base import BadRecord, RawMCItem
from .common import NotStreamable, SourceReader, clean_json_array, iter_json_array

_SENT = re.compile(r"<b>\s*Sent\s+\d+\s*:\s*</b>")
_BR = re.compile(r"<br\s*/?>")
_SUPERGLUE_FILE = {"train": "train.jsonl", "dev": "val.jsonl"}


def split_sentences(text: str) -> list[str] | None:
    """The sentences of a MultiRC paragraph, or ``None`` when it has no ``<b>Sent N: </b>`` markup.

    >>> split_sentences("<b>Sent 1: </b>Tom ran.<br><b>Sent 2: </b>He fell.<br>")
    ['Tom ran.', 'He fell.']
    >>> len(split_sentences("<b>Sent 1: </b>One.<br><b>Sent 2: </b>Two.<br><b>Sent 3: </b>Three.<br>"))
    3
    """
    if not _SENT.search(text):
        return None
    parts = (_BR.sub(" ", part).strip() for part in _SENT.split(text))
    return [" ".join(p.split()) for p in parts if p]


class MultiRCReader(SourceReader):
    """Read MultiRC in the splitv2 or SuperGLUE layout.

    >>> from pathlib import Path
    >>> root = Path(__file__).parents[2] / "tests/data/readers/multirc_splitv2"
    >>> sum(1 for _ in MultiRCReader(root, ["dev"]))
    3
    """

    name = "multirc"
    default_license = "unknown"
    SPLITS = ("train", "dev")
    OPTIONS = {"layout": "auto"}

    def __init__(self, root, splits=None, *, on_error="raise", **options):
        super().__init__(root, splits, on_error=on_error, **options)
        if self.options["layout"] not in ("auto", "splitv2", "superglue"):
            raise RecipeError(f"option layout must be one of auto, splitv2, superglue; "
                              f"found {self.options['layout']!r}", field="layout")

    def _base(self, folder: str) -> Path:
        inner = self.root / folder
        return inner if inner.is_dir() else self.root

    def layout(self) -> str:
        """The layout in use: ``splitv2`` or ``superglue``."""
        chosen = self.options["layout"]
        if chosen != "auto":
            return chosen
        if self.root.is_dir() and any(self._base("splitv2").glob("*-fixedIds.json")):
            return "splitv2"
        return "superglue"

    def locate(self, split: str) -> list[Path]:
        if self.layout() == "splitv2":
            base = self._base("splitv2")
            paths = sorted(base.glob(f"{split}_*-fixedIds.json")) + sorted(base.glob(f"{split}-fixedIds.json"))
            if not paths:
                raise SourceNotFoundError(f"MultiRC file not found (expected splitv2/{split}_*-fixedIds.json)",
                                          file=base)
            return paths
        path = self._base("MultiRC") / _SUPERGLUE_FILE[split]
        if not path.is_file():
            raise SourceNotFoundError(f"MultiRC file not found (expected SuperGLUE {path.name} for split {split},"
                                      " or splitv2/*-fixedIds.json)", file=path)
        return [path]

    def parse_file(self, split: str, path: str | Path) -> Iterator[RawMCItem | BadRecord]:
        path = Path(path)
        if path.suffix == ".jsonl":
            yield from self._parse_superglue(split, path)
        else:
            yield from self._parse_splitv2(split, path)

    def _parse_splitv2(self, split: str, path: Path) -> Iterator[RawMCItem | BadRecord]:
        rel, start = self.rel(path), 0
        # a paragraph at a time when the file is exactly {"data": [...]} (checked first: another key after it,
        # or a second "data", would change what json.loads gives); else whole, as before
        if clean_json_array(path, key="data"):
            try:
                for start, entry in enumerate(iter_json_array(path, key="data"), 1):
                    yield from self._entry(split, path, rel, start - 1, entry)
                return
            except NotStreamable:
                pass
        obj, bad = self.load_json(split, path)
        if bad is not None:
            yield bad
            return
        data = obj.get("data") if isinstance(obj, dict) else None
        if not isinstance(data, list):
            yield self.bad(split, path, "line 1", "missing_field", 'expected {"data": [paragraphs]}')
            return
        for i in range(start, len(data)):
            yield from self._entry(split, path, rel, i, data[i])

    def _entry(self, split: str, path: Path, rel: str, i: int, entry) -> Iterator[RawMCItem | BadRecord]:
        pid = entry.get("id") if isinstance(entry, dict) else None
        yield from self._paragraph(split, path, rel, entry.get("paragraph") if isinstance(entry, dict) else None,
                                   str(pid) if pid is not None else f"{split}/{i}", f"#{i}", "isAnswer")

    def _parse_superglue(self, split: str, path: Path) -> Iterator[RawMCItem | BadRecord]:
        rel = self.rel(path)
        for got in self.jsonl_objects(split, path):
            if isinstance(got, BadRecord):
                yield got
                continue
            k, record, obj = got
            idx = obj.get("idx", k)
            yield from self._paragraph(split, path, rel, obj.get("passage"), f"{split}/{idx}", record, "label")

    def _paragraph(self, split, path, rel, para, passage_id, where, flag) -> Iterator[RawMCItem | BadRecord]:
        paragraph = "paragraph" if flag == "isAnswer" else "passage"
        if not isinstance(para, dict) or not isinstance(para.get("text"), str) \
                or not isinstance(para.get("questions"), list):
            yield self.bad(split, path, where, "missing_field",
                           f"field {paragraph} must hold a text string and a questions list")
            return
        text = para["text"]
        sentences = split_sentences(text)
        passage = " ".join(sentences) if sentences is not None else text
        meta = {} if sentences is None else {"sentences": sentences}
        for j, q in enumerate(para["questions"]):
            record = f"{where}.{j}" if where.startswith("#") else where
            answers = q.get("answers") if isinstance(q, dict) else None
            if not isinstance(answers, list) or not isinstance(q.get("question"), str) \
                    or not all(isinstance(a, dict) and isinstance(a.get("text"), str) and flag in a
                               for a in answers):
                yield self.bad(split, path, record, "missing_field",
                               f"question {j}: needs a question string and answers with text and {flag}")
                continue
            flags = [a[flag] for a in answers]
            if not all(f in (True, False) for f in flags):  # bools, or 0/1 labels
                yield self.bad(split, path, record, "bad_value",
                               f"question {j}: {flag} must be true/false or 1/0, found {flags}")
                continue
            yield RawMCItem("multirc", split, passage_id, f"{passage_id}#{j}", passage, q["question"],
                            [a["text"] for a in answers], [k for k, f in enumerate(flags) if f],
                            rel, record, dict(meta))
