"""The one runner of input corpora: ``tests/data/bad/`` (faults) and ``tests/data/hostile/`` (attacks).

Each case is a folder holding a ``case.yaml``::

    fault: what is wrong, in one line (the issue's wording)
    setup:                      # optional, done in order before the command
      - file: "{tmp}/out"       #   an ordinary file at this path
      - foreign: "{tmp}/out"    #   a non-empty folder holding a file no command wrote
      - copy: ["{case}/x", "{tmp}/x"]
      - builder: ["assemble", "..."]   # a command that must succeed first
      - python: "module:function"      # tests/security/<module>.py: function(work, subs) builds inputs
                                       #   a file cannot hold (names with newlines, NUL bytes)
    args: ["assemble", "{case}/recipe.yaml", "--out", "{tmp}/out"]
    exit: 1                     # the exit code
    stderr: ["race/copy_a.txt", "line 2"]   # substrings of the one error line
    skip:                       # optional: the same args plus --on-error skip
      exit: 0
      contains:                 # file -> substrings it must hold (the ledger)
        "{tmp}/out/manifest.json": ["invalid_utf8"]
    env: {GITHUB_ACTIONS: "true"}      # optional environment
    # hostile cases only:
    writes: ["{tmp}/out"]       # where the command may write (default: every --out value)
    absent: ["{tmp}/escaped"]   # paths that must not exist afterwards
    check: "module:function"    # tests/security/<module>.py: function(result, work, subs) inspects the
                                #   outputs with their own parsers (the hostile text arrives inert)

Placeholders: ``{case}`` the case folder, ``{tmp}`` a fresh empty folder,
``{data}`` ``tests/data``, ``{readonly}`` a folder nobody may write in (for
root, a path under the read-only ``/sys``).

Every case must exit with its code, print no traceback and, when it fails,
exactly one line on stderr (the command runs with ``-q``), starting
``error:``, naming what ``stderr`` lists, shorter than :data:`MAX_LINE`
characters. Outputs must not be half-written: the output folder of a failed
run is absent or unchanged, and no temporary file is left. A hostile case
also checks that nothing was written outside ``writes`` and that no line on
stderr carries a control character (an escape sequence, a CR, a NUL).
"""
from __future__ import annotations

import importlib
import shutil
import sys
import unicodedata
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from builder.cli.main import cli

DATA = Path(__file__).parent / "data"
SECURITY = Path(__file__).parent / "security"
KEYS = {"fault", "setup", "args", "exit", "stderr", "skip", "env"}
HOSTILE_KEYS = KEYS | {"writes", "absent", "check"}
#: The longest error line accepted (an alias bomb once made a 39 MB one).
MAX_LINE = 300


def cases(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if (p / "case.yaml").is_file()) if folder.is_dir() else []


def fill(value, subs: dict[str, str]):
    if isinstance(value, str):
        for key, sub in subs.items():
            value = value.replace("{" + key + "}", sub)
        return value
    if isinstance(value, list):
        return [fill(v, subs) for v in value]
    if isinstance(value, dict):
        return {fill(k, subs): fill(v, subs) for k, v in value.items()}
    return value


def invoke(args, env=None):
    result = CliRunner().invoke(cli, ["-q", *[str(a) for a in args]], env=env, catch_exceptions=True)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        import traceback

        tb = "".join(traceback.format_exception(result.exception))
        pytest.fail(f"builder {' '.join(map(str, args))} raised instead of printing one line:\n{tb}")
    return result


def _function(ref: str):
    module, name = ref.split(":")
    if str(SECURITY) not in sys.path:
        sys.path.insert(0, str(SECURITY))
    return getattr(importlib.import_module(module), name)


def _setup(steps, subs, work: Path):
    for step in steps or []:
        ((verb, arg),) = step.items()
        arg = fill(arg, subs)
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
            result = invoke(arg)
            assert result.exit_code == 0, f"setup step builder {arg} failed: {result.stderr}"
        elif verb == "python":
            _function(arg)(work, subs)
        else:  # pragma: no cover - a typo in a case file
            raise AssertionError(f"unknown setup verb {verb!r}")


