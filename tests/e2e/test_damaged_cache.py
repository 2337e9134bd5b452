"""A damaged copy of a game file in the service worker's cache (Cache Storage), in Chromium.

The worker serves every file of the game from its cache; a truncated or altered copy there used
to stop the boot at every visit, online and offline, with "Setting up the table…" on screen for
good, since nothing checked the copies after the install and a reload got the same bytes again.
Now (docs/offline.md, "A damaged copy"):

- A damaged runtime file or module archive: the page's boot watch (index.html) notices the
  boot failing (an error, or no progress for its patience), the worker checks every cached file
  against its hash and fetches the damaged ones again, and the page reloads by itself into the
  saved game. A normal boot checks nothing.
- Offline, the loading card says the copy on this device is damaged and that connecting once
  repairs it; coming back online repairs it and starts the game.
- The page never reloads by itself twice in one tab, and never when nothing could be repaired.
- The page (index.html) and the stylesheets are checked each time they are served: a damaged
  one is replaced from the network at once; offline, the page is a short one that says what
  happened, and a damaged stylesheet is served with a banner that says so.
- A damaged file the server no longer has (a newer version is out): the page takes the newer
  version, which the browser installs as the page opens, without copying the damaged file.
- An update that fails for room while the page is still booting (checked for as the page
  opens) is still told: index.html keeps the worker's messages until Python listens.
"""

from __future__ import annotations

import hashlib
import time
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page
from test_offline import NO_ROOM_QUOTA, page_with_quota, sw_version, wait_for_promise

from tools import build_pybundle, build_sw

ROOT = Path(__file__).resolve().parents[2]
APP = build_sw.TARGETS["app"]
BOOT_TIMEOUT_MS = 60_000
SW_TIMEOUT_MS = 60_000
RECOVERY_TIMEOUT_MS = 90_000  # the boot watch's patience (10 s), a check, a reload, a boot
# A turn clock of 10 minutes: the tests reload into the game saved before the damage, and a
# recovery on a loaded machine (offline, reload, online again) outlasted the 30 s clock, which
# then played a timeout ("timeouts": {"yellow": 1}) instead of the saved position.
FAST = "?auto_delay=0&turn_seconds=600"
BOOT_CHECK = "ludo:boot-check"  # the performance mark of the boot watch's check
RELOADED_KEY = "courtyard-ludo/boot-reloaded"

OFFLINE_TITLE = "The game cannot start offline"
OFFLINE_DETAIL = ("The copy of Courtyard Ludo on this device is damaged. Connect to the internet "
                  "once and reload: that repairs it. Your saved game is kept.")
REPAIRED_TITLE = "The game has been repaired"
REPAIRED_DETAIL = ("Some of the game's files on this device were damaged and have been fetched "
                   "again. Reload to start.")
UNREPAIRED_DETAIL = ("The copy of Courtyard Ludo on this device is damaged and could not be "
                     "repaired just now. Reload to try again. Your saved game is kept.")
DAMAGED_PAGE = "The copy of Courtyard Ludo on this device is damaged, so the game cannot start."
NO_ROOM_TEXT = ("An update is available but this device has no room to store it. "
                "Free some storage space, then reload.")
DAMAGED_STYLE = ("The copy of Courtyard Ludo on this device is damaged, so the game may look "
                 "wrong. Connect to the internet once and reload: that repairs it.")

# Damages the cached copy of `url`: cut in half, or replaced by other bytes.
DAMAGE_JS = """async ([name, url, how]) => {
    const cache = await caches.open(name);
    const hit = await cache.match(url);
    const bytes = await hit.arrayBuffer();
    const body = how === "truncated" ? bytes.slice(0, bytes.byteLength >> 1)
        : new TextEncoder().encode("not the file you are looking for\\n".repeat(64));
    await cache.put(url, new Response(body, {headers: hit.headers}));
}"""

SHA256_JS = """async ([name, url]) => {
    const hit = await (await caches.open(name)).match(url);
    if (!hit) return null;
    const digest = await crypto.subtle.digest("SHA-256", await hit.arrayBuffer());
    return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}"""


def core_chunk() -> str:
    """PyScript's core module (its name carries a content hash)."""
    return next((ROOT / "vendor" / "pyscript").glob("core-*.js")).relative_to(ROOT).as_posix()


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def wait_ready(page: Page, timeout: float = BOOT_TIMEOUT_MS) -> None:
    page.wait_for_selector('html[data-ready="1"]', state="attached", timeout=timeout)


def cache_name(page: Page) -> str:
    names = page.evaluate("caches.keys()")
    assert len(names) == 1 and names[0].startswith(APP.name + "-"), names
    return names[0]


def damage(page: Page, url: str, how: str) -> None:
    name = cache_name(page)
    good = page.evaluate(SHA256_JS, [name, url])
    page.evaluate(DAMAGE_JS, [name, url, how])
    assert page.evaluate(SHA256_JS, [name, url]) != good


