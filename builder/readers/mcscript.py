"""MCScript reader: ``{split}-data.xml`` (MCScript2.0; the 1.0 release uses the same schema).

Layout::

    <data>
      <instance id="5" scenario="walking a dog">
        <text>...</text>
        <questions>
          <question id="0" text="..." type="text|commonsense">
            <answer correct="True|False" id="0" text="..."/>
            <answer correct="True|False" id="1" text="..."/>

Each question is yielded with its answers as in the file (2 in both
releases) and ``correct`` listing those with ``correct="True"``; the assembly
completes them to 4. XML escapes (``&quot;``, ``&amp;``) are decoded by the
parser. The file is streamed with expat, so a large file is never held as a
tree, and every record carries the line of its ``<question>`` tag.

The file must be UTF-8 (a byte-order mark is fine): it is checked as it
streams, and a bad byte is ``invalid_utf8`` at its line, naming the byte and
the reason (questions of instances closed before it are kept).

Ids: ``passage_id`` is ``"{split}/<instance id>"``, ``question_id`` appends
``"#<question id>"``; ``record`` is ``"line <n>"``. ``meta``: ``type``,
``scenario``, ``instance_id``. Malformed XML is ``malformed_xml`` at the line
the parser reports (questions of instances closed before it are kept).
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterator
from xml.parsers import expat

from schemas.errors import SourceNotFoundError
from schemas.tables import INVALID_UTF8, Utf8Stream

from .base import BadRecord, RawMCItem
from .common import SourceReader

_CHUNK = 1 << 20


class _Instance:
    __slots__ = ("attrs", "line", "text", "questions")

    def __init__(self, attrs: dict, line: int):
        self.attrs, self.line, self.text, self.questions = attrs, line, None, []


class MCScriptReader(SourceReader):
    """Read MCScript XML files.

    >>> from pathlib import Path
    >>> root = Path(__file__).parents[2] / "tests/data/sources/mcscript"
    >>> sum(1 for _ in MCScriptReader(root, ["train"]))
    43
    """

    name = "mcscript"
    default_license = "unknown"
    SPLITS = ("train", "dev", "test")

    def locate(self, split: str) -> list[Path]:
        path = self.root / f"{split}-data.xml"
        if not path.is_file():
            raise SourceNotFoundError(f"MCScript file not found (expected {split}-data.xml)", file=path)
        return [path]

    def parse_file(self, split: str, path: str | Path) -> Iterator[RawMCItem | BadRecord]:
        path = Path(path)
        done: list[_Instance] = []
        state = {"inst": None, "question": None, "buf": None}
        parser = expat.ParserCreate()
        parser.buffer_text = True

        def start(tag, attrs):
            if tag == "instance":
                state["inst"] = _Instance(attrs, parser.CurrentLineNumber)
            elif tag == "text" and state["inst"] is not None and state["question"] is None:
                state["buf"] = []
            elif tag == "question" and state["inst"] is not None:
                state["question"] = (attrs, parser.CurrentLineNumber, [])
                state["inst"].questions.append(state["question"])
            elif tag == "answer" and state["question"] is not None:
                state["question"][2].append(attrs)

        def end(tag):
            if tag == "text" and state["buf"] is not None:
                state["inst"].text = "".join(state["buf"])
                state["buf"] = None
            elif tag == "question":
                state["question"] = None
            elif tag == "instance" and state["inst"] is not None:
                done.append(state["inst"])
                state["inst"] = None

        def chars(data):
            if state["buf"] is not None:
                state["buf"].append(data)

        parser.StartElementHandler = start
        parser.EndElementHandler = end
        parser.CharacterDataHandler = chars
        rel = self.rel(path)
        utf8 = Utf8Stream(path)
        with open(path, "rb") as fh:
            while True:
                chunk = fh.read(_CHUNK)
                good, bad_bytes = utf8.check(chunk, final=not chunk)
                try:
                    parser.Parse(chunk[:good], bad_bytes is None and not chunk)
                except expat.ExpatError as err:
                    yield from self._flush(split, path, rel, done)
                    yield self.bad(split, path, f"line {err.lineno}", "malformed_xml",
                                   f"malformed XML: {expat.ErrorString(err.code)} at column {err.offset + 1}")
                    return
                yield from self._flush(split, path, rel, done)
                if bad_bytes is not None:  # instances closed before the bad byte are kept
                    yield self.bad(split, path, bad_bytes.record, INVALID_UTF8, bad_bytes.message)
                    return
                if not chunk:
                    break

    def _flush(self, split: str, path: Path, rel: str, done: list[_Instance]) -> Iterator[RawMCItem | BadRecord]:
        for inst in done:
            yield from self._items(split, path, rel, inst)
        done.clear()

    def _items(self, split: str, path: Path, rel: str, inst: _Instance) -> Iterator[RawMCItem | BadRecord]:
        iid = inst.attrs.get("id")
        if iid is None:
            yield self.bad(split, path, f"line {inst.line}", "missing_field", "instance has no id attribute")
            return
        passage_id = f"{split}/{iid}"
        for attrs, line, answers in inst.questions:
            record = f"line {line}"
            if inst.text is None:
                yield self.bad(split, path, record, "missing_field", f"instance {iid} has no <text>")
                continue
            missing = [k for k in ("id", "text") if k not in attrs]
            if missing:
                yield self.bad(split, path, record, "missing_field", f"question has no {missing[0]} attribute")
                continue
            bad = next((a for a in answers if "text" not in a or "correct" not in a), None)
            if bad is not None:
                yield self.bad(split, path, record, "missing_field",
                               f"question {attrs['id']}: an answer lacks its text or correct attribute")
                continue
            flags = [a["correct"].strip().lower() for a in answers]
            if any(f not in ("true", "false") for f in flags):
                yield self.bad(split, path, record, "bad_value",
                               f"question {attrs['id']}: answer attribute correct must be True or False, "
                               f"found {[a['correct'] for a in answers]}")
                continue
            yield RawMCItem("mcscript", split, passage_id, f"{passage_id}#{attrs['id']}", inst.text, attrs["text"],
                            [a["text"] for a in answers], [i for i, f in enumerate(flags) if f == "true"],
                            rel, record,
                            {"type": attrs.get("type"), "scenario": inst.attrs.get("scenario"), "instance_id": iid})
