"""Typed tables and the card's ``dataset_info``, as the Hub and ``datasets`` read them.

:func:`typed_table` gives an exported split its :class:`datasets.Features`
(topic labels as a ``ClassLabel``, stored as indices) in the Parquet schema
metadata; :func:`dataset_info` describes a config for the card;
:func:`check_hub_repo` checks ``--hub-repo``.

``datasets`` writes this block when a dataset is pushed to the Hub
(``DatasetInfosDict.to_dataset_card_data``); we write the same YAML shape
without pushing, and the tests read it back with ``datasets``' own parser
(``DatasetInfosDict.from_dataset_card_data``).

>>> from datasets import ClassLabel, Features, Value
>>> features_yaml(Features({"index_id": Value("int64"), "category": ClassLabel(names=["a", "b"])}))
[{'name': 'index_id', 'dtype': 'int64'}, {'name': 'category', 'dtype': {'class_label': {'names': {'0': 'a', '1': 'b'}}}}]
"""
from __future__ import annotations

import re
from pathlib import Path

import pyarrow as pa

from schemas.errors import SchemaError, UsageError, row_at
from schemas.features import table_features, with_features


def _feature_yaml(name: str, feature) -> dict:
    from datasets import ClassLabel, Value

    if isinstance(feature, ClassLabel):
        return {"name": name, "dtype": {"class_label": {"names": {str(i): n for i, n in enumerate(feature.names)}}}}
    if isinstance(feature, Value):
        return {"name": name, "dtype": feature.dtype}
    if isinstance(feature, dict):
        return {"name": name, "struct": [_feature_yaml(k, v) for k, v in feature.items()]}
    raise TypeError(f"no YAML form for feature {name}: {feature!r}")  # pragma: no cover - exports have no others


def features_yaml(features) -> list[dict]:
    """``features`` as the list of ``{name, dtype}`` / ``{name, struct}`` entries of a card's ``dataset_info``."""
    return [_feature_yaml(name, f) for name, f in features.items()]


def feature_text(feature) -> str:
    """A short description of a feature for the card's prose (``string``, ``ClassLabel``, ``struct``).

    >>> from datasets import Value
    >>> feature_text(Value("int64")), feature_text({"corpus": Value("string")})
    ('int64', 'struct')
    """
    from datasets import ClassLabel, Value

    if isinstance(feature, ClassLabel):
        return f"ClassLabel, {len(feature.names)} names"
    if isinstance(feature, Value):
        return feature.dtype
    return "struct"


def dataset_info(config: str, features, splits: dict[str, tuple[int, int]]) -> dict:
    """One config's ``dataset_info`` entry.

    Parameters
    ----------
    config : str
        The config name (the variant).
    features : datasets.Features
        The columns of every split of the config (they are the same).
    splits : dict
        Split name -> ``(num_bytes, num_examples)``; ``num_bytes`` is the Arrow
        size of the split, as ``datasets`` counts it.

    No ``download_size``: the Parquet bytes depend on the pyarrow version that
    wrote them (``manifest.json`` has them), and the card must not.
    """
    return {
        "config_name": config,
        "features": features_yaml(features),
        "splits": [{"name": s, "num_bytes": b, "num_examples": n} for s, (b, n) in splits.items()],
        "dataset_size": sum(b for b, _ in splits.values()),
    }


def _class_labels(table: pa.Table, labels: list[str], where: Path) -> pa.Table:
    """``category`` as ``ClassLabel`` indices into ``labels``; a label not in the list names its row."""
    index = {name: i for i, name in enumerate(labels)}
    values = table.column("category").to_pylist()
    codes = []
    for row, value in enumerate(values):
        if value not in index:
            raise SchemaError(f"label {value!r} is not in the curated label list ({', '.join(labels)})",
                              file=where, record=row_at(row), field="category")
        codes.append(index[value])
    return table.set_column(table.column_names.index("category"), "category", pa.array(codes, pa.int64()))


def typed_table(table: pa.Table, kind: str, labels: list[str] | None, where: Path, *, record_types: bool = True):
    """``(table, features)``: the split with its ``datasets`` features in the Parquet schema metadata.

    The export has already given the record columns their types; a published
    layout (``record_types=False``) may rename and retype them, so its features
    follow the Arrow types."""
    if labels is not None and "category" in table.column_names:
        table = _class_labels(table, labels, where)
    else:
        labels = None
    features = table_features(table.schema, kind, labels=labels, record_types=record_types)
    return with_features(table.cast(features.arrow_schema), features), features


HUB_REPO = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*\Z")


def check_hub_repo(repo: str | None) -> str | None:
    """``repo`` if it is a Hub dataset id ``ORG/NAME`` (a usage error otherwise).

    >>> check_hub_repo("my-org/sib200-plus")
    'my-org/sib200-plus'
    >>> check_hub_repo("https://huggingface.co/x")
    Traceback (most recent call last):
    ...
    schemas.errors.UsageError: field --hub-repo: expected a Hub dataset id ORG/NAME, found 'https://huggingface.co/x'
    """
    if repo is not None and not HUB_REPO.match(repo):
        raise UsageError(f"expected a Hub dataset id ORG/NAME, found {repo!r}", field="--hub-repo")
    return repo
