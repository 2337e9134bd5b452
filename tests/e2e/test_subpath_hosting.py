"""The game served from a folder of a plain static host, as GitHub Pages serves a project
(https://user.github.io/courtyard-ludo/): `make dist`'s copy at /games/ludo/, other things of the
same origin beside it, no compression, no headers of server/ (no CSP), and the host's own 404
page. Nothing but these tests serves the game anywhere but at the root of its own server.

- A first visit boots and plays; the service worker is registered for the folder alone; the
  manifest resolves inside the folder; an online room's link keeps the folder; offline, a
  reload boots from the folder's cache into the same game, with the settings kept. Nothing the
  page or its worker asks for lies outside the folder, but the signalling helper, which is at
  /signal on the origin unless the page names another (docs/online.md).
- Another copy of the game on the same origin (a different build at /games/preview/, as a
  preview beside a release) is left alone: this copy's worker deletes none of its caches and
  tells neither its pages nor the site's at the root of a failed install, and `?sw=off` removes
  this copy's worker and caches only, not a worker of the site above it. Caches named the older
  way (without their scope) are deleted by the copy they belong to, and by no other.
- The two copies keep their own storage (app.storekeys): a game started in one is not offered
  in the other, and a tab of each plays its own game (a second tab of the same copy still takes
  the table). A game saved before keys had a folder is copied once into a folder's own keys:
  resumed there, and not brought back once that copy's save is gone.
- The folder's address without its final "/" (a host that serves the page there instead of
  redirecting): the page goes to the folder's address before loading anything else, and a host
  that takes the "/" away again does not make it loop.
"""

from __future__ import annotations

import json
import shutil
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, Response
from test_offline import UPDATE_NOW_JS, cache_name, roll_and_move, sw_version, wait_for_promise

from tools import build_dist, build_sw

ROOT = Path(__file__).resolve().parents[2]
APP = build_sw.TARGETS["app"]
FOLDER = "/games/ludo/"  # this copy of the game
OTHER = "/games/preview/"  # another copy, another build, on the same origin
LOOPING = "/games/looping/"  # a host that redirects this folder's address to one without "/"
BOOT_TIMEOUT_MS = 60_000
SW_TIMEOUT_MS = 60_000
FAST = "?auto_delay=0"
# The types a plain host sends (GitHub Pages' among them); anything else as a bare octet stream.
TYPES = {".html": "text/html; charset=utf-8", ".js": "application/javascript",
         ".mjs": "application/javascript", ".css": "text/css", ".json": "application/json",
         ".webmanifest": "application/manifest+json", ".wasm": "application/wasm",
         ".zip": "application/zip", ".svg": "image/svg+xml", ".png": "image/png"}
ROOT_PAGE = b"<!doctype html><title>Someone's site</title><p>Another site at the root.</p>"
NOT_FOUND = b"<!doctype html><title>404</title><h1>The host's own page: file not found</h1>"
# A worker of the site at the root, for the whole origin (it answers nothing itself).
ROOT_WORKER = b"self.addEventListener('install', () => self.skipWaiting());"


