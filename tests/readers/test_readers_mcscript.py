"""MCScript reader on the real sample (MCScript 1.0, same XML schema as 2.0) and crafted bad files."""
from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import Counter

import pytest

from builder.readers import READERS, BadRecord, RawMCItem
from schemas.errors import RecipeError, SourceError


def test_mcscript_two_options_one_correct(sources):
    items = list(READERS["mcscript"](sources / "mcscript", ["train", "dev"]))
    assert all(isinstance(it, RawMCItem) for it in items)
    assert Counter(it.split for it in items) == {"train": 43, "dev": 46}
    assert all(len(it.options) == 2 and len(it.correct) == 1 for it in items)
    # the README: train 35 text / 8 commonsense, dev 32 / 14
    assert Counter((it.split, it.meta["type"]) for it in items) == {
        ("train", "text"): 35, ("train", "commonsense"): 8, ("dev", "text"): 32, ("dev", "commonsense"): 14}
    assert [p for p in dict.fromkeys(it.passage_id for it in items if it.split == "train")] == [
        f"train/{i}" for i in (5, 11, 14, 21, 30, 34)]


def test_mcscript_matches_elementtree_and_escapes(sources):
    """Every item equals what ElementTree reads from the same file; ``&quot;`` comes out as ``"``."""
    path = sources / "mcscript" / "train-data.xml"
    expected = []
    for inst in ET.parse(path).getroot().iter("instance"):
        for q in inst.iter("question"):
            ans = q.findall("answer")
            expected.append((inst.find("text").text, q.get("text"), [a.get("text") for a in ans],
                             [i for i, a in enumerate(ans) if a.get("correct") == "True"]))
    items = list(READERS["mcscript"](sources / "mcscript", ["train"]))
    assert [(it.passage, it.question, it.options, it.correct) for it in items] == expected
    assert any('"use the bathroom"' in it.passage for it in items)
    assert not any("&quot;" in it.passage or "&amp;" in it.passage for it in items)
    first = items[0]
    assert (first.question_id, first.record, first.meta["scenario"]) == ("train/5#0", "line 7", "walking a dog")


def test_mcscript_malformed_xml(crafted):
    root = crafted / "mcscript_malformed_xml"
    with pytest.raises(SourceError, match=r"train-data\.xml, line 14: malformed XML: not well-formed"):
        list(READERS["mcscript"](root, ["train"]))
    recs = list(READERS["mcscript"](root, ["train"], on_error="skip"))
    assert [type(r) for r in recs] == [RawMCItem, BadRecord]
    assert recs[0].passage.endswith('said "ready" when it was done.')
    assert recs[1].reason == "malformed_xml" and recs[1].record == "line 14"


def test_mcscript_missing_field_and_splits(crafted, sources):
    root = crafted / "mcscript_missing_field"
    with pytest.raises(SourceError, match=r"line 1[0-9]: question 0: an answer lacks .* \[missing_field\]"):
        list(READERS["mcscript"](root, ["dev"]))
    recs = list(READERS["mcscript"](root, ["dev"], on_error="skip"))
    assert [getattr(r, "reason", None) for r in recs] == [None, "missing_field"]
    with pytest.raises(RecipeError, match="allowed: train, dev, test"):
        READERS["mcscript"](sources / "mcscript", ["val"])
