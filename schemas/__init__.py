"""Record shapes, their ``datasets.Features`` and the toolkit's error family."""
from .codes import LANGUAGE_CODE, check_language_code, flores_code, variant_language, variant_script
from .errors import (AlignmentError, AnnotationError, ExitStatus, LicenseError, QCGateFailed,
                     RecipeError, SchemaError, ScriptError, SourceError, SourceNotFoundError,
                     ToolkitError, UsageError)
from .records import (DECISION_RULES, MC_COLUMNS, TOPIC_COLUMNS, Decision, Judgement, MCItem,
                      Provenance, TopicItem, mc_item_from_dict, topic_item_from_dict)

__all__ = [
    "AlignmentError", "AnnotationError", "ExitStatus", "LicenseError", "QCGateFailed", "RecipeError",
    "SchemaError", "ScriptError", "SourceError", "SourceNotFoundError", "ToolkitError", "UsageError",
    "DECISION_RULES", "MC_COLUMNS", "TOPIC_COLUMNS", "Decision", "Judgement", "MCItem", "Provenance",
    "TopicItem", "mc_item_from_dict", "topic_item_from_dict",
    "LANGUAGE_CODE", "check_language_code", "flores_code", "variant_language", "variant_script",
]
