"""What a romanized variant writes for a script's punctuation, digits and reading-less signs.

ISO 15919 leaves Indic punctuation "outside the scope" of the standard and
keeps Latin punctuation and Hindu-Arabic numerals unchanged; Indic digits
become Hindu-Arabic ones. The policy here, applied before transliteration in
one regex pass and counted per mark for the ``romanize`` report:

* **Sentence punctuation becomes "."**: the danda ``।`` and double danda ``॥``
  end a sentence (or a verse half and verse) in every Brahmic script that
  uses them (Unicode encodes them once, in the Devanagari block, for all of
  them); the Tibetan shad ``།`` and its variants descend from the danda and
  do the same job. FLORES sentences end in one; a Latin reader expects ".".
  The double danda becomes one "." too (it closes a verse or paragraph; no
  Latin mark says more), so the two are counted apart.
* **Abbreviation signs become "."** (Devanagari ॰ in डॉ॰, Dr.; Bengali,
  Gujarati, Gurmukhi and Sinhala ones likewise), the Devanagari high spacing
  dot ``ॱ`` becomes ``·``, the Vedic pause sign ``᳓`` (nihshvasa) ``,``; Tibetan
  brackets become ``( )`` and the CJK title brackets it shares ``‹ › « »``.
* **Signs with no reading are removed and counted**: auspicious opening
  signs (Bengali anji, Telugu and Kannada siddham, Tibetan yig mgo head
  marks), Bengali sandhi mark, the Gujarati signs for Arabic (shadda, maddah,
  the nukta-above variants), Odia overline, and the Tibetan marks uroman
  cannot read.
* **Digits** (general category Nd of the block) become ASCII digits; not counted
  (nor are the few letter readings :data:`READINGS` adds to uroman's).

Nothing else is changed: symbols such as ৳ ₹ ௹ stay (Latin text keeps € too)
and are reported as ``native_symbols_kept``.

>>> policy("Deva").translate("नमस्ते। १२॥")
'नमस्ते. 12.'
"""
from __future__ import annotations

import unicodedata
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

import regex

from .brahmic_letters import BLOCKS

_DANDAS = {"\u0964": ".", "\u0965": "."}

#: Script -> {native mark: Latin ("" removes it)}. Dandas count for every Brahmic script.
MARKS: dict[str, dict[str, str]] = {
    "Deva": {"\u0970": ".", "\u0971": "\u00b7", "\u1cd3": ","},
    "Beng": {"\u09fd": ".", "\u0980": "", "\u09fe": ""},
    "Guru": {"\u0a76": "."},
    "Gujr": {"\u0af0": ".", "\u0afb": "", "\u0afc": "", "\u0afd": "", "\u0afe": "", "\u0aff": ""},
    "Orya": {"\u0b55": ""},
    "Taml": {},
    "Telu": {"\u0c77": ""},
    "Knda": {"\u0c84": "", "\u1cd3": ","},
    "Mlym": {},
    "Sinh": {"\u0df4": "."},
    "Tibt": {
        # shad and its variants (sentence or clause end)
        "\u0f08": ".", "\u0f0d": ".", "\u0f0e": ".", "\u0f0f": ".", "\u0f10": ".", "\u0f11": ".", "\u0f12": ".",
        # syllable marks uroman drops or keeps: written as uroman writes the tsheg
        "\u0f0c": "\u00b7", "\u0f14": "\u00b7", "\u0fd2": "\u00b7",
        # head marks (yig mgo) and other ornaments: no reading
        "\u0f04": "", "\u0f05": "", "\u0f06": "", "\u0f07": "", "\u0f09": "", "\u0f0a": "", "\u0fd0": "",
        "\u0fd1": "", "\u0fd3": "", "\u0fd4": "", "\u0f85": "",
        # brackets, and the CJK title brackets Tibetan shares
        "\u0f3a": "(", "\u0f3b": ")", "\u0fd9": "(", "\u0fda": ")",
        "\u3008": "\u2039", "\u3009": "\u203a", "\u300a": "\u00ab", "\u300b": "\u00bb",
        # astrological, cantillation and Sanskrit-only signs with no reading in uroman's scheme
        "\u0f3e": "", "\u0f3f": "", "\u0f88": "", "\u0f89": "", "\u0f8a": "", "\u0f8b": "", "\u0f8c": "",
        "\u0f8d": "", "\u0f8e": "", "\u0f8f": "",
    },
}
#: Script -> {native sign: Latin}: readings added to the romanizer's, not counted (like digits).
#: uroman drops the Tibetan nasal signs and keeps the visarga: m and h, as in its reading of ༀ (om).
READINGS: dict[str, dict[str, str]] = {
    "Tibt": {"\u0f7e": "m", "\u0f82": "m", "\u0f83": "m", "\u0f7f": "h"},
}
BRAHMIC_WITH_DANDA = ("Deva", "Beng", "Guru", "Gujr", "Orya", "Taml", "Telu", "Knda", "Mlym", "Sinh")


