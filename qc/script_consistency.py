"""Check ``script_consistency``: is the variant written in the script its code declares?

The script is the ISO 15924 part of the FLORES code (``hin_Deva`` -> Deva);
:func:`schemas.scripts.check_script` counts the letters of each
distinct text (passages, questions, options; or topic texts) in that script.
The variant fails when fewer than ``min_share`` of all letters are in script,
or more than ``max_bad_share`` of its texts fall below ``min_line_share``.
A variant whose script code Unicode does not know (``nqo_Nkko`` for N'Ko,
which is ``Nkoo``) fails as ``unknown_script``: the gate cannot vouch for
its script, so it does not pass it silently.
"""
from __future__ import annotations

import pandas as pd

from schemas.codes import variant_script
from schemas.scripts import check_script, script_letters

from .result import CheckResult, VariantData, skipped

NAME = "script_consistency"
KINDS = ("mc", "topic")
TEXT_COLUMNS = {"mc": ("passage", "question", "answer1", "answer2", "answer3", "answer4"), "topic": ("text",)}


def run(data: VariantData, params: dict) -> list[CheckResult]:
    script = variant_script(data.variant)
    if script is None:
        return [skipped(data.variant, NAME, "variant name is not a FLORES code like hin_Deva")]
    try:
        script_letters(script)
    except ValueError as err:
        return [CheckResult(data.variant, NAME, False, reason="unknown_script",
                            detail=f"{err}: cannot check the script of {data.variant}; use a code of "
                                   "ISO 15924 that Unicode knows (e.g. Nkoo for N'Ko)",
                            extra={"script": script})]
    frame = data.combined
    cols = [c for c in TEXT_COLUMNS[data.kind] if c in frame.columns]
    texts = list(pd.unique(frame[cols].fillna("").astype(str).to_numpy().ravel())) if cols else []
    report = check_script(texts, script, min_line_share=params["min_line_share"])
    bad_share = len(report.bad_lines) / len(texts) if texts else 0.0
    passed = report.file_share >= params["min_share"] and bad_share <= params["max_bad_share"]
    reason = None if passed else ("wrong_script" if report.file_share < params["min_share"] else "bad_lines")
    examples = [texts[i][:60] for i in report.bad_lines[:3]]
    return [CheckResult(
        data.variant, NAME, passed, value=report.file_share, threshold=params["min_share"], reason=reason,
        detail=(f"{report.file_share:.1%} of {report.letters} letters in {script}; {len(report.bad_lines)} of "
                f"{len(texts)} texts below {params['min_line_share']:.0%} (max {params['max_bad_share']:.0%})"),
        extra={"script": script, "letters": report.letters, "bad_texts": len(report.bad_lines),
               "texts": len(texts), "bad_share": bad_share, "examples": examples})]
