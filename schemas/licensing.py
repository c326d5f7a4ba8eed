"""The written license override: the one type that recipes, manifests and ``variant.json`` carry.

A release whose sources' licenses conflict, or whose license is unknown, is
exported only when its recipe says so in writing::

    license_override:
      terms: Non-commercial research use only.
      reason: The set combines non-commercial corpora with ...

The data card then prints the terms and the reason. Both keys are required,
both hold non-empty text, and no other key is allowed, wherever the override
is read (recipe, ``manifest.json``, ``variant.json``).

>>> LicenseOverride.from_dict({"terms": "research only", "reason": " as published "})
LicenseOverride(terms='research only', reason='as published')
>>> LicenseOverride.from_dict(None) is None
True
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from .errors import LicenseError, ToolkitError

_KEYS = ("terms", "reason")


@dataclass(frozen=True)
class LicenseOverride:
    """A recipe's written decision to release an unknown or conflicting combination of licenses."""

    terms: str
    reason: str

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None, *, file=None, field: str = "license_override",
                  error: type[ToolkitError] = LicenseError) -> "LicenseOverride | None":
        """Validate ``{"terms": ..., "reason": ...}``; None stays None.

        Raises ``error`` (a :class:`LicenseError` unless the caller reads a
        recipe) naming ``file`` and the key.
        """
        if data is None:
            return None
        if not isinstance(data, Mapping):
            raise error(f"expected a mapping with terms and reason, found {data!r}", file=file, field=field)
        for key in data:
            if key not in _KEYS:
                raise error(f"unknown key {key!r}; allowed: {', '.join(_KEYS)}", file=file, field=f"{field}.{key}")
        values = {}
        for key in _KEYS:
            if key not in data:
                raise error("required key is missing (an override needs its terms and a written reason)",
                            file=file, field=f"{field}.{key}")
            value = data[key]
            if not isinstance(value, str) or not value.strip():
                raise error(f"expected non-empty text, found {value!r}", file=file, field=f"{field}.{key}")
            values[key] = value.strip()
        return cls(**values)

    def to_dict(self) -> dict[str, str]:
        return {"terms": self.terms, "reason": self.reason}