@dataclass
class StaticHost:
    """A plain static host: `folders` (address -> directory), the root site's page at "/", its
    worker at /root-sw.js, and its own 404 page for everything else. A folder's address without
    its final "/" gets the folder's index.html, as some hosts do (no redirect), but LOOPING's
    folder address redirects to the one without "/" (as a host that strips it would)."""

    folders: dict[str, Path]
    paths: list[str] = field(default_factory=list)  # every path asked for, in order
    url: str = ""  # the origin, without a final "/"

    def __post_init__(self) -> None:
        host = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                host.answer(self)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def answer(self, request: BaseHTTPRequestHandler) -> None:
        path = unquote(urlsplit(request.path).path)
        self.paths.append(path)
        if path == "/":
            return self.send(request, 200, TYPES[".html"], ROOT_PAGE)
        if path == "/root-sw.js":
            return self.send(request, 200, TYPES[".js"], ROOT_WORKER)
        if path == LOOPING:
            return self.send(request, 301, "text/plain", b"", location=LOOPING.rstrip("/"))
        for folder, directory in self.folders.items():
            if path == folder.rstrip("/"):
                path = folder  # served as it is, not redirected
            if path.startswith(folder) and ".." not in path.split("/"):
                file = directory / path[len(folder):]
                if file.is_dir():
                    file = file / "index.html"
                if file.is_file():
                    content_type = TYPES.get(file.suffix, "application/octet-stream")
                    return self.send(request, 200, content_type, file.read_bytes())
        return self.send(request, 404, TYPES[".html"], NOT_FOUND)

    @staticmethod
    def send(request: BaseHTTPRequestHandler, status: int, content_type: str, body: bytes,
             location: str | None = None) -> None:
        request.send_response(status)
        request.send_header("Content-Type", content_type)
        request.send_header("Content-Length", str(len(body)))
        if location:
            request.send_header("Location", location)
        request.end_headers()
        request.wfile.write(body)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StaticHost]:
    """`make dist`'s copy at FOLDER, another build of it at OTHER (one stylesheet changed, so
    another version of the worker and its cache) and at LOOPING."""
    base = tmp_path_factory.mktemp("subpath")
    site, other = base / "site", base / "other"
    build_dist.build(ROOT, site)
    shutil.copytree(site, other)
    with (other / "css" / "app.css").open("a", encoding="utf-8") as css:
        css.write("\n/* the preview's build */\n")
    build_sw.write(other, APP)
    served = StaticHost({FOLDER: site, OTHER: other, LOOPING: site})
    try:
        yield served
    finally:
        served.close()


def wait_ready(page: Page) -> None:
    page.wait_for_selector('html[data-ready="1"]', state="attached", timeout=BOOT_TIMEOUT_MS)


def wait_controlled(page: Page) -> None:
    page.wait_for_function("navigator.serviceWorker.controller !== null", timeout=SW_TIMEOUT_MS)


# From a page of the origin: registers a worker and waits until it is active.
REGISTER_JS = """
async ([script, scope]) => {
  const registration = await navigator.serviceWorker.register(script, {scope});
  const worker = registration.installing || registration.waiting || registration.active;
  await new Promise((resolve, reject) => {
    const settled = () => {
      if (worker.state === "activated") resolve();
      if (worker.state === "redundant") reject(new Error(`${script} failed to install`));
    };
    worker.addEventListener("statechange", settled);
    settled();
  });
  return registration.scope;
}
"""
SCOPES_JS = ("navigator.serviceWorker.getRegistrations()"
             ".then(all => all.filter(r => r.active).map(r => r.scope).sort())")
CACHES_JS = "caches.keys().then(names => names.sort())"
# Caches as workers named them before the name carried the scope, each holding its copy's page.
OLD_STYLE_JS = """
async (pages) => {
  for (const [name, page] of Object.entries(pages)) {
    await (await caches.open(name)).put(page, new Response("<!doctype html>"));
  }
}
"""
# Collects what service workers post to this page (it need not be controlled by one).
LISTEN_JS = """
() => {
  window.__told = [];
  navigator.serviceWorker.addEventListener("message", (event) => window.__told.push(event.data));
  navigator.serviceWorker.startMessages();
}
"""


def old_style(version: str) -> str:
    return f"{APP.name}-{version}"


def the_other_copy(root: Page, host: StaticHost) -> str:
    """The other copy's worker, installed from the root site's page; returns its cache's name."""
    assert root.evaluate(REGISTER_JS, [OTHER + "sw.js", OTHER]) == host.url + OTHER
    names = root.evaluate(CACHES_JS)
    assert len(names) == 1, names
    return names[0]


