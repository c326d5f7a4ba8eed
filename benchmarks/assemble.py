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
``--scale N`` multiplies every size by N (RACE: N times the articles; the
one-file corpora: N times the records in each file).

Usage: python benchmarks/assemble.py [--runs 3] [--scale 1] [--jobs N] [--keep DIR]
Prints the median wall time and two memory peaks of `builder assemble`:
``peak RSS`` is the largest single process of its tree (wait4's ru_maxrss:
the main process or one of its workers, read by a small launcher process:
a child forked straight from this script would count this script's own
memory, the generated corpus, as its peak), ``peak PSS`` the largest sum, over
the whole tree, of the proportional set size (shared pages counted once),
sampled every 20 ms from /proc.
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
import threading
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


SCALE = [1]  # set by --scale


def sized(**sizes):
    """``sizes`` with every number multiplied by the scale."""
    k = SCALE[0]
    return {name: tuple(v * k for v in value) if isinstance(value, tuple) else value * k
            for name, value in sizes.items()}


def race(root: Path, t: Text) -> None:
    for split, (articles, questions) in sized(train=(25137, 87866), dev=(1389, 4887), test=(1407, 4934)).items():
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
    for split, n in sized(train=11679, valid=1000, test=1000).items():
        rows = [{"question": t.question(blank=0.05), "distractor3": t.option(), "distractor1": t.option(),
                 "distractor2": t.option(), "correct_answer": t.option(),
                 "support": t.passage(1, 30) if t.r.random() < 0.9 else ""} for _ in range(n)]
        (folder / f"{split}.json").write_text(json.dumps(rows, indent=4), encoding="utf-8")


def multirc(root: Path, t: Text) -> None:
    folder = root / "splitv2"
    folder.mkdir(parents=True)
    for name, (paras, questions) in {"train_456-fixedIds.json": sized(n=(456, 5131))["n"],
                                     "dev_83-fixedIds.json": sized(n=(83, 953))["n"]}.items():
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
    for split, n in sized(train=300, dev=50, test=150).items():
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
    for split, (texts, questions) in sized(train=(2500, 14191), dev=(355, 2020), test=(632, 3610)).items():
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
    for split, n in sized(train=4638, val=500, test=1000).items():
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


