"""Setup steps and checks of the ``doc_`` cases: hostile text in the card, ATTRIBUTION.md, LICENSE, report.html.

Each setup copies a small real sample from ``tests/data`` into the case's work
folder and puts the hostile strings of :data:`HOSTILE` into the fields a
stranger controls. Each check reads the outputs back with the target format's
own parser: Markdown with markdown-it (CommonMark, and with GFM tables), then
the HTML markdown-it renders with :mod:`html.parser`; ``report.html`` with
:mod:`html.parser`. The hostile text must arrive as text: no raw-HTML token, no
element or ``on*`` attribute it brought, no heading or list it started, and the
string itself readable, literally, in the rendered text.
"""
from __future__ import annotations

import json
import shutil
from functools import lru_cache
from html.parser import HTMLParser
from pathlib import Path

import yaml

DATA = Path(__file__).resolve().parents[1] / "data"

SCRIPT = "<script>alert(1)</script>"
IMG = "<img src=x onerror=alert(1)>"
SVG = "<svg onload=alert(1)>"
LINK = "[click](javascript:alert(1))"
HEADING = "# Injected heading"
#: The single-line strings that must be found, as written, in the rendered text.
HOSTILE = (SCRIPT, IMG, SVG, LINK)



@lru_cache(maxsize=None)
def _parsers() -> dict:
    """The two CommonMark readers, made on first use (markdown-it costs 0.2 CPU s of every collection)."""
    from markdown_it import MarkdownIt

    return {"commonmark": MarkdownIt("commonmark"), "gfm tables": MarkdownIt("commonmark").enable("table")}


# -- the parsers -------------------------------------------------------------------------------------------


class _Html(HTMLParser):
    """Every start tag with its attributes, and the text (entities resolved)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, attrs))

    def handle_startendtag(self, tag, attrs):
        self.tags.append((tag, attrs))

    def handle_data(self, data):
        self.text.append(data)


def parse_html(text: str) -> _Html:
    parser = _Html()
    parser.feed(text)
    parser.close()
    return parser


def _inline_text(token) -> str:
    return "".join(c.content for c in token.children or [] if c.type in ("text", "code_inline"))


def check_markdown(path: Path, must_show=HOSTILE, own_headings: int | None = None) -> str:
    """Assert ``path`` is Markdown in which the hostile strings are text; return the rendered plain text.

    No ``html_block``/``html_inline`` token; no heading whose text starts as the injected one (the
    tool's own headings may hold a data value, escaped); no link to ``javascript:``; the rendered HTML
    holds no ``script``/``img``/``svg`` element and no ``on*`` attribute; every string of
    ``must_show`` is in the rendered text as written.
    """
    text = path.read_text(encoding="utf-8")
    if text.startswith("---\n"):
        body_start = text.index("\n---\n", 3) + len("\n---\n")
        meta = yaml.safe_load(text[4:body_start - len("\n---\n")])
        assert isinstance(meta, dict), f"{path}: the front matter is not a mapping"
        text = text[body_start:]
    rendered = ""
    for name, md in _parsers().items():
        tokens = md.parse(text)
        flat = [t for tok in tokens for t in [tok, *(tok.children or [])]]
        raw = [t for t in flat if t.type in ("html_block", "html_inline")]
        assert not raw, f"{path} ({name}): raw HTML reached the Markdown: {[t.content for t in raw][:3]}"
        for i, tok in enumerate(tokens):
            if tok.type == "heading_open":
                title = _inline_text(tokens[i + 1])
                assert not title.startswith("Injected heading"), f"{path} ({name}): a data line became a heading"
        links = [t.attrGet("href") for t in flat if t.type == "link_open"]
        assert not [h for h in links if "javascript" in str(h).lower()], f"{path} ({name}): a link from data: {links}"
        if own_headings is not None:
            assert sum(t.type == "heading_open" for t in tokens) == own_headings, f"{path} ({name}): headings"
        html = md.render(text)
        parsed = parse_html(html)
        bad = [(tag, attrs) for tag, attrs in parsed.tags
               if tag in ("script", "img", "svg", "iframe") or any(k.startswith("on") for k, _ in attrs)]
        assert not bad, f"{path} ({name}): an element or attribute from data: {bad[:3]}"
        rendered = " ".join("".join(parsed.text).split())
        for needle in must_show:
            assert needle in rendered, f"{path} ({name}): {needle!r} is not shown as text"
    return rendered


def check_plain_line(path: Path, start: str, needles) -> None:
    """A plain-text file (LICENSE): the line starting ``start`` holds every needle (a value stays on its
    line, its line breaks shown as ``\\x0a``), and no line starts ``# Injected``."""
    lines = path.read_text(encoding="utf-8").split("\n")
    line = next((ln for ln in lines if ln.startswith(start)), None)
    assert line is not None, f"{path}: no line starts {start!r}"
    for needle in needles:
        assert needle in line, f"{path}: {needle!r} not on the line {line!r}"
    assert not [ln for ln in lines if ln.lstrip().startswith("# Injected")], f"{path}: a forged line"


# -- the card, ATTRIBUTION.md and LICENSE from variant.json --------------------------------------------------


def _copy_sib(work: Path) -> Path:
    folder = work / "sib"
    shutil.copytree(DATA / "export" / "sib_small", folder)
    return folder


def _edit_json(path: Path, **values) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    data.update(values)
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2), encoding="utf-8")


