"""Script identification, in one place (used by ``extend``, ``romanize`` and ``qc``).

A FLORES-200 code ends in an ISO 15924 script code (``hin_Deva``). Letters are
matched with the Unicode Script property through the ``regex`` package
(``\\p{Script=Deva}``), not with hand-made code-point ranges. Real sentences
carry names, numbers and punctuation in other scripts, so text is judged by the
*share of its letters* (``\\p{L}`` and ``\\p{M}`` outside the Common and
Inherited scripts) that belong to the declared script.

ISO 15924 codes that Unicode does not define as one script are mapped to the
scripts they are written in: ``Hans``/``Hant`` -> Han, ``Jpan`` -> Han +
Hiragana + Katakana, ``Kore`` -> Hangul + Han.

>>> round(letter_share("नमस्ते दुनिया", "Deva"), 2)
1.0
>>> letter_share("Hello नमस्ते", "Latn") < 0.5
True
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, Sequence

import regex

#: ISO 15924 codes written in several Unicode scripts.
COMPOSITE_SCRIPTS = {
    "Hans": ("Hani",),
    "Hant": ("Hani",),
    "Jpan": ("Hani", "Hira", "Kana"),
    "Kore": ("Hang", "Hani"),
}

_LETTER = regex.compile(r"[\p{L}\p{M}]")
_NEUTRAL = regex.compile(r"[\p{Script=Zyyy}\p{Script=Zinh}]")


def unicode_scripts(code: str) -> tuple[str, ...]:
    """Unicode script codes behind an ISO 15924 code (``Jpan`` -> Hani, Hira, Kana)."""
    return COMPOSITE_SCRIPTS.get(code, (code,))


@lru_cache(maxsize=None)
def script_letters(code: str) -> "regex.Pattern":
    """A compiled pattern matching one letter or mark of script ``code``.

    Raises ValueError for a code Unicode does not know.
    """
    parts = "".join(rf"\p{{Script={s}}}" for s in unicode_scripts(code))
    try:
        return regex.compile(rf"[{parts}]")
    except regex.error:
        raise ValueError(f"unknown ISO 15924 script code {code!r}") from None


_CLASSES: dict[str, dict[int, str | None]] = {}  # per script: code point -> None, "o" (other script) or "s"
_SEEN: dict[str, set[str]] = {}  # per script: the characters in _CLASSES[script]
_MARKS = (None, "o", "s")


def _classify(char: str, code: str) -> int:
    """0: not a letter (or Common/Inherited), 1: a letter of another script, 2: a letter of ``code``."""
    if not _LETTER.match(char) or _NEUTRAL.match(char):
        return 0
    return 2 if script_letters(code).match(char) else 1


def count_letters(text: str, code: str) -> tuple[int, int]:
    """Return ``(letters, letters_in_script)`` for ``text``.

    Letters are ``\\p{L}``/``\\p{M}`` characters that are not Common or
    Inherited (so digits, punctuation and combining marks shared by all
    scripts count for nobody). Each character is classified once per script
    and remembered as what :meth:`str.translate` turns it into (nothing, ``o``
    or ``s``), so a text costs one ``set``, one ``translate`` and one ``count``.

    >>> count_letters("UN नमस्ते 42", "Deva")
    (8, 6)
    """
    table = _CLASSES.get(code)
    if table is None:
        script_letters(code)  # raise early for an unknown code
        table = _CLASSES[code] = {}
        _SEEN[code] = set()
    new = set(text) - _SEEN[code]
    for char in new:
        table[ord(char)] = _MARKS[_classify(char, code)]
    _SEEN[code] |= new
    marks = text.translate(table)  # every character of text is in table
    return len(marks), marks.count("s")


def letter_share(text: str, code: str) -> float:
    """Share of the letters of ``text`` written in script ``code`` (1.0 for no letters)."""
    total, inside = count_letters(text, code)
    return 1.0 if total == 0 else inside / total


#: Scripts tried by :func:`dominant_script`, most common first.
KNOWN_SCRIPTS = (
    "Latn", "Cyrl", "Arab", "Deva", "Hani", "Hira", "Kana", "Hang", "Beng", "Grek", "Hebr", "Thai", "Taml",
    "Telu", "Knda", "Mlym", "Gujr", "Guru", "Orya", "Sinh", "Tibt", "Ethi", "Geor", "Armn", "Khmr", "Laoo",
    "Mymr", "Nkoo", "Tfng", "Olck", "Mtei", "Thaa", "Syrc", "Cans", "Cher", "Vaii", "Yiii",
)


def dominant_script(text: str) -> str | None:
    """The Unicode script holding most letters of ``text`` (None without letters).

    >>> dominant_script("ߒ ߓߊ߯ ߡߊ߬")
    'Nkoo'
    """
    best, best_n = None, 0
    for code in KNOWN_SCRIPTS:
        n = len(script_letters(code).findall(text))
        if n > best_n:
            best, best_n = code, n
    return best


@dataclass(frozen=True)
class ScriptReport:
    """How well lines match a declared script.

    ``file_share`` is the share of all letters in the script; ``bad_lines``
    lists the 0-based indexes of lines whose share is below the line threshold.
    """

    script: str
    letters: int
    in_script: int
    bad_lines: tuple[int, ...]

    @property
    def file_share(self) -> float:
        return 1.0 if self.letters == 0 else self.in_script / self.letters


def check_script(lines: Sequence[str] | Iterable[str], code: str, *, min_line_share: float = 0.5) -> ScriptReport:
    """Judge each line and the whole text against script ``code``.

    >>> rep = check_script(["नमस्ते दुनिया", "hello world"], "Deva")
    >>> rep.bad_lines, round(rep.file_share, 2)
    ((1,), 0.55)
    """
    total = inside = 0
    bad = []
    for i, line in enumerate(lines):
        t, s = count_letters(line, code)
        total += t
        inside += s
        if t and s / t < min_line_share:
            bad.append(i)
    return ScriptReport(script=code, letters=total, in_script=inside, bad_lines=tuple(bad))


def script_of(code: str) -> str:
    """The ISO 15924 part of a FLORES-200 code (``hin_Deva`` -> ``Deva``).

    >>> script_of("zho_Hans")
    'Hans'
    """
    if "_" not in code:
        raise ValueError(f"expected a FLORES-200 code like 'hin_Deva', found {code!r}")
    return code.rsplit("_", 1)[1]


def line_shares(lines: Iterable[str], code: str) -> list[tuple[int, int]]:
    """``(letters, letters_in_script)`` for every line, in order.

    >>> line_shares(["abc", "ab नम"], "Latn")
    [(3, 3), (4, 2)]
    """
    return [count_letters(line, code) for line in lines]


@lru_cache(maxsize=None)
def foreign_letters(code: str) -> "regex.Pattern":
    """A compiled pattern matching one letter that is neither in script ``code`` nor Common/Inherited.

    >>> bool(foreign_letters("Deva").search("नमस्ते 42!")), bool(foreign_letters("Deva").search("UN नमस्ते"))
    (False, True)
    """
    parts = "".join(rf"\p{{Script={s}}}" for s in unicode_scripts(code))
    script_letters(code)  # raise ValueError for an unknown code
    return regex.compile(rf"(?V1)[[\p{{L}}\p{{M}}]--[\p{{Script=Zyyy}}\p{{Script=Zinh}}{parts}]]")


def check_new_variant(code: str, *, field: str = "variant") -> str:
    """``code`` if it is a valid variant code whose script the checks can judge, else one error.

    Valid codes: :func:`schemas.codes.validate_variant_code`. A few ISO 15924 codes name a
    style of a script (``Latf`` Fraktur, ``Aran`` Nastaliq) or a script Unicode does not
    encode; text cannot be checked against them, so they are refused here with what to declare.
    """
    from .codes import iso15924, validate_variant_code
    from .errors import SchemaError

    validate_variant_code(code, field=field)
    script = script_of(code)
    try:
        script_letters(script)
    except ValueError:
        name = iso15924().get(script, script)
        raise SchemaError(f"script {script!r} of {code!r} ({name}) is not a Unicode script, so the text cannot be "
                          "checked against it; declare the Unicode script the text is encoded in (e.g. Latn for "
                          "Latf, Arab for Aran, Syrc for Syre)", field=field) from None
    return code
