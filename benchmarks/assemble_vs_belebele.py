"""`builder assemble` and Belebele's own `assemble_training_set.py`, side by side on the same generated corpus.

Generates the full-scale corpus of `benchmarks/assemble.py` (or reuses one
with `--keep`), lays it out as Belebele's script expects its downloads
(`downloaded_files/` with empty archive files and the unpacked folders, linked
to the corpus), and runs, alternately, `--runs` times each:

* Belebele's script, from the path given with `--belebele` (never copied into
  this project), with the offline NLTK stand-in beside it (`offline-shim/`,
  or `--shim DIR`) on PYTHONPATH, as its README says;
* `builder assemble` with the benchmark recipe (`--formats` chooses the
  recipe's output formats: by default the benchmark's `parquet, jsonl, tsv`;
  `tsv` writes what Belebele's script writes, plus the Parquet file and the
  ledger that are always written).

It prints the median wall time and CPU time of each (runs without the PSS
sampler, which takes CPU from a command that uses every core), the peak RSS
(largest process, of every run) and the peak PSS (sum over the process tree,
sampled in one more run of each, after the timed ones), the ratio of the median wall times
(Belebele / builder; the target is at least 20), the parse floor (every file the
recipe reads, read and parsed with the standard library alone in one process:
what no assembler can go below) and builder's ratio to it, and the kept questions per
source and split of both, read from their outputs. The two must agree but for
the filters the toolkit adds, which `docs/assemble.md` lists; rows that differ
are marked and explained from builder's ledger (its drops by reason).

Usage:
  python benchmarks/assemble_vs_belebele.py --belebele ../shared/reference/belebele/assemble_training_set.py \\
      [--runs 3] [--jobs N] [--formats parquet,jsonl,tsv] [--keep DIR]

Needs `nltk` (Belebele's script imports it; `pip install nltk`) and pandas.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import assemble as bench  # noqa: E402  (benchmarks/assemble.py: the corpus generator and the measurements)

#: Belebele's download layout: archive name -> (unpacked folder, where it lies in the generated corpus).
LAYOUT = {
    "mutlirc-v2.zip": ("splitv2", "multirc/splitv2"),
    "MCScript-2.0.zip": ("mcscript", "mcscript"),
    "MCTest.zip": ("MCTest", "mctest/MCTest"),
    "RACE.tar.gz": ("RACE", "race/RACE"),
    "SciQ.zip": ("SciQ dataset-2 3", "sciq/SciQ dataset-2 3"),
    "reclor_data.zip": ("reclor", "reclor"),
}

#: Belebele's `dataset` names -> the benchmark recipe's source names.
SOURCES = {"sciQ": "SciQ", "MCScript2.0": "MCScript2.0", "MCTest_500": "MCTest_500", "MultiRC": "MultiRC",
           "RACE": "RACE", "ReClor": "ReClor"}


def downloads(corpus: Path, folder: Path) -> Path:
    """Belebele's `--downloads_path` for ``corpus``: empty archives and links to the unpacked folders."""
    files = folder / "downloaded_files"
    files.mkdir(parents=True, exist_ok=True)
    for archive, (unpacked, inside) in LAYOUT.items():
        (files / archive).touch()
        link = files / unpacked
        if not link.exists():
            link.symlink_to((corpus / inside).resolve(), target_is_directory=True)
    return folder


def belebele_counts(tsv: Path) -> Counter:
    """Kept questions per (source, split) in Belebele's output TSV."""
    import pandas as pd

    frame = pd.read_csv(tsv, sep="\t", index_col=0, keep_default_na=False, dtype=str)
    return Counter((SOURCES.get(d, d), s) for d, s in zip(frame["dataset"], frame["split"]))


def builder_counts(out: Path) -> tuple[Counter, dict]:
    """Kept questions per (source, split), and drops per (source, split) by reason, from builder's manifest."""
    man = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    kept = Counter({(c["source"], c["split"]): c["kept"] for c in man["counts"]})
    drops: dict = {}
    for d in man["dropped"]:
        drops.setdefault((d["source"], d["split"]), {})[d["reason"]] = d["count"]
    return kept, drops


