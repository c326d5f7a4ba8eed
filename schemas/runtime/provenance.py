"""Who made an output: the toolkit's name and version, and the libraries that shape its bytes.

One owner for the version every stage records (the release's ``stage.json``
and ``release.json``, the assembly manifest, the export's Croissant file).

>>> tool_info()["name"]
'mc-dataset-builder'
"""
from __future__ import annotations

import functools
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
