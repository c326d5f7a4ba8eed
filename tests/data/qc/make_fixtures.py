"""Write the crafted question sets of tests/data/qc/ (run: python tests/data/qc/make_fixtures.py).

Each set isolates one failure mode of `builder qc`; `clean` passes every gate.
Passages describe four people (name, city, job, birth year). The questions
can only be answered by reasoning, not by word matching: "Who is the oldest?"
(options: the four names) and "Which city is mentioned first?" (options: the
four cities), each option occurring once per passage, so the overlap features
of correct and wrong options have the same distribution.

* clean/          train/dev/test, balanced positions; passes everything.
* copy_passage/   the correct option copies a passage span, wrong options are
                  words from outside it: the overlap t-tests fail.
* longest/        the clean test set with the correct option made the longest.
* always_a/       the clean test set with the correct answer always at A.
* leakage/        the clean train/test with one test passage also in train.
* pivot/          variant folders: eng_Latn (pivot), fra_Latn with one answer
                  moved and one item lost, hin_Deva written in Latin letters.
* broken/         a JSONL file with a malformed line (unreadable input).
* bad_config.yaml a config with an unknown key (unreadable config).

Output is deterministic (seeded random.Random); JSONL with sorted keys.
"""
from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

HERE = Path(__file__).parent
LICENSE = "CC-BY-SA-4.0"
NAMES = ["Anna", "Ben", "Carla", "Dmitri", "Eve", "Farid", "Greta", "Hiro", "Ines", "Jonas", "Kwame", "Lena",
         "Mateo", "Nadia", "Oskar", "Priya", "Quentin", "Rosa", "Sven", "Tariq", "Ulla", "Victor", "Wanjiru",
         "Ximena", "Yusuf", "Zofia", "Aleksander", "Bo", "Cheng", "Dolores", "Emeka", "Fatou", "Gunnar",
         "Hana", "Ibrahim", "Jae", "Kirsten", "Luis", "Mei", "Njeri"]
CITIES = ["Lagos", "Oslo", "Lima", "Hanoi", "Quito", "Dakar", "Riga", "Perth", "Cairo", "Tunis", "Kyoto",
          "Porto", "Accra", "Minsk", "Sofia", "Turin", "Osaka", "Dhaka", "Bergen", "Cusco", "Malmo", "Nairobi",
          "Santiago", "Windhoek", "Brisbane", "Montreal", "Valencia", "Marseille"]
JOBS = ["baker", "nurse", "pilot", "teacher", "plumber", "chemist", "farmer", "lawyer", "tailor", "painter",
        "welder", "dentist", "librarian", "carpenter", "translator", "surveyor", "gardener", "journalist"]
VERBS = [("lives in", "works as a"), ("stays in", "is employed as a"), ("resides in", "earns money as a"),
         ("settled in", "trained as a")]
FILLER = ["apple", "river", "window", "orange", "silver", "garden", "pencil", "thunder", "marble", "velvet",
          "candle", "meadow", "copper", "lantern", "harbor", "violin", "saddle", "glacier", "pepper", "canyon"]


def _passage(rng: random.Random):
    people = rng.sample(NAMES, 4)
    cities = rng.sample(CITIES, 4)
    years = rng.sample(range(1940, 2006), 4)
    lines = []
    for name, city, year in zip(people, cities, years):
        live, work = rng.choice(VERBS)
        lines.append(f"{name} {live} {city} and {work} {rng.choice(JOBS)}; {name} arrived in {year}.")
    return " ".join(lines), people, cities, years


def _options(rng: random.Random, values: list[str], answer: str, position: int | None = None):
    opts = values[:]
    rng.shuffle(opts)
    if position is not None:
        opts.remove(answer)
        opts.insert(position - 1, answer)
    return opts, opts.index(answer) + 1


def _item(split, pid, qid, passage, question, opts, num, language="eng_Latn", dataset="qc-crafted"):
    return {"dataset": dataset, "split": split, "language": language, "passage_id": pid, "question_id": qid,
            "passage": passage, "question": question, "answer1": opts[0], "answer2": opts[1],
            "answer3": opts[2], "answer4": opts[3], "correct_answer": opts[num - 1], "correct_answer_num": num,
            "license": LICENSE}


