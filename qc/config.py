"""The gate's thresholds: shipped defaults (``qc/defaults.yaml``) plus a user override.

The override may set any subset of the default keys; an unknown key, a value
of the wrong type or a different ``version`` is a :class:`QCConfigError`, which
``builder qc`` turns into exit code 2 (config unreadable).

>>> cfg = load_config()
>>> cfg["version"], cfg["decision"]["method"], cfg["decision"]["alpha"]
(2, 'holm', 0.05)
>>> merge_config(cfg, {"checks": {"bow_probe": {"margin": 0.1}}})["checks"]["bow_probe"]["margin"]
0.1
"""
from __future__ import annotations

import copy
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from schemas.errors import GateStatus, RecipeError
from schemas.io import read_text_utf8
from schemas.tables import EncodingError

CHOICES = {
    ("decision", "method"): ("holm", "fdr_bh", "bonferroni"),
    ("bow_probe", "features"): ("question+option", "option"),
}

#: What changed in each version, for the error a config of an older version gets.
CHANGES = {
    1: "version 2 (issue 13) replaced the per-check `alpha` and `correction` keys with one `decision` "
       "block (method, alpha, pivot_share, confidence) and added the effect floors `min_g`, `margin` and "
       "`max_deviation`; see docs/qc.md",
}


class QCConfigError(RecipeError):
    """A QC config cannot be read or names unknown keys (exit code 2)."""

    exit_code = GateStatus.UNREADABLE


def default_config() -> dict[str, Any]:
    """The shipped defaults, parsed."""
    text = resources.files("qc").joinpath("defaults.yaml").read_text(encoding="utf-8")
    return yaml.safe_load(text)


def _type_name(value) -> str:
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return "text"


def _merge(base: dict, over: dict, path: tuple[str, ...], file) -> dict:
    out = copy.deepcopy(base)
    for key, value in over.items():
        where = ".".join(path + (str(key),))
        if key not in base:
            raise QCConfigError(f"unknown key {where!r}; allowed here: {', '.join(sorted(base))}", file=file)
        default = base[key]
        if isinstance(default, dict):
            if not isinstance(value, dict):
                raise QCConfigError(f"{where} must be a mapping, found {value!r}", file=file)
            out[key] = _merge(default, value, path + (str(key),), file)
            continue
        ok = (isinstance(value, bool) == isinstance(default, bool)) and (
            isinstance(value, (int, float)) if isinstance(default, (int, float)) and not isinstance(default, bool)
            else isinstance(value, type(default)))
        if not ok:
            raise QCConfigError(f"{where} must be {_type_name(default)}, found {value!r}", file=file)
        if isinstance(default, (int, float)) and not isinstance(default, bool) and value < 0:
            raise QCConfigError(f"{where} must be >= 0, found {value!r}", file=file)
        choices = CHOICES.get(path[-1:] + (key,)) if path else None
        if choices:
            vals = value if isinstance(value, list) else [value]
            bad = [v for v in vals if v not in choices]
            if bad:
                raise QCConfigError(f"{where}: allowed {', '.join(choices)}; found {bad[0]!r}", file=file)
        if key == "features" and path[-1:] == ("overlap_ttest",):
            bad = [v for v in value if v not in default]
            if bad:
                raise QCConfigError(f"{where}: allowed {', '.join(default)}; found {bad[0]!r}", file=file)
        out[key] = value
    return out


def merge_config(base: dict[str, Any], override: dict[str, Any], *, file=None) -> dict[str, Any]:
    """Return ``base`` updated with ``override``, validated against ``base``'s keys and types."""
    if override is None:
        return copy.deepcopy(base)
    if not isinstance(override, dict):
        raise QCConfigError(f"expected a mapping at the top level, found {type(override).__name__}", file=file)
    if "version" in override and override["version"] != base["version"]:
        hint = CHANGES.get(override["version"]) if isinstance(override["version"], int) else None
        raise QCConfigError(f"config version {override['version']!r} is not supported; "
                            f"this toolkit reads version {base['version']}" + (f" ({hint})" if hint else ""),
                            file=file)
    merged = _merge(base, override, (), file)
    for name in ("chance", "margin", "near_jaccard", "min_share", "min_line_share", "max_bad_share", "max_share",
                 "max_near_share", "max_deviation"):
        for check, params in merged["checks"].items():
            if name in params and not 0 <= params[name] <= 1:
                raise QCConfigError(f"checks.{check}.{name} must be in [0, 1], found {params[name]!r}", file=file)
    for name in ("alpha", "confidence", "pivot_share"):
        value = merged["decision"][name]
        if not 0 < value < 1:
            raise QCConfigError(f"decision.{name} must be between 0 and 1 (exclusive), found {value!r}", file=file)
    probe = merged["checks"]["bow_probe"]
    if probe["folds"] < 2:
        raise QCConfigError(f"checks.bow_probe.folds must be >= 2, found {probe['folds']!r}", file=file)
    dup = merged["checks"]["duplicates"]
    if dup["bands"] < 1 or dup["num_perm"] % dup["bands"]:
        raise QCConfigError("checks.duplicates.num_perm must be a multiple of bands, found "
                            f"{dup['num_perm']} and {dup['bands']}", file=file)
    return merged


def load_config(path: str | Path | None = None) -> dict[str, Any]:
    """The defaults, overridden by the YAML file at ``path`` if given."""
    base = default_config()
    if path is None:
        return base
    p = Path(path)
    if not p.is_file():
        raise QCConfigError("config file not found", file=p)
    try:
        override = yaml.safe_load(read_text_utf8(p))
    except EncodingError as err:  # a bad byte: line, byte and reason, as a config error (exit 2)
        raise QCConfigError(err.message, file=p, record=err.record) from None
    except yaml.YAMLError as err:
        line = getattr(getattr(err, "problem_mark", None), "line", None)
        raise QCConfigError(f"malformed YAML: {str(err).splitlines()[0]}", file=p,
                            record=None if line is None else f"line {line + 1}") from None
    return merge_config(base, override or {}, file=p)
