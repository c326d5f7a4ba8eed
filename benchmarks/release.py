"""Time `builder release` end to end as users run it: 205 SIB-style variants plus 23 romanized.

    python benchmarks/release.py                  # 3 fresh releases + 1 run with nothing changed, 2 workers
    python benchmarks/release.py --repeat 1 --natives 40 --romanized 5     # a quick look

The variants are the shipped English pivot (tests/data/sib200/annotated/eng_Latn) and the
generated ones of benchmarks/evaluate.py (variant k copies shipped variant k mod 24 under a new
code, script kept, training rows shuffled by seed k). ``--romanized`` of the generated variants
whose script has a romanizer (the Brahmic scripts through indic-transliteration; Tibetan, two of
them, through uroman, as bod_Tibt and dzo_Tibt are in the real release) are romanized by one
``romanize: {from: [...]}`` entry. The recipe is the release with its real defaults: the default
qc gate, the license audit, the default baselines (``baselines: {}``: majority and char_linear
for topic data, ``builder.release.plan.DEFAULT_BASELINES``) and the export with lm-eval tasks.

The generated copies keep the shipped data's quirks (the Tibetan sample's duplicate texts fail the
gate), so the benchmark releases with --allow-failing-gate: every stage runs, the export included.

Reported, medians over the fresh runs: the wall time and the CPU seconds (user + system of the
command and every process it started, from getrusage) of the whole release, each stage's wall and
CPU seconds from the release's run.json, and the CPU and wall of a second run with nothing changed
(every stage skipped).
"""
from __future__ import annotations

import argparse
import json
import resource
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

from builder.variants.romanize import ROMANIZATION  # noqa: E402

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
{romanize}qc: {{}}
export: {{lm_eval: true}}
baselines: {baselines}
"""


def romanizable(made: list[tuple[str, str]], count: int, uroman: int = 2) -> list[str]:
    """``count`` generated codes to romanize: ``uroman`` Tibetan ones, the rest Brahmic, in order."""
    tibetan = [c for c, _ in made if c.endswith("_Tibt")][:uroman]
    brahmic = [c for c, _ in made if c.split("_")[1] in ROMANIZATION and c.split("_")[1] not in ("Tibt", "Arab")]
    return (tibetan + brahmic)[:count]


def run(recipe: Path, out: Path, jobs: int) -> tuple[float, float]:
    """Wall and CPU seconds (user + system, the command and every process it started) of one release."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "builder", "-q", "release", str(recipe), "--out", str(out),
                           "-j", str(jobs), "--allow-failing-gate"], capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        sys.exit(f"release failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--natives", type=int, default=205, help="variants as found, the pivot included")
    ap.add_argument("--romanized", type=int, default=23, help="generated variants romanized (2 of them Tibetan)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--baselines", default="", help="comma-separated names (default: the release's defaults)")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench-release-"))
    try:
        data = tmp / "data"
        made = generate(data, args.natives - 1)
        codes = romanizable(made, args.romanized)
        romanize = f"  - romanize: {{from: [{', '.join(codes)}]}}\n" if codes else ""
        baselines = f"{{names: [{', '.join(args.baselines.split(','))}]}}" if args.baselines else "{}"
        recipe = tmp / "release.yaml"
        recipe.write_text(RECIPE.format(pivot=PIVOT, data=data, romanize=romanize, baselines=baselines),
                          encoding="utf-8")
        walls, cpus, stages = [], [], {}
        for i in range(args.repeat):
            out = tmp / f"out{i}"
            wall, cpu = run(recipe, out, args.jobs)
            walls.append(wall)
            cpus.append(cpu)
            for s in json.loads((out / "run.json").read_text(encoding="utf-8"))["stages"]:
                group = s["name"].split("-")[0] if s["name"].startswith("romanize-") else s["name"]
                row = stages.setdefault(group, {"wall": [0.0] * args.repeat, "cpu": [0.0] * args.repeat, "n": 0})
                row["wall"][i] += s["seconds"] or 0.0
                row["cpu"][i] += s.get("cpu_seconds") or 0.0
                row["n"] += 1 if i == 0 else 0
        resumed_wall, resumed_cpu = run(recipe, tmp / "out0", args.jobs)
        skipped = json.loads((tmp / "out0" / "run.json").read_text(encoding="utf-8"))["stages"]
        assert all(s["status"] == "skipped" for s in skipped), [s for s in skipped if s["status"] != "skipped"]
        summary = json.loads((tmp / "out0" / "release.json").read_text(encoding="utf-8"))
        failing = ", ".join(sorted({f"{f['check']}" for f in summary["gate"]["failing"]})) or "none"
        med = statistics.median
        print(f"{args.natives} variants + {len(codes)} romanized ({sum(c.endswith('_Tibt') for c in codes)} "
              f"through uroman), {args.jobs} workers, baselines {args.baselines or 'the defaults'}; gate "
              f"{summary['gate']['verdict']} (failing checks: {failing}; exported with --allow-failing-gate)")
        print(f"fresh release: median {med(cpus):.1f} CPU s ({', '.join(f'{c:.1f}' for c in cpus)}), "
              f"{med(walls):.1f} s wall ({', '.join(f'{w:.1f}' for w in walls)}) over {len(walls)} runs")
        print(f"second run, nothing changed (every stage skipped): {resumed_cpu:.2f} CPU s, {resumed_wall:.2f} s wall")
        print("| stage | stages | median wall s | median CPU s | CPU share |")
        print("| --- | ---: | ---: | ---: | ---: |")
        total = sum(med(v["cpu"]) for v in stages.values()) or 1.0
        for name, row in stages.items():
            print(f"| {name} | {row['n']} | {med(row['wall']):.1f} | {med(row['cpu']):.1f} | "
                  f"{100 * med(row['cpu']) / total:.0f}% |")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
