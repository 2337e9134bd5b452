"""Offline and installable, in headless Chromium: the service worker built by tools/build_sw.py.

- A first visit leaves a service worker in control; everything the page loaded is on the
  precache list. Offline, a reload boots from the cache and a saved game is played to its end
  through the UI; a second tab opens offline with a query string. Every same-origin response
  while offline comes from the service worker. A Gilgiti game, too, starts and ends offline.
- Update: a changed build, served by a second server on a temporary copy of the site. Caught
  half-way through its deployment (new sw.js, old py.zip) it fails to install and changes
  nothing; complete, it installs in the background while a game goes on, the banner appears,
  nothing reloads until the player accepts, and then the page lands back in the same game on
  the new version, booted from the new version's Pyodide snapshot.
- No room: with the origin's quota too small for two copies of the app, the update's install
  fails, the old version stays, and the banner says so, once per version.
- Install button and offline badge; Chromium's own manifest and installability checks.
"""

from __future__ import annotations

import base64
import hashlib
import json
import time
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, Response

from app.savegame import Session, encode
from ludo import (
    Action,
    Record,
    auto_action,
    distinct_moves,
    format_position,
    is_over,
    parse_position,
    play,
)
from tools import build_pybundle, build_sw

ROOT = Path(__file__).resolve().parents[2]
BOOT_TIMEOUT_MS = 60_000
SW_TIMEOUT_MS = 60_000  # the first install copies 47 MB (31.5 MB of it Pyodide's snapshot)
FAST = "?auto_delay=0"
SAVE_KEY = "courtyard-ludo/save"
APP = build_sw.TARGETS["app"]


@pytest.fixture(scope="module", autouse=True)
def current_sw() -> None:
    """sw.js must describe the files being served: rebuild it (and py.zip, the modules it
    lists) if py/ changed since `make`."""
    try:
        build_pybundle.write(ROOT)
        build_sw.write(ROOT, APP)
    except (build_pybundle.BundleError, build_sw.BuildError) as error:
        pytest.fail(f"{error}: run `make test` (it renders icons/ and vendors the runtime)")


def cache_name(version: str, scope_path: str = "/") -> str:
    """The name of the cache a worker of this version fills for the copy of the app at
    `scope_path` (here, the root of its server): tools/sw_template.js."""
    return f"{APP.name}-{version}@{scope_path}"


def wait_ready(page: Page) -> None:
    page.wait_for_selector('html[data-ready="1"]', state="attached", timeout=BOOT_TIMEOUT_MS)


def wait_for_promise(page: Page, expression: str, arg: object = None,
                     timeout_ms: float = 30_000) -> None:
    """Wait until ``expression`` (a function of ``arg`` returning a Promise) resolves truthy.
    Playwright's wait_for_function does not await a Promise: the Promise itself is truthy, so
    it returned at once and such a wait checked nothing."""
    deadline = time.monotonic() + timeout_ms / 1000
    while not page.evaluate(expression, arg):
        assert time.monotonic() < deadline, f"not true within {timeout_ms} ms: {expression}"
        page.wait_for_timeout(100)


def wait_controlled(page: Page) -> None:
    page.wait_for_function("navigator.serviceWorker.controller !== null", timeout=SW_TIMEOUT_MS)


def sw_version(page: Page) -> str:
    """The build version of the worker controlling the page (asked over a MessageChannel)."""
    return page.evaluate(
        """() => new Promise((resolve) => {
            const channel = new MessageChannel();
            channel.port1.onmessage = (event) => resolve(event.data.version);
            navigator.serviceWorker.controller.postMessage({type: "VERSION"}, [channel.port2]);
        })"""
    )


def precached_urls(base_url: str, root: Path = ROOT) -> set[str]:
    return {base_url + rel for rel in build_sw.precache_files(root, APP)}


def same_origin(url: str, base_url: str) -> bool:
    return url.startswith(base_url)


def record_responses(page: Page, into: list[Response]) -> None:
    page.on("response", lambda response: into.append(response))


