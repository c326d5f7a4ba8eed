"""The 228-variant release report in headless Chromium: one screen-and-a-half a reviewer reads in a minute.

The page of :func:`test_report_scale.scaled_summary` (205 variants as found and
23 romanized ones, as a full SIB-200 release) opened at 1280 px wide: it is
less than 4,000 px tall (the report before the compact summaries was 23,838 px
on a real release), it has three charts (char_tfidf and mlp by script, the drop
ledger; no chart of the majority baseline), the "failing variants" checkbox
leaves only the failing rows (the CSS ``:has`` rule; no script), the "derived
variants" one only the romanized rows, and every failing row names the ids of
its records. ``pytest --update-golden`` rewrites the docs' full-page screenshot
``docs/images/release-report-228.png``.

Chromium and Playwright as in ``test_report_browser.py``: missing under CI is a
failure, elsewhere a skip.
"""
from __future__ import annotations

import struct
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from test_report_scale import scaled_summary, write_release  # noqa: E402

SCREENSHOT = Path(__file__).parents[2] / "docs" / "images" / "release-report-228.png"
WIDTH = 1280
MAX_HEIGHT = 4000


@pytest.fixture
def opened(browser, tmp_path):
    summary = scaled_summary()
    report = write_release(tmp_path / "release", summary)
    page = browser.new_page(viewport={"width": WIDTH, "height": 900})
    errors, requests = [], []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("request", lambda r: requests.append(r.url))
    page.goto(report.as_uri(), wait_until="load")
    yield page, summary, errors, [r for r in requests if r != report.as_uri() and not r.startswith("data:")]
    page.close()


def _visible_rows(page, caption: str) -> list[dict]:
    return page.eval_on_selector(
        f'table:has(caption:text-is("{caption}")) tbody',
        "body => Array.from(body.rows).filter(r => r.offsetParent !== null).map(r => ({"
        "name: r.cells[0].textContent.trim(), cls: r.className,"
        " ids: Array.from(r.querySelectorAll('code'), c => c.textContent)}))")


def _shown(page, caption: str) -> str:
    return page.eval_on_selector(f'table:has(caption:text-is("{caption}")) tfoot td',
                                 "td => getComputedStyle(td, '::after').content")


def test_the_page_is_short_with_three_charts(opened):
    page, summary, errors, requests = opened
    assert errors == [] and requests == []
    height = page.evaluate("document.documentElement.scrollHeight")
    assert height < MAX_HEIGHT, f"{height} px tall at {WIDTH} px"
    labels = page.eval_on_selector_all("svg.chart", "s => s.map(x => x.getAttribute('aria-label').split(':')[0])")
    assert labels == ["Accuracy of char_tfidf by script", "Accuracy of mlp by script",
                      "Dropped records by source and reason; the drop ledger table has the same numbers"]
    # the two script charts side by side, each at most a screen tall
    boxes = [page.locator("svg.chart").nth(i).bounding_box() for i in range(2)]
    assert boxes[0]["y"] == boxes[1]["y"] and boxes[0]["x"] < boxes[1]["x"] and boxes[0]["height"] < 700


def test_the_failing_filter_shows_only_failing_rows_and_each_names_ids(opened):
    page, summary, *_ = opened
    failing = sorted(v["variant"] for v in summary["variants"] if v["gate"]["verdict"] == "fail")
    assert len(_visible_rows(page, "Variants")) == 228
    page.locator("#only-failing").check()
    rows = _visible_rows(page, "Variants")
    assert sorted(r["name"] for r in rows) == failing and all("fail" in r["cls"].split() for r in rows)
    checks = _visible_rows(page, "Failing checks")
    assert len(checks) == len(summary["gate"]["failing"])
    for row, f in zip(checks, summary["gate"]["failing"]):
        assert row["name"] == f["variant"] and row["ids"], row
        assert row["ids"] == [i for item in f["items"][:3] for i in item["ids"]]
    # both filters: failing and derived
    page.locator("#only-derived").check()
    rows = _visible_rows(page, "Variants")
    assert rows and all({"fail", "derived"} <= set(r["cls"].split()) for r in rows)
    page.locator("#only-failing").uncheck()
    rows = _visible_rows(page, "Variants")
    assert len(rows) == 23 and all(r["name"].endswith("_Latn") for r in rows)
    assert len(_visible_rows(page, "Derived variants")) == 23
    page.locator("#only-derived").uncheck()
    assert len(_visible_rows(page, "Variants")) == 228


def test_full_page_screenshot(opened, tmp_path, update_golden):
    page = opened[0]
    shot = tmp_path / "release-report-228.png"
    page.screenshot(path=str(shot), full_page=True)
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert width == WIDTH and height < MAX_HEIGHT
    if update_golden:  # pytest --update-golden rewrites the docs' screenshot; a plain run leaves it alone
        SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
        from PIL import Image  # matplotlib's dependency: a 256-colour PNG is a third of the size

        Image.open(shot).convert("RGB").quantize(256).save(SCREENSHOT, optimize=True)
    assert SCREENSHOT.is_file(), f"{SCREENSHOT} is missing; run pytest --update-golden {__file__}"