def test_a_copy_in_a_folder_installs_plays_and_reloads_offline_in_its_folder_alone(
        browser: Browser, host: StaticHost) -> None:
    context: BrowserContext = browser.new_context()
    try:
        root = context.new_page()
        root.goto(host.url + "/")
        others = [the_other_copy(root, host), old_style("00000000000000ee")]
        ours_before = old_style("00000000000000ff")
        root.evaluate(OLD_STYLE_JS, {others[1]: host.url + OTHER + "index.html",
                                     ours_before: host.url + FOLDER + "index.html"})
        root.evaluate(LISTEN_JS)

        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        asked: list[str] = []  # by the page and by its worker
        context.on("request", lambda request: asked.append(request.url))
        start = len(host.paths)
        page.goto(host.url + FOLDER + FAST)
        wait_ready(page)
        wait_controlled(page)
        folder = host.url + FOLDER

        # The worker is the folder's: registered for it alone; its cache is named after it; it
        # deleted the cache an older worker of this folder left, and nothing of the other copy.
        registration = page.evaluate(
            "navigator.serviceWorker.getRegistration().then(r => [r.scope, r.active.scriptURL])")
        assert registration == [folder, folder + "sw.js"]
        assert page.evaluate(SCOPES_JS) == sorted([folder, host.url + OTHER])
        assert page.evaluate(CACHES_JS) == sorted(
            [*others, cache_name(sw_version(page), FOLDER)])

        # The manifest and the app's identity are the folder's.
        cdp = context.new_cdp_session(page)
        manifest = cdp.send("Page.getAppManifest")
        assert manifest["url"] == folder + "manifest.webmanifest"
        assert manifest["errors"] == []
        assert cdp.send("Page.getAppId")["appId"] == folder  # (an "id": "./" named the origin)
        cdp.detach()
        data = json.loads(page.evaluate("fetch('./manifest.webmanifest').then(r => r.text())"))
        for member in ("start_url", "scope"):
            resolved = page.evaluate("([ref, base]) => new URL(ref, base).href",
                                     [data[member], folder + "manifest.webmanifest"])
            assert resolved == folder, member

        # An online room's link is the folder's address (there is no helper on this host).
        page.locator("input[name='seat'][value='green']").set_checked(True)
        page.select_option("select[name='kind-green']", "online")
        page.click("#btn-start")
        page.wait_for_selector("#screen-room:not([hidden])")
        page.wait_for_function("document.getElementById('room-link').value !== ''")
        assert page.input_value("#room-link").startswith(folder + "#room=")
        page.click("#btn-room-leave")
        page.wait_for_selector("#screen-home:not([hidden])")

        # A game, with settings of its own: Classic, two people, no clock.
        page.check("input[name='rules'][value='classic']")
        # (green unticked, still set to Online: an unticked seat's kind does not make a room)
        page.locator("input[name='seat'][value='green']").set_checked(False)
        page.locator("#opt-timer").set_checked(False)
        page.click("#btn-start")
        page.wait_for_selector("#screen-table:not([hidden])")
        for _ in range(4):
            roll_and_move(page)
        position = page.evaluate("window.ludo.position()")
        assert json.loads(position)["rules"] == "classic"

        # A deployment caught half-way in this folder: its worker's failed install tells this
        # folder's pages, and no other page of the origin.
        page.evaluate(LISTEN_JS)
        half_deployed(host.folders[FOLDER], page)
        assert [told.get("type") for told in page.evaluate("window.__told")] == ["INSTALL_FAILED"]
        assert root.evaluate("window.__told") == []

        # Nothing outside the folder but the signalling helper's default place (the root site's
        # page and the other copy's worker were the test's own doing, before).
        outside = {path for path in host.paths[start:] if not path.startswith(FOLDER)}
        assert outside <= {"/signal"}, outside
        assert [url for url in asked if not url.startswith(folder)] == []

        # Offline, a reload boots from the folder's cache into the same game and settings.
        context.set_offline(True)
        offline: list[Response] = []
        page.on("response", lambda response: offline.append(response))
        page.reload()
        wait_ready(page)
        assert page.is_visible("#net-status") and page.is_visible("#screen-table")
        assert page.evaluate("window.ludo.position()") == position
        roll_and_move(page)
        assert len(offline) > 20
        assert [r.url for r in offline if not r.from_service_worker] == []
        assert all(r.url.startswith(folder) for r in offline)
        page.click("a[data-nav='home']")
        page.wait_for_selector("#screen-home:not([hidden])")
        assert page.is_visible("#resume-box")
        assert page.is_checked("input[name='rules'][value='classic']")
        assert not page.is_checked("#opt-timer")
        assert not page.is_checked("input[name='seat'][value='green']")
        assert errors == []
    finally:
        context.close()