def cached_sha256(page: Page, url: str) -> str | None:
    return page.evaluate(SHA256_JS, [cache_name(page), url])


def checks(page: Page) -> int:
    """How many times the boot watch asked the worker to check its files on this page."""
    return page.evaluate(f"performance.getEntriesByName('{BOOT_CHECK}').length")


def loading_card(page: Page) -> tuple[str, str]:
    return page.inner_text("#loading-title"), page.inner_text("#loading-detail")


def count_loads(page: Page) -> list[float]:
    """The times (monotonic) of the page's document loads from now on (a change of the
    address's fragment is none)."""
    loads: list[float] = []
    page.on("domcontentloaded", lambda _page: loads.append(time.monotonic()))
    return loads


def installed(browser: Browser, url: str) -> tuple[BrowserContext, Page]:
    """A context whose first visit left the worker in control, with a game in progress."""
    context = browser.new_context()
    page = context.new_page()
    page.goto(url + FAST)
    wait_ready(page)
    page.wait_for_function("navigator.serviceWorker.controller !== null", timeout=SW_TIMEOUT_MS)
    page.click("#btn-start")
    page.wait_for_selector("#screen-table:not([hidden])")
    before = page.evaluate("window.ludo.position()")
    page.click("#die")
    page.wait_for_function("prev => window.ludo.position() !== prev", arg=before)
    return context, page


@pytest.mark.parametrize(("rel", "how"), [
    ("py.zip", "replaced"),  # our modules: main.py cannot import them (an uncaught error)
    ("vendor/pyodide/pyodide.asm.wasm", "truncated"),  # Pyodide only warns, and waits forever
    ("vendor/pyodide/python_stdlib.zip", "truncated"),
    ("core", "truncated"),  # PyScript's core module: a syntax error
])
def test_a_damaged_file_is_fetched_again_and_the_page_reloads_into_the_game(
        browser: Browser, server_url: str, rel: str, how: str) -> None:
    rel = core_chunk() if rel == "core" else rel
    context, page = installed(browser, server_url)
    page.wait_for_timeout(500)  # the save after the roll
    saved = page.evaluate("window.ludo.position()")
    damage(page, server_url + rel, how)

    loads = count_loads(page)
    started = time.monotonic()
    page.reload()
    wait_ready(page, RECOVERY_TIMEOUT_MS)
    took = time.monotonic() - started
    # One reload by the test, one by the page once the worker had fetched the file again.
    assert len(loads) == 2, loads
    assert cached_sha256(page, server_url + rel) == sha256(ROOT / rel)
    assert page.evaluate("window.ludo.position()") == saved  # back in the saved game
    assert page.is_visible("#screen-table")
    # A silent stall waits out the boot watch's patience (10 s); an error is caught at once.
    assert took < (60 if rel.endswith(".wasm") else 45), took

    # Repaired for good: the next boot is a normal one, which checks nothing.
    page.reload()
    wait_ready(page)
    assert checks(page) == 0
    context.close()


def test_a_normal_boot_checks_nothing(browser: Browser, server_url: str) -> None:
    context, page = installed(browser, server_url)
    for _ in range(2):
        page.reload()
        wait_ready(page)
        assert checks(page) == 0
    context.close()


def test_offline_a_damaged_copy_says_so_and_coming_online_repairs_it(
        browser: Browser, server_url: str) -> None:
    context, page = installed(browser, server_url)
    page.wait_for_timeout(500)
    saved = page.evaluate("window.ludo.position()")
    damage(page, server_url + "py.zip", "truncated")

    context.set_offline(True)
    loads = count_loads(page)
    page.reload()
    page.wait_for_function(f"document.getElementById('loading-title').textContent"
                           f" === {OFFLINE_TITLE!r}", timeout=RECOVERY_TIMEOUT_MS)
    assert loading_card(page) == (OFFLINE_TITLE, OFFLINE_DETAIL)
    assert page.is_visible("#btn-boot-reload")
    assert page.is_hidden("#loading-spinner")
    page.wait_for_timeout(3000)
    assert len(loads) == 1  # no reload by itself: nothing to gain offline

    # Reload, still offline: the same, again once.
    with page.expect_navigation():
        page.click("#btn-boot-reload")
    page.wait_for_function(f"document.getElementById('loading-title').textContent"
                           f" === {OFFLINE_TITLE!r}", timeout=RECOVERY_TIMEOUT_MS)
    page.wait_for_timeout(2000)
    assert len(loads) == 2

    # Connected again: the page asks for the check again, the worker fetches the archive,
    # and the page starts over by itself, into the saved game.
    context.set_offline(False)
    wait_ready(page, RECOVERY_TIMEOUT_MS)
    assert len(loads) == 3
    assert cached_sha256(page, server_url + "py.zip") == sha256(ROOT / "py.zip")
    assert page.evaluate("window.ludo.position()") == saved

    # Repaired for good, offline too.
    context.set_offline(True)
    page.reload()
    wait_ready(page)
    assert checks(page) == 0
    context.close()


