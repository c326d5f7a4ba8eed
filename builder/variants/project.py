"""Project topic items onto a parallel translation (``builder extend``).

Item ``index_id`` k takes line k of the concatenated parallel files (FLORES:
``dev`` then ``devtest``). Before anything is written, :func:`check_parallel`
runs every check in :mod:`builder.variants.checks`; the first error stops the
build with one line naming the file, the first misaligned line and what was
expected. The variant folder is written whole or not at all.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np

from schemas.runtime.provenance import recorded_path
from schemas.io import read_sib_tsv, require_path, sha256_file, staging_dir, write_sib_tsv
from schemas.io import read_text_utf8, write_text_atomic
from schemas.tables import split_lines
from schemas.errors import AlignmentError, ScriptError, SchemaError, UsageError
from schemas.records import index_id_of
from schemas.variant import VARIANT_JSON, VariantInfo
from schemas.scripts import check_new_variant, count_letters, dominant_script, foreign_letters, script_of

from schemas.textstats import log_ratio, robust_z

from .align import fit_ratio_model, locate_misalignment
from .checks import CheckConfig, CheckSet, duplicate_groups
from .credit import Credit, carried_credit
from .parallel import ParallelText, default_expected_lines, read_parallel

SPLITS = ("train", "dev", "test")


def read_topic_source(source: str | Path) -> dict[str, list[dict[str, str]]]:
    """The ``{train,dev,test}.tsv`` of a SIB-200 style folder (at least one split)."""
    root = require_path(source, what="source folder", kind="dir")
    from schemas.manifest import verify_against_manifest

    verify_against_manifest(root)  # an altered split beside a manifest.json stops here, as in every reader
    splits = {s: read_sib_tsv(root / f"{s}.tsv") for s in SPLITS if (root / f"{s}.tsv").is_file()}
    if not splits:
        raise SchemaError("no train.tsv, dev.tsv or test.tsv in the source folder", file=root)
    for split, rows in splits.items():
        for n, row in enumerate(rows, 2):  # the one index_id rule: an int() form >= 0
            index_id_of(row["index_id"], file=root / f"{split}.tsv", record=f"line {n}")
    return splits


def english_by_index(splits: Mapping[str, Sequence[Mapping[str, str]]]) -> dict[int, str]:
    """``index_id -> text`` over all splits of the source annotation."""
    return {int(r["index_id"]): r["text"] for rows in splits.values() for r in rows}


def _snippet(text: str, width: int = 40) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _alignment_checks(text: ParallelText, english: Mapping[int, str], expected: Sequence[int],
                      checks: CheckSet) -> None:
    count_items, break_items, messages = [], [], []
    for f, exp in zip(text.files, expected):
        lines = text.lines[f.offset: f.offset + f.n_lines]
        # English lines of this file in its expected index range.
        start = sum(expected[: text.files.index(f)])
        local = {k - start: v for k, v in english.items() if start <= k < start + exp}
        if f.n_lines != exp:
            count_items.append({"file": str(f.path), "found": f.n_lines, "expected": exp})
        breaks = locate_misalignment(lines, local, exp) if local else []
        for b in breaks:
            item = {"file": str(f.path), "kind": b.kind, "line": b.line + 1, "last_line": b.last + 1,
                    "expected_index_id": start + b.expected,
                    "found_index_id": None if b.found is None else start + b.found}
            break_items.append(item)
        msg = _alignment_message(f, lines, exp, start, breaks, local, english)
        if msg:
            messages.append((f, breaks, msg))
    first = messages[0] if messages else None
    checks.add("line_count", count_items, first[2] if first and count_items else "")
    checks.add("alignment", break_items, first[2] if first and break_items else "")
    checks.first_alignment = first  # type: ignore[attr-defined]


def _alignment_message(f, lines, exp, start, breaks, local, english) -> str:
    count = f"{f.n_lines} lines, expected {exp}" if f.n_lines != exp else f"{f.n_lines} lines as expected"
    if not breaks:
        if f.n_lines == exp:
            return ""
        why = ("no annotated English falls in this file" if not local
               else "the counts are too far apart to locate it")
        return f"{count}; cannot locate the first misaligned line ({why})"
    b = breaks[0]
    exp_id = start + b.expected
    eng = english.get(exp_id)
    expect = f"expected the translation of index_id {exp_id}" + (f" ({_snippet(eng)!r})" if eng else "")
    where = (f"first misaligned line: line {b.line + 1}" if b.line == b.last else
             f"first misaligned line: line {b.line + 1} at the earliest, line {b.last + 1} at the latest "
             "(English is known only for the annotated lines)")
    if b.kind == "missing":
        what = "a line is missing: from there on each line translates the next English sentence"
    else:
        empty = b.line < len(lines) and not lines[b.line].strip()
        what = f"an extra {'empty ' if empty else ''}line has no English counterpart"
    more = f"; {len(breaks)} breaks in all" if len(breaks) > 1 else ""
    return f"{count}; {where}, {expect}; {what}{more}"


def check_parallel(text: ParallelText, english: Mapping[int, str], ids: Sequence[int], code: str,
                   config: CheckConfig) -> CheckSet:
    """Run every check of the parallel ``text`` against the English annotation; returns the results."""
    expected = config.expected_lines or default_expected_lines(len(text.files))
    if expected is None:
        raise UsageError(f"{len(text.files)} parallel files given; state the expected line counts "
                         "with --expected-lines N, once per file in the order given")
    if len(expected) != len(text.files):
        raise UsageError(f"{len(expected)} expected line counts for {len(text.files)} parallel files; "
                         "give one count per file")
    checks = CheckSet(config)
    n = len(text.lines)
    _alignment_checks(text, english, expected, checks)
    checks.add("empty_lines", [i for i, line in enumerate(text.lines) if not line.strip()])
    checks.add("ids_out_of_range", sorted({i for i in ids if not 0 <= i < n}))
    script = script_of(code)
    foreign = foreign_letters(script)
    # A line with no letter outside its script is all in script; only the others need counting.
    shares = [count_letters(line, script) if foreign.search(line) else None for line in text.lines]
    bad_files = []
    for f in text.files:
        total, inside = count_letters("\n".join(text.lines[f.offset: f.offset + f.n_lines]), script)
        share = 1.0 if total == 0 else inside / total
        if share < config.script_file_min_share:
            sample = " ".join(text.lines[f.offset: f.offset + 20])
            bad_files.append({"file": str(f.path), "share": round(share, 4), "dominant": dominant_script(sample)})
    checks.add("script_file", bad_files)
    bad_lines = [i for i, ts in enumerate(shares) if ts and ts[0] and ts[1] / ts[0] < config.script_line_min_share]
    checks.add("script_lines", bad_lines, n_lines=n)
    covered = sorted(i for i in english if 0 <= i < n and text.lines[i].strip())
    outliers: list[dict] = []
    if len(covered) >= 3:
        target = list(text.lines)
        model = fit_ratio_model(target, {i: english[i] for i in covered}, max_shift=0)
        vals = np.array([log_ratio(text.lines[i], english[i]) for i in covered])
        z = robust_z(vals, center=model.center, scale=model.scale)
        outliers = [{"index_id": i, "z": round(float(v), 2)} for i, v in zip(covered, z)
                    if abs(v) > config.length_z]
        checks.length_model = model  # type: ignore[attr-defined]
    checks.add("length_outliers", outliers, n_lines=len(covered) or None)
    groups = duplicate_groups(text.lines, english)
    checks.add("duplicates", groups, n_lines=n)
    for name in ("script_lines", "length_outliers", "duplicates"):
        checks.results[name].message = f"{checks.results[name].count} lines flagged"
    return checks


def raise_first_error(checks: CheckSet, text: ParallelText, code: str, english: Mapping[int, str]) -> None:
    """Raise one error for the most fundamental failed check (alignment first), or return."""
    res = checks.results
    if res["line_count"].status == "error" or res["alignment"].status == "error":
        f, breaks, msg = checks.first_alignment  # type: ignore[attr-defined]
        record = f"line {breaks[0].line + 1}" if breaks else None
        raise AlignmentError(msg, file=f.path, record=record)
    if res["ids_out_of_range"].status == "error":
        ids = res["ids_out_of_range"].items
        raise AlignmentError(f"index_id {ids[0]} is beyond the {len(text.lines)} parallel lines "
                             f"({len(ids)} ids out of range); expected ids 0-{len(text.lines) - 1}",
                             file=text.files[-1].path)
    if res["empty_lines"].status == "error":
        i = res["empty_lines"].items[0]
        f = text.file_of(i)
        exp = f"the translation of index_id {i}" + (f" ({_snippet(english[i])!r})" if i in english else "")
        raise AlignmentError(f"empty line ({res['empty_lines'].count} empty lines in all); expected {exp}",
                             file=f.path, record=f"line {i - f.offset + 1}")
    if res["script_file"].status == "error":
        item = res["script_file"].items[0]
        f = next(f for f in text.files if str(f.path) == item["file"])
        first = next((i for i in res["script_lines"].items if f.offset <= i < f.offset + f.n_lines), f.offset)
        raise ScriptError(f"only {item['share']:.1%} of the letters are in script {script_of(code)} declared by "
                          f"{code} (expected at least {checks.config.script_file_min_share:.0%}); the text looks "
                          f"like {item['dominant']}; first line not in {script_of(code)}: "
                          f"line {first - f.offset + 1}", file=f.path, record=f"line {first - f.offset + 1}")
    for name in ("script_lines", "length_outliers", "duplicates"):
        r = res[name]
        if r.status == "error":
            first = r.items[0]
            first_id = first["index_id"] if isinstance(first, dict) else first[0] if isinstance(first, list) else first
            f = text.file_of(first_id)
            share = r.count / max(1, len(text.lines))
            raise (ScriptError if name == "script_lines" else AlignmentError)(
                f"{name}: {r.count} lines flagged ({share:.1%}), more than the allowed "
                f"{checks.config.max_odd_share:.0%} (or severity error); first: line {first_id - f.offset + 1}",
                file=f.path, record=f"line {first_id - f.offset + 1}")


@dataclass
class ProjectionResult:
    """What :func:`project_topic` wrote and found."""

    out_dir: Path
    rows: dict[str, int]
    checks: CheckSet
    credit: Credit | None = None


def labels_of(source: Path, splits: Mapping[str, Sequence[Mapping[str, str]]]) -> str:
    """``labels.txt`` of the source, or its categories in order of first use."""
    path = source / "labels.txt"
    if path.is_file():
        text = "".join(f"{line}\n" for line in split_lines(read_text_utf8(path)))  # no BOM, LF line ends
        return text
    seen: dict[str, None] = {}
    for rows in splits.values():
        for r in rows:
            seen.setdefault(r["category"], None)
    return "".join(f"{c}\n" for c in seen)


def project_topic(source: str | Path, parallel: Sequence[str | Path], variant: str, out: str | Path, *,
                  config: CheckConfig | None = None, license: str | None = None) -> ProjectionResult:
    """Project a SIB-200 style annotation onto parallel files and write ``out/<variant>/``.

    ``variant.json`` carries the source's credit (:func:`carried_credit`):
    its source name, citation and, unless ``license`` is given, its license.
    Raises :class:`AlignmentError` or :class:`ScriptError` (exit code 1) on
    the first failed check; nothing is written then.
    """
    check_new_variant(variant)
    config = config or CheckConfig()
    source = Path(source)
    splits = read_topic_source(source)
    credit = carried_credit(source, license)
    english = english_by_index(splits)
    text = read_parallel(parallel)
    ids = [int(r["index_id"]) for rows in splits.values() for r in rows]
    checks = check_parallel(text, english, ids, variant, config)
    raise_first_error(checks, text, variant, english)
    target = Path(out) / variant
    rows_out: dict[str, int] = {}
    with staging_dir(target, marker=VARIANT_JSON, what="variant") as stage:
        for split, rows in splits.items():
            projected = [{"index_id": r["index_id"], "category": r["category"],
                          "text": text.lines[int(r["index_id"])]} for r in rows]
            write_sib_tsv(stage / f"{split}.tsv", projected)
            rows_out[split] = len(projected)
        write_text_atomic(stage / "labels.txt", labels_of(source, splits))
        model = getattr(checks, "length_model", None)
        VariantInfo.from_dict({
            "variant": variant,
            "kind": "topic",
            "method": "projection",
            "source": recorded_path(source),
            "source_files": {s: sha256_file(source / f"{s}.tsv") for s in splits},
            "parallel": [{"path": recorded_path(f.path), "sha256": f.sha256, "lines": f.n_lines} for f in text.files],
            "expected_lines": list(config.expected_lines or default_expected_lines(len(text.files))),
            "rows": rows_out,
            **credit.to_dict(),
            "config": config.to_dict(),
            "length_ratio": None if model is None else {"median_log_ratio": round(model.center, 6),
                                                        "scale": round(model.scale, 6)},
            "checks": checks.to_dict(),
        }).write(stage)
    return ProjectionResult(out_dir=target, rows=rows_out, checks=checks, credit=credit)
