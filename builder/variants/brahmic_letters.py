"""Letters of the Brahmic blocks that indic-transliteration lacks, and how :mod:`brahmic` writes them.

indic-transliteration (sanscript) maps every script through Devanagari keys
and leaves out the letters Sanskrit does not need: Malayalam chillus, Odia ୱ,
Gujarati candra vowels, Kashmiri and Sindhi letters, length marks. The rows
below add them, one row per letter. Each row says where its Latin comes from:

* ``iso``: a row of ISO 15919 (2001), as tabulated on Wikipedia's ISO 15919
  page (``ĉ`` for Telugu ౘ, ``ṯ``, ``n̆j``, ``ḫ``, ``ṉ``, ``v``);
* ``ak``: aksharamukha 2.3's ``ISO`` output for the letter, where ISO 15919
  has no row (Kashmiri ö ȫ ŭ ŭ̄, ॲ æ, ॹ z̈, ॽ ʔ; Sindhi implosives, written
  there with a spacing ``ˍ`` and here with the combining macron below);
* ``ours``: neither has a reading; the choice is ours (the nearest ISO letter
  with the diaeresis below that ISO 15919 already uses for variant letters,
  s̤ h̤ t̤; IPA ``ɔ`` for Kashmiri AW, ``ă`` for short A, ``ẑ`` beside ``ĉ``).

Three kinds of row:

``LETTERS``
    ``(script, group, key, native, latin, source)``: a letter added in both
    directions. ``key`` is the Devanagari letter it stands for (its Latin is
    then the scheme's: Bengali ৱ is व, ``v``), or None with its own ``latin``.
    The Latin is no other letter's, so the round trip stays exact; the tests
    check that for every row.
``FORWARD``
    Same shape, native -> Latin only: the Latin is another letter's, or a mark
    to append (length marks, Vedic accents), so there is no way back. Group
    ``symbols`` appends its Latin after the syllable (``ka`` + ``u`` = ``kau``
    for an AU length mark after a consonant).
``EQUIVALENTS``
    ``(script, native, written_as, reason)``: a letter or sign written as the
    letters it stands for (chillu ൻ as ന്, ``n``); lossy, like FORWARD rows.

``reason`` names why a native run does not come back exactly, for
:func:`builder.variants.romanize.round_trip_reason`.
"""
from __future__ import annotations

#: Unicode main block of each Brahmic script (first, last code point); blocks never move
#: (tests check them against the Unicode Block property).
BLOCKS = {
    "Deva": (0x0900, 0x097F), "Beng": (0x0980, 0x09FF), "Guru": (0x0A00, 0x0A7F), "Gujr": (0x0A80, 0x0AFF),
    "Orya": (0x0B00, 0x0B7F), "Taml": (0x0B80, 0x0BFF), "Telu": (0x0C00, 0x0C7F), "Knda": (0x0C80, 0x0CFF),
    "Mlym": (0x0D00, 0x0D7F), "Sinh": (0x0D80, 0x0DFF), "Tibt": (0x0F00, 0x0FFF),
}

_MACRON = "\u0304"  # combining macron: a length mark lengthens the vowel before it