def _tree(pid: int) -> list[int]:
    """``pid`` and its descendants (from /proc/PID/task/TID/children)."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        for task in Path(f"/proc/{p}/task").glob("*/children"):
            try:
                todo.extend(int(c) for c in task.read_text().split())
            except OSError:
                pass
    return out


def _pss_kib(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


#: Runs argv[2:], writes its tree's wait4 ru_maxrss (KiB) to argv[1], exits with its code. Forked from this
#: script it is small when it forks the command, so the command's ru_maxrss is the command's own.
_LAUNCHER = ("import os, subprocess, sys\n"
             "p = subprocess.Popen(sys.argv[2:])\n"
             "_, status, usage = os.wait4(p.pid, 0)\n"
             "open(sys.argv[1], 'w').write(str(usage.ru_maxrss))\n"
             "sys.exit(os.waitstatus_to_exitcode(status))\n")


def measure(cmd: list[str], *, cwd=None, env=None, sample: bool = True) -> dict:
    """Run ``cmd``; its wall and CPU seconds, peak RSS (largest process, MiB) and peak PSS (tree sum, MiB).

    The PSS comes from reading every process's ``smaps_rollup`` 50 times a
    second, which costs CPU that a command using every core loses (about 0.3 s
    of `builder assemble`'s 3.2 s on 2 cores); ``sample=False`` leaves it out
    (``pss`` is then None), for the runs whose time is reported.
    """
    peak = [0]
    with tempfile.TemporaryFile("w+") as out_fh, tempfile.TemporaryFile("w+") as err_fh:
        start = time.perf_counter()
        rss_fh = tempfile.NamedTemporaryFile("w+", delete=False)
        rss_fh.close()
        proc = subprocess.Popen([sys.executable, "-c", _LAUNCHER, rss_fh.name, *cmd], stdout=out_fh, stderr=err_fh,
                                cwd=cwd, env=env)
        stop = threading.Event()

        def sample_pss():
            while not stop.wait(0.02):
                peak[0] = max(peak[0], sum(_pss_kib(p) for p in _tree(proc.pid)))

        sampler = threading.Thread(target=sample_pss, daemon=True) if sample else None
        if sampler:
            sampler.start()
        _, status, usage = os.wait4(proc.pid, 0)  # the child's rusage: maxrss of the largest process of its tree
        wall = time.perf_counter() - start
        stop.set()
        if sampler:
            sampler.join()
        proc.returncode = os.waitstatus_to_exitcode(status)
        out_fh.seek(0)
        err_fh.seek(0)
        stdout, stderr = out_fh.read(), err_fh.read()
    with open(rss_fh.name) as fh:
        maxrss = int(fh.read().strip() or 0)  # KiB, of the command's tree (the launcher's own peak left out)
    os.unlink(rss_fh.name)
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "rss": maxrss / 1024,
            "pss": peak[0] / 1024 if sample else None, "stdout": stdout, "stderr": stderr,
            "returncode": proc.returncode}


def builder_command(root: Path, out: Path, jobs: int | None = None) -> list[str]:
    exe = shutil.which("builder") or str(Path(sys.executable).with_name("builder"))
    return [exe, "assemble", str(root / "recipe.yaml"), "--out", str(out), *(["-j", str(jobs)] if jobs else [])]


def run_once(root: Path, out: Path, jobs: int | None = None, *, sample: bool = True) -> dict:
    """One `builder assemble` child (see :func:`measure`)."""
    got = measure(builder_command(root, out, jobs), sample=sample)
    if got["returncode"] != 0:
        raise SystemExit(f"builder assemble failed ({got['returncode']}): {got['stderr']}")
    return got


def generate_at(root: Path, scale: int) -> None:
    """Generate the corpora at ``scale`` into ``root`` unless a recipe is there already."""
    if (root / "recipe.yaml").is_file():
        made = int((root / "scale.txt").read_text()) if (root / "scale.txt").is_file() else 1
        if made != scale:
            raise SystemExit(f"error: {root} holds a corpus of scale {made}, not {scale}")
        return
    SCALE[0] = scale
    start = time.perf_counter()
    generate(root)
    (root / "scale.txt").write_text(f"{scale}\n")
    print(f"generated the corpora (scale {scale}) in {time.perf_counter() - start:.1f} s under {root}",
          file=sys.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--scale", type=int, default=1, help="multiply every corpus size by this")
    parser.add_argument("--jobs", type=int, help="builder assemble -j (default: its own, the usable CPUs)")
    parser.add_argument("--keep", type=Path, help="generate into this folder and keep it")
    args = parser.parse_args()
    root = args.keep or Path(tempfile.mkdtemp(prefix="bench-assemble-"))
    try:
        generate_at(root, args.scale)
        runs = []
        for i in range(args.runs):
            got = run_once(root, root / "out", args.jobs)
            runs.append(got)
            print(f"run {i + 1}: {got['wall']:.1f} s wall, {got['cpu']:.1f} s CPU, peak RSS {got['rss']:.0f} MiB, "
                  f"peak PSS {got['pss']:.0f} MiB", file=sys.stderr)
        print(runs[-1]["stdout"])
        load = os.getloadavg()[0]
        print(f"builder assemble, scale {args.scale}, median of {args.runs}: "
              f"{statistics.median(r['wall'] for r in runs):.1f} s wall, "
              f"{statistics.median(r['cpu'] for r in runs):.1f} s CPU (user+sys, all processes), "
              f"peak RSS {max(r['rss'] for r in runs):.0f} MiB (largest process), "
              f"peak PSS {max(r['pss'] for r in runs):.0f} MiB (all processes) (max over runs); "
              f"cores: {os.cpu_count()}, load average at the end: {load:.1f}")
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
