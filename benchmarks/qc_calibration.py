"""Calibration of the `builder qc` decision rule: false alarms on clean releases, power on biased ones.

Simulates translated releases (a pivot and its translations, every variant
carrying the same questions and answer key, as in Belebele) with a generator
of its own, runs the gate (`qc.gate.run_gate`, shipped defaults) on each, and
counts what fails. Nothing is written to disk; releases run in parallel.

The generator. Words are pseudo-words built from syllables; each variant has
its own lexicon (two forms per word: a translation picks the second form with
probability 0.1 per occurrence, so overlap is not preserved exactly). A
release holds `--passages` passages of 60-100 words (sentences of 8-15 words,
Zipf-weighted vocabulary) with two questions each. A question has 6-10 words,
half of them from its passage. Each of its four options has 2 + Poisson(2)
words, each taken from the passage with probability 0.5 and from the
vocabulary otherwise; the correct position is uniform. In a clean release the
correct and the wrong options are drawn in exactly the same way. The biases:

* ``overlap``: the correct option takes each word from the passage with
  probability 0.7 (the wrong ones: 0.5);
* ``giveaway``: one fixed word is inserted into 25% of the correct options;
* ``copy``: 25% of the correct options are a verbatim span of the passage.

Scenarios (20 variants each, pivot ``eng_Latn``):

* ``clean``: no bias anywhere (`--releases` releases);
* ``translation``: 6 of the 19 translations carry a bias their translation
  added (two of each kind), the pivot and 13 translations are clean
  (`--biased-releases` releases);
* ``pivot``: the pivot carries a bias, which all 19 translations inherit
  (one release per kind, `--pivot-releases` rounds).

The old rule (every test at p < 0.05 on its own, the probe also above 0.30)
is evaluated on the same results for comparison. "Weakest detection" is,
over the biased variants of a row, the largest of each variant's smallest
adjusted p-value among its tests above their floor: how close the hardest
case came to passing (it fails below 0.05).

More clean generators (issue 28: vary option lengths, vocabulary, the
options' overlap with the passage and split sizes; right and wrong answers
always drawn the same way) are in `benchmarks/qc_generators.py`; choose one
with ``--generator`` (``wide``, ``copy``, ``sparse``; ``base`` is the one above).

    python benchmarks/qc_calibration.py [--releases 40] [--biased-releases 6] [--pivot-releases 1]
                                         [--variants 20] [--questions 360] [--jobs 2] [--seed 0]
                                         [--generator base|wide|copy|sparse]
"""
from __future__ import annotations

import argparse
import multiprocessing
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.append(str(Path(__file__).resolve().parent))
import qc_generators as generators  # noqa: E402  (benchmarks/qc_generators.py)

CODES = ["eng_Latn", "deu_Latn", "fra_Latn", "spa_Latn", "ita_Latn", "por_Latn", "nld_Latn", "pol_Latn",
         "ces_Latn", "hun_Latn", "fin_Latn", "est_Latn", "ron_Latn", "swe_Latn", "cat_Latn", "hau_Latn",
         "yor_Latn", "swh_Latn", "tur_Latn", "ind_Latn", "vie_Latn", "zul_Latn", "som_Latn", "tgl_Latn"]
SYLLABLES = [c + v for c in "bdfgklmnprstvz" for v in "aeiou"]
VOCAB = 3000          # word ids; id 0 is the give-away word
P_PASSAGE = 0.5       # share of an option's words taken from the passage (clean)
P_BIASED = 0.7        # ... for the correct option under the overlap bias (issue 13)
GIVEAWAY_SHARE = 0.25  # correct options with the give-away word
COPY_SHARE = 0.25     # correct options copied from the passage
NOISE = 0.1           # a translation picks a word's second form
KINDS = ("overlap", "giveaway", "copy")


# --- the generator -----------------------------------------------------------------------------------------

def lexicon(rng: np.random.Generator, forms: int = 2, size: int | None = None) -> list[list[str]]:
    """``size`` (default ``VOCAB``) words, each in ``forms`` distinct spellings, all distinct."""
    seen: set[str] = set()
    out = []
    for _ in range(size or VOCAB):
        spellings = []
        while len(spellings) < forms:
            word = "".join(rng.choice(SYLLABLES, size=rng.integers(2, 5)))
            if word not in seen:
                seen.add(word)
                spellings.append(word)
        out.append(spellings)
    return out


