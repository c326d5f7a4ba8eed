"""The encode tasks and the order of the sources in the streaming assembly (builder.assemble.stream).

A split of several tasks is shuffled and encoded by its encode tasks in worker processes, each waiting for the
split's ticket; the sources read whole in a worker are planned first and written in their turn.
"""
from __future__ import annotations

import multiprocessing
import os
import pickle
import threading
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

import builder.assemble.output as output
import builder.assemble.stream as stream
from builder.assemble import assemble
from builder.assemble.counts import InternalError
from builder.recipe import load_recipe, recipe_from_dict
from schemas.errors import SourceNotFoundError

ROOT = Path(__file__).parents[2]
EXAMPLE = ROOT / "examples" / "belebele-train.yaml"
SOURCES = ROOT / "tests" / "data" / "sources"


def files_of(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(out.iterdir())}


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_split_encoded_in_many_parts_writes_the_bytes_of_one_part(tmp_path, monkeypatch, jobs):
    # RACE's splits in tasks of one file, each task's batches an encode task of their own (and some parts get no
    # batch: a task whose records were all dropped); the row groups are the same, so every byte is
    monkeypatch.setattr(stream, "FILES_PER_TASK", 1)
    monkeypatch.setattr(stream, "BATCH", 2)
    recipe = load_recipe(EXAMPLE)
    assemble(recipe, tmp_path / "one", seed=4, jobs=jobs)
    plans = []
    real = stream.run_encode

    def run_encode(task):
        plans.append((task.native, task.part, task.parts))
        yield from real(task)

    monkeypatch.setattr(stream, "run_encode", run_encode)  # forked workers inherit it; jobs=1 runs it here
    monkeypatch.setattr(stream, "TASKS_PER_PART", 1)
    assemble(recipe, tmp_path / "many", seed=4, jobs=jobs)
    assert files_of(tmp_path / "one") == files_of(tmp_path / "many")
    if jobs == 1:
        assert sorted(p for p in plans if p[2] > 1) == [("dev", k, 5) for k in range(5)] + [
            ("train", k, 5) for k in range(5)]


def test_the_parts_split_the_spilled_batches_evenly_and_in_order(tmp_path, monkeypatch):
    monkeypatch.setattr(stream, "FILES_PER_TASK", 1)
    monkeypatch.setattr(stream, "BATCH", 1)
    monkeypatch.setattr(stream, "TASKS_PER_PART", 2)
    tickets = []
    real = stream.run_encode

    def run_encode(task):
        with open(stream.split_folder(stream._STATE[3], task.source, task.native) / "encode.pickle", "rb") as fh:
            tickets.append((task, pickle.load(fh)))
        yield from real(task)

    monkeypatch.setattr(stream, "run_encode", run_encode)
    data = {"name": "race", "seed": 1, "sources": [{"name": "RACE", "reader": "race", "path": str(SOURCES / "race"),
                                                    "splits": {"train": "train"}}]}
    result, _ = assemble(recipe_from_dict(data), tmp_path / "out", jobs=1)
    [(task, ticket)] = {t.part: (t, tk) for t, tk in tickets if t.part == 0}.values()
    parts = ticket["parts"]
    assert task.parts == len(parts) == 3  # 5 tasks of one file, 2 tasks a part
    counts = [count for _, count, _, _ in parts]
    assert sum(counts) == result.rows("train") and max(counts) - min(counts) <= 1  # a batch a kept row
    offsets = [start for start, _, _, _ in parts]
    assert offsets == sorted(offsets) and offsets[0] == 0
    assert [len(positions) for _, _, positions, _ in parts] == counts
    assert ticket["encode"][:2] == ("train", "RACE")


@pytest.fixture
def ticket_state(tmp_path):
    """An encode task of RACE's train split, with the run's state as the process whose pid is given has it (the
    state is cleared after the test)."""

    def make(main: int):
        recipe = recipe_from_dict({"name": "race", "sources": [{"name": "RACE", "reader": "race",
                                                                "path": str(SOURCES / "race"),
                                                                "splits": {"train": "train"}}]})
        stream._STATE[:] = [recipe, "raise", 0, tmp_path, main]
        stream.split_folder(tmp_path, 0, "train").mkdir()
        return stream.EncodeTask(0, "train", 0, 1)

    yield make
    stream._STATE.clear()


