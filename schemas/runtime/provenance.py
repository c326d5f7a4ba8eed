"""Who made an output: the toolkit's name and version, and the libraries that shape its bytes.

One owner for the version every stage records (the release's ``stage.json``
and ``release.json``, the assembly manifest, the export's Croissant file).

>>> tool_info()["name"]
'mc-dataset-builder'
"""
from __future__ import annotations

import contextlib
import contextvars
import functools
import os
import platform

DISTRIBUTION = "mc-dataset-builder"


@functools.lru_cache(maxsize=None)
def package_version(dist: str) -> str:
    """The installed version of distribution ``dist``, or ``"unknown"`` (a bare checkout)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(dist)
    except PackageNotFoundError:
        return "unknown"


def tool_version() -> str:
    """The toolkit's version (``0+unknown`` when it is not installed)."""
    found = package_version(DISTRIBUTION)
    return "0+unknown" if found == "unknown" else found


def tool_info() -> dict[str, str]:
    """``{"name": ..., "version": ...}`` of the toolkit, as every record names it."""
    return {"name": DISTRIBUTION, "version": tool_version()}


def library_versions(libraries: tuple[tuple[str, str], ...]) -> dict[str, str]:
    """``{"python": X, "toolkit": Y, key: version}`` for ``(distribution, key)`` pairs."""
    out = {"python": platform.python_version(), "toolkit": package_version(DISTRIBUTION)}
    for dist, key in libraries:
        out[key] = package_version(dist)
    return out


_RECORDED_FROM: "contextvars.ContextVar[tuple[str, str | None] | None]" = contextvars.ContextVar(
    "recorded_from", default=None)


@contextlib.contextmanager
def paths_recorded_from(root: str | os.PathLike, outside: str | os.PathLike | None = None):
    """While the block runs, :func:`recorded_path` writes paths under ``root`` relative to it, and, with
    ``outside``, every other path relative to ``outside``.

    A release runs each stage's task inside it with ``outside`` its recipe's folder (as its stage records
    name their inputs), so what a stage records of its inputs (``variant.json``'s source folder, the
    baselines' dataset) depends neither on where the release folder lies nor on where the data does; a
    command run on its own records paths as the user gave them.
    """
    token = _RECORDED_FROM.set((os.path.abspath(root), None if outside is None else os.path.abspath(outside)))
    try:
        yield
    finally:
        _RECORDED_FROM.reset(token)


def recorded_path(path: str | os.PathLike) -> str:
    """``path`` as an output records it: relative to the folder of :func:`paths_recorded_from` when it
    lies inside it, else relative to its ``outside`` folder if it has one, else as given.

    >>> recorded_path("data/x.tsv")
    'data/x.tsv'
    >>> with paths_recorded_from("/srv/rel"):
    ...     recorded_path("/srv/rel/stages/a/output"), recorded_path("/elsewhere/b")
    ('stages/a/output', '/elsewhere/b')
    >>> with paths_recorded_from("/srv/rel", outside="/srv/recipes"):
    ...     recorded_path("/srv/data/hin_Deva")
    '../data/hin_Deva'
    """
    recording = _RECORDED_FROM.get()
    text = os.fspath(path)
    if recording is None:
        return text
    root, outside = recording
    absolute = os.path.abspath(text)
    if absolute == root or absolute.startswith(root + os.sep):
        return os.path.relpath(absolute, root).replace(os.sep, "/")
    if outside is not None:
        return os.path.relpath(absolute, outside).replace(os.sep, "/")
    return text
