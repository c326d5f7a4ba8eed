"""Language-variant codes: FLORES-200 style ``xxx_Scrp`` (ISO 639-3 + ``_`` + ISO 15924).

The one owner of variant codes: telling a code apart from any other folder
name, taking it apart, and deciding whether it names a real language and
script. The script letters themselves are :mod:`schemas.scripts`.

A code is *valid* when it has the shape ``xxx_Scrp`` and

* it is listed in ``variant_codes.tsv`` beside this module (every FLORES-200
  code, N'Ko as added for SIB-200, Belebele's romanized variants), or
* its language is in ISO 639-3 (or the local-use range ``qaa``-``qtz``) and its
  script in ISO 15924, from :mod:`pycountry`'s offline tables.

The special codes of both standards name no language or no writing system
(``und``, ``mul``, ``zxx``, ``mis``; ``Zyyy``, ``Zinh``, ``Zxxx``, ``Zzzz``,
``Zmth``, ``Zsym``, ``Zsye`` and the private-use ``Qaaa``-``Qabx``), so they
are refused. Anything else is refused with the nearest valid codes: FLORES-200
codes first, then ISO combinations.

>>> variant_script("hin_Deva"), variant_language("hin_Deva"), variant_script("sib_small")
('Deva', 'hin', None)
>>> flores_code("eng_Latn"), flores_code("train")
('eng_Latn', None)
>>> validate_variant_code("nqo_Nkoo"), is_known_variant_code("nqo_Nkko")
('nqo_Nkoo', False)
>>> validate_variant_code("nqo_Nkko")
Traceback (most recent call last):
...
schemas.errors.SchemaError: unknown script code 'Nkko' in 'nqo_Nkko'; nearest valid codes: nqo_Nkoo
"""
from __future__ import annotations

import difflib
from functools import lru_cache
from importlib import resources

import regex

from .errors import SchemaError

#: FLORES-200 style language code: ISO 639-3 + "_" + ISO 15924 script.
LANGUAGE_CODE = regex.compile(r"^([a-z]{3})_([A-Z][a-z]{3})\Z")  # \Z: "$" also matches before a final newline

#: The list of named codes (code, origin), beside this module.
CODES_FILE = "variant_codes.tsv"

#: ISO 639-3 codes of scope "special": they name no language.
SPECIAL_LANGUAGES = frozenset({"mis", "mul", "und", "zxx"})
#: ISO 15924 codes that name no writing system a variant is written in.
SPECIAL_SCRIPTS = frozenset({"Zinh", "Zmth", "Zsye", "Zsym", "Zxxx", "Zyyy", "Zzzz", "Qaaa", "Qabx"})

#: How many nearest codes an error suggests.
N_SUGGESTIONS = 5

_LOCAL_USE = regex.compile(r"^q[a-t][a-z]\Z")  # ISO 639-3 qaa-qtz, reserved for local use
#: ISO 15924 Qaaa-Qabx, reserved for private use (pycountry lists only the two ends of the range)
_PRIVATE_SCRIPT = regex.compile(r"^Qa(?:a[a-z]|b[a-x])\Z")
_LOOSE = regex.compile(r"^([A-Za-z]{3})[-_ ]([A-Za-z]{4})\Z")


def is_variant_code(name) -> bool:
    """Whether ``name`` has the shape of a FLORES-200 code (``hin_Deva``); see :func:`is_known_variant_code`."""
    return variant_parts(name) is not None


def flores_code(name: str | None) -> str | None:
    """``name`` when it has the shape of a FLORES-200 code, else None (a folder named ``sib_small``)."""
    return name if is_variant_code(name) else None


def variant_parts(name) -> tuple[str, str] | None:
    """``(ISO 639-3, ISO 15924)`` of a FLORES code (``hin_Deva`` -> ``("hin", "Deva")``), else None; what the
    code checks and the cards ask for a code's parts.

    >>> variant_parts("zho_Hant"), variant_parts("sib_small"), variant_parts(None)
    (('zho', 'Hant'), None, None)
    """
    match = LANGUAGE_CODE.match(name) if isinstance(name, str) else None
    return (match[1], match[2]) if match else None


def variant_script(variant: str) -> str | None:
    """The ISO 15924 part of a FLORES code (``hin_Deva`` -> ``Deva``), else None."""
    parts = variant_parts(variant)
    return parts[1] if parts else None


