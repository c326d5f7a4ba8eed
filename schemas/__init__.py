"""Record shapes, their ``datasets.Features`` and the toolkit's error family."""
from .errors import (AlignmentError, AnnotationError, ExitStatus, LicenseError, QCGateFailed,
                     RecipeError, SchemaError, ScriptError, SourceError, SourceNotFoundError,
                     ToolkitError, UsageError)
from .records import (DECISION_RULES, MC_COLUMNS, TOPIC_COLUMNS, Decision, Judgement, MCItem,
                      Provenance, TopicItem, check_language_code, mc_item_from_dict,
                      topic_item_from_dict)

__all__ = [
    "AlignmentError", "AnnotationError", "ExitStatus", "LicenseError", "QCGateFailed", "RecipeError",
    "SchemaError", "ScriptError", "SourceError", "SourceNotFoundError", "ToolkitError", "UsageError",
    "DECISION_RULES", "MC_COLUMNS", "TOPIC_COLUMNS", "Decision", "Judgement", "MCItem", "Provenance",
    "TopicItem", "check_language_code", "mc_item_from_dict", "topic_item_from_dict",
]
