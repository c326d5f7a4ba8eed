"""Time `builder export` on 205 variants x 1,004 items (SIB-200 scale), with card and lm-eval tasks.

The 205 variant folders are generated in a temporary folder from the 24 shipped
SIB-200 variants (tests/data/sib200/annotated): variant k copies shipped variant
k mod 24 under a distinct FLORES-style code (an ISO 639-3 code + the source's
script), with a variant.json that declares CC-BY-SA-4.0. Each run is the real
console script in a fresh process (start-up included), writing Parquet, README.md
card, LICENSE, ATTRIBUTION.md, manifest.json and 205 lm-eval task YAMLs.

Usage: python benchmarks/export.py [--runs 3] [--variants 205]
Target (issue 6): under 30 s on 2 cores.
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

from schemas.variant import VariantInfo

REPO = Path(__file__).resolve().parents[1]
SHIPPED = REPO / "tests" / "data" / "sib200" / "annotated"
TARGET_S = 30.0


def make_variants(root: Path, n: int) -> int:
    import pycountry

    shipped = sorted(p for p in SHIPPED.iterdir() if p.is_dir())
    used = {p.name for p in shipped}
    langs = [lang.alpha_3 for lang in pycountry.languages if lang.alpha_3.isalpha()]
    rows = 0
    li = 0
    for k in range(n):
        src = shipped[k % len(shipped)]
        if k < len(shipped):
            code = src.name
        else:
            script = src.name.split("_")[1]
            while f"{langs[li]}_{script}" in used:
                li += 1
            code = f"{langs[li]}_{script}"
            li += 1
        used.add(code)
        dst = root / code
        dst.mkdir(parents=True)
        for f in ("train.tsv", "dev.tsv", "test.tsv", "labels.txt"):
            shutil.copyfile(src / f, dst / f)
            if f.endswith(".tsv"):
                rows += sum(1 for _ in open(src / f, encoding="utf-8")) - 1
        VariantInfo(variant=code, license="CC-BY-SA-4.0", source_name="SIB-200").write(dst)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--variants", type=int, default=205)
    args = ap.parse_args()
    builder = shutil.which("builder")
    cmd0 = [builder] if builder else [sys.executable, "-m", "builder"]
    with tempfile.TemporaryDirectory(prefix="bench-export-") as tmp:
        src = Path(tmp) / "variants"
        rows = make_variants(src, args.variants)
        print(f"input: {args.variants} variants, {rows:,} rows ({rows // args.variants:,} per variant)")
        times, cpus = [], []
        for i in range(args.runs):
            out = Path(tmp) / "export"
            r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            proc = subprocess.run(cmd0 + ["-q", "export", str(src), "--out", str(out), "--lm-eval",
                                          "--name", "sib200_bench"], capture_output=True, text=True)
            dt = time.perf_counter() - t0
            if proc.returncode != 0:
                sys.exit(f"export failed: {proc.stderr.strip()}")
            r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
            times.append(dt)
            cpus.append(cpu)
            print(f"run {i + 1}: {dt:.2f} s wall, {cpu:.2f} s CPU  ({proc.stdout.strip()})")
        peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        files = json.loads((Path(tmp) / "export" / "manifest.json").read_text())["files"]
        med = statistics.median(times)
        print(f"median {med:.2f} s wall, {statistics.median(cpus):.2f} s CPU over {args.runs} runs "
              f"(wall min {min(times):.2f}, max {max(times):.2f}); "
              f"{len(files)} files; peak RSS {peak_mib:.0f} MiB; {med / TARGET_S:.2f} x the 30 s target")


if __name__ == "__main__":
    main()
