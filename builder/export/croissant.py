"""``croissant.json``: the export described in MLCommons Croissant 1.0 (JSON-LD), beside the card.

What it holds:

- ``distribution``: one ``cr:FileObject`` per Parquet file (path relative to
  the export, size, SHA-256, its split's license terms) and one ``cr:FileSet``
  per config (``<variant>/*.parquet``);
- ``recordSet``: one per config, a field per column with the typed features
  (``sc:Integer``, ``sc:Text``) plus ``split`` (from the file name); the topic
  label references the ``labels`` enumeration (index and name, inline), as a
  ``ClassLabel`` does; the provenance struct is left out;
- ``license``: one ``sc:CreativeWork`` per distinct terms, naming the splits
  they apply to, so the license of every split is stated.

The text is deterministic (no date, keys in a fixed order). The toolkit writes
the JSON itself; the tests validate it with ``mlcroissant`` and read the
records back through it.
"""
from __future__ import annotations

import json
from pathlib import Path

from data_cards.card import CardContext, card_description
from schemas.license_registry import get_license

#: Croissant 1.0's JSON-LD context (as ``mlcroissant`` writes it).
CONTEXT = {
    "@language": "en", "@vocab": "https://schema.org/", "citeAs": "cr:citeAs", "column": "cr:column",
    "conformsTo": "dct:conformsTo", "cr": "http://mlcommons.org/croissant/", "rai": "http://mlcommons.org/croissant/RAI/",
    "data": {"@id": "cr:data", "@type": "@json"}, "dataType": {"@id": "cr:dataType", "@type": "@vocab"},
    "dct": "http://purl.org/dc/terms/", "equivalentProperty": "cr:equivalentProperty",
    "examples": {"@id": "cr:examples", "@type": "@json"}, "extract": "cr:extract", "field": "cr:field",
    "fileProperty": "cr:fileProperty", "fileObject": "cr:fileObject", "fileSet": "cr:fileSet", "format": "cr:format",
    "includes": "cr:includes", "isLiveDataset": "cr:isLiveDataset", "jsonPath": "cr:jsonPath", "key": "cr:key",
    "md5": "cr:md5", "parentField": "cr:parentField", "path": "cr:path", "recordSet": "cr:recordSet",
    "references": "cr:references", "regex": "cr:regex", "repeated": "cr:repeated", "replace": "cr:replace",
    "samplingRate": "cr:samplingRate", "sc": "https://schema.org/", "separator": "cr:separator",
    "source": "cr:source", "subField": "cr:subField", "transform": "cr:transform",
}
CONFORMS_TO = "http://mlcommons.org/croissant/1.0"
PARQUET = "application/x-parquet"
LABELS = "labels"


def _data_type(feature) -> str | None:
    from datasets import ClassLabel, Value

    if isinstance(feature, ClassLabel):
        return "sc:Integer"
    if isinstance(feature, Value):
        if feature.dtype.startswith(("int", "uint")):
            return "sc:Integer"
        if feature.dtype.startswith("float"):
            return "sc:Float"
        if feature.dtype == "bool":
            return "sc:Boolean"
        return "sc:Text"
    return None  # a struct (provenance): not described


def _label_set(names: list[str]) -> dict:
    return {"@type": "cr:RecordSet", "@id": LABELS, "name": LABELS,
            "description": "The topic labels: a ClassLabel index and its name.",
            "key": {"@id": f"{LABELS}/index"},
            "field": [{"@type": "cr:Field", "@id": f"{LABELS}/index", "name": "index", "dataType": "sc:Integer"},
                      {"@type": "cr:Field", "@id": f"{LABELS}/name", "name": "name", "dataType": "sc:Text"}],
            "data": [{f"{LABELS}/index": i, f"{LABELS}/name": n} for i, n in enumerate(names)]}


def _record_set(config: str, features) -> dict:
    from datasets import ClassLabel

    fileset = {"@id": f"{config}-parquet"}
    fields = [] if "split" in features else [  # assembled sets carry a split column of their own
        {"@type": "cr:Field", "@id": f"{config}/split", "name": "split", "dataType": "sc:Text",
         "description": "The split, from the file name.",
         "source": {"fileSet": fileset, "extract": {"fileProperty": "filename"},
                    "transform": {"regex": "^(.+)\\.parquet$"}}}]
    for name, feature in features.items():
        dtype = _data_type(feature)
        if dtype is None:
            continue
        field = {"@type": "cr:Field", "@id": f"{config}/{name}", "name": name, "dataType": dtype,
                 "source": {"fileSet": fileset, "extract": {"column": name}}}
        if isinstance(feature, ClassLabel):
            field["references"] = {"field": {"@id": f"{LABELS}/index"}}
        fields.append(field)
    return {"@type": "cr:RecordSet", "@id": config, "name": config,
            "description": f"The records of config {config}, every split.", "field": fields}


