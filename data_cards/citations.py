"""How to cite the corpora the toolkit knows, keyed by source name (lower case).

One :class:`Reference` per corpus gives every form a card needs: the plain
reference (author, year, title, venue) that ``ATTRIBUTION.md`` and the card's
prose list, the BibTeX entry of the card's ``bibtex`` block, the arXiv id (a
link the Hub reads to show the paper) and the dataset's id on the Hugging Face
Hub (the card's ``source_datasets``). All are rendered from the same fields, so
they cannot disagree. Unknown sources are simply not cited.

>>> cite("RACE").startswith("Lai")
True
>>> cite("my-corpus") is None
True
>>> print(reference("belebele").bibtex())
@misc{bandarkar2023belebele,
  title = {{The Belebele Benchmark: a Parallel Reading Comprehension Dataset in 122 Language Variants}},
  author = {Bandarkar and others},
  year = {2023},
  eprint = {2308.16884},
  archivePrefix = {arXiv},
  url = {https://arxiv.org/abs/2308.16884}
}
"""
from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Reference:
    """One publication as the prose gives it (``authors``: ``"Lai, Xie and Hovy"`` or ``"Bandarkar et al."``),
    with its venue (``"EMNLP 2017"``) or arXiv id, and the dataset's Hub id where it has one."""

    name: str
    authors: str
    year: int
    title: str
    venue: str | None = None
    arxiv: str | None = None
    hub_id: str | None = None

    @property
    def text(self) -> str:
        """The plain reference: ``Authors (year). Title. Venue.`` (the venue is ``arXiv:ID`` for a preprint)."""
        return f"{self.authors} ({self.year}). {self.title}. {self.venue or f'arXiv:{self.arxiv}'}."

    @property
    def arxiv_url(self) -> str | None:
        return f"https://arxiv.org/abs/{self.arxiv}" if self.arxiv else None

    def bibtex(self) -> str:
        """The BibTeX entry: ``@inproceedings`` with the venue, else ``@misc`` with the arXiv eprint. The authors
        are those the plain reference names (``et al.`` becomes ``and others``), nothing invented."""
        names = re.split(r",\s*|\s+and\s+", self.authors.removesuffix(" et al."))
        authors = " and ".join(f"{{{n}}}" if " " in n else n for n in names if n)
        if self.authors.endswith(" et al."):
            authors += " and others"
        first = re.sub(r"[^a-z]", "", names[0].split()[0].lower()) if names and names[0] else "anon"
        fields = [("title", f"{{{self.title}}}"), ("author", authors), ("year", str(self.year))]
        if self.venue:
            kind = "inproceedings"
            fields.append(("booktitle", self.venue))
        else:
            kind = "misc"
        if self.arxiv:
            fields += [("eprint", self.arxiv), ("archivePrefix", "arXiv"), ("url", self.arxiv_url)]
        body = ",\n".join(f"  {k} = {{{v}}}" for k, v in fields)
        return f"@{kind}{{{first}{self.year}{self.name},\n{body}\n}}"


_REFERENCES = (
    Reference("belebele", "Bandarkar et al.", 2023, "The Belebele Benchmark: a Parallel Reading Comprehension "
              "Dataset in 122 Language Variants", arxiv="2308.16884", hub_id="facebook/belebele"),
    Reference("sib200", "Adelani et al.", 2023, "SIB-200: A Simple, Inclusive, and Big Evaluation Dataset for Topic "
              "Classification in 200+ Languages and Dialects", arxiv="2309.07445", hub_id="Davlan/sib200"),
    Reference("flores200", "NLLB Team", 2022, "No Language Left Behind: Scaling Human-Centered Machine Translation",
              arxiv="2207.04672", hub_id="facebook/flores"),
    Reference("race", "Lai, Xie, Liu, Yang and Hovy", 2017, "RACE: Large-scale ReAding Comprehension Dataset From "
              "Examinations", "EMNLP 2017", hub_id="ehovy/race"),
    Reference("reclor", "Yu, Jiang, Dong and Feng", 2020, "ReClor: A Reading Comprehension Dataset Requiring Logical "
              "Reasoning", "ICLR 2020"),
    Reference("mctest", "Richardson, Burges and Renshaw", 2013, "MCTest: A Challenge Dataset for the Open-Domain "
              "Machine Comprehension of Text", "EMNLP 2013"),
    Reference("sciq", "Welbl, Liu and Gardner", 2017, "Crowdsourcing Multiple Choice Science Questions", "W-NUT 2017",
              hub_id="allenai/sciq"),
    Reference("multirc", "Khashabi, Chaturvedi, Roth, Upadhyay and Roth", 2018, "Looking Beyond the Surface: A "
              "Challenge Set for Reading Comprehension over Multiple Sentences", "NAACL 2018"),
    Reference("mcscript", "Ostermann, Modi, Roth, Thater and Pinkal", 2018, "MCScript: A Novel Dataset for Assessing "
              "Machine Comprehension Using Script Knowledge", "LREC 2018"),
    Reference("mcscript2", "Ostermann, Roth and Pinkal", 2019, "MCScript2.0: A Machine Comprehension Corpus Focused "
              "on Script Events and Participants", "*SEM 2019"),
)

REFERENCES: dict[str, Reference] = {r.name: r for r in _REFERENCES}
#: The plain references by key (what :func:`cite` returns).
CITATIONS: dict[str, str] = {r.name: r.text for r in _REFERENCES}

_ALIASES = {"sib-200": "sib200", "flores-200": "flores200", "flores": "flores200", "mcscript2.0": "mcscript2",
            "mcscript20": "mcscript2", "mc500": "mctest", "mc160": "mctest"}


def reference(source: str) -> Reference | None:
    """The :class:`Reference` of a source name, or None when it is not known."""
    key = source.strip().lower().replace("_", "-")
    return REFERENCES.get(_ALIASES.get(key, key))


def cite(source: str) -> str | None:
    """The plain reference of a source name, or None when it is not known."""
    ref = reference(source)
    return None if ref is None else ref.text


def by_text(text: str) -> Reference | None:
    """The known :class:`Reference` whose plain text is ``text`` (a card's reference, looked up again).

    >>> by_text(cite("SIB-200")).hub_id
    'Davlan/sib200'
    """
    return next((r for r in _REFERENCES if r.text == text), None)


_ARXIV = re.compile(r"\barXiv:(\d{4}\.\d{4,5})(v\d+)?")


def link_arxiv(text: str) -> str:
    """Markdown ``text`` with every ``arXiv:ID`` made a link to its abstract page (the Hub shows the paper).

    >>> link_arxiv("Adelani et al. (2023). SIB-200. arXiv:2309.07445.")
    'Adelani et al. (2023). SIB-200. [arXiv:2309.07445](https://arxiv.org/abs/2309.07445).'
    """
    return _ARXIV.sub(lambda m: f"[arXiv:{m.group(1)}{m.group(2) or ''}](https://arxiv.org/abs/{m.group(1)})", text)
