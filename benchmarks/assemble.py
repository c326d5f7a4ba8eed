"""Time `builder assemble` on a full-scale corpus generated in the six native formats.

Sizes follow the published corpora: RACE 27,933 articles / 97,687 questions
(train 25,137 / 87,866; dev 1,389 / 4,887; test 1,407 / 4,934); SciQ 11,679 +
1,000 + 1,000; MultiRC splitv2 456 + 83 paragraphs (~6,000 questions);
MCTest mc500 300 / 50 / 150 stories; MCScript2.0 3,487 texts / 19,821
questions (train 2,500 / 14,191; dev 355 / 2,020; test 632 / 3,610); ReClor
4,638 + 500 (+ 1,000 test). Text is random words from a fixed vocabulary,
with the proportions that exercise every filter: ~30% RACE fill-in-the-blank,
passages of 5-35 sentences, empty SciQ supports, MultiRC questions with 1-3
correct answers. The recipe takes train and dev as Belebele's code does.

Usage: python benchmarks/assemble.py [--runs 3] [--keep DIR]
Prints the median wall time and peak RSS (of the `builder` child, via wait4).
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

WORDS = [f"w{i}" for i in range(1500)] + "the a of to and in is was he she they it that for on with as".split() * 20


class Text:
    def __init__(self, seed: int):
        self.r = random.Random(seed)

    def sentence(self, lo=6, hi=18, end="."):
        words = self.r.choices(WORDS, k=self.r.randint(lo, hi))
        return " ".join(words).capitalize() + end

    def passage(self, lo=5, hi=35):
        return " ".join(self.sentence() for _ in range(self.r.randint(lo, hi)))

    def question(self, blank=0.0):
        if self.r.random() < blank:
            return self.sentence(end="").replace(" ", " _ ", 1) + " ."
        return self.sentence(4, 10, "?")

    def option(self):
        return " ".join(self.r.choices(WORDS, k=self.r.randint(1, 5)))


def race(root: Path, t: Text) -> None:
    for split, (articles, questions) in {"train": (25137, 87866), "dev": (1389, 4887), "test": (1407, 4934)}.items():
        per = [questions // articles + (i < questions % articles) for i in range(articles)]
        for i, nq in enumerate(per):
            level = "middle" if i % 4 == 0 else "high"
            folder = root / "RACE" / split / level
            folder.mkdir(parents=True, exist_ok=True)
            doc = {"answers": [t.r.choice("ABCD") for _ in range(nq)],
                   "options": [[t.option() for _ in range(4)] for _ in range(nq)],
                   "questions": [t.question(blank=0.3) for _ in range(nq)],
                   "article": t.passage(5, 30), "id": f"{level}{i}.txt"}
            (folder / f"{i}.txt").write_text(json.dumps(doc), encoding="utf-8")


def sciq(root: Path, t: Text) -> None:
    folder = root / "SciQ dataset-2 3"
    folder.mkdir(parents=True)
    for split, n in {"train": 11679, "valid": 1000, "test": 1000}.items():
        rows = [{"question": t.question(blank=0.05), "distractor3": t.option(), "distractor1": t.option(),
                 "distractor2": t.option(), "correct_answer": t.option(),
                 "support": t.passage(1, 30) if t.r.random() < 0.9 else ""} for _ in range(n)]
        (folder / f"{split}.json").write_text(json.dumps(rows, indent=4), encoding="utf-8")


def multirc(root: Path, t: Text) -> None:
    folder = root / "splitv2"
    folder.mkdir(parents=True)
    for name, (paras, questions) in {"train_456-fixedIds.json": (456, 5131), "dev_83-fixedIds.json": (83, 953)}.items():
        data = []
        for p in range(paras):
            sents = [t.sentence() for _ in range(t.r.randint(6, 30))]
            text = "".join(f"<b>Sent {i + 1}: </b>{s}<br>" for i, s in enumerate(sents))
            qs = []
            for q in range(questions // paras + (p < questions % paras)):
                k = t.r.randint(2, 8)
                right = set(t.r.sample(range(k), t.r.choice([1, 1, 1, 2, 3][: k])))
                qs.append({"question": t.question(), "sentences_used": [0], "idx": str(q), "multisentence": False,
                           "answers": [{"text": t.option(), "isAnswer": i in right, "scores": {}} for i in range(k)]})
            data.append({"id": f"News/bench-{p}.txt", "paragraph": {"text": text, "questions": qs}})
        (folder / name).write_text(json.dumps({"data": data}), encoding="utf-8")


def mctest(root: Path, t: Text) -> None:
    folder = root / "MCTest"
    folder.mkdir(parents=True)
    for split, n in {"train": 300, "dev": 50, "test": 150}.items():
        lines, keys = [], []
        for i in range(n):
            story = "\\newline".join(t.passage(3, 8) for _ in range(3))
            fields = [f"mc500.{split}.{i}", "Author: bench;Work Time(s): 1;Qual. score: 1;Creativity Words: x", story]
            for q in range(4):
                fields += [f"{t.r.choice(['one', 'multiple'])}: {t.question()}", *(t.option() for _ in range(4))]
            lines.append("\t".join(fields))
            keys.append("\t".join(t.r.choice("ABCD") for _ in range(4)))
        (folder / f"mc500.{split}.tsv").write_bytes(("\r\n".join(lines) + "\r\n").encode("utf-8"))
        (folder / f"mc500.{split}.ans").write_bytes(("\r\n".join(keys) + "\r\n").encode("utf-8"))


def mcscript(root: Path, t: Text) -> None:
    root.mkdir(parents=True)
    for split, (texts, questions) in {"train": (2500, 14191), "dev": (355, 2020), "test": (632, 3610)}.items():
        out = ['<?xml version="1.0" ?>', '<!DOCTYPE data SYSTEM "MCScript.dtd">', "<data>"]
        for i in range(texts):
            out.append(f'  <instance id="{i}" scenario="bench">')
            out.append(f"    <text>{escape(t.passage(5, 30))}</text>")
            out.append("    <questions>")
            for q in range(questions // texts + (i < questions % texts)):
                right = t.r.randint(0, 1)
                out.append(f'      <question id="{q}" text={quoteattr(t.question())} type="text">')
                for a in range(2):
                    out.append(f'        <answer correct="{a == right}" id="{a}" text={quoteattr(t.option())}/>')
                out.append("      </question>")
            out.append("    </questions>")
            out.append("  </instance>")
        out.append("</data>")
        (root / f"{split}-data.xml").write_text("\n".join(out) + "\n", encoding="utf-8")


def reclor(root: Path, t: Text) -> None:
    root.mkdir(parents=True)
    for split, n in {"train": 4638, "val": 500, "test": 1000}.items():
        rows = [{"context": t.passage(3, 8), "question": t.question(), "answers": [t.option() for _ in range(4)],
                 "label": t.r.randint(0, 3), "id_string": f"{split}_{i}"} for i in range(n)]
        if split == "test":
            for row in rows:
                del row["label"]
        (root / f"{split}.json").write_text(json.dumps(rows), encoding="utf-8")


RECIPE = """\
name: bench-belebele-train
seed: 0
outputs: {formats: [parquet, jsonl, tsv]}
sources:
  - {name: RACE, reader: race, path: race, splits: {train: train, dev: dev},
     filters: [fill_in_blank, too_many_sentences, empty_passage, empty_option, duplicate_question]}
  - {name: SciQ, reader: sciq, path: sciq, splits: {train: train, valid: dev},
     filters: [empty_passage, fill_in_blank, too_many_sentences, empty_option, duplicate_question]}
  - {name: MultiRC, reader: multirc, path: multirc, splits: {train: train, dev: dev},
     filters: [sample_four_options, too_many_sentences, empty_passage, empty_option, duplicate_question]}
  - {name: MCTest_500, reader: mctest, path: mctest, splits: {train: train, dev: dev},
     filters: [too_many_sentences, empty_passage, empty_option, duplicate_question]}
  - {name: MCScript2.0, reader: mcscript, path: mcscript, splits: {train: train},
     filters: [too_many_sentences, empty_passage, empty_option, duplicate_question, complete_options]}
  - {name: ReClor, reader: reclor, path: reclor, splits: {train: train, val: dev},
     filters: [empty_passage, empty_option, duplicate_question]}
