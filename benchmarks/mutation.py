"""A whole ``mutmut run``: what it will cost, where it stands, and its survivors rechecked in a fresh process.

mutmut 3 links each mutant to every test that called its function during its stats run and, for each
mutant, runs those tests fastest first until one fails (``-x``). A killed mutant costs its first failing
test; a surviving one costs every linked test. This script sums the linked test time per mutant (the
cost of the mutant if it survives) and says which tests carry that cost, so a test that is slow and
linked to most mutants can be seen before hours are spent on it.

Run it in the folder that holds ``mutants/`` once mutmut has printed "Running clean tests"::

    python benchmarks/mutation.py cost [--exclude REGEX] [--top 25]
    python benchmarks/mutation.py verdicts
    python benchmarks/mutation.py recheck [PATTERN]

``cost --exclude`` drops the tests whose node id matches, as a ``-k`` expression in ``[tool.mutmut]``
would, and reports how many mutants would be left with no test.

``verdicts`` prints mutmut's verdicts so far per mutated module as a Markdown table (run, killed,
survived, timeouts, no test, not yet checked, and the wall seconds mutmut recorded for them), the table
docs/testing.md gives for a whole run.

``recheck`` runs each surviving mutant (those whose name matches the ``fnmatch`` pattern) against its
linked tests again, in a fresh pytest process instead of a process forked from mutmut's. mutmut forks
every mutant from a process that has run the whole selection, so a value cached there (a
``functools.cache``, a module-level table) is inherited and the mutated code that would compute it again
never runs; a survivor this kills was killed by the tests all along. It prints ``killed`` or
``survived`` per mutant, with the first failing test.
"""
from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from fnmatch import fnmatch
from pathlib import Path
from statistics import median


def metas(root: Path):
    """``(module, meta)`` for every mutated module: the ``.meta`` file mutmut writes beside it, read."""
    for path in sorted(root.rglob("*.py.meta")):
        yield path.relative_to(root).as_posix().removesuffix(".meta"), json.loads(path.read_text("utf-8"))


def mutant_names(root: Path) -> list[str]:
    """Every mutant's name."""
    return [name for _, meta in metas(root) for name in meta["exit_code_by_key"]]


def function_of(mutant: str) -> str:
    """The key of a mutant's function in mutmut's stats (``x_f__mutmut_12`` -> ``x_f``), looked up as mutmut does."""
    from mutmut.utils.format_utils import mangled_name_from_mutant_name

    return mangled_name_from_mutant_name(mutant.replace("__init__.", ""))


def verdicts(root: Path) -> list[dict]:
    """Per mutated module: mutmut's verdict counts and the wall seconds its checked mutants took."""
    from mutmut.stats import status_by_exit_code  # the exit code -> verdict table mutmut itself reports with

    rows = []
    for module, data in metas(root):
        count = Counter(status_by_exit_code[code] for code in data["exit_code_by_key"].values())
        run = sum(n for verdict, n in count.items() if verdict not in ("not checked", "no tests"))
        rows.append({
            "module": module,
            "mutants": sum(count.values()), "run": run, "killed": count["killed"],
            "survived": count["survived"], "timeout": count["timeout"], "no tests": count["no tests"],
            "not checked": count["not checked"], "other": run - count["killed"] - count["survived"] - count["timeout"],
            "seconds": sum(data.get("durations_by_key", {}).values()),
        })
    return rows


def print_verdicts(rows: list[dict]) -> None:
    cols = ["mutants", "run", "killed", "survived", "timeout", "other", "no tests", "not checked"]
    print("| module | " + " | ".join(cols) + " | killed of run | wall s |")
    print("| --- | " + " | ".join("---:" for _ in cols) + " | ---: | ---: |")
    total = Counter()
    for row in rows + [None]:
        if row is None:
            row = {"module": "**all**", **total}
        else:
            total.update({k: row[k] for k in cols + ["seconds"]})
        share = f"{row['killed'] / row['run']:.1%}" if row["run"] else "-"
        print(f"| {row['module']} | " + " | ".join(f"{row[k]:,}" for k in cols)
              + f" | {share} | {row['seconds']:,.0f} |")


def survivors(root: Path, pattern: str = "*") -> list[str]:
    """The surviving mutants (mutmut's exit code 0) whose name matches ``pattern``."""
    return [name for _, meta in metas(root) for name, code in meta["exit_code_by_key"].items()
            if code == 0 and fnmatch(name, pattern)]


