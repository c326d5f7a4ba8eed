"""Render a Hugging Face dataset card (``README.md``) from what an export knows.

The card is YAML front matter (license, language codes, pretty_name,
task_categories, size_categories, configs with data_files) followed by prose
sections filled into ``templates/card.md``. Sections whose input does not exist
(no agreement report, no romanized variant, no QC report) are left out. The
text is deterministic: the same context gives the same bytes.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from importlib import resources
from string import Template

from schemas.codes import variant_language, variant_parts
from schemas.escape import md_block, md_code, md_inline
from schemas.license_registry import get_license
from schemas.license_terms import Terms
from schemas.licensing import LicenseOverride

from .citations import by_text, cite, link_arxiv, reference
from .frontmatter import dump_front_matter, size_category
import re

from .languages import bcp47, describe, hub_language
from .sections import (agreement_section, baselines_section, filters_section, intended_use_section, models_section,
                       qc_section, romanization_section, warnings_section)

#: The heading of the card's filter record; ``ATTRIBUTION.md`` points to it only when the card has it.
FILTERS_HEADING = "## Filters applied"

TASKS = {
    "mc": {"task_categories": ["multiple-choice", "question-answering"], "task_ids": ["multiple-choice-qa"]},
    "topic": {"task_categories": ["text-classification"], "task_ids": ["topic-classification"]},
}


@dataclass
class SplitTerms:
    """The terms of one exported split."""

    variant: str
    split: str
    terms: Terms


@dataclass
class CardContext:
    """Everything the card is rendered from (the export builds it)."""

    name: str
    pretty_name: str
    kind: str
    sizes: dict[str, dict[str, int]]
    files: dict[str, dict[str, str]]
    columns: list[tuple[str, str]]
    splits: list[SplitTerms]
    overall: Terms
    override: LicenseOverride | None = None
    description: str | None = None
    manifest: dict = field(default_factory=dict)
    variant_info: dict[str, dict] = field(default_factory=dict)
    labels: list[str] = field(default_factory=list)
    agreement: dict | None = None
    qc: dict | None = None
    references: dict[str, str] = field(default_factory=dict)
    dataset_info: list[dict] = field(default_factory=list)  # per config: typed features and split sizes
    baselines: dict | None = None        # results.json of `builder evaluate baselines` (builder release)
    models: dict | None = None           # results.json of `builder evaluate lm` (a release's lm_eval stage)
    gate_failing_allowed: bool = False   # exported although the qc gate failed (builder release)
    hub_repo: str | None = None          # ORG/NAME the export will be published as (--hub-repo)
    lm_eval_groups: list[str] = field(default_factory=list)  # lm-eval groups of the tasks in lm_eval/, if any
    lm_eval_data_root: str | None = None  # where those tasks read the data (--lm-eval-data-root)
    schema: str = "ours"                 # column and split names: ours, or a published dataset's (--schema)

    def __post_init__(self):
        # the citation a variant.json declares for its source (the recipe's, in a release) wins over the
        # toolkit's built-in reference of that source name: one rule, :func:`declared_references`
        self.references = {**self.references, **declared_references(self.variant_info)}

    @property
    def variants(self) -> list[str]:
        return sorted(self.sizes)

    @property
    def total_rows(self) -> int:
        return sum(sum(s.values()) for s in self.sizes.values())


def license_slug(terms: str) -> str:
    """An id for combined terms, as the Hub's ``license_name`` asks (lower case, ``-``-separated).

    >>> license_slug("CC-BY-NC-3.0 AND RACE-research")
    'cc-by-nc-3.0-and-race-research'
    """
    return re.sub(r"[^a-z0-9.]+", "-", terms.lower()).strip("-") or "other"


def hf_license(terms: Terms) -> dict:
    """Front-matter license fields: a Hub id, or ``other`` with an id for the terms and a link to LICENSE.

    The Hub's ``license_name`` is an id (``my-license-1.0``), not an expression:
    the combined terms become a slug; ``LICENSE`` and the card spell them out.

    >>> from schemas.license_terms import combine
    >>> hf_license(combine([("a", "CC-BY-SA-4.0", 1)]))
    {'license': 'cc-by-sa-4.0'}
    >>> hf_license(combine([("a", "CC-BY-NC-3.0", 1), ("b", "RACE-research", 1)]))["license_name"]
    'cc-by-nc-3.0-and-race-research'
    """
    lic = get_license(terms.terms) if " AND " not in terms.terms else None
    if lic is not None and not lic.custom and not terms.conflicts:
        return {"license": lic.hf_id}
    return {"license": "other", "license_name": license_slug(terms.terms), "license_link": "LICENSE"}


def front_matter(ctx: CardContext) -> dict:
    """The card's metadata, in the order the Hub shows it.

    ``language`` takes ISO 639-1 codes where they exist (else ISO 639-3);
    ``language_details`` the BCP-47 tag of every config (``hi-Deva``, ``hi-Latn``),
    so romanized variants stay apart.
    """
    codes = [c for c in (variant_language(v) for v in ctx.variants) if c]
    languages = sorted({hub_language(c) for c in codes})
    details = sorted({t for t in (bcp47(v) for v in ctx.variants) if t})
    meta: dict = {"pretty_name": ctx.pretty_name}
    meta.update(hf_license(ctx.overall))
    meta["language"] = languages or ["und"]
    if details:
        meta["language_details"] = details
    meta["multilinguality"] = ["multilingual" if len(set(codes)) > 1 else "monolingual"]
    meta["size_categories"] = [size_category(ctx.total_rows)]
    sources = source_datasets(ctx)
    if sources:
        meta["source_datasets"] = sources
    meta.update(TASKS[ctx.kind])
    meta["tags"] = tags(ctx)
    if ctx.dataset_info:
        meta["dataset_info"] = ctx.dataset_info
    meta["configs"] = [
        {"config_name": v, "data_files": [{"split": s, "path": p} for s, p in ctx.files[v].items()]}
        for v in ctx.variants
    ]
    return meta


#: The tag of each record kind and published layout (``--schema``).
KIND_TAGS = {"mc": "reading-comprehension", "topic": "topic-classification"}
SCHEMA_TAGS = {"belebele": "belebele", "sib200": "sib-200"}


def tags(ctx: CardContext) -> list[str]:
    """The card's ``tags``: the kind of task, the published layout, romanized variants, lm-eval tasks.

    >>> from schemas.license_terms import combine
    >>> tags(CardContext("x", "x", "topic", {}, {}, [], [], combine([("a", "MIT", 1)]), schema="sib200",
    ...                  lm_eval_groups=["x"]))
    ['topic-classification', 'sib-200', 'lm-evaluation-harness']
    """
    out = [KIND_TAGS[ctx.kind]]
    if ctx.schema in SCHEMA_TAGS:
        out.append(SCHEMA_TAGS[ctx.schema])
    if any(isinstance(i, dict) and i.get("method") == "romanization" for i in ctx.variant_info.values()):
        out.append("romanization")
    if ctx.lm_eval_groups:
        out.append("lm-evaluation-harness")
    return out


def _source_references(ctx: CardContext) -> list:
    """The known :class:`~data_cards.citations.Reference` of every credited source, in the sources' order (by
    the reference the card gives it, else by name, else by the build manifest's reader name)."""
    readers = {s.get("name"): s.get("reader") for s in (ctx.manifest or {}).get("sources") or []
               if isinstance(s, dict)}
    out = []
    for src in ctx.overall.sources:
        ref = by_text(ctx.references.get(src.name, "")) or reference(src.name) \
            or (reference(readers[src.name]) if readers.get(src.name) else None)
        if ref is not None and ref not in out:
            out.append(ref)
    return out