def _out_targets(args) -> list[str]:
    return [value for flag, value in zip(args, args[1:]) if flag == "--out"]


def _snapshot(args) -> dict[str, bytes]:
    """The files under every ``--out`` target (to check a failed run left it unchanged)."""
    snap = {}
    for value in _out_targets(args):
        if Path(value).is_dir():
            for f in sorted(Path(value).rglob("*")):
                if f.is_file():
                    snap[str(f)] = f.read_bytes()
    return snap


def _tree(root: Path) -> set[str]:
    return {str(p) for p in root.rglob("*")}


def _control_chars(line: str) -> list[str]:
    return [f"U+{ord(ch):04X}" for ch in line if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp")
            and ch != "\t"]


def run_case(case: Path, tmp_path: Path, readonly_dir: Path, *, hostile: bool = False) -> None:
    spec = yaml.safe_load((case / "case.yaml").read_text(encoding="utf-8"))
    allowed = HOSTILE_KEYS if hostile else KEYS
    assert set(spec) <= allowed, f"{case}/case.yaml: unknown keys {set(spec) - allowed}"
    assert spec.get("fault"), f"{case}/case.yaml says nothing about the fault"
    work = tmp_path / "work"
    work.mkdir()
    subs = {"case": str(case), "tmp": str(work), "data": str(DATA), "readonly": str(readonly_dir)}
    _setup(spec.get("setup"), subs, work)
    args = fill(spec["args"], subs)
    env = fill(spec.get("env"), subs)
    before = _snapshot(args)
    tree_before = _tree(tmp_path)

    result = invoke(args, env)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.exit_code == spec["exit"], (result.exit_code, result.stderr)
    if spec["exit"] != 0:
        assert len(lines) == 1, f"expected one stderr line, got {len(lines)}:\n{result.stderr[:2000]}"
        assert lines[0].startswith("error: "), lines[0][:MAX_LINE]
        shown = lines[0].replace(str(work), "{tmp}")  # the test's own folder is not the message's length
        assert len(shown) < MAX_LINE, f"an error line of {len(shown)} characters: {shown[:MAX_LINE]}…"
        for needle in fill(spec.get("stderr", []), subs):
            assert needle in lines[0], f"{needle!r} not in {lines[0]!r}"
        assert _snapshot(args) == before, "a failed run changed its output folder"
    assert "Traceback" not in result.stderr
    leftovers = [p for p in work.rglob(".*") if p.name.endswith((".tmp", ".staging", ".old"))]
    assert not leftovers, f"temporary files left behind: {leftovers}"

    if hostile:
        writes = [Path(p) for p in fill(spec.get("writes"), subs) or _out_targets(args)]
        new = sorted(_tree(tmp_path) - tree_before)
        outside = [p for p in new if not any(Path(p) == w or w in Path(p).parents for w in writes)]
        assert not outside, f"written outside {[str(w) for w in writes]}: {outside}"
        for path in fill(spec.get("absent", []), subs):
            assert not Path(path).exists(), f"{path} was written"
        for line in result.stderr.splitlines() + result.stdout.splitlines():
            assert not _control_chars(line), f"a control character {_control_chars(line)} printed: {line!r}"
        if spec.get("check"):
            _function(spec["check"])(result, work, subs)

    skip = fill(spec.get("skip"), subs)
    if skip:
        result = invoke([*args, "--on-error", "skip"], env)
        assert result.exit_code == skip["exit"], (result.exit_code, result.stderr)
        assert "Traceback" not in result.stderr
        for path, needles in (skip.get("contains") or {}).items():
            text = Path(path).read_text(encoding="utf-8")
            for needle in needles:
                assert needle in text, f"{needle!r} not in {path}"