def recheck(root: Path, pattern: str, timeout: float) -> int:
    """Each survivor against its linked tests in a fresh pytest process, with mutmut's own pytest options."""
    import os
    import subprocess
    import sys
    import tomllib

    cfg = tomllib.loads((root / "pyproject.toml").read_text("utf-8"))["tool"]["mutmut"]
    stats = json.loads((root / "mutmut-stats.json").read_text("utf-8"))
    duration = stats["duration_by_test"]
    killed = 0
    names = survivors(root, pattern)
    for name in names:
        tests = sorted(stats["tests_by_mangled_function_name"].get(function_of(name), []), key=duration.get)
        if not tests:  # pytest given no test id would run the whole selection
            print(f"no tests\t{name}\tno linked test", flush=True)
            continue
        cmd = [sys.executable, "-m", "pytest", "--rootdir=.", "-x", "-q", "--tb=line",
               *cfg.get("pytest_add_cli_args", []), *tests]
        env = dict(os.environ, MUTANT_UNDER_TEST=name)
        try:
            proc = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True, timeout=timeout)
            failed = [line for line in proc.stdout.splitlines() if line.startswith(("FAILED", "ERROR"))]
            verdict = "killed" if proc.returncode not in (0, 5) else "survived"
            detail = failed[0] if failed else f"{len(tests)} tests passed"
        except subprocess.TimeoutExpired:
            verdict, detail = "timeout", f"over {timeout:.0f} s"
        killed += verdict != "survived"
        print(f"{verdict}\t{name}\t{detail}", flush=True)
    print(f"{killed} of {len(names)} survivors killed in a fresh process")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mutants", type=Path, default=Path("mutants"), help="mutmut's folder (default: mutants)")
    sub = ap.add_subparsers(dest="command", required=True)
    cost = sub.add_parser("cost", help="the linked test time per mutant, from mutmut's stats")
    cost.add_argument("--exclude", default=None, help="drop the tests whose node id matches this regular expression")
    cost.add_argument("--top", type=int, default=25, help="list this many of the costliest tests")
    sub.add_parser("verdicts", help="mutmut's verdicts so far, per module")
    again = sub.add_parser("recheck", help="the survivors against their linked tests in a fresh process")
    again.add_argument("pattern", nargs="?", default="*", help="fnmatch pattern over mutant names (default: all)")
    again.add_argument("--timeout", type=float, default=600.0, help="seconds per mutant (default: 600)")
    args = ap.parse_args(argv)
    if not (args.mutants / "mutmut-stats.json").is_file():
        ap.error(f"{args.mutants}: no mutmut-stats.json; run this where mutmut's mutants/ folder is, "
                 "once mutmut has printed 'Running clean tests'")
    if args.command == "verdicts":
        print_verdicts(verdicts(args.mutants))
        return 0
    if args.command == "recheck":
        return recheck(args.mutants, args.pattern, args.timeout)

    stats = json.loads((args.mutants / "mutmut-stats.json").read_text("utf-8"))
    tests_of, duration = stats["tests_by_mangled_function_name"], stats["duration_by_test"]
    drop = re.compile(args.exclude) if args.exclude else None
    excluded = {t for t in duration if drop and drop.search(t)}

    names = mutant_names(args.mutants)
    cost: list[float] = []
    weight: Counter = Counter()
    no_test = lost = 0
    for name in names:
        linked = tests_of.get(function_of(name), [])
        kept = [t for t in linked if t not in excluded]
        if not linked:
            no_test += 1
        elif not kept:
            lost += 1
        else:
            cost.append(sum(duration[t] for t in kept))
            for t in kept:
                weight[t] += duration[t]

    print(f"{len(names):,} mutants; {no_test:,} with no test"
          + (f"; {lost:,} more with no test once {len(excluded)} tests "
             f"({sum(duration[t] for t in excluded):.0f} s) are excluded" if drop else ""))
    if cost:
        print(f"linked test time if every mutant survived: {sum(cost) / 3600:,.1f} h "
              f"(median {median(cost):.1f} s a mutant, max {max(cost):.1f} s)")
    total = sum(weight.values()) or 1.0
    for test, hours in weight.most_common(args.top):
        print(f"{hours / 3600:7.1f} h  {hours / total:5.1%}  {duration[test]:6.2f} s  {test}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
