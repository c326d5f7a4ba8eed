"""The release report at the size of a full SIB-200 release (228 variants) and beyond (1,500), without a release.

:func:`scaled_summary` builds the ``release.json`` mapping such a release writes:
205 variants as found in ~35 scripts (Latin the largest group, as in SIB-200),
``romanized`` of them romanized into ``xxx_Latn`` variants whose ``derived``
names their source, three baselines (``majority``, which cannot differ from
chance, ``char_tfidf`` and ``mlp``), and failing checks (leakage, duplicates,
script consistency, a license) whose records come from check results in the
shape ``qc_report.json`` holds, through :func:`builder.release.summary.failing_items`.
Nothing runs but the renderer, so the test takes a second. The browser side
(page height, filters) is ``test_report_scale_browser.py``, which imports this.
"""
from __future__ import annotations

import itertools
import random
import re
import string
from html.parser import HTMLParser
from pathlib import Path

import pytest

from builder.release.report import render_report
from builder.release.summary import failing_items

#: Scripts of the variants as found and how many of 205 use each (SIB-200's mix, roughly).
SCRIPTS = {"Latn": 129, "Arab": 14, "Cyrl": 12, "Deva": 10, "Ethi": 3, "Beng": 3, "Hans": 1, "Hant": 1,
           "Grek": 1, "Armn": 1, "Geor": 1, "Hebr": 2, "Jpan": 1, "Hang": 1, "Thai": 1, "Laoo": 1, "Khmr": 1,
           "Mymr": 2, "Tibt": 2, "Sinh": 1, "Taml": 1, "Telu": 1, "Knda": 1, "Mlym": 1, "Gujr": 1, "Guru": 1,
           "Orya": 1, "Tfng": 3, "Nkoo": 1, "Olck": 1, "Shaw": 1, "Cher": 1, "Vaii": 1, "Mtei": 1, "Syrc": 1}
assert sum(SCRIPTS.values()) == 205
TEXTS = ["The new bridge over the river opened to traffic on Monday after four years of building work.",
         "Elle a gagné la médaille d'or au championnat du monde de natation à Budapest.",
         "Die Regierung kündigte neue Regeln für den Import von Lebensmitteln an.",
         "<b>Tags</b> & \"quotes\" stay text: 5 < 6 > 4"]


def _codes():
    for letters in itertools.product(string.ascii_lowercase, repeat=3):
        yield "".join(letters)


def _score(rng: random.Random, name: str, acc: float, n: int = 204) -> dict:
    acc = max(0.0, min(1.0, acc))
    half = 1.96 * (acc * (1 - acc) / n) ** 0.5
    return {"baseline": name, "accuracy": round(acc, 4), "ci_low": round(max(0.0, acc - half), 4),
            "ci_high": round(min(1.0, acc + half), 4), "n": n}


def _variant(code: str, script: str, origin: str, verdict: str, failing: list[str], scores: list[dict],
             derived: dict | None = None) -> dict:
    lic = "CC-BY-SA-4.0"
    return {"variant": code, "language": code.split("_")[0], "script": script, "origin": origin,
            "derived": derived, "rows": {"train": 701, "dev": 99, "test": 204},
            "gate": {"verdict": verdict, "failing": failing},
            "licenses": [{"split": s, "license": lic, "commercial": True} for s in ("train", "dev", "test")],
            "baselines": scores}


def _check(rng: random.Random, code: str, check: str) -> dict:
    """A failing check result as ``qc_report.json`` holds it (``extra`` flattened in), with its records."""
    if check == "leakage:texts":  # as qc/leakage.py writes it: near pairs with ids, exact matches as texts
        n = rng.randint(1, 3)
        near = [{"ids": [f"train:{rng.randint(0, 700)}", f"test:{rng.randint(0, 203)}"], "jaccard": 0.91,
                 "texts": [t, t.rstrip(".") + "!"]} for t in rng.sample(TEXTS, n)]
        return {"variant": code, "check": check, "detail": f"texts in two splits: train/test: 1; {n} near pair(s)",
                "pairs": {"train/test": 1}, "examples": [TEXTS[0][:80]], "exact": 1, "near": n,
                "near_pairs": near}
    if check == "duplicates:texts":  # ids in exact_examples, and the ``items`` shape with texts
        items = [{"ids": [f"train:{i}", f"train:{i + 350}"], "texts": [rng.choice(TEXTS)]} for i in range(4)]
        return {"variant": code, "check": check, "detail": "4 exact duplicate(s) (max 0)", "items": items,
                "exact_examples": [it["ids"] for it in items[:3]], "near_pairs": 0}
    items = [{"ids": [f"test:{rng.randint(0, 203)}"], "texts": [rng.choice(TEXTS)]} for _ in range(2)]
    return {"variant": code, "check": check, "detail": "2 of 1004 rows under 90% of the script (floor 1%)",
            "items": items}