#: Reasons of filters that Belebele's script does not have (docs/assemble.md, "Differences from Belebele's script").
ADDED = ("correct_text_repeated", "empty_option", "duplicate_question", "empty_question", "cannot_complete_options")


def compare(theirs: Counter, ours: Counter, drops: dict) -> list[str]:
    """The per-source table; a row whose counts differ is explained by our added filters or marked."""
    lines = [f"{'source':<12} {'split':<6} {'Belebele':>9} {'builder':>9}  note"]
    for key in sorted(set(theirs) | set(ours)):
        a, b = theirs.get(key, 0), ours.get(key, 0)
        added = {r: n for r, n in drops.get(key, {}).items() if r in ADDED}
        if a == b:
            note = ""
        elif a - b == sum(added.values()):
            note = "differs by the added filters: " + ", ".join(f"{r} {n}" for r, n in sorted(added.items()))
        else:
            note = f"DIFFERS by {a - b} (added filters: {added or 'none'})"
        lines.append(f"{key[0]:<12} {key[1]:<6} {a:>9} {b:>9}  {note}")
    return lines


#: The files the benchmark recipe reads (its splits), by how the standard library parses them.
FLOOR = {"json_files": ["race/RACE/train/*/*.txt", "race/RACE/dev/*/*.txt"],
         "json": ["sciq/SciQ dataset-2 3/train.json", "sciq/SciQ dataset-2 3/valid.json",
                  "multirc/splitv2/train_456-fixedIds.json", "multirc/splitv2/dev_83-fixedIds.json",
                  "reclor/train.json", "reclor/val.json"],
         "tsv": ["mctest/MCTest/mc500.train.tsv", "mctest/MCTest/mc500.train.ans",
                 "mctest/MCTest/mc500.dev.tsv", "mctest/MCTest/mc500.dev.ans"],
         "xml": ["mcscript/train-data.xml"]}


