"""A gate p-value against brute force: the overlap tests' p-value recomputed over many random answer keys.

For one variant of one generated clean release (``benchmarks/qc_calibration.py``'s ``release``), each
overlap feature's randomization p-value as the gate computes it (importance sampling at the
saddlepoint, ``qc.overlap_ttest.randomization_pvalue``) beside the share of ``--keys`` uniformly random
answer keys whose correct-minus-wrong difference reaches the observed one (issue 28: are the false
alarms of a clean release chance, or a null that is wrong?).

    python benchmarks/qc_key_bruteforce.py --generator copy --seed 2800 --index 43 --variant ita_Latn
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import qc_calibration  # noqa: E402
from qc.overlap import option_features  # noqa: E402
from qc.overlap_ttest import randomization_pvalue  # noqa: E402
from schemas.codes import flores_code  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--generator", default="base")
    ap.add_argument("--seed", type=int, default=0, help="the calibration run's --seed")
    ap.add_argument("--index", type=int, required=True, help="the clean release's number (clean #N)")
    ap.add_argument("--variant", required=True)
    ap.add_argument("--variants", type=int, default=20)
    ap.add_argument("--keys", type=int, default=10_000_000)
    ap.add_argument("--features", default="lcs_substring,token_share,question_option_passage_share")
    args = ap.parse_args()
    seed = args.seed * 1_000_003 + args.index  # as qc_calibration.tasks numbers the clean releases
    frame = qc_calibration.release(seed, args.variants, None, {}, args.generator)[args.variant]
    features = option_features(frame, language=flores_code(args.variant))
    rng = np.random.default_rng(1)
    chunk = 500_000
    print("| feature | gate p-value | brute force | keys reaching it |\n| --- | ---: | ---: | ---: |")
    for name in args.features.split(","):
        v = features[name].to_numpy(float).reshape(-1, 4)
        c = features["correct"].to_numpy(bool).reshape(-1, 4)
        keep = c.sum(axis=1) == 1
        v, c = v[keep], c[keep]
        d = 4 / 3 * (v - v.mean(axis=1, keepdims=True))
        s = abs(float(d[c].sum()))
        hits = done = 0
        while done < args.keys:
            keys = rng.integers(4, size=(min(chunk, args.keys - done), len(d)))
            hits += int((np.abs(d[np.arange(len(d)), keys].sum(axis=1)) >= s - 1e-9).sum())
            done += len(keys)
        print(f"| {name} | {randomization_pvalue(v, c):.3g} | {hits / done:.3g} | {hits:,} of {done:,} |")


if __name__ == "__main__":
    main()
