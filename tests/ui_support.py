"""Browser test support: one headless Debian Chromium per module, and pages that refuse anything outside the server."""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import urlparse

import pytest

CHROMIUM = Path(os.environ.get("ATTEST_CHROMIUM", "/usr/bin/chromium"))
LAUNCH_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync"]
VENDOR = Path(__file__).resolve().parent.parent / "attest" / "static" / "vendor"


def require_vendor() -> None:
    for name in ("yasgui.min.js", "cytoscape.min.js"):
        if not (VENDOR / name).exists():
            pytest.fail(f"attest/static/vendor/{name} is missing: `make install` fetches the UI libraries from npm")


@pytest.fixture(scope="module")
def browser():
    """One headless Chromium for the module (a launch costs seconds); each test gets a fresh context."""
    from playwright.sync_api import sync_playwright

    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: `make test` installs Debian's chromium (apt-get install chromium)")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS)
        yield browser
        browser.close()


def open_page(browser, viewport=(1280, 800)):
    """A page in a fresh context; requests to anything but 127.0.0.1 are refused and recorded in
    `page.outside_requests` (nothing may be fetched at run time), uncaught script errors in `page.page_errors`."""
    context = browser.new_context(accept_downloads=True, viewport={"width": viewport[0], "height": viewport[1]})
    page = context.new_page()
    page.outside_requests = []

    def guard(route):
        if urlparse(route.request.url).hostname == "127.0.0.1":
            route.continue_()
        else:
            page.outside_requests.append(route.request.url)
            route.abort()

    page.route("**/*", guard)
    page.page_errors = []
    page.on("pageerror", lambda exc: page.page_errors.append(str(exc)))
    return page


def close_page(page, screenshot: Path | None) -> None:
    """Saves a full-page screenshot as the test's artifact (under its tmp_path; not committed), then closes."""
    if screenshot is not None:
        try:
            page.screenshot(path=str(screenshot), full_page=True)
        except Exception as exc:  # noqa: BLE001 - a failed screenshot must not hide the test's own result
            print(f"screenshot not saved: {exc}")
    page.context.close()