def scripted_game(seed: int) -> tuple[Record, list[str]]:
    """A two-player game played to its end the way the UI plays it when the test clicks the
    first distinct move: rolls from the seeded dice, and single moves played automatically.
    Returns the record and every position's text (format_position, as window.ludo shows it)."""
    record = Record("courtyard", ("red", "yellow"), seed)
    state = record.start()
    texts = [format_position(state)]
    while not is_over(state):
        if state.phase == "roll":
            action = Action("roll")
        else:
            action = auto_action(state) or distinct_moves(state)[0]
        record, state, _ = play(record, state, action)
        texts.append(format_position(state))
    return record, texts


def near_the_end(seed: int = 20240611, actions_left: int = 24) -> tuple[str, Record, list[str]]:
    """A save of `record` cut `actions_left` actions before its end, at a roll."""
    record, texts = scripted_game(seed)
    cut = len(record.actions) - actions_left
    while json.loads(texts[cut])["phase"] != "roll":
        cut -= 1
    saved = record._replace(actions=record.actions[:cut])
    return encode(Session(record=saved, timer=False)), record, texts


def finish_through_the_ui(page: Page, record: Record, texts: list[str]) -> int:
    """Click the die and the tokens the scripted game chose, until it is over; returns clicks."""
    index = {text: i for i, text in enumerate(texts)}
    clicks = 0
    for _ in range(200):
        text = page.evaluate("window.ludo.position()")
        i = index[text]  # the page follows the scripted game exactly
        if i == len(texts) - 1:
            return clicks
        action = record.actions[i]
        state = json.loads(text)
        if state["phase"] == "roll":
            page.click("#die")
            clicks += 1
        elif len(distinct_moves(parse_position(text))) > 1:
            page.click(f'#board .token.movable[data-token="{action.token}"]')
            clicks += 1
        page.wait_for_function("prev => window.ludo.position() !== prev", arg=text)
    raise AssertionError("the game did not finish")


def test_first_visit_then_play_a_game_offline_and_open_a_second_tab(
    page: Page, server_url: str
) -> None:
    context = page.context
    page.goto(server_url + FAST)
    wait_ready(page)
    wait_controlled(page)
    # the install screen says the offline copy is ready (it only ever said, as the seed's
    # sentence does, "Open the game online once to prepare offline play", also when done)
    page.wait_for_function("document.getElementById('offline-ready').textContent"
                           ".startsWith('This device is ready')", timeout=5000)
    # Everything the page loaded online is precached (sw.js is the worker itself).
    precached = precached_urls(server_url)
    loaded = {u.split("?")[0] for u in page.requests if same_origin(u, server_url)}
    loaded -= {server_url, server_url + "sw.js"}
    assert loaded - precached == set(), "loaded but not precached"
    assert page.evaluate("caches.keys()") == [cache_name(sw_version(page))]
    # Chromium's own verdict: the manifest parses, its icons load, and nothing but the test
    # profile (incognito-like contexts cannot install apps) stands in the way of installing.
    cdp = context.new_cdp_session(page)
    manifest = cdp.send("Page.getAppManifest")
    assert manifest["url"] == server_url + "manifest.webmanifest"
    assert manifest["errors"] == []
    assert cdp.send("Page.getAppId")["appId"] == server_url  # as it was with "id": "./"
    assert cdp.send("Page.getManifestIcons").get("primaryIcon")
    installability = cdp.send("Page.getInstallabilityErrors")["installabilityErrors"]
    assert {error["errorId"] for error in installability} <= {"in-incognito"}
    cdp.detach()

    save, record, texts = near_the_end()
    page.evaluate("([key, value]) => localStorage.setItem(key, value)", [SAVE_KEY, save])
    context.set_offline(True)
    offline: list[Response] = []
    record_responses(page, offline)
    page.reload()
    wait_ready(page)
    assert page.is_visible("#net-status")
    assert page.is_visible("#screen-table")
    clicks = finish_through_the_ui(page, record, texts)
    assert clicks > 5
    page.locator("#dlg-winner").wait_for(state="visible")
    assert json.loads(page.evaluate("window.ludo.position()"))["phase"] == "over"

    # A second tab, offline, with a query string (a future room link) opens from the cache.
    second = context.new_page()
    record_responses(second, offline)
    second.goto(server_url + "?room=abc123&auto_delay=0#home")
    wait_ready(second)
    assert second.is_visible("#screen-home") and second.is_visible("#net-status")
    second.wait_for_function("document.getElementById('offline-ready').textContent === "
                             "'This device is ready: the game opens and plays here with no "
                             "network.'", timeout=5000)

    served = [r for r in offline if same_origin(r.url, server_url)]
    # the page, PyScript's chunks, the runtime and the app's modules (py.zip), all from cache
    assert len(served) > 20
    assert {server_url + "py.zip", server_url + "vendor/pyodide/pyodide.asm.wasm"} <= {
        r.url for r in served}
    assert [r.url for r in served if not r.from_service_worker] == []
    assert page.console_errors == [] and page.failed_requests == []
    second.close()


