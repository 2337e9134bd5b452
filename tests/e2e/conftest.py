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

Warm contexts. A first visit costs Chromium about 9 CPU-seconds here (compiling Pyodide's
WebAssembly and JavaScript); a visit served by the app's own service worker, whose cache
keeps the compiled code, about half that. So `browser.new_context()` in these tests lends a
context from a per-worker pool instead of making a new one: the service worker and its
cache stay, and everything a page could keep of a game does not (local storage, IndexedDB,
cookies and the like are cleared for the server's origin when the context is closed, which
returns it to the pool). Options that a page can emulate (`reduced_motion`, `color_scheme`,
`viewport`) and init scripts are applied per page; contexts with other options come from a
pool of their own (`has_touch`) or are made fresh. A context a test changes in ways that
cannot be undone (routes, offline, permissions, bindings) is closed for good, not lent again.
A module that tests a first visit itself (the service worker's install, the update flow)
marks itself `pytest.mark.fresh_contexts`: its contexts are always new. LUDO_FRESH_CONTEXTS=1
makes every context new, as before.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, sync_playwright
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
def chromium() -> Iterator[Browser]:
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


# What a page can emulate by itself, so a lent context need not have been made with it.
PER_PAGE = ("reduced_motion", "color_scheme", "viewport")
# Options a pool is kept for (a context cannot change them after it was made).
POOLED = ("has_touch",)
# Everything of the origin's storage that a page could keep between tests; the service worker
# and its Cache Storage (the compiled code) are what the pool is for, so they stay.
CLEARED = "cookies,local_storage,indexeddb,file_systems,websql,shared_storage,storage_buckets"
# Context methods whose effect cannot be undone when the context is given back.
TAINTING = ("route", "route_web_socket", "route_from_har", "set_offline", "grant_permissions",
            "expose_binding", "expose_function", "set_extra_http_headers", "set_geolocation",
            "add_cookies", "on", "once")


class ContextPool:
    """Browser contexts of one worker, lent to tests and cleared when given back."""

    def __init__(self, browser: Browser, origin: str) -> None:
        self.browser = browser
        self.origin = origin
        self.free: dict[tuple[tuple[str, Any], ...], list[BrowserContext]] = {}

    def new_context(self, **options: Any) -> BrowserContext:
        if set(options) - set(PER_PAGE) - set(POOLED):
            return self.browser.new_context(**options)
        key = tuple(sorted((k, v) for k, v in options.items() if k in POOLED))
        free = self.free.setdefault(key, [])
        context = free.pop() if free else self.browser.new_context(**dict(key))
        self._lend(context, key, {k: v for k, v in options.items() if k in PER_PAGE})
        return context

    def _lend(self, context: BrowserContext, key: tuple[tuple[str, Any], ...],
              emulate: dict[str, Any]) -> None:
        kind = type(context)
        scripts: list[dict[str, Any]] = []
        lent = {"tainted": False, "back": False}

        def prepare(page: Page) -> None:
            media = {k: v for k, v in emulate.items() if k != "viewport"}
            if media:
                page.emulate_media(**media)
            if emulate.get("viewport"):
                page.set_viewport_size(emulate["viewport"])
            for script in scripts:
                page.add_init_script(**script)

        def new_page() -> Page:
            page = kind.new_page(context)
            prepare(page)
            return page

        def add_init_script(script: str | None = None, path: Any = None) -> None:
            scripts.append({"script": script, "path": path})
            for page in context.pages:
                page.add_init_script(script=script, path=path)

        def close(**_: Any) -> None:
            if lent["back"]:
                return
            lent["back"] = True
            for name in ("new_page", "add_init_script", "close", *TAINTING):
                context.__dict__.pop(name, None)
            if lent["tainted"] or not self._clear(context):
                kind.close(context)
                return
            self.free.setdefault(key, []).append(context)

        def tainting(name: str) -> Any:
            method = getattr(kind, name)

            def call(*args: Any, **kwargs: Any) -> Any:
                lent["tainted"] = True
                return method(context, *args, **kwargs)
            return call

        context.new_page = new_page  # type: ignore[method-assign]
        context.add_init_script = add_init_script  # type: ignore[method-assign]
        context.close = close  # type: ignore[method-assign]
        for name in TAINTING:
            setattr(context, name, tainting(name))

    def _clear(self, context: BrowserContext) -> bool:
        """Close the context's pages and clear the origin's storage; False if that failed."""
        try:
            for page in list(context.pages):
                page.close()
            blank = type(context).new_page(context)
            session = context.new_cdp_session(blank)
            session.send("Storage.clearDataForOrigin",
                         {"origin": self.origin, "storageTypes": CLEARED})
            session.detach()
            blank.close()
            context.clear_cookies()
            return True
        except PlaywrightError:
            return False


class PooledBrowser:
    """The browser as the tests see it: `new_context` lends a warm context from the pool."""

    def __init__(self, browser: Browser, pool: ContextPool) -> None:
        self._browser = browser
        self._pool = pool

    def new_context(self, **options: Any) -> BrowserContext:
        if FRESH["contexts"]:
            return self._browser.new_context(**options)
        return self._pool.new_context(**options)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._browser, name)


# Set before each test's fixtures are made: whether its contexts must be new (its module is
# marked fresh_contexts, or LUDO_FRESH_CONTEXTS=1).
FRESH = {"contexts": os.environ.get("LUDO_FRESH_CONTEXTS") == "1"}


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    FRESH["contexts"] = os.environ.get("LUDO_FRESH_CONTEXTS") == "1" \
        or item.get_closest_marker("fresh_contexts") is not None


@pytest.fixture(scope="session")
def browser(chromium: Browser, server_url: str) -> Browser:
    pool = ContextPool(chromium, server_url.rstrip("/"))
    return PooledBrowser(chromium, pool)  # type: ignore[return-value]


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
