"""The dataset-building pipeline: readers, filters, variants, splits, export, evaluation, CLI."""
__version__ = "0.1.0"
