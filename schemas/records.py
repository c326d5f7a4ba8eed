"""Record shapes that every stage reads and writes.

Column names of :class:`MCItem` follow Belebele's training-set TSV
(``dataset, split, passage_id, question_id, passage, question, answer1..answer4,
correct_answer, correct_answer_num``) so its users can switch without renaming;
:class:`TopicItem` follows the SIB-200 TSV (``index_id, category, text``).

The dataclasses are the one definition of each record: the column order
(:data:`MC_COLUMNS`, :data:`TOPIC_COLUMNS`), the columns a split file must hold
(:data:`REQUIRED_COLUMNS`, checked by :func:`schemas.dataset.load_dataset_dir`)
and the Arrow types every writer uses (:func:`schemas.features.arrow_schema`)
are derived from them. Validation happens at the boundary (:func:`mc_item_from_dict`,
:func:`topic_item_from_dict`, the loader's column check); inside the pipeline
the types are trusted.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Mapping

from .codes import check_language_code
from .errors import SchemaError

ANSWER_FIELDS = ("answer1", "answer2", "answer3", "answer4")


@dataclass(frozen=True, slots=True)
class Provenance:
    """Where a record came from: corpus, file (relative path) and record.

    ``record`` is a line number (``"line 12"``), an index (``"#3"``) or the
    corpus's own id, whatever locates it best in ``file``.
    """

    corpus: str
    file: str
    record: str


@dataclass(frozen=True, slots=True)
class MCItem:
    """One four-option multiple-choice question about a passage."""

    dataset: str
    split: str
    passage_id: str
    question_id: str
    passage: str
    question: str
    answer1: str
    answer2: str
    answer3: str
    answer4: str
    correct_answer: str
    correct_answer_num: int
    language: str
    license: str
    provenance: Provenance

    @property
    def options(self) -> tuple[str, str, str, str]:
        return (self.answer1, self.answer2, self.answer3, self.answer4)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass(frozen=True, slots=True)
class TopicItem:
    """One sentence with its topic label (SIB-200 layout)."""

    index_id: int
    category: str
    text: str
    language: str
    split: str
    license: str
    provenance: Provenance

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass(frozen=True, slots=True)
class Judgement:
    """One annotator's label for one item."""

    item_id: str
    annotator: str
    label: str


@dataclass(frozen=True, slots=True)
class Decision:
    """The final label of an item and the rule that produced it.

    ``rule`` is one of ``majority``, ``adjudicated`` or ``unresolved``
    (``label`` is then None).
    """

    item_id: str
    label: str | None
    rule: str
    votes: int = 0


MC_COLUMNS = tuple(f.name for f in dataclasses.fields(MCItem))
TOPIC_COLUMNS = tuple(f.name for f in dataclasses.fields(TopicItem))
DECISION_RULES = ("majority", "adjudicated", "unresolved")

#: The columns a split file must hold to be read as records of each kind (the rest
#: of the record is optional on input: a folder of SIB-200 TSVs has no license column).
REQUIRED_COLUMNS = {
    "mc": ("passage", "question", *ANSWER_FIELDS, "correct_answer_num"),
    "topic": ("index_id", "category", "text"),
}
#: The record type of each kind.
RECORD_TYPES = {"mc": MCItem, "topic": TopicItem}


def _text(d: Mapping[str, Any], name: str, where: dict, *, allow_empty=False) -> str:
    if name not in d or d[name] is None:
        raise SchemaError(f"missing required field {name!r}", **where, field=name)
    value = d[name]
    if not isinstance(value, str):
        raise SchemaError(f"expected text, found {type(value).__name__} {value!r}", **where, field=name)
    if not allow_empty and not value.strip():
        raise SchemaError("expected non-empty text, found an empty string", **where, field=name)
    return value


def _provenance(d: Mapping[str, Any], where: dict) -> Provenance:
    p = d.get("provenance")
    if isinstance(p, Provenance):
        return p
    if isinstance(p, Mapping):
        try:
            return Provenance(str(p["corpus"]), str(p["file"]), str(p["record"]))
        except KeyError as err:
            raise SchemaError(f"provenance needs corpus, file and record; missing {err}", **where,
                              field="provenance") from None
    raise SchemaError(f"expected a mapping with corpus, file, record, found {p!r}", **where,
                      field="provenance")


def mc_item_from_dict(d: Mapping[str, Any], *, file=None, record=None) -> MCItem:
    """Validate a mapping and build an :class:`MCItem`.

    Raises :class:`SchemaError` naming file, record and field.

    >>> item = mc_item_from_dict(dict(
    ...     dataset="race", split="train", passage_id="p1", question_id="q1",
    ...     passage="Tom has a cat.", question="What does Tom have?",
    ...     answer1="a dog", answer2="a cat", answer3="a cow", answer4="a fish",
    ...     correct_answer="a cat", correct_answer_num=2, language="eng_Latn",
    ...     license="RACE-research", provenance={"corpus": "race", "file": "1.txt", "record": "#0"}))
    >>> item.correct_answer_num
    2
    """
    where = {"file": file, "record": record}
    values = {name: _text(d, name, where) for name in
              ("dataset", "split", "passage_id", "question_id", "passage", "question", *ANSWER_FIELDS,
               "correct_answer", "license")}
    num = d.get("correct_answer_num")
    try:
        num_int = int(num)
    except (TypeError, ValueError):
        num_int = None
    if num_int is None or str(num).strip() != str(num_int) or not 1 <= num_int <= 4:
        raise SchemaError(f"expected an integer 1-4, found {num!r}", **where, field="correct_answer_num")
    if values[f"answer{num_int}"] != values["correct_answer"]:
        raise SchemaError(
            f"correct_answer {values['correct_answer']!r} differs from answer{num_int} "
            f"{values[f'answer{num_int}']!r}", **where, field="correct_answer")
    language = check_language_code(d.get("language"), **where)
    return MCItem(correct_answer_num=num_int, language=language, provenance=_provenance(d, where), **values)


def index_id_of(value: Any, *, file=None, record=None) -> int:
    """A topic item's ``index_id``, the one rule for every reader: a whole number >= 0 (``int``'s forms).

    >>> index_id_of(" 7 "), index_id_of(12)
    (7, 12)
    >>> for bad in ("--5", "²", "-1"):
    ...     try:
    ...         index_id_of(bad)
    ...     except SchemaError as err:
    ...         print(err.message)
    expected an integer index_id, found '--5'
    expected an integer index_id, found '²'
    expected index_id >= 0, found -1
    """
    try:
        index_id = int(value)
    except (TypeError, ValueError):
        raise SchemaError(f"expected an integer index_id, found {value!r}", file=file, record=record,
                          field="index_id") from None
    if index_id < 0:
        raise SchemaError(f"expected index_id >= 0, found {index_id}", file=file, record=record, field="index_id")
    return index_id


def topic_item_from_dict(d: Mapping[str, Any], *, labels=None, file=None, record=None) -> TopicItem:
    """Validate a mapping and build a :class:`TopicItem`.

    ``labels``, when given, is the allowed label set.
    """
    where = {"file": file, "record": record}
    index_id = index_id_of(d.get("index_id"), **where)
    category = _text(d, "category", where)
    if labels is not None and category not in labels:
        raise SchemaError(f"unknown label {category!r}; allowed: {', '.join(sorted(labels))}", **where,
                          field="category")
    return TopicItem(
        index_id=index_id,
        category=category,
        text=_text(d, "text", where),
        language=check_language_code(d.get("language"), **where),
        split=_text(d, "split", where),
        license=_text(d, "license", where),
        provenance=_provenance(d, where),
    )
