"""Turn an LLM's free-text answer into a label, or name why it cannot be read.

Two parsers, one result shape (:class:`Parsed`): either a ``label`` or a
failure ``kind``. Failures are never guessed away; the scorer counts them by
kind and reports the parse-failure rate beside the accuracy.

Multiple-choice letters (:func:`parse_letter`)
    Accepts A-D in the common forms: ``B``, ``(B)``, ``B.``, ``B) text``,
    ``Answer: B``, ``The answer is B``, ``The correct answer is (B)``.
    Belebele's sample post-processing strips parentheses and, when the rest is
    not one of the four letters, takes the *first character* of the output
    (``answer[0]``). That fallback is applied only with ``lenient=True`` and
    is flagged (``Parsed.lenient``) so it can be counted separately.

Topic labels in prose (:func:`parse_topic`)
    Label names and their parts (``science/technology`` is matched by
    "science" or "technology"), case-insensitive, with simple inflections
    ("political", "sporting", "geographical"). The first mention wins.
    Before that, lists that merely repeat the label set ("science/technology,
    travel, politics, sports, health, or geography") are ignored, and a
    refusal or a "does not fit any category" that comes *before* the first
    label mention ends the scan as a failure.

Failure kinds: ``empty``, ``refusal`` (apology, "unable to understand"),
``other_language`` (the answer is not written in English), ``no_label`` (the
answer declines to choose or names no known label), and for letters
``no_letter``.

>>> parse_topic('This piece of news can be categorized under ""Science/Technology"".',
...             ["science/technology", "travel"]).label
'science/technology'
>>> parse_letter("The correct answer is (C).").label
'C'
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

import regex

FAILURE_KINDS_TOPIC = ("empty", "refusal", "other_language", "no_label")
FAILURE_KINDS_MC = ("empty", "no_letter")
LETTERS = "ABCD"


@dataclass(frozen=True)
class Parsed:
    """The label read from an answer, or the reason none could be read."""

    label: str | None
    kind: str | None = None  # failure kind when label is None
    lenient: bool = False  # the label came from Belebele's first-character fallback

    @property
    def ok(self) -> bool:
        return self.label is not None


# ----------------------------------------------------------------------------- letters

_STRIP = regex.compile(r"[\s()\[\]{}\"'`*.,:;!]+")
_PATTERNS = (
    # the whole answer is one letter, maybe wrapped: "B", "(B)", "**B**", "b."
    regex.compile(r"^[\s(\[{\"'`*]*([A-Da-d])[\s)\]}\"'`*.,:;!]*$"),
    # a letter that opens the answer and is followed by a delimiter: "B. Paris", "(B) Paris", "B: Paris"
    regex.compile(r"^[\s\"'`*]*[(\[]?([A-D])(?:[)\]]|[.:](?:\s|$))"),
    # "Answer: B", "The answer is B", "The correct answer is (B)", "Correct option: B"
    regex.compile(r"\b(?:answer|option|choice)(?:\s*(?:is|would be|should be|:|=|-))*\s*(?:option\s+|choice\s+|letter\s+)?"
                  r"[(\[\"'`*]*([A-D])(?![\p{L}\p{N}])", regex.IGNORECASE),
)


def parse_letter(answer: str | None, *, lenient: bool = False) -> Parsed:
    """Read the option letter A-D from a model answer.

    Parameters
    ----------
    answer : str or None
        The raw model output.
    lenient : bool, default False
        Apply Belebele's fallback: when no accepted form matches, take the
        first character of the output (after stripping parentheses); it counts
        only if it is one of A-D, and the result is flagged ``lenient``.

    Returns
    -------
    Parsed
        ``label`` is one of "A".."D", or ``kind`` is "empty" or "no_letter".

    Examples
    --------
    >>> [parse_letter(a).label for a in ["(B)", "B.", "Answer: D", "The answer is A", "d"]]
    ['B', 'B', 'D', 'A', 'D']
    >>> parse_letter("Boston is the answer").kind
    'no_letter'
    >>> parse_letter("Boston is the answer", lenient=True)
    Parsed(label='B', kind=None, lenient=True)
    """
    text = "" if answer is None else str(answer).strip()
    if not _STRIP.sub("", text):
        return Parsed(None, "empty")
    for pattern in _PATTERNS:
        m = pattern.search(text)
        if m:
            return Parsed(m.group(1).upper())
    if lenient:
        first = text.replace("(", "").replace(")", "").strip()[:1]
        if first in LETTERS:
            return Parsed(first, lenient=True)
    return Parsed(None, "no_letter")


# ----------------------------------------------------------------------------- topic labels

_REFUSAL = regex.compile(
    r"\bi(?:'|’| a)?m sorry\b|\bsorry\b|\bi apologi[sz]e\b|\bapologies\b"
    r"|\b(?:unable|not able|not be able)\s+to\b"
    r"|\b(?:can ?not|can['’]t|could ?not|couldn['’]t)\s+(?:understand|read|translate|help|assist|process)\b",
    regex.IGNORECASE,
)
_DECLINE = regex.compile(
    r"\b(?:not|n['’]t)\s+(?:(?:seem|appear)\s+to\s+|really\s+|directly\s+|clearly\s+|specifically\s+|quite\s+)*"
    r"(?:fit|fall|belong|relate|correspond|match)\w*\b"
    r"|\bnot\s+(?:a|an)\s+(?:piece\s+of\s+)?news\b"
    r"|\b(?:difficult|hard|impossible|not\s+possible|unclear|not\s+clear)\s+(?:to\s+)?"
    r"(?:\w+\s+){0,2}?(?:determine|categori[sz]e|classify|say|assign|tell)\b"
    r"|\b(?:can ?not|can['’]t)\s+be\s+(?:categori[sz]ed|classified)\b"
    r"|\bnone of the\b|\bno specific (?:news )?category\b",
    regex.IGNORECASE,
)
_LIST_GAP = regex.compile(r"""^[\s,;/"'“”‘’()\[\]*]*(?:(?:or|and|and/or)\b[\s"'“”‘’()\[\]*]*)?$""", regex.IGNORECASE)
_LATIN = regex.compile(r"\p{Script=Latin}")
_LETTER = regex.compile(r"\p{L}")
_ENGLISH = regex.compile(r"\b(?:the|this|is|of|to|it|news|and|in|category|piece|article|text|related|about)\b",
                         regex.IGNORECASE)


def _part_pattern(part: str) -> str:
    """A word-start pattern for one label part with its simple inflections.

    >>> bool(regex.fullmatch(_part_pattern("politics"), "political"))
    True
    """
    base = part.lower()
    if len(base) > 4 and base.endswith("s"):
        base = base[:-1]  # politics -> politic(al|s), sports -> sport(s|ing)
    elif len(base) > 4 and base.endswith("y"):
        base = base[:-1]  # geography -> geograph(y|ic|ical), technology -> technolog(y|ical|ies)
    return r"(?<![\p{L}\p{N}])" + regex.escape(base) + r"\p{L}*"


@lru_cache(maxsize=64)
def _label_matcher(labels: tuple[str, ...]):
    parts: dict[str, str] = {}
    for label in labels:
        for part in regex.split(r"[/&,]|\s+and\s+|\s+", label.strip()):
            if len(part) >= 3 and part.lower() not in parts:
                parts[part.lower()] = label
    alternatives = sorted(parts, key=len, reverse=True)
    # no label has a part of 3 letters or more (labels "A".."D" of multiple-choice samples scored as
    # topics): nothing can be mentioned, and an empty pattern would match everywhere with no group
    groups = "|".join(f"(?P<p{i}>{_part_pattern(p)})" for i, p in enumerate(alternatives)) or "(?!)"
    return regex.compile(groups, regex.IGNORECASE), {f"p{i}": parts[p] for i, p in enumerate(alternatives)}


def _label_mentions(text: str, labels: tuple[str, ...]) -> list[tuple[int, int, str]]:
    pattern, names = _label_matcher(labels)
    return [(m.start(), m.end(), names[m.lastgroup]) for m in pattern.finditer(text)]


def _drop_enumerations(text: str, mentions: list[tuple[int, int, str]], min_labels: int = 3):
    """Remove runs of mentions that just list the label set ("a, b, c, or d")."""
    kept, run = [], []

    def flush():
        if len({m[2] for m in run}) < min_labels:
            kept.extend(run)

    for m in mentions:
        if run and _LIST_GAP.match(text[run[-1][1]:m[0]]):
            run.append(m)
        else:
            flush()
            run = [m]
    flush()
    return kept


def parse_topic(answer: str | None, labels: Sequence[str]) -> Parsed:
    """Read a topic label from a prose answer; the first mention wins.

    Parameters
    ----------
    answer : str or None
        The raw model output.
    labels : sequence of str
        The label set (e.g. SIB-200's seven labels).

    Returns
    -------
    Parsed
        ``label`` is one of ``labels``, or ``kind`` is one of
        :data:`FAILURE_KINDS_TOPIC`.

    Examples
    --------
    >>> labels = ["science/technology", "travel", "politics", "sports", "health", "geography"]
    >>> parse_topic("This news article is related to health and sports.", labels).label
    'health'
    >>> parse_topic("I'm sorry, but I am unable to understand the language you used.", labels).kind
    'refusal'
    >>> parse_topic("这条新闻是关于政治的。", labels).kind
    'other_language'
    """
    text = "" if answer is None else str(answer).strip()
    letters = _LETTER.findall(text)
    if not letters:
        return Parsed(None, "empty")
    if len(_LATIN.findall(text)) < 0.5 * len(letters):
        return Parsed(None, "other_language")
    mentions = _drop_enumerations(text, _label_mentions(text, tuple(labels)))
    events = [(m[0], "label", m[2]) for m in mentions[:1]]
    for kind, pattern in (("refusal", _REFUSAL), ("no_label", _DECLINE)):
        m = pattern.search(text)
        if m:
            events.append((m.start(), kind, None))
    if events:
        _, kind, label = min(events, key=lambda e: (e[0], e[1] != "refusal"))
        return Parsed(label) if kind == "label" else Parsed(None, kind)
    if not _ENGLISH.search(text):
        return Parsed(None, "other_language")
    return Parsed(None, "no_label")
