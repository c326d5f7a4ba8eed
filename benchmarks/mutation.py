"""What a whole ``mutmut run`` will cost, from the stats mutmut measured, before it runs the mutants.

mutmut 3 links each mutant to every test that called its function during its stats run and, for each
mutant, runs those tests fastest first until one fails (``-x``). A killed mutant costs its first failing
test; a surviving one costs every linked test. This script sums the linked test time per mutant (the
cost of the mutant if it survives) and says which tests carry that cost, so a test that is slow and
linked to most mutants can be seen before hours are spent on it.

Run it in the folder that holds ``mutants/`` once mutmut has printed "Running clean tests"::

    python benchmarks/mutation_cost.py [--exclude REGEX] [--top 25]

``--exclude`` drops the tests whose node id matches, as a ``-k`` expression in ``[tool.mutmut]`` would,
and reports how many mutants would be left with no test.
"""
from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from pathlib import Path
from statistics import median


def mutant_names(root: Path) -> list[str]:
    """Every mutant's name, from the ``.meta`` files mutmut writes beside each mutated module."""
    names: list[str] = []
    for meta in sorted(root.rglob("*.meta")):
        names += json.loads(meta.read_text("utf-8"))["exit_code_by_key"]
    return names


def function_of(mutant: str) -> str:
    """The mangled function name a mutant belongs to (``x_f__mutmut_12`` -> ``x_f``), as mutmut keys its stats."""
    return mutant.rsplit("__mutmut_", 1)[0]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mutants", type=Path, default=Path("mutants"), help="mutmut's folder (default: mutants)")
    ap.add_argument("--exclude", default=None, help="drop the tests whose node id matches this regular expression")
    ap.add_argument("--top", type=int, default=25, help="list this many of the costliest tests")
    args = ap.parse_args(argv)

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