def zipf_weights() -> np.ndarray:
    w = 1.0 / np.arange(1, VOCAB)  # ids 1..VOCAB-1; 0 is reserved
    return w / w.sum()


def draw_option(rng, passage: np.ndarray, p_passage: float, weights) -> list[int]:
    n = 2 + rng.poisson(2)
    from_passage = rng.random(n) < p_passage
    words = np.where(from_passage, rng.choice(passage, size=n), rng.choice(VOCAB - 1, size=n, p=weights) + 1)
    return words.tolist()


def pivot_items(rng, n_passages: int, weights) -> list[dict]:
    """The release's questions as word ids: passage sentences, question, four options, correct index."""
    items = []
    for p in range(n_passages):
        sentences, total = [], rng.integers(60, 101)
        while sum(map(len, sentences)) < total:
            sentences.append((rng.choice(VOCAB - 1, size=rng.integers(8, 16), p=weights) + 1).tolist())
        flat = np.array([w for s in sentences for w in s])
        for q in range(2):
            n_q = rng.integers(6, 11)
            question = np.where(rng.random(n_q) < 0.5, rng.choice(flat, size=n_q),
                                rng.choice(VOCAB - 1, size=n_q, p=weights) + 1).tolist()
            options = [draw_option(rng, flat, P_PASSAGE, weights) for _ in range(4)]
            items.append({"pid": f"p{p:03d}", "qid": f"p{p:03d}-q{q + 1}", "sentences": sentences, "flat": flat,
                          "question": question, "options": options, "correct": int(rng.integers(4))})
    return items


def add_bias(items: list[dict], kind: str, rng, weights, gen: dict | None = None) -> list[dict]:
    """A copy of ``items`` whose correct options carry the bias ``kind`` (``gen``: a generator of issue 28)."""
    out = []
    for it in items:
        it = dict(it, options=[list(o) for o in it["options"]])
        c = it["correct"]
        if kind == "overlap":
            it["options"][c] = (draw_option(rng, it["flat"], P_BIASED, weights) if gen is None
                                else generators.draw_option(rng, it["flat"], gen, weights, P_BIASED))
        elif kind == "giveaway" and rng.random() < GIVEAWAY_SHARE:
            o = it["options"][c]
            o.insert(int(rng.integers(len(o) + 1)), 0)
        elif kind == "copy" and rng.random() < COPY_SHARE:
            n = len(it["options"][c])
            start = int(rng.integers(len(it["flat"]) - n))
            it["options"][c] = it["flat"][start:start + n].tolist()
        out.append(it)
    return out


def render(items: list[dict], code: str, lex: list[list[str]], rng, noise: float) -> pd.DataFrame:
    """One variant's rows: the ids written in its lexicon (second form with probability ``noise``)."""
    def words(ids):
        pick = rng.random(len(ids)) < noise
        return [lex[i][int(s)] for i, s in zip(ids, pick)]

    rows, passages = [], {}
    for it in items:
        if it["pid"] not in passages:
            passages[it["pid"]] = " ".join(" ".join(words(s)).capitalize() + "." for s in it["sentences"])
        opts = [" ".join(words(o)) for o in it["options"]]
        rows.append({"dataset": "calibration", "split": "test", "language": code, "passage_id": it["pid"],
                     "question_id": it["qid"], "passage": passages[it["pid"]],
                     "question": " ".join(words(it["question"])).capitalize() + "?",
                     **{f"answer{k + 1}": o for k, o in enumerate(opts)}, "correct_answer": opts[it["correct"]],
                     "correct_answer_num": it["correct"] + 1, "license": "CC-BY-SA-4.0"})
    return pd.DataFrame(rows)


