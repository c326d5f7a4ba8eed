"""The record every check returns, and the per-variant data every check reads."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from schemas.licensing import LicenseContext

from .tokens import TokenCache


def _num(x):
    if x is None:
        return None
    x = float(x)
    return None if math.isnan(x) or math.isinf(x) else x


@dataclass
class CheckResult:
    """The outcome of one check on one variant.

    ``statistic``/``p_value`` are the test's (None where there is no test),
    ``value`` the measured quantity the threshold applies to, ``threshold`` the
    configured limit; ``gate`` says whether a failure fails the release, and
    ``reason`` is a short stable name for why it failed (``"separates"``,
    ``"above_chance"``, ...). ``extra`` holds check-specific numbers
    (interval, counts, examples).

    A *hypothesis test* (``fails_as`` set, a raw ``p_value``) is measured by its
    check and decided by :func:`qc.decision.decide` over the whole run: it
    fails as ``fails_as`` when its adjusted p-value is below ``alpha`` and
    ``|effect|`` exceeds ``floor``. There ``value`` is the effect and
    ``threshold`` the floor; ``effect_ci`` is the effect's confidence interval,
    and ``p_adjusted``, ``family``, ``family_size`` and ``family_alpha`` say
    how the run's multiplicity control treated it.

    >>> CheckResult("eng_Latn", "leakage", True, value=0, threshold=0).to_dict()["passed"]
    True
    """

    variant: str
    check: str
    passed: bool
    statistic: float | None = None
    p_value: float | None = None
    value: float | None = None
    threshold: float | None = None
    gate: bool = True
    skipped: bool = False
    reason: str | None = None
    detail: str = ""
    paper: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    # hypothesis tests: measured here, decided over the whole run by qc.decision
    fails_as: str | None = None
    effect: float | None = None
    effect_ci: tuple[float, float] | None = None
    effect_name: str | None = None
    floor: float | None = None
    p_adjusted: float | None = None
    family: str | None = None
    family_size: int | None = None
    family_alpha: float | None = None

    @property
    def is_test(self) -> bool:
        """A hypothesis test that ran (its verdict is :func:`qc.decision.decide`'s)."""
        return self.fails_as is not None and self.p_value is not None and not self.skipped

    def to_dict(self) -> dict[str, Any]:
        out = {k: v for k, v in self.extra.items()}
        out.update(variant=self.variant, check=self.check, passed=bool(self.passed),
                   statistic=_num(self.statistic), p_value=_num(self.p_value), value=_num(self.value),
                   threshold=_num(self.threshold), gate=bool(self.gate), skipped=bool(self.skipped),
                   reason=self.reason, detail=self.detail, paper=self.paper)
        if self.fails_as is not None:
            low, high = self.effect_ci if self.effect_ci is not None else (None, None)
            out.update(test=True, p_adjusted=_num(self.p_adjusted), family=self.family,
                       family_size=self.family_size, family_alpha=_num(self.family_alpha),
                       effect=_num(self.effect), effect_name=self.effect_name, effect_ci_low=_num(low),
                       effect_ci_high=_num(high), floor=_num(self.floor))
        return out

    @property
    def blocks(self) -> bool:
        """True when this result fails the release."""
        return self.gate and not self.passed


def skipped(variant: str, check: str, why: str) -> CheckResult:
    """A check that could not run on this variant (passes, flagged as skipped)."""
    return CheckResult(variant, check, True, skipped=True, detail=why)


@dataclass
class VariantData:
    """One variant's splits plus what cross-variant checks need.

    ``pivot`` holds the pivot variant's tables (None when this is the pivot or
    the dataset has no such variant); ``against`` the n-gram hashes of the
    ``--contamination-against`` passages; ``licenses`` what the variant's
    licenses are resolved with (:class:`schemas.licensing.LicenseContext`);
    ``confidence`` the level of the effect intervals (``decision.confidence``).
    """

    variant: str
    kind: str
    tables: dict[str, pd.DataFrame]
    pivot_name: str = "eng_Latn"
    pivot: dict[str, pd.DataFrame] | None = None
    against: Any = None
    licenses: LicenseContext | None = None
    seed: int = 0
    confidence: float = 0.95
    cache: TokenCache = field(default_factory=TokenCache)
    memo: dict[str, Any] = field(default_factory=dict)
    _combined: pd.DataFrame | None = None

    @property
    def combined(self) -> pd.DataFrame:
        """All splits in one frame with a ``split`` column (split order kept)."""
        if self._combined is None:
            parts = []
            for split, frame in self.tables.items():
                f = frame.copy()
                f["split"] = split
                parts.append(f)
            self._combined = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
        return self._combined
