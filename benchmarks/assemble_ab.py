"""`builder assemble` from two or more source trees, run alternately: which code is faster on a noisy machine.

Each tree is a checkout or a `git archive` of the project (``git archive REV | tar -x -C /tmp/A``); it is
put first on ``PYTHONPATH`` for its runs, so ``python -m builder`` imports that tree's code. The trees run
in turn, ``--runs`` times each, on the corpus of ``benchmarks/assemble.py --keep DIR``, into a fresh
output folder each time. Alternating spreads the machine's drift over every tree alike; the medians and
minima of wall time (``time.perf_counter``) and CPU time (the children's rusage) are printed per tree.

Usage:
  python benchmarks/assemble.py --runs 1 --keep /tmp/asmc        # the corpus, once
  git archive HEAD~3 | (mkdir -p /tmp/A && tar -x -C /tmp/A)
  python benchmarks/assemble_ab.py /tmp/asmc /tmp/A . [--runs 7] [-- -j 2]
"""
from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path, help="a folder made by benchmarks/assemble.py --keep")
    parser.add_argument("trees", type=Path, nargs="+", help="source trees of the project to compare")
    parser.add_argument("--runs", type=int, default=5)
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    args, extra = parser.parse_args(argv[:cut]), argv[cut + 1:]  # after --: more arguments for builder assemble
    recipe = (args.corpus / "recipe.yaml").resolve()
    if not recipe.is_file():
        raise SystemExit(f"error: {recipe} not found (make it with benchmarks/assemble.py --keep {args.corpus})")
    times: dict[Path, list[tuple[float, float]]] = {tree.resolve(): [] for tree in args.trees}
    scratch = Path(tempfile.mkdtemp(prefix="assemble-ab-"))
    try:
        for _ in range(args.runs):
            for tree in args.trees:
                tree = tree.resolve()
                out = scratch / "out"
                shutil.rmtree(out, ignore_errors=True)
                env = {**os.environ, "PYTHONPATH": str(tree)}
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                start = time.perf_counter()
                done = subprocess.run([sys.executable, "-m", "builder", "assemble", str(recipe), "--out", str(out),
                                       *extra], env=env, cwd=scratch,  # not the caller's folder: -m puts it first on sys.path
                                      stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
                wall = time.perf_counter() - start
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                if done.returncode != 0:
                    raise SystemExit(f"error: {tree}: builder assemble failed ({done.returncode}): {done.stderr[-2000:]}")
                cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
                times[tree].append((wall, cpu))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    for tree, runs in times.items():
        walls, cpus = [w for w, _ in runs], [c for _, c in runs]
        print(f"{tree}: wall median {statistics.median(walls):.2f} s (min {min(walls):.2f}), "
              f"CPU median {statistics.median(cpus):.2f} s (min {min(cpus):.2f}), {len(runs)} runs")


if __name__ == "__main__":
    main()