def half_deployed(site: Path, page: Page) -> None:
    """Has the page's worker look for an update while the folder holds a new sw.js but an old
    stylesheet (its install then fails its hash check), and puts the folder back as it was."""
    worker = site / "sw.js"
    stylesheet = site / "css" / "app.css"
    old_worker, old_stylesheet = worker.read_bytes(), stylesheet.read_bytes()
    try:
        stylesheet.write_bytes(old_stylesheet + b"\n/* the next version */\n")
        assert build_sw.write(site, APP)
        stylesheet.write_bytes(old_stylesheet)
        assert page.evaluate(UPDATE_NOW_JS) == "redundant"
        page.wait_for_function("window.__told.length > 0", timeout=10_000)
        page.wait_for_timeout(300)  # any message to another page would have come by now
    finally:
        worker.write_bytes(old_worker)
        stylesheet.write_bytes(old_stylesheet)


def test_the_folder_without_its_slash_and_sw_off_leave_other_copies_alone(
        browser: Browser, host: StaticHost) -> None:
    context: BrowserContext = browser.new_context()
    try:
        root = context.new_page()
        root.goto(host.url + "/")
        assert root.evaluate(REGISTER_JS, ["/root-sw.js", "/"]) == host.url + "/"
        others = [the_other_copy(root, host), old_style("00000000000000ee")]
        ours = old_style("00000000000000ff")
        root.evaluate(OLD_STYLE_JS, {others[1]: host.url + OTHER + "index.html",
                                     ours: host.url + FOLDER + "index.html"})

        # The folder's address without its "/", served as it is: the page goes to the folder.
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(host.url + FOLDER.rstrip("/") + "?sw=off#home")
        page.wait_for_url(host.url + FOLDER + "?sw=off#home")
        wait_ready(page)
        assert page.is_visible("#screen-home")
        # `?sw=off` (this folder has no worker yet): the root site's worker, the other copy's
        # worker and caches stay; the cache an older worker of this folder left goes.
        wait_for_promise(page, "name => caches.keys().then(names => !names.includes(name))",
                         ours, timeout_ms=10_000)
        assert page.evaluate(SCOPES_JS) == sorted([host.url + "/", host.url + OTHER])
        assert page.evaluate(CACHES_JS) == sorted(others)
        assert errors == []
        page.close()

        # A host that takes the "/" away again: the page tries the folder's address once.
        looping = context.new_page()
        asked = len(host.paths)
        looping.goto(host.url + LOOPING.rstrip("/"))
        looping.wait_for_timeout(1000)
        assert host.paths[asked:].count(LOOPING.rstrip("/")) == 2
        assert looping.url == host.url + LOOPING.rstrip("/")
    finally:
        context.close()


# The folders' own keys for the saved game (app.storekeys), and the unscoped one of before.
SAVE = "courtyard-ludo/save"
FOLDER_SAVE = f"courtyard-ludo@{FOLDER}#save"
OTHER_SAVE = f"courtyard-ludo@{OTHER}#save"
# (these tests are about storage: no worker to install; and a 10-minute turn clock, since a
# loaded machine once took so long between a roll and the click on a token that the clock,
# it seems, played the move first, and the click waited 30 s for a token that was gone)
NO_WORKER = "?auto_delay=0&sw=off&turn_seconds=600"


def open_copy(context: BrowserContext, folder: str, host: StaticHost,
              errors: list[str]) -> Page:
    page = context.new_page()
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(host.url + folder + NO_WORKER)
    wait_ready(page)
    return page


def plays(page: Page) -> bool:
    """The tab plays its game: it has not stepped aside for another tab."""
    page.wait_for_timeout(500)  # (a storage event from another tab would have come by now)
    return page.is_hidden("#tab-banner")


def test_copies_in_two_folders_keep_their_own_game_and_tabs(
        browser: Browser, host: StaticHost) -> None:
    context: BrowserContext = browser.new_context()
    errors: list[str] = []
    try:
        # A game in the release's folder, saved as it is played.
        release = open_copy(context, FOLDER, host, errors)
        release.check("input[name='rules'][value='classic']")
        release.click("#btn-start")
        release.wait_for_selector("#screen-table:not([hidden])")
        for _ in range(3):
            roll_and_move(release)
        position = release.evaluate("window.ludo.position()")
        assert release.evaluate(f"localStorage.getItem('{SAVE}')") is None

        # The preview's copy does not offer to resume it, and does not take its table: a tab
        # of each plays its own game, with its own settings.
        preview = open_copy(context, OTHER, host, errors)
        assert preview.is_visible("#screen-home") and preview.is_hidden("#resume-box")
        assert preview.is_checked("input[name='rules'][value='courtyard']")
        assert plays(release)
        preview.click("#btn-start")
        preview.wait_for_selector("#screen-table:not([hidden])")
        roll_and_move(preview)
        assert plays(release) and plays(preview)
        assert json.loads(preview.evaluate("window.ludo.position()"))["rules"] == "courtyard"
        assert release.evaluate("window.ludo.position()") == position
        roll_and_move(release)  # (it plays on)
        position = release.evaluate("window.ludo.position()")

        # A second tab of the same copy still takes the table from the first; the other
        # copy's tab plays on.
        second = open_copy(context, FOLDER, host, errors)
        release.wait_for_selector("#tab-banner:not([hidden])")
        assert plays(preview)
        second.wait_for_selector("#screen-table:not([hidden])")  # (where the game was left)
        assert second.evaluate("window.ludo.position()") == position
        assert errors == []
    finally:
        context.close()