def test_a_tab_that_reloaded_once_by_itself_offers_reload_instead(
        browser: Browser, server_url: str) -> None:
    """Never a loop of reloads: a tab that already reloaded once for a repair (and failed
    again, e.g. a file damaged again at once) leaves the next reload to the player."""
    context, page = installed(browser, server_url)
    page.evaluate(f"sessionStorage.setItem({RELOADED_KEY!r}, '1')")
    damage(page, server_url + "py.zip", "replaced")
    loads = count_loads(page)
    page.reload()
    page.wait_for_function(f"document.getElementById('loading-title').textContent"
                           f" === {REPAIRED_TITLE!r}", timeout=RECOVERY_TIMEOUT_MS)
    assert loading_card(page) == (REPAIRED_TITLE, REPAIRED_DETAIL)
    page.wait_for_timeout(3000)
    assert len(loads) == 1
    with page.expect_navigation():
        page.click("#btn-boot-reload")
    wait_ready(page)
    assert len(loads) == 2
    context.close()


def test_a_damaged_file_the_server_cannot_replace_is_said_and_not_reloaded(
        browser: Browser, site: tuple[Path, str]) -> None:
    """The server answers with other bytes than this version's (a deployment going wrong):
    nothing can be repaired, so the page says so and waits for the player."""
    root, url = site
    context, page = installed(browser, url)
    archive = root / "py.zip"
    good = archive.read_bytes()
    damage(page, url + "py.zip", "replaced")
    archive.write_bytes(b"PK\x05\x06" + bytes(18))  # an empty zip: not this version's archive
    loads = count_loads(page)
    page.reload()
    page.wait_for_function("document.getElementById('loading-detail').textContent"
                           f" === {UNREPAIRED_DETAIL!r}", timeout=RECOVERY_TIMEOUT_MS)
    assert page.is_visible("#btn-boot-reload")
    page.wait_for_timeout(3000)
    assert len(loads) == 1

    archive.write_bytes(good)  # the server is right again: Reload repairs it
    with page.expect_navigation():
        page.click("#btn-boot-reload")
    wait_ready(page, RECOVERY_TIMEOUT_MS)
    assert cached_sha256(page, url + "py.zip") == hashlib.sha256(good).hexdigest()
    context.close()


def test_a_repair_that_failed_online_is_tried_again_by_itself(
        browser: Browser, site: tuple[Path, str]) -> None:
    """"Online" can come before the network carries anything, so a repair that failed online
    is tried again 2, 4 and 8 s later: once the server has the right bytes again, the page
    repairs its copy and starts into the saved game without the player's Reload."""
    root, url = site
    context, page = installed(browser, url)
    page.wait_for_timeout(500)  # the save after the roll
    saved = page.evaluate("window.ludo.position()")
    archive = root / "py.zip"
    good = archive.read_bytes()
    damage(page, url + "py.zip", "replaced")
    archive.write_bytes(b"PK\x05\x06" + bytes(18))  # the first repair fetches wrong bytes
    loads = count_loads(page)
    page.reload()
    page.wait_for_function("document.getElementById('loading-detail').textContent"
                           f" === {UNREPAIRED_DETAIL!r}", timeout=RECOVERY_TIMEOUT_MS)
    assert len(loads) == 1 and checks(page) == 1
    archive.write_bytes(good)  # the network carries the right file now: nobody reloads
    wait_ready(page, RECOVERY_TIMEOUT_MS)
    assert len(loads) == 2  # the test's reload and the page's own, after a later check
    assert cached_sha256(page, url + "py.zip") == hashlib.sha256(good).hexdigest()
    assert page.evaluate("window.ludo.position()") == saved
    context.close()


def test_a_damaged_page_is_replaced_as_it_is_served_or_explained_offline(
        browser: Browser, server_url: str) -> None:
    context, page = installed(browser, server_url)
    index = server_url + "index.html"
    damage(page, index, "truncated")
    page.reload()  # online: the network's copy, stored again
    wait_ready(page)
    assert checks(page) == 0
    wait_for_promise(page, f"() => ({SHA256_JS})([{cache_name(page)!r}, {index!r}])"
                           f".then((sha) => sha === {sha256(ROOT / 'index.html')!r})")

    damage(page, index, "truncated")
    context.set_offline(True)
    page.reload()
    assert DAMAGED_PAGE in page.inner_text("body")
    context.set_offline(False)
    with page.expect_navigation():
        page.click("a:text-is('Reload')")
    wait_ready(page)
    assert cached_sha256(page, index) == sha256(ROOT / "index.html")
    context.close()