LETTERS = (
    # script, group, key, native, latin, source
    ("Deva", "vowels", None, "\u0904", "ă", "ours"),  # ऄ short a
    ("Deva", "vowels", None, "\u0972", "æ", "ak"),  # ॲ candra a (Marathi)
    ("Deva", "vowels", "oe", "\u0973", "ö", "ak"), ("Deva", "vowel_marks", "oe", "\u093a", "ö", "ak"),
    ("Deva", "vowels", "ooe", "\u0974", "ȫ", "ak"), ("Deva", "vowel_marks", "ooe", "\u093b", "ȫ", "ak"),
    ("Deva", "vowels", "ue", "\u0976", "ŭ", "ak"), ("Deva", "vowel_marks", "ue", "\u0956", "ŭ", "ak"),
    ("Deva", "vowels", "uue", "\u0977", "ŭ̄", "ak"), ("Deva", "vowel_marks", "uue", "\u0957", "ŭ̄", "ak"),
    ("Deva", "vowels", "aw", "\u0975", "ɔ", "ours"), ("Deva", "vowel_marks", "aw", "\u094f", "ɔ", "ours"),
    ("Deva", "consonants", None, "\u0978", "ḍ̤", "ours"),  # ॸ Marwari dda
    ("Deva", "consonants", None, "\u0979", "z̈", "ak"),  # ॹ zha
    ("Deva", "consonants", None, "\u097a", "y̤", "ours"),  # ॺ heavy ya
    ("Deva", "consonants", None, "\u097b", "g̱", "ak"),  # ॻ Sindhi implosives
    ("Deva", "consonants", None, "\u097c", "j̱", "ak"),
    ("Deva", "consonants", None, "\u097e", "ḍ̱", "ak"),
    ("Deva", "consonants", None, "\u097f", "ḇ", "ak"),
    ("Deva", "symbols", None, "\u097d", "ʔ", "ak"),  # ॽ glottal stop
    ("Beng", "consonants", "व", "\u09f1", None, "iso"),  # ৱ Assamese wa: v
    ("Guru", "consonants", "श", "\u0a36", None, "iso"),  # ਸ਼ sha: ś (NFC stores it as ਸ + ◌਼)
    ("Gujr", "vowels", "ऍ", "\u0a8d", None, "iso"), ("Gujr", "vowels", "ऑ", "\u0a91", None, "iso"),
    ("Gujr", "vowel_marks", "ॅ", "\u0ac5", None, "iso"), ("Gujr", "vowel_marks", "ॉ", "\u0ac9", None, "iso"),
    ("Gujr", "consonants", None, "\u0af9", "z̈", "ak"),  # ૹ zha
    ("Orya", "consonants", "व", "\u0b71", None, "iso"),  # ୱ, the va of modern Odia: v
    ("Telu", "consonants", None, "\u0c58", "ĉ", "iso"),  # ౘ tsa
    ("Telu", "consonants", None, "\u0c59", "ẑ", "ours"),  # ౙ dza
    ("Telu", "consonants", None, "\u0c5a", "ṟ̤", "ours"),  # ౚ rrra
    ("Knda", "yogavaahas", "ᳶ", "\u0cf2", None, "iso"),  # ೲ upadhmaniya: ḫ
    ("Mlym", "extra_consonants", "ऩ", "\u0d29", None, "iso"),  # ഩ nnna: ṉ
    ("Mlym", "consonants", None, "\u0d3a", "ṯ", "iso"),  # ഺ ttta
    ("Sinh", "vowels", "ae", "\u0d87", "æ", "iso"), ("Sinh", "vowel_marks", "ae", "\u0dd0", "æ", "iso"),
    ("Sinh", "vowels", "aae", "\u0d88", "ǣ", "iso"), ("Sinh", "vowel_marks", "aae", "\u0dd1", "ǣ", "iso"),
    ("Sinh", "consonants", None, "\u0d9f", "n̆g", "iso"), ("Sinh", "consonants", None, "\u0dac", "n̆ḍ", "iso"),
    ("Sinh", "consonants", None, "\u0db3", "n̆d", "iso"), ("Sinh", "consonants", None, "\u0db9", "m̆b", "iso"),
    ("Sinh", "consonants", None, "\u0da6", "n̆j", "iso"),  # ඦ sanyaka jayanna
    ("Sinh", "consonants", None, "\u0dc6", "f", "iso"),
    ("Sinh", "yogavaahas", "ँ", "\u0d81", None, "iso"),  # ඁ candrabindu: m̐
)

FORWARD = (
    # script, group, key, native, latin, reason
    ("Deva", "vowel_marks", None, "\u0955", "ê̄", "same_reading"),  # ॕ candra long e: no letter to go back to
    ("Deva", "symbols", None, "\u0951", "\u0301", "accent"),  # udatta: acute (ISO 15919)
    ("Deva", "symbols", None, "\u0952", "\u0331", "accent"),  # anudatta: macron below (as sanscript, aksharamukha)
    ("Deva", "symbols", None, "\u0953", "\u0300", "accent"),  # grave accent
    ("Deva", "symbols", None, "\u0954", "\u0301", "accent"),  # acute accent
    ("Guru", "symbols", None, "\u0a51", "\u0301", "accent"),  # udaat
    ("Beng", "symbols", None, "\u09d7", "u", "length_mark"),  # AU length marks: ka + u = kau
    ("Orya", "symbols", None, "\u0b57", "u", "length_mark"),
    ("Taml", "symbols", None, "\u0bd7", "u", "length_mark"),
    ("Mlym", "symbols", None, "\u0d57", "u", "length_mark"),  # കൗ kau (modern spelling of au)
    ("Orya", "symbols", None, "\u0b56", "i", "length_mark"),  # AI length marks: ka + i = kai
    ("Telu", "symbols", None, "\u0c56", "i", "length_mark"),
    ("Knda", "symbols", None, "\u0cd6", "i", "length_mark"),
    ("Telu", "symbols", None, "\u0c55", _MACRON, "length_mark"),  # length marks: ka -> kā, ki -> kī
    ("Knda", "symbols", None, "\u0cd5", _MACRON, "length_mark"),
)

