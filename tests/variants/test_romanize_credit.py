"""``builder romanize`` carries the source's credit and reads its inputs as every reader does (issue 12).

Credit: a romanized copy keeps ``source_name``, ``citation`` and ``license`` (with
``license_from``) of the source ``variant.json``, through the same
:func:`builder.variants.credit.carried_credit` as ``builder extend``, so the export
of ``hin_Latn`` credits SIB-200 (CC BY-SA asks for attribution) and not the folder name.

Encoding: the split files (TSV and JSONL) and ``labels.txt`` go through
:func:`schemas.io.read_text_utf8` and :mod:`schemas.tables`: a BOM and CRLF line
ends give the same output as without them; a byte that is not UTF-8 is one
``error:`` line naming the file and the line, exit 1 (bad input), no traceback.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from builder.cli.main import cli
from schemas.io import write_jsonl_atomic
from schemas.variant import VariantInfo

SIB = Path(__file__).parents[1] / "data" / "sib200" / "annotated"
CITATION = "Doe, J. (2024). Hindi News Topics: a test corpus. Example Press."


def _run(*args):
    return CliRunner().invoke(cli, ["-q", *[str(a) for a in args]])


def _hindi(tmp_path: Path, name: str = "src", **credit) -> Path:
    folder = tmp_path / name / "hin_Deva"
    shutil.copytree(SIB / "hin_Deva", folder)
    if credit:
        VariantInfo(variant="hin_Deva", kind="topic", **credit).write(folder)
    return folder


# --- credit ------------------------------------------------------------------------------------------


def test_romanize_carries_source_name_citation_and_license(tmp_path):
    src = _hindi(tmp_path, source_name="SIB-200", license="CC-BY-4.0", citation="Adelani et al. 2023")
    res = _run("romanize", src, "--out", tmp_path / "built")
    assert res.exit_code == 0, res.output
    info = VariantInfo.read(tmp_path / "built" / "hin_Latn")
    assert (info.variant, info.source_variant, info.method) == ("hin_Latn", "hin_Deva", "romanization")
    assert (info.source_name, info.citation, info.license) == ("SIB-200", "Adelani et al. 2023", "CC-BY-4.0")
    assert info.license_from == f"source variant.json ({src / 'variant.json'})"  # the same wording as extend


def test_without_a_source_variant_json_the_default_license_is_said(tmp_path):
    res = _run("romanize", SIB / "hin_Deva", "--out", tmp_path)
    assert res.exit_code == 0, res.output
    info = VariantInfo.read(tmp_path / "hin_Latn")
    assert (info.license, info.license_from, info.source_name, info.citation) == \
        ("CC-BY-SA-4.0", "default (FLORES-200 and SIB-200 are CC BY-SA 4.0)", None, None)


def test_an_unregistered_license_in_the_source_stops_romanize_like_export(tmp_path):
    src = _hindi(tmp_path, source_name="SIB-200", license="CC-BY-SA")
    res = _run("romanize", src, "--out", tmp_path / "built")
    assert res.exit_code == 1, res.output
    lines = res.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {src / 'variant.json'}, field license: "
                                                   "unknown license id 'CC-BY-SA'"), res.stderr
    assert not (tmp_path / "built" / "hin_Latn").exists()


def test_export_of_a_romanized_copy_credits_the_declared_source_and_its_citation(tmp_path):
    src = _hindi(tmp_path, source_name="Hindi News Topics", license="CC-BY-SA-4.0", citation=CITATION)
    assert _run("romanize", src, "--out", tmp_path / "built").exit_code == 0
    res = _run("export", tmp_path / "built", "--out", tmp_path / "export")
    assert res.exit_code == 0, res.output
    attribution = (tmp_path / "export" / "ATTRIBUTION.md").read_text(encoding="utf-8")
    section = attribution.split("## Hindi News Topics\n", 1)[1]
    assert f"- Reference: {CITATION}" in section
    assert "(`CC-BY-SA-4.0`); 1,004 records" in section
    assert "## built" not in attribution  # the folder name is not credited
    card = (tmp_path / "export" / "README.md").read_text(encoding="utf-8")
    assert CITATION in card.split("## Citation", 1)[1]


def test_export_of_romanized_sib200_credits_sib200(tmp_path):
    src = _hindi(tmp_path, source_name="SIB-200", license="CC-BY-SA-4.0")
    assert _run("romanize", src, "--out", tmp_path / "built").exit_code == 0
    assert _run("export", tmp_path / "built", "--out", tmp_path / "export").exit_code == 0
    attribution = (tmp_path / "export" / "ATTRIBUTION.md").read_text(encoding="utf-8")
    assert "## SIB-200" in attribution and "Adelani et al. (2023). SIB-200" in attribution
    assert "## built" not in attribution


# --- BOM, CRLF, bad bytes ----------------------------------------------------------------------------


def _bom_crlf(path: Path) -> None:
    data = path.read_bytes()
    assert b"\r" not in data
    path.write_bytes(b"\xef\xbb\xbf" + data.replace(b"\n", b"\r\n"))


def _outputs(folder: Path) -> dict[str, bytes]:
    """Every output file; variant.json without the two keys that name the input (its path and hashes)."""
    out = {}
    for f in sorted(folder.iterdir()):
        if f.name == "variant.json":
            data = json.loads(f.read_text(encoding="utf-8"))
            del data["source"], data["source_files"]
            out[f.name] = json.dumps(data, sort_keys=True).encode()
        else:
            out[f.name] = f.read_bytes()
    return out


def _mc_folder(root: Path) -> Path:
    folder = root / "hin_Deva"
    base = {"dataset": "x", "language": "hin_Deva", "passage_id": "p", "answer3": "क", "answer4": "ख",
            "correct_answer_num": 1, "license": "CC-BY-SA-4.0"}
    for split in ("train", "test"):
        rows = [dict(base, split=split, question_id=f"{split}{i}", passage="नमस्ते। कैसे हैं?", question="कौन?",
                     answer1="नमस्ते", answer2="ग", correct_answer="नमस्ते") for i in range(3)]
        write_jsonl_atomic(folder / f"{split}.jsonl", rows)
    return folder


@pytest.mark.parametrize("kind", ["tsv", "jsonl"])
def test_bom_and_crlf_give_the_same_output(tmp_path, kind):
    plain = _hindi(tmp_path, "plain") if kind == "tsv" else _mc_folder(tmp_path / "plain")
    marked = tmp_path / "marked" / "hin_Deva"
    shutil.copytree(plain, marked)
    for f in marked.iterdir():
        _bom_crlf(f)  # every split file, and labels.txt
    for name in ("plain", "marked"):
        res = _run("romanize", tmp_path / name / "hin_Deva", "--out", tmp_path / f"out_{name}")
        assert res.exit_code == 0, res.output
    a, b = _outputs(tmp_path / "out_plain" / "hin_Latn"), _outputs(tmp_path / "out_marked" / "hin_Latn")
    assert a == b
    assert not any("\ufeff" in v.decode("utf-8") or b"\r" in v for v in b.values())


@pytest.mark.parametrize("file, line", [("test.jsonl", 2), ("train.jsonl", 3)])
def test_a_bad_byte_in_a_jsonl_split_is_one_line_naming_file_and_line(tmp_path, file, line):
    folder = _mc_folder(tmp_path)
    lines = (folder / file).read_bytes().split(b"\n")
    lines[line - 1] = lines[line - 1].replace(b'"p"', b'"p\xe9"', 1)  # a Latin-1 byte, as a re-saved file has it
    (folder / file).write_bytes(b"\n".join(lines))
    offset = (folder / file).read_bytes().index(b"\xe9")
    res = _run("romanize", folder, "--out", tmp_path / "out")
    assert res.exit_code == 1, res.output
    errors = [x for x in res.stderr.splitlines() if x.strip()]
    assert errors == [f"error: {folder / file}, line {line}: not valid UTF-8 at byte {offset} "
                      "(0xe9, invalid continuation byte)"]
    assert "Traceback" not in res.stderr and not (tmp_path / "out" / "hin_Latn").exists()


def test_a_bad_byte_in_labels_txt_is_one_line_naming_file_and_line(tmp_path):
    folder = _hindi(tmp_path)
    labels = (folder / "labels.txt").read_bytes().split(b"\n")
    labels[2] = b"\xff" + labels[2]
    (folder / "labels.txt").write_bytes(b"\n".join(labels))
    res = _run("romanize", folder, "--out", tmp_path / "out")
    assert res.exit_code == 1, res.output
    errors = [x for x in res.stderr.splitlines() if x.strip()]
    assert len(errors) == 1 and errors[0].startswith(f"error: {folder / 'labels.txt'}, line 3: not valid UTF-8"), \
        res.stderr
    assert "invalid start byte" in errors[0] and not (tmp_path / "out" / "hin_Latn").exists()
