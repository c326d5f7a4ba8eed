"""Language-variant codes: FLORES-200 style ``xxx_Scrp`` (ISO 639-3 + ``_`` + ISO 15924).

One place for telling a variant code apart from any other folder name and for
taking it apart; the script letters themselves are :mod:`schemas.scripts`.

>>> variant_script("hin_Deva"), variant_language("hin_Deva"), variant_script("sib_small")
('Deva', 'hin', None)
>>> flores_code("eng_Latn"), flores_code("train")
('eng_Latn', None)
"""
from __future__ import annotations

import regex

from .errors import SchemaError

#: FLORES-200 style language code: ISO 639-3 + "_" + ISO 15924 script.
LANGUAGE_CODE = regex.compile(r"^[a-z]{3}_[A-Z][a-z]{3}$")


def is_variant_code(name) -> bool:
    """Whether ``name`` has the shape of a FLORES-200 code (``hin_Deva``)."""
    return isinstance(name, str) and LANGUAGE_CODE.match(name) is not None


def flores_code(name: str | None) -> str | None:
    """``name`` when it is a FLORES-200 code, else None (a folder named ``sib_small``)."""
    return name if is_variant_code(name) else None


def variant_script(variant: str) -> str | None:
    """The ISO 15924 part of a FLORES code (``hin_Deva`` -> ``Deva``), else None."""
    return variant.split("_", 1)[1] if is_variant_code(variant) else None


def variant_language(variant: str) -> str | None:
    """The ISO 639-3 part of a FLORES code (``hin_Deva`` -> ``hin``), else None."""
    return variant.split("_", 1)[0] if is_variant_code(variant) else None


def check_language_code(code: str, *, file=None, record=None, field="language") -> str:
    """Return ``code`` if it is a FLORES-style code such as ``hin_Deva``.

    >>> check_language_code("hin_Deva")
    'hin_Deva'
    """
    if not is_variant_code(code):
        raise SchemaError(
            f"expected a FLORES-200 code like 'eng_Latn' (ISO 639-3 + '_' + ISO 15924), found {code!r}",
            file=file, record=record, field=field,
        )
    return code
