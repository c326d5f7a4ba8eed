"""The projection checks' configuration and verdicts, exactly (issue 17, mutation testing phase 2).

``builder/variants/checks.py`` decides which findings of ``builder extend``
stop a build. These tests call it in-process and pin what the console-script
tests leave open: each refusal's whole message and field, every default, the
``max_odd_share`` boundary (strictly more than the share escalates), the
status of each severity and ``to_dict``'s keys.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from builder.variants.checks import (DEFAULT_SEVERITY, ODD_LINE_CHECKS, SEVERITIES, CheckConfig, CheckResult,
                                     CheckSet, duplicate_groups, load_check_config)
from schemas.errors import RecipeError

ALLOWED = ("expected_lines, length_z, max_odd_share, script_file_min_share, script_line_min_share, severity")


def _yaml(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "checks.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def _refusal(path: Path) -> RecipeError:
    with pytest.raises(RecipeError) as info:
        load_check_config(path)
    return info.value


# --- defaults ------------------------------------------------------------------------------------------

def test_the_defaults_are_the_documented_ones():
    cfg = CheckConfig()
    assert cfg.expected_lines is None
    assert dict(cfg.severity) == DEFAULT_SEVERITY and cfg.severity is not DEFAULT_SEVERITY
    assert (cfg.script_file_min_share, cfg.script_line_min_share, cfg.length_z, cfg.max_odd_share) == (
        0.8, 0.5, 3.5, 0.05)
    assert SEVERITIES == ("error", "warning", "off")
    assert ODD_LINE_CHECKS == ("script_lines", "length_outliers", "duplicates")
    errors = sorted(k for k, v in DEFAULT_SEVERITY.items() if v == "error")
    assert errors == ["alignment", "empty_fields", "empty_lines", "ids_out_of_range", "line_count", "missing_ids",
                      "script_file"]
    assert sorted(k for k, v in DEFAULT_SEVERITY.items() if v == "warning") == [
        "duplicate_options", "duplicates", "inconsistent_passages", "length_outliers", "script_lines"]


def test_an_empty_file_and_none_give_the_defaults(tmp_path):
    assert load_check_config(None) == CheckConfig()
    assert load_check_config(_yaml(tmp_path, "")) == CheckConfig()
    assert load_check_config(_yaml(tmp_path, "severity:\n")) == CheckConfig()
    assert load_check_config(_yaml(tmp_path, "expected_lines:\n")) == CheckConfig()


def test_with_expected_and_to_dict():
    cfg = CheckConfig()
    assert cfg.with_expected(None) is cfg and cfg.with_expected(()) is cfg
    assert cfg.with_expected((3, 4)).expected_lines == (3, 4)
    d = CheckConfig(severity={"alignment": "off"}).to_dict()
    assert d == {"expected_lines": None, "severity": {"alignment": "off"}, "script_file_min_share": 0.8,
                 "script_line_min_share": 0.5, "length_z": 3.5, "max_odd_share": 0.05}
    assert type(d["severity"]) is dict


# --- every setting read, every refusal named ----------------------------------------------------------

def test_every_setting_is_read(tmp_path):
    cfg = load_check_config(_yaml(tmp_path, "\n".join([
        "expected_lines: [3, 4]", "severity:", "  alignment: warning", "  duplicates: 'off'",
        "script_file_min_share: 0.7", "script_line_min_share: 1", "max_odd_share: 0", "length_z: 2"])))
    assert cfg.expected_lines == (3, 4)
    assert cfg.severity == {**DEFAULT_SEVERITY, "alignment": "warning", "duplicates": "off"}
    assert (cfg.script_file_min_share, cfg.script_line_min_share, cfg.max_odd_share, cfg.length_z) == (
        0.7, 1.0, 0.0, 2.0)
    assert all(type(v) is float for v in (cfg.script_line_min_share, cfg.max_odd_share, cfg.length_z))


@pytest.mark.parametrize("text,field,message", [
    ("- 1\n- 2", "(top level)", "expected a mapping, found list"),
    ("zeta: 1\nalpha: 2", "zeta", f"unknown key 'zeta'; allowed: {ALLOWED}"),
    ("max_odd_shares: 1", "max_odd_shares", f"unknown key 'max_odd_shares' (did you mean 'max_odd_share'?); "
                                            f"allowed: {ALLOWED}"),
    ("expected_lines: 5", "expected_lines", "expected a list of positive line counts, found 5"),
    ("expected_lines: [3, 0]", "expected_lines", "expected a list of positive line counts, found [3, 0]"),
    ("expected_lines: [3, x]", "expected_lines", "expected a list of positive line counts, found [3, 'x']"),
    ("severity: [a]", "severity", "expected a mapping, found list ['a']"),
    ("severity:\n  alignmnt: error", "severity.alignmnt",
     "unknown key 'alignmnt' (did you mean 'alignment'?); allowed: " + ", ".join(sorted(DEFAULT_SEVERITY))),
    ("severity:\n  alignment: fatal", "severity.alignment", "expected one of error, warning, off, found 'fatal'"),
    ("max_odd_share: 1.5", "max_odd_share", "expected a number between 0 and 1, found 1.5"),
    ("script_file_min_share: -0.1", "script_file_min_share", "expected a number between 0 and 1, found -0.1"),
    ("script_line_min_share: true", "script_line_min_share", "expected a number between 0 and 1, found True"),
    ("max_odd_share: '0.1'", "max_odd_share", "expected a number between 0 and 1, found '0.1'"),
    ("length_z: 0", "length_z", "expected a number > 0, found 0"),
    ("length_z: -1", "length_z", "expected a number > 0, found -1"),
    ("length_z: true", "length_z", "expected a number > 0, found True"),
    ("length_z: big", "length_z", "expected a number > 0, found 'big'"),
])
def test_each_refusal_names_the_file_the_setting_and_what_was_found(tmp_path, text, field, message):
    path = _yaml(tmp_path, text)
    err = _refusal(path)
    assert (err.file, err.field, err.message) == (str(path), field, message)


def test_malformed_yaml_names_the_file_and_line(tmp_path):
    import yaml

    path = _yaml(tmp_path, "severity:\n  alignment: [")
    err = _refusal(path)
    try:
        yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as yaml_err:
        assert (err.file, err.record) == (str(path), f"line {yaml_err.problem_mark.line + 1}")
        assert err.message == f"malformed YAML: {yaml_err.problem}"
    else:
        raise AssertionError("valid YAML")


def test_the_share_bounds_are_inclusive_and_length_z_may_be_small(tmp_path):
    assert load_check_config(_yaml(tmp_path, "max_odd_share: 0\nscript_file_min_share: 1")).max_odd_share == 0.0
    assert load_check_config(_yaml(tmp_path, "length_z: 0.01")).length_z == 0.01
    assert load_check_config(_yaml(tmp_path, "expected_lines: [1]")).expected_lines == (1,)


# --- verdicts -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("severity,count,escalated,status", [
    ("off", 3, False, "off"), ("off", 0, True, "off"), ("error", 0, False, "ok"), ("warning", 0, True, "ok"),
    ("error", 1, False, "error"), ("warning", 1, False, "warning"), ("warning", 1, True, "error"),
])
def test_status_of_each_severity(severity, count, escalated, status):
    assert CheckResult("x", severity, count=count, escalated=escalated).status == status


def test_a_result_to_dict_has_every_field():
    r = CheckResult("alignment", "error", count=2, items=[4, 7], message="m", escalated=False)
    assert r.to_dict() == {"name": "alignment", "severity": "error", "status": "error", "count": 2,
                           "items": [4, 7], "message": "m", "escalated": False}
    assert CheckResult("x", "warning").to_dict() == {"name": "x", "severity": "warning", "status": "ok", "count": 0,
                                                     "items": [], "message": "", "escalated": False}


@pytest.mark.parametrize("name", ODD_LINE_CHECKS)
def test_odd_lines_escalate_only_above_the_share(name):
    checks = CheckSet(CheckConfig())  # max_odd_share 0.05: 5 of 100 lines is not more, 6 is
    at = checks.add(name, list(range(5)), "five", n_lines=100)
    assert (at.count, at.items, at.message, at.severity, at.escalated, at.status) == (
        5, [0, 1, 2, 3, 4], "five", "warning", False, "warning")
    above = checks.add(name, list(range(6)), n_lines=100)
    assert above.escalated and above.status == "error" and above.message == ""
    assert checks.errors() == [above]


def test_escalation_needs_a_warning_a_line_count_and_an_odd_line_check():
    checks = CheckSet(CheckConfig(severity={**DEFAULT_SEVERITY, "duplicates": "off"}))
    assert not checks.add("duplicates", [1, 2, 3], n_lines=10).escalated  # off stays off
    assert not checks.add("script_lines", [1, 2, 3]).escalated  # no line count given
    assert not checks.add("script_lines", [1, 2, 3], n_lines=0).escalated
    assert not checks.add("duplicate_options", [1, 2, 3], n_lines=10).escalated  # not a line-level check
    assert not checks.add("alignment", [1], n_lines=10).escalated  # an error already
    assert checks.add("length_outliers", [1], n_lines=1).escalated  # 1 of 1 > 0.05


def test_an_unknown_check_name_is_a_warning():
    checks = CheckSet(CheckConfig())
    res = checks.add("something_new", [1])
    assert res.status == "warning" and res.severity == "warning"
    assert checks.errors() == []


def test_the_set_keeps_insertion_order_counts_and_errors():
    checks = CheckSet(CheckConfig())
    checks.add("line_count", [])
    checks.add("script_lines", [3])
    checks.add("alignment", [1, 2], "misaligned")
    assert list(checks.results) == ["line_count", "script_lines", "alignment"]
    assert checks.counts() == {"line_count": 0, "script_lines": 1, "alignment": 2}
    assert [r.name for r in checks.errors()] == ["alignment"]
    assert checks.to_dict()["alignment"] == {"name": "alignment", "severity": "error", "status": "error",
                                             "count": 2, "items": [1, 2], "message": "misaligned",
                                             "escalated": False}
    assert list(checks.to_dict()) == ["line_count", "script_lines", "alignment"]
    assert checks.config == CheckConfig()


def test_the_frozen_config_cannot_change():
    with pytest.raises(dataclasses.FrozenInstanceError):
        CheckConfig().max_odd_share = 1  # type: ignore[misc]


# --- duplicates --------------------------------------------------------------------------------------------

def test_duplicate_groups_exactly():
    lines = ["a", " a ", "b", "", "", "b", "c", "a"]
    english = {0: "x", 1: "y", 2: "z", 3: "p", 4: "q", 5: "z", 6: "c"}
    # "a" at 0, 1, 7 (7 has no known English: a different source); "b" at 2 and 5 share their English
    # (not a duplicate); empty lines are never duplicates; "c" once
    assert duplicate_groups(lines, english) == [[0, 1, 7]]
    assert duplicate_groups(["b", "a", "b", "a"], {}) == [[0, 2], [1, 3]]  # sorted, unknown English differs
    assert duplicate_groups(["a", "a"], {0: "x", 1: "x"}) == []
    assert duplicate_groups(["x", "a", "a"], {0: "p", 1: "q", 2: "r"}) == [[1, 2]]  # a single line first
    assert duplicate_groups([], {}) == []


@pytest.mark.parametrize("text, field", [
    ("1: x\n", "1"),                      # a mapping's integer key is named as a key, not as a list index
    ("severity:\n  2: error\n", "severity.2"),
])
def test_an_unknown_integer_key_is_named_as_a_key(tmp_path, text, field):
    err = _refusal(_yaml(tmp_path, text))
    assert err.field == field and err.file == str(tmp_path / "checks.yaml")
    assert "unknown key" in err.message
