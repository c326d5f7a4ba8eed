"""``builder export``: the Hugging Face layout with card, license files and manifest.

Output (written into a staging folder that replaces ``out`` only when complete)::

    out/<variant>/<split>.parquet   one config per variant, one file per split
    out/README.md                   dataset card (YAML front matter + prose)
    out/LICENSE, out/ATTRIBUTION.md combined terms; credit per source
    out/croissant.json              Croissant metadata: files, record sets, license per split (:mod:`.croissant`)
    out/manifest.json               rows, bytes and sha256 of every file; terms per split
    out/lm_eval/                    with lm_eval=True: task YAMLs (see :mod:`.lmeval`)

The export runs in steps that each do one job, each handed what the one before
found (:class:`ExportInput`, then :class:`.parquet.Variants`):

1. read (:func:`read_input`): refuse an output that holds the input or a
   foreign folder, load the dataset, check its names and the schema;
2. resolve licenses: the audit (:func:`.audit.audit_dataset`, the one rule of
   :mod:`schemas.licensing`), which stops an unresolved conflict
   (:func:`.audit.check_releasable`);
3. write variants (:func:`.parquet.write_variants`), 4. card, ``LICENSE``,
   ``ATTRIBUTION.md`` (:func:`.documents.write_card`), 5. Croissant
   (:func:`.croissant.write_croissant`), 6. lm-eval tasks
   (:func:`.lmeval.write_lm_eval`), 7. manifest (:func:`.manifest.write_manifest`),
   all into one staging folder (:func:`write_export`).

``builder export`` and ``builder release`` run them through
:func:`builder.tasks.export.run_export`. ``schema`` (``--schema
belebele|sib200``) writes the column, split and config names of the published
Hub dataset instead (:mod:`.published`). An unresolved license conflict or an
``unknown`` license stops the export with a :class:`LicenseError`, unless the
build carries the recipe's written override. Re-exporting the same input gives
byte-identical files.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import pyarrow.parquet as pq

from schemas.codes import is_variant_code, validate_variant_code
from schemas.dataset import LoadedDataset, load_dataset_dir
from schemas.errors import SchemaError, ToolkitError, UsageError
from schemas.features import class_label_names
from schemas.io import check_replaceable, read_text_utf8, staging_dir
from schemas.runtime.outputs import refuse_inputs_inside
from schemas.tables import split_lines

from .audit import Audit, audit_dataset, check_releasable
from .credit import carried_credit, write_credit
from .croissant import write_croissant
from .documents import write_card
from .hub import check_hub_repo
from .lmeval import group_names, write_lm_eval
from .manifest import CARD_REPORTS, write_manifest
from .parquet import write_variants
from .published import PublishedSchema, get_schema

_REPORTS = ("qc_report.json", "agreement.json")
#: The files the card and Croissant steps write, in the manifest's order after the Parquet files.
DOCUMENTS = ("README.md", "LICENSE", "ATTRIBUTION.md", "croissant.json")


@dataclass(frozen=True)
class ExportInput:
    """What the read and license steps found, as every later step reads it.

    ``dataset``: the loaded folder; ``audit``: its license terms per split; ``published``: the
    column/split/config names; ``name``, ``pretty_name``: config-safe and display names;
    ``build_info``: the build manifest's ``build`` (or the manifest); ``reports``: the card's
    reports by file name; ``labels``: the curated topic labels (``class_labels``: the ClassLabel
    names when the schema types them); ``hub_repo``: where the export will be published; ``credit``:
    the ``variant.json`` each config carries (:mod:`.credit`); ``gate_failing_allowed``: an earlier
    export's card said the gate failed and it was exported anyway (carried with its qc report).
    """

    dataset: LoadedDataset
    audit: Audit
    published: PublishedSchema
    name: str
    pretty_name: str
    build_info: dict
    reports: dict
    labels: list[str]
    class_labels: list[str] | None
    hub_repo: str | None = None
    given_name: str = ""  # the name as given (--name, the manifest's, the folder's); ``name`` is its slug
    credit: dict = field(default_factory=dict)
    gate_failing_allowed: bool = False


def slug(name: str) -> str:
    """A task- and config-safe name: letters, digits and ``_``.

    >>> slug("belebele-train v2")
    'belebele_train_v2'
    """
    out = re.sub(r"[^A-Za-z0-9_]+", "_", name).strip("_")
    return out or "dataset"


def check_name(name: str, option: str = "--name") -> str:
    """``name`` if it is a name and not a path: no ``/``, ``\\`` or ``..`` (a usage error, exit 2).

    >>> check_name("belebele-train v2")
    'belebele-train v2'
    >>> check_name("../../etc")
    Traceback (most recent call last):
    ...
    schemas.errors.UsageError: field --name: expected a name, found the path '../../etc' (no '/', '\\' or '..')
    """
    if not name.strip():
        raise UsageError(f"expected a name, found {name!r}", field=option)
    if "/" in name or "\\" in name or ".." in name:
        raise UsageError(f"expected a name, found the path {name!r} (no '/', '\\' or '..')", field=option)
    return name


def check_config_names(ds: LoadedDataset) -> None:
    """Refuse a variant whose name has the shape of a FLORES-200 code but is not a valid code.

    Its name becomes a config name and the card's language, so ``nqo_Nkko`` (a typo for
    ``nqo_Nkoo``) stops the export naming its folder and the nearest valid codes.
    """
    for variant in ds.variants:
        if is_variant_code(variant):
            validate_variant_code(variant, file=ds.variant_dir(variant) or ds.root)


def _labels(ds: LoadedDataset) -> list[str]:
    """The curated label list: ``labels.txt`` beside the splits, an earlier export's ClassLabel names, else
    the labels seen, sorted."""
    if ds.kind != "topic":
        return []
    for (variant, _split), path in sorted(ds.files.items()):
        lf = path.parent / "labels.txt"
        if lf.is_file():
            return [x.strip() for x in split_lines(read_text_utf8(lf)) if x.strip()]
        if path.suffix == ".parquet":  # an earlier export: the ClassLabel names, in their order
            names = class_label_names(pq.read_schema(path)).get("category")
            if names:
                return names
    cats = set()
    for splits in ds.tables.values():
        for frame in splits.values():
            cats.update(frame["category"].astype(str))
    return sorted(cats)


def _read_json(path: Path):
    """A JSON file read as every reader reads text (:func:`schemas.io.read_text_utf8`: a BOM and CRLF are
    harmless, a bad byte is an error naming the line); malformed JSON is a :class:`SchemaError` naming the line."""
    text = read_text_utf8(path)
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise SchemaError(f"malformed JSON: {err.msg}", file=path, record=f"line {err.lineno}") from None


def _reports(root: Path) -> dict[str, dict | None]:
    out = {}
    for name in _REPORTS:
        p = root / name
        out[name] = _read_json(p) if p.is_file() else None
    return out


def carried_reports(manifest, root: Path) -> dict:
    """The card's reports an earlier export carries (its ``manifest.json`` ``card``: ``agreement``, ``qc``,
    ``baselines``, each an object or null, and ``gate_failing_allowed``); ``{}`` for any other folder.
    A malformed entry is a :class:`SchemaError` naming the manifest and the field."""
    card = manifest.get("card") if isinstance(manifest, dict) else None
    if card is None:
        return {}
    where = Path(root) / "manifest.json"
    if not isinstance(card, dict):
        raise SchemaError(f"expected a JSON object, found {type(card).__name__}", file=where, field="card")
    for kind in CARD_REPORTS.values():
        if card.get(kind) is not None and not isinstance(card[kind], dict):
            raise SchemaError(f"expected a JSON object or null, found {type(card[kind]).__name__}", file=where,
                              field=f"card.{kind}")
    if not isinstance(card.get("gate_failing_allowed", False), bool):
        raise SchemaError(f"expected true or false, found {card['gate_failing_allowed']!r}", file=where,
                          field="card.gate_failing_allowed")
    return card


def is_export(folder: Path) -> bool:
    """Whether ``folder`` is an earlier export: its manifest.json names this toolkit as the generator."""
    try:
        manifest = _read_json(Path(folder) / "manifest.json")
    except (OSError, ValueError, ToolkitError):
        return False
    return isinstance(manifest, dict) and str(manifest.get("generator", "")).startswith("mc-dataset-builder")


def read_input(built, out, *, license_id: str | None = None, source: str | None = None, name: str | None = None,
               pretty_name: str | None = None, schema: str | None = None, hub_repo: str | None = None,
               lm_eval_data_root: str | None = None, card_reports: dict | None = None) -> ExportInput:
    """The read and license steps: check the options and the output, load ``built``, audit its licenses.

    Refuses (before any work) an ``out`` that holds ``built`` or is a foreign or unwritable folder, a
    bad ``name`` or Hub repo, both ``hub_repo`` and ``lm_eval_data_root``; then a variant name that
    looks like a FLORES-200 code and is not one, a schema that does not fit, and an unresolved license
    conflict. ``card_reports`` (``builder release``) replaces the reports found beside the data.
    """
    built = Path(built)
    refuse_inputs_inside(Path(out), [built])
    check_hub_repo(hub_repo)
    if hub_repo and lm_eval_data_root:
        raise UsageError("--hub-repo and --lm-eval-data-root both say where the tasks read the data; give one")
    check_replaceable(Path(out), is_export, "export")  # before the work: a foreign or unwritable folder
    if name is not None:
        check_name(name)
    ds = load_dataset_dir(built)
    check_config_names(ds)
    published = get_schema(schema, ds.kind, ds.variants)
    audit = audit_dataset(ds.root, license_id=license_id, source=source, loaded=ds)
    check_releasable(audit, ds.root)
    manifest = ds.manifest or {}
    build_info = manifest.get("build", manifest)
    # the name as given is what people read (the card's title when no pretty name is given); its slug is
    # the config and lm-eval task name (sib200-full -> sib200_full), docs/release.md
    given = name or manifest.get("name") or manifest.get("recipe") or ds.root.resolve().name
    named = given != ds.root.resolve().name or name is not None
    name = slug(given)
    failing_carried = False
    if card_reports is not None:  # builder release: the reports of its own stages
        reports = {"agreement.json": card_reports.get("agreement"), "qc_report.json": card_reports.get("qc"),
                   "baselines": card_reports.get("baselines"), "models": card_reports.get("models")}
    else:  # the reports beside the data, else those an earlier export carries in its manifest
        reports, carried = _reports(ds.root), carried_reports(manifest, ds.root)
        for key, kind in CARD_REPORTS.items():
            if reports.get(key) is None and carried.get(kind) is not None:
                reports[key] = carried[kind]
        failing_carried = bool(carried.get("gate_failing_allowed")) and carried.get("qc") is not None \
            and reports["qc_report.json"] is carried["qc"]
    labels = _labels(ds)
    return ExportInput(dataset=ds, audit=audit, published=published, name=name,
                       pretty_name=pretty_name or manifest.get("pretty_name") or (given if named else None)
                       or default_pretty_name(audit, hub_repo) or given, build_info=build_info,
                       reports=reports, labels=labels,
                       class_labels=labels if ds.kind == "topic" and published.class_labels else None,
                       hub_repo=hub_repo, given_name=given, credit=carried_credit(audit),
                       gate_failing_allowed=failing_carried)


def default_pretty_name(audit: Audit, hub_repo: str | None) -> str | None:
    """The card's title when neither ``--pretty-name``, ``--name`` nor the input's manifest names the data
    (its folder's name, ``annotated``, says nothing): the Hub repo's name, else the credited sources and
    how many variants (``SIB-200 (24 language variants)``); None when there are more than three sources.

    >>> from types import SimpleNamespace as NS
    >>> audit = NS(overall=NS(sources=[NS(name="SIB-200")]), dataset=NS(variants=["eng_Latn", "hin_Deva"]))
    >>> default_pretty_name(audit, None), default_pretty_name(audit, "my-org/sib200-hi")
    ('SIB-200 (2 language variants)', 'sib200-hi')
    """
    if hub_repo:
        return hub_repo.split("/", 1)[1]
    names = list(dict.fromkeys(s.name for s in audit.overall.sources))
    if not 1 <= len(names) <= 3:
        return None
    k = len(audit.dataset.variants)
    return f"{', '.join(names)} ({k} language variant{'s' if k != 1 else ''})"


def romanized_variants(source: ExportInput) -> set[str]:
    """The variants whose ``variant.json`` says they are romanized copies (``method: romanization``): the
    lm-eval groups keep them apart from the variants as written (:func:`.lmeval.group_names`)."""
    out = set()
    for variant in source.dataset.variants:
        info = source.dataset.variant_info(variant)
        if info is not None and info.method == "romanization":
            out.add(variant)
    return out


def write_export(source: ExportInput, out, *, lm_eval: bool = False, lm_eval_data_root: str | None = None,
                 gate_failing_allowed: bool = False, jobs: int = 1, backend: str = "local",
                 address: str | None = None,
                 progress: Callable[[str, int, int], None] | None = None) -> tuple[dict[str, dict], list[str]]:
    """The writing steps, into one staging folder that replaces ``out`` only when complete.

    Returns the files written (export-relative path -> rows, bytes, sha256: the manifest's entries,
    in the order they were written) and the lm-eval task names.

    ``lm_eval``: also the task YAMLs (read from ``lm_eval_data_root``, else the Hub repo, else paths
    relative to the tasks); ``gate_failing_allowed``: the card says the gate failed and the release
    was exported anyway; ``jobs``, ``backend``, ``address``, ``progress``: see
    :func:`.parquet.write_variants`.
    """
    out = Path(out)
    gate_failing_allowed = gate_failing_allowed or source.gate_failing_allowed
    # no .builder.json: the manifest lists every file of an export, and says what wrote it (is_export)
    with staging_dir(out, marker=is_export, what="export", mark=False) as stage:
        variants = write_variants(stage, source, jobs=jobs, backend=backend, address=address, progress=progress)
        groups = list(group_names(source.name, source.dataset.variants, romanized_variants(source))) if lm_eval else []
        card = write_card(stage, source, variants, gate_failing_allowed=gate_failing_allowed, lm_eval_groups=groups,
                          lm_eval_data_root=lm_eval_data_root)
        write_croissant(stage, source, variants, card)
        files = dict(variants.files)
        text_labels = source.labels if source.dataset.kind == "topic" and source.class_labels is None else None
        files.update(write_credit(stage, source.credit, variants=source.dataset.variants, labels=text_labels))
        files.update({rel: {} for rel in DOCUMENTS})
        tasks: list[str] = []
        if lm_eval:
            written, tasks = write_lm_eval(stage / "lm_eval", name=source.name, kind=source.dataset.kind,
                                           files=variants.split_files, data_root=lm_eval_data_root,
                                           labels=source.labels, hub_repo=source.hub_repo,
                                           schema=source.published.name, romanized=romanized_variants(source))
            files.update({f"lm_eval/{f}": {} for f in written})
        write_manifest(stage, source, variants.sizes, files, tasks, gate_failing_allowed=gate_failing_allowed)
    return files, tasks
