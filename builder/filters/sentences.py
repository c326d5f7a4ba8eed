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

#: Words that end with a dot without ending the sentence (matched case-insensitively).
ABBREVIATIONS = frozenset("""
mr mrs ms dr prof sr jr st mt ft vs etc eg ie cf al inc ltd co corp no nos vol pp fig figs approx
dept est gen gov lt col capt sgt rev hon jan feb mar apr jun jul aug sep sept oct nov dec mon tue wed
thu fri sat sun us uk un am pm ave blvd rd
""".split())

_TERM = r"[\p{SB=STerm}\p{SB=ATerm}]"
_ATERM = r"\p{SB=ATerm}"
_CLOSE = r"[\p{SB=Close}\p{Pf}\p{Pe}]"
_ABBR = "|".join(sorted(ABBREVIATIONS, key=len, reverse=True))


def _boundary(term: str, aterm: str, sterm: str, close: str, lower: str, letter: str) -> str:
    """The boundary pattern's source over the given character classes (each one a regex class, brackets
    included).

    One regex, so counting runs in C: each match ends a sentence. The
    look-behinds sit after the dot, so they are only tried at a dot.
    """
    open_ = r"""(?:^|\s)["'(\[{“‘«¿¡]*"""  # start of a token, after any opening quotes or brackets
    return (
        # two or more marks ("?!", "...") or one STerm mark ("!", "?", "।", "۔", "።" ...), then space or end
        rf"(?:{term}{{2,}}|{sterm}){close}*(?=\s|$)"
        # a single dot followed by space and a word that does not start in lower case (UAX #29 SB8) ...
        rf"|{aterm}(?={close}*(?:\s*$|\s+(?!{lower})\S))"
        # ... unless it follows an abbreviation, one letter or dotted initials (U.S) ...
        rf"(?<!{open_}(?i:{_ABBR}|{letter}|(?:\w\.)+\w){aterm})"
        # ... or a list number that opens a sentence ("1. Drink water.")
        rf"(?<!(?:^|{term}{close}*\s+)\(?\d{{1,3}}\)?{aterm}){close}*"
        # CJK full stops and marks end a sentence without a following space
        rf"|[。！？｡]+{close}*")


def _ascii(unicode_class: str) -> str:
    """The ASCII characters of ``unicode_class``, as a class of their own (one of no ASCII character when none)."""
    chars = [chr(c) for c in range(128) if regex.fullmatch(unicode_class, chr(c))]
    return "[" + ("".join(regex.escape(c) for c in chars) or r"^\x00-\x7f") + "]"


#: the classes the boundary pattern is built from: terminal marks, the dot, the other terminal marks,
#: closing punctuation, a lower-case letter, any letter.
_CLASSES = (_TERM, _ATERM, r"\p{SB=STerm}", _CLOSE, r"\p{Ll}", r"\p{L}")


def _patterns():
    """The boundary pattern over the Unicode classes, and over their ASCII members for ASCII text: twice as
    fast there (most passages are ASCII), with ``\\s``, ``\\w`` and ``\\d`` the same sets on ASCII text in both."""
    return regex.compile(_boundary(*_CLASSES)), regex.compile(_boundary(*map(_ascii, _CLASSES)), regex.ASCII)


_BOUNDARY, _ASCII_BOUNDARY = _patterns()
#: any terminal mark; every boundary holds at least one, so their number bounds the count.
_MARK = regex.compile(rf"{_TERM}|[。！？｡]")


def _boundaries(text: str):
    """The boundaries of ``text``, in order: the ASCII pattern's on ASCII text, else the Unicode one's."""
    return (_ASCII_BOUNDARY if text.isascii() else _BOUNDARY).finditer(text)


def split_sentences(text: str) -> list[str]:
    """Split ``text`` into sentences (whitespace-trimmed, empty pieces removed).

    >>> split_sentences("Dr. Lee arrived at 9.30 a.m. on Monday. Everyone cheered.")
    ['Dr. Lee arrived at 9.30 a.m. on Monday.', 'Everyone cheered.']
    >>> split_sentences("Two rules. 1. Drink water. 2. Sleep.")
    ['Two rules.', '1. Drink water.', '2. Sleep.']
    >>> split_sentences("آج موسم اچھا ہے۔ کل بارش ہوگی۔")
    ['آج موسم اچھا ہے۔', 'کل بارش ہوگی۔']
    """
    sentences, start = [], 0
    for match in _boundaries(text):
        piece = text[start:match.end()].strip()
        if piece:
            sentences.append(piece)
        start = match.end()
    tail = text[start:].strip()
    if tail:
        sentences.append(tail)
    return sentences


def count_sentences(text: str, *, above: int | None = None) -> int:
    """Number of sentences in ``text`` (0 for empty or blank text).

    With ``above``, counting stops at the first sentence past ``above``: the
    result is then ``above + 1`` for any longer text.

    >>> count_sentences("")
    0
    >>> count_sentences("ሰላም ነው። እንዴት ነህ፧")
    2
    >>> count_sentences("One. Two. Three. Four.", above=1)
    2
    """
    n, end, stop = 0, 0, 0 if above is None else above + 1  # n is never 0 at a match: no stop
    for match in _boundaries(text):
        n, end = n + 1, match.end()
        if n == stop:
            return n
    # every match holds a terminal mark, so only the tail can be blank
    return n + (end < len(text) and not text[end:].isspace())


def more_sentences_than(text: str, limit: int) -> bool:
    """Whether ``text`` has more than ``limit`` sentences; cheap when it clearly has not.

    Every sentence but the last ends in a terminal mark, so a text with at
    most ``limit - 1`` marks is decided without splitting.

    >>> more_sentences_than("One. Two. Three.", 2), more_sentences_than("One. Two. Three.", 3)
    (True, False)
    """
    if text.isascii():  # the only ASCII terminal marks are . ! ? (counting them is 10x cheaper)
        marks = text.count(".") + text.count("!") + text.count("?")
    else:
        marks = len(_MARK.findall(text))
    if marks + 1 <= limit:
        return False
    return count_sentences(text, above=limit) > limit
