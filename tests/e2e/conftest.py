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
- Contexts are used again (`ContextPool`): a context that a test closes is emptied (its pages
  closed, the storage of every origin it visited cleared) and handed to the next test that asks
  for one with the same options. Each pooled context keeps one keeper page holding the compiled
  Pyodide module, so that a page booting in it (Chromium runs one renderer per site:
  `--process-per-site`) takes the compiled code instead of compiling 10 MB of wasm again, in a
  renderer that is already running: a boot costs about a third of a fresh context's CPU, and
  boots were most of the suite's time. The keeper's page is served from a second server, same
  site but another port, so that no service worker of the game's origin ever counts it as one of
  its pages (a worker claims every page of its scope, and a new version waits for them all).
  Two kinds: for most modules the context keeps the game's service worker and its caches (a
  boot skips installing them again); for the modules about the service worker, caches and first
  visits (`FIRST_VISIT_MODULES`) it is emptied of everything, the worker, its caches and the
  HTTP cache included, as a first visit finds a browser. What a test changed that can be
  undone is undone before the context goes back (offline, routes, its event handlers,
  permissions); a context a test changed in ways that cannot be (init scripts, exposed
  functions, headers, geolocation, web socket routes) is closed for good. The modules whose
  tabs need a renderer each (`OWN_RENDERER_MODULES`) get kept contexts of a second Chromium
  that runs a renderer per page, as browsers do; the one that crashes renderers on purpose
  gets fresh ones there.
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
import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

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
    global _KEEPER_URL
    rebuild_from_py()
    # the keepers' server: the same files at another port (ContextPool)
    with running_server(ROOT) as url, running_server(ROOT) as keeper_url:
        _KEEPER_URL = keeper_url
        try:
            yield url
        finally:
            _KEEPER_URL = None


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
        self._plain: Browser | None = None  # started when a test first needs it
        self.pool = ContextPool()

    def _launch(self, per_site: bool = True) -> Browser:
        self.launches += 1
        # one renderer per site within a context: a pooled context's keeper page and the
        # pages a test opens in it share one, and so its compiled Pyodide module
        return self._playwright.chromium.launch(
            executable_path=self._executable,
            args=[*CHROMIUM_ARGS, *(["--process-per-site"] if per_site else [])])

    def _browser_for_test(self) -> Browser:
        """The Chromium for the test running now: the pooling one, or for a module whose tabs
        need a renderer each, a second one started as Chromium is."""
        if _pool_kind() in (KEPT, EMPTY):
            return self._current
        if self._plain is None:
            self._plain = self._launch(per_site=False)
        return self._plain

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
        kind = _pool_kind()
        context = self.pool.take(options, kind) if kind else None
        if context is None:
            context = self._watch(self._browser_for_test().new_context(**options))
            if kind and _KEEPER_URL:
                self.pool.adopt(context, options, kind, _KEEPER_URL)
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
        self.pool.close_all()  # its contexts belong to the old Chromium
        self._retired.append(self._current)
        self._current = self._launch()
        if self._plain is not None:
            self._retired.append(self._plain)
            self._plain = None

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
        self.pool.close_all()
        for browser in [*self._retired, self._current, *([self._plain] if self._plain else [])]:
            try:
                browser.close()
            except PlaywrightError:
                pass

    def __getattr__(self, name: str) -> Any:
        return getattr(self._current, name)


# Modules whose tests look at what a first visit, the service worker or its caches do: their
# pooled contexts are emptied of everything between tests (EMPTY), as a first visit finds them.
FIRST_VISIT_MODULES = frozenset({
    "test_offline", "test_damaged_cache", "test_hostile_cache", "test_snapshot",
    "test_snapshot_cache", "test_pybundle_boot", "test_bare_boot", "test_subpath_hosting",
    "test_bench_person_setup"})
# Modules whose tabs need a renderer each, as in a browser, not the one per site of the pooling
# Chromium: test_online_rematch's tests keep one tab's main thread busy while another tab of the
# device boots. Their contexts are pooled as KEPT ones are (OWN), in a second Chromium started
# with a renderer per page; test_crash_recovery, which crashes a renderer on purpose, gets fresh
# contexts there.
OWN_RENDERER_MODULES = frozenset({"test_online_rematch", "test_crash_recovery"})
FRESH_CONTEXT_MODULES = frozenset({"test_crash_recovery"})
# What a test can do to a context that emptying it does not undo: such a context is closed.
# (Offline, routes, permissions and its own event handlers are undone: ContextPool.adopt.)
TAINTING_METHODS = (
    "add_init_script", "route_web_socket", "expose_binding", "expose_function",
    "set_geolocation", "set_extra_http_headers", "add_cookies", "once")
# The storage a test leaves behind in each origin it visited (not the worker nor its caches).
CLEARED_STORAGE = "cookies,file_systems,indexeddb,local_storage,websql"
MAX_USES = 25  # a context is closed after this many tests, so nothing piles up in it
# Where a keeper page opens (a second server of the site's files; set by `server_url`).
_KEEPER_URL: str | None = None
KEPT = "kept"  # a pooled context keeps the game's service worker and caches between tests
EMPTY = "empty"  # ... or is emptied of them too (FIRST_VISIT_MODULES)
OWN = "own"  # kept, in the Chromium with a renderer per page (OWN_RENDERER_MODULES)