@pytest.mark.parametrize("main", [
    pytest.param(lambda: os.getpid(), id="run-in-the-main-process"),
    pytest.param(lambda: os.getppid() + 10**6, id="orphaned-worker"),  # not this process's parent
])
def test_an_encode_task_no_one_can_write_the_ticket_for_is_an_error_not_a_wait(ticket_state, main):
    task = ticket_state(main())
    with pytest.raises(InternalError, match="encode ticket of split 'train' was not written"):
        list(stream.run_encode(task))


def test_a_worker_waits_for_the_ticket_the_main_process_writes_later(tmp_path, ticket_state):
    task = ticket_state(os.getppid())  # as a worker: its parent is the main process
    folder = stream.split_folder(tmp_path, 0, "train")
    rows = [("race", "p", "p#0", "Text.", "Why?", ["w", "x", "y", "z"], [0], "f", "#0")]
    with open(folder / "kept.pickle", "wb") as fh:
        pickle.dump(rows, fh)

    def write_ticket():
        time.sleep(0.2)
        import numpy as np

        ticket = {"split": "train", "encode": ("train", "RACE", "MIT", "eng_Latn", ("parquet", "jsonl")),
                  "parts": [(0, 1, np.array([2]), np.array([[1, 0, 2]]))]}
        with open(folder / "encode.pickle.tmp", "wb") as fh:
            pickle.dump(ticket, fh)
        os.replace(folder / "encode.pickle.tmp", folder / "encode.pickle")

    writer = threading.Thread(target=write_ticket)
    writer.start()
    try:
        [(kind, split, part, last)] = list(stream.run_encode(task))
    finally:
        writer.join()
    assert (kind, split, last, part.texts, part.tsv) == ("part", "train", folder, (len("Text.Why?wxyz"),), None)
    line = Path(part.jsonl).read_text(encoding="utf-8")
    assert '"answer1": "y", "answer2": "x", "answer3": "w", "answer4": "z"' in line  # w correct, in slot 3


def test_the_sources_read_whole_are_planned_first_and_written_in_the_recipes_order(tmp_path, monkeypatch):
    monkeypatch.setattr(stream, "FILES_PER_TASK", 2)  # RACE's 5 + 5 articles: tasks of their own
    recipe = load_recipe(EXAMPLE)
    info: dict = {}
    stream._STATE[:] = [recipe, "raise", 0, tmp_path, os.getpid()]
    try:
        tasks = list(stream.plan(recipe, "raise", info))
    finally:
        stream._STATE.clear()
    kinds = [(type(t).__name__, t.source) for t in tasks]
    whole = [k for k in kinds if k[0] == "SourceTask"]
    assert kinds[:len(whole)] == whole and [s for _, s in whole] == [1, 2, 3, 4, 5]  # RACE (0) lists a file each
    assert {s for _, s in kinds[len(whole):]} == {0}
    ends = [t for t in tasks if isinstance(t, stream.EncodeTask) and t.end]
    assert len(ends) == 1 and ends[0].native == list(recipe.sources[0].splits)[-1]
    # every split's tasks, then the encode tasks of each split in turn: none waits for a ticket behind the reading
    rest = tasks[len(whole):]
    reads = [(type(t).__name__, t.native) for t in rest if isinstance(t, stream.Task)]
    encodes = [(type(t).__name__, t.native, t.part) for t in rest if isinstance(t, stream.EncodeTask)]
    assert [(type(t).__name__, t.native) for t in rest[:len(reads)]] == reads
    assert encodes == [("EncodeTask", native, 0) for native in recipe.sources[0].splits]
    assemble(recipe, tmp_path / "out", jobs=2)
    datasets = pq.read_table(tmp_path / "out" / "train.parquet", columns=["dataset"]).column(0).to_pylist()
    firsts = list(dict.fromkeys(datasets))
    assert firsts == [s.name for s in recipe.sources if "train" in s.splits.values()]


