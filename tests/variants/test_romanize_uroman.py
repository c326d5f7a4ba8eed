"""uroman, batched (issue 25) and with progress (issue 24): the same text, its tables loaded once, lines while it works.

``builder.variants.romanize_uroman`` romanizes each distinct token once instead of letting
``Uroman.romanize_string`` re-cut every line, and keeps the parsed tables in the user's cache
(``XDG_CACHE_HOME``, a temporary folder in the tests: ``tests/conftest.py``). The outputs must
be the text uroman gives for the whole line, and the cached tables the tables it builds.
"""
from __future__ import annotations

import pickle
import unicodedata
from pathlib import Path

import pytest
from click.testing import CliRunner

from builder.cli.main import cli
from builder.variants import romanize as R
from builder.variants import romanize_uroman as U
from schemas.io import read_sib_tsv

SIB = Path(__file__).parents[1] / "data" / "sib200" / "annotated"


def _dev(code: str) -> list[str]:
    policy = R.get_romanizer(code).marks  # what romanize_variant gives uroman: the marks already written
    return [policy.translate(r["text"]) for r in read_sib_tsv(SIB / code / "dev.tsv")]


@pytest.fixture(scope="module")
def tables():
    return R._uroman()  # the process's tables, shared with the other romanize tests


@pytest.mark.slow  # uroman's tables: about 5 CPU s when no test built them before in this run
@pytest.mark.parametrize("code", ["bod_Tibt", "urd_Arab"])
def test_token_by_token_equals_uroman_on_the_whole_line(tables, code):
    tables.reset_cache(65536)  # uroman's own token cache on, as romanize_variant runs it
    tokens = U.TokenRomanizer(lambda: tables, code[:3])
    texts = _dev(code) + ["", " ", "a. b", "།  ་", "x\ny z"]  # edges: nothing, a cut alone, a line break
    assert [tokens(t) for t in texts] == [unicodedata.normalize("NFC", tables.romanize_string(t, lcode=code[:3]))
                                          for t in texts]
    pieces = sum(2 * len(list(U.TOKEN_CUT.finditer(t))) + 1 for t in texts if "\n" not in t)
    assert len(tokens.memo) < pieces / 2  # a token that repeats is romanized once


@pytest.mark.slow
def test_the_cached_tables_are_the_tables_uroman_builds(tables, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    path = U._cache_file()
    assert path.parent == tmp_path / "mc-dataset-builder" and not path.exists()
    U._store(tables, path)
    assert path.is_file() and not list(path.parent.glob(".*.tmp"))
    import uroman

    def no_build(*a, **k):
        raise AssertionError("built the tables although the cache holds them")

    monkeypatch.setattr(uroman.Uroman, "__init__", no_build)  # unpickling calls no __init__
    lines = []
    loaded = U.tables(lines.append)
    assert lines == []  # nothing to say: no tables were built
    texts = _dev("bod_Tibt")[:20]
    tables.reset_cache(0)
    loaded.reset_cache(0)
    assert [loaded.romanize_string(t, lcode="bod") for t in texts] == \
        [tables.romanize_string(t, lcode="bod") for t in texts]


def test_a_cache_that_cannot_be_written_or_read_is_no_error(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder\n")
    U._store({"tables": 1}, blocker / "mc-dataset-builder" / "x.pickle")  # under a file: nothing written
    assert blocker.read_text() == "not a folder\n"
    bad = tmp_path / "mc-dataset-builder"
    bad.mkdir()
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(U, "_cache_file", lambda: bad / "broken.pickle")
    (bad / "broken.pickle").write_bytes(b"not a pickle")
    import uroman

    monkeypatch.setattr(uroman, "Uroman", lambda: "built")
    lines = []
    assert U.tables(lines.append) == "built" and len(lines) == 1
    assert lines[0].startswith("romanize: building uroman's tables")


def test_the_pickler_writes_a_lambda_that_returns_none_as_a_module_function():
    from collections import defaultdict

    table = defaultdict(lambda: None, {"a": 1})
    buf = __import__("io").BytesIO()
    U._Pickler(buf).dump(table)
    back = pickle.loads(buf.getvalue())
    assert back == {"a": 1} and back["b"] is None
    with pytest.raises(Exception):  # any other lambda is not written: the cache is left out
        U._Pickler(__import__("io").BytesIO()).dump(defaultdict(lambda: 0))


def test_romanize_shows_progress_in_a_few_lines(tmp_path):
    result = CliRunner().invoke(cli, ["romanize", str(SIB / "hin_Deva"), "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.startswith("romanize: ")]
    assert 1 < len(lines) <= 6, lines  # every quarter of the rows (or 10 s), not one line a row
    assert lines[-1] == "romanize: 1004/1004 rows romanized (test)"
    quiet = CliRunner().invoke(cli, ["-q", "romanize", str(SIB / "hin_Deva"), "--out", str(tmp_path / "out")])
    assert quiet.exit_code == 0 and quiet.stderr == ""


def test_romanize_variant_hands_its_info_callback_to_uroman_s_tables(tmp_path, monkeypatch):
    """The line about building uroman's tables goes to the caller's ``info`` (the release's reporter)."""
    cached = R._uroman() if R._uroman.cache_info().currsize else None
    seen = []

    class Stop(Exception):
        pass

    def tables(info=None):
        seen.append(info)
        raise Stop  # the callback is all this test needs: no tables are built

    def say(line):
        pass

    monkeypatch.setattr(U, "tables", tables)
    R._uroman.cache_clear()
    try:
        with pytest.raises(Stop):
            R.romanize_variant(SIB / "urd_Arab", tmp_path / "out", info=say)
        assert seen == [say] and R._INFO == []
    finally:
        R._uroman.cache_clear()
        if cached is not None:  # the process's tables back in the cache, as the other tests left them
            monkeypatch.setattr(U, "tables", lambda info=None: cached)
            R._uroman()
