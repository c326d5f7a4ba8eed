"""Benchmark: the full `builder qc` gate on 122 variants x 900 questions.

Generates a Belebele-shaped dataset from the shipped samples into a temporary
folder (not committed): 900 questions on 488 passages per variant, passages
of 4-6 sentences drawn from the sample corpora (MCTest, RACE, ReClor, SciQ,
MCScript), questions and options from the samples with shuffled answer
positions. The 121 non-pivot variants carry the same item ids and answer key
as eng_Latn and a per-variant letter substitution of every word (so each
variant's text is different and must be tokenised anew, as real translations
would be). Then runs `builder qc DIR -j 2` as a subprocess several times and
prints the median wall time (and per variant) and the peak resident memory of the run.

    python benchmarks/qc.py [--runs 3] [--jobs 2] [--variants 122] [--questions 900]
    python benchmarks/qc.py --backend ray --variants 1500 --runs 1   # issue 16: a local Ray cluster of --jobs CPUs
    python benchmarks/qc.py --backend ray --address auto              # an existing cluster (`ray start --head`)

Past 30 variants the codes are generated: ``qaa_Latn`` ... ``qtz_Latn`` (ISO
639-3's local-use range), then ``raa_Latn`` ... for the 521st and later.
"""
from __future__ import annotations

import argparse
import random
import resource
import statistics
import string
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

REAL = ["eng_Latn", "deu_Latn", "fra_Latn", "spa_Latn", "ita_Latn", "por_Latn", "nld_Latn", "pol_Latn",
        "ces_Latn", "slk_Latn", "slv_Latn", "hun_Latn", "fin_Latn", "est_Latn", "lvs_Latn", "lit_Latn",
        "ron_Latn", "swe_Latn", "isl_Latn", "cat_Latn", "hau_Latn", "yor_Latn", "swh_Latn", "zul_Latn",
        "tur_Latn", "vie_Latn", "ind_Latn", "zsm_Latn", "tgl_Latn", "som_Latn"]


def variant_codes(n: int) -> list[str]:
    codes = REAL[:n]
    letters = string.ascii_lowercase
    i = 0
    while len(codes) < n:  # ISO 639 qaa-qtz is reserved for local use; past its 520 codes, raa, rab, ...
        code = f"{letters[16 + i // 520]}{letters[i // 26 % 20]}{letters[i % 26]}_Latn"
        if code not in REAL:  # ron_Latn is both a real code above and the 898th made one
            codes.append(code)
        i += 1
    return codes


def sample_pool():
    """Sentences, and (question, options) pairs, from every shipped sample corpus."""
    from builder.readers import get_reader

    src = ROOT / "tests" / "data" / "sources"
    specs = [("mctest", src / "mctest", ["train", "dev"]), ("race", src / "race", None),
             ("reclor", src / "reclor", None), ("sciq", src / "sciq", None), ("mcscript", src / "mcscript", None)]
    import regex

    sentences, questions = [], []
    for name, root, splits in specs:
        for item in get_reader(name)(root, splits):
            sentences += [s for s in regex.split(r"(?<=[.!?])\s+", item.passage) if 20 < len(s) < 300]
            if len(item.options) >= 4 and "_" not in item.question:
                correct = item.correct[0]
                wrong = [o for i, o in enumerate(item.options) if i != correct][:3]
                questions.append((item.question, item.options[correct], wrong))
    return sorted(set(sentences)), questions


def cipher(seed: int):
    rng = random.Random(seed)
    lower = list(string.ascii_lowercase)
    rng.shuffle(lower)
    table = str.maketrans(string.ascii_lowercase + string.ascii_uppercase,
                          "".join(lower) + "".join(lower).upper())
    return lambda text: text.translate(table)


def generate(out: Path, n_variants: int, n_questions: int, seed: int = 0) -> None:
    sentences, questions = sample_pool()
    rng = random.Random(seed)
    n_passages = max(1, round(n_questions * 488 / 900))
    rows = []
    for p in range(n_passages):
        passage = " ".join(rng.sample(sentences, rng.randint(4, 6)))
        for q in range(2 if p < n_questions - n_passages else 1):
            question, right, wrong = rng.choice(questions)
            opts = [right, *wrong]
            rng.shuffle(opts)
            rows.append({"dataset": "bench", "split": "test", "passage_id": f"p{p:04d}",
                         "question_id": f"p{p:04d}-q{q + 1}", "passage": passage, "question": question,
                         **{f"answer{i + 1}": o for i, o in enumerate(opts)}, "correct_answer": right,
                         "correct_answer_num": opts.index(right) + 1, "license": "CC-BY-SA-4.0"})
    base = pd.DataFrame(rows[:n_questions])
    for k, code in enumerate(variant_codes(n_variants)):
        frame = base.copy()
        if k:
            tr = cipher(k)
            for col in ("passage", "question", "answer1", "answer2", "answer3", "answer4", "correct_answer"):
                frame[col] = frame[col].map(tr)
        frame["language"] = code
        (out / code).mkdir(parents=True)
        frame.to_parquet(out / code / "test.parquet", index=False)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--variants", type=int, default=122)
    ap.add_argument("--questions", type=int, default=900)
    ap.add_argument("--backend", choices=["local", "ray"], default="local")
    ap.add_argument("--address", default=None, help="with --backend ray: an existing cluster")
    args = ap.parse_args()
    backend = ["--backend", args.backend] + (["--address", args.address] if args.address else [])
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "belebele-like"
        t0 = time.perf_counter()
        generate(data, args.variants, args.questions)
        print(f"generated {args.variants} variants x {args.questions} questions in "
              f"{time.perf_counter() - t0:.1f} s")
        times, cpus, codes = [], [], set()
        for run in range(args.runs):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            proc = subprocess.run([sys.executable, "-m", "builder", "-q", "qc", str(data), "--out",
                                   str(Path(tmp) / f"report{run}"), "-j", str(args.jobs), *backend],
                                  capture_output=True, text=True)
            times.append(time.perf_counter() - t0)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpus.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
            codes.add(proc.returncode)
            print(f"run {run + 1}: wall {times[-1]:.1f} s, CPU {cpus[-1]:.1f} s (exit {proc.returncode})",
                  flush=True)
            if proc.returncode not in (0, 1):
                print(proc.stderr[-2000:])
                sys.exit(1)
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        with open("/proc/loadavg") if Path("/proc/loadavg").exists() else open(__file__) as fh:
            load = fh.read().split()[0] if Path("/proc/loadavg").exists() else "?"
        print(f"median wall {statistics.median(times):.1f} s ({1000 * statistics.median(times) / args.variants:.0f} "
              f"ms per variant), median CPU {statistics.median(cpus):.1f} s over {args.runs} runs, "
              f"{args.variants} variants, backend {args.backend}, jobs={args.jobs}, exit codes {sorted(codes)}, "
              f"peak RSS of one process {peak:.0f} MiB (Ray's workers may not be counted), "
              f"load average at the end {load}")


if __name__ == "__main__":
    main()
