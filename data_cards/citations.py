"""How to cite the corpora the toolkit knows, keyed by source name (lower case).

Plain-text references (author, year, title, venue); a card lists those of the
sources present in an export. Unknown sources are simply not cited.

>>> cite("RACE").startswith("Lai")
True
>>> cite("my-corpus") is None
True
"""
from __future__ import annotations

CITATIONS: dict[str, str] = {
    "belebele": ("Bandarkar et al. (2023). The Belebele Benchmark: a Parallel Reading Comprehension Dataset in "
                 "122 Language Variants. arXiv:2308.16884."),
    "sib200": ("Adelani et al. (2023). SIB-200: A Simple, Inclusive, and Big Evaluation Dataset for Topic "
               "Classification in 200+ Languages and Dialects. arXiv:2309.07445."),
    "flores200": ("NLLB Team (2022). No Language Left Behind: Scaling Human-Centered Machine Translation. "
                  "arXiv:2207.04672."),
    "race": ("Lai, Xie, Liu, Yang and Hovy (2017). RACE: Large-scale ReAding Comprehension Dataset From "
             "Examinations. EMNLP 2017."),
    "reclor": ("Yu, Jiang, Dong and Feng (2020). ReClor: A Reading Comprehension Dataset Requiring Logical "
               "Reasoning. ICLR 2020."),
    "mctest": ("Richardson, Burges and Renshaw (2013). MCTest: A Challenge Dataset for the Open-Domain Machine "
               "Comprehension of Text. EMNLP 2013."),
    "sciq": "Welbl, Liu and Gardner (2017). Crowdsourcing Multiple Choice Science Questions. W-NUT 2017.",
    "multirc": ("Khashabi, Chaturvedi, Roth, Upadhyay and Roth (2018). Looking Beyond the Surface: A Challenge "
                "Set for Reading Comprehension over Multiple Sentences. NAACL 2018."),
    "mcscript": ("Ostermann, Modi, Roth, Thater and Pinkal (2018). MCScript: A Novel Dataset for Assessing "
                 "Machine Comprehension Using Script Knowledge. LREC 2018."),
    "mcscript2": ("Ostermann, Roth and Pinkal (2019). MCScript2.0: A Machine Comprehension Corpus Focused on "
                  "Script Events and Participants. *SEM 2019."),
}

_ALIASES = {"sib-200": "sib200", "flores-200": "flores200", "flores": "flores200", "mcscript2.0": "mcscript2",
            "mcscript20": "mcscript2", "mc500": "mctest", "mc160": "mctest"}


def cite(source: str) -> str | None:
    """The reference of a source name, or None when it is not known."""
    key = source.strip().lower().replace("_", "-")
    return CITATIONS.get(_ALIASES.get(key, key))
