"""The sha256 check of a dataset folder's ``manifest.json``: the one owner, for every reader of split files.

:func:`schemas.dataset.load_dataset_dir` verifies each folder it reads through
these functions; readers that read split files themselves (``builder
romanize``, ``builder extend``'s topic source, ``builder annotate
curate/split``) call :func:`verify_against_manifest`. Without pandas, so that
a reader that needs none does not import it. See :mod:`schemas.dataset` for
the rule (every split file the manifest lists in a folder that is read).
"""
from __future__ import annotations

import contextlib
import contextvars
import json
import os
from pathlib import Path

from .errors import IntegrityError, SchemaError
from .io import read_text_utf8, sha256_file

_SUFFIXES = (".parquet", ".jsonl", ".tsv")  # the split files of schemas.dataset
_SKIP = {"dropped", "manifest", "labels", "qc_report", "results"}
_VERIFY = contextvars.ContextVar("schemas_dataset_verify", default=True)


def split_files(folder: Path, suffixes=_SUFFIXES) -> dict[str, Path]:
    """``{split: file}`` of one folder; where a split has several files, the first of ``suffixes`` wins
    (by default parquet over jsonl over tsv). Here, without pandas, so that planning a release (which
    lists variant folders) and checking a manifest do not import it; :mod:`schemas.dataset` reads them."""
    try:
        names = sorted(os.listdir(folder))  # one listing, not a glob per suffix (a release plans 200 folders)
    except OSError:  # missing, or not a folder: no split files, as a glob finds none
        return {}
    found: dict[str, Path] = {}
    for suffix in suffixes:
        for name in names:
            stem = name[: -len(suffix)]
            if not name.endswith(suffix) or stem in _SKIP or stem.startswith(".") or stem in found:
                continue
            found[stem] = Path(folder) / name
    return found


@contextlib.contextmanager
def manifest_verification(enabled: bool):
    """Within the block, :func:`load_dataset_dir` verifies manifests (``True``, the default) or not."""
    token = _VERIFY.set(enabled)
    try:
        yield
    finally:
        _VERIFY.reset(token)


def recorded_hashes(root: Path, manifest) -> dict[Path, str]:
    """``path -> sha256`` of the files ``manifest.json`` lists (assembled: ``name -> sha256``; export:
    ``relative path -> {sha256, ...}``)."""
    files = manifest.get("files") if isinstance(manifest, dict) else None
    if not isinstance(files, dict):
        return {}
    out = {}
    for rel, entry in files.items():
        digest = entry.get("sha256") if isinstance(entry, dict) else entry
        if isinstance(rel, str) and isinstance(digest, str):
            out[root / rel] = digest
    return out


def verify_file(path: Path, expected: str | None) -> None:
    """Raise :class:`IntegrityError` unless ``path`` hashes to ``expected`` (None: nothing recorded)."""
    if expected is not None and sha256_file(path, chunk=1 << 22) != expected:
        raise IntegrityError("differs from the sha256 that manifest.json recorded: the file changed after the "
                             "folder was written; rebuild the folder, or read it anyway with "
                             "'builder --no-verify COMMAND ...'", file=path)


def _split_file(path: Path) -> bool:
    return path.suffix in _SUFFIXES and path.stem not in _SKIP


def _verify_others(folder: Path, expected: dict[Path, str], read) -> None:
    """Verify the split files of ``folder`` that the manifest lists and that this reader did not read itself
    (``read``: those :func:`read_table` verified), e.g. ``train.jsonl`` beside the ``train.parquet`` read."""
    read = set(read)
    for path in sorted(expected):
        if path.parent == folder and _split_file(path) and path not in read:
            if not path.exists():
                _check_listed({path: expected[path]}, {folder})
            verify_file(path, expected[path])


def read_manifest(root: Path) -> dict | None:
    """``root/manifest.json`` as a dict, or None without one; malformed JSON is a :class:`SchemaError` naming it."""
    path = Path(root) / "manifest.json"
    if not path.is_file():
        return None
    try:
        return json.loads(read_text_utf8(path))  # a BOM is harmless, a bad byte one line
    except json.JSONDecodeError as err:
        raise SchemaError(f"malformed JSON: {err.msg}", file=path, record=f"line {err.lineno}") from None


def verify_against_manifest(path: str | Path) -> None:
    """Check the split files at ``path`` that a ``manifest.json`` lists against their recorded sha256.

    ``path`` is a folder (every split file the manifest lists in it) or one split file. The manifest
    is the one beside the files (an assembled set) or in the folder above (an export's
    ``<variant>/``). For readers that read split files without :func:`load_dataset_dir`
    (``builder romanize``, ``builder extend``'s topic source, ``builder annotate curate/split``): a
    changed or missing file is the :class:`~schemas.errors.IntegrityError` the loader gives (exit 2).
    Off inside ``manifest_verification(False)`` (``builder --no-verify``).

    >>> verify_against_manifest(Path("tests/data/sib200/annotated/hin_Deva"))  # no manifest: nothing to check
    """
    if not _VERIFY.get():
        return
    path = Path(path)
    folder = path if path.is_dir() else path.parent
    for root in (folder, folder.parent):
        expected = recorded_hashes(root, read_manifest(root))
        if path is not folder:
            verify_file(path, expected.get(path) if _split_file(path) else None)
        elif any(p.parent == folder for p in expected):
            _check_listed(expected, {folder})
            _verify_others(folder, expected, ())


def _check_listed(expected: dict[Path, str], folders) -> None:
    """Raise :class:`IntegrityError` for a split file in ``folders`` that the manifest lists and that is gone."""
    for path in sorted(expected):
        if path.parent in folders and _split_file(path) and not path.exists():
            raise IntegrityError("manifest.json lists this file, and it is missing: the folder changed after it "
                                 "was written; rebuild the folder, or read it anyway with "
                                 "'builder --no-verify COMMAND ...'", file=path)