def test_a_missing_source_is_reported_in_the_recipes_order_though_listed_later(tmp_path):
    # RACE (a file per article) is listed after SciQ and MCTest, but its error comes first, as it is first in the
    # recipe; MCTest, after the failed SciQ in the recipe, is skipped, and RACE is still listed after it
    data = {"name": "three", "sources": [
        {"name": "RACE", "reader": "race", "path": str(tmp_path / "no-race"), "splits": {"train": "train"}},
        {"name": "SciQ", "reader": "sciq", "path": str(tmp_path / "no-sciq"), "splits": {"train": "train"}},
        {"name": "MCTest", "reader": "mctest", "path": str(SOURCES / "mctest"), "splits": {"train": "train"}}]}
    with pytest.raises(SourceNotFoundError, match="no-race"):
        assemble(recipe_from_dict(data), tmp_path / "out", jobs=2)
    data["sources"][0]["path"] = str(SOURCES / "race")
    with pytest.raises(SourceNotFoundError, match="no-sciq"):
        assemble(recipe_from_dict(data), tmp_path / "out", jobs=2)
    assert not (tmp_path / "out").exists() and multiprocessing.active_children() == []


def test_a_held_source_keeps_no_text_in_memory_only_the_names_of_its_files(tmp_path, monkeypatch):
    recipe = load_recipe(EXAMPLE)
    held = []
    real = stream._release

    def release(result, outputs, sources, turn):
        held.extend(m for messages in sources.values() for m in messages)
        return real(result, outputs, sources, turn)

    monkeypatch.setattr(stream, "_release", release)
    assemble(recipe, tmp_path / "out", jobs=2)
    kinds = {m[0] for m in held}
    assert kinds == {"license", "drops", "part", "counts"}
    for message in held:
        if message[0] == "drops":
            assert message[1].endswith(".jsonl") and "\n" not in message[1]
        if message[0] == "part":
            assert isinstance(message[2], output.Part)


def _fake_copy(monkeypatch, behave):
    """os.copy_file_range as ``behave(real, src, dst, count)`` (present even where the platform has none)."""
    real = getattr(os, "copy_file_range", None)
    monkeypatch.setattr(os, "copy_file_range", lambda src, dst, count: behave(real, src, dst, count), raising=False)


DATA = b"head:" + bytes(range(256)) * 40 + b":tail"


def _appended(tmp_path) -> bytes:
    """``DATA``'s head written, its middle appended from a file, its tail written: what the output file holds."""
    (tmp_path / "part").write_bytes(DATA[5:-5])
    with open(tmp_path / "out", "wb", buffering=0) as out:
        out.write(DATA[:5])
        output.append_file(out, str(tmp_path / "part"))
        out.write(DATA[-5:])
    return (tmp_path / "out").read_bytes()


def test_a_part_is_appended_where_the_platform_has_no_copy_file_range(tmp_path, monkeypatch):
    monkeypatch.delattr(os, "copy_file_range", raising=False)  # macOS, or a Python without it
    assert _appended(tmp_path) == DATA


def test_a_part_is_appended_when_the_kernel_refuses_to_copy_between_the_files(tmp_path, monkeypatch):
    import errno

    def refuse(real, src, dst, count):
        raise OSError(errno.EXDEV, "Invalid cross-device link")

    _fake_copy(monkeypatch, refuse)
    assert _appended(tmp_path) == DATA


def test_a_part_is_appended_when_the_kernel_copies_nothing(tmp_path, monkeypatch):
    # some filesystems answer 0 at once; the rest is read and written
    _fake_copy(monkeypatch, lambda real, src, dst, count: 0)
    assert _appended(tmp_path) == DATA


@pytest.mark.skipif(not hasattr(os, "copy_file_range"), reason="needs os.copy_file_range")
def test_a_part_copied_a_little_at_a_time_is_appended_once(tmp_path, monkeypatch):
    calls = []

    def little(real, src, dst, count):
        calls.append(count)
        return real(src, dst, min(count, 1000))

    _fake_copy(monkeypatch, little)
    assert _appended(tmp_path) == DATA
    assert len(calls) >= len(DATA) // 1000


def test_the_readers_that_list_a_file_per_article_are_listed_last(tmp_path, monkeypatch):
    recipe = load_recipe(EXAMPLE)
    listed = []
    real = stream._reader

    def reader(recipe_, index, spec, on_error):
        listed.append(index)
        return real(recipe_, index, spec, on_error)

    monkeypatch.setattr(stream, "_reader", reader)
    stream._STATE[:] = [recipe, "raise", 0, tmp_path, os.getpid()]
    try:
        list(stream.plan(recipe, "raise", {}))
    finally:
        stream._STATE.clear()
    assert listed == [1, 2, 3, 4, 5, 0]  # RACE (0) last: the workers read the others while it is listed
