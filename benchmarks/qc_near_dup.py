"""Issue 28: near-duplicate leakage and label conflicts, their error rates by simulation.

(a) Shipped data: runs ``leakage``, ``label_conflict`` and ``duplicates`` (shipped
    defaults) on every variant of tests/data/sib200/annotated and lists what they
    flag or name, with the largest exact character 5-shingle Jaccard between
    distinct texts of each variant (all pairs, brute force; ``--no-brute`` skips it).
(b) False alarms: clean generated releases from the generator of
    ``benchmarks/qc_calibration.py`` (imported, not copied). MC: its passages
    and questions, the passages split 60/20/20 into train/dev/test. Topic: the
    sentences of its rendered passages as texts (1,004 per variant, split
    701/99/204 as SIB-200) with a uniformly drawn category of seven. A release
    fails when either new check fails on any of its variants.
(c) Recall: a test text (topic: of the shipped variants; MC: a passage of a
    generated variant) copied into train with characters changed until its
    Jaccard with the original is the target (0.8, 0.9, 0.95 within +-0.01);
    ``leakage`` must name the pair. The same copy with another category must
    be named by ``label_conflict`` (a conflict across splits).

    python benchmarks/qc_near_dup.py [--releases 100] [--variants 5] [--plants 10] [--targets 0.8 0.9 0.95]
                                     [--seed 0] [--no-brute] [--only a|b|c ...]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import qc_calibration as gen  # noqa: E402  the clean-release generator of issue 13

from qc import duplicates, label_conflict, leakage  # noqa: E402
from qc.config import default_config  # noqa: E402
from qc.result import VariantData  # noqa: E402
from qc.textnorm import char_shingles_many, normalize  # noqa: E402

SHIPPED = ROOT / "tests" / "data" / "sib200" / "annotated"
CATEGORIES = ["science/technology", "travel", "politics", "sports", "health", "entertainment", "geography"]
TARGETS = (0.8, 0.9, 0.95)


def jaccard(a: str, b: str) -> float:
    x, y = (set(s.tolist()) for s in char_shingles_many([a, b], 5))
    return len(x & y) / len(x | y) if x | y else 1.0


def max_distinct_jaccard(texts: list[str]) -> tuple[float, int, int]:
    """The largest Jaccard between two distinct normalised texts (all pairs; J <= min/max size prunes)."""
    norm = [normalize(t) for t in texts]
    sets = [set(s.tolist()) for s in char_shingles_many(norm, 5)]
    order = sorted(range(len(sets)), key=lambda i: len(sets[i]))
    best = (0.0, -1, -1)
    for x, i in enumerate(order):
        for j in order[x + 1:]:
            if len(sets[i]) < best[0] * len(sets[j]):
                break
            if norm[i] == norm[j]:
                continue
            inter = len(sets[i] & sets[j])
            jac = inter / (len(sets[i]) + len(sets[j]) - inter)
            if jac > best[0]:
                best = (jac, i, j)
    return best


# --- (a) the shipped variants --------------------------------------------------------------------------------

def shipped(brute: bool) -> list[str]:
    from schemas.dataset import load_dataset_dir

    cfg = default_config()["checks"]
    ds = load_dataset_dir(SHIPPED)
    lines = ["| variant | max Jaccard, distinct texts (ids) | leakage:texts | label_conflict:texts "
             "| duplicates:texts named |", "| --- | --- | --- | --- | --- |"]
    t0 = time.perf_counter()
    for variant, tables in ds.tables.items():
        data = VariantData(variant, "topic", tables)
        [leak] = leakage.run(data, cfg["leakage"])
        [conf] = label_conflict.run(data, cfg["label_conflict"])
        [dup] = duplicates.run(data, cfg["duplicates"])
        top = "—"
        if brute:
            frame = data.combined
            jac, i, j = max_distinct_jaccard(frame["text"].astype(str).tolist())
            ids = (frame["split"] + ":" + frame["index_id"].astype(str)).tolist()
            top = f"{jac:.3f} ({ids[i]} / {ids[j]})"
        leak_s = "pass" if leak.passed else "FAIL " + ", ".join(
            f"{p['ids'][0]} ~ {p['ids'][1]} ({p['jaccard']:.3f})" for p in leak.extra.get("near_pairs", []))
        if not leak.passed and leak.extra.get("exact"):
            leak_s += f" + {leak.extra['exact']} exact"
        conf_s = "pass" if conf.passed else "FAIL " + ", ".join(
            (" = ".join(c["ids"]) if c["kind"] == "exact" else f"{c['ids'][0]} ~ {c['ids'][1]} ({c['jaccard']:.3f})")
            + f" [{' / '.join(c['labels'])}]" for c in conf.extra["conflicts"])
        dup_s = ", ".join(f"{n['ids'][0]} ~ {n['ids'][1]} ({n['jaccard']:.3f})" for n in dup.extra["near_named"])
        if dup.extra["exact_examples"]:
            dup_s = "exact " + "; ".join(" = ".join(g) for g in dup.extra["exact_examples"]) + (
                ", " + dup_s if dup_s else "")
        lines.append(f"| {variant} | {top} | {leak_s} | {conf_s} | {dup_s or '—'} |")
    print(f"(a) {len(ds.tables)} shipped variants in {time.perf_counter() - t0:.1f} s", flush=True)
    return lines


# --- (b) clean generated releases ----------------------------------------------------------------------------

def clean_release(seed: int, n_variants: int, n_questions: int = 360) -> tuple[dict, dict]:
    """MC and topic variants of one clean release, every variant in train/dev/test."""
    tables = gen.release(seed, n_variants, n_questions, {})
    rng = np.random.default_rng(seed + 7)
    mc, topic = {}, {}
    for code, frame in tables.items():
        pids = sorted(frame["passage_id"].unique())
        split_of = dict(zip(pids, np.array(["train"] * 6 + ["dev"] * 2 + ["test"] * 2)[np.arange(len(pids)) % 10]))
        frame = frame.assign(split=frame["passage_id"].map(split_of))
        mc[code] = {s: frame[frame["split"] == s].reset_index(drop=True) for s in ("train", "dev", "test")}
        # topic: the sentences of the variant's passages (more passages rendered until there are 1,004)
        sentences = [s.strip() + "." for p in frame.drop_duplicates("passage_id")["passage"]
                     for s in p.split(".") if s.strip()]
        extra = 0
        while len(sentences) < 1004:
            more = gen.release(seed * 31 + 1 + extra, 1, 120, {})[gen.CODES[0]]
            sentences += [s.strip() + "." for p in more.drop_duplicates("passage_id")["passage"]
                          for s in p.split(".") if s.strip()]
            extra += 1
        sentences = sentences[:1004]
        cats = rng.choice(CATEGORIES, size=len(sentences))
        bounds = {"train": (0, 701), "dev": (701, 800), "test": (800, 1004)}
        topic[code] = {s: pd.DataFrame({"index_id": np.arange(a, b), "category": cats[a:b],
                                        "text": sentences[a:b]}) for s, (a, b) in bounds.items()}
    return mc, topic


def false_alarms(releases: int, n_variants: int, seed: int) -> list[str]:
    cfg = default_config()["checks"]
    failed = {"mc": 0, "topic": 0}
    variant_fail = {"mc": 0, "topic": 0}
    named = {"mc": 0, "topic": 0}
    checks: dict[str, int] = {}
    t0 = time.perf_counter()
    for r in range(releases):
        mc, topic = clean_release(seed * 1_000_003 + r, n_variants)
        for kind, variants in (("mc", mc), ("topic", topic)):
            bad = False
            for code, tables in variants.items():
                data = VariantData(code, kind, tables)
                results = leakage.run(data, cfg["leakage"]) + label_conflict.run(data, cfg["label_conflict"])
                dup = duplicates.run(data, cfg["duplicates"])
                named[kind] += sum(len(d.extra["near_named"]) for d in dup)
                fails = [x for x in results if not x.passed]
                for x in fails:
                    checks[f"{kind} {x.check}"] = checks.get(f"{kind} {x.check}", 0) + 1
                variant_fail[kind] += bool(fails)
                bad |= bool(fails)
            failed[kind] += bad
        if (r + 1) % 10 == 0:
            print(f"(b) {r + 1}/{releases} clean releases, {time.perf_counter() - t0:.0f} s", flush=True)
    from scipy import stats

    lines = ["| data | releases x variants | releases failed | 95% CI (Clopper-Pearson) | variants failed "
             "| near pairs named by duplicates |", "| --- | ---: | ---: | --- | ---: | ---: |"]
    for kind in ("mc", "topic"):
        ci = stats.binomtest(failed[kind], releases).proportion_ci(0.95, method="exact")
        lines.append(f"| {kind} | {releases} x {n_variants} | {failed[kind]}/{releases} | "
                     f"{ci.low:.3f}-{ci.high:.3f} | {variant_fail[kind]}/{releases * n_variants} | {named[kind]} |")
    lines.append("")
    lines.append(f"Failing checks: {checks or 'none'}.")
    return lines


# --- (c) recall on planted near-copies -----------------------------------------------------------------------

def near_copy(text: str, target: float, rng: np.random.Generator, tol: float = 0.01) -> str | None:
    """``text`` with random characters substituted, then its end trimmed, to Jaccard ``target`` (+-tol)."""
    norm = normalize(text)
    alphabet = sorted(set(norm) - {" "})
    for _ in range(20):
        chars = list(norm)
        cur = norm
        while jaccard(norm, cur) > target + 0.05 and len(chars) > 10:
            i = int(rng.integers(len(chars)))
            if chars[i] != " ":
                chars[i] = alphabet[int(rng.integers(len(alphabet)))]
            cur = "".join(chars)
        while jaccard(norm, cur) > target + tol / 2 and len(cur) > 10:
            cur = cur[:-1]
        if abs(jaccard(norm, cur) - target) <= tol and cur != norm:
            return cur
    return None


def plant(tables: dict, kind: str, target: float, n: int, rng, *, conflict: bool) -> tuple[dict, list]:
    """``n`` test units copied into train at ``target``; returns the tables and the expected id pairs."""
    col, idc = ("text", "index_id") if kind == "topic" else ("passage", "passage_id")
    test, train = tables["test"], tables["train"]
    units = test.drop_duplicates(idc)
    units = units[units[col].str.len() >= 80]
    picks = units.iloc[rng.choice(len(units), size=min(n, len(units)), replace=False)]
    rows, expected = [], []
    for k, (_, row) in enumerate(picks.iterrows()):
        copy = near_copy(row[col], target, rng)
        if copy is None:
            continue
        new = row.copy()
        new[col] = copy
        new[idc] = f"planted{k}"
        if kind == "topic" and conflict:
            new["category"] = next(c for c in CATEGORIES if c != row["category"])
        rows.append(new)
        expected.append((f"test:{row[idc]}", f"train:planted{k}"))
    out = dict(tables)
    out["train"] = pd.concat([train, pd.DataFrame(rows)], ignore_index=True)
    return out, expected


def found(result, expected: list) -> int:
    pairs = result.extra.get("near_pairs") or result.extra.get("conflicts") or []
    got = {frozenset(p["ids"]) for p in pairs}
    return sum(frozenset(e) in got for e in expected)


def recall(plants: int, seed: int, targets=TARGETS) -> list[str]:
    from schemas.dataset import load_dataset_dir

    cfg = default_config()["checks"]
    leakage.NAMED = label_conflict.NAMED = 10 ** 6  # every pair named: each planted one is looked up
    ds = load_dataset_dir(SHIPPED)
    mc, _ = clean_release(seed + 99, 5)
    rng = np.random.default_rng(seed)
    lines = ["| planted Jaccard | leakage, SIB-200 texts (24 variants) | leakage, generated MC passages "
             "| label_conflict, SIB-200 texts (other label) |", "| ---: | ---: | ---: | ---: |"]
    for target in targets:
        counts = {"topic": [0, 0], "mc": [0, 0], "conflict": [0, 0]}
        for variant, tables in ds.tables.items():
            for what, conflict in (("topic", False), ("conflict", True)):
                t, exp = plant(tables, "topic", target, plants, rng, conflict=conflict)
                data = VariantData(variant, "topic", t)
                [r] = (label_conflict if conflict else leakage).run(data, cfg["label_conflict" if conflict
                                                                              else "leakage"])
                counts[what][0] += found(r, exp)
                counts[what][1] += len(exp)
        for code, tables in mc.items():
            for _ in range(5):
                t, exp = plant(tables, "mc", target, plants, rng, conflict=False)
                near = leakage.near_shared({s: f["passage"] for s, f in t.items()},
                                           {s: f["passage_id"] for s, f in t.items()}, cfg["leakage"])
                got = {frozenset(p["ids"]) for p in near}
                counts["mc"][0] += sum(frozenset(e) in got for e in exp)
                counts["mc"][1] += len(exp)
        cells = [f"{k}/{n} ({k / n:.1%})" if n else "—"
                 for k, n in (counts["topic"], counts["mc"], counts["conflict"])]
        lines.append(f"| {target} | " + " | ".join(cells) + " |")
        print(f"(c) target {target}: {cells}", flush=True)
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--releases", type=int, default=100, help="clean releases, MC and topic each")
    ap.add_argument("--variants", type=int, default=5, help="variants per clean release")
    ap.add_argument("--plants", type=int, default=10, help="near-copies planted per variant and target")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-brute", action="store_true", help="skip the all-pairs Jaccard of the shipped variants")
    ap.add_argument("--targets", type=float, nargs="+", default=list(TARGETS), help="planted Jaccards")
    ap.add_argument("--only", choices=["a", "b", "c"], action="append", help="run only these parts")
    args = ap.parse_args()
    parts = set(args.only or "abc")
    t0 = time.perf_counter()
    out = []
    if "a" in parts:
        out += ["(a) shipped variants", ""] + shipped(not args.no_brute) + [""]
    if "b" in parts:
        out += ["(b) clean generated releases", ""] + false_alarms(args.releases, args.variants, args.seed) + [""]
    if "c" in parts:
        out += ["(c) recall on planted near-copies", ""] + recall(args.plants, args.seed, args.targets) + [""]
    print()
    print(f"{time.perf_counter() - t0:.0f} s in all")
    print()
    print("\n".join(out))


if __name__ == "__main__":
    main()