def scaled_summary(natives: int = 205, romanized: int = 23, seed: int = 0) -> dict:
    """A ``release.json`` mapping of ``natives`` variants as found plus ``romanized`` romanized ones."""
    rng = random.Random(seed)
    codes = _codes()
    scripts = [s for s, n in SCRIPTS.items() for _ in range(n)]
    level = {s: rng.uniform(0.45, 0.85) for s in SCRIPTS}
    variants, failing = [], []
    native = []
    for i in range(natives):
        script = scripts[i % len(scripts)] if i < len(scripts) else rng.choice(scripts)
        code = "eng_Latn" if i == 0 else f"{next(codes)}_{script}"
        native.append((code, script))
    sources = [(c, s) for c, s in native if s != "Latn"][:romanized]
    planned: dict[str, list[str]] = {}
    for k, (code, script) in enumerate(native[1:] + [(f"{c.split('_')[0]}_Latn", "Latn") for c, _ in sources]):
        check = ("duplicates:texts", "leakage:texts", "script_consistency")[k % 3] if k % 19 == 7 else None
        if check:
            planned.setdefault(code, []).append(check)
    accuracy = {}
    for code, script in native:
        base = level[script] + rng.gauss(0, 0.05)
        accuracy[code] = base
        checks = planned.get(code, [])
        variants.append(_variant(code, script, "dataset folder sib200", "fail" if checks else "pass", checks,
                                 [_score(rng, "majority", 0.25), _score(rng, "char_tfidf", base),
                                  _score(rng, "mlp", base + 0.03)]))
    for code, script in sources:
        new = f"{code.split('_')[0]}_Latn"
        base = accuracy[code] - abs(rng.gauss(0.04, 0.03))
        checks = planned.get(new, [])
        variants.append(_variant(new, "Latn", f"romanized from {code}", "fail" if checks else "pass", checks,
                                 [_score(rng, "majority", 0.25), _score(rng, "char_tfidf", base),
                                  _score(rng, "mlp", base + 0.03)],
                                 derived={"method": "romanization", "from": code}))
    for v in variants:
        for check in v["gate"]["failing"]:
            c = _check(rng, v["variant"], check)
            failing.append({"variant": v["variant"], "check": check, "detail": c["detail"],
                            "items": failing_items(c)})
    stages = ([{"name": n, "status": "ran", "seconds": round(rng.uniform(0.5, 30), 2),
                "manifest": f"stages/{n}/stage.json"} for n in ("dataset", "qc", "licenses", "baselines")]
              + [{"name": f"romanize-{v['variant']}", "status": "ran", "seconds": 1.5,
                  "manifest": f"stages/romanize-{v['variant']}/stage.json"} for v in variants if v["derived"]]
              + [{"name": "export", "status": "ran", "seconds": 40.0, "manifest": "stages/export/stage.json"}])
    drops = [{"source": f"romanize {v['variant']}", "reason": "native_letters_left", "count": rng.randint(0, 9)}
             for v in variants if v["derived"]] + [{"source": "annotation eng_14", "reason": "label_removed",
                                                   "count": 473}]
    labels = ["science/technology", "travel", "politics", "sports", "health", "entertainment", "geography"]
    return {
        "version": 1,
        "dataset": {"name": "sib200", "pretty_name": "SIB-200", "citation": "Adelani et al. (2024), SIB-200.",
                    "pivot": "eng_Latn", "kind": "topic"},
        "tool": {"name": "mc-dataset-builder", "version": "0.1.0"},
        "released": True, "stages": stages,
        "gate": {"verdict": "fail" if failing else "pass", "allowed_failing": bool(failing), "failing": failing,
                 "report": "stages/qc/output/qc_report.md"},
        "variants": variants, "drops": drops,
        "agreement": {"labels": labels, "annotators": 3, "items": 1004,
                      "measures": {"fleiss_kappa": 0.731, "krippendorff_alpha": 0.731},
                      "matrix": [[300 if i == j else 5 for j in range(7)] for i in range(7)]},
        "links": [{"title": "Release summary (JSON)", "path": "release.json"},
                  {"title": "QC report (JSON)", "path": "stages/qc/output/qc_report.json"}],
    }


def write_release(root: Path, summary: dict) -> Path:
    """The summary's report written into ``root`` (a release folder holding the files it links to)."""
    for path in [k["path"] for k in summary["links"]] + [s["manifest"] for s in summary["stages"]] + [
            summary["gate"]["report"]]:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text("", encoding="utf-8")
    report = root / "report.html"
    report.write_text(render_report(summary, base=root), encoding="utf-8")
    return report