def mark_name(char: str) -> str:
    """Short stable name of a mark for the report: its Unicode name without the script.

    >>> mark_name("\u0964"), mark_name("\u0f0d"), mark_name("\u09fe")
    ('danda', 'shad', 'sandhi mark')
    """
    words = unicodedata.name(char).split()[1:]
    while len(words) > 1 and words[0] in ("MARK", "SIGN", "PUNCTUATION"):
        words = words[1:]
    return " ".join(words).lower()


@dataclass(frozen=True)
class MarkPolicy:
    """The marks of one script: how each is written, and a counter for the report."""

    script: str
    marks: tuple[tuple[str, str], ...]  # (native, Latin), counted
    readings: tuple[tuple[str, str], ...]  # (native, Latin or ASCII digit), not counted

    def __post_init__(self):
        table = dict(self.marks + self.readings)
        object.__setattr__(self, "_table", table)
        every = "".join(table)
        object.__setattr__(self, "_any", regex.compile(f"[{regex.escape(every)}]") if every else None)
        chars = "".join(c for c, _ in self.marks)
        object.__setattr__(self, "_find", regex.compile(f"[{regex.escape(chars)}]") if chars else None)

    def translate(self, text: str) -> str:
        """``text`` with every mark and digit of the script replaced.

        One regex pass in C: most texts hold one or two marks, and a
        ``str.translate`` with a dict looks up every character in Python (5x slower).
        """
        if self._any is None:
            return text
        table = self._table
        return self._any.sub(lambda m: table[m.group()], text)

    def count(self, text: str, into: Counter) -> None:
        """Add the marks of ``text`` to ``into`` (mark character -> occurrences)."""
        if self._find is not None:
            found = self._find.findall(text)
            if found:
                into.update(found)

    def report(self, counts: Counter) -> dict[str, dict]:
        """``{"punctuation_mapped": {...}, "signs_removed": {...}}`` for the marks seen, by name.

        >>> pol = policy("Deva"); seen = Counter()
        >>> pol.count("क। ख। ग॥", seen); pol.report(seen)["punctuation_mapped"]["danda"]
        {'char': 'U+0964', 'to': '.', 'count': 2}
        """
        latin = dict(self.marks)
        mapped, removed = {}, {}
        for char, n in sorted(counts.items()):
            entry = {"char": f"U+{ord(char):04X}", "to": latin[char], "count": n}
            if latin[char]:
                mapped[mark_name(char)] = entry
            else:
                del entry["to"]
                removed[mark_name(char)] = entry
        return {"punctuation_mapped": mapped, "signs_removed": removed}


def _digits(script: str) -> tuple[tuple[str, str], ...]:
    first, last = BLOCKS[script]
    return tuple((chr(cp), str(unicodedata.digit(chr(cp)))) for cp in range(first, last + 1)
                 if unicodedata.category(chr(cp)) == "Nd")


@lru_cache(maxsize=None)
def policy(script: str) -> MarkPolicy:
    """The :class:`MarkPolicy` of ``script`` (an empty one for scripts without a row, e.g. Arab)."""
    marks = dict(_DANDAS) if script in BRAHMIC_WITH_DANDA else {}
    marks.update(MARKS.get(script, {}))
    readings = (_digits(script) if script in BLOCKS else ()) + tuple(READINGS.get(script, {}).items())
    return MarkPolicy(script, tuple(marks.items()), readings)
