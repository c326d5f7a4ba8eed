"""Brahmic scripts to Latin with indic-transliteration (sanscript), with the fixes real text needs.

sanscript maps every script through Devanagari keys. Used as is, it leaves
letters behind or picks odd readings on modern text, so the schemes are
copied and extended once per (script, scheme) and cached:

* **Nukta letters.** Text stores क़ as क + ◌़ (Unicode NFC never composes them),
  while sanscript's tables mix precomposed and decomposed forms: tables and
  text are both brought to NFC, so ज़ -> z, ड़ -> ṛ, Bengali য় -> ẏ.
* **One reading per letter.** Where several Devanagari keys share one letter
  (Tamil க for क ख ग घ, Bengali ব for ब व), sanscript's reverse map keeps the
  last (க -> gha); the first is kept instead (க -> k, ட -> ṭ, ব -> b).
* **Letters sanscript lacks.** Every letter and sign of the ten blocks has a
  reading: :mod:`brahmic_letters` adds them row by row, each with its source
  (ISO 15919, aksharamukha, or ours): Sinhala æ ǣ n̆g n̆ḍ n̆d m̆b n̆j f,
  Malayalam chillus (ൻ is ന്, n), Odia ୱ v, Gujarati candra vowels ê ô,
  Kashmiri and Sindhi letters, length marks (കൗ kau). Rows whose Latin
  another letter already has are one-way (native -> Latin only).
* **Separator.** ISO 15919 writes ``:`` where two readings would collide:
  भइ bha:i (not bhai = भै), स्ए s:ē (not sē = से), ත්හ t:h (not th = ථ);
  the other schemes have no separator, so these spellings do not round-trip.
* **Joiners.** ZWJ/ZWNJ only choose a glyph form; they are dropped (the round
  trip is exact up to them).
* **Stray signs.** A nukta on a letter with no nukta form, or a Gurmukhi addak
  before no consonant, has no Latin letter and is dropped.

>>> romanize_brahmic("नमस्ते ज़िंदगी", "Deva", "iso")
'namastē ziṁdagī'
>>> romanize_brahmic("கடல்", "Taml", "iso")
'kaṭal'
"""
from __future__ import annotations

import copy
import unicodedata
from functools import lru_cache

import regex

from . import brahmic_letters as letters

#: ISO 15924 code -> sanscript scheme name.
BRAHMIC_SCRIPTS = {
    "Deva": "devanagari", "Beng": "bengali", "Sinh": "sinhala", "Taml": "tamil", "Telu": "telugu",
    "Knda": "kannada", "Mlym": "malayalam", "Gujr": "gujarati", "Guru": "gurmukhi", "Orya": "oriya",
}
#: Latin schemes offered, default first.
SCHEMES = ("iso", "iast", "hk", "itrans")
DEFAULT_SCHEME = "iso"

#: Script -> {character: Latin}: characters real text types *for* a punctuation mark (counted in the
#: report's ``punctuation_mapped``, like the marks of :mod:`builder.variants.punctuation`). Assamese and
#: Bengali typists write the full stop with U+09F7 BENGALI CURRENCY NUMERATOR FOUR, which looks like the
#: danda (FLORES-200 asm_Beng: 105 times); it is written as the danda is, ".". Its use as a currency
#: numerator (pre-decimal ana notation) is gone from modern text.
STAND_INS: dict[str, dict[str, str]] = {
    "Beng": {"\u09f7": "."},
}
#: Script -> {number sign: Latin}: fractions with an exact Latin (Unicode vulgar fraction) form, written
#: as it (not counted, like digits). The other number signs of the blocks (Tamil and Malayalam ten,
#: hundred, thousand; Telugu fraction digits; Bengali currency numerators; 1/16-style fractions) have
#: none and are left, counted as native characters left (docs/variants.md lists them).
NUMBER_FORMS: dict[str, dict[str, str]] = {
    "Orya": {"\u0b72": "\u00bc", "\u0b73": "\u00bd", "\u0b74": "\u00be", "\u0b76": "\u215b"},
    "Mlym": {"\u0d73": "\u00bc", "\u0d74": "\u00bd", "\u0d75": "\u00be", "\u0d77": "\u215b",
             "\u0d5c": "\u2152", "\u0d5e": "\u2155"},
}

_MARK = "\ue000"  # private-use placeholder for the ISO 15919 hiatus colon
_JOINERS = regex.compile("[\u200c\u200d]")
_ADDAK = "\u0a71"


def _dedupe_first(scheme):
    """NFC every letter; keep, for every letter, only its first Devanagari key (one reading per letter)."""
    out = copy.deepcopy(scheme)
    for group, mapping in scheme.items():
        if not isinstance(mapping, dict) or group in ("alternates", "accented_vowel_alternates"):
            continue
        seen, kept = set(), {}
        for key, value in mapping.items():
            value = unicodedata.normalize("NFC", value) if isinstance(value, str) else value
            if value in seen:
                continue
            seen.add(value)
            kept[key] = value
        out[group] = kept
    return out


