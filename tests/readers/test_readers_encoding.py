"""A UTF-8 byte-order mark and CRLF or LF line ends are harmless: every reader gives the same records.

Issue 12: a BOM was refused by five corpus readers ("Unexpected UTF-8 BOM") and
ended up inside the MCTest ids (``\\ufeffmc500.train.0``). Each case below reads
a real sample, then a copy of it in which every text file got a BOM, CRLF line
ends, LF line ends, or a BOM and CRLF, and asserts the records are equal, field
by field (ids, texts, file names and line numbers included).

Every registered corpus reader must have a case here (as sklearn's
``test_common`` does for its estimators): a new reader that is not listed
fails :func:`test_every_reader_is_covered`.
"""
from __future__ import annotations

import csv
import io
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from builder.readers import READERS
from schemas.tables import parse_table, split_lines

DATA = Path(__file__).resolve().parents[1] / "data"
BOM = b"\xef\xbb\xbf"
TEXT_SUFFIXES = {".txt", ".json", ".jsonl", ".csv", ".tsv", ".ans", ".xml", ".dev", ".devtest"}


def _lf(data: bytes) -> bytes:
    return data.replace(b"\r\n", b"\n")


def _crlf(data: bytes) -> bytes:
    return _lf(data).replace(b"\n", b"\r\n")


TRANSFORMS = {
    "bom": lambda d: BOM + d,
    "crlf": _crlf,
    "lf": _lf,
    "bom+crlf": lambda d: BOM + _crlf(d),
}


def _copy(src: Path, dst: Path, transform) -> Path:
    """Copy a file or folder, passing every text file through ``transform``."""
    if src.is_dir():
        shutil.copytree(src, dst)
        files = [p for p in dst.rglob("*") if p.is_file()]
    else:
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dst)
        files = [dst]
    texts = [p for p in files if p.suffix in TEXT_SUFFIXES]
    assert texts, f"{src}: no text file to transform"
    for p in texts:  # "lf" leaves an LF file as it is: that copy is the control
        p.write_bytes(transform(p.read_bytes()))
    return dst


JSONL_COLS = {"passage": "context", "question": "q", "options": "choices", "answer": "label",
              "passage_id": "meta.pid"}
CSV_COLS = {"passage": "context", "question": "q", "options": ["a", "b", "c", "d"], "answer": "label",
            "passage_id": "pid"}

#: (reader, sample folder under tests/data, splits, options)
READER_CASES = {
    "race": ("race", "sources/race", None, {}),
    "sciq": ("sciq", "sources/sciq", None, {}),
    "reclor": ("reclor", "sources/reclor", ["val"], {}),
    "mctest": ("mctest", "sources/mctest", ["train", "dev"], {}),
    "mcscript": ("mcscript", "sources/mcscript", None, {}),
    "multirc-splitv2": ("multirc", "readers/multirc_splitv2", None, {}),
    "multirc-superglue": ("multirc", "readers/multirc_superglue", None, {}),
    "jsonl": ("jsonl", "readers/generic", ["train"], {"columns": JSONL_COLS}),
    "csv": ("csv", "readers/generic", ["train"], {"columns": CSV_COLS}),
    "csv-tsv": ("csv", "readers/generic", ["train"], {"columns": CSV_COLS, "pattern": "{split}.tsv"}),
}


def test_every_reader_is_covered():
    assert set(READERS) == {case[0] for case in READER_CASES.values()}


def _records(name, root, splits, options):
    return list(READERS[name](root, splits, **options))


@pytest.mark.parametrize("transform", sorted(TRANSFORMS))
@pytest.mark.parametrize("case", sorted(READER_CASES))
def test_reader_records_do_not_depend_on_bom_or_line_ends(case, transform, tmp_path):
    name, sample, splits, options = READER_CASES[case]
    expected = _records(name, DATA / sample, splits, options)
    assert expected and not any(hasattr(r, "reason") for r in expected)
    root = _copy(DATA / sample, tmp_path / "copy", TRANSFORMS[transform])
    got = _records(name, root, splits, options)
    assert got == expected
    assert not any("\ufeff" in str(v) or "\r" in str(v) for r in got for v in (r.passage_id, r.question_id,
                                                                                  r.question, *r.options))


# -- table readers of the other stages -------------------------------------------------------------------
def _sib(p):
    from schemas.io import read_sib_tsv

    return read_sib_tsv(p)


def _disparity(p):
    from builder.evaluation.disparity_io import read_records

    return read_records(p).table.to_dict("records")


def _predictions(p):
    from builder.evaluation.llm_scoring import read_prediction_file

    return read_prediction_file(p).to_dict("list")


def _annotations(p):
    from annotation.importer import read_annotations

    ann = read_annotations(p)
    return ann.item_ids, ann.annotators, ann.labels, ann.codes.tolist(), ann.texts


def _labels(p):
    from annotation.importer import read_labels

    return read_labels(p)


def _labelled(p):
    from annotation.labelled import read_labelled

    return read_labelled(p)


def _translations(p):
    from builder.variants.project_mc import read_translations

    return read_translations(p)