def parse_floor(root: Path) -> dict:
    """Read and parse every file the recipe reads with the standard library alone, in this process, one core:
    ``json.loads`` of each RACE file and of each JSON file, ``csv`` of MCTest's TSVs, ``xml.etree`` of
    MCScript's XML. No record is built and nothing is filtered or written: what no assembler can go below.
    Returns wall and CPU seconds, the bytes read and the files."""
    import csv
    import time
    import xml.etree.ElementTree as ET

    start, cpu = time.perf_counter(), time.process_time()
    size = files = 0
    for kind, patterns in FLOOR.items():
        for pattern in patterns:
            for path in sorted(root.glob(pattern)):
                data = path.read_bytes()
                size, files = size + len(data), files + 1
                text = data.decode("utf-8")
                if kind in ("json_files", "json"):
                    json.loads(text)
                elif kind == "tsv":
                    list(csv.reader(text.splitlines(), delimiter="\t"))
                else:
                    ET.fromstring(data)
    return {"wall": time.perf_counter() - start, "cpu": time.process_time() - cpu, "bytes": size, "files": files}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--belebele", type=Path, required=True, help="path of Belebele's assemble_training_set.py")
    parser.add_argument("--shim", type=Path, help="the offline NLTK stand-in (default: offline-shim/ beside it)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--jobs", type=int, help="builder assemble -j (default: the usable CPUs)")
    parser.add_argument("--formats", default="parquet,jsonl,tsv", help="the recipe's outputs.formats")
    parser.add_argument("--keep", type=Path, help="generate the corpus into this folder and keep it")
    args = parser.parse_args()
    script = args.belebele.resolve()
    shim = (args.shim or script.parent / "offline-shim").resolve()
    if not script.is_file() or not shim.is_dir():
        raise SystemExit(f"error: need Belebele's script ({script}) and its offline shim ({shim})")
    try:
        import nltk  # noqa: F401
    except ImportError:
        raise SystemExit("error: Belebele's script needs nltk: pip install nltk") from None
    root = args.keep or Path(tempfile.mkdtemp(prefix="bench-vs-belebele-"))
    work = Path(tempfile.mkdtemp(prefix="belebele-run-"))
    try:
        bench.generate_at(root, 1)
        recipe = bench.RECIPE.replace("outputs: {formats: [parquet, jsonl, tsv]}",
                                      f"outputs: {{formats: [{', '.join(args.formats.split(','))}]}}")
        (work / "recipe.yaml").write_text(recipe, encoding="utf-8")
        for name in ("race", "sciq", "multirc", "mctest", "mcscript", "reclor"):
            (work / name).symlink_to((root / name).resolve(), target_is_directory=True)
        dl = downloads(root, work / "downloads")
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(shim), os.environ.get("PYTHONPATH")]))}
        theirs, ours, floors = [], [], []

        def belebele(sample: bool) -> dict:
            got = bench.measure([sys.executable, str(script), "--downloads_path", ".", "--output_file", "out.tsv"],
                                cwd=dl, env=env, sample=sample)
            if got["returncode"] != 0:
                raise SystemExit(f"Belebele's script failed ({got['returncode']}): {got['stderr'][-2000:]}")
            return got

        for i in range(args.runs):  # timed without the PSS sampler, which takes CPU from a command using every core
            floors.append(parse_floor(root))
            theirs.append(belebele(False))
            ours.append(bench.run_once(work, work / "out", args.jobs, sample=False))
            print(f"run {i + 1}: Belebele {theirs[-1]['wall']:.1f} s, builder {ours[-1]['wall']:.1f} s wall, "
                  f"parse floor {floors[-1]['wall']:.1f} s", file=sys.stderr)
        memory = {"Belebele": belebele(True), "builder": bench.run_once(work, work / "out", args.jobs, sample=True)}
        print(f"memory run: Belebele {memory['Belebele']['wall']:.1f} s, builder {memory['builder']['wall']:.1f} s "
              "wall, with the PSS sampler", file=sys.stderr)
        print(f"corpus: {root} (scale 1); builder formats: {args.formats}; cores: {os.cpu_count()}")
        print(f"{'':<10} {'wall (median)':>14} {'CPU (median)':>13} {'peak RSS':>10} {'peak PSS':>10}")
        for name, runs in (("Belebele", theirs), ("builder", ours)):
            print(f"{name:<10} {statistics.median(r['wall'] for r in runs):>12.1f} s "
                  f"{statistics.median(r['cpu'] for r in runs):>11.1f} s "
                  f"{max(r['rss'] for r in [*runs, memory[name]]):>6.0f} MiB {memory[name]['pss']:>6.0f} MiB")
        ratio = statistics.median(r["wall"] for r in theirs) / statistics.median(r["wall"] for r in ours)
        floor = statistics.median(f["wall"] for f in floors)
        print(f"{'parse floor':<10} {floor:>12.1f} s {statistics.median(f['cpu'] for f in floors):>11.1f} s "
              f"(standard library only, one core: {floors[0]['files']} files, {floors[0]['bytes'] / 1e6:.0f} MB)")
        print(f"wall-time ratio Belebele / builder: {ratio:.1f}x (target: at least 20x); "
              f"builder / parse floor: {statistics.median(r['wall'] for r in ours) / floor:.2f}x, "
              f"Belebele / parse floor: {statistics.median(r['wall'] for r in theirs) / floor:.1f}x; "
              f"load average at the end: {os.getloadavg()[0]:.1f}")
        kept, drops = builder_counts(work / "out")
        print("\nkept questions per source and split:")
        print("\n".join(compare(belebele_counts(dl / "out.tsv"), kept, drops)))
    finally:
        shutil.rmtree(work, ignore_errors=True)
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
