"""The export's card step: ``README.md`` (the dataset card), ``LICENSE`` and ``ATTRIBUTION.md``.

The card is rendered by :mod:`data_cards.card` from what the read and variants
steps found, and its front matter is parsed back before it is written (a
duplicate or malformed key stops the export). ``LICENSE`` and
``ATTRIBUTION.md`` state the combined terms of the whole release and the
credit per source (:mod:`data_cards.legal`).
"""
from __future__ import annotations

from pathlib import Path

from data_cards.card import FILTERS_HEADING, CardContext, SplitTerms, references, render_card
from data_cards.frontmatter import check_card_metadata, parse_front_matter
from data_cards.legal import derived_changes, render_attribution, render_license

from .parquet import Variants


def _references(audit, build_info: dict, credit: dict) -> dict[str, str]:
    """Source name -> reference: the toolkit's own for sources it knows, else the citation a
    ``variant.json`` declares for its ``source_name`` (``builder describe``; one line in the card)."""
    names = [x.name for x in audit.overall.sources]
    refs = references(names, build_info)
    for info in credit.values():
        if info.source_name in names and info.source_name not in refs and info.citation:
            refs[info.source_name] = " ".join(info.citation.split())
    return refs


def write_card(stage: Path, source, variants: Variants, *, gate_failing_allowed: bool = False,
               lm_eval_groups: list[str] | None = None, lm_eval_data_root: str | None = None) -> CardContext:
    """Write the card, ``LICENSE`` and ``ATTRIBUTION.md`` of ``source`` (a :class:`.writer.ExportInput`)
    into ``stage``; return the card's context (the Croissant step describes the data with it).
    ``lm_eval_groups``: the groups of the lm-eval tasks in ``lm_eval/`` (the card says how to run them), and
    ``lm_eval_data_root`` where they read the data."""
    audit, reports, overall = source.audit, source.reports, source.audit.overall
    ctx = CardContext(
        name=source.name, pretty_name=source.pretty_name, kind=source.dataset.kind, sizes=variants.sizes,
        files=variants.split_files, columns=variants.columns,
        splits=[SplitTerms(v, s, t) for v, s, t in variants.split_terms], overall=overall,
        override=audit.override, description=source.build_info.get("description"), manifest=source.build_info,
        variant_info={v: info.to_dict() for v, info in source.credit.items()}, labels=source.labels,
        agreement=reports["agreement.json"],
        qc=reports["qc_report.json"], references=_references(audit, source.build_info, source.credit),
        dataset_info=variants.infos, baselines=reports.get("baselines"), models=reports.get("models"),
        gate_failing_allowed=gate_failing_allowed,
        hub_repo=source.hub_repo, lm_eval_groups=list(lm_eval_groups or []),
        lm_eval_data_root=lm_eval_data_root, schema=source.published.name)
    card = render_card(ctx)
    check_card_metadata(parse_front_matter(card, file="README.md")[0], file="README.md")
    texts = {"README.md": card, "LICENSE": render_license(source.pretty_name, overall, audit.override),
             # the changes this build made (romanized, aligned, projected), as share-alike licenses ask
             "ATTRIBUTION.md": render_attribution(source.name, overall, ctx.references,
                                                  changes=derived_changes(ctx.variant_info),
                                                  filters=FILTERS_HEADING in card.splitlines())}
    for rel, text in texts.items():
        (stage / rel).write_text(text, encoding="utf-8", newline="\n")
    return ctx
