"""Time `builder evaluate baselines` on 205 topic variants generated from the 24 shipped SIB-200 variants.

    python benchmarks/evaluate.py                     # fast baselines (3 runs) + MLP sample
    python benchmarks/evaluate.py --part fast --repeat 3
    python benchmarks/evaluate.py --part mlp-sample --sample 12
    python benchmarks/evaluate.py --part mlp-full     # the MLP on all 205 variants (long)
    python benchmarks/evaluate.py --part fast --backend ray --variants 1500 --repeat 1   # issue 16: local Ray
    python benchmarks/evaluate.py --part fast --backend ray --address auto             # an existing cluster

Variant k (0..204, or 0..N-1 with ``--variants N``) copies shipped variant
k mod 24 under a new FLORES-style code (``qaa_Latn``, ``qab_Deva``, ...,
``raa_...`` from the 677th; the script is kept) with its training rows
shuffled by seed k, so the cost mirrors SIB-200's mix of scripts. Data goes to
a temporary folder and is removed afterwards.

Reported: wall-clock medians of the CLI (including start-up and imports), the
CPU seconds of the worker processes (user + sys; CPU / 2 is the wall time on
two otherwise idle cores), and for the MLP the per-variant cost measured in
process on a sample of variants, extrapolated to 205 variants on 2 workers.
"""
from __future__ import annotations

import argparse
import os
import random
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

from schemas.io import read_sib_tsv, write_sib_tsv  # noqa: E402

SHIPPED = ROOT / "tests" / "data" / "sib200" / "annotated"
N_VARIANTS = 205


def variant_code(k: int, script: str) -> str:
    return f"{chr(113 + k // 676)}{chr(97 + k // 26 % 26)}{chr(97 + k % 26)}_{script}"


def generate(dest: Path, n: int = N_VARIANTS) -> list[tuple[str, str]]:
    """Write n variants; return (new code, source variant) pairs."""
    sources = sorted(p.name for p in SHIPPED.iterdir() if p.is_dir())
    made = []
    for k in range(n):
        src = sources[k % len(sources)]
        code = variant_code(k, src.split("_")[1])
        for split in ("train", "dev", "test"):
            rows = read_sib_tsv(SHIPPED / src / f"{split}.tsv")
            if split == "train":
                random.Random(k).shuffle(rows)
            write_sib_tsv(dest / code / f"{split}.tsv", rows)
        made.append((code, src))
    return made


BACKEND: list[str] = []  # --backend/--address options of every run (set by main)


def run_cli(args: list[str]) -> tuple[float, float]:
    """Wall seconds and child CPU seconds (user + sys) of one `builder evaluate baselines` run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    exe = Path(sys.executable).with_name("builder")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "builder"]
    proc = subprocess.run([*cmd, "-q", "evaluate", "baselines", *args, *BACKEND], capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        sys.exit(f"builder evaluate baselines failed ({proc.returncode}): {proc.stderr.strip()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def part_fast(data: Path, out: Path, repeat: int, jobs: int, n: int = N_VARIANTS) -> None:
    walls, cpus = [], []
    for i in range(repeat):
        wall, cpu = run_cli([str(data), "--baseline", "majority,char_tfidf", "--jobs", str(jobs),
                             "--out", str(out / f"fast{i}")])
        walls.append(wall)
        cpus.append(cpu)
        print(f"  run {i + 1}: wall {wall:.1f} s, CPU {cpu:.1f} s", flush=True)
    wall = statistics.median(walls)
    print(f"majority + char_tfidf, {n} variants, --jobs {jobs} {' '.join(BACKEND)}: median wall {wall:.1f} s "
          f"({1000 * wall / n:.0f} ms per variant), median CPU {statistics.median(cpus):.1f} s (CPU/2 = "
          f"{statistics.median(cpus) / 2:.1f} s on 2 idle cores; Ray's workers may not be counted), "
          f"{1000 * statistics.median(cpus) / n:.0f} ms CPU per variant")


def part_mlp_sample(data: Path, made: list[tuple[str, str]], sample: int) -> None:
    from threadpoolctl import threadpool_limits

    from schemas.dataset import load_dataset_dir
    from builder.evaluation.topic_baselines import fit_predict

    # one generated variant per shipped source, the first `sample` sources
    picked, seen = [], set()
    for code, src in made:
        if src not in seen and len(picked) < sample:
            picked.append((code, src))
            seen.add(src)
    ds = load_dataset_dir(data, variants=[c for c, _ in picked])
    cost: dict[str, float] = {}
    with threadpool_limits(1):
        for code, src in picked:
            t = ds.tables[code]
            w0, c0 = time.perf_counter(), time.process_time()
            fit_predict("mlp", t["train"]["text"], t["train"]["category"], t["dev"]["text"], t["dev"]["category"],
                        t["test"]["text"], seed=0)
            wall, cpu = time.perf_counter() - w0, time.process_time() - c0
            cost[src] = cpu
            print(f"  {code} (from {src}): wall {wall:.1f} s, CPU {cpu:.1f} s", flush=True)
    per = list(cost.values())
    # extrapolate with the sampled sources' mean for the sources not sampled
    mean = statistics.mean(per)
    total = sum(cost.get(src, mean) for _, src in made)
    print(f"MLP per variant (CPU, 1 thread): median {statistics.median(per):.1f} s, mean {mean:.1f} s, "
          f"min {min(per):.1f} s, max {max(per):.1f} s over {len(per)} variants")
    print(f"MLP extrapolated to {N_VARIANTS} variants: {total:.0f} CPU s = {total / 2 / 60:.1f} min on 2 workers")


def part_mlp_full(data: Path, out: Path, jobs: int, n: int = N_VARIANTS) -> None:
    wall, cpu = run_cli([str(data), "--baseline", "mlp", "--jobs", str(jobs), "--out", str(out / "mlp")])
    print(f"MLP, {n} variants, --jobs {jobs} {' '.join(BACKEND)}: wall {wall / 60:.1f} min "
          f"({wall / n:.1f} s per variant), CPU {cpu / 60:.1f} min")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--part", choices=["all", "fast", "mlp-sample", "mlp-full"], default="all")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--sample", type=int, default=12, help="variants timed for the MLP extrapolation")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--variants", type=int, default=N_VARIANTS, help="generated variants")
    ap.add_argument("--backend", choices=["local", "ray"], default="local")
    ap.add_argument("--address", default=None, help="with --backend ray: an existing cluster")
    args = ap.parse_args()
    BACKEND[:] = ["--backend", args.backend] + (["--address", args.address] if args.address else [])
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    tmp = Path(tempfile.mkdtemp(prefix="bench-evaluate-"))
    try:
        t0 = time.perf_counter()
        made = generate(tmp / "data", args.variants)
        print(f"generated {len(made)} variants in {time.perf_counter() - t0:.1f} s ({os.cpu_count()} CPUs visible)")
        if args.part in ("all", "fast"):
            part_fast(tmp / "data", tmp / "out", args.repeat, args.jobs, args.variants)
        if args.part in ("all", "mlp-sample"):
            part_mlp_sample(tmp / "data", made, args.sample)
        if args.part == "mlp-full":
            part_mlp_full(tmp / "data", tmp / "out", args.jobs, args.variants)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
