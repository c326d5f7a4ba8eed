"""Benchmark: where ``builder romanize`` spends its time on a uroman variant (Tibetan, Urdu).

Run: ``python benchmarks/romanize_uroman.py [--variant bod_Tibt] [--runs 3]`` from the repository root.

In process, CPU seconds (``time.process_time``), medians of ``--runs``: building uroman's tables
(``uroman.Uroman()``, what every process paid before), loading them from the cache that
:mod:`builder.variants.romanize_uroman` keeps (in a temporary ``XDG_CACHE_HOME``), and romanizing
the variant's 1,004 texts line by line through ``Uroman.romanize_string`` (as before) and token by
token (:class:`~builder.variants.romanize_uroman.TokenRomanizer`, now); the two texts are checked
equal. The end-to-end command, before and after, is in BENCHMARKS.md ("Romanization through uroman").
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _cpu(fn):
    start = time.process_time()
    out = fn()
    return time.process_time() - start, out


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="bod_Tibt", help="a shipped uroman variant (bod_Tibt, urd_Arab)")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="uroman-bench-")

    import uroman

    from builder.variants import romanize as R
    from builder.variants import romanize_uroman as U
    from schemas.io import read_sib_tsv

    code, lcode = args.variant, args.variant[:3]
    marks = R.get_romanizer(code).marks
    folder = ROOT / "tests" / "data" / "sib200" / "annotated" / code
    texts = [marks.translate(r["text"]) for s in ("train", "dev", "test") for r in read_sib_tsv(folder / f"{s}.tsv")]
    builds, loads, lines, tokens = [], [], [], []
    for _ in range(args.runs):
        seconds, tables = _cpu(uroman.Uroman)
        builds.append(seconds)
        U._store(tables, U._cache_file())
        loads.append(_cpu(U.tables)[0])
        tables.reset_cache(65536)
        seconds, by_line = _cpu(lambda: [unicodedata.normalize("NFC", tables.romanize_string(t, lcode=lcode))
                                         for t in texts])
        lines.append(seconds)
        tables.reset_cache(65536)
        romanizer = U.TokenRomanizer(lambda: tables, lcode)
        seconds, by_token = _cpu(lambda: [romanizer(t) for t in texts])
        tokens.append(seconds)
        assert by_line == by_token, "token by token differs from uroman's line"
    med = statistics.median
    print(f"{code}, {len(texts)} texts, CPU s (median of {args.runs}): build tables {med(builds):.2f}, "
          f"load cached tables {med(loads):.2f}, romanize line by line {med(lines):.2f}, "
          f"token by token {med(tokens):.2f} (same text)")


if __name__ == "__main__":
    main()