def clean_items(rng: random.Random, split: str, n_passages: int, start: int = 0, positions=None):
    """Two questions per passage; ``positions`` cycles the correct position (balanced)."""
    rows = []
    for p in range(n_passages):
        pid = f"{split}-p{start + p:03d}"
        passage, people, cities, years = _passage(rng)
        oldest = people[years.index(min(years))]
        pos = None if positions is None else positions[(2 * p) % len(positions)]
        opts, num = _options(rng, people, oldest, pos)
        rows.append(_item(split, pid, f"{pid}-q1", passage, "Who is the oldest of them?", opts, num))
        pos = None if positions is None else positions[(2 * p + 1) % len(positions)]
        opts, num = _options(rng, cities, cities[0], pos)
        rows.append(_item(split, pid, f"{pid}-q2", passage, "Which city is mentioned first?", opts, num))
    return rows


def copy_items(rng: random.Random, n_passages: int):
    rows = []
    for p in range(n_passages):
        pid = f"test-p{p:03d}"
        passage, *_ = _passage(rng)
        words = passage.replace(";", "").replace(".", "").split()
        for q in range(2):
            start = rng.randrange(0, len(words) - 4)
            answer = " ".join(words[start:start + 4])
            wrong = []
            for _ in range(3):  # 0-2 passage words among filler words: overlap varies, stays lower
                k = rng.randrange(3)
                picked = rng.sample(words, k) + rng.sample(FILLER, 4 - k)
                rng.shuffle(picked)
                wrong.append(" ".join(picked))
            opts, num = _options(rng, [answer, *wrong], answer, 1 + (2 * p + q) % 4)
            rows.append(_item("test", pid, f"{pid}-q{q + 1}", passage, "Which statement is true?", opts, num))
    return rows


def write_split_files(folder: Path, rows: list[dict], *, layout="assembled"):
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    by_split: dict[str, list[dict]] = {}
    for r in rows:
        by_split.setdefault(r["split"], []).append(r)
    for split, part in by_split.items():
        text = "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in part)
        (folder / f"{split}.jsonl").write_text(text, encoding="utf-8", newline="\n")


def main() -> None:
    balanced = [1, 2, 3, 4]
    rng = random.Random(5)
    train = clean_items(rng, "train", 60, positions=balanced)
    dev = clean_items(rng, "dev", 20, positions=balanced)
    test = clean_items(rng, "test", 50, positions=balanced)
    write_split_files(HERE / "clean", train + dev + test)

    write_split_files(HERE / "copy_passage", copy_items(random.Random(6), 50))

    longest = []
    for r in test:
        r = dict(r)
        key = f"answer{r['correct_answer_num']}"
        r[key] = r[key] + " of course"
        r["correct_answer"] = r[key]
        longest.append(r)
    write_split_files(HERE / "longest", longest)

    always_a = []
    for r in test:
        r = dict(r)
        num = r["correct_answer_num"]
        opts = [r[f"answer{i}"] for i in range(1, 5)]
        opts.insert(0, opts.pop(num - 1))
        r.update({f"answer{i + 1}": o for i, o in enumerate(opts)}, correct_answer_num=1)
        always_a.append(r)
    write_split_files(HERE / "always_a", always_a)

    leaked = [dict(r, split="train", passage_id="train-leak", question_id=f"train-leak-q{i}")
              for i, r in enumerate(test[:2], 1)]
    write_split_files(HERE / "leakage", train + leaked + test)

    pivot = HERE / "pivot"
    if pivot.exists():
        shutil.rmtree(pivot)
    eng = test[:40]
    fra = []
    for i, r in enumerate(eng):
        r = dict(r, language="fra_Latn")
        if i == 3:  # the translation moved the correct answer
            opts = [r[f"answer{k}"] for k in range(1, 5)]
            num = r["correct_answer_num"]
            new = num % 4 + 1
            opts[num - 1], opts[new - 1] = opts[new - 1], opts[num - 1]
            r.update({f"answer{k + 1}": o for k, o in enumerate(opts)}, correct_answer_num=new)
        if i == 7:  # and lost an item
            continue
        fra.append(r)
    hin = [dict(r, language="hin_Deva") for r in eng]  # Latin letters under a Devanagari code
    for code, rows in (("eng_Latn", eng), ("fra_Latn", fra), ("hin_Deva", hin)):
        write_split_files(pivot / code, rows)

    broken = HERE / "broken"
    write_split_files(broken, test[:4])
    with open(broken / "test.jsonl", "a", encoding="utf-8") as fh:
        fh.write('{"passage": "unterminated\n')
    (HERE / "bad_config.yaml").write_text(
        "version: 2\ndecision:\n  alpha: 0.05\n  alpah: 0.01\n", encoding="utf-8")


if __name__ == "__main__":
    main()
