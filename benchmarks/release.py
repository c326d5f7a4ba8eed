"""Time `builder release` end to end on 205 SIB-style topic variants.

    python benchmarks/release.py                  # 3 fresh releases + 1 resumed run, 2 workers
    python benchmarks/release.py --repeat 1 --jobs 2 --baselines majority,char_tfidf

The variants are the shipped English pivot (tests/data/sib200/annotated/eng_Latn) and 204
variants generated as benchmarks/evaluate.py generates them (variant k copies shipped variant
k mod 24 under a new code, script kept, training rows shuffled by seed k). The release recipe
takes them as existing variant folders, runs the qc gate, the license audit, the baselines and
the export with lm-eval tasks (examples/sib200-release.yaml without the annotation steps, which
have one variant's cost whatever the number of variants).

The generated copies keep the shipped data's quirks (the Tibetan sample's duplicate texts fail the
gate), so the benchmark releases with --allow-failing-gate: every stage runs, the export included.

Reported: the median wall time of a fresh release (the CLI, start-up included), the median
seconds of each stage (from the release's run.json), and the wall time of a second run with
nothing changed (every stage skipped: the cost of hashing the inputs and outputs).
"""
from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from evaluate import generate  # noqa: E402

PIVOT = ROOT / "tests" / "data" / "sib200" / "annotated"

RECIPE = """version: 1
name: sib200-bench
pretty_name: SIB-200-style benchmark release
pivot: eng_Latn
license: CC-BY-SA-4.0
source_name: SIB-200
citation: "Adelani et al. (2024), SIB-200."
variants:
  - dataset: {pivot}
    only: [eng_Latn]
  - dataset: {data}
qc: {{}}
export: {{lm_eval: true}}
baselines: {{names: [{baselines}], split: test}}
"""


def run(recipe: Path, out: Path, jobs: int) -> float:
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "builder", "-q", "release", str(recipe), "--out", str(out),
                           "-j", str(jobs), "--allow-failing-gate"], capture_output=True, text=True)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"release failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return wall


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variants", type=int, default=205, help="variants in all, the pivot included")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--baselines", default="majority,char_tfidf")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench-release-"))
    try:
        data = tmp / "data"
        generate(data, args.variants - 1)
        recipe = tmp / "release.yaml"
        recipe.write_text(RECIPE.format(pivot=PIVOT, data=data, baselines=", ".join(args.baselines.split(","))),
                          encoding="utf-8")
        walls, stages = [], {}
        for i in range(args.repeat):
            out = tmp / f"out{i}"
            walls.append(run(recipe, out, args.jobs))
            for s in json.loads((out / "run.json").read_text(encoding="utf-8"))["stages"]:
                stages.setdefault(s["name"], []).append(s["seconds"])
        resumed = run(recipe, tmp / "out0", args.jobs)
        skipped = json.loads((tmp / "out0" / "run.json").read_text(encoding="utf-8"))["stages"]
        assert all(s["status"] == "skipped" for s in skipped)
        summary = json.loads((tmp / "out0" / "release.json").read_text(encoding="utf-8"))
        failing = ", ".join(f"{f['variant']}:{f['check']}" for f in summary["gate"]["failing"]) or "none"
        print(f"{args.variants} variants, {args.jobs} workers, baselines {args.baselines}; "
              f"gate {summary['gate']['verdict']} (failing: {failing}; exported with --allow-failing-gate)")
        print(f"fresh release: median {statistics.median(walls):.1f} s over {len(walls)} runs "
              f"({', '.join(f'{w:.1f}' for w in walls)}); per variant {statistics.median(walls) / args.variants:.3f} s")
        print(f"second run, nothing changed (every stage skipped): {resumed:.1f} s")
        print("| stage | median s | share |")
        print("| --- | ---: | ---: |")
        total = sum(statistics.median(v) for v in stages.values())
        for name, secs in stages.items():
            m = statistics.median(secs)
            print(f"| {name} | {m:.1f} | {100 * m / total:.0f}% |")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