def test_a_folder_copies_the_unscoped_save_of_before_once(
        browser: Browser, host: StaticHost) -> None:
    context: BrowserContext = browser.new_context()
    errors: list[str] = []
    try:
        # A game in progress, saved the way every copy saved it before keys had a folder.
        release = open_copy(context, FOLDER, host, errors)
        release.click("#btn-start")
        release.wait_for_selector("#screen-table:not([hidden])")
        for _ in range(3):
            roll_and_move(release)
        position = release.evaluate("window.ludo.position()")
        saved = release.evaluate(f"localStorage.getItem('{FOLDER_SAVE}')")
        assert saved
        release.close()
        root = context.new_page()
        root.goto(host.url + "/")
        root.evaluate("([key, value]) => localStorage.setItem(key, value)", [SAVE, saved])

        # The preview's copy, upgraded, opens it from its own key, at the table it was left at.
        preview = open_copy(context, OTHER, host, errors)
        preview.wait_for_selector("#screen-table:not([hidden])")
        assert preview.evaluate("window.ludo.position()") == position
        assert preview.evaluate(f"localStorage.getItem('{OTHER_SAVE}')") == saved

        # Its save removed (as a damaged game's is): the unscoped one, still there for an older
        # copy, does not come back. (Removed once the page is closed: it saves as it goes.)
        preview.close()
        root.evaluate(f"localStorage.removeItem('{OTHER_SAVE}')")
        preview = open_copy(context, OTHER, host, errors)
        assert preview.is_visible("#screen-home") and preview.is_hidden("#resume-box")
        assert preview.evaluate(f"localStorage.getItem('{OTHER_SAVE}')") is None
        assert root.evaluate(f"localStorage.getItem('{SAVE}')") == saved
        assert errors == []
    finally:
        context.close()


def test_a_folder_copies_the_room_it_opened_last_only_when_reloaded(
        browser: Browser, host: StaticHost) -> None:
    # copied by any new page, the room the page opened last made a folder's copy open, as it
    # started, the room another copy held (as its host, with the same key): only the tab that
    # held it, reloaded into the new version, copies it (app.storekeys.SESSION_NAME)
    context: BrowserContext = browser.new_context()
    errors: list[str] = []
    session = f"courtyard-ludo@{OTHER}#online"
    try:
        root = context.new_page()
        root.goto(host.url + "/")
        # (a session naming a room that is not stored: the page drops it as it starts, so the
        # copy is seen in the writes, recorded before the page loads)
        root.evaluate("localStorage.setItem('courtyard-ludo/online', "
                      "'{\"room\": \"Xk3u8Qe1Xk3u8Qe1Xk3u8Q\", \"role\": \"host\"}')")
        page = context.new_page()
        page.add_init_script("window.__written = []; const set = Storage.prototype.setItem;"
                             "Storage.prototype.setItem = function (k, v) {"
                             " window.__written.push(k); return set.call(this, k, v); };")
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(host.url + OTHER + NO_WORKER)
        wait_ready(page)
        written = page.evaluate("window.__written")
        assert f"courtyard-ludo@{OTHER}#unscoped-copied" in written
        assert session not in written
        page.evaluate(f"localStorage.removeItem('courtyard-ludo@{OTHER}#unscoped-copied')")
        page.reload()
        wait_ready(page)
        assert session in page.evaluate("window.__written")
        assert errors == []
    finally:
        context.close()
