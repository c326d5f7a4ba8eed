"""The release's skip check from below (issue 27): the digest of a stage's input or output, the one owner
of file digests in a run (:class:`builder.release.stages.Digests`), and the record a stage leaves.

A stage is skipped when its record's tool, options and input digests are what this run computes, so a
digest that is stale (a file changed in place, a forgotten output) or a record that loses a field ships
an old output as current. Each test here was checked against a one-line bug (docs/testing.md).
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from builder.release.stages import STAGE_JSON, Digests, Recorder, Stage, tree_sha256


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _oracle(folder: Path) -> str:
    """The tree digest as documented, computed another way: ``rglob``, hidden parts left out, ``Path`` order."""
    h = hashlib.sha256()
    files = sorted(p for p in folder.rglob("*") if p.is_file()
                   and not any(part.startswith(".") for part in p.relative_to(folder).parts))
    for p in files:
        h.update(f"{p.relative_to(folder).as_posix()}\0{_sha(p)}\n".encode())
    return h.hexdigest()


_NAME = st.text("ab-._", min_size=1, max_size=3).filter(lambda n: n not in (".", ".."))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.dictionaries(st.lists(_NAME, min_size=1, max_size=3).map(tuple), st.binary(max_size=8), max_size=8))
def test_the_tree_digest_is_each_visible_files_path_and_digest_in_path_order(tmp_path_factory, files):
    root = tmp_path_factory.mktemp("tree")
    for parts, data in files.items():
        path = root.joinpath(*parts)
        if any(p.is_file() for p in path.parents if root in p.parents) or path.is_dir():
            continue  # a name already used by a file or a folder
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    assert tree_sha256(root) == _oracle(root)


def test_a_single_file_is_its_own_digest_and_a_missing_path_none(tmp_path):
    (tmp_path / "a.txt").write_bytes(b"x")
    assert tree_sha256(tmp_path / "a.txt") == _sha(tmp_path / "a.txt")
    assert tree_sha256(tmp_path / "missing") is None


def _tree(root: Path) -> Path:
    for name, text in (("a.tsv", "1\n"), ("sub/b.tsv", "2\n"), ("sub/c.txt", "3\n")):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def test_each_file_is_hashed_once_a_run_and_a_known_stamp_is_not_hashed(tmp_path):
    folder = _tree(tmp_path / "in")
    digests = Digests()
    assert digests.of(folder) == _oracle(folder) and digests.hashed == 3
    assert digests.of(folder) == _oracle(folder) and digests.of(folder / "a.tsv") == _sha(folder / "a.tsv")
    assert digests.hashed == 3  # the store answered
    # the next run: the stamps of this one; an unchanged stamp gives the recorded digest without a read
    again = Digests(digests.stamps)
    assert again.of(folder) == _oracle(folder) and again.hashed == 0
    st = (folder / "a.tsv").stat()
    os.utime(folder / "a.tsv", ns=(st.st_atime_ns, st.st_mtime_ns + 1))  # touched: hashed again, it alone
    third = Digests(again.stamps)
    assert third.of(folder) == _oracle(folder) and third.hashed == 1


def test_a_forgotten_output_is_hashed_again_and_no_longer_names_its_stage(tmp_path):
    out = _tree(tmp_path / "stages" / "dataset" / "output")
    digests = Digests()
    first = digests.of(out)
    digests.made(out, "dataset", first)
    assert digests.maker(out / "sub" / "b.tsv") == ("dataset", first)
    assert digests.maker(tmp_path / "stages" / "dataset" / "output-2") is None
    st = (out / "sub" / "b.tsv").stat()
    (out / "sub" / "b.tsv").write_text("9\n", encoding="utf-8")  # rewritten, same size
    os.utime(out / "sub" / "b.tsv", ns=(st.st_atime_ns, st.st_mtime_ns))
    assert digests.of(out) == first  # this run's store: as hashed before
    digests.forget(out)  # the stage is about to write it again
    assert digests.maker(out / "sub" / "b.tsv") is None
    assert digests.of(out) == _oracle(out) != first


def test_only_well_formed_stamps_of_the_last_run_are_trusted(tmp_path):
    good = [3, 5, 7, "d" * 64]
    stamps = {"release": {"stages/x/a.tsv": good, "stages/x/b.tsv": [3, 5, 7],
                          "stages/x/c.tsv": ["3", 5, 7, "d"], "stages/x/d.tsv": [3, 5, 7, 8]},
              "recipe": {"src/e.tsv": good, "src/f.tsv": "not a row"}}
    recorder = Recorder(tmp_path / "rel", tmp_path, {"name": "builder", "version": "0"}, stamps=stamps)
    assert recorder.digests.known == {os.path.join(tmp_path, "rel", "stages", "x", "a.tsv"): tuple(good),
                                      os.path.join(tmp_path, "src", "e.tsv"): tuple(good)}
    for bad in ([], "x", {"release": []}):
        assert Recorder(tmp_path / "rel", tmp_path, {}, stamps=bad).digests.known == {}


def test_a_stage_record_holds_what_its_skip_compares_and_what_it_made(tmp_path):
    src = _tree(tmp_path / "src")
    tool = {"name": "mc-dataset-builder", "version": "0.1.0"}
    recorder = Recorder(tmp_path / "rel", tmp_path, tool)
    out = tmp_path / "rel" / "stages" / "qc" / "output"
    stage = Stage(name="qc", inputs={"dataset": src}, options={"seed": 0}, action=lambda o: {}, output=out)
    _tree(out)
    want = recorder.expected(stage)
    record = recorder.write(stage, want, {"passed": True})
    on_disk = json.loads((tmp_path / "rel" / "stages" / "qc" / STAGE_JSON).read_text(encoding="utf-8"))
    assert on_disk == record == {
        "stage": "qc", "tool": tool, "options": {"seed": 0},
        "inputs": {"dataset": {"path": "src", "sha256": _oracle(src)}},
        "facts": {"passed": True}, "output": {"path": "stages/qc/output", "sha256": _oracle(out)}}
    fresh = Recorder(tmp_path / "rel", tmp_path, tool)
    assert fresh.up_to_date(stage, fresh.expected(stage)) == record
    other = Recorder(tmp_path / "rel", tmp_path, {**tool, "version": "0.2.0"})  # another version: not up to date
    assert other.up_to_date(stage, other.expected(stage)) is None
    moved = Stage(name="qc", inputs={"dataset": src}, options={"seed": 1}, action=lambda o: {}, output=out)
    assert fresh.up_to_date(moved, fresh.expected(moved)) is None
    (src / "a.tsv").write_text("changed\n", encoding="utf-8")
    again = Recorder(tmp_path / "rel", tmp_path, tool)
    assert again.up_to_date(stage, again.expected(stage)) is None