def test_a_gilgiti_game_starts_and_ends_offline(page: Page, server_url: str) -> None:
    """Installed, then offline: a reload boots from the cache, Gilgiti is chosen in the setup
    form and two computers play it to its end, with nothing fetched from the network."""
    context = page.context
    page.goto(server_url + "?auto_delay=0&pace_ms=0")
    wait_ready(page)
    wait_controlled(page)
    context.set_offline(True)
    offline: list[Response] = []
    record_responses(page, offline)
    page.reload()
    wait_ready(page)
    assert page.is_visible("#net-status") and page.is_visible("#screen-home")
    page.check('input[name="rules"][value="gilgiti"]')
    for colour in ("red", "green", "yellow", "blue"):
        page.locator(f'input[name="seat"][value="{colour}"]').set_checked(
            colour in ("red", "green"))
    for colour in ("red", "green"):  # an unticked seat's fields are disabled
        page.select_option(f'[name="kind-{colour}"]', "easy")
    page.locator("#opt-timer").set_checked(False)
    page.click("#btn-start")
    page.wait_for_selector("#screen-table:not([hidden])")
    assert json.loads(page.evaluate("window.ludo.position()"))["rules"] == "gilgiti"
    page.locator("#dlg-winner").wait_for(state="visible", timeout=180_000)
    state = json.loads(page.evaluate("window.ludo.position()"))
    assert state["phase"] == "over" and len(state["winners"]) == 1
    assert f"{state['winners'][0].capitalize()} wins!" in page.inner_text("#winner-title")
    record = json.loads(page.evaluate(f"localStorage.getItem({SAVE_KEY!r})"))["record"]
    assert record["rules"] == "gilgiti" and len(record["actions"]) > 20
    served = [r for r in offline if same_origin(r.url, server_url)]
    # the page, PyScript's chunks, the runtime and the app's modules (py.zip), all from cache
    assert len(served) > 20
    assert {server_url + "py.zip", server_url + "vendor/pyodide/pyodide.asm.wasm"} <= {
        r.url for r in served}
    assert [r.url for r in served if not r.from_service_worker] == []
    assert page.console_errors == [] and page.failed_requests == []


# Chromium fires beforeinstallprompt only for an installable site on a real profile, so the
# page is driven by a stand-in event with the same members.
FAKE_PROMPT = """
window.fakePrompt = (tag) => {
  const event = new Event("beforeinstallprompt", {cancelable: true});
  event.prompt = () => { window.__prompted = tag; return Promise.resolve(); };
  event.userChoice = Promise.resolve({outcome: "accepted", platform: "web"});
  return event;
};
"""