def variant_json_setup(work, subs):
    """``variant.json`` fields (source name, citation, the romanizer's tool, version and scheme) hostile."""
    folder = _copy_sib(Path(work))
    for variant in ("hin_Deva", "hin_Latn"):
        _edit_json(folder / variant / "variant.json", source_name=f"SIB {SCRIPT}",
                   citation=f"Cite {IMG}\n{HEADING}\n{LINK}")
    _edit_json(folder / "hin_Latn" / "variant.json", tool=SVG, version=LINK, scheme=f"iso\n{HEADING}")


def variant_json_check(result, work, subs):
    out = Path(work) / "out"
    readme = check_markdown(out / "README.md")
    assert f"SIB {SCRIPT}" in readme and f"Cite {IMG} {HEADING} {LINK}" in readme
    attribution = check_markdown(out / "ATTRIBUTION.md", must_show=(SCRIPT, IMG, LINK))
    assert f"Reference: Cite {IMG} {HEADING} {LINK}" in attribution
    # LICENSE is plain text (the Hub and GitHub show a LICENSE file as text, never as Markup): the name
    # is there as written, on its own line
    check_plain_line(out / "LICENSE", "  Applies to: ", [f"SIB {SCRIPT}"])


# -- the card's title, description and LICENSE from the manifest beside the data --------------------------


PRETTY = f"{SCRIPT}\n---\n{HEADING}"


def manifest_setup(work, subs):
    """``manifest.json`` beside the data: a pretty name that would close the front matter and start a
    heading, a description with raw HTML, a ``javascript:`` link, a list, a quote and a fence."""
    folder = _copy_sib(Path(work))
    description = "\n".join([IMG, "", HEADING, "", LINK, SVG, "* not a list", "1. not a list either",
                             "> not a quote", "```", "not code", "```", "---", SCRIPT])
    (folder / "manifest.json").write_text(json.dumps({"name": "hostile", "pretty_name": PRETTY,
                                                      "description": description}), encoding="utf-8")


def manifest_check(result, work, subs):
    out = Path(work) / "out"
    card = (out / "README.md").read_text(encoding="utf-8")
    meta = yaml.safe_load(card.split("\n---\n", 1)[0][4:])
    assert meta["pretty_name"] == PRETTY, meta["pretty_name"]  # YAML quotes it: it comes back as written
    plain = check_markdown(out / "README.md")
    assert "* not a list" in plain and "1. not a list either" in plain and "> not a quote" in plain
    body = card.split("\n---\n", 1)[1]
    tokens = _parsers()["commonmark"].parse(body)
    first = next(i for i, t in enumerate(tokens) if t.type == "heading_open")
    assert _inline_text(tokens[first + 1]) == " ".join(PRETTY.split()), "the title is not the pretty name, on one line"
    title = body.index("\n# ") + 1
    description = body[body.index("\n", title) + 1:body.index("\n## Languages")]
    md = _parsers()["gfm tables"]
    kinds = {t.type for t in md.parse(description)}
    assert kinds <= {"paragraph_open", "inline", "paragraph_close"}, kinds
    check_plain_line(out / "LICENSE", "License terms of ", [SCRIPT, "\\x0a---\\x0a# Injected heading"])


# -- the card's report sections from the reports beside the data ------------------------------------------