"""


def generate(root: Path) -> None:
    for i, make in enumerate((race, sciq, multirc, mctest, mcscript, reclor)):
        make(root / make.__name__, Text(i))
    (root / "recipe.yaml").write_text(RECIPE, encoding="utf-8")


def run_once(root: Path, out: Path) -> tuple[float, float, float, str]:
    """One `builder assemble` child: (wall seconds, CPU seconds, peak RSS MiB, stdout)."""
    exe = shutil.which("builder") or str(Path(sys.executable).with_name("builder"))
    with tempfile.TemporaryFile("w+") as out_fh, tempfile.TemporaryFile("w+") as err_fh:
        start = time.perf_counter()
        proc = subprocess.Popen([exe, "assemble", str(root / "recipe.yaml"), "--out", str(out)],
                                stdout=out_fh, stderr=err_fh)
        _, status, usage = os.wait4(proc.pid, 0)  # this child's own rusage (peak RSS)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out_fh.seek(0)
        err_fh.seek(0)
        stdout, stderr = out_fh.read(), err_fh.read()
    if proc.returncode != 0:
        raise SystemExit(f"builder assemble failed ({proc.returncode}): {stderr}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="generate into this folder and keep it")
    args = parser.parse_args()
    root = args.keep or Path(tempfile.mkdtemp(prefix="bench-assemble-"))
    try:
        if not (root / "recipe.yaml").is_file():
            start = time.perf_counter()
            generate(root)
            print(f"generated the corpora in {time.perf_counter() - start:.1f} s under {root}", file=sys.stderr)
        walls, cpus, peaks = [], [], []
        for i in range(args.runs):
            wall, cpu, peak, stdout = run_once(root, root / "out")
            walls.append(wall)
            cpus.append(cpu)
            peaks.append(peak)
            print(f"run {i + 1}: {wall:.1f} s wall, {cpu:.1f} s CPU, peak RSS {peak:.0f} MiB", file=sys.stderr)
        print(stdout)
        load = os.getloadavg()[0]
        print(f"builder assemble, median of {args.runs}: {statistics.median(walls):.1f} s wall, "
              f"{statistics.median(cpus):.1f} s CPU (user+sys), peak RSS {max(peaks):.0f} MiB (max over runs); "
              f"cores: {os.cpu_count()}, load average at the end: {load:.1f}")
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
