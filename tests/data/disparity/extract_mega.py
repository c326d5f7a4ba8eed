"""Rebuild ``mega_records.csv`` from Tables 4-14 of the PRR paper (seed 001).

Usage::

    python tests/data/disparity/extract_mega.py /work/shared/seeds/001_d81addd4096336a8.txt \
        tests/data/disparity/

writes ``mega_records.csv`` (the input records) and, as test expectations,
``published_table1.csv`` (Mean-PRR, Std-PRR, CV-PRR per model) and
``published_table2.csv`` (language potential and mean score with their ranks).

The tables are parsed from the seed text, not typed in by hand. Rules, taken
from the paper's description of its case study (Section 4: "each dataset-metric
pair is treated as a single evaluation task ... 1,364 evaluation records"):

- one record per (model, language, dataset, metric) cell;
- the ``Avg``/``avg`` columns are aggregates, not languages, and are left out;
- ``-`` (an en dash in the seed) marks a cell MEGA did not report; it is left out;
- ``F1 / EM`` cells give two records, metric ``f1`` and metric ``exact_match``;
- the dagger on some UDPOS cells (zero-shot, no training data) is stripped;
- section lines ("Fine-tuned Baselines", ...) are not models.

The script checks the record count of every table against the table's shape
and the total against the paper's 1,364, and prints each table's ``Avg`` column
beside the mean of the extracted cells as a transcription check.
"""
from __future__ import annotations

import csv
import re
import sys
from pathlib import Path

#: table number -> (dataset, metrics in cell order, a word its caption must contain)
TABLES = {
    4: ("XNLI", ("accuracy",), "XNLI"),
    5: ("IndicXNLI", ("accuracy",), "IndicXNLI"),
    6: ("PAWS-X", ("accuracy",), "PAWS-X"),
    7: ("XCOPA", ("accuracy",), "XCOPA"),
    8: ("XQuAD", ("f1", "exact_match"), "XQuAD"),
    9: ("TyDiQA-GoldP", ("f1", "exact_match"), "TyDiQA-GoldP"),
    10: ("MLQA", ("f1", "exact_match"), "MLQA"),
    11: ("IndicQA", ("f1", "exact_match"), "IndicQA"),
    12: ("UDPOS", ("f1",), "UDPOS"),
    13: ("PAN-X", ("f1",), "PAN-X"),
    14: ("XStoryCloze", ("accuracy",), "XStoryCloze"),
}
#: (models, languages, metrics, missing cells) per table, read off the seed by eye
EXPECTED_SHAPE = {
    4: (11, 15, 1, 0), 5: (6, 11, 1, 0), 6: (10, 7, 1, 0), 7: (10, 10, 1, 3),
    8: (8, 11, 2, 0), 9: (8, 9, 2, 0), 10: (9, 7, 2, 0), 11: (4, 11, 2, 0),
    12: (4, 38, 1, 0), 13: (4, 48, 1, 0), 14: (8, 11, 1, 0),
}
PAPER_TOTAL = 1364
AGGREGATE_COLUMNS = {"avg", "average"}
MISSING = {"\u2013", "-", "\u2014"}
CAPTION = re.compile(r"^Table (\d+):")


def parse_tables(text: str) -> list[dict]:
    """Return the records of Tables 4-14 in table, row, column order."""
    start = text.index("Appendix D Original Results from MEGA Benchmark")
    records: list[dict] = []
    header: list[str] | None = None
    rows: list[tuple[list[str], list[str]]] = []  # (header, cells) per data line
    for line in text[start:].splitlines():
        if not line.strip():
            continue
        m = CAPTION.match(line)
        if m:
            number = int(m.group(1))
            if number in TABLES:
                records.extend(_table_records(number, line, rows))
            header, rows = None, []
            continue
        fields = line.split("\t")
        if fields[0] == "Model" or (fields[0] == "" and len(fields) > 1):
            header = [f.strip() for f in fields[1:]]
        elif len(fields) > 1 and header is not None:
            rows.append((header, [f.strip() for f in fields]))
        # else: a section line such as "OpenAI Models", or prose
    return records


