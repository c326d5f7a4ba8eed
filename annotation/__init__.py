"""Topic-label annotation (floor 2): import, agreement, adjudication, curation and splits.

Builds on :mod:`schemas` only (records, atomic writes); ``builder annotate`` is
its command-line face.

Modules, one job each (the ``builder annotate`` subcommands call them):

- :mod:`annotation.importer`: long/wide CSV, TSV, JSONL -> :class:`~annotation.importer.Annotations`
- :mod:`annotation.measures`: agreement measures as ratios of per-item sums (fast path)
- :mod:`annotation.bootstrap`: seeded, vectorised percentile bootstrap over items
- :mod:`annotation.agreement`: library estimates (statsmodels, krippendorff, scikit-learn) + report dict
- :mod:`annotation.report`: agreement.json, agreement.md, agreement_matrix.png
- :mod:`annotation.adjudicate`: majority vote with the SIB-200 tie rule, adjudication sheet, merge
- :mod:`annotation.labelled`, :mod:`annotation.curate`: label-set curation recipes
- :mod:`annotation.splits`: stratified, grouped, seeded splits in the SIB-200 layout
"""