def reports_setup(work, subs):
    """``qc_report.json`` and ``agreement.json`` beside the data: check names, variants, reasons, a label
    and the annotator count hostile (the card's Quality checks and Annotator agreement sections)."""
    folder = _copy_sib(Path(work))
    qc = {"passed": False, "checks": [
        {"variant": "hin_Deva", "check": IMG, "passed": False, "gate": True, "reason": f"bad\n{HEADING} {LINK}"},
        {"variant": f"x`{SVG}", "check": "leakage", "passed": False, "gate": True, "detail": SCRIPT}]}
    (folder / "qc_report.json").write_text(json.dumps(qc), encoding="utf-8")
    agreement = json.loads((folder / "agreement.json").read_text(encoding="utf-8"))
    agreement["n_annotators"] = SCRIPT
    (folder / "agreement.json").write_text(json.dumps(agreement), encoding="utf-8")


def reports_check(result, work, subs):
    out = Path(work) / "out"
    plain = check_markdown(out / "README.md", must_show=(SCRIPT, IMG, SVG, LINK))
    assert f"x`{SVG}" in plain and f"bad {HEADING} {LINK}" in plain


# -- qc_report.md from a folder name -----------------------------------------------------------------------


def qc_folder_setup(work, subs):
    """A dataset whose folder name holds a backtick, ``|`` and raw HTML (qc_report.md names the input)."""
    shutil.copytree(DATA / "export" / "sib_small", Path(work) / "in`put|<img src=x onerror=alert(1)>")


def qc_folder_check(result, work, subs):
    out = Path(work) / "out"
    plain = check_markdown(out / "qc_report.md", must_show=(IMG,))
    assert "Input in`put|<img src=x onerror=alert(1)>" in plain, plain[:300]


# -- report.html of a release ------------------------------------------------------------------------------


def release_setup(work, subs):
    """A one-variant release whose recipe's pretty name, source name and citation are hostile."""
    work = Path(work)
    shutil.copytree(DATA / "sib200" / "annotated" / "hin_Deva", work / "data" / "hin_Deva")
    recipe = {"version": 1, "name": "hostile-release", "pretty_name": f"{SCRIPT} {IMG}", "pivot": "hin_Deva",
              "license": "CC-BY-4.0", "source_name": f"SIB {SVG}",
              "citation": f"Cite </pre>{SCRIPT}\n{HEADING}\n{LINK}",
              "variants": [{"dataset": str(work / "data" / "hin_Deva")}], "qc": False}
    (work / "recipe.yaml").write_text(yaml.safe_dump(recipe, sort_keys=False), encoding="utf-8")


def check_report_html(path: Path, must_show=()) -> str:
    """``report.html`` holds only its own elements: one ``script`` (the sorter), no ``img``/``svg`` other
    than the charts' own, no ``on*`` attribute, no ``javascript:`` link; the hostile strings are text."""
    page = parse_html(path.read_text(encoding="utf-8"))
    scripts = [t for t, _ in page.tags if t == "script"]
    assert len(scripts) == 1, f"{path}: {len(scripts)} script elements"
    assert not [t for t, _ in page.tags if t in ("img", "iframe", "object", "embed")], f"{path}: an element from data"
    svgs = [dict(attrs).get("class") for t, attrs in page.tags if t == "svg"]
    assert all(c == "chart" for c in svgs), f"{path}: an svg element that is not one of the report's charts"
    on = [(t, k) for t, attrs in page.tags for k, _ in attrs if k.startswith("on")]
    assert not on, f"{path}: event-handler attributes {on[:3]}"
    hrefs = [v for _, attrs in page.tags for k, v in attrs if k in ("href", "src") and v]
    assert not [h for h in hrefs if h.strip().lower().startswith("javascript")], hrefs
    text = "".join(page.text)
    for needle in must_show:
        assert needle in text, f"{path}: {needle!r} is not shown as text"
    return text


def release_check(result, work, subs):
    out = Path(work) / "out"
    text = check_report_html(out / "report.html", must_show=(f"{SCRIPT} {IMG}", f"Cite </pre>{SCRIPT}"))
    assert HEADING in text
    check_markdown(out / "export" / "README.md", must_show=(SCRIPT, IMG, SVG))
    check_markdown(out / "export" / "ATTRIBUTION.md", must_show=(SVG,))