def _table_records(number: int, caption: str, rows) -> list[dict]:
    dataset, metrics, word = TABLES[number]
    if word not in caption:
        raise SystemExit(f"Table {number}: caption does not name {word}: {caption[:80]}")
    out = []
    for header, cells in rows:
        model, values = cells[0], cells[1:]
        if len(values) != len(header):
            raise SystemExit(f"Table {number}, model {model}: {len(values)} cells for {len(header)} columns")
        for language, cell in zip(header, values):
            if language.lower() in AGGREGATE_COLUMNS or cell in MISSING:
                continue
            parts = cell.replace("\u2020", "").split("/")
            if len(parts) != len(metrics):
                raise SystemExit(f"Table {number}, {model}/{language}: cell {cell!r} is not {metrics}")
            for metric, value in zip(metrics, parts):
                out.append({"model": model, "language": language, "dataset": dataset,
                            "metric": metric, "score": float(value), "source": f"Table {number}"})
    return out


def published_table1(text: str) -> list[dict]:
    """Table 1 of the paper: ``model, mean_prr, std_prr, cv_prr`` (13 rows)."""
    block = text[text.index("Model\tMean-PRR\tStd-PRR\tCV-PRR"):text.index("Table 1:")]
    rows = [line.split("\t") for line in block.splitlines()[1:] if line.strip()]
    out = [{"model": r[0], "mean_prr": r[1], "std_prr": r[2], "cv_prr": r[3]} for r in rows]
    if len(out) != 13:
        raise SystemExit(f"Table 1: {len(out)} rows, expected 13")
    return out


def published_table2(text: str) -> list[dict]:
    """Table 2: ``language, name, rank_potential, potential, rank_mean_score, mean_score`` (53 rows)."""
    block = text[text.index("Language (Code)\tRank (Potential)"):text.index("Table 2:")]
    out = []
    for line in block.splitlines()[1:]:
        m = re.match(r"^(.+) \((\w+)\)\t(\d+)\t([\d.]+)\t(\d+)\t([\d.]+)$", line)
        if m:
            out.append({"language": m.group(2), "name": m.group(1), "rank_potential": m.group(3),
                        "potential": m.group(4), "rank_mean_score": m.group(5), "mean_score": m.group(6)})
    if len(out) != 53:
        raise SystemExit(f"Table 2: {len(out)} rows, expected 53")
    return out


def check(records: list[dict]) -> None:
    """Check counts per table against the expected shapes and print Avg checks."""
    for number, (n_models, n_langs, n_metrics, n_missing) in EXPECTED_SHAPE.items():
        recs = [r for r in records if r["source"] == f"Table {number}"]
        want = (n_models * n_langs - n_missing) * n_metrics
        models = {r["model"] for r in recs}
        langs = {r["language"] for r in recs}
        print(f"Table {number:2d} {TABLES[number][0]:13s} records {len(recs):4d} (expected {want:4d}), "
              f"models {len(models):2d}, languages {len(langs):2d}")
        if len(recs) != want or len(models) != n_models or len(langs) != n_langs:
            raise SystemExit(f"Table {number}: count mismatch")
    if len(records) != PAPER_TOTAL:
        raise SystemExit(f"total {len(records)} records, the paper reports {PAPER_TOTAL}")
    keys = [(r["model"], r["language"], r["dataset"], r["metric"]) for r in records]
    if len(set(keys)) != len(keys):
        raise SystemExit("duplicate (model, language, dataset, metric) cells")
    print(f"total {len(records)} records (paper: {PAPER_TOTAL}); "
          f"{len({r['model'] for r in records})} models, {len({r['language'] for r in records})} languages, "
          f"{len({(r['dataset'], r['metric']) for r in records})} tasks")


def write_csv(rows: list[dict], path: Path) -> None:
    with open(path, "w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    seed, out = Path(argv[0]), Path(argv[1])
    text = seed.read_text(encoding="utf-8")
    records = parse_tables(text)
    check(records)
    out.mkdir(parents=True, exist_ok=True)
    write_csv([{**r, "score": f"{r['score']:.1f}"} for r in records], out / "mega_records.csv")
    write_csv(published_table1(text), out / "published_table1.csv")
    write_csv(published_table2(text), out / "published_table2.csv")
    print(f"wrote mega_records.csv, published_table1.csv, published_table2.csv in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