def _parallel(p):
    from builder.variants.parallel import read_parallel

    text = read_parallel([p / "nqo_Nkoo.dev", p / "nqo_Nkoo.devtest"])
    return text.lines, [(f.name, f.offset, f.n_lines) for f in text.files]


def _split_file(p):
    from schemas.dataset import read_table

    return read_table(p).to_dict("records")


def _sheet(p):
    from annotation.adjudicate import decide, merge_sheet
    from annotation.importer import read_annotations, read_labels

    labels = read_labels(DATA / "annotation" / "labels.txt")
    decisions = decide(read_annotations(DATA / "annotation" / "sib_small_long.csv", labels=labels))
    return merge_sheet(decisions, p, labels)


#: (function, sample under tests/data): every reader of a text table outside builder/readers/
TABLE_CASES = {
    "sib-tsv": (_sib, "sib200/annotated/hin_Deva/train.tsv"),
    "sib-tsv-quotes": (_sib, "sib200/eng/train.tsv"),
    "disparity-csv": (_disparity, "disparity/small_records.csv"),
    "disparity-tsv": (_disparity, "disparity/small_records.tsv"),
    "disparity-json": (_disparity, "disparity/small_records.json"),
    "disparity-jsonl": (_disparity, "disparity/small_records.jsonl"),
    "predictions-jsonl": (_predictions, "evaluation/mc_predictions.jsonl"),
    "predictions-tsv": (_predictions, "sib200/llm-outputs/gpt-3.5/hin_Deva.tsv"),
    "annotations-long-csv": (_annotations, "annotation/sib_small_long.csv"),
    "annotations-long-jsonl": (_annotations, "annotation/sib_small_long.jsonl"),
    "annotations-wide-tsv": (_annotations, "annotation/sib_small_wide.tsv"),
    "labels": (_labels, "annotation/labels.txt"),
    "labelled-sib-folder": (_labelled, "sib200/eng"),
    "translations-tsv": (_translations, "variants/mc/fra_Latn.tsv"),
    "parallel": (_parallel, "sib200/flores-raw"),
    "split-jsonl": (_split_file, "export/mc_small/train.jsonl"),
}


@pytest.mark.parametrize("transform", sorted(TRANSFORMS))
@pytest.mark.parametrize("case", sorted(TABLE_CASES))
def test_table_readers_do_not_depend_on_bom_or_line_ends(case, transform, tmp_path):
    read, sample = TABLE_CASES[case]
    src = DATA / sample
    expected = read(src)
    got = read(_copy(src, tmp_path / "copy" / src.name, TRANSFORMS[transform]))
    assert got == expected


@pytest.mark.parametrize("transform", sorted(TRANSFORMS))
def test_adjudication_sheet_does_not_depend_on_bom_or_line_ends(transform, tmp_path):
    from annotation.adjudicate import decide, sheet_text
    from annotation.importer import read_annotations, read_labels

    labels = read_labels(DATA / "annotation" / "labels.txt")
    ann = read_annotations(DATA / "annotation" / "sib_small_long.csv", labels=labels)
    rows = list(csv.reader(io.StringIO(sheet_text(ann, decide(ann)))))
    label_at = rows[0].index("lead_label")
    for row in rows[1:3]:
        row[label_at] = labels[0]  # the lead filled in two conflicts
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    plain = tmp_path / "sheet.csv"
    plain.write_text(buf.getvalue(), encoding="utf-8")
    expected = _sheet(plain)
    assert expected[1]["adjudicated"] == 2
    assert _sheet(_copy(plain, tmp_path / "copy" / "sheet.csv", TRANSFORMS[transform])) == expected


# -- properties of the shared layer ----------------------------------------------------------------------
_cell = st.text(st.sampled_from(list('ab, \t"\nसé\u2028')), max_size=6)


@settings(max_examples=60, deadline=None)
@given(rows=st.lists(st.lists(_cell, min_size=3, max_size=3), min_size=1, max_size=5),
       delimiter=st.sampled_from([",", "\t"]), ending=st.sampled_from(["\n", "\r\n"]), bom=st.booleans())
def test_parse_table_round_trips_whatever_the_line_ends(rows, delimiter, ending, bom):
    buf = io.StringIO()
    csv.writer(buf, delimiter=delimiter, lineterminator=ending).writerows([["x", "y", "z"], *rows])
    text = ("\ufeff" if bom else "") + buf.getvalue()
    if ending == "\r\n":  # a CRLF file has CRLF inside its quoted fields too
        text = text.replace("\r\n", "\n").replace("\n", "\r\n")
    table = parse_table(text, "t.csv", delimiter=delimiter)
    assert table.header == ["x", "y", "z"]
    assert [r.fields for r in table.rows] == rows


@settings(max_examples=60, deadline=None)
@given(lines=st.lists(st.text(st.sampled_from(list("ab \u2028\x0b\x1cह")), max_size=5), max_size=6),
       ending=st.sampled_from(["\n", "\r\n"]), final=st.booleans())
def test_split_lines_splits_on_line_feeds_only(lines, ending, final):
    text = "".join(line + ending for line in lines)
    if not final and lines and lines[-1]:
        text = text[: -len(ending)]  # the last line may lack its line end
    assert split_lines(text) == lines
