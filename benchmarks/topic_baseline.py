"""The strong classical topic baseline (issue 16) against the SIB-200 MLP reproduction, per variant and script.

    python benchmarks/topic_baseline.py                                  # mlp, char_tfidf, char_linear
    python benchmarks/topic_baseline.py --baselines char_tfidf,char_linear   # without the slow MLP
    python benchmarks/topic_baseline.py --data DIR --json out.json

Each (variant, baseline) is trained and scored in this process, one BLAS
thread, exactly as ``builder evaluate baselines`` does (``topic_baselines.
fit_predict`` on train, dev for selection, test scored once), so accuracies
equal the CLI's ``results.csv``. Reported in Markdown:

- the mean test accuracy over the variants per baseline;
- per script family (the ISO 15924 part of the variant code): the family's
  mean per baseline and the gain of ``char_linear`` over ``mlp`` (and over
  ``char_tfidf``);
- per variant: accuracy, the ridge ``alpha`` chosen on dev and the fit+predict cost in
  CPU seconds of this process (``time.process_time``: training, the dev
  selection, predicting test; data loading and imports excluded: one small
  warm-up fit per baseline first). CPU seconds rather than
  wall time, because the machine is shared; they are still noisy when other
  jobs compete for caches and memory bandwidth.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from builder.evaluation import topic_baselines  # noqa: E402
from schemas.codes import variant_script  # noqa: E402
from schemas.dataset import load_dataset_dir  # noqa: E402

SHIPPED = ROOT / "tests" / "data" / "sib200" / "annotated"
DEFAULT_BASELINES = ("mlp", "char_tfidf", "char_linear")


def _columns(frame) -> tuple[list[str], list[str]]:
    return frame["text"].astype(str).tolist(), frame["category"].astype(str).tolist()


def measure(data: Path, baselines, seed: int = 0) -> list[dict]:
    """One row per (variant, baseline): accuracy, chosen alpha, CPU seconds of fit + predict."""
    from threadpoolctl import threadpool_limits

    ds = load_dataset_dir(data)
    first = ds.tables[ds.variants[0]]
    warm_x, warm_y = _columns(first["train"])
    for b in baselines:  # imports and first-call set-up, outside the timings
        topic_baselines.fit_predict(b, warm_x[:40], warm_y[:40], warm_x[:10], warm_y[:10], warm_x[:5], seed=seed,
                                    mlp_max_iter=5)
    rows = []
    for v in ds.variants:
        tables = ds.tables[v]
        train, test = _columns(tables["train"]), _columns(tables["test"])
        dev = _columns(tables["dev"]) if "dev" in tables else ([], [])
        for b in baselines:
            with threadpool_limits(1):
                t0 = time.process_time()
                preds, params = topic_baselines.fit_predict(b, train[0], train[1], dev[0], dev[1], test[0], seed=seed)
                cpu = time.process_time() - t0
            correct = sum(p == g for p, g in zip(preds.tolist(), test[1]))
            rows.append({"variant": v, "script": variant_script(v) or "", "baseline": b, "n": len(test[1]),
                         "correct": correct, "accuracy": 100.0 * correct / len(test[1]), "cpu_s": cpu,
                         "alpha": params.get("alpha")})
            print(f"  {v} {b}: {rows[-1]['accuracy']:.1f} ({cpu:.2f} CPU s)", file=sys.stderr, flush=True)
    return rows


def _mean(rows, baseline, variants=None) -> float:
    return statistics.fmean(r["accuracy"] for r in rows if r["baseline"] == baseline
                            and (variants is None or r["variant"] in variants))


def report(rows, baselines) -> str:
    variants = sorted({r["variant"] for r in rows})
    by = {(r["variant"], r["baseline"]): r for r in rows}
    strong, ref = "char_linear", "mlp"
    gains = strong in baselines and ref in baselines
    out = [f"Mean test accuracy over {len(variants)} variants: "
           + ", ".join(f"{b} **{_mean(rows, b):.2f}**" for b in baselines)]
    if gains:
        ahead = sum(by[(v, strong)]["correct"] > by[(v, ref)]["correct"] for v in variants)
        out[0] += (f" ({strong} - {ref}: {_mean(rows, strong) - _mean(rows, ref):+.2f} points; {strong} ahead on "
                   f"{ahead} of {len(variants)} variants)")
    out += ["", "| script | variants | " + " | ".join(baselines) + (f" | {strong} - {ref} |" if gains else " |")
            + (f" {strong} - char_tfidf |" if gains and "char_tfidf" in baselines else ""),
            "|---|---:|" + "---:|" * len(baselines) + ("---:|" if gains else "")
            + ("---:|" if gains and "char_tfidf" in baselines else "")]
    scripts = sorted({by[(v, baselines[0])]["script"] for v in variants},
                     key=lambda s: (-sum(by[(v, baselines[0])]["script"] == s for v in variants), s))
    for s in scripts:
        vs = [v for v in variants if by[(v, baselines[0])]["script"] == s]
        line = f"| {s} | {len(vs)} | " + " | ".join(f"{_mean(rows, b, vs):.1f}" for b in baselines) + " |"
        if gains:
            line += f" {_mean(rows, strong, vs) - _mean(rows, ref, vs):+.1f} |"
            if "char_tfidf" in baselines:
                line += f" {_mean(rows, strong, vs) - _mean(rows, 'char_tfidf', vs):+.1f} |"
        out.append(line)
    out += ["", "Accuracy % per variant (the alpha chosen on dev in brackets) and fit+predict CPU seconds:", "",
            "| variant | " + " | ".join(f"{b} | {b} CPU s" for b in baselines) + " |",
            "|---|" + "---:|---:|" * len(baselines)]
    for v in variants:
        cells = []
        for b in baselines:
            r = by[(v, b)]
            cells.append(f"{r['accuracy']:.1f}" + (f" ({r['alpha']:g})" if r['alpha'] is not None else ""))
            cells.append(f"{r['cpu_s']:.2f}")
        out.append(f"| {v} | " + " | ".join(cells) + " |")
    for name, agg in (("median", statistics.median), ("total", sum)):
        cells = "".join(f" | {agg([r['cpu_s'] for r in rows if r['baseline'] == b]):.2f} |" for b in baselines)
        out.append(f"| **{name}** |{cells}")
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=SHIPPED, help="topic dataset (default: the 24 shipped variants)")
    ap.add_argument("--baselines", default=",".join(DEFAULT_BASELINES), help="comma list of topic baselines")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", type=Path, help="also write the rows as JSON here")
    args = ap.parse_args(argv)
    baselines = tuple(b for b in args.baselines.split(",") if b)
    unknown = [b for b in baselines if b not in topic_baselines.TOPIC_BASELINES]
    if unknown:
        ap.error(f"unknown baseline(s) {', '.join(unknown)}; known: {', '.join(topic_baselines.TOPIC_BASELINES)}")
    rows = measure(args.data, baselines, seed=args.seed)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    print(report(rows, baselines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