def test_install_button_and_offline_badge(page: Page, server_url: str) -> None:
    # A prompt that comes before Python is up is kept by index.html for pwa.py.
    page.add_init_script(
        FAKE_PROMPT
        + "addEventListener('DOMContentLoaded', () => dispatchEvent(fakePrompt('early')));"
    )
    page.goto(server_url + FAST + "#install")
    wait_ready(page)
    page.wait_for_selector("#btn-install:not([hidden])")
    page.click("#btn-install")
    page.wait_for_selector("#btn-install", state="hidden")  # a prompt can be used once
    assert page.evaluate("window.__prompted") == "early"

    # One that comes later (the browser decides when the site is installable).
    prevented = page.evaluate(
        "() => { const e = fakePrompt('late'); dispatchEvent(e); return e.defaultPrevented; }"
    )
    assert prevented  # the page's button, not the browser's mini-infobar
    page.click("#btn-install")
    page.wait_for_selector("#btn-install", state="hidden")
    assert page.evaluate("window.__prompted") == "late"
    page.evaluate("dispatchEvent(new Event('appinstalled'))")

    assert page.is_hidden("#net-status")
    page.context.set_offline(True)
    page.wait_for_selector("#net-status", state="visible")
    assert "internet connection" in page.inner_text("#net-status")
    page.context.set_offline(False)
    page.wait_for_selector("#net-status", state="hidden")
    assert page.console_errors == []


def test_a_browser_that_blocks_service_workers_plays_online_without_an_error(
        browser: Browser, server_url: str) -> None:
    # Such a browser (or an automation tool) may answer register() with nothing at all: the game
    # must boot and play, online only, with a warning in the console and no error on the page.
    context = browser.new_context(service_workers="block")
    try:
        page = context.new_page()
        messages: list[tuple[str, str]] = []
        page.on("console", lambda m: messages.append((m.type, m.text)))
        page.on("pageerror", lambda e: messages.append(("pageerror", str(e))))
        page.goto(server_url + FAST)
        wait_ready(page)
        deadline = 200  # the warning comes from the registration, after the page is ready
        while deadline and not any("service workers are blocked" in t for _, t in messages):
            page.wait_for_timeout(50)
            deadline -= 1
        assert any(kind == "warning" and "service workers are blocked" in text
                   for kind, text in messages)
        assert page.text_content("#offline-ready").startswith(
            "This browser cannot keep the game for offline play")
        page.goto(server_url + FAST + "#home")
        page.wait_for_selector("#screen-home:not([hidden])")
        page.click("#btn-start")
        page.wait_for_selector("#screen-table:not([hidden])")
        roll_and_move(page)
        assert [m for m in messages if m[0] in ("error", "pageerror")] == []
        assert page.locator(".py-error, .mpy-error").count() == 0
    finally:
        context.close()


def test_update_waits_for_the_player_then_resumes_the_same_game(
    browser: Browser, site: tuple[Path, str]
) -> None:
    root, url = site
    context: BrowserContext = browser.new_context()
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        warnings: list[str] = []
        page.on("console", lambda m: warnings.append(m.text) if m.type == "warning" else None)
        page.goto(url + FAST)
        wait_ready(page)
        wait_controlled(page)
        old_version = sw_version(page)

        # A game in progress: two people, no clock.
        page.locator("#opt-timer").set_checked(False)
        page.click("#btn-start")
        page.wait_for_selector("#screen-table:not([hidden])")
        for _ in range(3):
            roll_and_move(page)
        page.evaluate("window.__samePage = true")

        # Every re-vendoring makes a new Pyodide snapshot (not byte-reproducible), with its
        # new integrity hash in boot.mjs: this update brings one too.
        snapshot_changed = new_snapshot_bytes(root)

        # A deployment caught half-way: the new sw.js is out, the archive with the changed
        # module is not yet. The new worker's install fails its hash check and leaves nothing
        # behind.
        archive = root / "py.zip"
        old_archive = archive.read_bytes()
        changed = root / "py" / "app" / "panel.py"
        changed.write_text(changed.read_text(encoding="utf-8") + "# update test\n", "utf-8")
        assert build_pybundle.write(root)
        new_archive = archive.read_bytes()
        assert build_sw.write(root, APP)
        new_version = build_sw.build_info(root, APP, build_sw.TEMPLATE.read_text())["version"]
        archive.write_bytes(old_archive)
        assert page.evaluate(UPDATE_NOW_JS) == "redundant"
        assert page.is_hidden("#update-banner")
        assert sw_version(page) == old_version
        assert page.evaluate("caches.keys()") == [cache_name(old_version)]

        # The deployment completes. The page checks for updates (here: on coming back
        # online) and the new worker installs in the background.
        archive.write_bytes(new_archive)
        context.set_offline(True)
        context.set_offline(False)
        page.wait_for_selector("#update-banner:not([hidden])", timeout=SW_TIMEOUT_MS)

        # Nothing was interrupted: same page, old version still in control, game goes on.
        assert page.evaluate("window.__samePage === true")
        assert sw_version(page) == old_version
        roll_and_move(page)
        # The new worker downloaded only what changed and copied the rest from the old cache.
        installed = page.evaluate(
            "name => caches.open(name).then(c => c.match('./__precache__.json'))"
            ".then(r => r.json())",
            cache_name(new_version),
        )
        assert sorted(installed["fetched"]) == sorted(
            [url + "py.zip", *(url + rel for rel in snapshot_changed)])
        before = page.evaluate("window.ludo.position()")

        warnings.clear()
        with page.expect_navigation():
            page.click("#btn-update")
        wait_ready(page)
        # The new version booted from its new snapshot, not the slow way.
        assert not [w for w in warnings if "snapshot not used" in w], warnings
        assert page.evaluate("window.__samePage === undefined")  # reloaded
        assert page.evaluate("window.ludo.position()") == before  # into the same game
        assert page.is_visible("#screen-table")
        assert page.is_hidden("#update-banner")
        assert sw_version(page) == new_version
        assert page.evaluate("caches.keys()") == [cache_name(new_version)]
        served = page.evaluate(  # the SHA-256 of what the page gets now: the new modules
            "fetch('./py.zip').then(r => r.arrayBuffer()).then(b => crypto.subtle.digest("
            "'SHA-256', b)).then(d => Array.from(new Uint8Array(d),"
            " x => x.toString(16).padStart(2, '0')).join(''))")
        assert served == hashlib.sha256(new_archive).hexdigest()
        assert errors == []
    finally:
        context.close()


