"""Check ``license``: every split resolves to registered license terms, the terms the audit finds.

A split's license is resolved by :mod:`schemas.licensing`, the one rule of the
license audit (``builder licenses``) and the export: the ``license`` column,
else ``license`` in the variant's ``variant.json``, then the written override
(``license_override`` in ``manifest.json`` or a ``variant.json``) on the
combined terms. The gate passes on no fallback (``--license``), so a folder
that names no license fails here and stops the audit. A split fails, with
the first failing split's reason for the check, when

``no_license``
    no known license: no column and no ``variant.json`` license, a record
    without a license id or with an id that is not registered (the detail is
    the error the audit stops with), or records under the ``unknown``
    sentinel that no written override covers;
``license_conflict``
    the terms of its licenses conflict and no written override covers them.

The terms are the audit's by construction (one function, the same inputs), so
the check passes a split exactly when ``builder licenses --intended-use
research`` does (``tests/qc/test_qc_license_agreement.py`` runs both on every
example release). Whether a use is allowed is the audit's question; this gate
refuses a release whose license is missing, unregistered or unresolved.
"""
from __future__ import annotations

from schemas.errors import LicenseError
from schemas.license_registry import get_license
from schemas.licensing import LicenseContext

from .result import CheckResult, VariantData, skipped

NAME = "license"
KINDS = ("mc", "topic")


def split_license(frame, context: LicenseContext, split: str | None = None) -> tuple[str | None, str]:
    """``(reason, text)`` of one split: reason None when it passes, text the license ids found (or why not).

    >>> import pandas as pd
    >>> split_license(pd.DataFrame({"license": ["MIT", "CC-BY-4.0"]}), LicenseContext())
    (None, 'CC-BY-4.0,MIT')
    >>> split_license(pd.DataFrame({"license": ["MIT", "unknown"]}), LicenseContext())
    ('no_license', 'MIT AND unknown: the license of records is unknown; no use is known to be permitted')
    """
    try:
        resolved = context.resolve(frame, split)
    except LicenseError as err:
        return "no_license", str(err)
    terms = resolved.terms
    if terms.unresolved:
        standing = [c for c in terms.conflicts if not c.overridden]
        unknown = any(get_license(i).sentinel for c in standing for i in c.licenses)
        return ("no_license" if unknown else "license_conflict",
                f"{terms.terms}: {'; '.join(c.reason for c in standing)}")
    return None, ",".join(sorted(terms.licenses)) or terms.terms


def run(data: VariantData, params: dict) -> list[CheckResult]:
    if not data.tables:
        return [skipped(data.variant, NAME, "no splits")]
    context = data.licenses or LicenseContext(variant=data.variant)
    found = {s: split_license(f, context, s) for s, f in data.tables.items()}
    failing = [s for s, (reason, _) in found.items() if reason is not None]
    detail = "; ".join(f"{s}: {text}" for s, (_, text) in found.items())
    return [CheckResult(data.variant, NAME, not failing, value=len(failing), threshold=0,
                        reason=found[failing[0]][0] if failing else None, detail=detail,
                        paper="Belebele: CC BY-SA 4.0; its training set mostly CC BY-NC (app. A.3)",
                        extra={"licenses": {s: text for s, (_, text) in found.items()}, "unlicensed": failing})]
