"""Atomic writes, deterministic output, and the SIB-200 TSV round trip on real files."""
from pathlib import Path

import pytest

from schemas.io import (atomic_path, dumps_json, read_sib_tsv, read_text_utf8, sib_tsv_text, staging_dir,
                        write_parquet_atomic, sha256_file, write_text_atomic)
from schemas import SchemaError, SourceError, SourceNotFoundError

SIB = Path(__file__).parents[1] / "data" / "sib200"


@pytest.mark.parametrize("variant", ["eng_Latn", "hin_Deva", "zho_Hans", "nqo_Nkoo", "urd_Arab"])
@pytest.mark.parametrize("split", ["train", "dev", "test"])
def test_sib_tsv_round_trips_byte_for_byte(variant, split):
    path = SIB / "annotated" / variant / f"{split}.tsv"
    assert sib_tsv_text(read_sib_tsv(path)).encode("utf-8") == path.read_bytes()


def test_quoted_fields_are_parsed_not_split():
    rows = read_sib_tsv(SIB / "eng" / "train.tsv")
    assert len(rows) == 701
    assert any('"' in r["text"] for r in rows)  # real rows with doubled quotes survive


def test_wrong_field_count_names_the_line(tmp_path):
    p = tmp_path / "bad.tsv"
    p.write_text("index_id\tcategory\ttext\n1\tsports\tok\n2\tsports\n", encoding="utf-8")
    with pytest.raises(SchemaError, match=r"bad.tsv, line 3: expected 3 fields as in the header, found 2"):
        read_sib_tsv(p)


def test_wrong_encoding_names_the_line(tmp_path):
    p = tmp_path / "latin1.tsv"
    p.write_bytes("index_id\tcategory\ttext\n1\tsports\tcaf\xe9\n".encode("latin-1"))
    with pytest.raises(SourceError, match=r"latin1.tsv, line 2: not valid UTF-8"):
        read_text_utf8(p)


def test_missing_file_is_file_not_found(tmp_path):
    with pytest.raises(SourceNotFoundError):
        read_sib_tsv(tmp_path / "nope.tsv")


def test_atomic_write_keeps_old_file_on_failure(tmp_path):
    target = write_text_atomic(tmp_path / "out.txt", "old\n")
    with pytest.raises(RuntimeError):
        with atomic_path(target) as tmp:
            tmp.write_text("half-writ")
            raise RuntimeError("interrupted")
    assert target.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]


def test_staging_dir_replaces_whole_folder_only_on_success(tmp_path):
    out = tmp_path / "build"
    with staging_dir(out) as d:
        (d / "a.txt").write_text("1")
    with pytest.raises(RuntimeError):
        with staging_dir(out) as d:
            (d / "b.txt").write_text("2")
            raise RuntimeError("interrupted")
    assert sorted(p.name for p in out.iterdir()) == ["a.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["build"]


def test_json_and_parquet_are_deterministic(tmp_path):
    import pandas as pd

    assert dumps_json({"b": 1, "a": "ä"}) == '{\n  "a": "ä",\n  "b": 1\n}\n'
    frame = pd.DataFrame({"x": [1, 2], "y": ["a", "b"]})
    a = write_parquet_atomic(tmp_path / "a.parquet", frame)
    b = write_parquet_atomic(tmp_path / "b.parquet", frame.copy())
    assert sha256_file(a) == sha256_file(b)


def test_outputs_get_the_umask_modes_not_private_temp_modes(tmp_path):
    import os

    mask = os.umask(0o022)
    try:
        f = write_text_atomic(tmp_path / "x.txt", "x\n")
        with staging_dir(tmp_path / "build") as d:
            write_text_atomic(d / "y.txt", "y\n")
    finally:
        os.umask(mask)
    assert f.stat().st_mode & 0o777 == 0o644
    assert (tmp_path / "build").stat().st_mode & 0o777 == 0o755
    assert (tmp_path / "build" / "y.txt").stat().st_mode & 0o777 == 0o644


def test_staging_dir_refuses_a_foreign_non_empty_folder(tmp_path):
    from schemas.io import check_replaceable
    from schemas import UsageError

    out = tmp_path / "out"
    out.mkdir()
    (out / "thesis.tex").write_text("precious\n")
    with pytest.raises(UsageError, match=r"out: a non-empty folder without manifest.json: it is not an earlier "
                                         r"export output"):
        with staging_dir(out, marker="manifest.json", what="export") as d:
            (d / "manifest.json").write_text("{}")
    assert [p.name for p in out.iterdir()] == ["thesis.tex"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]  # no staging folder left behind
    (out / "manifest.json").write_text("{}")  # an earlier output may be replaced
    check_replaceable(out, "manifest.json", "export")
    check_replaceable(tmp_path / "new", "manifest.json", "export")


@pytest.mark.parametrize("args", [
    ["export", "{sib}/annotated/nqo_Nkoo", "--license", "CC-BY-SA-4.0", "--out", "{out}"],
    ["annotate", "split", "{sib}/eng/train.tsv", "--out", "{out}"],
])
def test_commands_keep_a_foreign_output_folder(tmp_path, args):
    from click.testing import CliRunner

    from builder.cli.main import cli

    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("keep me\n")
    result = CliRunner().invoke(cli, [a.format(sib=SIB, out=out) for a in args])
    assert result.exit_code == 2, result.output
    assert "is not an earlier" in result.output
    assert [p.name for p in out.iterdir()] == ["notes.txt"]


def test_a_bare_carriage_return_in_a_field_is_quoted_and_read_back(tmp_path):
    """Python's csv writer, with a ``\\n`` line end, leaves a field holding a bare ``\\r`` unquoted, and
    every reader (csv, pandas) then splits the row at it: a SIB sentence or an assembled passage with an
    old Mac line end became two broken rows. Found by the whole mutation run (issue 27)."""
    import csv
    import io

    import pandas as pd

    rows = [{"index_id": 1, "category": "science/technology", "text": "one\rtwo"},
            {"index_id": 2, "category": "travel", "text": 'a "quote"\tand a tab'}]
    text = sib_tsv_text(rows)
    assert text == 'index_id\tcategory\ttext\n1\tscience/technology\t"one\rtwo"\n2\ttravel\t"a ""quote""\tand a tab"\n'
    p = tmp_path / "train.tsv"
    p.write_bytes(text.encode("utf-8"))
    assert [dict(r, index_id=int(r["index_id"])) for r in read_sib_tsv(p)] == rows
    assert list(csv.DictReader(io.StringIO(text, newline=""), delimiter="\t"))[0]["text"] == "one\rtwo"
    assert pd.read_csv(p, sep="\t")["text"].tolist() == ["one\rtwo", 'a "quote"\tand a tab']