def _license_entries(splits) -> list[dict]:
    """One CreativeWork per distinct terms; ``splits`` is a list of ``(variant, split, Terms)``."""
    groups: dict[str, list[str]] = {}
    licenses: dict[str, tuple] = {}
    for variant, split, terms in splits:
        groups.setdefault(terms.terms, []).append(f"{variant}/{split}")
        licenses[terms.terms] = tuple(terms.licenses)
    out = []
    for terms, members in groups.items():
        entry = {"@type": "sc:CreativeWork", "name": terms,
                 "description": "Applies to the splits " + ", ".join(members) + "."}
        ids = licenses[terms]
        lic = get_license(ids[0]) if len(ids) == 1 else None  # one license: link it
        if lic is not None and lic.url:
            entry["url"] = lic.url
        out.append(entry)
    return out


def croissant(*, name: str, pretty_name: str, description: str, files: dict[str, dict],
              split_files: dict[str, dict[str, str]], features: dict, splits, cite_as: str | None,
              url: str | None, labels: list[str] | None = None, version: str = "1.0.0") -> str:
    """The ``croissant.json`` text.

    Parameters
    ----------
    name, pretty_name, description : str
        The dataset's id, display name and one-paragraph description.
    files : dict
        Export-relative path -> ``{"bytes", "sha256"}`` (the manifest's entries).
    split_files : dict
        Config -> split -> export-relative Parquet path.
    features : dict
        Config -> :class:`datasets.Features`.
    splits : list of (variant, split, Terms)
        The license terms of every exported split.
    cite_as, url : str, optional
        How to cite the dataset; where it lives (the Hub page with ``--hub-repo``).
    labels : list of str, optional
        The ClassLabel names, described as the ``labels`` record set.
    version : str
        The dataset's version (the build manifest's ``version``, else 1.0.0).
        No ``datePublished``: the same input gives the same bytes.
    """
    terms_of = {(v, s): t.terms for v, s, t in splits}
    distribution = []
    for config in sorted(split_files):
        for split, rel in split_files[config].items():
            entry = files[rel]
            distribution.append({
                "@type": "cr:FileObject", "@id": rel, "name": rel,
                "description": f"{config}/{split}, under {terms_of[(config, split)]}",
                "contentUrl": rel, "contentSize": f"{entry['bytes']} B", "encodingFormat": PARQUET,
                "sha256": entry["sha256"]})
        distribution.append({"@type": "cr:FileSet", "@id": f"{config}-parquet", "name": f"{config}-parquet",
                             "description": f"The Parquet files of config {config}, one per split.",
                             "encodingFormat": PARQUET, "includes": f"{config}/*.parquet"})
    record_sets = ([_label_set(labels)] if labels and any(
        _has_class_label(f) for f in features.values()) else [])
    record_sets += [_record_set(config, features[config]) for config in sorted(split_files)]
    doc = {"@context": CONTEXT, "@type": "sc:Dataset", "name": name, "alternateName": pretty_name,
           "description": description, "conformsTo": CONFORMS_TO, "version": version}
    if url:
        doc["url"] = url
    doc["license"] = _license_entries(splits)
    if cite_as:
        doc["citeAs"] = cite_as
    doc["distribution"] = distribution
    doc["recordSet"] = record_sets
    return json.dumps(doc, ensure_ascii=False, indent=2) + "\n"


def _has_class_label(features) -> bool:
    from datasets import ClassLabel

    return any(isinstance(f, ClassLabel) for f in features.values())


def write_croissant(stage: Path, source, variants, card: CardContext) -> None:
    """The export's Croissant step: ``stage/croissant.json`` for ``source`` (a :class:`.writer.ExportInput`),
    its Parquet files (``variants``, a :class:`.parquet.Variants`) and the card's description and references."""
    refs = [card.references[s.name] for s in source.audit.overall.sources if s.name in card.references]
    text = croissant(
        name=source.name, pretty_name=source.pretty_name, description=card_description(card), files=variants.files,
        split_files=variants.split_files, features=variants.features, splits=variants.split_terms,
        cite_as="\n".join(dict.fromkeys(refs)) or None,
        url=f"https://huggingface.co/datasets/{source.hub_repo}" if source.hub_repo else None,
        labels=source.class_labels, version=str(source.build_info.get("version") or "1.0.0"))
    (stage / "croissant.json").write_text(text, encoding="utf-8", newline="\n")
