"""Browser-test fixtures: one server and one Chromium for the whole run, a fresh page per test.

Fixtures:
- `server_url`: base URL ("http://127.0.0.1:PORT/") of `python -m server` serving the repo root.
- `browser`: a Playwright (sync API) Chromium: $LUDO_CHROMIUM / $CHROMIUM_PATH / `chromium` on
  PATH, else Playwright's own bundled build; if none starts, every browser test fails with one
  line saying how to install one.
- `page`: a page in a new browser context, with what it did recorded on it:
  `page.requests` (every request URL), `page.console_errors` (console errors and uncaught
  exceptions), `page.failed_requests` (network failures and HTTP status >= 400, as strings),
  and `page.offsite_requests()` (requests that left the server's origin; data:/blob: excepted).

pytest-playwright is not used: its `page`/`browser` fixtures would clash with these, and its
browser download cannot work here.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, sync_playwright
from playwright.sync_api import Error as PlaywrightError

from server.testing import CHROMIUM_ARGS, chromium_executable, running_server

ROOT = Path(__file__).resolve().parents[2]
# Local URL schemes that never leave the page, so they are not cross-origin requests.
LOCAL_SCHEMES = ("data:", "blob:", "about:")


@pytest.fixture(scope="session")
def server_url() -> Iterator[str]:
    if not (ROOT / "vendor" / "pyodide" / "pyodide.mjs").is_file():
        pytest.fail("vendor/ is missing: run `make test` (it runs npm ci and tools/vendor.py)")
    with running_server(ROOT) as url:
        yield url


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        executable = chromium_executable()
        try:
            browser = playwright.chromium.launch(executable_path=executable,
                                                 args=list(CHROMIUM_ARGS))
        except PlaywrightError as error:
            failure = str(error).strip().splitlines()[0][:200] if str(error).strip() else "?"
        else:
            failure = ""
        if failure:
            # A newcomer without chromium gets one line saying what to do, not a page of
            # Playwright's download advice (its download cannot work on machines like ours).
            tried = executable or "Playwright's own build"
            pytest.fail(
                f"the browser tests could not start Chromium ({tried}: {failure}). Install it"
                " with `apt-get install chromium` (make test does that as root), or set"
                " LUDO_CHROMIUM (or CHROMIUM_PATH) to a Chromium or Chrome executable.",
                pytrace=False)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture
def page(browser: Browser, server_url: str) -> Iterator[Page]:
    context = browser.new_context()
    page = context.new_page()
    page.requests = []
    page.console_errors = []
    page.failed_requests = []

    def on_console(message) -> None:
        if message.type == "error":
            page.console_errors.append(message.text)

    def on_response(response) -> None:
        if response.status >= 400:
            page.failed_requests.append(f"{response.status} {response.url}")

    page.on("request", lambda request: page.requests.append(request.url))
    page.on("console", on_console)
    page.on("pageerror", lambda error: page.console_errors.append(f"pageerror: {error}"))
    page.on(
        "requestfailed",
        lambda request: page.failed_requests.append(f"{request.failure} {request.url}"),
    )
    page.on("response", on_response)
    page.offsite_requests = lambda: [
        url
        for url in page.requests
        if not url.startswith(server_url) and not url.startswith(LOCAL_SCHEMES)
    ]
    try:
        yield page
    finally:
        context.close()