class Tables(HTMLParser):
    """Every table's body rows: (class of the row, texts of its cells, the <code> texts in it)."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.tables: dict[str, list[tuple[str, list[str], list[str]]]] = {}
        self.svgs: list[dict] = []
        self._caption = self._table = self._row = self._cell = self._code = None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "svg":
            self.svgs.append(attrs)
        elif tag == "caption":
            self._caption = []
        elif tag == "tr" and self._table is not None and self._in_body:
            self._row = (attrs.get("class") or "", [], [])
        elif tag in ("td", "th") and self._row is not None:
            self._cell = []
        elif tag == "code" and self._row is not None:
            self._code = []
        elif tag == "tbody":
            self._in_body = True
        elif tag == "thead":
            self._in_body = False

    _in_body = False

    def handle_endtag(self, tag):
        if tag == "caption":
            self._table = "".join(self._caption)
            self.tables[self._table] = []
            self._caption = None
        elif tag in ("td", "th") and self._cell is not None:
            self._row[1].append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif tag == "code" and self._code is not None:
            self._row[2].append("".join(self._code))
            self._code = None
        elif tag == "tr" and self._row is not None:
            self.tables[self._table].append(self._row)
            self._row = None
        elif tag == "tbody":
            self._in_body = False
        elif tag == "table":
            self._table = None

    def handle_data(self, data):
        for sink in (self._caption, self._cell, self._code):
            if sink is not None:
                sink.append(data)


def test_the_228_variant_page_is_small_and_has_one_chart_per_informative_baseline(tmp_path):
    summary = scaled_summary()
    assert len(summary["variants"]) == 228
    page = write_release(tmp_path, summary).read_text(encoding="utf-8")
    size = len(page.encode("utf-8"))
    assert size < 200_000, f"{size:,} bytes at 228 variants (278 KB before the compact summaries)"
    parsed = Tables(page)
    # the drop ledger and char_tfidf and mlp by script; majority (25% everywhere) is named, not charted
    assert [s["aria-label"].split(":")[0] for s in parsed.svgs] == [
        "Accuracy of char_tfidf by script", "Accuracy of mlp by script",
        "Dropped records by source and reason; the drop ledger table has the same numbers"]
    assert "Not charted: <b>majority</b> (median 25.0%, range 25.0\u201325.0% over 228 variants)" in page
    # one row per script group, not per variant: 35 scripts and the romanized Latin group
    heights = [float(s["height"]) for s in parsed.svgs[:2]]
    assert heights[0] == heights[1] < 700
    assert len(re.findall(r"<circle class=\"dot\"", page)) == 2 * 36


def test_the_page_stays_small_at_1500_variants(tmp_path):
    small = write_release(tmp_path / "a", scaled_summary()).read_text(encoding="utf-8")
    big = write_release(tmp_path / "b", scaled_summary(natives=1400, romanized=100)).read_text(encoding="utf-8")
    assert len(big.encode("utf-8")) < 1_100_000
    # the charts do not grow with the variants: the same scripts, the same height
    assert [s["height"] for s in Tables(big).svgs[:2]] == [s["height"] for s in Tables(small).svgs[:2]]


def test_every_failing_row_names_the_ids_and_texts_it_is_about(tmp_path):
    summary = scaled_summary()
    parsed = Tables(write_release(tmp_path, summary).read_text(encoding="utf-8"))
    rows = parsed.tables["Failing checks"]
    assert len(rows) == len(summary["gate"]["failing"]) >= 10
    for (cls, cells, codes), f in zip(rows, summary["gate"]["failing"]):
        assert "fail" in cls.split() and cells[:2] == [f["variant"], f["check"]]
        shown = f["items"][:3]
        assert codes and codes == [i for item in shown for i in item["ids"]], cells
        assert all(t[:40] in cells[3] for item in shown for t in item["texts"][:2]), cells
        if f["check"] == "leakage:texts":  # near pairs first, with their Jaccard; the exact text has no ids
            assert "(Jaccard 0.91)" in cells[3] and f["items"][-1] == {"ids": [], "texts": [TEXTS[0][:80]]}
    # the hostile-looking text stays text
    assert any("<b>Tags</b> & \"quotes\"" in cells[3] for _, cells, _ in rows)


def test_derived_variants_sit_under_their_source_with_the_difference(tmp_path):
    summary = scaled_summary()
    parsed = Tables(write_release(tmp_path, summary).read_text(encoding="utf-8"))
    rows = parsed.tables["Variants"]
    names = [cells[0] for _, cells, _ in rows]
    assert sorted(names) == sorted(v["variant"] for v in summary["variants"])
    by_code = {v["variant"]: v for v in summary["variants"]}
    derived = [v for v in summary["variants"] if v["derived"]]
    assert len(derived) == 23
    for v in derived:
        source = v["derived"]["from"]
        at = names.index(v["variant"])
        assert names[at - 1] == source and "derived" in rows[at][0].split()
        mine, theirs = v["baselines"][2]["accuracy"], by_code[source]["baselines"][2]["accuracy"]
        d = round(100 * (mine - theirs), 1)
        sign = "+" if d > 0 else "\u2212" if d < 0 else "\u00b1"
        assert f"{sign}{abs(d):.1f} pp vs {source}" in rows[at][1][-1]
    table = parsed.tables["Derived variants"]
    assert [cells[:3] for _, cells, _ in table] == [[v["variant"], "romanized", v["derived"]["from"]]
                                                    for v in derived]


def test_failing_items_read_what_leakage_and_duplicates_write():
    """The shapes qc/leakage.py and qc/duplicates.py put in ``extra``, through the release summary's gate."""
    from builder.release.summary import _gate

    leakage = {"variant": "hin_Latn", "check": "leakage:texts", "passed": False, "detail": "texts in two splits",
               "pairs": {"train/test": 1}, "examples": ["a shared text"], "exact": 1, "near": 1,
               "near_pairs": [{"ids": ["train:3", "test:9"], "jaccard": 0.93, "texts": ["a cat sat", "a cat sat!"]}]}
    duplicates = {"variant": "bod_Tibt", "check": "duplicates:texts", "passed": False, "detail": "2 exact",
                  "exact": 2, "near_pairs": 1, "exact_examples": [["train:1", "train:5"]],
                  "near_examples": [["train:2", "train:8"]], "examples": [["train:1", "train:5"], ["train:2", "train:8"]],
                  "near_named": [{"ids": ["train:2", "train:8"], "jaccard": 0.9, "texts": ["x y", "x y z"]}]}
    qc = {"passed": False, "checks": [leakage, duplicates],
          "failed": [{"variant": c["variant"], "check": c["check"], "reason": "r"} for c in (leakage, duplicates)]}
    gate = _gate(qc, False)
    assert [f["items"] for f in gate["failing"]] == [
        [{"ids": ["train:3", "test:9"], "texts": ["a cat sat", "a cat sat!"], "jaccard": 0.93},
         {"ids": [], "texts": ["a shared text"]}],
        [{"ids": ["train:1", "train:5"], "texts": []},
         {"ids": ["train:2", "train:8"], "texts": ["x y", "x y z"], "jaccard": 0.9}]]
    # a text of 1,000 characters is cut to 160 in release.json (and to 90 on the page)
    long = {"variant": "x", "check": "c", "items": [{"ids": ["a"], "texts": ["w " * 500]}]}
    assert len(failing_items(long)[0]["texts"][0]) == 160


