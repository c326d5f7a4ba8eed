"""The bad-input corpus: every folder of ``tests/data/bad/`` is one fault, run through the CLI.

Each folder holds a copy of a real sample with one change, and a ``case.yaml``::

    fault: what is wrong, in one line (the issue's wording)
    setup:                      # optional, done in order before the command
      - file: "{tmp}/out"       #   an ordinary file at this path
      - foreign: "{tmp}/out"    #   a non-empty folder holding a file no command wrote
      - copy: ["{case}/x", "{tmp}/x"]
      - builder: ["assemble", "..."]   # a command that must succeed first
    args: ["assemble", "{case}/recipe.yaml", "--out", "{tmp}/out"]
    exit: 1                     # the exit code
    stderr: ["race/copy_a.txt", "line 2"]   # substrings of the one error line
    skip:                       # optional: the same args plus --on-error skip
      exit: 0
      contains:                 # file -> substrings it must hold (the ledger)
        "{tmp}/out/manifest.json": ["invalid_utf8"]

Placeholders: ``{case}`` the case folder, ``{tmp}`` a fresh empty folder,
``{data}`` ``tests/data``, ``{readonly}`` a folder nobody may write in (for
root, a path under the read-only ``/sys``).

Every case must exit with its code and print exactly one line on stderr (the
command runs with ``-q``), starting ``error:``, naming what ``stderr`` lists, and
no traceback. Outputs must not be half-written: the output folder of a failed
run is absent or unchanged.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from builder.cli.main import cli

DATA = Path(__file__).parents[1] / "data"
BAD = DATA / "bad"
CASES = sorted(p for p in BAD.iterdir() if (p / "case.yaml").is_file()) if BAD.is_dir() else []
KEYS = {"fault", "setup", "args", "exit", "stderr", "skip", "env"}


def _fill(value, subs: dict[str, str]):
    if isinstance(value, str):
        for key, sub in subs.items():
            value = value.replace("{" + key + "}", sub)
        return value
    if isinstance(value, list):
        return [_fill(v, subs) for v in value]
    if isinstance(value, dict):
        return {_fill(k, subs): _fill(v, subs) for k, v in value.items()}
    return value


def _invoke(args, env=None):
    result = CliRunner().invoke(cli, ["-q", *[str(a) for a in args]], env=env, catch_exceptions=True)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        import traceback

        tb = "".join(traceback.format_exception(result.exception))
        pytest.fail(f"builder {' '.join(map(str, args))} raised instead of printing one line:\n{tb}")
    return result


def _setup(steps, subs):
    for step in steps or []:
        ((verb, arg),) = step.items()
        arg = _fill(arg, subs)
        if verb == "file":
            Path(arg).parent.mkdir(parents=True, exist_ok=True)
            Path(arg).write_text("not a folder\n")
        elif verb == "foreign":
            Path(arg).mkdir(parents=True, exist_ok=True)
            (Path(arg) / "notes.txt").write_text("a file no builder command wrote\n")
        elif verb == "copy":
            src, dst = map(Path, arg)
            (shutil.copytree if src.is_dir() else shutil.copy2)(src, dst)
        elif verb == "builder":
            result = _invoke(arg)
            assert result.exit_code == 0, f"setup step builder {arg} failed: {result.stderr}"
        else:  # pragma: no cover - a typo in a case file
            raise AssertionError(f"unknown setup verb {verb!r}")


def _snapshot(args) -> dict[str, bytes]:
    """The files under every ``--out`` target (to check a failed run left it unchanged)."""
    snap = {}
    for flag, value in zip(args, args[1:]):
        if flag == "--out" and Path(value).is_dir():
            for f in sorted(Path(value).rglob("*")):
                if f.is_file():
                    snap[str(f)] = f.read_bytes()
    return snap


def test_corpus_is_there():
    assert len(CASES) >= 20, f"the bad-input corpus in {BAD} has only {len(CASES)} cases"


@pytest.mark.parametrize("case", CASES, ids=[p.name for p in CASES])
def test_bad_input(case, tmp_path, readonly_dir):
    spec = yaml.safe_load((case / "case.yaml").read_text(encoding="utf-8"))
    assert set(spec) <= KEYS, f"{case}/case.yaml: unknown keys {set(spec) - KEYS}"
    assert spec.get("fault"), f"{case}/case.yaml says nothing about the fault"
    work = tmp_path / "work"
    work.mkdir()
    subs = {"case": str(case), "tmp": str(work), "data": str(DATA), "readonly": str(readonly_dir)}
    _setup(spec.get("setup"), subs)
    args = _fill(spec["args"], subs)
    env = _fill(spec.get("env"), subs)
    before = _snapshot(args)

    result = _invoke(args, env)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.exit_code == spec["exit"], (result.exit_code, result.stderr)
    if spec["exit"] != 0:
        assert len(lines) == 1, f"expected one stderr line, got {len(lines)}:\n{result.stderr}"
        assert lines[0].startswith("error: "), lines[0]
        for needle in _fill(spec.get("stderr", []), subs):
            assert needle in lines[0], f"{needle!r} not in {lines[0]!r}"
        assert _snapshot(args) == before, "a failed run changed its output folder"
    assert "Traceback" not in result.stderr
    leftovers = [p for p in work.rglob(".*") if p.name.endswith((".tmp", ".staging", ".old"))]
    assert not leftovers, f"temporary files left behind: {leftovers}"

    skip = _fill(spec.get("skip"), subs)
    if skip:
        result = _invoke([*args, "--on-error", "skip"], env)
        assert result.exit_code == skip["exit"], (result.exit_code, result.stderr)
        assert "Traceback" not in result.stderr
        for path, needles in (skip.get("contains") or {}).items():
            text = Path(path).read_text(encoding="utf-8")
            for needle in needles:
                assert needle in text, f"{needle!r} not in {path}"
