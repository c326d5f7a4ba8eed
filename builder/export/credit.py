"""The credit an export carries: ``<variant>/variant.json`` beside each config's Parquet files.

An export is a valid input of every command (``builder licenses``, ``builder
export``, ``qc``), and each reads whom to credit from the one place it reads it
for any variant folder: the ``variant.json`` beside the split files
(:class:`schemas.variant.VariantInfo`, read by the license rule of
:mod:`schemas.licensing` and by the card). So the export writes there what the
audit used: the input's ``variant.json`` as it was read (source name, license,
citation, romanization tool and scheme, the variant's own checks), less
``source`` (the input path on the machine that built it, not a credit line),
and with ``source_name`` set to the name the audit credited to records that
name none (``--source-name``, or the input folder's name) when the variant's
records were credited to it and its ``variant.json`` named no source.

Read back, the same facts give the same credit: ``ATTRIBUTION.md``, the card's
sources, references, romanization and warnings are byte-identical on a
re-export, and ``builder licenses EXPORT`` names the real source instead of
the export's folder name. A variant with nothing to carry gets no file.

A layout that stores topic labels as text (``--schema sib200``) has no
``ClassLabel`` to keep the curated label list in its order, so each config
folder also gets the ``labels.txt`` every reader of a variant folder reads
(:func:`.writer._labels`); the card's label list then reads the same again.
"""
from __future__ import annotations

from pathlib import Path

from schemas.variant import VARIANT_JSON, VariantInfo

#: Keys of an input ``variant.json`` an export does not carry (not credit, and local to the build machine).
NOT_CARRIED = ("source",)
#: The curated topic labels beside a variant's split files, one a line, in their order.
LABELS_TXT = "labels.txt"


def carried_credit(audit) -> dict[str, VariantInfo]:
    """Variant -> the ``variant.json`` its export carries (:mod:`this module <builder.export.credit>`), from
    ``audit`` (a :class:`.audit.Audit`); variants with nothing to carry are left out.

    >>> from types import SimpleNamespace as NS
    >>> from schemas.license_terms import combine
    >>> audit = NS(variant_info={"hin_Latn": VariantInfo.from_dict({"source": "in/hin_Latn", "scheme": "iso"})},
    ...            defaults={"hin_Latn": "SIB-200", "eng_Latn": "mc_small"},
    ...            splits=[NS(variant="hin_Latn", terms=combine([("SIB-200", "CC-BY-SA-4.0", 2)])),
    ...                    NS(variant="eng_Latn", terms=combine([("RACE", "CC-BY-NC-4.0", 2)]))])
    >>> {v: info.to_dict() for v, info in carried_credit(audit).items()}
    {'hin_Latn': {'source_name': 'SIB-200', 'scheme': 'iso'}}
    """
    credited: dict[str, set[str]] = {}
    for s in audit.splits:
        credited.setdefault(s.variant, set()).update(share.name for share in s.terms.sources)
    out = {}
    for variant in sorted(set(audit.variant_info) | set(audit.defaults)):
        info = audit.variant_info.get(variant)
        data = {} if info is None else {k: v for k, v in info.to_dict().items() if k not in NOT_CARRIED}
        default = audit.defaults.get(variant)
        if not (data.get("source_name") or data.get("dataset")) and default in credited.get(variant, ()):
            data["source_name"] = default
        if data:
            out[variant] = VariantInfo.from_dict(data)
    return out


def write_credit(stage: Path, credit: dict[str, VariantInfo], *, variants=(),
                 labels: list[str] | None = None) -> dict[str, dict]:
    """Write each variant's carried ``variant.json`` into its config folder under ``stage`` and, with
    ``labels``, ``labels.txt`` into the folder of every one of ``variants``; return the manifest entries
    (export-relative path -> ``{}``, completed by the manifest step)."""
    files = {}
    for variant, info in sorted(credit.items()):
        info.write(stage / variant)
        files[f"{variant}/{VARIANT_JSON}"] = {}
    if labels:
        for variant in sorted(variants):
            (stage / variant / LABELS_TXT).write_text("".join(f"{x}\n" for x in labels), encoding="utf-8",
                                                      newline="\n")
            files[f"{variant}/{LABELS_TXT}"] = {}
    return dict(sorted(files.items()))