EQUIVALENTS = (
    # script, native, written as, reason
    ("Deva", "\u0900", "\u0901", "same_reading"),  # inverted candrabindu: candrabindu, m̐
    ("Deva", "\u094e", "\u0947", "same_reading"),  # prishthamatra e: e sign, ē
    ("Beng", "\u09fc", "\u0982", "same_reading"),  # Vedic anusvara: anusvara, ṁ
    ("Guru", "\u0a75", "\u0a4d\u0a2f", "same_reading"),  # yakash: subjoined ya, ky
    ("Guru", "\u0a72\u0a3f", "\u0a07", "vowel_bearer"), ("Guru", "\u0a72\u0a40", "\u0a08", "vowel_bearer"),
    ("Guru", "\u0a72\u0a47", "\u0a0f", "vowel_bearer"), ("Guru", "\u0a73\u0a41", "\u0a09", "vowel_bearer"),
    ("Guru", "\u0a73\u0a42", "\u0a0a", "vowel_bearer"), ("Guru", "\u0a73\u0a4b", "\u0a13", "vowel_bearer"),
    ("Guru", "\u0a72", "\u0a07", "vowel_bearer"), ("Guru", "\u0a73", "\u0a09", "vowel_bearer"),  # iri i, ura u
    ("Gujr", "\u0afa", "\u0acd", "same_reading"),  # sukun: virama
    ("Orya", "\u0b35", "\u0b71", "same_reading"),  # ଵ (Sanskrit va) is written like ୱ
    ("Taml", "\u0b82", "\u0bae\u0bcd", "same_reading"),  # anusvara: ம், ṁ
    ("Telu", "\u0c00", "\u0c01", "same_reading"),  # combining candrabindu above
    ("Telu", "\u0c04", "\u0c02", "same_reading"),  # combining anusvara above
    ("Knda", "\u0c80", "\u0c81", "same_reading"),  # spacing candrabindu
    ("Mlym", "\u0d00", "\u0d02", "same_reading"), ("Mlym", "\u0d04", "\u0d02", "same_reading"),  # anusvaras
    ("Mlym", "\u0d3b", "\u0d4d", "same_reading"), ("Mlym", "\u0d3c", "\u0d4d", "same_reading"),  # viramas
    ("Mlym", "\u0d5f", "\u0d08", "same_reading"),  # archaic ii
    ("Mlym", "\u0d4e", "\u0d30\u0d4d", "chillu"),  # dot reph: r
    ("Mlym", "\u0d54", "\u0d2e\u0d4d", "chillu"), ("Mlym", "\u0d55", "\u0d2f\u0d4d", "chillu"),
    ("Mlym", "\u0d56", "\u0d34\u0d4d", "chillu"), ("Mlym", "\u0d7a", "\u0d23\u0d4d", "chillu"),
    ("Mlym", "\u0d7b", "\u0d28\u0d4d", "chillu"), ("Mlym", "\u0d7c", "\u0d30\u0d4d", "chillu"),
    ("Mlym", "\u0d7d", "\u0d32\u0d4d", "chillu"), ("Mlym", "\u0d7e", "\u0d33\u0d4d", "chillu"),
    ("Mlym", "\u0d7f", "\u0d15\u0d4d", "chillu"),
)

#: Letters indic-transliteration itself writes like another letter, with the reason (no row above).
#: Bengali ৎ and ত্ are both ``t``; ৰ (Assamese ra) is ``r`` like র; Gurmukhi tippi and bindi are both ``ṁ``,
#: and an addak doubles the next consonant (ਪੱਕਾ pakkā comes back as ਪਕ੍ਕਾ).
SANSCRIPT_LOSSY = {
    "Beng": {"\u09ce": "khanda_ta", "\u09f0": "same_reading"},
    "Guru": {"\u0a70": "same_reading", "\u0a71": "addak"},
    "Telu": {"\u0c5d": "same_reading"},  # nakaara pollu ౝ is న్, n
    "Knda": {"\u0cdd": "same_reading"},  # nakaara pollu ೝ is ನ್, n
}


def lossy_letters(script: str) -> dict[str, str]:
    """Native letter or sign -> reason, for every letter of ``script`` with no exact way back.

    >>> lossy_letters("Mlym")["\u0d7b"]
    'chillu'
    """
    out = dict(SANSCRIPT_LOSSY.get(script, {}))
    out.update({row[3]: row[5] for row in FORWARD if row[0] == script})
    out.update({row[1][0]: row[3] for row in EQUIVALENTS if row[0] == script})
    return out