@pytest.mark.parametrize("check, items", [
    # one id and one text under their singular keys; the ids that are no id dropped; a near pair's Jaccard to 4
    ({"items": [{"id": 7, "text": "A  cat."}]}, [{"ids": ["7"], "texts": ["A cat."]}]),
    ({"items": [{"ids": [1, None, {"a": 1}, [2], "x"], "texts": ["t", 3]}]}, [{"ids": ["1", "x"], "texts": ["t"]}]),
    ({"near_pairs": [{"ids": ["a", "b"], "texts": ["t"], "jaccard": 0.912345}]},
     [{"ids": ["a", "b"], "texts": ["t"], "jaccard": 0.9123}]),
    ({"near_pairs": [{"ids": ["a"], "jaccard": True}]}, [{"ids": ["a"], "texts": []}]),  # a flag is no Jaccard
    # a value that names nothing is passed over, and the values after it are still read
    ({"items": [{"ids": []}, 5, {"ids": ["a"]}]}, [{"ids": ["a"], "texts": []}]),
    # a group named twice is one, with the texts of the second; the groups after it are still read
    ({"items": [{"ids": ["a"]}, {"ids": ["a"], "texts": ["t"]}, {"ids": ["b"]}]},
     [{"ids": ["a"], "texts": ["t"]}, {"ids": ["b"], "texts": []}]),
    # a bare text already named with its ids is not named again; another bare text is
    ({"items": [{"ids": ["a"], "texts": ["t"]}], "examples": ["t", "u"]},
     [{"ids": ["a"], "texts": ["t"]}, {"ids": [], "texts": ["u"]}]),
    # a group with ids is kept though its text was named before: only bare texts are folded
    ({"items": [{"ids": ["a"], "texts": ["t"]}, {"ids": ["b"], "texts": ["t"]}]},
     [{"ids": ["a"], "texts": ["t"]}, {"ids": ["b"], "texts": ["t"]}]),
])
def test_failing_items_in_every_shape_a_check_names_its_records(check, items):
    assert failing_items(check) == items
