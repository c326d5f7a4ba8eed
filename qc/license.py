"""Check ``license``: every split says under which license it is released.

A split passes when every row has a ``license`` column value other than empty
or ``unknown`` (or ``none``, ``NOASSERTION``), or
when the variant's ``variant.json`` or the dataset's ``manifest.json`` names a
license (``data.licenses``). License compatibility is audited by
``builder licenses``; this gate only refuses a release with no license at all.
"""
from __future__ import annotations

from .result import CheckResult, VariantData, skipped

NAME = "license"
KINDS = ("mc", "topic")


#: Values that say there is no known license.
NO_LICENSE = {"", "unknown", "none", "noassertion", "null", "nan"}


def split_license(frame, declared: str | None) -> tuple[bool, str]:
    """Whether a split is licensed, and the license(s) found (or why not).

    >>> import pandas as pd
    >>> split_license(pd.DataFrame({"license": ["MIT", "unknown"]}), None)
    (False, '1 row(s) without a known license (unknown)')
    """
    if declared is not None and declared.strip().lower() in NO_LICENSE:
        declared = None
    if "license" in frame.columns and len(frame):
        col = frame["license"]
        blank = col.isna() | col.astype(str).str.strip().str.lower().isin(NO_LICENSE)
        if not blank.any():
            return True, ",".join(sorted(set(col.astype(str))))
        if declared:
            return True, declared
        values = ", ".join(sorted(set(col[blank].fillna("").astype(str).str.strip())))
        return False, f"{int(blank.sum())} row(s) without a known license ({values})"
    if declared:
        return True, declared
    return False, "no license column and none declared in variant.json or manifest.json"


def run(data: VariantData, params: dict) -> list[CheckResult]:
    if not data.tables:
        return [skipped(data.variant, NAME, "no splits")]
    found = {s: split_license(f, data.licenses.get(s)) for s, f in data.tables.items()}
    missing = [s for s, (ok, _) in found.items() if not ok]
    detail = "; ".join(f"{s}: {text}" for s, (_, text) in found.items())
    return [CheckResult(data.variant, NAME, not missing, value=len(missing), threshold=0,
                        reason=None if not missing else "no_license", detail=detail,
                        paper="Belebele: CC BY-SA 4.0; its training set mostly CC BY-NC (app. A.3)",
                        extra={"licenses": {s: text for s, (_, text) in found.items()}, "unlicensed": missing})]
