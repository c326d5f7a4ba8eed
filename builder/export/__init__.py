"""License audit and export of built datasets (``builder licenses``, ``builder export``).

:func:`audit_dataset` derives the license terms of every variant and split;
:func:`export_dataset` writes the Hugging Face layout with card, license files,
manifest and, optionally, lm-evaluation-harness tasks.
"""
from __future__ import annotations

from .audit import Audit, SplitAudit, audit_dataset
from .writer import ExportResult, export_dataset

__all__ = ["Audit", "SplitAudit", "audit_dataset", "ExportResult", "export_dataset"]
