"""uroman for ``builder romanize`` (Tibetan, Urdu): its tables loaded once, its texts romanized token by token.

Where the time went (cProfile of ``builder romanize tests/data/sib200/annotated/bod_Tibt``, 1,004
rows, BENCHMARKS.md "Romanization through uroman"): two thirds in ``uroman.Uroman()``, which parses
its rule tables in every process that romanizes (about 5 CPU s; most of it ``regex.match`` called
once per rule line), and the rest in ``Uroman.romanize_string``, which cuts each text into tokens
by matching a pattern against the rest of the text once per token (a Tibetan sentence has one per
syllable, so a text costs as many matches as it has syllables, each over the rest of the line).

:func:`tables` builds the ``Uroman`` object once per uroman version and keeps it, pickled, in the
user's cache folder (:func:`cache_dir`); a later process loads it in a fraction of a second. The
pickle is the object's own state through the standard protocol; the one value pickle cannot write
(a ``lambda: None`` default factory of a ``defaultdict``) is written as a module function that
returns None (:class:`_Pickler`). Any failure to read or write the cache falls back to building
the tables, as before; the cache's name holds the uroman version and the size and time of its
data files, so another uroman never reads it.

:class:`TokenRomanizer` cuts a text where ``romanize_string`` cuts it (the same pattern, compiled
once) and romanizes each distinct token once per variant through ``romanize_string``; the pieces
joined are the text ``romanize_string`` gives for the whole line (``tests/variants/
test_romanize_uroman.py`` checks it on the shipped Tibetan and Urdu variants).
"""
from __future__ import annotations

import contextlib
import hashlib
import io
import os
import pickle
import unicodedata
from pathlib import Path
from typing import Callable

import regex

#: Where ``uroman.Uroman.romanize_string`` (1.3) cuts a text into the tokens it romanizes and caches one by one:
#: a run of ``.,;`` and spaces around a space, an ideographic full stop or a Tibetan tsheg.
TOKEN_CUT = regex.compile(r"[.,; ]*[ 。་][.,; ]*")


def cache_dir() -> Path:
    """``$XDG_CACHE_HOME/mc-dataset-builder`` (default ``~/.cache/mc-dataset-builder``)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "mc-dataset-builder"


def _none():
    return None


def _none_factory():
    return _none


class _Pickler(pickle.Pickler):
    """A pickler that writes a ``lambda`` returning None (a ``defaultdict`` factory) as :func:`_none`."""

    def reducer_override(self, obj):
        if callable(obj) and getattr(obj, "__name__", "") == "<lambda>":
            try:
                returns_none = obj() is None
            except TypeError:
                returns_none = False
            if returns_none:
                return _none_factory, ()
        return NotImplemented


def _cache_file() -> Path:
    import uroman

    from schemas.runtime.provenance import package_version

    data = Path(uroman.__file__).parent / "data"
    stamp = hashlib.sha256()
    for f in sorted(data.iterdir()):
        st = f.stat()
        stamp.update(f"{f.name}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return cache_dir() / f"uroman-{package_version('uroman')}-{stamp.hexdigest()[:16]}.pickle"


def tables(info: Callable[[str], None] | None = None):
    """The ``uroman.Uroman`` object: from the cache when it is there, else built (and kept in the cache).

    ``info`` receives one line when the tables are built (seconds of work the user would otherwise
    wait through without a word).
    """
    import uroman

    try:
        path = _cache_file()
    except OSError:
        path = None
    if path is not None and path.is_file():
        try:
            with open(path, "rb") as fh:
                obj = pickle.load(fh)
            if isinstance(obj, uroman.Uroman):
                return obj
        except Exception:  # a cache this Python cannot read: build the tables again
            pass
    if info is not None:
        info("romanize: building uroman's tables (a few CPU seconds, once; kept in "
             f"{cache_dir()} for later runs)")
    obj = uroman.Uroman()
    if path is not None:
        _store(obj, path)
    return obj


def _store(obj, path: Path) -> None:
    """Write the pickled tables under a temporary name, then rename (never a half-written cache)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError:  # a read-only home: the run goes on without a cache
        return
    buf = io.BytesIO()
    try:
        _Pickler(buf, protocol=pickle.HIGHEST_PROTOCOL).dump(obj)
    except Exception:  # a uroman whose state pickle cannot write: no cache, the tables are built each time
        return
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_bytes(buf.getvalue())
        os.replace(tmp, path)
    except OSError:  # a read-only home: the run goes on without a cache
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)


class TokenRomanizer:
    """``romanize(text)``: uroman's reading of ``text``, each distinct token romanized once.

    Equal to ``unicodedata.normalize("NFC", uroman.romanize_string(text, lcode))`` with uroman's token
    cache on (what ``builder romanize`` has always used); a text with a line break goes to
    ``romanize_string`` whole, as its own pattern does not cut across one.
    """

    def __init__(self, get_uroman: Callable[[], object], lcode: str):
        self.get_uroman, self.lcode = get_uroman, lcode  # the tables are loaded at the first text
        self.memo: dict[str, str] = {}

    def token(self, piece: str) -> str:
        out = self.memo.get(piece)
        if out is None:
            out = self.memo[piece] = self.get_uroman().romanize_string(piece, lcode=self.lcode)
        return out

    def __call__(self, text: str) -> str:
        if "\n" in text:
            return unicodedata.normalize("NFC", self.get_uroman().romanize_string(text, lcode=self.lcode))
        parts, start = [], 0
        for m in TOKEN_CUT.finditer(text):
            parts.append(self.token(text[start:m.start()]))
            parts.append(self.token(m.group()))
            start = m.end()
        parts.append(self.token(text[start:]))
        return unicodedata.normalize("NFC", "".join(parts))
