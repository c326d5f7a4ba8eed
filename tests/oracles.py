"""The independent implementations the tests compare our numbers with, imported on first use.

statsmodels, scikit-learn, sacremoses, mlcroissant, ``datasets`` and scipy.stats cost about 12 CPU s to import, and pytest
imports every test module to collect it: a module-level import would make every run (even
``pytest -k one_test``) pay for all of them. The names here are the libraries' own, so a test
reads as if it imported them; the library is imported when the test calls it, and a missing one
fails that test (CI installs them all through the ``test`` extra).
"""

from __future__ import annotations

import importlib
from typing import Any


class LazyModule:
    """A module that is imported when one of its attributes is first read."""

    def __init__(self, name: str):
        self._name = name

    def __getattr__(self, attribute: str) -> Any:
        if attribute.startswith("__"):  # pytest's and doctest's collection probe these: stay unimported
            raise AttributeError(attribute)
        return getattr(importlib.import_module(self._name), attribute)

    def __repr__(self) -> str:
        return f"<lazy module {self._name}>"


class _LazyName:
    """A class or function of a module, imported when it is first called or its attributes read."""

    def __init__(self, module: str, name: str):
        self._module, self._name = module, name
        self.__name__ = self.__qualname__ = name

    def _target(self) -> Any:
        return getattr(importlib.import_module(self._module), self._name)

    def __call__(self, *args, **kwargs):
        return self._target()(*args, **kwargs)

    def __getattr__(self, attribute: str) -> Any:
        if attribute.startswith("__"):  # pytest's and doctest's collection probe these: stay unimported
            raise AttributeError(attribute)
        return getattr(self._target(), attribute)

    def __repr__(self) -> str:
        return f"<lazy {self._module}.{self._name}>"


def _lazy(module: str, name: str) -> _LazyName:
    return _LazyName(module, name)


datasets = LazyModule("datasets")
stats = LazyModule("scipy.stats")  # 0.7 CPU s to import; the package itself never imports it
mlc = LazyModule("mlcroissant")

effectsize_smd = _lazy("statsmodels.stats.meta_analysis", "effectsize_smd")
_multipletests = _lazy("statsmodels.stats.multitest", "multipletests")


def multipletests(*args, **kwargs):
    """statsmodels' ``multipletests``, without the ``gc.collect()`` its Holm branch runs on every
    call: late in a full test run the heap is large and each collection took 0.2-3 s (198 s for
    one 60-example property test)."""
    import gc

    collect, gc.collect = gc.collect, lambda *a: 0
    try:
        return _multipletests(*args, **kwargs)
    finally:
        gc.collect = collect
proportion_confint = _lazy("statsmodels.stats.proportion", "proportion_confint")
aggregate_raters = _lazy("statsmodels.stats.inter_rater", "aggregate_raters")
fleiss_kappa = _lazy("statsmodels.stats.inter_rater", "fleiss_kappa")
CountVectorizer = _lazy("sklearn.feature_extraction.text", "CountVectorizer")
TfidfVectorizer = _lazy("sklearn.feature_extraction.text", "TfidfVectorizer")
RidgeClassifier = _lazy("sklearn.linear_model", "RidgeClassifier")
DatasetCard = _lazy("huggingface_hub", "DatasetCard")
DatasetCardData = _lazy("huggingface_hub", "DatasetCardData")
LogisticRegression = _lazy("sklearn.linear_model", "LogisticRegression")
GroupKFold = _lazy("sklearn.model_selection", "GroupKFold")
MosesPunctNormalizer = _lazy("sacremoses", "MosesPunctNormalizer")
MosesTokenizer = _lazy("sacremoses", "MosesTokenizer")
median_abs_deviation = _lazy("scipy.stats", "median_abs_deviation")
