"""Belebele's prompts for multiple-choice items: five-shot (ICL) and zero-shot instruction.

Five-shot (Belebele app. A.4.2): five English training items, each as ::

    P: <passage>
    Q: <question>
    A: <option 1>
    ...
    D: <option 4>
    Answer: <letter>

followed by the target item with ``Answer:`` left open. The model's answer is
the letter it ranks highest.

Zero-shot (the f-string of Belebele's ``sample_zero_shot_instructions.md``)::

    {instruction}\\n###\\nPassage:\\n{passage}\\n###\\nQuery:\\n{query}\\n###\\nChoices:\\n
    (A) {A}\\n(B) {B}\\n(C) {C}\\n(D) {D}\\n###\\nAnswer:\\n

The answers are then read with :func:`builder.evaluation.parsing.parse_letter`.

>>> item = {"passage": "Tom went to school.", "question": "Where did Tom go?", "answer1": "school",
...         "answer2": "zoo", "answer3": "home", "answer4": "bed", "correct_answer_num": 1}
>>> print(format_item(item, with_answer=True), end="")
P: Tom went to school.
Q: Where did Tom go?
A: school
B: zoo
C: home
D: bed
Answer: A
"""
from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from schemas.errors import SchemaError, UsageError

LETTERS = "ABCD"
OPTION_COLUMNS = ("answer1", "answer2", "answer3", "answer4")
PROMPT_MODES = ("five-shot", "zero-shot")
N_SHOTS = 5
#: The instruction of Belebele's sample zero-shot prompt.
ZERO_SHOT_INSTRUCTION = ("Given the following passage, query, and answer choices, output the letter "
                         "corresponding to the correct answer.")


def correct_letter(item: Mapping) -> str:
    """The letter A-D of ``correct_answer_num`` (1-4).

    >>> correct_letter({"correct_answer_num": "3"})
    'C'
    """
    try:
        num = int(item["correct_answer_num"])
    except (KeyError, TypeError, ValueError):
        num = 0
    if not 1 <= num <= 4:
        raise SchemaError(f"correct_answer_num must be 1-4; found {item.get('correct_answer_num')!r}",
                          record=item.get("question_id"), field="correct_answer_num")
    return LETTERS[num - 1]


def format_item(item: Mapping, *, with_answer: bool) -> str:
    """One item in the five-shot template (with its answer for a shot, open for the target)."""
    text = f"P: {item['passage']}\nQ: {item['question']}\n"
    for letter, col in zip(LETTERS, OPTION_COLUMNS):
        text += f"{letter}: {item[col]}\n"
    return text + (f"Answer: {correct_letter(item)}\n" if with_answer else "Answer:")


def five_shot_prompt(shots: Sequence[Mapping], item: Mapping) -> str:
    """The five English examples followed by the target item."""
    return "".join(format_item(s, with_answer=True) for s in shots) + format_item(item, with_answer=False)


def zero_shot_prompt(item: Mapping, instruction: str = ZERO_SHOT_INSTRUCTION) -> str:
    """Belebele's zero-shot instruction prompt for one item.

    >>> zero_shot_prompt({"passage": "p", "question": "q", "answer1": "a", "answer2": "b",
    ...                   "answer3": "c", "answer4": "d"}).splitlines()[-7:]
    ['Choices:', '(A) a', '(B) b', '(C) c', '(D) d', '###', 'Answer:']
    """
    a, b, c, d = (item[col] for col in OPTION_COLUMNS)
    return (f"{instruction}\n###\nPassage:\n{item['passage']}\n###\nQuery:\n{item['question']}\n###\n"
            f"Choices:\n(A) {a}\n(B) {b}\n(C) {c}\n(D) {d}\n###\nAnswer:\n")


def pick_shots(train: pd.DataFrame, *, k: int = N_SHOTS, seed: int = 0) -> list[dict]:
    """``k`` training items drawn without replacement with ``numpy.random.default_rng(seed)``.

    >>> frame = pd.DataFrame({"question_id": [f"q{i}" for i in range(10)]})
    >>> [s["question_id"] for s in pick_shots(frame, k=3)]
    ['q5', 'q9', 'q6']
    """
    if len(train) < k:
        raise UsageError(f"need {k} training items for the few-shot prompt; the train split has {len(train)}")
    idx = np.random.default_rng(seed).choice(len(train), size=k, replace=False)
    return [train.iloc[int(i)].to_dict() for i in idx]


def render(frame: pd.DataFrame, mode: str, *, shots: Sequence[Mapping] = ()) -> list[dict]:
    """Prompts for every row of an MC split: ``{"id", "prompt", "gold"}`` dicts in row order."""
    if mode not in PROMPT_MODES:
        raise UsageError(f"prompt mode must be one of {', '.join(PROMPT_MODES)}; found {mode!r}")
    missing = [c for c in ("passage", "question", *OPTION_COLUMNS, "correct_answer_num") if c not in frame.columns]
    if missing:
        raise SchemaError(f"MC split lacks column(s) {', '.join(missing)}; found {sorted(frame.columns)}")
    out = []
    for i, item in enumerate(frame.to_dict("records")):
        prompt = five_shot_prompt(shots, item) if mode == "five-shot" else zero_shot_prompt(item)
        out.append({"id": str(item.get("question_id", i)), "prompt": prompt, "gold": correct_letter(item)})
    return out
