"""What the release report's browser tests share: Debian's Chromium driven by Playwright."""
from __future__ import annotations

import os
import shutil

import pytest


def _need(message: str):
    if os.environ.get("CI"):  # .ci/run installs both: a missing one fails, never skips
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="module")
def browser():
    """A headless Chromium (``apt-get install chromium``; Playwright's own download does not work offline)."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as err:
        _need(f"playwright is needed for this test ({err}); install it with pip install -e '.[test]'")
    executable = shutil.which("chromium") or shutil.which("chromium-browser")
    if executable is None:
        _need("Chromium is needed for this test; install it with apt-get install chromium")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable)  # no sandbox: CI runs as root
        yield browser
        browser.close()
