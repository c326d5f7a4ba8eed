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


_RECORDED_FROM: "contextvars.ContextVar[str | None]" = contextvars.ContextVar("recorded_from", default=None)


@contextlib.contextmanager
def paths_recorded_from(root: str | os.PathLike):
    """While the block runs, :func:`recorded_path` writes paths under ``root`` relative to it.

    A release runs each stage's task inside it, so what a stage records of its
    inputs (``variant.json``'s source folder, the baselines' dataset) does not
    depend on where the release folder lies; a command run on its own records
    paths as the user gave them.
    """
    token = _RECORDED_FROM.set(os.path.abspath(root))
    try:
        yield
    finally:
        _RECORDED_FROM.reset(token)


def recorded_path(path: str | os.PathLike) -> str:
    """``path`` as an output records it: relative to the folder of :func:`paths_recorded_from` when it
    lies inside it, else as given.

    >>> recorded_path("data/x.tsv")
    'data/x.tsv'
    >>> with paths_recorded_from("/srv/rel"):
    ...     recorded_path("/srv/rel/stages/a/output"), recorded_path("/elsewhere/b")
    ('stages/a/output', '/elsewhere/b')
    """
    root = _RECORDED_FROM.get()
    text = os.fspath(path)
    if root is None:
        return text
    absolute = os.path.abspath(text)
    if absolute == root or absolute.startswith(root + os.sep):
        return os.path.relpath(absolute, root).replace(os.sep, "/")
    return text
