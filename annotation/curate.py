"""Recipe-driven label-set curation; every step is logged with counts before and after.

A recipe is YAML with a list of ``steps``; each step is a one-key mapping::

    steps:
      - drop_labels: [uncategorized]       # drop the items with these labels
      - min_count: 80                      # drop labels with <= 80 items (SIB-200 kept > 80)
      - merge: {science/technology: [science, technology]}
      - remove_labels: [nature]            # same as drop_labels; named as in the paper
      - keep_labels: [a, b]                # keep only these labels

Unresolved items (no label) are dropped first, in a logged ``drop_unresolved``
step, so no item disappears without a line in the log. A step that drops
every item left is an :class:`~schemas.errors.AnnotationError` (exit 1) naming
the recipe, the step and its threshold or labels, and what it dropped: an
empty label set is never written as a curated dataset (the SIB-200 thresholds,
``min_count: 80``, are for a whole annotation, not a 12-item sample).
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Sequence


from schemas.errors import AnnotationError
from schemas.io import read_yaml, require_path
from schemas.validate import Checker, key_path

from .labelled import LabelledItem


@dataclass(frozen=True)
class Step:
    """One curation step: its name and parameters, validated at load time."""

    name: str
    params: Any
    file: Any = field(default=None, compare=False)  # the recipe and the key path, for errors
    key: str | None = field(default=None, compare=False)


def _labels_param(chk: Checker, key: str, value) -> tuple:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value or not all(isinstance(v, str) and v for v in value):
        chk.fail(key, f"expected a non-empty list of labels, found {value!r}")
    return tuple(value)


def _min_count_param(chk: Checker, key: str, value) -> int:
    return chk.integer(key, value, 0)


def _merge_param(chk: Checker, key: str, value) -> tuple:
    if not isinstance(value, dict) or not value:
        chk.fail(key, f"expected a mapping 'new label: [old labels]', found {value!r}")
    pairs = []
    for target, sources in value.items():
        if not isinstance(target, str) or not target:
            chk.fail(key, f"expected a label as the merge target, found {target!r}")
        pairs.append((target, _labels_param(chk, f"{key}.{target}", sources)))
    return tuple(pairs)


#: step name -> parameter validator
STEP_PARAMS: dict[str, Callable] = {
    "drop_labels": _labels_param,
    "remove_labels": _labels_param,
    "keep_labels": _labels_param,
    "min_count": _min_count_param,
    "merge": _merge_param,
}

#: top-level keys of a curation recipe -> required
_TOP_KEYS = {"name": False, "version": False, "description": False, "steps": True}


def load_recipe(path) -> list[Step]:
    """Read and validate a curation recipe; errors name the file and the key path (``steps[1].min_count``)."""
    p = require_path(path, what="curation recipe", kind="file")
    return parse_recipe(read_yaml(p), file=p)


def parse_recipe(data, *, file=None) -> list[Step]:
    """Validate a recipe already parsed from YAML (:class:`schemas.validate.Checker`).

    >>> [s.name for s in parse_recipe({"steps": [{"min_count": 80}, {"merge": {"st": ["s", "t"]}}]})]
    ['min_count', 'merge']
    >>> parse_recipe({"steps": [{"min_count": -1}]}, file="r.yaml")
    Traceback (most recent call last):
    ...
    schemas.errors.RecipeError: r.yaml, field steps[0].min_count: expected an integer >= 0, found -1
    """
    chk = Checker(file)
    chk.keys("", data, _TOP_KEYS)
    if not isinstance(data["steps"], list):
        chk.fail("steps", f"expected a list of steps, found {data['steps']!r}")
    steps = []
    for n, raw in enumerate(data["steps"]):
        where = key_path("steps", n)
        if not isinstance(raw, dict) or len(raw) != 1:
            chk.fail(where, f"expected a one-key mapping like 'min_count: 80', found {raw!r}")
        chk.keys(where, raw, dict.fromkeys(sorted(STEP_PARAMS), False))
        (name, value), = raw.items()
        steps.append(Step(name, STEP_PARAMS[name](chk, key_path(where, name), value), file=file,
                          key=key_path(where, name)))
    return steps


def _counts(items: Sequence[LabelledItem]) -> dict[str, int]:
    c = Counter(i.label for i in items if i.label is not None)
    return dict(sorted(c.items(), key=lambda kv: (-kv[1], kv[0])))


def _apply(step: Step, items: list[LabelledItem]) -> tuple[list[LabelledItem], dict]:
    counts = Counter(i.label for i in items)
    info: dict[str, Any] = {}
    if step.name in ("drop_labels", "remove_labels", "keep_labels"):
        named = set(step.params)
        info["not_present"] = sorted(named - set(counts))
        keep = (lambda lab: lab in named) if step.name == "keep_labels" else (lambda lab: lab not in named)
        dropped = sorted(lab for lab in counts if not keep(lab))
        info["dropped_labels"] = {lab: counts[lab] for lab in dropped}
        return [i for i in items if keep(i.label)], info
    if step.name == "min_count":
        dropped = sorted(lab for lab, c in counts.items() if c <= step.params)
        info["dropped_labels"] = {lab: counts[lab] for lab in dropped}
        return [i for i in items if counts[i.label] > step.params], info
    mapping = {}
    for target, sources in step.params:
        for s in sources:
            mapping[s] = target
    info["merged"] = {target: {s: counts.get(s, 0) for s in sources} for target, sources in step.params}
    info["not_present"] = sorted(s for s in mapping if s not in counts)
    return [replace(i, label=mapping.get(i.label, i.label)) for i in items], info


def curate(items: Sequence[LabelledItem], steps: Sequence[Step]) -> tuple[list[LabelledItem], list[dict]]:
    """Apply ``steps`` in order; return the kept items and one log entry per step.

    >>> items = [LabelledItem(str(k), lab, "") for k, lab in enumerate("aaabbc")] + [LabelledItem("9", None, "")]
    >>> kept, log = curate(items, parse_recipe({"steps": [{"min_count": 1}, {"merge": {"ab": ["a", "b"]}}]}))
    >>> [(e["step"], e["items_before"], e["items_after"]) for e in log]
    [('drop_unresolved', 7, 6), ('min_count', 6, 5), ('merge', 5, 5)]
    >>> log[-1]["labels_after"]
    {'ab': 5}
    """
    current = list(items)
    log = []
    unresolved = [i.item_id for i in current if i.label is None]
    plan = [Step("drop_unresolved", None)] + list(steps)
    for step in plan:
        before = _counts(current)
        n_before = len(current)
        if step.name == "drop_unresolved":
            current = [i for i in current if i.label is not None]
            info = {"dropped_items": unresolved}
        else:
            current, info = _apply(step, current)
        log.append({"step": step.name, "params": _params_json(step.params), "items_before": n_before,
                    "items_after": len(current), "items_dropped": n_before - len(current),
                    "labels_before": before, "labels_after": _counts(current), **info})
        if n_before and not current:
            raise _dropped_all(step, before, n_before)
    return current, log


def _dropped_all(step: Step, before: dict[str, int], n_before: int) -> AnnotationError:
    """The error of a step that left no item: which step, its threshold or labels, what it dropped."""
    if step.name == "drop_unresolved":
        return AnnotationError(f"every item is unresolved ({n_before}); adjudicate them first "
                               "(builder annotate adjudicate --sheet FILLED.csv)")
    shown = ", ".join(f"{lab} {n}" for lab, n in list(before.items())[:6]) + (", ..." if len(before) > 6 else "")
    if step.name == "min_count":
        why = (f"min_count: {step.params} dropped all {n_before} items left: every label has <= {step.params} "
               f"({shown}); the threshold is for a whole annotation, not a sample")
    else:
        why = f"{step.name}: {', '.join(map(str, _params_json(step.params)))} dropped all {n_before} items left ({shown})"
    return AnnotationError(why + "; nothing is written", file=step.file, field=step.key)


def _params_json(params):
    if isinstance(params, tuple) and params and isinstance(params[0], tuple):
        return {target: list(sources) for target, sources in params}
    if isinstance(params, tuple):
        return list(params)
    return params


def label_order(items: Sequence[LabelledItem]) -> list[str]:
    """Labels by count, most frequent first, then by name (the order of SIB-200's labels.txt).

    >>> label_order([LabelledItem("1", "travel", ""), LabelledItem("2", "sports", ""),
    ...              LabelledItem("3", "travel", "")])
    ['travel', 'sports']
    """
    return list(_counts(items))