def test_a_damaged_stylesheet_is_replaced_as_it_is_served_or_explained_offline(
        browser: Browser, server_url: str) -> None:
    context, page = installed(browser, server_url)
    css = server_url + "css/app.css"
    styled = "getComputedStyle(document.querySelector('.top')).position"
    expected = page.evaluate(styled)
    damage(page, css, "replaced")
    page.reload()  # online: the network's copy, stored again
    wait_ready(page)
    assert page.evaluate(styled) == expected
    wait_for_promise(page, f"() => ({SHA256_JS})([{cache_name(page)!r}, {css!r}])"
                           f".then((sha) => sha === {sha256(ROOT / 'css' / 'app.css')!r})")
    assert page.is_hidden("#update-banner")

    damage(page, css, "replaced")
    context.set_offline(True)
    page.reload()  # offline: the game starts, looking wrong, and the banner says why
    wait_ready(page)
    page.wait_for_selector("#update-banner:not([hidden])")
    assert page.inner_text("#update-text") == DAMAGED_STYLE
    context.close()


def test_a_damaged_file_of_an_old_version_gives_way_to_the_new_version(
        browser: Browser, site: tuple[Path, str]) -> None:
    """The cached archive is damaged and the server has moved on to a new version: the archive
    cannot be repaired, so the page takes the new version, which the browser installs as the
    page opens. The new version's install does not copy the damaged wasm from the old cache
    (the same file in both versions): it fetches it."""
    root, url = site
    context, page = installed(browser, url)
    old_version = sw_version(page)
    wasm = "vendor/pyodide/pyodide.asm.wasm"
    damage(page, url + "py.zip", "replaced")
    damage(page, url + wasm, "truncated")
    changed = root / "py" / "app" / "panel.py"
    changed.write_text(changed.read_text(encoding="utf-8") + "# new version\n", "utf-8")
    assert build_pybundle.write(root)
    assert build_sw.write(root, APP)
    new_version = build_sw.build_info(root, APP, build_sw.TEMPLATE.read_text())["version"]
    assert new_version != old_version

    loads = count_loads(page)
    page.reload()
    wait_ready(page, RECOVERY_TIMEOUT_MS)
    assert sw_version(page) == new_version
    assert len(loads) == 2
    assert cache_name(page) == f"{APP.name}-{new_version}@/"  # named after its scope
    assert cached_sha256(page, url + wasm) == sha256(root / wasm)
    record = page.evaluate("name => caches.open(name).then((c) => c.match('./__precache__.json'))"
                           ".then((r) => r.json())", cache_name(page))
    assert url + wasm in record["fetched"]
    context.close()


def test_an_update_without_room_found_before_python_listens_is_still_told(
        browser: Browser, site: tuple[Path, str]) -> None:
    """An update that fails for room while the page is still booting: the worker's
    INSTALL_FAILED used to arrive with nobody listening (pwa.py listens once the game is up).
    Chromium checks for an update as a page opens only after it has loaded (measured: about
    2.5 s after the game was ready, with the CPU slowed tenfold too), and that check's failure
    is told; so here the page asks for the check as it opens, as a browser may, and the new
    version is withdrawn before Chromium's own check, which then finds nothing new."""
    root, url = site
    context = browser.new_context()
    page, errors = page_with_quota(context, url, NO_ROOM_QUOTA)
    wait_ready(page)
    page.wait_for_function("navigator.serviceWorker.controller !== null", timeout=SW_TIMEOUT_MS)
    worker = root / "sw.js"
    current = worker.read_bytes()
    changed = root / "py" / "app" / "panel.py"
    changed.write_text(changed.read_text(encoding="utf-8") + "# new version\n", "utf-8")
    assert build_pybundle.write(root)
    assert build_sw.write(root, APP)

    page.add_init_script("""
        window.__installFailedAt = null;
        navigator.serviceWorker.addEventListener("message", (e) => {
            if (e.data.type === "INSTALL_FAILED") window.__installFailedAt = performance.now();
        });
        navigator.serviceWorker.getRegistration().then((r) => r.update());""")
    page.reload(wait_until="commit")
    page.wait_for_function("window.__installFailedAt !== null", timeout=SW_TIMEOUT_MS)
    worker.write_bytes(current)  # withdrawn
    wait_ready(page)
    failed_at = page.evaluate("window.__installFailedAt")
    python_at = page.evaluate("performance.getEntriesByName('ludo:python-start')[0].startTime")
    assert failed_at < python_at  # the case in point: told before Python could listen
    page.wait_for_timeout(5000)  # Chromium's own check has come and gone
    assert page.is_visible("#update-banner")
    assert page.inner_text("#update-text") == NO_ROOM_TEXT
    assert errors == []
    context.close()
