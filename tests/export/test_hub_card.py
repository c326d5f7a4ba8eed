"""The card as the Hub reads it, with ``--hub-repo``: usage lines, tags, sources, BibTeX (issue 23).

Read back with ``huggingface_hub`` (``DatasetCard``, ``DatasetCardData`` with metadata errors not
ignored) and ``datasets``' own parsers of ``configs`` and ``dataset_info``, offline. Expected values
come from outside the exporter: the Hub ids and arXiv ids of the published datasets (SIB-200 is
``Davlan/sib200``, arXiv 2309.07445; Belebele ``facebook/belebele``, arXiv 2308.16884), the split
names of the published layout (lm-eval's AfroBench task: ``validation_split: validation``), and the
lm-eval files the export writes.
"""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from oracles import DatasetCard, DatasetCardData

from builder.tasks.export import ExportOptions, run_export

TESTS = Path(__file__).parents[1]
SIB_SMALL = TESTS / "data" / "export" / "sib_small"
MC_SMALL = TESTS / "data" / "export" / "mc_small"
ANNOTATED = TESTS / "data" / "sib200" / "annotated"


@pytest.fixture(scope="module")
def hub(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("hubcard") / "out"
    run_export(ExportOptions(SIB_SMALL, out, schema="sib200", hub_repo="my-org/sib200-hi", lm_eval=True))
    return out


def _bibtex(text: str) -> list[str]:
    """The entries of the card's ```bibtex blocks, each checked to be one balanced ``@type{key, ...}``."""
    blocks = re.findall(r"^(`{3,})bibtex\n(.*?)\n\1$", text, flags=re.S | re.M)
    entries = [e.strip() for _, block in blocks for e in re.split(r"\n\n(?=@)", block)]
    for e in entries:
        assert re.match(r"@(misc|inproceedings|article)\{[a-z0-9]+,\n", e), e
        assert e.count("{") == e.count("}"), e
    return entries


def test_card_passes_huggingface_hubs_checks(hub):
    from datasets.info import DatasetInfosDict
    from datasets.utils.metadata import MetadataConfigs

    card = DatasetCard.load(hub / "README.md", ignore_metadata_errors=False)
    data = DatasetCardData(**card.data.to_dict(), ignore_metadata_errors=False)
    assert data.to_dict() == card.data.to_dict()
    assert isinstance(data.tags, list) and all(isinstance(t, str) for t in data.tags)
    assert data.source_datasets == ["extended|Davlan/sib200"]
    assert "lm-evaluation-harness" in data.tags and "sib-200" in data.tags
    configs = MetadataConfigs.from_dataset_card_data(card.data)
    assert sorted(configs) == ["hin_Deva", "hin_Latn"]
    assert sorted(DatasetInfosDict.from_dataset_card_data(card.data)) == ["hin_Deva", "hin_Latn"]


def test_hub_repo_is_named_in_the_usage_lines(hub):
    text = (hub / "README.md").read_text(encoding="utf-8")
    assert 'load_dataset("my-org/sib200-hi", "hin_Deva")' in text
    assert "<path to this folder>" not in text
    assert DatasetCard.load(hub / "README.md").data.pretty_name == "sib200-hi"  # the repo's name, not "sib_small"


def test_card_mentions_the_lm_eval_folder_and_its_groups(hub):
    text = (hub / "README.md").read_text(encoding="utf-8")
    assert "`lm_eval/`" in text and "--include_path lm_eval --tasks sib_small" in text
    for group in ("sib_small", "sib_small_native", "sib_small_romanized"):  # the group files written
        assert (hub / "lm_eval" / f"_{group}.yaml").is_file() and f"`{group}`" in text


def test_citation_is_bibtex_with_arxiv_links(hub):
    text = (hub / "README.md").read_text(encoding="utf-8")
    assert "[arXiv:2309.07445](https://arxiv.org/abs/2309.07445)" in text
    entries = _bibtex(text)
    assert len(entries) == 2  # SIB-200 and FLORES-200, whose sentences SIB-200 labels
    assert "eprint = {2309.07445}" in entries[0] and "url = {https://arxiv.org/abs/2309.07445}" in entries[0]
    assert "eprint = {2207.04672}" in entries[1]


def test_sib200_card_names_its_real_split_names(hub):
    text = (hub / "README.md").read_text(encoding="utf-8")
    prose = text.split("\n---\n", 1)[1]
    assert "`validation` for model selection" in prose
    assert "`dev`" not in prose and "| dev |" not in prose
    assert [s["split"] for s in DatasetCard.load(hub / "README.md").data.configs[0]["data_files"]] == \
        ["train", "validation", "test"]


def test_belebele_layout_cites_belebele(tmp_path):
    run_export(ExportOptions(MC_SMALL, tmp_path / "bb", schema="belebele"))
    text = (tmp_path / "bb" / "README.md").read_text(encoding="utf-8")
    assert "and The Belebele Benchmark, whose layout it has" in text
    assert "[arXiv:2308.16884](https://arxiv.org/abs/2308.16884)" in text
    assert any("eprint = {2308.16884}" in e for e in _bibtex(text))
    assert "belebele" in DatasetCard.load(tmp_path / "bb" / "README.md").data.tags
    # the sources the Hub holds are listed; those it does not (MCTest, ReClor, ...) are not invented
    assert DatasetCard.load(tmp_path / "bb" / "README.md").data.source_datasets == [
        "extended|ehovy/race", "extended|allenai/sciq"]


def test_pretty_name_comes_from_the_sources_not_the_folder(tmp_path):
    for v in ("eng_Latn", "hin_Deva"):
        shutil.copytree(ANNOTATED / v, tmp_path / "annotated" / v)
    run_export(ExportOptions(tmp_path / "annotated", tmp_path / "out", license="CC-BY-SA-4.0", source="SIB-200"))
    assert DatasetCard.load(tmp_path / "out" / "README.md").data.pretty_name == "SIB-200 (2 language variants)"
    run_export(ExportOptions(tmp_path / "annotated", tmp_path / "named", license="CC-BY-SA-4.0", source="SIB-200",
                             name="sibx"))
    assert DatasetCard.load(tmp_path / "named" / "README.md").data.pretty_name == "sibx"  # a name given is kept
