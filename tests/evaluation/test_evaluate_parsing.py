"""LLM answer parsers, pinned on real answers from SIB-200's GPT-3.5/GPT-4 outputs."""
from __future__ import annotations

import csv
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from builder.evaluation.parsing import FAILURE_KINDS_TOPIC, parse_letter, parse_topic

DATA = Path(__file__).parents[1] / "data" / "sib200"
LABELS = [x.strip() for x in (DATA / "eng" / "labels.txt").read_text(encoding="utf-8").splitlines() if x.strip()]

# (file, index_id, answer copied verbatim from the file, expected label or failure kind)
REAL = [
    ("gpt-4/eng_Latn.tsv", 1523, 'This piece of news can be categorized under "Science/Technology".',
     "science/technology"),
    ("gpt-3.5/arb_Arab.tsv", 1555, 'This piece of news seems to be related to "technology" or "transportation".',
     "science/technology"),
    ("gpt-3.5/fra_Latn.tsv", 552, "This piece of news seems to be related to health and sports.", "health"),
    ("gpt-4/arb_Arab.tsv", 978, 'This piece of news can be categorized under "Travel" and "Geography".', "travel"),
    ("gpt-3.5/eng_Latn.tsv", 1543, "This piece of news seems to be related to politics and possibly also to "
     "geography. It mentions the involvement of proxy armies fighting in various locations around the world, "
     "which suggests a geopolitical conflict.", "politics"),
    ("gpt-3.5/arb_Arab.tsv", 1981, "This piece of news is regarding science/technology. It discusses modern "
     "research telescopes being massive facilities located in remote areas with favorable weather conditions.",
     "science/technology"),
    # a label, then a hedge: the first mention wins
    ("gpt-4/eng_Latn.tsv", 1360, 'This piece of news seems to be related to "geography" as it discusses '
     "information about wildlife, which is typically categorized under geography or environmental science. "
     "However, without more context, it's hard to definitively categorize it.", "geography"),
    # refusals
    ("gpt-3.5/arb_Arab.tsv", 452, "I'm sorry, but I am unable to understand the language you have provided. "
     "Could you please provide the text in English?", "refusal"),
    ("gpt-3.5/yor_Latn.tsv", 584, "Based on the provided text, it appears to be in Yoruba language. As an AI "
     "language model, I am primarily trained in English and may not be able to accurately understand or "
     "categorize the content. If you can provide the text in English, I would be happy to assist you in "
     "categorizing the news article.", "refusal"),
    # declines before any label; the list of offered labels is not an answer
    ("gpt-3.5/arb_Arab.tsv", 1429, "This is not a piece of news. It appears to be a statement or description "
     "related to a specific topic, but it does not fall into any of the given categories of science/technology, "
     "travel, politics, sports, health, or geography.", "no_label"),
    ("gpt-3.5/eng_Latn.tsv", 1734, "This piece of information does not fall under any of the given categories. "
     "It appears to be a piece of information related to transportation or travel.", "no_label"),
    ("gpt-3.5/arb_Arab.tsv", 1360, "This is not a piece of news. It appears to be a statement about the "
     "composition of lion families.", "no_label"),
    # answered in Yoruba
    ("gpt-3.5/yor_Latn.tsv", 456, "Èyí jẹ́ àwọn àkọ́lé tí àkọ́kọ́ tí ìwé ìròyìn náà jẹ́ nípa?", "other_language"),
]


def _answer_in_file(rel: str, index_id: int) -> str:
    with open(DATA / "llm-outputs" / rel, encoding="utf-8", newline="") as fh:
        rows = list(csv.reader(fh, delimiter="\t"))
    header = rows[0]
    for row in rows[1:]:
        rec = dict(zip(header, row))
        if int(rec["index_id"]) == index_id:
            return rec[header[-1]]
    raise AssertionError(f"{rel} has no index_id {index_id}")


@pytest.mark.parametrize("rel,index_id,answer,expected", REAL)
def test_real_answers(rel, index_id, answer, expected):
    assert _answer_in_file(rel, index_id) == answer  # the string really is in the shipped file
    parsed = parse_topic(answer, LABELS)
    assert (parsed.label if parsed.ok else parsed.kind) == expected
    if not parsed.ok:
        assert parsed.kind in FAILURE_KINDS_TOPIC


def test_empty_and_non_latin_answers():
    assert parse_topic("", LABELS).kind == "empty"
    assert parse_topic("  ...  ", LABELS).kind == "empty"
    assert parse_topic("هذا خبر عن السياسة", LABELS).kind == "other_language"
    assert parse_topic("Cette nouvelle concerne la médecine", LABELS).kind == "other_language"


def test_inflections_and_case():
    assert parse_topic("A POLITICAL story.", LABELS).label == "politics"
    assert parse_topic("It is about a sporting event.", LABELS).label == "sports"
    assert parse_topic("Geographical facts.", LABELS).label == "geography"
    assert parse_topic("Entertainment news", LABELS).label == "entertainment"


@pytest.mark.parametrize("answer,letter", [
    ("B", "B"), ("(B)", "B"), ("B.", "B"), ("b", "B"), ("**C**", "C"), ("(D) The shrine", "D"),
    ("A: strong smells", "A"), ("Answer: C", "C"), ("The answer is B", "B"), ("The correct answer is (A).", "A"),
    ("Correct option: D", "D"), ("I think the answer is: C because ...", "C"),
])
def test_letter_forms(answer, letter):
    parsed = parse_letter(answer)
    assert parsed.label == letter and not parsed.lenient


def test_letter_failures_and_the_lenient_fallback():
    assert parse_letter("").kind == "empty"
    assert parse_letter("None of the options").kind == "no_letter"
    assert parse_letter("A lion family").kind == "no_letter"  # the article "A" is not an answer
    fallback = parse_letter("A lion family", lenient=True)
    assert fallback.label == "A" and fallback.lenient  # Belebele's answer[0], flagged
    assert parse_letter("(Choice B)", lenient=True).label == "B" and not parse_letter("(Choice B)").lenient
    assert parse_letter("Zebra", lenient=True).kind == "no_letter"


@settings(max_examples=40, deadline=None)
@given(st.sampled_from("ABCD"), st.sampled_from(["{}", "({})", "{}.", "Answer: {}", "The answer is {}",
                                                   "The correct answer is ({})", "{}) text"]))
def test_every_accepted_form_gives_its_letter(letter, form):
    assert parse_letter(form.format(letter)).label == letter


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(LABELS), st.sampled_from(["This is about {}.", 'Category: "{}"', "{}", "News ({})"]),
       st.booleans())
def test_a_label_alone_in_an_answer_is_found(label, form, upper):
    text = form.format(label.upper() if upper else label)
    assert parse_topic(text, LABELS).label == label


def test_labels_too_short_to_mention_give_no_label_not_a_crash():
    """Multiple-choice samples (labels A-D) scored as topics: no label has a part of 3 letters, so a
    prose answer mentions none (the empty pattern once matched everywhere and raised KeyError: None)."""
    assert parse_topic("I think the answer is B, clearly.", ["A", "B", "C", "D"]).kind == "no_label"
