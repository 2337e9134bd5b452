"""Browser-test fixtures: one server and one Chromium for the whole run, a fresh page per test.

Fixtures:
- `server_url`: base URL ("http://127.0.0.1:PORT/") of `python -m server` serving the repo root.
  It first rebuilds what is built from py/ (py.zip, tools/build_pybundle.py) and sw.js, if a
  module changed since: a test never runs an old copy of the code, nor a worker that cannot
  install because its precache list no longer matches.
- `browser`: a Playwright (sync API) Chromium: $LUDO_CHROMIUM / $CHROMIUM_PATH / `chromium` on
  PATH, else Playwright's own bundled build; if none starts, every browser test fails with one
  line saying how to install one.
  A test during which a page's renderer crashed gets what Chromium printed in its report
  (section "Chromium's log"), the tests after it get a freshly started Chromium, the module's
  shared page is opened again, and the test runs once more (pyproject.toml's --reruns; only
  for that error). A crash is the machine's, not the game's: it has been seen only at a page's
  boot, in bursts, on one CI run.
- Contexts (and so pages) that a test opens in its body are closed when it ends, so the pages of
  earlier tests never run beside the later ones; shared fixtures open theirs at set-up.
- `page`: a page in a new browser context, with what it did recorded on it:
  `page.requests` (every request URL), `page.console_errors` (console errors and uncaught
  exceptions), `page.failed_requests` (network failures and HTTP status >= 400, as strings),
  and `page.offsite_requests()` (requests that left the server's origin; data:/blob: excepted).
- `no_page_faults` (autouse): a test fails when any page of the run's Chromium reported an
  unexpected error while it ran (the page's fault banner), unless marked `faults_expected`.

pytest-playwright is not used: its `page`/`browser` fixtures would clash with these, and its
browser download cannot work here.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import (
    Browser,
    BrowserContext,
    ConsoleMessage,
    Page,
    Playwright,
    sync_playwright,
)
from playwright.sync_api import Error as PlaywrightError

from server.testing import CHROMIUM_ARGS, chromium_executable, running_server
from tools import build_dist, build_pybundle, build_sw

ROOT = Path(__file__).resolve().parents[2]
# Local URL schemes that never leave the page, so they are not cross-origin requests.
LOCAL_SCHEMES = ("data:", "blob:", "about:")
FAULT_PREFIX = "Courtyard Ludo: unexpected error"  # what dom.report_fault writes to the console


@pytest.fixture(scope="session")
def server_url() -> Iterator[str]:
    # boot.mjs (pyscript.toml's interpreter) is the newest file tools/vendor.py writes.
    if not (ROOT / "vendor" / "pyodide" / "boot.mjs").is_file():
        pytest.fail("vendor/ is missing or stale: run `make test` (it runs npm ci and"
                    " tools/vendor.py)")
    rebuild_from_py()
    with running_server(ROOT) as url:
        yield url


def rebuild_from_py() -> None:
    """Bring py.zip and sw.js up to date with py/ (each is rewritten only if it changed). One
    process at a time: pytest-xdist's workers each run this at the start."""
    key = hashlib.sha256(str(ROOT).encode()).hexdigest()[:12]
    with open(Path(tempfile.gettempdir()) / f"ludo-build-{key}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            build_pybundle.refresh_site(ROOT)
        except (build_pybundle.BundleError, build_sw.BuildError) as error:
            pytest.fail(f"{error}: run `make test` (or tools/build_icons.py,"
                        " tools/build_pybundle.py, then tools/build_sw.py)", pytrace=False)


class Chromium:
    """The run's Chromium, standing in for a Playwright `Browser` (anything else is passed on).

    It counts renderer crashes in the pages of the contexts it opens, and after a crash it
    starts a new Chromium for the contexts opened from then on. The old one stays open until
    the end of the run: pages of a module's fixture may still live in it.
    """

    def __init__(self, playwright: Playwright, executable: str | None, log: Path) -> None:
        self._playwright = playwright
        self._executable = executable
        self.log = log
        self.crashes = 0
        self.faults: list[str] = []  # every page's unexpected errors (see no_page_faults)
        self.launches = 0
        # The contexts a test opened while it ran (None outside a test's call): closed after
        # it, so that no page of an earlier test still runs Pyodide, timers and peer links
        # beside the later tests (they once piled up, dozens per worker, slowing all after).
        self.test_contexts: list[BrowserContext] | None = None
        self._retired: list[Browser] = []
        self._current = self._launch()

    def _launch(self) -> Browser:
        self.launches += 1
        return self._playwright.chromium.launch(executable_path=self._executable,
                                                args=list(CHROMIUM_ARGS))

    def _count_crash(self, _page: Page) -> None:
        self.crashes += 1

    def _watch(self, context: BrowserContext) -> BrowserContext:
        context.on("page", self._watch_page)
        return context

    def _watch_page(self, page: Page) -> None:
        page.on("crash", self._count_crash)
        page.on("console", self._note_fault)

    def _note_fault(self, message: ConsoleMessage) -> None:
        """What the page reported as an unexpected error (py/app/browser/dom.report_fault):
        the player saw "Something went wrong" over the board, whatever the test looked at."""
        if message.type == "error" and message.text.startswith(FAULT_PREFIX):
            self.faults.append(message.text[:4000])

    def new_context(self, **options: Any) -> BrowserContext:
        context = self._watch(self._current.new_context(**options))
        if self.test_contexts is not None:
            self.test_contexts.append(context)
        return context

    def close_test_contexts(self) -> None:
        for context in self.test_contexts or ():
            try:
                context.close()
            except PlaywrightError:  # already closed, or its Chromium is gone
                pass
        self.test_contexts = None

    def new_page(self, **options: Any) -> Page:
        context = self.new_context(**options)
        page = context.new_page()
        # Browser.new_page's page closes its own context; so does this one.
        page.once("close", lambda _page: context.close())
        return page

    @staticmethod
    def page_is_dead(page: Page) -> bool:
        """Closed, or its renderer crashed (then every call on it fails)."""
        if page.is_closed():
            return True
        try:
            page.evaluate("1")
        except PlaywrightError:
            return True
        return False

    def relaunch(self) -> None:
        self._retired.append(self._current)
        self._current = self._launch()

    def log_tail(self, lines: int = 60) -> str:
        """The end of what Chromium printed, without the D-Bus complaints of a headless box."""
        try:
            text = self.log.read_text(errors="replace")
        except OSError:
            return "(no log)"
        kept = [line for line in text.splitlines()
                if "pw:browser" in line and "dbus" not in line.lower()]
        return "\n".join(kept[-lines:]) or "(Chromium printed nothing)"

    def close(self) -> None:
        for browser in [*self._retired, self._current]:
            try:
                browser.close()
            except PlaywrightError:
                pass

    def __getattr__(self, name: str) -> Any:
        return getattr(self._current, name)


MAX_RELAUNCHES = 8
# The worker's Chromium, for the crash hooks below (each xdist worker has its own).
_CHROMIUM: Chromium | None = None


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    global _CHROMIUM
    # Playwright's driver writes what Chromium prints to DEBUG_FILE when DEBUG names
    # pw:browser: the only record of why a renderer crashed. The driver reads its environment
    # when it starts, so both are set around sync_playwright() and restored after.
    log = Path(tempfile.mkdtemp(prefix="ludo-chromium-")) / "chromium.log"
    saved = {name: os.environ.get(name) for name in ("DEBUG", "DEBUG_FILE")}
    os.environ["DEBUG"] = "pw:browser"
    os.environ["DEBUG_FILE"] = str(log)
    try:
        manager = sync_playwright()
        playwright = manager.start()
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    try:
        executable = chromium_executable()
        try:
            chromium = Chromium(playwright, executable, log)
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
        _CHROMIUM = chromium
        try:
            yield chromium  # type: ignore[misc]  # stands in for a Browser
        finally:
            _CHROMIUM = None
            chromium.close()
    finally:
        manager.__exit__(None, None, None)


def _is_crash(report: pytest.TestReport) -> bool:
    return report.failed and "crashed" in str(report.longrepr)


def _reopen_crashed_shared_pages(item: pytest.Item) -> None:
    """Tear down every shared (module or class) fixture whose page crashed or whose set-up
    failed, so that the test's rerun and the tests after it open the page again."""
    for definitions in item._fixtureinfo.name2fixturedefs.values():  # type: ignore[attr-defined]
        for definition in definitions:
            cached = getattr(definition, "cached_result", None)
            if definition.scope == "function" or cached is None:
                continue
            value = cached[0]
            if cached[2] is not None or (isinstance(value, Page) and Chromium.page_is_dead(value)):
                try:
                    # Runs the fixture's own teardown (closing the dead page's context) and
                    # forgets its value; finish() reads only the request's node.
                    definition.finish(item._request)  # type: ignore[attr-defined]
                except Exception:  # noqa: BLE001 - a dead page's teardown may fail; it is gone
                    definition.cached_result = None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    """Close the contexts a test opened in its body once it is over (shared fixtures open
    theirs at set-up, and keep them)."""
    chromium = _CHROMIUM
    if chromium is not None:
        chromium.test_contexts = []
    try:
        yield
    finally:
        if chromium is not None:
            chromium.close_test_contexts()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):
    outcome = yield
    report: pytest.TestReport = outcome.get_result()
    chromium = _CHROMIUM
    if chromium is None or not _is_crash(report):
        return
    report.sections.append(
        ("Chromium's log", f"{chromium.crashes} renderer crash(es) seen in this run\n"
                           + chromium.log_tail()))
    # One fresh Chromium per crashed test (its reruns included), and a bound on them all.
    if chromium.launches <= MAX_RELAUNCHES:
        chromium.relaunch()
    _reopen_crashed_shared_pages(item)


@pytest.fixture(autouse=True)
def no_page_faults(request: pytest.FixtureRequest) -> Iterator[None]:
    """Every browser test fails when a page of the run's Chromium reported an unexpected error
    while it ran (the fault banner, "Something went wrong on this page"), whatever else the
    test checked: a guest's page once showed it over the board while the test went on
    clicking the banner. A test that causes one on purpose is marked `faults_expected`."""
    seen = len(_CHROMIUM.faults) if _CHROMIUM is not None else 0
    yield
    chromium = _CHROMIUM
    if chromium is None or request.node.get_closest_marker("faults_expected"):
        return
    new = chromium.faults[seen:]
    if new:
        pytest.fail(f"{len(new)} unexpected error(s) in a page:\n{new[0]}", pytrace=False)


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


@pytest.fixture
def site(tmp_path: Path) -> Iterator[tuple[Path, str]]:
    """A temporary copy of the site (as `make dist` builds it), served on its own port."""
    root = tmp_path / "site"
    build_dist.build(ROOT, root)
    with running_server(root) as url:
        yield root, url
