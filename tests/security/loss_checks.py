"""Setup steps and checks of the ``loss_*`` hostile cases: odd values are refused or counted, never lost.

A score given as text, a results file of the wrong shape, a NUL in an annotator name or a
translation, a degenerate contingency table, a train split of one label: each used to be left
out silently, written on, or a traceback. The setup steps write the inputs a case folder cannot
hold as a plain file (NUL bytes, mutated lm-eval results); the checks read the outputs back.
"""
from __future__ import annotations

import json
from pathlib import Path

DATA = Path(__file__).parents[1] / "data"
LM_EVAL = DATA / "export" / "lm-eval-output"


def _results(model: str) -> dict:
    (path,) = (LM_EVAL / model).glob("results_*.json")
    return json.loads(path.read_text(encoding="utf-8"))


def _write_results(work: Path, name: str, data) -> None:
    folder = work / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "results_2026-11-30T19-12-22.693966.json").write_text(json.dumps(data, indent=2), encoding="utf-8")


def text_score(work: Path, subs: dict) -> None:
    """dummy-a's lm-eval results with ``results.sib_hau_Latn["acc,none"]`` given as the text ``"0.2x"``."""
    data = _results("dummy-a")
    data["results"]["sib_hau_Latn"]["acc,none"] = "0.2x"
    _write_results(work, "dummy-a", data)


#: (key path, how it is broken) of the malformed results files, each refused naming the file and the key.
MALFORMED = {
    "results": lambda d: d.__setitem__("results", [["sib_eng_Latn", {"acc,none": 0.2}]]),
    "results_text": lambda d: d.__setitem__("results", "sib_eng_Latn"),
    "results_number": lambda d: d.__setitem__("results", 3),
    "results.sib_eng_Latn": lambda d: d["results"].__setitem__("sib_eng_Latn", [0.2, 0.4]),
    "configs": lambda d: d.pop("configs"),
    "results.sib_hau_Latn.acc,none": lambda d: d["results"]["sib_hau_Latn"].__setitem__("acc,none", float("nan")),
    "results.sib_hau_Latn.acc_norm,none": lambda d: d["results"]["sib_hau_Latn"].__setitem__(
        "acc_norm,none", float("inf")),
    "results.sib_eng_Latn.acc_norm,none": lambda d: d["results"]["sib_eng_Latn"].__setitem__(
        "acc_norm,none", {"value": 0.4}),
    "group_subtasks.sib": lambda d: d.__setitem__("group_subtasks", {"sib": 3}),
    "configs.sib_eng_Latn": lambda d: d["configs"].__setitem__("sib_eng_Latn", ["eng_Latn"]),
    "config.model_args": lambda d: d["config"].__setitem__("model_args", ["pretrained=dummy-a"]),
}


def malformed_results(work: Path, subs: dict) -> None:
    """The case's own file: ``results`` a list of pairs (what a ``dict(...)`` call choked on)."""
    data = _results("dummy-a")
    MALFORMED["results"](data)
    _write_results(work, "dummy-a", data)


def every_malformed_shape_is_one_line(result, work: Path, subs: dict) -> None:
    """Each other broken shape, through the CLI: exit 1 and one ``error:`` line naming the file and the key."""
    from corpus import invoke

    other = next((LM_EVAL / "dummy-b").glob("results_*.json"))
    for key, breaks in MALFORMED.items():
        data = _results("dummy-a")
        breaks(data)
        name = f"shape_{len(list(work.iterdir()))}"
        _write_results(work, name, data)
        path = next((work / name).glob("results_*.json"))
        res = invoke(["disparity", str(path), str(other), "--out", str(work / name / "out")])
        lines = [line for line in res.stderr.splitlines() if line.strip()]
        assert res.exit_code == 1, (key, res.exit_code, res.stderr)
        assert len(lines) == 1 and lines[0].startswith("error: "), (key, res.stderr)
        expected = key.split("_")[0] if key.startswith("results_") else key
        assert f"{path}, {expected}: " in lines[0], (key, lines[0])
        assert not (work / name / "out").exists(), key


def annotator_nul(work: Path, subs: dict) -> None:
    """tests/data/annotation/sib_small_long.csv with annotator ``ann2`` of line 3 written ``ann\\0002``."""
    text = (DATA / "annotation" / "sib_small_long.csv").read_bytes()
    lines = text.split(b"\n")
    assert lines[2].startswith(b"611,ann2,")
    lines[2] = lines[2].replace(b"ann2", b"ann\x002", 1)
    (work / "annotations.csv").write_bytes(b"\n".join(lines))


