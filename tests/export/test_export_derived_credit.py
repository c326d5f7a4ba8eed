"""Issue 28.1-2, 7, 10: the credit of derived variants in an export.

* the card and ATTRIBUTION.md cite what the variants' ``variant.json`` declare (in a release: the
  recipe's ``citation`` and ``source_name``), not the toolkit's built-in reference of that name;
* ATTRIBUTION.md lists the changes the build made (romanized with tool and scheme, re-split as the
  pivot, projected), read from each ``variant.json``, as CC BY-SA asks;
* a variant written with native characters left says so on the card, with the count;
* a name with a hyphen stays as given where people read it (the title), its slug names the tasks.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import yaml
from click.testing import CliRunner

from builder.cli.main import cli
from data_cards.citations import cite, link_arxiv
from schemas.variant import VariantInfo

SIB = Path(__file__).parents[1] / "data" / "sib200" / "annotated"
BIBTEX = """@inproceedings{adelani-etal-2024-sib,
  title = "{SIB}-200: A Simple, Inclusive, and Big Evaluation Dataset",
  year = "2024"
}"""


def _run(*args):
    return CliRunner().invoke(cli, ["-q", *[str(a) for a in args]])


def _dataset(tmp_path: Path) -> Path:
    built = tmp_path / "built"
    src = tmp_path / "src" / "hin_Deva"
    shutil.copytree(SIB / "hin_Deva", src)
    VariantInfo(variant="hin_Deva", kind="topic", source_name="SIB-200", license="CC-BY-SA-4.0",
                citation=BIBTEX).write(src)
    assert _run("romanize", src, "--out", built).exit_code == 0
    shutil.copytree(src, built / "hin_Deva")
    # an aligned variant, as the release's align stage records it
    aligned = json.loads((built / "hin_Deva" / "variant.json").read_text(encoding="utf-8"))
    aligned.update(method="aligned to the pivot's split", aligned={"pivot": "eng_Latn", "counts": {}})
    (built / "hin_Deva" / "variant.json").write_text(json.dumps(aligned), encoding="utf-8")
    return built


def _export(tmp_path: Path, built: Path, *extra) -> Path:
    out = tmp_path / "export"
    res = _run("export", built, "--out", out, *extra)
    assert res.exit_code == 0, res.output
    return out


def test_the_declared_citation_wins_over_the_built_in_one(tmp_path):
    out = _export(tmp_path, _dataset(tmp_path))
    card = (out / "README.md").read_text(encoding="utf-8")
    citation = card.split("## Citation", 1)[1]
    assert "adelani-etal-2024-sib" in citation and cite("sib200") not in citation
    assert link_arxiv(cite("flores200")) in citation  # SIB-200's sentences are FLORES-200's (arXiv id linked)
    attribution = (out / "ATTRIBUTION.md").read_text(encoding="utf-8")
    section = attribution.split("## SIB-200\n", 1)[1]
    assert "- Reference: @inproceedings\\{adelani-etal-2024-sib" in section or \
        "- Reference: @inproceedings{adelani-etal-2024-sib" in section
    assert cite("sib200") not in attribution


def test_attribution_lists_the_changes_of_derived_variants(tmp_path):
    out = _export(tmp_path, _dataset(tmp_path))
    section = (out / "ATTRIBUTION.md").read_text(encoding="utf-8").split("## SIB-200\n", 1)[1]
    lines = [line for line in section.splitlines() if line.startswith("- Changes made by this release: ")]
    assert len(lines) == 2, section
    assert "re-split as the pivot eng\\_Latn is split: hin\\_Deva" in lines[0] or \
        "re-split as the pivot eng_Latn is split: hin_Deva" in lines[0]
    assert "romanized with indic-transliteration" in lines[1] and "(scheme iso)" in lines[1]
    assert "hin" in lines[1] and "from" in lines[1]


def test_a_variant_with_leftovers_says_so_on_the_card(tmp_path):
    built = _dataset(tmp_path)
    path = built / "hin_Latn" / "variant.json"
    info = json.loads(path.read_text(encoding="utf-8"))
    info["native_letters_left"] = 105
    path.write_text(json.dumps(info), encoding="utf-8")
    out = _export(tmp_path, built)
    card = (out / "README.md").read_text(encoding="utf-8")
    assert "`hin_Latn` was exported with 105 native-script characters left un-romanized" in card
    attribution = (out / "ATTRIBUTION.md").read_text(encoding="utf-8")
    assert "105 native characters left" in attribution


def test_no_leftover_line_without_leftovers(tmp_path):
    card = (_export(tmp_path, _dataset(tmp_path)) / "README.md").read_text(encoding="utf-8")
    assert "native-script characters left" not in card


def test_a_hyphenated_name_is_shown_as_given_and_slugged_for_tasks(tmp_path):
    out = _export(tmp_path, _dataset(tmp_path), "--name", "sib200-full", "--lm-eval")
    card = (out / "README.md").read_text(encoding="utf-8")
    assert "pretty_name: sib200-full" in card and "\n# sib200-full\n" in card
    assert (out / "lm_eval" / "_sib200_full.yaml").is_file()


def _group(out: Path, name: str) -> dict:
    return yaml.safe_load((out / "lm_eval" / f"_{name}.yaml").read_text(encoding="utf-8"))


def test_romanized_copies_get_their_own_lm_eval_group(tmp_path):
    out = _export(tmp_path, _dataset(tmp_path), "--name", "demo", "--lm-eval")
    assert _group(out, "demo")["task"] == ["demo_hin_Deva", "demo_hin_Latn"]  # every task, as before
    assert _group(out, "demo_native")["task"] == ["demo_hin_Deva"]  # each language once
    assert _group(out, "demo_romanized")["task"] == ["demo_hin_Latn"]
    for name in ("demo_native", "demo_romanized"):
        assert _group(out, name)["group"] == name
        assert all(m["weight_by_size"] for m in _group(out, name)["aggregate_metric_list"])
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert {"lm_eval/_demo_native.yaml", "lm_eval/_demo_romanized.yaml"} <= set(manifest["files"])


def test_without_romanized_copies_one_group(tmp_path):
    built = tmp_path / "built"
    shutil.copytree(SIB / "hin_Deva", built / "hin_Deva")
    out = _export(tmp_path, built, "--name", "demo", "--lm-eval", "--license", "CC-BY-SA-4.0")
    assert sorted(p.name for p in (out / "lm_eval").glob("_demo*.yaml")) == ["_demo.yaml"]