def test_an_update_without_room_tells_the_player_once_and_keeps_the_old_version(
    browser: Browser, site: tuple[Path, str]
) -> None:
    """A nearly full device: the origin's quota (CDP) fits one copy of the app, 22 MB, but not
    the two an update holds while it installs. The install fails; the player is told, once."""
    root, url = site
    context: BrowserContext = browser.new_context()
    try:
        page, errors = page_with_quota(context, url, NO_ROOM_QUOTA)
        wait_ready(page)
        wait_controlled(page)
        old_version = sw_version(page)
        assert page.is_hidden("#update-banner")

        new_snapshot_bytes(root)
        changed = root / "py" / "app" / "panel.py"
        changed.write_text(changed.read_text(encoding="utf-8") + "# update test\n", "utf-8")
        assert build_pybundle.write(root)
        assert build_sw.write(root, APP)
        assert page.evaluate(UPDATE_NOW_JS) == "redundant"
        page.wait_for_selector("#update-banner:not([hidden])", timeout=10_000)
        assert "no room to store it" in page.inner_text("#update-text")
        assert "Free some storage space, then reload." in page.inner_text("#update-text")
        # The old version stays, whole, and keeps serving the page.
        assert sw_version(page) == old_version
        assert page.evaluate("caches.keys()") == [cache_name(old_version)]

        # Reload (the banner's button): the old version boots; the next checks of the same
        # version fail the same way, and the player is not told again.
        with page.expect_navigation():
            page.click("#btn-update")
        wait_ready(page)
        assert page.evaluate(UPDATE_NOW_JS) == "redundant"
        page.wait_for_timeout(500)  # the worker's message would have come by now
        assert page.is_hidden("#update-banner")
        assert sw_version(page) == old_version
        assert page.evaluate("caches.keys()") == [cache_name(old_version)]
        assert errors == []
    finally:
        context.close()


