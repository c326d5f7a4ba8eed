"""A stage's digest lists its folder's files with ``os.scandir`` (``stages._visible_files``); the list, and so
every digest a release has recorded, must be what the ``Path.rglob`` listing it replaced gives: the same
files (hidden names and hidden folders left out, a symlinked folder not entered, a broken link not a file)
in the order ``Path`` objects sort (by parts: ``a/b`` before ``a-c``)."""
from __future__ import annotations

import os
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from builder.release import stages


def _rglob_listing(path: Path) -> list[tuple[str, str]]:
    out = []
    for p in sorted(path.rglob("*")):
        rel = p.relative_to(path)
        if p.is_file() and not any(part.startswith(".") for part in rel.parts):
            out.append((rel.as_posix(), str(p)))
    return out


_NAMES = st.sampled_from(["a", "b", "a-c", "a.b", ".hidden", "A", "a b", "é", "a_", "z", "0"])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.lists(_NAMES, min_size=1, max_size=3), min_size=1, max_size=12))
def test_the_listing_is_the_rglob_listing(tmp_path_factory, paths):
    root = tmp_path_factory.mktemp("tree")
    for parts in paths:
        target = root.joinpath(*parts)
        if any(p.is_file() for p in [target, *target.parents] if p != root and root in p.parents):
            continue  # a file already holds this name
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.exists():
            target.write_text("x")
    (root / "outside").mkdir(exist_ok=True)
    (root / "outside" / "f").write_text("y")
    os.symlink(root / "outside", root / "linked-dir")       # a symlinked folder: listed by rglob, not entered
    os.symlink(root / "outside" / "f", root / "linked-file")  # a link to a file: a file
    os.symlink(root / "missing", root / "broken")            # a broken link: not a file
    got = [(rel, str(p)) for rel, p in stages._visible_files(root)]
    assert got == _rglob_listing(root)


def test_paths_are_made_absolute_against_the_working_folder_of_the_moment(tmp_path, monkeypatch):
    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    monkeypatch.chdir(tmp_path / "one")
    assert stages._abspath("x/../y") == str(tmp_path / "one" / "y")
    assert stages.within("y", tmp_path / "one") and not stages.within("y", tmp_path / "two")
    monkeypatch.chdir(tmp_path / "two")  # the remembered normpath must not answer for the old folder
    assert stages._abspath("x/../y") == str(tmp_path / "two" / "y")
    assert stages.within("y", tmp_path / "two") and not stages.within("y", tmp_path / "one")


def test_a_folder_that_cannot_be_read_lists_nothing_and_the_others_are_still_listed(tmp_path, monkeypatch):
    for name in ("a", "b", "c", "d"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "f").write_text("x")
    scandir = os.scandir

    class Listing(list):  # a folder's entries in reverse name order, so "b" is taken before "c" and "d"
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

    def refusing(path):  # as os.scandir on a folder without read permission (root reads any, so it is faked)
        if os.path.basename(path) == "b":
            raise PermissionError(13, "Permission denied", path)
        with scandir(path) as listing:
            return Listing(sorted(listing, key=lambda entry: entry.name, reverse=True))

    monkeypatch.setattr(stages.os, "scandir", refusing)
    assert [rel for rel, _ in stages._visible_files(tmp_path)] == ["a/f", "c/f", "d/f"]
