"""The top floor: the pipeline and its faces.

Data flows through the folders in order: ``readers/`` (source corpora in their
native formats -> raw records), ``filters/`` (one keep-or-drop decision each,
every drop in the ledger), ``shuffle`` and ``recipe``/``assemble`` (a recipe
-> an assembled training set), ``variants/`` (projection onto parallel text,
romanization), ``export/`` (license audit, Hugging Face layout, card, lm-eval
tasks), ``evaluation/`` (baselines, LLM answers, disparity) and ``cli/`` (the
``builder`` command). It builds on the floors below: ``qc``, ``annotation``
and ``data_cards`` (floor 2) and ``schemas`` (floor 1: records, the folder
layout, ``variant.json``, I/O); none of those imports ``builder``
(``tests/test_layers.py`` checks it with import-linter).
"""
__version__ = "0.1.0"