def source_datasets(ctx: CardContext) -> list[str]:
    """``source_datasets``: ``extended|<Hub id>`` of every credited source the Hub holds (SIB-200 is
    ``Davlan/sib200``); sources without a known Hub dataset are not listed."""
    return [f"extended|{r.hub_id}" for r in _source_references(ctx) if r.hub_id]


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


def _description(ctx: CardContext) -> str:
    n, k = ctx.total_rows, len(ctx.variants)
    if ctx.kind == "mc":
        what = (f"{n:,} four-option multiple-choice reading-comprehension questions (a passage, a question, "
                f"answers 1-4 and `correct_answer_num`, as in Belebele)")
    else:
        what = (f"{n:,} sentences labelled with one of {len(ctx.labels)} topics "
                f"({', '.join(map(md_inline, ctx.labels))}), in the SIB-200 layout (`index_id`, `category`, `text`)")
    text = f"{what}, in {k} language variant{'s' if k != 1 else ''}, one configuration per variant."
    if ctx.description:
        text = md_block(ctx.description.strip()) + "\n\n" + text
    return text + (" Exported by mc-dataset-builder; `manifest.json` lists every file with its row count and "
                   "SHA-256.")


def card_description(ctx: CardContext) -> str:
    """The card's description paragraph (also ``croissant.json``'s)."""
    return _description(ctx)