def _pool_kind() -> str | None:
    """Which pooled contexts the test running now may have: KEPT, EMPTY, OWN, or None (fresh
    ones in the Chromium with a renderer per page)."""
    current = os.environ.get("PYTEST_CURRENT_TEST", "")
    module = current.split("::")[0].rsplit("/", 1)[-1].removesuffix(".py")
    if not current or module in FRESH_CONTEXT_MODULES:
        return None
    if module in OWN_RENDERER_MODULES:
        return OWN
    return EMPTY if module in FIRST_VISIT_MODULES else KEPT


class ContextPool:
    """Browser contexts emptied after use and handed out again (see the module's docstring)."""

    def __init__(self) -> None:
        self._idle: dict[str, list[BrowserContext]] = {}
        self._state: dict[int, dict[str, Any]] = {}

    @staticmethod
    def _key(options: dict[str, Any], kind: str) -> str:
        return kind + json.dumps(options, sort_keys=True, default=str)

    def take(self, options: dict[str, Any], kind: str) -> BrowserContext | None:
        idle = self._idle.get(self._key(options, kind))
        while idle:
            context = idle.pop()
            state = self._state[id(context)]
            if not Chromium.page_is_dead(state["keeper"]):
                state["uses"] += 1
                state["in_use"] = True
                return context
            self._discard(context)
        return None

    def adopt(self, context: BrowserContext, options: dict[str, Any], kind: str,
              keeper_url: str) -> None:
        """Make ``context`` poolable: a keeper page holding the compiled Pyodide module, its
        origins noted, and its close() and changing methods wrapped."""
        origins: set[str] = set()
        close = context.close
        state: dict[str, Any] = {
            "key": self._key(options, kind), "kind": kind, "uses": 1, "in_use": True,
            "tainted": False, "origins": origins, "close": close,
            # what a test changed that release() undoes
            "offline": False, "routed": False, "permissions": False, "listeners": []}
        try:
            keeper = context.new_page()
            keeper.goto(keeper_url + "manifest.webmanifest")
            if kind != OWN:  # (with a renderer per page, no other page could use its module)
                keeper.evaluate("async () => { window.keptModule = await WebAssembly"
                                ".compileStreaming(fetch('vendor/pyodide/pyodide.asm.wasm')); }")
        except PlaywrightError:
            return  # no keeper: the context stays an ordinary one
        state["keeper"] = keeper
        state["undo"] = {name: getattr(context, name) for name in (
            "set_offline", "unroute_all", "clear_permissions", "remove_listener")}
        self._state[id(context)] = state
        context.on("request", lambda request: origins.add(_origin(request.url)))

        def marking(name: str, flag: str) -> None:
            """Wrap the context's method ``name`` to set ``state[flag]`` when called."""
            method = getattr(context, name)

            def marked(*args: Any, **kwargs: Any) -> Any:
                state[flag] = True
                return method(*args, **kwargs)
            setattr(context, name, marked)

        for name in TAINTING_METHODS:
            if hasattr(context, name):  # route_web_socket is newer than some Playwrights
                marking(name, "tainted")
        for name in ("route", "route_from_har"):
            marking(name, "routed")
        marking("grant_permissions", "permissions")
        set_offline, on = context.set_offline, context.on

        def offline(offline: bool) -> None:
            state["offline"] = state["offline"] or offline
            set_offline(offline)

        def listen(event: str, handler: Any) -> None:
            state["listeners"].append((event, handler))
            on(event, handler)

        context.set_offline = offline  # type: ignore[method-assign]
        context.on = listen  # type: ignore[method-assign,assignment]
        context.close = lambda reason=None: self.release(context)  # type: ignore[method-assign]

    @staticmethod
    def _undo(state: dict[str, Any]) -> None:
        """Undo what the test changed in its context that can be undone."""
        undo = state["undo"]
        if state["routed"]:
            undo["unroute_all"](behavior="ignoreErrors")
        if state["offline"]:
            undo["set_offline"](False)
        if state["permissions"]:
            undo["clear_permissions"]()
        for event, handler in state["listeners"]:
            undo["remove_listener"](event, handler)
        state.update(offline=False, routed=False, permissions=False, listeners=[])

    def release(self, context: BrowserContext) -> None:
        """A test closed ``context``: empty it and keep it, or close it for good."""
        state = self._state.get(id(context))
        if state is None or not state["in_use"]:
            return
        state["in_use"] = False
        keeper = state["keeper"]
        keep = not state["tainted"] and state["uses"] < MAX_USES
        try:
            for page in list(context.pages):
                if page is not keeper:
                    page.close()
            if keep and not Chromium.page_is_dead(keeper):
                self._undo(state)
                everything = state["kind"] == EMPTY
                session = context.new_cdp_session(keeper)
                try:
                    for origin in sorted(o for o in state["origins"] if o.startswith("http")):
                        session.send("Storage.clearDataForOrigin", {
                            "origin": origin,
                            "storageTypes": "all" if everything else CLEARED_STORAGE})
                    if everything:  # a first visit finds nothing in the HTTP cache either
                        session.send("Network.enable")
                        session.send("Network.clearBrowserCache")
                finally:
                    session.detach()
            else:
                keep = False
        except PlaywrightError:
            keep = False
        if keep:
            self._idle.setdefault(state["key"], []).append(context)
        else:
            self._discard(context)

    def _discard(self, context: BrowserContext) -> None:
        state = self._state.pop(id(context), None)
        if state is not None:
            try:
                state["close"]()
            except PlaywrightError:  # already closed, or its Chromium is gone
                pass

    def close_all(self) -> None:
        for idle in self._idle.values():
            for context in idle:
                self._discard(context)
        self._idle.clear()


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


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
