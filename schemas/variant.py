"""``variant.json``: what a variant folder says about itself, read and written by one type.

``builder extend`` and ``builder romanize`` write it beside the split files of
the variant they make (``extend`` carries the source's credit, see
:meth:`VariantInfo.credit`); ``builder describe`` declares license, source name
and citation on any variant folder, including one the toolkit did not build.
Every stage that wants it (the qc license check, the license audit,
the data card, romanize's source license) asks :meth:`VariantInfo.read`, so
one policy holds everywhere: no file is ``None``; a file that is not a JSON
object, or whose common fields have the wrong type, stops with one line
naming the file.

The common fields are typed attributes; whatever else the writing stage
recorded (checks, hashes, row counts) is kept in :attr:`VariantInfo.details`
and written back unchanged, so a read-then-write round trip is byte-identical.

>>> info = VariantInfo.from_dict({"variant": "hin_Latn", "license": "CC-BY-SA-4.0", "tool": "x"})
>>> info.license, info.details["tool"], info.to_dict() == {"variant": "hin_Latn",
...                                                        "license": "CC-BY-SA-4.0", "tool": "x"}
('CC-BY-SA-4.0', 'x', True)
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field, fields
from pathlib import Path
from types import MappingProxyType
from typing import Any, Mapping

from .codes import check_language_code
from .errors import SchemaError
from .io import dumps_json, write_text_atomic
from .licensing import LicenseOverride

#: The file name, in a variant folder.
VARIANT_JSON = "variant.json"

#: Common fields that hold text (``None`` when the file does not say).
_TEXT = ("variant", "kind", "method", "source", "source_name", "source_variant", "license", "license_from",
         "citation")
_KINDS = ("mc", "topic")
#: The fields that say whom to credit and on what terms (see :meth:`VariantInfo.credit`).
CREDIT_FIELDS = ("source_name", "license", "license_from", "citation")


@dataclass(frozen=True)
class VariantInfo:
    """The contents of one ``variant.json``.

    Attributes
    ----------
    variant : str, optional
        FLORES-200 code of the variant (``hin_Latn``).
    kind : {"mc", "topic"}, optional
        Multiple-choice or topic records.
    method : str, optional
        How it was made: ``projection``, ``romanization``, ...
    source : str, optional
        The input path the writing stage read (not a credit line).
    source_name : str, optional
        The name to credit (``SIB-200``); the audit's source of the records.
    source_variant : str, optional
        The variant it was derived from (romanization).
    license, license_from : str, optional
        License id of its records, and where that id came from.
    citation : str, optional
        Citation of the source, for the card and ATTRIBUTION.md.
    license_override : LicenseOverride, optional
        A written override (see :mod:`schemas.licensing`).
    details : mapping
        Every other key, as written.
    """

    variant: str | None = None
    kind: str | None = None
    method: str | None = None
    source: str | None = None
    source_name: str | None = None
    source_variant: str | None = None
    license: str | None = None
    license_from: str | None = None
    citation: str | None = None
    license_override: LicenseOverride | None = None
    details: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    @classmethod
    def from_dict(cls, data: Any, *, file=None) -> "VariantInfo":
        """Validate the parsed JSON of a ``variant.json``; errors name ``file`` and the field."""
        if not isinstance(data, Mapping):
            raise SchemaError(f"expected a JSON object, found {type(data).__name__}", file=file)
        values: dict[str, Any] = {}
        for name in _TEXT:
            value = data.get(name)
            if value is not None and not isinstance(value, str):
                raise SchemaError(f"expected text, found {value!r}", file=file, field=name)
            values[name] = value
        if values["variant"] is not None:
            check_language_code(values["variant"], file=file, field="variant")
        if values["kind"] is not None and values["kind"] not in _KINDS:
            raise SchemaError(f"expected one of {', '.join(_KINDS)}, found {values['kind']!r}", file=file,
                              field="kind")
        override = LicenseOverride.from_dict(data.get("license_override"), file=file)
        details = {k: v for k, v in data.items() if k not in _TEXT and k != "license_override"}
        return cls(**values, license_override=override, details=MappingProxyType(details))

    @classmethod
    def read(cls, folder: str | os.PathLike) -> "VariantInfo | None":
        """The ``variant.json`` of ``folder``, or None where the folder has none."""
        path = Path(folder) / VARIANT_JSON
        if not path.is_file():
            return None
        try:
            data = json.loads(path.read_text(encoding="utf-8-sig"))
        except UnicodeDecodeError as err:
            raise SchemaError(f"not valid UTF-8 (byte {err.start}: {err.reason})", file=path) from None
        except json.JSONDecodeError as err:
            raise SchemaError(f"malformed JSON: {err.msg}", file=path, record=f"line {err.lineno}") from None
        return cls.from_dict(data, file=path)

    def to_dict(self) -> dict[str, Any]:
        """The JSON object, without the fields that are None."""
        out = {f.name: getattr(self, f.name) for f in fields(self) if f.name in _TEXT}
        out = {k: v for k, v in out.items() if v is not None}
        if self.license_override is not None:
            out["license_override"] = self.license_override.to_dict()
        out.update(self.details)
        return out

    def credit(self) -> dict[str, str]:
        """What a variant derived from this one carries: whom to credit, on what terms, how to cite.

        The fields of :data:`CREDIT_FIELDS` that are set; ``builder extend`` copies them into the
        new variant's ``variant.json`` so that an export keeps the source's attribution (CC BY-SA
        asks for it).

        >>> VariantInfo(variant="eng_Latn", source_name="SIB-200", license="CC-BY-SA-4.0").credit()
        {'source_name': 'SIB-200', 'license': 'CC-BY-SA-4.0'}
        """
        return {name: getattr(self, name) for name in CREDIT_FIELDS if getattr(self, name) is not None}

    def declare(self, **values: str | None) -> "VariantInfo":
        """A copy with the credit fields in ``values`` set (``None`` leaves a field as it is).

        >>> VariantInfo(variant="eng_Latn").declare(source_name="SIB-200", citation=None).to_dict()
        {'variant': 'eng_Latn', 'source_name': 'SIB-200'}
        """
        unknown = sorted(set(values) - set(CREDIT_FIELDS))
        if unknown:
            raise TypeError(f"not credit fields: {', '.join(unknown)}; expected {', '.join(CREDIT_FIELDS)}")
        merged = self.to_dict()
        merged.update({k: v for k, v in values.items() if v is not None})
        return VariantInfo.from_dict(merged)

    def get(self, key: str, default: Any = None) -> Any:
        """A field or a detail by its JSON key (for readers of optional, stage-specific keys)."""
        return self.to_dict().get(key, default)

    def write(self, folder: str | os.PathLike) -> Path:
        """Write ``folder/variant.json`` atomically (sorted keys, as every JSON output)."""
        return write_text_atomic(Path(folder) / VARIANT_JSON, dumps_json(self.to_dict()))