_SCRIPT_NAMES = {"Deva": "DEVANAGARI", "Beng": "BENGALI", "Guru": "GURMUKHI", "Gujr": "GUJARATI",
                 "Orya": "ORIYA", "Telu": "TELUGU", "Knda": "KANNADA"}


def _nukta(script: str) -> str:
    """The script's nukta sign ('' where it has none)."""
    try:
        return unicodedata.lookup(f"{_SCRIPT_NAMES[script]} SIGN NUKTA")
    except KeyError:
        return ""


def _add_rows(native, latin, rows, script: str, base: int) -> None:
    """Add the :mod:`brahmic_letters` rows of ``script`` to the two tables (in place).

    A row keyed by a Devanagari letter takes that letter's Latin; the others get
    a private-use key (one per name, so a vowel and its sign share it).
    """
    private: dict[str | None, str] = {}
    for n, (row_script, group, key, letter, roman, _) in enumerate(rows):
        if row_script != script:
            continue
        if key is None or key.isascii():
            key = private.setdefault(key if key else f"#{n}", chr(base + n))
            latin.setdefault(group, {})[key] = unicodedata.normalize("NFC", roman)
        native.setdefault(group, {})[key] = unicodedata.normalize("NFC", letter)


@lru_cache(maxsize=None)
def _schemes(script: str, scheme: str):
    """The extended (native, latin) sanscript schemes for ``script`` and ``scheme``: reversible letters only."""
    if script not in BRAHMIC_SCRIPTS:
        raise KeyError(script)
    if scheme not in SCHEMES:
        raise ValueError(f"unknown scheme {scheme!r}; allowed: {', '.join(SCHEMES)}")
    from indic_transliteration import sanscript  # here: checking a recipe's scheme names needs no tables

    native = _dedupe_first(sanscript.SCHEMES[BRAHMIC_SCRIPTS[script]])
    latin = copy.deepcopy(sanscript.SCHEMES[scheme])
    latin.pop("accented_vowel_alternates", None)  # Vedic accents; breaks scripts without short e/o (Gurmukhi)
    latin.pop("accents", None)  # and costs a regex pass per call
    if scheme == "iso":  # sanscript's iso table has the upadhmaniya backwards ('ḫ': 'ᳶ')
        latin["yogavaahas"].setdefault("\u1cf6", "ḫ")
    _add_rows(native, latin, letters.LETTERS, script, 0xE100)
    nukta = _nukta(script)
    if nukta:  # nukta letters the Latin scheme knows but the script's table lacks (Kashmiri छ़)
        extra = native.setdefault("extra_consonants", {})
        have = {v for group in native.values() if isinstance(group, dict) for v in group.values()
                if isinstance(v, str)}
        for key in latin.get("extra_consonants", {}):
            parts = unicodedata.normalize("NFD", key)  # the table stores some keys precomposed (क़ U+0958)
            base = native["consonants"].get(parts[:1])
            if len(parts) == 2 and parts[1] == "\u093c" and not extra.get(key) and base and len(base) == 1:
                letter = unicodedata.normalize("NFC", base + nukta)
                if letter not in have:  # a letter keeps the reading its own row gives (ਸ਼ is ś, not s̤)
                    extra[key] = letter
    return native, latin


@lru_cache(maxsize=None)
def scheme_maps(script: str, scheme: str):
    """Cached ``(to_latin, to_native)`` :class:`sanscript.SchemeMap` pair (built once per process).

    Native -> Latin also knows the one-way letters (:data:`brahmic_letters.FORWARD`);
    Latin -> native only the reversible ones.
    """
    from indic_transliteration import sanscript

    native, latin = _schemes(script, scheme)
    native_fwd, latin_fwd = copy.deepcopy(native), copy.deepcopy(latin)
    _add_rows(native_fwd, latin_fwd, letters.FORWARD, script, 0xE400)
    return sanscript.SchemeMap(native_fwd, latin_fwd), sanscript.SchemeMap(latin, native)


@lru_cache(maxsize=None)
def _equivalents(script: str):
    """``(pattern, table)`` rewriting the letters of :data:`brahmic_letters.EQUIVALENTS` (None: none)."""
    table = {unicodedata.normalize("NFC", a): unicodedata.normalize("NFC", b)
             for s, a, b, _ in letters.EQUIVALENTS if s == script}
    if not table:
        return None, table
    return regex.compile("|".join(regex.escape(k) for k in sorted(table, key=len, reverse=True))), table