def annotator_wide_nul(work: Path, subs: dict) -> None:
    """tests/data/annotation/sib_small_wide.tsv with the header's ``ann3`` written ``ann\\0003``."""
    text = (DATA / "annotation" / "sib_small_wide.tsv").read_bytes()
    (work / "annotations.tsv").write_bytes(text.replace(b"\tann3\t", b"\tann\x003\t", 1))


def annotator_escaped_control(work: Path, subs: dict) -> None:
    """tests/data/annotation/sib_small_long.jsonl with line 3's annotator ``"ann\\u001b[2J2"`` (a JSON escape:
    no NUL byte in the file, the control character only in the decoded value)."""
    lines = (DATA / "annotation" / "sib_small_long.jsonl").read_text(encoding="utf-8").splitlines()
    row = json.loads(lines[2])
    row["annotator"] = "ann\x1b[2J" + row["annotator"][3:]
    lines[2] = json.dumps(row)
    (work / "annotations.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


def skipped_control_character(result, work: Path, subs: dict) -> None:
    """Nothing written: the failed run left no output (the skip run is checked by ``skip.contains``)."""
    assert not (work / "out").exists()


def translation_nul(work: Path, subs: dict) -> None:
    """tests/data/variants/mc/fra_Latn.tsv with a NUL inside the question of line 3 (q2)."""
    text = (DATA / "variants" / "mc" / "fra_Latn.tsv").read_bytes()
    lines = text.split(b"\n")
    assert lines[2].startswith(b"q2\t")
    lines[2] = lines[2].replace(b"Tom a", b"Tom\x00 a", 1)
    (work / "fra_Latn.tsv").write_bytes(b"\n".join(lines))


def parallel_nul(work: Path, subs: dict) -> None:
    """The 12-line FLORES parallel sample of tests/data/bad/extend_parallel_invalid_utf8 made clean (its stray
    byte removed), then a NUL put at the start of line 5."""
    case = DATA / "bad" / "extend_parallel_invalid_utf8"
    lines = (case / "nqo_Nkoo.dev").read_bytes().replace(b"\xff", b"").split(b"\n")
    lines[4] = b"\x00" + lines[4]
    (work / "nqo_Nkoo.dev").write_bytes(b"\n".join(lines))


def empty_split(work: Path, subs: dict) -> None:
    """tests/data/export/sib_small with hin_Deva's test split emptied (its header only): a column of zeros in
    the labels x splits table, which made scipy's chi2_contingency raise."""
    import shutil

    shutil.copytree(DATA / "export" / "sib_small", work / "sib_small")
    test = work / "sib_small" / "hin_Deva" / "test.tsv"
    test.write_text(test.read_text(encoding="utf-8").splitlines()[0] + "\n", encoding="utf-8")
    (work / "qc.yaml").write_text("checks:\n  label_distribution:\n    min_count: 0\n", encoding="utf-8")


def chi2_not_computed(result, work: Path, subs: dict) -> None:
    """The report says why the chi-square test was not computed for hin_Deva, and computes it for hin_Latn."""
    report = json.loads((work / "out" / "qc_report.json").read_text(encoding="utf-8"))
    found = {}

    def walk(node):
        if isinstance(node, dict):
            if node.get("check") == "label_distribution":
                found[node["variant"]] = node
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(report)
    deva, latn = found["hin_Deva"], found["hin_Latn"]
    assert deva["statistic"] is None and deva["p_value"] is None and not deva["skipped"]
    assert deva["chi2_skipped"] == "split 'test' has no rows", deva
    assert "chi-square not computed: split 'test' has no rows" in deva["detail"]
    assert latn["statistic"] is not None and "chi2_skipped" not in latn


def translation_json_nul(work: Path, subs: dict) -> None:
    """tests/data/variants/mc/fra_Latn.tsv as JSONL, line 2 (q2)'s passage holding the JSON escape ``\\u0000``
    (no NUL byte in the file: the NUL is in the decoded value)."""
    import csv

    with open(DATA / "variants" / "mc" / "fra_Latn.tsv", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))
    assert rows[1]["question_id"] == "q2"
    rows[1]["passage"] = rows[1]["passage"].replace("Tom a", "Tom\x00 a", 1)
    (work / "fra_Latn.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                                         encoding="utf-8")
