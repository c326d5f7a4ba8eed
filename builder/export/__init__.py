"""License audit and export of built datasets (``builder licenses``, ``builder export``).

:func:`audit_dataset` derives the license terms of every variant and split;
:func:`read_input` and :func:`write_export` are the export's steps (the Hugging
Face layout with card, license files, Croissant metadata, manifest and,
optionally, lm-evaluation-harness tasks), which
:func:`builder.tasks.export.run_export` runs.
"""
from __future__ import annotations

from .audit import Audit, SplitAudit, audit_dataset
from .writer import ExportInput, read_input, write_export

__all__ = ["Audit", "SplitAudit", "audit_dataset", "ExportInput", "read_input", "write_export"]
