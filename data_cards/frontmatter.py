"""YAML front matter of a dataset card: written deterministically, parsed back strictly.

Parsing rejects duplicate keys (PyYAML silently keeps the last one), as the
Hugging Face Hub does, with the toolkit's one YAML loader
(:func:`schemas.io.load_yaml`), and :func:`check_card_metadata` checks the
fields the Hub needs, showing every accepted form in its error.

>>> meta, body = parse_front_matter(dump_front_matter({"license": "mit"}) + "# Card\\n")
>>> meta["license"], body
('mit', '# Card\\n')
"""
from __future__ import annotations

import yaml

from schemas.errors import RecipeError, SchemaError
from schemas.io import load_yaml

DELIMITER = "---"

#: Hugging Face Hub size buckets, smallest first, with their exclusive upper bounds.
SIZE_CATEGORIES = (
    (1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M"),
    (10_000_000, "1M<n<10M"), (100_000_000, "10M<n<100M"), (1_000_000_000, "100M<n<1B"),
)


def size_category(n: int) -> str:
    """The Hub's size bucket for ``n`` rows.

    >>> size_category(900), size_category(205 * 1004)
    ('n<1K', '100K<n<1M')
    """
    for bound, name in SIZE_CATEGORIES:
        if n < bound:
            return name
    return "n>1B"


_Dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def dump_front_matter(meta: dict) -> str:
    """``---`` + YAML (keys in the given order, block style, Unicode kept) + ``---``."""
    text = yaml.dump(meta, Dumper=_Dumper, sort_keys=False, allow_unicode=True,
                     default_flow_style=False, width=10_000)
    return f"{DELIMITER}\n{text}{DELIMITER}\n"


def parse_front_matter(text: str, *, file=None) -> tuple[dict, str]:
    """Split a card into ``(metadata, body)``; duplicate keys are a :class:`SchemaError`.

    The YAML is read by :func:`schemas.io.load_yaml`, the loader of every recipe
    and config, so lines are the card's own (the front matter starts on line 2).
    Only a ``---`` at the start of a line closes it, as on the Hub: ``yaml.dump``
    writes a value holding a ``---`` line as an indented continuation line.

    >>> parse_front_matter(dump_front_matter({"pretty_name": "x\\n---\\ny"}) + "body")
    ({'pretty_name': 'x\\n---\\ny'}, 'body')

    >>> parse_front_matter("---\\na: 1\\na: 2\\n---\\n", file="README.md")
    Traceback (most recent call last):
    ...
    schemas.errors.SchemaError: README.md, line 3, field a: duplicate key 'a' (first at line 2)
    """
    lines = text.split("\n")
    if not lines or lines[0].strip() != DELIMITER:
        raise SchemaError("a card must start with a '---' line opening the YAML front matter", file=file,
                          record="line 1")
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].rstrip() == DELIMITER)
    except StopIteration:
        raise SchemaError("the YAML front matter is not closed by a '---' line", file=file) from None
    try:
        meta = load_yaml("\n".join(lines[1:end]), file=file, first_line=2)
    except RecipeError as err:  # malformed YAML or a duplicate key: a card that does not match its schema
        raise SchemaError(err.message, file=err.file, record=err.record, field=err.field) from None
    if not isinstance(meta, dict):
        raise SchemaError(f"front matter must be a mapping, found {type(meta).__name__}", file=file)
    return meta, "\n".join(lines[end + 1:])


_REQUIRED = {
    "license": "a Hub license id string (e.g. 'cc-by-sa-4.0', 'other') or a list of them",
    "language": "a list of ISO 639-1 codes, or ISO 639-3 where there is none (e.g. ['hi', 'arb'])",
    "pretty_name": "a non-empty string",
    "task_categories": "a list of Hub task categories (e.g. ['multiple-choice'])",
    "size_categories": "a list with one Hub size bucket (e.g. ['1K<n<10K'])",
    "configs": "a list of {config_name: str, data_files: [{split: str, path: str}]}",
}


def check_card_metadata(meta: dict, *, file=None) -> dict:
    """Check the fields the Hub and ``datasets.load_dataset`` need; return ``meta``.

    >>> check_card_metadata({"license": "mit"})
    Traceback (most recent call last):
    ...
    schemas.errors.SchemaError: field language: missing; expected a list of ISO 639-1 codes, or ISO 639-3 where there is none (e.g. ['hi', 'arb'])
    """
    for key, form in _REQUIRED.items():
        if key not in meta:
            raise SchemaError(f"missing; expected {form}", file=file, field=key)
    lic = meta["license"]
    if not (isinstance(lic, str) or (isinstance(lic, list) and all(isinstance(x, str) for x in lic))):
        raise SchemaError(f"expected {_REQUIRED['license']}, found {lic!r}", file=file, field="license")
    if meta["license"] == "other" and not {"license_name", "license_link"} <= set(meta):
        raise SchemaError("license 'other' needs license_name and license_link", file=file, field="license")
    for key in ("language", "task_categories", "size_categories"):
        if not isinstance(meta[key], list) or not all(isinstance(x, str) for x in meta[key]):
            raise SchemaError(f"expected {_REQUIRED[key]}, found {meta[key]!r}", file=file, field=key)
    details = meta.get("language_details")
    if details is not None and (not isinstance(details, list) or not all(isinstance(x, str) for x in details)):
        raise SchemaError(f"expected a list of BCP-47 tags (e.g. ['hi-Deva', 'hi-Latn']), found {details!r}",
                          file=file, field="language_details")
    allowed_sizes = {name for _, name in SIZE_CATEGORIES} | {"n>1B"}
    bad = [s for s in meta["size_categories"] if s not in allowed_sizes]
    if bad:
        raise SchemaError(f"unknown size bucket {bad[0]!r}; allowed: {', '.join(sorted(allowed_sizes))}",
                          file=file, field="size_categories")
    names = set()
    for i, cfg in enumerate(meta["configs"] or []):
        files = cfg.get("data_files") if isinstance(cfg, dict) else None
        if not isinstance(cfg, dict) or not isinstance(cfg.get("config_name"), str) or not isinstance(files, list) \
                or not all(isinstance(f, dict) and {"split", "path"} <= set(f) for f in files):
            raise SchemaError(f"expected {_REQUIRED['configs']}, found {cfg!r}", file=file, field=f"configs[{i}]")
        if cfg["config_name"] in names:
            raise SchemaError(f"config_name {cfg['config_name']!r} appears twice", file=file,
                              field=f"configs[{i}]")
        names.add(cfg["config_name"])
    return meta