def _languages(ctx: CardContext) -> str:
    rows = ["| config | language | script | ISO 639-3 | ISO 15924 | BCP-47 |",
            "| --- | --- | --- | --- | --- | --- |"]
    for v in ctx.variants:
        lang, script = describe(v)
        lang_code, scr = variant_parts(v) or ("", "")
        rows.append(f"| {md_code(v)} | {md_inline(lang)} | {md_inline(script)} | {md_inline(lang_code)} | "
                    f"{md_inline(scr)} | {md_inline(bcp47(v) or '')} |")
    return "\n".join(rows)


def _structure(ctx: CardContext) -> str:
    splits = []
    for v in ctx.variants:
        for s in ctx.sizes[v]:
            if s not in splits:
                splits.append(s)
    head = "| config | " + " | ".join(map(md_inline, splits)) + " | total |"
    rows = [head, "|" + " --- |" * (len(splits) + 2)]
    totals = dict.fromkeys(splits, 0)
    for v in ctx.variants:
        cells = []
        for s in splits:
            n = ctx.sizes[v].get(s)
            cells.append("" if n is None else f"{n:,}")
            totals[s] += n or 0
        rows.append(f"| {md_code(v)} | " + " | ".join(cells) + f" | {sum(ctx.sizes[v].values()):,} |")
    if len(ctx.variants) > 1:
        rows.append("| **all** | " + " | ".join(f"{totals[s]:,}" for s in splits)
                    + f" | {ctx.total_rows:,} |")
    cols = ", ".join(f"{md_code(name)} ({md_inline(typ)})" for name, typ in ctx.columns)
    return (f"Files: `<config>/<split>.parquet`. Columns: {cols}.\n\nRows per split:\n\n" + "\n".join(rows))


def _members(names: list[str], total: int) -> str:
    if len(names) == total and total > 1:
        return f"all {total} splits"
    if len(names) <= 8:
        return ", ".join(map(md_code, names))
    return ", ".join(map(md_code, names[:6])) + f" and {len(names) - 6} more"


