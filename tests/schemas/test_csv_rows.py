"""The one CSV row writer (:func:`schemas.io.csv_line`) and every CSV the toolkit writes with it.

Python's ``csv.writer`` with a ``\\n`` line end leaves a field holding a bare ``\\r`` unquoted, and every
reader (``csv``, pandas, our :func:`schemas.tables.parse_table`) then splits the row there. The whole
mutation run of issue 27 found it in the TSV writer; these tests pin it for the others: the results CSV
of ``builder evaluate``, the adjudication sheet and decisions, and the disparity report's tables.
"""
from __future__ import annotations

import csv
import io

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from schemas.io import csv_line, tsv_field
from schemas.tables import parse_table

# Text that stresses quoting: the delimiters, the quote, every line break, and letters of other scripts.
FIELD = st.text(alphabet=st.sampled_from(list(',\t"\r\n \'ab') + ["é", "क", "漢"]), max_size=12)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(FIELD, min_size=2, max_size=4).filter(lambda r: any(r)), min_size=1, max_size=5),
       st.sampled_from([",", "\t"]))
def test_rows_read_back_field_for_field_by_csv_and_by_our_table_reader(rows, delimiter):
    width = max(len(r) for r in rows)
    rows = [r + [""] * (width - len(r)) for r in rows]
    header = [f"c{j}" for j in range(width)]
    text = "".join(csv_line(r, delimiter) for r in [header] + rows)
    assert list(csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)) == [header] + rows
    table = parse_table(text, "t.csv", delimiter=delimiter)
    # Our reader reads a CRLF inside a field as LF, by design: a CRLF file gives the fields of its LF twin.
    assert [r.fields for r in table.rows] == [[f.replace("\r\n", "\n") for f in r] for r in rows]


@settings(max_examples=200, deadline=None)
@given(FIELD)
def test_a_tsv_field_is_the_field_csv_line_writes(value):
    assert tsv_field(value) + "\t\n" == csv_line([value, ""], "\t")


def test_none_is_an_empty_field_and_numbers_are_written_as_csv_writes_them():
    assert csv_line([None, 3, 2.5, True, "x"]) == ",3,2.5,True,x\n"
    assert csv_line(["only"]) == "only\n" and csv_line([""]) == '""\n'  # csv's way to keep one empty field


def test_the_results_csv_of_an_evaluation_keeps_a_bare_carriage_return_in_its_row():
    from builder.evaluation.report import csv_text

    text = csv_text([{"variant": "eng_Latn", "model": "m\rx", "accuracy": 0.5, "n": None},
                     {"variant": "fra_Latn", "model": "y", "accuracy": float("nan"), "n": 3}],
                    ["variant", "model", "accuracy", "n"])
    assert text == 'variant,model,accuracy,n\neng_Latn,"m\rx",0.5,\nfra_Latn,y,,3\n'
    assert pd.read_csv(io.StringIO(text))["model"].tolist() == ["m\rx", "y"]


def _conflicts():
    from annotation.importer import Annotations

    codes = np.array([[0, 1], [0, 0], [1, 0]], dtype=np.int32)
    return Annotations(("1", "2", "3"), ("a1", "a2"), ("sports", "travel"), codes,
                       {"1": "old Mac\rline end", "2": "fine", "3": 'a "quoted", text\r\n'})


def test_the_adjudication_sheet_with_a_bare_carriage_return_reads_back_one_row_per_conflict(tmp_path):
    from annotation.adjudicate import decide, merge_sheet, sheet_text

    ann = _conflicts()
    decisions = decide(ann, "sib200")
    assert [d.rule for d in decisions] == ["unresolved", "majority", "unresolved"]
    text = sheet_text(ann, decisions)
    assert text.startswith('item_id,text,a1,a2,lead_label\n1,"old Mac\rline end",sports,travel,\n')
    assert [r["text"] for r in csv.DictReader(io.StringIO(text, newline=""))] == [
        "old Mac\rline end", 'a "quoted", text\r\n']
    # The lead fills in the label column; the sheet reads back with the item's text in one row.
    filled = text.replace("sports,travel,\n", "sports,travel,travel\n", 1)
    sheet = tmp_path / "sheet.csv"
    sheet.write_bytes(filled.encode("utf-8"))
    merged, stats = merge_sheet(decisions, sheet, ann.labels)
    assert stats == {"rows": 2, "adjudicated": 1, "left_empty": 1, "not_in_sheet": 0}
    assert [(d.item_id, d.label, d.rule) for d in merged] == [
        ("1", "travel", "adjudicated"), ("2", "sports", "majority"), ("3", None, "unresolved")]


def test_the_decisions_csv_keeps_a_bare_carriage_return_in_the_text_column():
    from annotation.adjudicate import decide, decisions_text

    ann = _conflicts()
    text = decisions_text(decide(ann, "sib200"), ann.texts)
    rows = list(csv.DictReader(io.StringIO(text, newline="")))
    assert [(r["item_id"], r["text"]) for r in rows] == [(i, ann.texts[i]) for i in ("1", "2", "3")]


def test_the_disparity_tables_write_as_pandas_did_and_quote_a_bare_carriage_return():
    from builder.evaluation.disparity_report import FLOAT_FORMAT, _csv

    df = pd.DataFrame({"language": ["eng_Latn", "odd\rname", None], "potential": [0.5, np.nan, 1e-7],
                       "rank": [1, 2, 3], "note": [1, "s", 2.5]})
    plain = df.assign(language=["eng_Latn", "plain", None])
    # Without a carriage return, byte for byte what pandas wrote before (the golden reports rely on it).
    assert _csv(plain) == plain.to_csv(index=False, float_format=FLOAT_FORMAT, lineterminator="\n")
    text = _csv(df)
    assert '\n"odd\rname",,2,s\n' in text
    assert pd.read_csv(io.StringIO(text))["language"].tolist()[:2] == ["eng_Latn", "odd\rname"]
