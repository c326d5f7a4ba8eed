"""The column, split and config names of the published Hub datasets (``builder export --schema``).

``--schema belebele`` and ``--schema sib200`` write an export in the layout of
``facebook/belebele`` and ``Davlan/sib200`` on the Hugging Face Hub, so the
tasks that ship with lm-evaluation-harness (``lm_eval/tasks/belebele``, the
AfroBench ``sib`` tasks) run on it unchanged, pointed at the export with
``dataset_path`` (and ``dataset_name`` = the variant). The default schema
(``ours``) keeps the toolkit's record columns.

What each schema changes (columns not named here are kept, after the published
ones; every row keeps its ``license``):

========  ==================================================================
belebele  ``passage`` -> ``flores_passage``, ``answer1-4`` -> ``mc_answer1-4``,
          ``language`` -> ``dialect``, ``passage_id`` -> ``link``, a
          ``question_number`` (1, 2, ... per passage, in file order), and
          ``correct_answer_num`` as the string ``"1"``-``"4"`` (lm-eval's
          template indexes ``['1', '2', '3', '4']`` with it)
sib200    columns unchanged (``index_id``, ``category``, ``text``); ``category``
          stays a string, as published (AfroBench's ``doc_to_target: category``
          matches the label text)
both      split ``dev`` -> ``validation`` (also in a ``split`` column); config
          names are the FLORES-200 codes of the variants (``eng_Latn``)
========  ==================================================================

Published column lists: Belebele's from its dataset card and lm-eval's
``_default_template_yaml`` (``shared/seeds/002``); SIB-200's from the AfroBench
task (``validation_split: validation``, ``doc_to_target: category``).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import pyarrow as pa

from schemas.codes import is_variant_code
from schemas.errors import UsageError

SCHEMAS = ("ours", "belebele", "sib200")


@dataclass(frozen=True)
class PublishedSchema:
    """How one published dataset names its columns, splits and configs."""

    name: str
    kind: str  # record kind it applies to: "mc" or "topic"
    hub_repo: str | None
    columns: dict[str, str] = field(default_factory=dict)  # ours -> published
    first: tuple[str, ...] = ()  # published column order
    splits: dict[str, str] = field(default_factory=dict)  # ours -> published
    class_labels: bool = True  # topic labels as ClassLabel (ours) or the label text (published SIB-200)

    def split_name(self, split: str) -> str:
        """The published name of one of our splits.

        >>> SCHEMA["sib200"].split_name("dev"), SCHEMA["ours"].split_name("dev")
        ('validation', 'dev')
        """
        return self.splits.get(split, split)

    def apply(self, table: pa.Table) -> pa.Table:
        """``table`` (one split, our columns) in the published layout."""
        if self.name == "ours":
            return table
        if "split" in table.column_names:
            col = table.column_names.index("split")
            values = [self.splits.get(v, v) for v in table.column("split").to_pylist()]  # None stays None
            table = table.set_column(col, "split", pa.array(values, pa.string()))
        if self.name == "belebele":
            table = _belebele_columns(table)
        names = [self.columns.get(c, c) for c in table.column_names]
        table = table.rename_columns(names)
        head = [c for c in self.first if c in names]
        return table.select(head + [c for c in names if c not in head])


def _belebele_columns(table: pa.Table) -> pa.Table:
    nums = table.column("correct_answer_num").to_pylist()
    table = table.set_column(table.column_names.index("correct_answer_num"), "correct_answer_num",
                             pa.array([None if n is None else str(n) for n in nums], pa.string()))
    seen: dict[str, int] = {}
    numbers = []
    for passage in table.column("passage_id").to_pylist():
        seen[passage] = seen.get(passage, 0) + 1
        numbers.append(seen[passage])
    return table.append_column("question_number", pa.array(numbers, pa.int64()))


_BELEBELE_COLUMNS = {"passage": "flores_passage", "answer1": "mc_answer1", "answer2": "mc_answer2",
                     "answer3": "mc_answer3", "answer4": "mc_answer4", "language": "dialect",
                     "passage_id": "link"}

SCHEMA = {
    "ours": PublishedSchema("ours", "", None),
    "belebele": PublishedSchema(
        "belebele", "mc", "facebook/belebele", columns=_BELEBELE_COLUMNS,
        first=("link", "question_number", "flores_passage", "question", "mc_answer1", "mc_answer2",
               "mc_answer3", "mc_answer4", "correct_answer_num", "dialect"),
        splits={"dev": "validation"}),
    "sib200": PublishedSchema(
        "sib200", "topic", "Davlan/sib200", first=("index_id", "category", "text"),
        splits={"dev": "validation"}, class_labels=False),
}


def get_schema(name: str | None, kind: str, variants) -> PublishedSchema:
    """The schema ``name`` for a dataset of ``kind``; a usage error (exit 2) when it does not fit.

    >>> get_schema("sib200", "topic", ["eng_Latn"]).hub_repo
    'Davlan/sib200'
    >>> get_schema("belebele", "topic", ["eng_Latn"])
    Traceback (most recent call last):
    ...
    schemas.errors.UsageError: field --schema: belebele is the layout of multiple-choice records; this dataset holds topic records (use --schema sib200 or leave it out)
    """
    name = name or "ours"
    if name not in SCHEMA:
        raise UsageError(f"expected one of {', '.join(SCHEMAS)}, found {name!r}", field="--schema")
    schema = SCHEMA[name]
    if schema.kind and schema.kind != kind:
        fits = next(s for s in SCHEMAS[1:] if SCHEMA[s].kind == kind)
        what = {"mc": "multiple-choice"}  # a topic dataset holds "topic records"
        raise UsageError(f"{name} is the layout of {what.get(schema.kind, schema.kind)} records; this dataset "
                         f"holds {what.get(kind, kind)} records (use --schema {fits} or leave it out)", field="--schema")
    if schema.kind:
        bad = [v for v in variants if not is_variant_code(v)]
        if bad:
            raise UsageError(f"{name}'s configs are FLORES-200 codes (eng_Latn); variant {bad[0]!r} is not one. "
                             "Name the variant folders by their codes", field="--schema")
    return schema
