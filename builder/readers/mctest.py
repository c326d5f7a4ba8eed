"""MCTest reader: ``MCTest/mc500.{split}.tsv`` with the answer key ``mc500.{split}.ans``.

``.tsv``: one story per line (CRLF), 23 tab-separated fields: ``id``,
``properties``, ``story``, then 4 x (``question``, ``A``, ``B``, ``C``, ``D``).
In the story the literal text ``\\newline`` stands for a line break and
``\\tab`` for a tab; they are decoded. Each question starts with ``one: `` or
``multiple: ``, which is stripped into ``meta["evidence"]`` (``"one"`` or
``"multiple"``; ``None`` when absent). ``.ans``: line *i* holds the 4 correct
letters of story *i*, tab-separated.

Errors: a ``.tsv`` line without 23 fields is ``malformed_tsv``; an ``.ans`` file
whose line count differs from its ``.tsv`` is ``ans_count_mismatch``, naming
both files and both counts (every story either file promises is refused, one
record each: the key cannot be aligned, and an empty ``.tsv`` beside a full
``.ans`` loses nothing silently); an ``.ans`` line without 4 letters is
``malformed_ans``; a letter outside A-D is ``answer_out_of_range`` (reported on
the ``.ans`` line); a ``.tsv`` or ``.ans`` line holding bytes that are not UTF-8
is ``invalid_utf8`` (that story only, under ``on_error="skip"``). A byte-order
mark and CRLF line ends are read as if absent.

Option ``subset``: ``mc500`` (default) or ``mc160``. ``root`` may be the folder
holding ``MCTest/`` or ``MCTest/`` itself.

Ids: ``passage_id`` is the story id (``mc500.train.0``), ``question_id``
appends ``"#<question index 0-3>"``; ``record`` is ``"line <n>"`` of the ``.tsv``.
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterator

from schemas.errors import RecipeError
from schemas.tables import INVALID_UTF8, bad_utf8, split_lines

from .base import BadRecord, RawMCItem
from .common import SourceReader, letter_index

N_FIELDS = 23
_PREFIXES = (("one: ", "one"), ("multiple: ", "multiple"))


def decode_story(text: str) -> str:
    r"""Turn MCTest's ``\newline`` and ``\tab`` markers into real characters.

    >>> decode_story(r"One.\newline\newlineTwo.").count("\n")
    2
    """
    return text.replace("\\newline", "\n").replace("\\tab", "\t")


def split_question(text: str) -> tuple[str, str | None]:
    """Strip the ``one: `` / ``multiple: `` prefix; return ``(question, evidence)``.

    >>> split_question("multiple: How many friends does Alyssa have?")
    ('How many friends does Alyssa have?', 'multiple')
    """
    for prefix, kind in _PREFIXES:
        if text.startswith(prefix):
            return text[len(prefix):], kind
    return text, None


def _lines(text: str) -> list[str]:
    lines = split_lines(text)
    while lines and lines[-1] == "":
        lines.pop()
    return lines


class MCTestReader(SourceReader):
    """Read MCTest stories with their answer keys.

    >>> from pathlib import Path
    >>> root = Path(__file__).parents[2] / "tests/data/sources/mctest"
    >>> sum(1 for _ in MCTestReader(root, ["dev"]))
    48
    """

    name = "mctest"
    default_license = "MSR-LA"
    SPLITS = ("train", "dev", "test")
    OPTIONS = {"subset": "mc500"}

    def __init__(self, root, splits=None, *, on_error="raise", **options):
        super().__init__(root, splits, on_error=on_error, **options)
        if self.options["subset"] not in ("mc160", "mc500"):
            raise RecipeError(f"option subset must be one of mc160, mc500; found {self.options['subset']!r}",
                              field="subset")

    def locate(self, split: str) -> list[Path]:
        inner = self.root / "MCTest"
        base = inner if inner.is_dir() else self.root
        stem = f"{self.options['subset']}.{split}"
        tsv = self.require_file(base / f"{stem}.tsv", "story file")
        self.require_file(base / f"{stem}.ans", "answer key")
        return [tsv]

    def parse_file(self, split: str, path: str | Path) -> Iterator[RawMCItem | BadRecord]:
        path = Path(path)
        ans_path = self.require_file(path.with_suffix(".ans"), "answer key")
        stories = _lines(self.read_text(path))
        keys = _lines(self.read_text(ans_path))
        rel, ans_rel = self.rel(path), self.rel(ans_path)
        if len(stories) != len(keys):
            message = (f"answer key {ans_rel} has {len(keys)} lines but {rel} has {len(stories)}; "
                       "line i of the .ans goes with line i of the .tsv")
            for n in range(1, max(len(stories), len(keys)) + 1):  # one per story either file promises
                yield self.bad(split, path if n <= len(stories) else ans_path, f"line {n}", "ans_count_mismatch",
                               message)
            return
        for n, (line, key) in enumerate(zip(stories, keys), start=1):
            record = f"line {n}"
            for where, text in ((path, line), (ans_path, key)):
                problem = bad_utf8(text)
                if problem is not None:
                    yield self.bad(split, where, record, INVALID_UTF8, problem)
                    break
            else:
                yield from self._story(split, path, ans_path, rel, record, line, key)

    def _story(self, split, path, ans_path, rel, record, line, key) -> Iterator[RawMCItem | BadRecord]:
        fields = line.split("\t")
        if len(fields) != N_FIELDS:
            yield self.bad(split, path, record, "malformed_tsv",
                           f"expected {N_FIELDS} tab-separated fields (id, properties, story, "
                           f"4 x question + A-D), found {len(fields)}")
            return
        answers = key.split("\t")
        if len(answers) != 4:
            yield self.bad(split, ans_path, record, "malformed_ans",
                           f"expected 4 tab-separated answer letters, found {len(answers)}")
            return
        story_id = fields[0]
        story = decode_story(fields[2])
        for q in range(4):
            block = fields[3 + 5 * q: 8 + 5 * q]
            idx = letter_index(answers[q], 4)
            if idx < 0:
                yield self.bad(split, ans_path, record, "answer_out_of_range",
                               f"answer {q + 1} of story {story_id} must be one of A-D, found {answers[q]!r}")
                continue
            question, evidence = split_question(block[0])
            yield RawMCItem("mctest", split, story_id, f"{story_id}#{q}", story, question, block[1:], [idx],
                            rel, record, {"evidence": evidence, "properties": fields[1]})
