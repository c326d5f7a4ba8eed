"""The release report in a real browser: headless Chromium (Debian's ``chromium``) driven by Playwright.

The page renders from the summary fixture with no console message, no page
error and no request but the report file itself; its tables sort numerically
with the mouse and with the keyboard (Enter on a focused header button), with
``aria-sort`` and a visible focus ring; a 1366x900 screenshot is taken. The
screenshot in the docs, ``docs/images/release-report.png``, is rewritten only
with ``pytest --update-golden`` (like a golden file), so a test run leaves the
checkout as it was.

CI installs Chromium (``.ci/run``) and Playwright (the ``test`` extra): there a
missing one fails the test (the ``CI`` environment variable); elsewhere the test
skips, saying what to install. Playwright's own browser download is not used.
"""
from __future__ import annotations

import json
import shutil
import struct
from pathlib import Path

import pytest

from builder.release.report import render_report

SUMMARY = Path(__file__).parents[1] / "data" / "release" / "summary.json"
SCREENSHOT = Path(__file__).parents[2] / "docs" / "images" / "release-report.png"
VIEWPORT = {"width": 1366, "height": 900}


@pytest.fixture
def opened(browser, tmp_path):
    """The fixture's report opened from a file: (page, its URL, console messages, page errors, requests)."""
    summary = json.loads(SUMMARY.read_text(encoding="utf-8"))
    base = tmp_path / "release"
    for path in [k["path"] for k in summary["links"]] + [s["manifest"] for s in summary["stages"]]:
        (base / path).parent.mkdir(parents=True, exist_ok=True)
        (base / path).write_text("", encoding="utf-8")  # the files the report links to
    report = base / "report.html"
    report.write_text(render_report(summary, base=base), encoding="utf-8")
    page = browser.new_page(viewport=VIEWPORT)
    console, errors, requests = [], [], []
    page.on("console", lambda m: console.append(f"{m.type}: {m.text}"))
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("request", lambda r: requests.append(r.url))
    page.goto(report.as_uri(), wait_until="load")
    yield page, report.as_uri(), console, errors, requests
    page.close()


def _column(page, caption: str, index: int) -> list[str]:
    return page.eval_on_selector(
        f'table:has(caption:text-is("{caption}")) tbody',
        "(body, i) => Array.from(body.rows, r => r.cells[i].textContent.trim())", index)


def _sort_state(page, caption: str) -> dict:
    return page.eval_on_selector(
        f'table:has(caption:text-is("{caption}")) thead',
        "h => Object.fromEntries(Array.from(h.querySelectorAll('th[aria-sort]'),"
        " th => [th.textContent.trim(), th.getAttribute('aria-sort')]))")


def test_no_console_message_no_error_no_request_leaving_the_file(opened):
    page, url, console, errors, requests = opened
    page.wait_for_load_state("networkidle")  # any late request or console message has arrived
    assert console == [] and errors == []
    assert requests and all(r == url or r.startswith("data:") for r in requests), requests
    assert page.title() == "Release report: SIB-200 (sample)"
    assert page.locator(".verdict").inner_text().startswith("Gate: FAIL")


def test_mouse_click_sorts_numerically(opened):
    page = opened[0]
    # as text "0" < "27" < "3" < "473" < "5"; as numbers 0 < 3 < 5 < 27 < 473
    assert _column(page, "Drop ledger", 2) == ["473", "27", "0", "3", "5"]
    header = page.locator('table:has(caption:text-is("Drop ledger")) th', has_text="Dropped").locator("button")
    header.click()
    assert _column(page, "Drop ledger", 2) == ["0", "3", "5", "27", "473"]
    assert _sort_state(page, "Drop ledger") == {"Dropped": "ascending"}
    header.click()
    assert _column(page, "Drop ledger", 2) == ["473", "27", "5", "3", "0"]
    assert _column(page, "Drop ledger", 1) == ["label_removed", "unresolved", "duplicate", "empty_line", "misaligned"]
    assert _sort_state(page, "Drop ledger") == {"Dropped": "descending"}
    # "12.80" sorts before "3.07" as text, after it as a number
    page.locator('table:has(caption:text-is("Stages")) th', has_text="Seconds").locator("button").click()
    assert _column(page, "Stages", 2) == ["0.00", "0.00", "0.41", "1.23", "3.07", "4.35", "9.60", "12.80", "27.90"]
    assert page.locator("#sort-status").inner_text() == "Sorted by Seconds, ascending"


def test_enter_on_a_focused_header_sorts_and_the_focus_is_visible(opened):
    page = opened[0]
    button = page.locator('table:has(caption:text-is("Variants")) th', has_text="mlp accuracy").locator("button")
    previous = page.locator('table:has(caption:text-is("Variants")) th', has_text="char_tfidf").locator("button")
    button.focus()
    page.keyboard.press("Tab")  # to the next header by keyboard, then back: a keyboard focus
    assert previous.evaluate("b => b === document.activeElement")
    page.keyboard.press("Shift+Tab")
    assert button.evaluate("b => b === document.activeElement")
    outline = button.evaluate("b => [getComputedStyle(b).outlineStyle, getComputedStyle(b).outlineWidth]")
    assert outline == ["solid", "3px"]
    page.keyboard.press("Enter")
    # mlp accuracy by hand: nqo 88/204, kas 118, hin_Latn 133, ben 136, npi 138, hin_Deva 141, eng 160
    assert _column(page, "Variants", 0) == ["nqo_Nkoo", "kas_Arab", "hin_Latn", "ben_Beng", "npi_Deva",
                                            "hin_Deva", "eng_Latn"]
    assert _sort_state(page, "Variants") == {"mlp accuracy": "ascending"}
    page.keyboard.press("Enter")
    assert _column(page, "Variants", 0)[0] == "eng_Latn"
    assert _sort_state(page, "Variants") == {"mlp accuracy": "descending"}
    page.keyboard.press("Space")
    assert _sort_state(page, "Variants") == {"mlp accuracy": "ascending"}
    # the train-rows column: 696 (kas) < 699 (nqo) < 701, ties keep their order
    page.locator('table:has(caption:text-is("Variants")) th', has_text="train rows").locator("button").click()
    assert _column(page, "Variants", 0)[:2] == ["kas_Arab", "nqo_Nkoo"]
    assert _sort_state(page, "Variants") == {"train rows": "ascending"}


def test_screenshot(opened, tmp_path, update_golden):
    page = opened[0]
    shot = tmp_path / "release-report.png"
    page.screenshot(path=str(shot))
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", data[16:24]) == (VIEWPORT["width"], VIEWPORT["height"])
    if update_golden:  # pytest --update-golden rewrites the docs' screenshot; a plain run leaves it alone
        SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shot, SCREENSHOT)
    assert SCREENSHOT.is_file(), f"{SCREENSHOT} is missing; run pytest --update-golden {__file__}"
