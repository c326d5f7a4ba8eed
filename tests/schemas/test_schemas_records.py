"""Record validation at the boundary: one error naming file, record and field."""
import pytest
from hypothesis import given, strategies as st

from schemas import (MC_COLUMNS, MCItem, SchemaError, SourceNotFoundError, ToolkitError,
                     mc_item_from_dict, topic_item_from_dict)
from schemas.features import mc_features, topic_features


def _mc(**over):
    d = dict(dataset="race", split="train", passage_id="p1", question_id="q1", passage="Tom has a cat.",
             question="What does Tom have?", answer1="a dog", answer2="a cat", answer3="a cow",
             answer4="a fish", correct_answer="a cat", correct_answer_num=2, language="eng_Latn",
             license="RACE-research", provenance={"corpus": "race", "file": "train/high/1.txt", "record": "#0"})
    d.update(over)
    return d


def test_valid_item_round_trips_through_dict():
    item = mc_item_from_dict(_mc())
    assert isinstance(item, MCItem)
    assert mc_item_from_dict(item.to_dict()) == item
    assert item.options[item.correct_answer_num - 1] == item.correct_answer


def test_columns_start_with_belebele_training_tsv_columns():
    belebele = ("dataset", "split", "passage_id", "question_id", "passage", "question", "answer1", "answer2",
                "answer3", "answer4", "correct_answer", "correct_answer_num")
    assert MC_COLUMNS[: len(belebele)] == belebele


@pytest.mark.parametrize("over, field, fragment", [
    ({"correct_answer_num": 5}, "correct_answer_num", "integer 1-4, found 5"),
    ({"correct_answer_num": "two"}, "correct_answer_num", "found 'two'"),
    ({"correct_answer": "a dog"}, "correct_answer", "differs from answer2"),
    ({"answer3": "  "}, "answer3", "non-empty"),
    ({"language": "english"}, "language", "FLORES-200 code"),
    ({"provenance": None}, "provenance", "corpus, file, record"),
])
def test_bad_field_names_file_record_and_field(over, field, fragment):
    with pytest.raises(SchemaError) as info:
        mc_item_from_dict(_mc(**over), file="train.jsonl", record="line 7")
    msg = str(info.value)
    assert msg.startswith(f"train.jsonl, line 7, field {field}: ")
    assert fragment in msg
    assert "\n" not in msg


def test_missing_field_is_named():
    d = _mc()
    del d["question"]
    with pytest.raises(SchemaError, match="field question: missing required field 'question'"):
        mc_item_from_dict(d, file="f.jsonl", record="line 1")


def test_topic_item_checks_label_set():
    base = dict(index_id="12", category="sports", text="A match.", language="eng_Latn", split="train",
                license="CC-BY-SA-4.0", provenance={"corpus": "sib200", "file": "train.tsv", "record": "line 2"})
    assert topic_item_from_dict(base, labels={"sports"}).index_id == 12
    with pytest.raises(SchemaError, match="unknown label 'sports'; allowed: health, travel"):
        topic_item_from_dict(base, labels={"travel", "health"}, file="train.tsv", record="line 2")


def test_error_family_keeps_builtin_types():
    err = SourceNotFoundError("source folder not found", file="data/race")
    assert isinstance(err, FileNotFoundError) and isinstance(err, ToolkitError)
    assert issubclass(SchemaError, ValueError)
    assert err.exit_code == 1


def test_features_cover_every_record_field():
    assert list(mc_features()) == list(MC_COLUMNS)
    assert set(topic_features()) == {"index_id", "category", "text", "language", "split", "license",
                                     "provenance"}


@given(num=st.integers(1, 4), options=st.lists(st.text(min_size=1).filter(str.strip), min_size=4, max_size=4))
def test_any_consistent_item_validates(num, options):
    d = _mc(**{f"answer{i + 1}": o for i, o in enumerate(options)}, correct_answer=options[num - 1],
            correct_answer_num=num)
    assert mc_item_from_dict(d).correct_answer == options[num - 1]
