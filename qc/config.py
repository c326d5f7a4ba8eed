"""The gate's thresholds: shipped defaults (``qc/defaults.yaml``) plus a user override.

The override may set any subset of the default keys (an empty section, such as
``decision:`` alone, overrides nothing); a key given twice (:func:`schemas.io.load_yaml`),
an unknown key, a value of the wrong type or out of range, or a different
``version`` is a :class:`QCConfigError` worded by :class:`schemas.validate.Checker`,
which ``builder qc`` turns into exit code 2 (config unreadable).

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

from schemas.errors import GateStatus, RecipeError, ToolkitError
from schemas.io import load_yaml, read_yaml, require_path
from schemas.validate import Checker, key_path

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
    return load_yaml(text, file="qc/defaults.yaml")


def _merge(chk: Checker, base: dict, over: Any, where: str) -> dict:
    """``base`` updated with ``over``, each value checked against the type of its default."""
    chk.keys(where, over, dict.fromkeys(sorted(base), False))
    out = copy.deepcopy(base)
    for key, value in over.items():
        path = key_path(where, key)
        default = base[key]
        if isinstance(default, dict):
            out[key] = _merge(chk, default, chk.mapping(path, value), path)
            continue
        if isinstance(default, bool):
            chk.flag(path, value)
        elif isinstance(default, (int, float)):
            chk.number(path, value, 0)
        elif isinstance(default, list) and not isinstance(value, list):
            chk.fail(path, f"expected a list, found {value!r}")
        elif isinstance(default, str) and not isinstance(value, str):
            chk.fail(path, f"expected text, found {value!r}")
        choices = CHOICES.get((where.rsplit(".", 1)[-1], key)) if where else None
        if key == "features" and where == "checks.overlap_ttest":
            choices = default
        if choices:
            for i, v in enumerate(value if isinstance(value, list) else [value]):
                chk.choice(f"{path}[{i}]" if isinstance(value, list) else path, v, choices)
        out[key] = value
    return out


def merge_config(base: dict[str, Any], override: dict[str, Any], *, file=None) -> dict[str, Any]:
    """Return ``base`` updated with ``override``, validated against ``base``'s keys and types."""
    if override is None:
        return copy.deepcopy(base)
    chk = Checker(file, error=QCConfigError)
    if isinstance(override, dict) and "version" in override and override["version"] != base["version"]:
        hint = CHANGES.get(override["version"]) if isinstance(override["version"], int) else None
        chk.fail("version", f"expected {base['version']} (the version this toolkit reads), "
                            f"found {override['version']!r}" + (f"; {hint}" if hint else ""))
    merged = _merge(chk, base, override, "")
    for name in ("chance", "margin", "near_jaccard", "warn_jaccard", "min_share", "min_line_share", "max_bad_share",
                 "max_share", "max_near_share", "max_deviation", "letter_digit_share"):
        for check, params in merged["checks"].items():
            if name in params:
                chk.number(f"checks.{check}.{name}", params[name], 0, 1)
    untranslated = merged["checks"]["untranslated"]
    if untranslated["warn_jaccard"] > untranslated["near_jaccard"]:  # the warning band would be empty
        chk.fail("checks.untranslated.warn_jaccard",
                 f"expected a number <= checks.untranslated.near_jaccard ({untranslated['near_jaccard']}), "
                 f"found {untranslated['warn_jaccard']!r}")
    ratio = merged["checks"]["length_ratio"]
    chk.number("checks.length_ratio.max_z", ratio["max_z"], 0, exclusive=True)
    chk.integer("checks.length_ratio.min_units", ratio["min_units"], 3)
    for name in ("alpha", "confidence", "pivot_share"):
        chk.number(f"decision.{name}", merged["decision"][name], 0, 1, exclusive=True)
    chk.number("checks.bow_probe.folds", merged["checks"]["bow_probe"]["folds"], 2)
    for check, params in merged["checks"].items():
        _check_minhash(chk, f"checks.{check}", params)
    return merged


def _check_minhash(chk: Checker, where: str, params: dict) -> None:
    """The text-similarity parameters of a check (duplicates, leakage, label conflicts, untranslated items):
    shingles of at least one character, and MinHash signatures cut into bands of whole rows."""
    if "shingle" in params:
        chk.integer(f"{where}.shingle", params["shingle"], 1)
    if "bands" not in params:
        return
    bands = chk.integer(f"{where}.bands", params["bands"], 1)
    num_perm = chk.integer(f"{where}.num_perm", params["num_perm"], 1)
    if num_perm % bands:
        chk.fail(f"{where}.num_perm", f"expected a multiple of {where}.bands ({bands}), found {num_perm!r}")


def load_config(path: str | Path | None = None) -> dict[str, Any]:
    """The defaults, overridden by the YAML file at ``path`` if given.

    Every error reading it (a bad byte, malformed YAML, a duplicate key) is a
    :class:`QCConfigError` with the reader's message and location (exit 2).
    """
    base = default_config()
    if path is None:
        return base
    try:
        p = require_path(path, what="config file", kind="file")
    except ToolkitError as err:  # the gate could not look: exit 2, whatever is wrong with the path
        raise QCConfigError(err.message, file=err.file) from None
    try:
        override = read_yaml(p)
    except ToolkitError as err:
        raise QCConfigError(err.message, file=err.file, record=err.record, field=err.field) from None
    return merge_config(base, override or {}, file=p)