def variant_language(variant: str) -> str | None:
    """The ISO 639-3 part of a FLORES code (``hin_Deva`` -> ``hin``), else None.

    >>> variant_language("zho_Hans"), variant_language("annotated")
    ('zho', None)
    """
    parts = variant_parts(variant)
    return parts[0] if parts else None


# --- the tables -------------------------------------------------------------------------------------------


@lru_cache(maxsize=None)
def listed_codes() -> dict[str, str]:
    """``code -> origin`` of ``variant_codes.tsv``, in file order (FLORES-200 first).

    >>> codes = listed_codes()
    >>> len([c for c, origin in codes.items() if origin.startswith("FLORES-200")]), codes["hin_Latn"]
    (205, 'Belebele (romanized)')
    """
    text = resources.files("schemas").joinpath(CODES_FILE).read_text(encoding="utf-8")
    out: dict[str, str] = {}
    for line in text.splitlines():
        if line.strip() and not line.startswith("#"):
            code, origin = line.split("\t", 1)
            out[code] = origin
    return out


def flores200_codes() -> tuple[str, ...]:
    """The 205 FLORES-200 codes (the 204 of the release and ``nqo_Nkoo``), sorted."""
    return tuple(c for c, origin in listed_codes().items() if origin.startswith("FLORES-200"))


@lru_cache(maxsize=None)
def iso639_3() -> dict[str, str]:
    """``code -> English name`` of the ISO 639-3 languages, special codes left out (pycountry)."""
    import pycountry

    return {lang.alpha_3: lang.name for lang in pycountry.languages
            if getattr(lang, "scope", None) != "S" and lang.alpha_3 not in SPECIAL_LANGUAGES}


@lru_cache(maxsize=None)
def iso15924() -> dict[str, str]:
    """``code -> English name`` of the ISO 15924 scripts, special codes left out (pycountry)."""
    import pycountry

    return {s.alpha_4: s.name for s in pycountry.scripts if s.alpha_4 not in SPECIAL_SCRIPTS}


@lru_cache(maxsize=None)
def _listed_parts() -> tuple[frozenset[str], frozenset[str]]:
    codes = listed_codes()
    return frozenset(c[:3] for c in codes), frozenset(c[4:] for c in codes)


def _part(code: str, index: int) -> str:
    parts = variant_parts(code)
    return parts[index] if parts else code


def is_known_language(code: str) -> bool:
    """Whether ``code`` (``hin``, or the language of ``hin_Deva``) is a language a variant may have.

    >>> is_known_language("nqo"), is_known_language("ajp_Arab"), is_known_language("qaa"), is_known_language("und")
    (True, True, True, False)
    """
    if not isinstance(code, str):
        return False
    lang = _part(code, 0)
    # local-use codes (qaa-qtz) before the ISO table, which costs pycountry's 8,000 languages to build
    return lang in _listed_parts()[0] or _LOCAL_USE.match(lang) is not None or lang in iso639_3()


def is_known_script(code: str) -> bool:
    """Whether ``code`` (``Nkoo``, or the script of ``nqo_Nkoo``) is an ISO 15924 script a variant may use.

    >>> is_known_script("Nkoo"), is_known_script("nqo_Nkko"), is_known_script("Zyyy"), is_known_script("Latf")
    (True, False, False, True)
    """
    if not isinstance(code, str):
        return False
    script = _part(code, 1)
    return script in _listed_parts()[1] or script in iso15924()


def is_known_variant_code(code) -> bool:
    """Whether ``code`` is a valid variant code (see the module docstring).

    >>> is_known_variant_code("eng_Latn"), is_known_variant_code("xyz_Nkoo"), is_known_variant_code("hin-Deva")
    (True, False, False)
    """
    return isinstance(code, str) and _is_known(code)


@lru_cache(maxsize=4096)  # records check their language one by one: a repeated code costs a dict look-up
def _is_known(code: str) -> bool:
    if not is_variant_code(code):
        return False
    return code in listed_codes() or (is_known_language(code[:3]) and is_known_script(code[4:]))


# --- suggestions and errors -------------------------------------------------------------------------------


def _normalized(code: str) -> str | None:
    """``HIN-deva`` -> ``hin_Deva``: the code a near miss in case or separator was meant to be."""
    m = _LOOSE.match(code.strip()) if isinstance(code, str) else None
    return None if m is None else f"{m.group(1).lower()}_{m.group(2).capitalize()}"


