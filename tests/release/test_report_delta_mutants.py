"""The report's change in percentage points, every sign (issue 27's mutation run).

``builder.release.report._delta`` writes how a derived variant's score moved from its source's: a plus
sign, a real minus sign (U+2212) or ± for no change at the one decimal shown, and nothing when either
score is missing.
"""
from __future__ import annotations

from builder.release.report import _delta


def test_the_change_has_its_sign_at_the_decimal_shown_and_is_empty_without_both_scores():
    assert _delta(0.80, 0.75) == "+5.0 pp"
    assert _delta(0.505, 0.5) == "+0.5 pp"
    assert _delta(0.495, 0.5) == "\u22120.5 pp"
    assert _delta(0.7, 0.732) == "\u22123.2 pp"
    assert _delta(0.5, 0.5) == "\u00b10.0 pp"
    assert _delta(0.5004, 0.5) == "\u00b10.0 pp"   # +0.04 pp is no change at one decimal
    assert _delta(None, 0.5) == _delta(0.5, None) == _delta(None, None) == ""
