"""Names that become paths, checked where they enter; every write checked to stay under its root.

Variant codes, config names, ``language`` values, recipe names and label
names come from files that strangers wrote. Before one is used as a folder or
file name it passes :func:`check_name` (a variant code passes
:func:`schemas.codes.validate_variant_code`, which is stricter), and every path
built from names is joined by :func:`path_under`, which refuses a result
outside its output root. The first is the door, the second the wall behind it:
a name that slipped past a door still cannot write outside ``--out``.

>>> check_name("belebele-train", what="recipe name")
'belebele-train'
>>> check_name("x/../../escaped", what="recipe name", file="r.yaml", field="name")
Traceback (most recent call last):
...
schemas.errors.SchemaError: r.yaml, field name: recipe name 'x/../../escaped' cannot be a file name: it contains '/'; use letters, digits, '_', '-', '.' and '+', starting with a letter or digit
"""
from __future__ import annotations

import os
import re
import unicodedata
from pathlib import Path

from schemas.errors import OutputError, SchemaError

#: The longest name accepted (a file name is at most 255 bytes on common file systems; a variant folder
#: name also becomes part of task and file names).
MAX_NAME = 100

_NAME = re.compile(r"[^\W_][\w.+-]*")
_HINT = "use letters, digits, '_', '-', '.' and '+', starting with a letter or digit"


def shown(value, limit: int = 60) -> str:
    """``repr(value)`` cut to ``limit`` characters, so an error line stays one short line.

    >>> shown("a" * 100, limit=12)
    "'aaaaaaaa'…"
    """
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "'…"


def shorten(text, width: int = 60) -> str:
    """``text`` with its whitespace collapsed, cut to ``width`` characters with an ellipsis: a record's text
    as a check's result or a report names it.

    >>> shorten("a  b\\n c"), shorten("abcdefghij", 6)
    ('a b c', 'abcde…')
    """
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[:width - 1] + "\u2026"


def _flaw(value: str) -> str | None:
    """What keeps ``value`` from being a file name, or None."""
    if not value:
        return "it is empty"
    if len(value) > MAX_NAME:
        return f"it is longer than {MAX_NAME} characters"
    for ch in value:
        if ch in "/\\":
            return f"it contains {ch!r}"
        if unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"):
            return f"it contains the control or format character U+{ord(ch):04X}"
    if value in (".", "..") or ".." in value:
        return "it contains '..'"
    if not _NAME.fullmatch(value):
        bad = next((ch for ch in value if not re.fullmatch(r"[\w.+-]", ch)), value[0])
        return f"it starts with {bad!r}" if bad == value[0] else f"it contains {bad!r}"
    return None


def is_name(value) -> bool:
    """Whether ``value`` may be used as a file or folder name (:func:`check_name` would accept it)."""
    return isinstance(value, str) and _flaw(value) is None


def check_name(value, *, what: str, file=None, record=None, field=None) -> str:
    """Return ``value`` if it is a safe file or folder name, else raise :class:`SchemaError`.

    A safe name is 1-100 characters of letters, digits (any script), ``_``,
    ``-``, ``.`` and ``+``, starting with a letter or digit, without ``..``:
    no separator, no absolute path, no control, format or line-separator
    character, nothing a YAML file, a shell or a terminal reads as syntax.

    >>> check_name("sib200", what="config name")
    'sib200'
    >>> check_name("a: b #c", what="variant name")
    Traceback (most recent call last):
    ...
    schemas.errors.SchemaError: variant name 'a: b #c' cannot be a file name: it contains ':'; use letters, digits, '_', '-', '.' and '+', starting with a letter or digit
    """
    if not isinstance(value, str):
        raise SchemaError(f"{what} must be text, found {type(value).__name__} {shown(value)}",
                          file=file, record=record, field=field)
    flaw = _flaw(value)
    if flaw:
        raise SchemaError(f"{what} {shown(value)} cannot be a file name: {flaw}; {_HINT}",
                          file=file, record=record, field=field)
    return value


def path_under(root: str | os.PathLike, *parts: str | os.PathLike) -> Path:
    """``root / parts...``, refused with :class:`OutputError` (exit 2) if it resolves outside ``root``.

    Symbolic links are followed as far as they exist, so a link inside ``root``
    that points out of it is refused too.

    >>> path_under("/tmp/out", "hin_Deva", "test.parquet").as_posix()
    '/tmp/out/hin_Deva/test.parquet'
    >>> path_under("/tmp/out", "../escaped/test.parquet")
    Traceback (most recent call last):
    ...
    schemas.errors.OutputError: cannot write /tmp/out/../escaped/test.parquet: would be written outside the output folder /tmp/out; refused
    """
    base = Path(root)
    target = base.joinpath(*parts)
    real_root = os.path.realpath(base)
    real = os.path.realpath(target)
    if real != real_root and not real.startswith(real_root.rstrip(os.sep) + os.sep):
        raise OutputError(f"would be written outside the output folder {base}; refused", file=target)
    return target
