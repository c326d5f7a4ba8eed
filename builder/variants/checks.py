"""Checks of a parallel translation before projection, and their configuration.

Every check has a short stable name, a count and the offending ids; its
severity (``error`` stops the build, ``warning`` is reported, ``off`` skips
it) comes from :class:`CheckConfig`. The defaults are what a careful curator
wants: a misaligned file, an empty line, an id out of range or a file in the
wrong script stops the build; a few odd lines (wrong-script lines, length
outliers, duplicates) are reported, and too many of them (over
``max_odd_share`` of the lines) stop it too.

>>> CheckConfig().severity["alignment"], CheckConfig().severity["length_outliers"]
('error', 'warning')
"""
from __future__ import annotations

import dataclasses
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from schemas.validate import Checker

SEVERITIES = ("error", "warning", "off")

#: Check name -> default severity.
DEFAULT_SEVERITY = {
    "line_count": "error",
    "alignment": "error",
    "empty_lines": "error",
    "ids_out_of_range": "error",
    "script_file": "error",
    "script_lines": "warning",
    "length_outliers": "warning",
    "duplicates": "warning",
    # multiple-choice projection (items keyed by id, not by line)
    "missing_ids": "error",
    "empty_fields": "error",
    "duplicate_options": "warning",
    "inconsistent_passages": "warning",
}

#: Line-level checks whose finding is escalated to an error when too many lines are odd.
ODD_LINE_CHECKS = ("script_lines", "length_outliers", "duplicates")


@dataclass(frozen=True)
class CheckConfig:
    """Thresholds and severities of the projection checks (the defaults live here).

    Parameters
    ----------
    expected_lines : tuple of int, optional
        Lines expected in each parallel file, in order; None: FLORES-200
        (997 dev + 1,012 devtest for two files, 2,009 for one).
    severity : dict
        Check name -> ``error``, ``warning`` or ``off``.
    script_file_min_share : float
        A file whose letters are less than this share in the declared script is wrong-script.
    script_line_min_share : float
        A line below this share is reported (names and numbers in other scripts are normal).
    length_z : float
        |robust z| of the log length ratio above which a line is an outlier
        (3.5, Iglewicz & Hoaglin 1993).
    max_odd_share : float
        A line-level check flagging more than this share of lines becomes an error.
    """

    expected_lines: tuple[int, ...] | None = None
    severity: Mapping[str, str] = field(default_factory=lambda: dict(DEFAULT_SEVERITY))
    script_file_min_share: float = 0.8
    script_line_min_share: float = 0.5
    length_z: float = 3.5
    max_odd_share: float = 0.05

    def with_expected(self, expected: tuple[int, ...] | None) -> "CheckConfig":
        return dataclasses.replace(self, expected_lines=expected) if expected else self

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["severity"] = dict(self.severity)
        return d


def load_check_config(path: str | Path | None) -> CheckConfig:
    """Read a checks YAML file (keys as in :class:`CheckConfig`); None gives the defaults.

    Read by :func:`schemas.io.read_yaml` (a duplicate key is refused) and checked by
    :class:`schemas.validate.Checker`: an unknown key, check or severity is a
    :class:`~schemas.errors.RecipeError` naming the file, the key and the allowed values.
    """
    if path is None:
        return CheckConfig()
    from schemas.io import read_yaml

    where = Path(path)
    chk = Checker(where)
    data = chk.keys("", read_yaml(where) or {}, dict.fromkeys(sorted(f.name for f in dataclasses.fields(CheckConfig)),
                                                              False))
    kwargs: dict[str, Any] = {}
    if "expected_lines" in data and data["expected_lines"] is not None:
        exp = data["expected_lines"]
        if not isinstance(exp, list) or not all(isinstance(n, int) and n > 0 for n in exp):
            chk.fail("expected_lines", f"expected a list of positive line counts, found {exp!r}")
        kwargs["expected_lines"] = tuple(exp)
    if "severity" in data:
        given = chk.keys("severity", chk.mapping("severity", data["severity"] or {}),
                         dict.fromkeys(sorted(DEFAULT_SEVERITY), False))
        kwargs["severity"] = {**DEFAULT_SEVERITY, **{name: chk.choice(f"severity.{name}", level, SEVERITIES)
                                                      for name, level in given.items()}}
    for name in ("script_file_min_share", "script_line_min_share", "max_odd_share"):
        if name in data:
            kwargs[name] = float(chk.number(name, data[name], 0, 1))
    if "length_z" in data:
        kwargs["length_z"] = float(chk.number("length_z", data["length_z"], 0, exclusive=True))
    return CheckConfig(**kwargs)


@dataclass
class CheckResult:
    """The outcome of one check: how many findings, which ids, and how serious.

    ``status`` is ``ok``, ``warning`` or ``error`` (``off`` when skipped);
    ``items`` lists the offending ids or locations; ``message`` is the one-line
    error text when ``status`` is ``error``.
    """

    name: str
    severity: str
    count: int = 0
    items: list = field(default_factory=list)
    message: str = ""
    escalated: bool = False

    @property
    def status(self) -> str:
        if self.severity == "off":
            return "off"
        if self.count == 0:
            return "ok"
        return "error" if self.severity == "error" or self.escalated else "warning"

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "severity": self.severity, "status": self.status, "count": self.count,
                "items": self.items, "message": self.message, "escalated": self.escalated}


class CheckSet:
    """The results of one run, in a stable order, with the first error to raise."""

    def __init__(self, config: CheckConfig):
        self.config = config
        self.results: dict[str, CheckResult] = {}

    def add(self, name: str, items: list, message: str = "", *, n_lines: int | None = None) -> CheckResult:
        res = CheckResult(name=name, severity=self.config.severity.get(name, "warning"), count=len(items),
                          items=items, message=message)
        if (name in ODD_LINE_CHECKS and n_lines and res.severity == "warning"
                and res.count > self.config.max_odd_share * n_lines):
            res.escalated = True
        self.results[name] = res
        return res

    def errors(self) -> list[CheckResult]:
        return [r for r in self.results.values() if r.status == "error"]

    def to_dict(self) -> dict[str, Any]:
        return {name: r.to_dict() for name, r in self.results.items()}

    def counts(self) -> dict[str, int]:
        return {name: r.count for name, r in self.results.items()}


def duplicate_groups(lines, english: Mapping[int, str]) -> list[list[int]]:
    """Groups of line indexes whose (stripped, non-empty) text is identical although their English differs.

    Lines with no known English count as different sources.

    >>> duplicate_groups(["a", "b", "a", "a"], {0: "x", 2: "x", 3: "y"})
    [[0, 2, 3]]
    """
    seen: dict[str, list[int]] = defaultdict(list)
    for i, line in enumerate(lines):
        key = line.strip()
        if key:
            seen[key].append(i)
    groups = []
    for idx in seen.values():
        if len(idx) < 2:
            continue
        sources = {english.get(i, f"#unknown{i}") for i in idx}
        if len(sources) > 1:
            groups.append(idx)
    return sorted(groups)
