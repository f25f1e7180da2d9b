"""The HTML report in a real headless browser (Debian's chromium, driven by playwright): the
page of docs/report.json opens from a file:// URL with no console or page error, every figure
loads, and it has one section per claim; a full-page screenshot is taken for a person to look
at (under the test's tmp folder).

Skipped where chromium or playwright is missing, except in CI (``CI=true``), which installs
both (.ci/run) and must not pass by skipping.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from tests.helpers import PROJECT_ROOT
from verify.report.html_report import FIGURES_DIR, write_html

CHROMIUM = "/usr/bin/chromium"


def _browser_missing() -> str | None:
    if not (Path(CHROMIUM).is_file() or shutil.which("chromium")):
        return "chromium not installed (CI installs the Debian package chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright not installed (pip install -e '.[test]')"
    return None


@pytest.fixture(scope="module")
def browser():
    missing = _browser_missing()
    if missing:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI must run the browser test: {missing}")
        pytest.skip(missing)
    from playwright.sync_api import sync_playwright

    executable = CHROMIUM if Path(CHROMIUM).is_file() else shutil.which("chromium")
    with sync_playwright() as p:
        # no sandbox: CI runs as root in a container, where chromium's sandbox cannot start
        b = p.chromium.launch(executable_path=executable, args=["--no-sandbox", "--disable-gpu"])
        yield b
        b.close()


def test_the_stored_report_renders_with_every_figure(browser, tmp_path):
    report = json.loads((PROJECT_ROOT / "docs" / "report.json").read_text())
    page_file = write_html(tmp_path / "report.html", report, FIGURES_DIR)
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors = []
    page.on("console", lambda msg: errors.append(f"console: {msg.text}") if msg.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(f"page: {exc}"))
    page.on("requestfailed", lambda req: errors.append(f"request failed: {req.url[:80]}"))
    page.goto(page_file.resolve().as_uri(), wait_until="load")
    images = page.evaluate("Array.from(document.images).map(i => [i.alt, i.complete, i.naturalWidth])")
    assert images and all(complete and width > 0 for _, complete, width in images), images
    assert page.locator("section.claim").count() == 17 == len(report["claims"])
    assert page.locator("nav#contents a").count() == 17
    assert page.locator(".missing").count() == 0
    shot = tmp_path / "report.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 0
    assert errors == []
    page.close()
