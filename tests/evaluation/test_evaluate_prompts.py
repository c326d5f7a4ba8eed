"""Belebele's five-shot and zero-shot prompts, and `builder evaluate prompts`."""
from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from builder.cli.main import cli
from builder.evaluation.prompts import five_shot_prompt, zero_shot_prompt

DATA = Path(__file__).parents[1] / "data"

# The full example of Belebele's sample_zero_shot_instructions.md (facebookresearch/belebele).
BELEBELE_ITEM = {
    "passage": "Though many of the animals in the park are used to seeing humans, the wildlife is nonetheless wild "
               "and should not be fed or disturbed. According to park authorities, stay at least 100 yards/meters "
               "away from bears and wolves and 25 yards/meters from all other wild animals! No matter how docile "
               "they may look, bison, elk, moose, bears, and nearly all large animals can attack. Each year, dozens "
               "of visitors are injured because they didn't keep a proper distance. These animals are large, wild, "
               "and potentially dangerous, so give them their space. In addition, be aware that odors attract bears "
               "and other wildlife, so avoid carrying or cooking odorous foods and keep a clean camp.",
    "question": "Which of the following is not mentioned in the passage as a possible cause of wildlife attacks?",
    "answer1": "Strong smells", "answer2": "Failure to maintain distance", "answer3": "Feeding the wildlife",
    "answer4": "Animals that are unfamiliar with humans", "correct_answer_num": 4,
}
BELEBELE_PROMPT = (
    "Given the following passage, query, and answer choices, output the letter corresponding to the correct "
    "answer.\n###\nPassage:\n" + BELEBELE_ITEM["passage"] + "\n###\nQuery:\n" + BELEBELE_ITEM["question"]
    + "\n###\nChoices:\n(A) Strong smells\n(B) Failure to maintain distance\n(C) Feeding the wildlife\n"
    "(D) Animals that are unfamiliar with humans\n###\nAnswer:\n"
)


def test_zero_shot_prompt_matches_belebeles_sample():
    assert zero_shot_prompt(BELEBELE_ITEM) == BELEBELE_PROMPT


def test_five_shot_prompt_has_five_answered_examples_then_an_open_item():
    prompt = five_shot_prompt([BELEBELE_ITEM] * 5, BELEBELE_ITEM)
    blocks = prompt.split("P: ")[1:]
    assert len(blocks) == 6
    assert all(b.endswith("Answer: D\n") for b in blocks[:5])
    assert blocks[5].endswith("D: Animals that are unfamiliar with humans\nAnswer:")


def test_cli_renders_prompts_per_variant(tmp_path, golden):
    result = CliRunner().invoke(cli, ["evaluate", "prompts", str(DATA / "qc" / "pivot"), "--mode", "five-shot",
                                      "--shots-from", str(DATA / "qc" / "clean"), "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    manifest = json.loads((tmp_path / "prompts.json").read_text(encoding="utf-8"))
    assert manifest["shots"]["variant"] == "eng_Latn" and len(manifest["shots"]["ids"]) == 5
    assert {v: m["n"] for v, m in manifest["variants"].items()} == {"eng_Latn": 40, "fra_Latn": 39, "hin_Deva": 40}
    rows = [json.loads(x) for x in (tmp_path / "prompts" / "hin_Deva.five-shot.jsonl").read_text(
        encoding="utf-8").splitlines()]
    assert len(rows) == 40 and all(r["prompt"].count("Answer:") == 6 for r in rows)
    assert {r["gold"] for r in rows} <= set("ABCD")
    golden("evaluation/five_shot_prompt.txt", rows[0]["prompt"] + "\n")

    result = CliRunner().invoke(cli, ["evaluate", "prompts", str(DATA / "qc" / "pivot"), "--mode", "zero-shot",
                                      "--variant", "eng_Latn", "--out", str(tmp_path / "zero")])
    assert result.exit_code == 0, result.output
    first = json.loads((tmp_path / "zero" / "prompts" / "eng_Latn.zero-shot.jsonl").read_text(
        encoding="utf-8").splitlines()[0])
    assert first["prompt"].startswith("Given the following passage") and first["prompt"].endswith("###\nAnswer:\n")


def test_five_shot_without_english_training_items_is_refused(tmp_path):
    result = CliRunner().invoke(cli, ["evaluate", "prompts", str(DATA / "qc" / "pivot"), "--mode", "five-shot",
                                      "--out", str(tmp_path)])
    assert result.exit_code == 2  # a usage error: the command needs --shots-from here
    assert "has no train split (pass --shots-from DIR)" in result.output


def test_topic_dataset_has_no_mc_prompts(tmp_path):
    result = CliRunner().invoke(cli, ["evaluate", "prompts", str(DATA / "sib200" / "annotated"), "--variant",
                                      "eng_Latn", "--mode", "zero-shot", "--out", str(tmp_path)])
    assert result.exit_code == 2 and "need a multiple-choice dataset" in result.output