@lru_cache(maxsize=None)
def _separator(script: str, scheme: str) -> "regex.Pattern":
    """Zero-width places where ISO 15919 writes ``:`` to keep a reading unambiguous.

    (a) an independent i/u after a consonant with its inherent a, or after
    independent a (भइ bha:i, not bhai = भै); (b) an independent vowel right
    after a virama (स्ए s:ē, not sē = से); (c) ha right after a virama
    (ත්හ t:h, not th = ථ).
    """
    native, _ = _schemes(script, scheme)
    consonants = "".join(v for v in native["consonants"].values() if len(v) == 1)
    vowels = "".join(v for k, v in native["vowels"].items() if len(v) == 1)
    a = native["vowels"]["अ"]
    i_u = "".join(native["vowels"][k] for k in ("इ", "उ") if k in native["vowels"])
    virama = "".join(native["virama"].values())
    ha = native["consonants"].get("ह", "")
    nukta = "".join(chr(c) for c in range(0x0900, 0x0E00) if unicodedata.name(chr(c), "").endswith("SIGN NUKTA"))
    e = regex.escape
    parts = [rf"(?<=[{e(consonants)}][{e(nukta)}]?|{e(a)})(?=[{e(i_u)}])"]
    if virama:
        parts.append(rf"(?<=[{e(virama)}])(?=[{e(vowels)}{e(ha)}])")
    return regex.compile("|".join(parts))


def normalize_native(text: str) -> str:
    """The form transliteration works on: Unicode NFC (nukta letters decomposed).

    >>> normalize_native("\u095b") == "\u091c\u093c"
    True
    """
    return unicodedata.normalize("NFC", text)


def romanize_brahmic(text: str, script: str, scheme: str = DEFAULT_SCHEME) -> str:
    """Latin transliteration of ``text`` (letters of other scripts pass through unchanged).

    Punctuation and digits are not this function's job: :mod:`builder.variants.punctuation`
    replaces them before (a danda here is passed through).
    """
    from indic_transliteration import sanscript

    to_latin, _ = scheme_maps(script, scheme)
    text = _JOINERS.sub("", normalize_native(text))
    pattern, table = _equivalents(script)
    if pattern is not None:
        text = pattern.sub(lambda m: table[m.group()], text)
    text = _separator(script, scheme).sub(_MARK, text)
    out = sanscript.transliterate(text, scheme_map=to_latin)
    out = out.replace(_MARK, ":" if scheme == "iso" else "")
    nukta = _nukta(script)
    if nukta:  # a stray nukta (after a vowel, or on a letter with no nukta form) carries no Latin letter
        out = out.replace(nukta, "")
    if script == "Guru":  # sanscript doubles the consonant after an addak; one before no consonant doubles nothing
        out = out.replace(_ADDAK, "")
    return unicodedata.normalize("NFC", out)


_ISO_SEPARATOR = regex.compile(r"(?<=\p{L}\p{M}*):(?=\p{L})")


def nativize_brahmic(text: str, script: str, scheme: str = DEFAULT_SCHEME) -> str:
    """Back from Latin to ``script`` (used to test the round trip).

    >>> nativize_brahmic(romanize_brahmic("भइया", "Deva"), "Deva") == normalize_native("भइया")
    True
    """
    from indic_transliteration import sanscript

    _, to_native = scheme_maps(script, scheme)
    if scheme == "iso":
        text = _ISO_SEPARATOR.sub(_MARK, text)
    out = sanscript.transliterate(text, scheme_map=to_native).replace(_MARK, "")
    return _JOINERS.sub("", normalize_native(out))


@lru_cache(maxsize=None)
def native_run(script: str) -> "regex.Pattern":
    """A maximal run of ``script`` characters and joiners: the unit of transliteration.

    A character of the script's block, or whose Script_Extensions name the
    script, counts (the Vedic accents ◌॑ ◌॓ are Inherited; the dandas are
    Common, but punctuation is replaced before the runs are cut, see
    :mod:`builder.variants.punctuation`).
    """
    first, last = letters.BLOCKS[script]
    return regex.compile(rf"[\p{{scx={script}}}\u200c\u200d{chr(first)}-{chr(last)}]+")


def romanize_runs(text: str, script: str, scheme: str = DEFAULT_SCHEME, cache: dict | None = None) -> str:
    """:func:`romanize_brahmic` run by run, each distinct run once (``cache``: run -> Latin).

    Runs are separated by characters sanscript passes through unchanged
    (spaces, Latin, punctuation), so the result equals :func:`romanize_brahmic`
    on the whole text; words repeat a lot, so a per-variant cache saves most calls.

    >>> romanize_runs("नमस्ते UN नमस्ते", "Deva")
    'namastē UN namastē'
    """
    cache = {} if cache is None else cache

    def one(m):
        word = m.group()
        out = cache.get(word)
        if out is None:
            out = cache[word] = romanize_brahmic(word, script, scheme)
        return out

    return unicodedata.normalize("NFC", native_run(script).sub(one, text))
