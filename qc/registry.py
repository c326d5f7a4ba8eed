"""Every check of the gate, by name, in the order the report lists them.

A check is a module with ``NAME``, ``KINDS`` (``"mc"`` and/or ``"topic"``)
and ``run(data: VariantData, params: dict) -> list[CheckResult]``; its
parameters are the ``checks.<NAME>`` mapping of ``qc/defaults.yaml``. A test
fails when a module of this package defines ``run`` but is not listed here,
or when a check has no defaults.

>>> list(CHECKS)[:3]
['overlap_ttest', 'sliding_window', 'bow_probe']
"""
from __future__ import annotations

from . import (answer_balance, bow_probe, contamination, duplicates, empty_fields, label_distribution, leakage,
               length_bias, license, overlap_ttest, pivot_consistency, script_consistency, sliding_window)
from . import label_conflict, length_ratio, numbers_check, untranslated

CHECKS = {m.NAME: m for m in (
    overlap_ttest, sliding_window, bow_probe, answer_balance, length_bias, duplicates, leakage, label_conflict,
    contamination, pivot_consistency, untranslated, numbers_check, length_ratio, empty_fields, label_distribution,
    script_consistency, license,
)}
