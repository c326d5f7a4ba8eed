"""Evaluation of built datasets.

Baselines on built splits (topic and multiple-choice), LLM answer parsing and
scoring, Belebele prompts and reports (``builder evaluate``, docs/evaluate.md);
language-disparity analysis (``builder disparity``).
"""
