"""Names of languages and scripts behind FLORES-200 codes (``hin_Deva``), for data cards.

Language names come from ISO 639-3 and script names from ISO 15924, both
through :mod:`pycountry` (imported on first use). Codes these standards do not
know are shown as ``unknown (xyz)`` rather than failing the card.

>>> describe("hin_Deva")
('Hindi', 'Devanagari (Nagari)')
>>> describe("npi_Deva")[0]
'Nepali'
"""
from __future__ import annotations

from functools import lru_cache

from schemas.codes import variant_parts


@lru_cache(maxsize=None)
def language_name(code: str) -> str:
    """English name of an ISO 639-3 code (``swh`` -> ``Swahili``).

    >>> language_name("arb")
    'Standard Arabic'
    """
    import pycountry

    lang = pycountry.languages.get(alpha_3=code)
    if lang is None:
        return f"unknown ({code})"
    return lang.name.replace(" (individual language)", "")


@lru_cache(maxsize=None)
def script_name(code: str) -> str:
    """English name of an ISO 15924 code (``Ethi`` -> ``Ethiopic (Geʻez)``).

    >>> script_name("Jpan")
    'Japanese (Han + Hiragana + Katakana)'
    """
    import pycountry

    script = pycountry.scripts.get(alpha_4=code)
    if script is None:
        return f"unknown ({code})"
    return script.name.replace("(alias for ", "(")


def describe(variant: str) -> tuple[str, str]:
    """``(language name, script name)`` of a FLORES code; unknown parts say so."""
    parts = variant_parts(variant)
    if parts is None:
        return (f"unknown ({variant})", "unknown")
    return language_name(parts[0]), script_name(parts[1])


@lru_cache(maxsize=None)
def hub_language(code: str) -> str:
    """The code the Hub's ``language:`` field takes: ISO 639-1 where the language has one, else ISO 639-3.

    Only the ISO 639-3 code's own 639-1 code counts (pycountry): ``hin`` -> ``hi``,
    but ``arb`` (Standard Arabic, an individual language) stays ``arb``; its
    macrolanguage ``ara`` is ``ar``.

    >>> hub_language("hin"), hub_language("zho"), hub_language("arb"), hub_language("nqo")
    ('hi', 'zh', 'arb', 'nqo')
    """
    import pycountry

    lang = pycountry.languages.get(alpha_3=code)
    return getattr(lang, "alpha_2", None) or code


def bcp47(variant: str) -> str | None:
    """The BCP-47 tag of a FLORES code: language (ISO 639-1 where it exists) and script subtags.

    >>> bcp47("hin_Deva"), bcp47("hin_Latn"), bcp47("arb_Arab"), bcp47("annotated")
    ('hi-Deva', 'hi-Latn', 'arb-Arab', None)
    """
    parts = variant_parts(variant)
    return f"{hub_language(parts[0])}-{parts[1]}" if parts else None
