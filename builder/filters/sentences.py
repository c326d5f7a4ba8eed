"""A rule-based sentence splitter that works beyond English.

Belebele's script counts sentences with NLTK's English Punkt model; this
toolkit has to count them in any script, so it follows the Unicode sentence
boundary classes (UAX #29) instead of a trained model:

* a boundary is one or more terminal marks -- Unicode ``Sentence_Break=STerm``
  (``! ? । ॥ ۔ ؟ ። ፧ ။ 。 ！ ？`` ...) or ``ATerm`` (``.`` and its variants) --
  followed by optional closing quotes or brackets and then whitespace or the
  end of the text;
* CJK full stops and marks (``。 ！ ？ ｡``) end a sentence even without a
  following space, since those scripts do not put spaces between sentences;
* a full stop is *not* a boundary after a known abbreviation (``Mr.``,
  ``Dr.``, ``e.g.``, ``U.S.``), after a single letter (an initial such as
  ``J. K. Rowling``), or when the next word starts in lower case (UAX #29
  rule SB8). Decimals (``3.5``) never match, because no space follows the dot.
  A list number standing alone (``1. Drink clean water.``) joins the sentence
  it numbers.

Scripts that mark sentence ends only with a space (Thai) are counted as one
sentence per paragraph at most; this is a known limit.

>>> count_sentences("Mr. Smith paid $3.50. He left! Did she? Yes.")
4
>>> count_sentences("राम घर गया। वह खुश था। ")
2
>>> count_sentences("今日は晴れです。明日は雨です。")
2
"""
from __future__ import annotations

import regex

_TERM = r"[\p{SB=STerm}\p{SB=ATerm}]"
_CLOSE = r"[\p{SB=Close}\p{Pf}\p{Pe}]"
#: a candidate boundary: terminal marks, closing punctuation, then space or end.
_BOUNDARY = regex.compile(rf"{_TERM}+{_CLOSE}*(?=\s|$)|[。！？｡]+{_CLOSE}*")
_ATERM_ONLY = regex.compile(r"^[\p{SB=ATerm}]{_CLOSE}*$".replace("{_CLOSE}", _CLOSE))
_LAST_WORD = regex.compile(r"(\w[\w.]*)$")
_NEXT_CHAR = regex.compile(r"\s*(\S)")
_ENUMERATOR = regex.compile(r"\s*\(?\d{1,3}\)?$")

#: Words that end with a dot without ending the sentence (compared in lower case, dots removed).
ABBREVIATIONS = frozenset("""
mr mrs ms dr prof sr jr st mt ft vs etc eg ie cf al inc ltd co corp no nos vol pp fig figs approx
dept est gen gov lt col capt sgt rev hon jan feb mar apr jun jul aug sep sept oct nov dec mon tue wed
thu fri sat sun us uk un am pm ave blvd rd
""".split())


def _is_boundary(text: str, match, start: int) -> bool:
    if not _ATERM_ONLY.match(match.group()):
        return True  # "!", "?", "।", "...", "。" and the like always end a sentence
    before = _LAST_WORD.search(text, 0, match.start())
    if before:
        word = before.group(1)
        bare = word.replace(".", "").lower()
        if bare in ABBREVIATIONS or (len(bare) == 1 and bare.isalpha()):
            return False
        if "." in word and all(len(part) <= 1 for part in word.split(".")):
            return False  # U.S. / e.g. style: single letters with dots
        if _ENUMERATOR.match(text, start, match.start()):
            return False  # "1." opening a list item
    nxt = _NEXT_CHAR.match(text, match.end())
    if nxt and nxt.group(1).islower():
        return False  # UAX #29 SB8: a dot followed by a lower-case word
    return True


def split_sentences(text: str) -> list[str]:
    """Split ``text`` into sentences (whitespace-trimmed, empty pieces removed).

    >>> split_sentences("Dr. Lee arrived at 9.30 a.m. on Monday. Everyone cheered.")
    ['Dr. Lee arrived at 9.30 a.m. on Monday.', 'Everyone cheered.']
    >>> split_sentences("Two rules. 1. Drink water. 2. Sleep.")
    ['Two rules.', '1. Drink water.', '2. Sleep.']
    >>> split_sentences("آج موسم اچھا ہے۔ کل بارش ہوگی۔")
    ['آج موسم اچھا ہے۔', 'کل بارش ہوگی۔']
    """
    sentences = []
    start = 0
    for match in _BOUNDARY.finditer(text):
        if _is_boundary(text, match, start):
            piece = text[start:match.end()].strip()
            if piece:
                sentences.append(piece)
            start = match.end()
    tail = text[start:].strip()
    if tail:
        sentences.append(tail)
    return sentences


def count_sentences(text: str) -> int:
    """Number of sentences in ``text`` (0 for empty or blank text).

    >>> count_sentences("")
    0
    >>> count_sentences("ሰላም ነው። እንዴት ነህ፧")
    2
    """
    return len(split_sentences(text))
