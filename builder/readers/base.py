"""What every source reader yields, and the base class that carries its bookkeeping.

A reader turns one corpus in its native layout into :class:`RawMCItem`
records, before any filtering: options are kept as the corpus has them (2 for
MCScript, many for MultiRC) and ``correct`` lists every correct index. The
assembly step filters them and turns the survivors into four-option
:class:`schemas.records.MCItem` rows.

A malformed record raises :class:`schemas.errors.SourceError` naming the file
and record, or, with ``on_error="skip"``, is yielded as a :class:`BadRecord`
with a short reason name so the drop ledger can count it. Nothing is skipped
silently.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, Sequence

from schemas.errors import SourceError


@dataclass(slots=True)
class RawMCItem:
    """One question as the corpus has it.

    Attributes
    ----------
    corpus : str
        Reader name, e.g. ``"race"``.
    split : str
        The corpus's own split name (``train``, ``dev``, ``val``, ``valid``...).
    passage_id, question_id : str
        Stable ids; ``question_id`` is unique within the corpus and split.
    options : list of str
        The answer options in corpus order.
    correct : list of int
        0-based indexes of the correct options (several for MultiRC).
    file : str
        Path of the source file relative to the reader's root.
    record : str
        Where in ``file``: ``"line 12"``, ``"#3"`` or the corpus's id.
    meta : dict
        Reader-specific extras a filter may need (e.g. MCScript question type).
    """

    corpus: str
    split: str
    passage_id: str
    question_id: str
    passage: str
    question: str
    options: list[str]
    correct: list[int]
    file: str
    record: str
    meta: dict = field(default_factory=dict)


@dataclass(slots=True)
class BadRecord:
    """A record that could not be read, yielded instead of raising under ``on_error="skip"``."""

    corpus: str
    split: str
    file: str
    record: str
    reason: str  # short stable name, e.g. "malformed_json", "answer_out_of_range"
    message: str


class Reader(ABC):
    """Base class: resolves files, applies the error policy, counts what it read.

    Subclasses set :attr:`name` and :attr:`default_license`, and implement
    :meth:`files` and :meth:`parse_file`; ``parse_file`` raises
    :class:`SourceError` for a bad record, and the base class decides whether
    that stops the read or becomes a :class:`BadRecord`.
    """

    name: str = ""
    default_license: str = ""
    #: Whether the corpus keeps a file per article or record (RACE), so that listing it takes a while: the
    #: assembly lists such sources after the others and starts the workers on those meanwhile.
    many_files: bool = False

    def __init__(self, root: str | Path, splits: Sequence[str] | None = None, *, on_error: str = "raise"):
        if on_error not in ("raise", "skip"):
            raise ValueError(f"on_error must be 'raise' or 'skip', found {on_error!r}")
        self.root = Path(root)
        self.splits = list(splits) if splits is not None else None
        self.on_error = on_error

    @abstractmethod
    def files(self) -> list[tuple[str, str | Path]]:
        """``(split, path)`` pairs to read, in a deterministic order.

        A path is a :class:`~pathlib.Path` or a string: a reader that lists a
        file per article (:attr:`many_files`) gives strings, as the assembly
        sends them to its workers (a ``Path`` costs 3 µs to make, and as much
        to make again from the string: 0.15 CPU s for RACE's 26,537 files).
        """

    @abstractmethod
    def parse_file(self, split: str, path: str | Path) -> Iterator[RawMCItem | BadRecord]:
        """Yield the records of one file (a path as :meth:`files` lists it, or its string); raise
        :class:`SourceError` on a bad one."""

    def rel(self, path: str | Path) -> str:
        try:
            return str(Path(path).relative_to(self.root))
        except ValueError:
            return str(path)

    def bad(self, split: str, path: str | Path, record: str, reason: str, message: str) -> BadRecord:
        """Raise (policy ``raise``) or return a :class:`BadRecord` (policy ``skip``)."""
        if self.on_error == "raise":
            raise SourceError(f"{message} [{reason}]", file=path, record=record)
        return BadRecord(self.name, split, self.rel(path), record, reason, message)

    def __iter__(self) -> Iterator[RawMCItem | BadRecord]:
        for split, path in self.files():
            yield from self.parse_file(split, path)
