"""Read a labelled table (one final label per item) for curation and splitting.

Accepted inputs:

* a SIB-200 TSV (``index_id``, ``category``, ``text``);
* a folder with SIB-200 ``train.tsv``, ``dev.tsv``, ``test.tsv`` (concatenated in
  that order), or with ``decisions.csv`` from ``builder annotate adjudicate``;
* ``decisions.csv`` (``item_id``, ``label``, ``rule``, ``votes``, ``text``), where
  an unresolved item has an empty label.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from schemas.io import read_sib_tsv, read_text_utf8, require_path
from schemas.tables import parse_table
from schemas.errors import AnnotationError, SchemaError

SIB_SPLITS = ("train", "dev", "test")


@dataclass(frozen=True, slots=True)
class LabelledItem:
    """One item with its final label; ``label`` is None for an unresolved item."""

    item_id: str
    label: str | None
    text: str
    rule: str | None = None
    where: str = ""  # file and line, for messages


def _from_sib(path: Path) -> list[LabelledItem]:
    rows = read_sib_tsv(path)
    return [LabelledItem(r["index_id"], r["category"] or None, r["text"], None, f"{path.name}:{n}")
            for n, r in enumerate(rows, start=2)]


def _from_decisions(path: Path) -> list[LabelledItem]:
    table = parse_table(read_text_utf8(path), path, delimiter=",", required=("item_id", "label", "rule"))
    out = []
    for row in table.rows:
        r = dict(zip(table.header, row.fields))
        out.append(LabelledItem(r["item_id"], r["label"] or None, r.get("text") or "", r["rule"],
                                f"{path.name}:{row.line}"))
    return out


def read_labelled(path) -> list[LabelledItem]:
    """Read a labelled table in any accepted layout (see the module docstring).

    >>> import pathlib, tempfile
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "train.tsv").write_text("index_id\\tcategory\\ttext\\n1\\tsports\\tA goal.\\n")
    >>> [(i.item_id, i.label, i.text) for i in read_labelled(d)]
    [('1', 'sports', 'A goal.')]
    """
    p = require_path(path, what="labelled data")
    from schemas.manifest import verify_against_manifest

    verify_against_manifest(p)  # a split file altered after its manifest.json was written stops here (exit 2)
    if p.is_dir():
        if (p / "decisions.csv").is_file():
            return _nonempty(_from_decisions(p / "decisions.csv"), p / "decisions.csv")
        files = [p / f"{s}.tsv" for s in SIB_SPLITS if (p / f"{s}.tsv").is_file()]
        if not files:
            raise SchemaError("folder holds neither decisions.csv nor train/dev/test.tsv", file=p)
        return _nonempty([item for f in files for item in _from_sib(f)], p)
    if p.suffix.lower() == ".csv":
        return _nonempty(_from_decisions(p), p)
    return _nonempty(_from_sib(p), p)


def _nonempty(items: list[LabelledItem], where: Path) -> list[LabelledItem]:
    """``items``, unless there are none: an :class:`AnnotationError` naming ``where`` (a header and no rows)."""
    if not items:
        raise AnnotationError("no items: the file holds a header and no rows" if where.is_file()
                              else "no items in the folder's split files",
                              file=where)
    return items