def nearest_codes(code: str, n: int = N_SUGGESTIONS) -> list[str]:
    """The valid codes nearest to ``code``: FLORES-200 and listed codes first, then ISO combinations.

    >>> nearest_codes("nqo_Nkko")
    ['nqo_Nkoo']
    >>> nearest_codes("HIN-deva")
    ['hin_Deva']
    """
    if not isinstance(code, str):
        return []
    target = _normalized(code) or code.strip()
    if is_known_variant_code(target):
        return [target]
    listed = list(listed_codes())
    out = difflib.get_close_matches(target, listed, n=n, cutoff=0.6)
    if not out:  # a language name, a bare language code or a code in another case
        by_fold = {c.casefold(): c for c in listed}
        out = [by_fold[c] for c in difflib.get_close_matches(target.casefold(), list(by_fold), n=n, cutoff=0.6)]
    lang = target.casefold() if regex.match(r"^[a-z]{3}$", target.casefold()) else None
    if lang is not None and is_known_language(lang):  # a bare language code: its listed variants
        out += [c for c in listed if c[:3] == lang and c not in out]
    if is_variant_code(target):
        lang, script = target.split("_")
        if is_known_language(lang):  # the language's own listed variants before look-alikes of others
            same = [c for c in out if c[:3] == lang] + [c for c in listed if c[:3] == lang and c not in out]
            out = same + [c for c in out if c not in same]
        langs = [lang] if is_known_language(lang) else difflib.get_close_matches(lang, sorted(iso639_3()), n=n)
        scripts = ([script] if is_known_script(script) else
                   difflib.get_close_matches(script, sorted(iso15924()), n=n))
        combos = [f"{lg}_{sc}" for lg in langs for sc in scripts]
        out += [c for c in combos if c not in out]
    return out[:n]


def _unknown(code: str) -> str:
    """What is wrong with a code that has the shape but is not valid."""
    lang, script = code.split("_")
    bad_lang, bad_script = not is_known_language(lang), not is_known_script(script)
    if bad_lang and lang in SPECIAL_LANGUAGES:
        return f"language code {lang!r} in {code!r} is an ISO 639-3 special code that names no language"
    if bad_script and (script in SPECIAL_SCRIPTS or _PRIVATE_SCRIPT.match(script)):
        return f"script code {script!r} in {code!r} is an ISO 15924 special code that names no writing system"
    if bad_lang and bad_script:
        return f"unknown language code {lang!r} and script code {script!r} in {code!r}"
    return f"unknown language code {lang!r} in {code!r}" if bad_lang else f"unknown script code {script!r} in {code!r}"


def validate_variant_code(code, *, file=None, record=None, field=None) -> str:
    """Return ``code`` if it is a valid variant code, else raise :class:`SchemaError` naming the nearest ones.

    Parameters
    ----------
    code : str
        A candidate such as ``hin_Deva``.
    file, record, field : optional
        Where the code was read (prefixed to the message, see :class:`~schemas.errors.ToolkitError`).

    >>> try:
    ...     validate_variant_code("xyz_Nkoo", field="--variant")
    ... except SchemaError as err:
    ...     what, hint = str(err).split("; ")
    >>> what
    "field --variant: unknown language code 'xyz' in 'xyz_Nkoo'"
    >>> hint
    'nearest valid codes: nqo_Nkoo, yzk_Nkoo, yzg_Nkoo, yyz_Nkoo, yxy_Nkoo'
    """
    if is_known_variant_code(code):
        return code
    if is_variant_code(code):
        what = _unknown(code)
    else:
        what = f"expected a FLORES-200 code like 'eng_Latn' (ISO 639-3 + '_' + ISO 15924), found {code!r}"
    near = nearest_codes(code)
    hint = f"nearest valid codes: {', '.join(near)}" if near else f"no valid code is near it (see schemas/{CODES_FILE})"
    raise SchemaError(f"{what}; {hint}", file=file, record=record, field=field)


def check_language_code(code: str, *, file=None, record=None, field="language") -> str:
    """Return ``code`` if it is a valid variant code such as ``hin_Deva`` (:func:`validate_variant_code`).

    >>> check_language_code("hin_Deva")
    'hin_Deva'
    """
    return validate_variant_code(code, file=file, record=record, field=field)
