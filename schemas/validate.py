"""One validator for every recipe and config mapping, with one phrasing for every violation.

A recipe or config is YAML read by :func:`schemas.io.read_yaml` and checked
here, key by key, against what its loader declares. Every violation is one
:class:`~schemas.errors.RecipeError` (or the class the caller names, e.g.
qc's ``QCConfigError``) naming the file and the key path
(``sources[2].splits``, ``checks.bow_probe.margin``), in one of four shapes:

* ``unknown key 'sede' (did you mean 'seed'?); allowed: name, seed``
* ``required key is missing``
* ``expected <what was allowed>, found <what was found>`` (a wrong type, and
  a value out of range: ``expected an integer >= 0, found -1``)

>>> chk = Checker("recipe.yaml")
>>> try:
...     chk.keys("", {"name": "x", "sede": 1}, {"name": True, "seed": False})
... except RecipeError as err:
...     print(err)
recipe.yaml, field sede: unknown key 'sede' (did you mean 'seed'?); allowed: name, seed
>>> try:
...     chk.number("decision.alpha", 1.0, 0, 1, exclusive=True)
... except RecipeError as err:
...     print(err)
recipe.yaml, field decision.alpha: expected a number between 0 and 1 (exclusive), found 1.0
"""
from __future__ import annotations

import difflib
from typing import Any, Iterable, Mapping, NoReturn

from .errors import RecipeError, SchemaError, ToolkitError


def key_path(where: str, key: Any) -> str:
    """The path of ``key`` inside the mapping at ``where`` (``""`` is the top level).

    >>> key_path("", "seed"), key_path("sources[0]", "name"), key_path("variants", 2)
    ('seed', 'sources[0].name', 'variants[2]')
    """
    if isinstance(key, int) and not isinstance(key, bool):
        return f"{where}[{key}]"
    return f"{where}.{key}" if where else str(key)


def unknown_key(key: Any, allowed: Iterable[str]) -> str:
    """The message for an unknown key: the nearest allowed key, if one is close, then all of them.

    >>> unknown_key("optoins", ["path", "options"])
    "unknown key 'optoins' (did you mean 'options'?); allowed: path, options"
    >>> unknown_key("zz", ["a", "b"])
    "unknown key 'zz'; allowed: a, b"
    """
    allowed = [str(a) for a in allowed]
    near = difflib.get_close_matches(str(key), allowed, n=1)
    hint = f" (did you mean {near[0]!r}?)" if near else ""
    return f"unknown key {key!r}{hint}; allowed: {', '.join(allowed) or 'none'}"


def _found(value: Any) -> str:
    return repr(value)


class Checker:
    """Checks the values of one recipe or config file; every failure names the file and the key path.

    Parameters
    ----------
    file : path, optional
        The file the mapping was read from, for messages.
    error : type of ToolkitError
        The class raised (its exit code is the caller's: a recipe is
        :class:`RecipeError`, exit 1; qc's config is exit 2).
    """

    def __init__(self, file=None, *, error: type[ToolkitError] = RecipeError):
        self.file = file
        self.error = error

    def fail(self, key: str, message: str) -> NoReturn:
        raise self.error(message, file=self.file, field=key)

    def keys(self, where: str, data: Any, spec: Mapping[str, bool], *, missing: str = "") -> Mapping:
        """Check that ``data`` is a mapping whose keys are in ``spec`` (key -> required); return it.

        ``missing`` is added, in parentheses, to the message of a required key that is missing.
        """
        if not isinstance(data, Mapping):
            self.fail(where or "(top level)", f"expected a mapping, found {type(data).__name__}")
        for key in data:
            if key not in spec:  # a mapping's key, never a list index: YAML's `1: x` is field "1", not "[1]"
                self.fail(key_path(where, str(key)), unknown_key(key, spec))
        for key, required in spec.items():
            if required and key not in data:
                self.fail(key_path(where, key), "required key is missing" + (f" ({missing})" if missing else ""))
        return data

    def mapping(self, key: str, value: Any) -> Mapping:
        """``value`` if it is a mapping; None (an empty YAML key) is an empty mapping."""
        if value is None:
            return {}
        if not isinstance(value, Mapping):
            self.fail(key, f"expected a mapping, found {type(value).__name__} {_found(value)}")
        return value

    def text(self, key: str, value: Any) -> str:
        if not isinstance(value, str) or not value.strip():
            self.fail(key, f"expected non-empty text, found {_found(value)}")
        return value

    def name(self, key: str, value: Any, what: str = "name") -> str:
        """Text that becomes a file or folder name (:func:`schemas.names.check_name`: no path, no control
        character, nothing a YAML file or a shell reads as syntax)."""
        from .names import check_name

        try:
            return check_name(value, what=what)
        except SchemaError as err:
            self.fail(key, err.message)

    def flag(self, key: str, value: Any) -> bool:
        if not isinstance(value, bool):
            self.fail(key, f"expected true or false, found {_found(value)}")
        return value

    def integer(self, key: str, value: Any, minimum: int | None = None) -> int:
        """An integer (not a bool) at least ``minimum``."""
        if isinstance(value, bool) or not isinstance(value, int) or (minimum is not None and value < minimum):
            what = "an integer" + (f" >= {minimum}" if minimum is not None else "")
            self.fail(key, f"expected {what}, found {_found(value)}")
        return value

    def number(self, key: str, value: Any, low: float | None = None, high: float | None = None, *,
               exclusive: bool = False) -> float:
        """A number (int or float, not a bool) in ``[low, high]`` (``(low, high)`` if ``exclusive``).

        >>> Checker().number("k", 0.5, 0, 1), Checker().number("k", 3)
        (0.5, 3)
        """
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        if ok and low is not None:
            ok = value > low if exclusive else value >= low
        if ok and high is not None:
            ok = value < high if exclusive else value <= high
        if not ok:
            if low is not None and high is not None:
                what = f"a number between {low} and {high}" + (" (exclusive)" if exclusive else "")
            elif low is not None:
                what = f"a number {'>' if exclusive else '>='} {low}"
            elif high is not None:
                what = f"a number {'<' if exclusive else '<='} {high}"
            else:
                what = "a number"
            self.fail(key, f"expected {what}, found {_found(value)}")
        return value

    def choice(self, key: str, value: Any, choices: Iterable[Any]) -> Any:
        """``value`` if it is one of ``choices``.

        >>> Checker().choice("severity.duplicates", "warning", ("error", "warning", "off"))
        'warning'
        """
        choices = tuple(choices)
        if value not in choices:
            self.fail(key, f"expected one of {', '.join(map(str, choices))}, found {_found(value)}")
        return value

    def names(self, key: str, value: Any) -> tuple[str, ...]:
        """A name or a non-empty list of names, as a tuple."""
        items = [value] if isinstance(value, str) else value
        if not isinstance(items, list) or not items or not all(isinstance(v, str) and v.strip() for v in items):
            self.fail(key, f"expected a name or a non-empty list of names, found {_found(value)}")
        return tuple(items)