def release(seed: int, n_variants: int, n_questions: int, biases: dict[str, str],
            generator: str = "base") -> dict[str, pd.DataFrame]:
    """A translated release: ``biases`` maps a variant (the pivot too) to the bias its text carries.

    ``generator``: ``base`` (the generator above, issue 13) or another of
    :data:`qc_generators.GENERATORS` (issue 28), whose own split size replaces
    ``n_questions`` when that is None.
    """
    rng = np.random.default_rng(seed)
    gen = None if generator == "base" else generators.GENERATORS[generator]
    if gen is None:
        weights = zipf_weights()
        base = pivot_items(rng, n_questions // 2, weights)
    else:
        weights = generators.zipf_weights(gen["vocab"])
        base = generators.pivot_items(rng, gen, n_questions)
    size = None if gen is None else gen["vocab"]
    pivot = CODES[0]
    if pivot in biases:  # a bias in the source questions: every translation inherits it
        base = add_bias(base, biases[pivot], rng, weights, gen)
    tables = {}
    for code in CODES[:n_variants]:
        items = base
        if code != pivot and code in biases:  # a bias this translation added
            items = add_bias(base, biases[code], rng, weights, gen)
        tables[code] = render(items, code, lexicon(rng, size=size), rng, 0.0 if code == pivot else NOISE)
    return tables


# --- one release through the gate --------------------------------------------------------------------------

def run_release(task: tuple) -> dict:
    from qc.config import load_config
    from qc.gate import run_gate
    from schemas.dataset import LoadedDataset

    scenario, index, seed, n_variants, n_questions, biases, generator = task
    tables = release(seed, n_variants, n_questions, biases, generator)
    ds = LoadedDataset(root=Path(f"{scenario}-{index}"), kind="mc",
                       tables={code: {"test": frame} for code, frame in tables.items()})
    config = load_config()
    report = run_gate(ds, config, jobs=1)
    alpha = config["decision"]["alpha"]
    failing: dict[str, list[str]] = {}
    for r in report.failures:
        failing.setdefault(r.variant, []).append(r.check)
    # the rule before issue 13: every test at p < alpha on its own; the probe also above chance + margin
    old = {r.variant for r in report.results if r.is_test and r.gate and r.p_value < alpha
           and (not r.check.startswith("bow_probe") or r.effect > r.floor)}
    tests = [r for r in report.results if r.is_test and r.gate]
    clean_tests = [r for r in tests if r.variant not in biases]
    # per biased variant: the strongest evidence among its tests above their floor (smallest adjusted p)
    strongest = {v: min((r.p_adjusted for r in tests if r.variant == v and r.extra["above_floor"]), default=1.0)
                 for v in biases}
    return {"scenario": scenario, "index": index, "biases": biases, "variants": list(tables),
            "generator": generator, "questions": len(next(iter(tables.values()))),
            "failing": failing, "passed": report.passed, "old_failing": sorted(old),
            "family": report.decision["families"], "n_tests": len(tests),
            "min_p_adjusted_clean": min((r.p_adjusted for r in clean_tests), default=None),
            "strongest": strongest}


def tasks(args) -> list[tuple]:
    out = []
    seed = args.seed * 1_000_003
    for i in range(args.releases):
        out.append(("clean", i, seed + i, args.variants, args.questions, {}, args.generator))
    translations = CODES[1:args.variants]
    for i in range(args.biased_releases):
        rng = np.random.default_rng(seed + 10_000 + i)
        chosen = rng.choice(translations, size=6, replace=False)
        biases = {str(code): KINDS[k // 2] for k, code in enumerate(chosen)}
        out.append(("translation", i, seed + 10_000 + i, args.variants, args.questions, biases, args.generator))
    for i in range(args.pivot_releases):
        for k, kind in enumerate(KINDS):
            biases = {code: kind for code in CODES[:args.variants]}
            out.append(("pivot", i * len(KINDS) + k, seed + 20_000 + i * len(KINDS) + k, args.variants,
                        args.questions, biases, args.generator))
    return out


# --- the tables --------------------------------------------------------------------------------------------

def clopper_pearson(k: int, n: int) -> tuple[float, float]:
    from scipy import stats

    ci = stats.binomtest(k, n).proportion_ci(0.95, method="exact") if n else None
    return (ci.low, ci.high) if ci else (float("nan"), float("nan"))


def summarize(results: list[dict]) -> str:
    lines = ["| scenario | releases | variants (biased) | biased variants failed | clean variants failed "
             "| releases failed | 95% CI | releases failed, old rule | tests per release |",
             "| --- | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: |"]
    for scenario in ("clean", "translation", "pivot"):
        rs = [r for r in results if r["scenario"] == scenario]
        if not rs:
            continue
        n_var = sum(len(r["variants"]) for r in rs)
        biased = [(r, v) for r in rs for v in r["variants"] if v in r["biases"]]
        clean = [(r, v) for r in rs for v in r["variants"] if v not in r["biases"]]
        b_fail = sum(v in r["failing"] for r, v in biased)
        c_fail = sum(v in r["failing"] for r, v in clean)
        failed = sum(not r["passed"] for r in rs)
        low, high = clopper_pearson(failed, len(rs))
        old = sum(bool(r["old_failing"]) for r in rs)
        lines.append(f"| {scenario} | {len(rs)} | {n_var} ({len(biased)}) | "
                     + (f"{b_fail}/{len(biased)}" if biased else "—") + f" | {c_fail}/{len(clean)} | "
                     f"{failed}/{len(rs)} ({failed / len(rs):.0%}) | {low:.2f}-{high:.2f} | "
                     f"{old}/{len(rs)} ({old / len(rs):.0%}) | {rs[0]['n_tests']} |")
    if any(r["biases"] for r in results):
        lines += ["", "| bias | where | biased variants | failed | weakest detection (adjusted p) "
                  "| checks that failed them (variants) |", "| --- | --- | ---: | ---: | ---: | --- |"]
    for scenario in ("translation", "pivot"):
        for kind in KINDS:
            hits = [(r, v) for r in results if r["scenario"] == scenario for v, k in r["biases"].items()
                    if k == kind]
            if not hits:
                continue
            checks = Counter(c for r, v in hits for c in r["failing"].get(v, []))
            top = ", ".join(f"`{c}` ({n})" for c, n in checks.most_common(4))
            weakest = max(r["strongest"][v] for r, v in hits)
            lines.append(f"| {kind} | {scenario} | {len(hits)} | {sum(v in r['failing'] for r, v in hits)} | "
                         f"{weakest:.2g} | {top or '—'} |")
    clean_runs = [r for r in results if r["scenario"] == "clean"]
    if clean_runs:
        closest = min(r["min_p_adjusted_clean"] for r in clean_runs)
        false = Counter(c for r in clean_runs for cs in r["failing"].values() for c in cs)
        lines += ["", f"Clean releases: smallest adjusted p of any gated test {closest:.3g} (fails below 0.05); "
                  f"false alarms by check: {dict(false) or 'none'}."]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--releases", type=int, default=40, help="clean releases (at least 20 for issue 13)")
    ap.add_argument("--biased-releases", type=int, default=6, help="releases with 6 biased translations")
    ap.add_argument("--pivot-releases", type=int, default=1, help="rounds of 3 releases with a biased pivot")
    ap.add_argument("--variants", type=int, default=20)
    ap.add_argument("--questions", type=int, default=None,
                    help="questions per variant (default: 360, or the generator's own split size)")
    ap.add_argument("--generator", default="base", choices=sorted(generators.GENERATORS),
                    help="the clean generator (issue 28: benchmarks/qc_generators.py)")
    ap.add_argument("--jobs", type=int, default=2, help="releases checked in parallel")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    if not 7 <= args.variants <= len(CODES):
        ap.error(f"--variants must be between 7 and {len(CODES)}")
    if args.questions is None:
        args.questions = 360 if args.generator == "base" else None
    todo = tasks(args)
    t0 = time.perf_counter()
    results = []
    ctx = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else None)
    with ctx.Pool(max(1, args.jobs)) as pool:
        for r in pool.imap_unordered(run_release, todo):
            results.append(r)
            verdict = "passed" if r["passed"] else f"FAILED {sorted(r['failing'])}"
            print(f"[{len(results)}/{len(todo)}] {r['scenario']} #{r['index']}: {verdict}", flush=True)
    results.sort(key=lambda r: (r["scenario"], r["index"]))
    print()
    print(f"{len(todo)} releases of {args.variants} variants x {results[0]['questions']} questions, generator "
          f"{args.generator}, seed {args.seed}, "
          f"{time.perf_counter() - t0:.0f} s with {args.jobs} job(s)")
    print()
    print(summarize(results))


if __name__ == "__main__":
    main()
