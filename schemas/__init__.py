"""The ground floor: the dataset contract that every stage shares.

Record shapes (:mod:`.records`) and their Arrow and ``datasets`` types
(:mod:`.features`); the dataset-folder layout and its loader (:mod:`.dataset`)
and the split order (:mod:`.splits`); ``variant.json`` (:mod:`.variant`) and
the license override (:mod:`.licensing`); variant codes (:mod:`.codes`) and
Unicode scripts (:mod:`.scripts`); atomic writes (:mod:`.io`, :mod:`.outputs`) and the
recovery after a killed run (:mod:`.recovery`); the error family (:mod:`.errors`). This package imports
no other package of the project; ``data_cards``, ``annotation`` and ``qc``
build on it, and ``builder`` (pipeline, evaluation, CLI) on all of them.
"""
from .codes import LANGUAGE_CODE, check_language_code, flores_code, variant_language, variant_script
from .errors import (AlignmentError, AnnotationError, ExitStatus, GateFailed, GateInputError, GateStatus,
                     LicenseError, QCGateFailed,
                     RecipeError, SchemaError, ScriptError, SourceError, SourceNotFoundError,
                     ToolkitError, UsageError)
from .records import (DECISION_RULES, MC_COLUMNS, TOPIC_COLUMNS, Decision, Judgement, MCItem,
                      Provenance, REQUIRED_COLUMNS, TopicItem, mc_item_from_dict, topic_item_from_dict)

__all__ = [
    "AlignmentError", "AnnotationError", "ExitStatus", "GateFailed", "GateInputError", "GateStatus",
    "LicenseError", "QCGateFailed", "RecipeError",
    "SchemaError", "ScriptError", "SourceError", "SourceNotFoundError", "ToolkitError", "UsageError",
    "DECISION_RULES", "MC_COLUMNS", "TOPIC_COLUMNS", "Decision", "Judgement", "MCItem", "Provenance",
    "REQUIRED_COLUMNS", "TopicItem", "mc_item_from_dict", "topic_item_from_dict",
    "LANGUAGE_CODE", "check_language_code", "flores_code", "variant_language", "variant_script",
]