def _licenses(ctx: CardContext) -> str:
    o = ctx.overall
    out = [f"**Terms of the whole release:** {md_inline(o.terms)}. Commercial use: **{_yes(o.commercial_use)}**. "
           f"Share-alike: **{_yes(o.share_alike)}**. Research only: {_yes(o.research_only)}. "
           "The full terms are in `LICENSE`, the credits in `ATTRIBUTION.md`."]
    groups: dict[tuple, list[str]] = {}
    records: dict[tuple, dict[tuple[str, str], int]] = {}
    for st in ctx.splits:
        t = st.terms
        key = (t.terms, t.commercial_use, t.share_alike, tuple((s.name, s.license) for s in t.sources))
        groups.setdefault(key, []).append(f"{st.variant}/{st.split}")
        acc = records.setdefault(key, {})
        for s in t.sources:
            acc[(s.name, s.license)] = acc.get((s.name, s.license), 0) + s.records
    out += ["", "Terms per split:", "", "| splits | terms | commercial use | share-alike | sources (records) |",
            "| --- | --- | --- | --- | --- |"]
    for key, names in groups.items():
        srcs = ", ".join(f"{md_inline(n)} ({md_inline(lic)}, {c:,})" for (n, lic), c in records[key].items())
        out.append(f"| {_members(names, len(ctx.splits))} | {md_inline(key[0])} | {_yes(key[1])} | {_yes(key[2])} "
                   f"| {srcs} |")
    out += ["", "| source | license | records |", "| --- | --- | --- |"]
    for s in o.sources:
        lic = get_license(s.license)
        link = f"[{md_inline(lic.name)}]({lic.url})" if lic.url else md_inline(lic.name)
        out.append(f"| {md_inline(s.name)} | {link} ({md_code(s.license)}) | {s.records:,} |")
    conflicts = o.conflicts
    if conflicts or ctx.override:
        out += ["", "### License override" if ctx.override else "### Unresolved license conflicts", ""]
        for c in conflicts:
            out.append(f"- Conflict: {md_inline(c.reason)}.")
        if ctx.override:
            out += ["", "The recipe releases this combination with a written override:", "",
                    f"- Terms stated by the recipe: {md_inline(ctx.override.terms or '(none stated)')}",
                    f"- Reason: {md_inline(ctx.override.reason)}",
                    "- The override does not lift any restriction: every source's own terms still apply."]
    return "\n".join(out)


def declared_references(variant_info: dict[str, dict] | None) -> dict[str, str]:
    """Source name -> the citation the variants' ``variant.json`` declare for it (``citation`` beside
    ``source_name``; a release's recipe fills both into the variants that declare none). The first
    variant in code order that declares one gives it; white space is folded (a BibTeX entry becomes one
    line of the card).

    >>> declared_references({"hin_Deva": {"source_name": "SIB-200", "citation": "@inproceedings{a,\\n  x}"}})
    {'SIB-200': '@inproceedings{a, x}'}
    """
    out: dict[str, str] = {}
    for _, info in sorted((variant_info or {}).items()):
        if not isinstance(info, dict):
            continue
        name, citation = info.get("source_name"), info.get("citation")
        if isinstance(name, str) and isinstance(citation, str) and citation.strip() and name not in out:
            out[name] = " ".join(citation.split())
    return out


def references(source_names, manifest: dict | None = None, variant_info: dict[str, dict] | None = None
               ) -> dict[str, str]:
    """Source name -> reference: the citation the variants declare (:func:`declared_references`), else the
    toolkit's built-in one (:mod:`.citations`) looked up by name and then by the manifest's reader name.

    >>> references(["MCTest_500"], {"sources": [{"name": "MCTest_500", "reader": "mctest"}]})["MCTest_500"][:10]
    'Richardson'
    >>> references(["SIB-200"], None, {"x_Latn": {"source_name": "SIB-200", "citation": "Ours (2025)."}})
    {'SIB-200': 'Ours (2025).'}
    """
    readers = {s.get("name"): s.get("reader") for s in (manifest or {}).get("sources") or []
               if isinstance(s, dict)}
    declared = declared_references(variant_info)
    out = {}
    for name in source_names:
        ref = declared.get(name) or cite(name) or (cite(readers[name]) if readers.get(name) else None)
        if ref:
            out[name] = ref
    return out


def _references_cited(ctx: CardContext, *, layout: bool = True) -> list[str]:
    """The references of the card, in order: the sources', FLORES-200 beside SIB-200 (its sentences are
    FLORES-200's), and the published dataset whose layout the export has (``--schema belebele``)."""
    names = [s.name for s in ctx.overall.sources]
    refs = [ctx.references[n] for n in names if n in ctx.references]
    # SIB-200's sentences are FLORES-200's: its reference goes with SIB-200's, whoever wrote that one
    if ctx.kind == "topic" and any(cite(n) == cite("sib200") or ctx.references.get(n) == cite("sib200")
                                   for n in names if n in ctx.references):
        refs.append(cite("flores200"))
    if layout and ctx.schema in ("belebele", "sib200"):  # the columns, splits and configs are the published dataset's
        refs.append(cite(ctx.schema))
    return list(dict.fromkeys(refs))


