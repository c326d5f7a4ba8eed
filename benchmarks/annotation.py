"""Benchmark: agreement on 10,000 items x 4 annotators (15 labels), bootstrap included.

Generates a long-form CSV in a temporary folder (not committed) with a
SIB-200-like skew (one label dominates), then times

1. ``agreement_report`` in-process (libraries already imported): reading
   excluded, all measures + 1,000 bootstrap resamples;
2. the same with reading the CSV and writing JSON, Markdown and PNG;
3. the whole ``builder annotate agreement`` command as a fresh process
   (Python start-up and imports of statsmodels, scikit-learn, matplotlib included),
   and, for scale, a bare process that only imports those libraries.

Prints the median of ``--repeats`` runs for each and the peak memory of the
in-process run. Usage: ``python benchmarks/annotation.py [--repeats 5]``.
"""
from __future__ import annotations

import argparse
import csv
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

N_ITEMS, N_ANNOTATORS, N_LABELS, N_BOOT = 10_000, 4, 15, 1_000


def make_data(path: Path, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    prior = np.r_[0.3, np.full(N_LABELS - 1, 0.7 / (N_LABELS - 1))]
    truth = rng.choice(N_LABELS, size=N_ITEMS, p=prior)
    noise = rng.choice(N_LABELS, size=(N_ITEMS, N_ANNOTATORS), p=prior)
    codes = np.where(rng.random((N_ITEMS, N_ANNOTATORS)) < 0.6, truth[:, None], noise)
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["item_id", "annotator", "label"])
        for i in range(N_ITEMS):
            for a in range(N_ANNOTATORS):
                w.writerow([i, f"ann{a + 1}", f"label{codes[i, a]:02d}"])


CPU: dict[int, list[float]] = {}


def timed(fn, repeats: int) -> list[float]:
    """Wall times of ``repeats`` calls; CPU times (own + children, user + sys) go to ``CPU[id(list)]``."""
    times, cpu = [], []
    for _ in range(repeats):
        c0 = time.process_time() + _children_cpu()
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
        cpu.append(time.process_time() + _children_cpu() - c0)
    CPU[id(times)] = cpu
    return times


def _children_cpu() -> float:
    import resource

    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def _fmt(times: list[float]) -> str:
    return f"{statistics.median(times):.2f} s wall, {statistics.median(CPU[id(times)]):.2f} s CPU"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()

    from annotation.agreement import agreement_report
    from annotation.importer import read_annotations
    from annotation.report import write_report

    tmp = Path(tempfile.mkdtemp(prefix="bench-annotation-"))
    try:
        data = tmp / "annotations.csv"
        make_data(data)
        ann = read_annotations(data)
        agreement_report(ann, n_resamples=10)  # warm up imports

        compute = timed(lambda: agreement_report(ann, n_resamples=N_BOOT), args.repeats)

        def full():
            a = read_annotations(data)
            write_report(agreement_report(a, n_resamples=N_BOOT), tmp / "out")

        with_io = timed(full, args.repeats)
        exe = shutil.which("builder") or str(Path(sys.executable).parent / "builder")
        cmd = [exe, "annotate", "agreement", str(data), "--n-boot", str(N_BOOT), "--out", str(tmp / "cli")]
        cli = timed(lambda: subprocess.run(cmd, check=True, capture_output=True), args.repeats)
        imports = [sys.executable, "-c", "import statsmodels.stats.inter_rater, sklearn.metrics, krippendorff, "
                   "matplotlib.figure, builder.cli.main, annotation.importer"]
        bare = timed(lambda: subprocess.run(imports, check=True, capture_output=True), args.repeats)

        tracemalloc.start()
        rep = agreement_report(ann, n_resamples=N_BOOT)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        rep_boot0 = timed(lambda: agreement_report(ann, n_resamples=0), args.repeats)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    print(f"agreement, {N_ITEMS} items x {N_ANNOTATORS} annotators, {N_LABELS} labels, {N_BOOT} bootstrap "
          f"resamples; median of {args.repeats} runs")
    print(f"  measures only (no bootstrap), in-process : {_fmt(rep_boot0)}")
    print(f"  measures + bootstrap, in-process         : {_fmt(compute)} "
          f"(peak traced memory {peak / 2**20:.0f} MiB)")
    print(f"  read CSV + measures + bootstrap + report : {_fmt(with_io)}")
    print(f"  `builder annotate agreement` process     : {_fmt(cli)}")
    print(f"    of which Python start + library imports: {_fmt(bare)}")
    print(f"  values: fleiss {rep['fleiss_kappa']:.4f}, alpha {rep['krippendorff_alpha']:.4f}, "
          f"AC1 {rep['gwet_ac1']:.4f}, alpha CI {rep['ci']['krippendorff_alpha']}")


if __name__ == "__main__":
    main()