def test_a_first_visit_without_room_says_the_game_plays_only_online(
        browser: Browser, server_url: str) -> None:
    """A device too full for even one copy of the app: the first install fails, nothing is
    stored, and the game plays only while online. The player was told nothing and would find
    out offline; now the banner says so, once per version, and the game still plays."""
    context: BrowserContext = browser.new_context()
    try:
        page, errors = page_with_quota(context, server_url, FIRST_INSTALL_QUOTA)
        wait_ready(page)
        page.wait_for_selector("#update-banner:not([hidden])", timeout=SW_TIMEOUT_MS)
        assert page.inner_text("#update-text") == (
            "This device has no room to keep the game for offline play: it plays only while "
            "online. Free some storage space, then reload.")
        assert page.evaluate("navigator.serviceWorker.controller") is None
        assert page.evaluate("caches.keys()") == []
        assert page.text_content("#offline-ready").startswith(
            "This device has no room to keep the game for offline play")
        # Reload: the install is tried again and fails the same way; not told twice.
        with page.expect_navigation():
            page.click("#btn-update")
        wait_ready(page)
        wait_for_promise(page, """() => navigator.serviceWorker.getRegistration()
            .then(r => !r || (!r.installing && !r.waiting && !r.active))""",
                         timeout_ms=SW_TIMEOUT_MS)
        page.wait_for_timeout(500)  # the worker's message would have come by now
        assert page.is_hidden("#update-banner")
        page.click("#btn-start")
        page.wait_for_selector("#screen-table:not([hidden])")
        roll_and_move(page)
        assert errors == []
    finally:
        context.close()


NO_ROOM_QUOTA = 35_000_000  # bytes: the app takes 22 MB, an update about 44 MB
FIRST_INSTALL_QUOTA = 10_000_000  # less than one copy of the app


def page_with_quota(context: BrowserContext, url: str, quota: int) -> tuple[Page, list[str]]:
    """A page of the site at ``url`` on a device whose storage for the origin is ``quota``
    bytes (CDP), and the list its page errors go to; it has started opening the app."""
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(url + "manifest.webmanifest")  # (the origin must be open to be given a quota)
    cdp = context.new_cdp_session(page)
    cdp.send("Storage.overrideQuotaForOrigin", {"origin": url.rstrip("/"), "quotaSize": quota})
    page.goto(url + FAST)
    return page, errors


def new_snapshot_bytes(root: Path) -> list[str]:
    """Give the site's Pyodide snapshot new bytes (its gzip header's time stamp; the content is
    the same) and boot.mjs the integrity hash that matches them; returns the files changed
    (none without a snapshot)."""
    snapshot = root / "vendor" / "pyodide" / "pyodide-snapshot.bin"
    boot_module = root / "vendor" / "pyodide" / "boot.mjs"
    if not snapshot.is_file():
        return []
    old = snapshot.read_bytes()
    new = old[:4] + (int.from_bytes(old[4:8], "little") + 1).to_bytes(4, "little") + old[8:]
    snapshot.write_bytes(new)
    text = boot_module.read_text(encoding="utf-8")
    assert snapshot_integrity(old) in text
    boot_module.write_text(text.replace(snapshot_integrity(old), snapshot_integrity(new)), "utf-8")
    return ["vendor/pyodide/boot.mjs", "vendor/pyodide/pyodide-snapshot.bin"]


def snapshot_integrity(data: bytes) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(data).digest()).decode()


# Asks for an update check now and resolves with the new worker's final state.
UPDATE_NOW_JS = """
async () => {
  const registration = await navigator.serviceWorker.getRegistration();
  const found = new Promise((resolve) => registration.addEventListener(
    "updatefound", () => resolve(registration.installing), {once: true}));
  registration.update();
  const worker = await found;
  await new Promise((resolve) => {
    const settled = () => ["installed", "redundant"].includes(worker.state) && resolve();
    worker.addEventListener("statechange", settled);
    settled();
  });
  return worker.state;
}
"""


def roll_and_move(page: Page) -> None:
    """One roll by the player to act, and a move if the roll left a choice."""
    text = page.evaluate("window.ludo.position()")
    state = json.loads(text)
    if state["phase"] == "move":
        page.locator("#board .token.movable").first.click()
    else:
        page.click("#die")
    page.wait_for_function("prev => window.ludo.position() !== prev", arg=text)
    # an automatic single move follows by itself; wait until the page is ready for input
    page.wait_for_function(
        """() => JSON.parse(window.ludo.position()).phase === 'roll'
                 || document.querySelector('#board .token.movable') !== null"""
    )