def _fence(text: str) -> str:
    """A code fence longer than any run of backticks in ``text``."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def _citation(ctx: CardContext) -> str:
    refs = _references_cited(ctx)
    text = f"If you use {md_code(ctx.name)}, cite the sources it was built from"
    if ctx.schema in ("belebele", "sib200") and cite(ctx.schema) not in _references_cited(ctx, layout=False):
        text += f" and {md_inline(reference(ctx.schema).title.split(':')[0])}, whose layout it has"
    text += ":\n\n"
    if not refs:
        return text + "- (no reference is known for these sources; see `ATTRIBUTION.md`)"
    # a declared BibTeX entry goes in the BibTeX block; the others are listed, their arXiv ids linked
    prose = [r for r in refs if not r.lstrip().startswith("@")]
    entries = [by_text(r).bibtex() if by_text(r) else r for r in refs if by_text(r) or r.lstrip().startswith("@")]
    out = text + "\n".join(f"- {link_arxiv(md_inline(r))}" for r in prose)
    if entries:
        body = "\n\n".join(entries)
        fence = _fence(body)
        out += ("\n\n" if prose else "") + f"BibTeX:\n\n{fence}bibtex\n{body}\n{fence}"
    return out


def _usage(ctx: CardContext) -> str:
    """How to load a configuration: from the Hub repo with ``--hub-repo``, else from this folder; and the
    lm-eval tasks when the export has them."""
    where = f'"{ctx.hub_repo}"' if ctx.hub_repo else '"<path to this folder>"'
    example = ctx.variants[0] if ctx.variants else "<config>"
    out = [f"Load one configuration with `datasets.load_dataset({where}, \"<config>\")`:", "",
           "```python", "from datasets import load_dataset", "",
           f'ds = load_dataset({where}, "{example}")', "```"]
    if ctx.lm_eval_groups:
        if ctx.hub_repo:
            reads = f"read the data from {md_code(ctx.hub_repo)} on the Hub"
        elif ctx.lm_eval_data_root:
            reads = f"read the Parquet files under {md_code(ctx.lm_eval_data_root)}"
        else:
            reads = "read the Parquet files of this folder, wherever it is copied"
        groups = ", ".join(map(md_code, ctx.lm_eval_groups))
        out += ["", f"The `lm_eval/` folder holds lm-evaluation-harness tasks, one per configuration, in the "
                f"group{'s' if len(ctx.lm_eval_groups) > 1 else ''} {groups}; they {reads}:", "", "```bash",
                "lm_eval --model hf --model_args pretrained=<model> --include_path lm_eval "
                f"--tasks {ctx.lm_eval_groups[0]}", "```"]
    return "\n".join(out)


def _optional(title: str, body: str | None) -> str:
    return f"\n## {title}\n\n{body}\n" if body else ""


def render_card(ctx: CardContext) -> str:
    """The full ``README.md`` text of an export."""
    template = Template(resources.files("data_cards").joinpath("templates/card.md").read_text(encoding="utf-8"))
    return template.substitute(
        front_matter=dump_front_matter(front_matter(ctx)),
        pretty_name=md_inline(ctx.pretty_name),
        description=_description(ctx),
        languages=_languages(ctx),
        structure=_structure(ctx),
        usage=_usage(ctx),
        licenses=_licenses(ctx),
        filters=_optional(FILTERS_HEADING[3:], filters_section(ctx.manifest)),
        agreement=_optional("Annotator agreement", agreement_section(
            ctx.agreement, rows=max((sum(s.values()) for s in ctx.sizes.values()), default=None))),
        romanization=_optional("Romanization", romanization_section(ctx.variant_info)),
        qc=_optional("Quality checks", qc_section(ctx.qc, failing_allowed=ctx.gate_failing_allowed))
        + _optional("Baseline scores", baselines_section(ctx.baselines))
        + _optional("Language model", models_section(ctx.models))
        + _optional("Warnings", warnings_section(ctx.variant_info)),
        intended_use=intended_use_section(ctx),
        citation=_citation(ctx),
    )
