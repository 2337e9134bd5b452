"""The Pyodide snapshot (vendor/pyodide/pyodide-snapshot.bin) in the service worker's cache.

boot.mjs fetches the snapshot with Subresource Integrity and boots the ordinary, slower way
when the bytes are wrong. The worker answers that fetch from its cache, so a damaged or lost
copy there would make every later boot the slow one, offline and online, for as long as that
version of the app lives (and the next version copies it when the snapshot is unchanged).

- A truncated copy in Cache Storage: offline, the page still boots (the ordinary way, no
  fault); back online, the worker fetches the snapshot again after serving the damaged copy,
  so the boots after that one use the snapshot, offline too.
- A copy gone from the cache: the next online boot puts it back, so offline boots use it.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page

from tools import build_sw

ROOT = Path(__file__).resolve().parents[2]
SNAPSHOT_REL = "vendor/pyodide/pyodide-snapshot.bin"
BOOT_TIMEOUT_MS = 60_000
SW_TIMEOUT_MS = 60_000
NOT_USED = "Pyodide snapshot not used"
FAST = "?auto_delay=0"
APP = build_sw.TARGETS["app"]

pytestmark = pytest.mark.skipif(not (ROOT / SNAPSHOT_REL).is_file(),
                                reason="no snapshot: tools/vendor.py could not run Node")


def boot(page: Page, url: str, *, reload: bool = False) -> list[str]:
    """Open (or reload) the app and wait until it is ready; returns this boot's warnings."""
    warnings: list[str] = []

    def note(message) -> None:  # noqa: ANN001 - a Playwright ConsoleMessage
        if message.type == "warning":
            warnings.append(message.text)

    page.on("console", note)
    if reload:
        page.reload()
    else:
        page.goto(url + FAST)
    page.wait_for_selector('html[data-ready="1"]', state="attached", timeout=BOOT_TIMEOUT_MS)
    page.remove_listener("console", note)
    return warnings


def fell_back(warnings: list[str]) -> bool:
    return any(NOT_USED in w for w in warnings)


def cache_name(page: Page) -> str:
    names = page.evaluate("caches.keys()")
    assert len(names) == 1 and names[0].startswith(APP.name + "-"), names
    return names[0]


def cached_sha256(page: Page, url: str) -> str | None:
    """The SHA-256 (hex) of the worker's cached copy of `url`, or None when there is none."""
    return page.evaluate(
        """async ([name, url]) => {
            const hit = await (await caches.open(name)).match(url);
            if (!hit) return null;
            const digest = await crypto.subtle.digest("SHA-256", await hit.arrayBuffer());
            const hex = (byte) => byte.toString(16).padStart(2, "0");
            return Array.from(new Uint8Array(digest), hex).join("");
        }""",
        [cache_name(page), url],
    )


def wait_cached(page: Page, url: str, sha: str, timeout_s: float = 20) -> None:
    """Wait until the worker's cached copy of `url` has the SHA-256 `sha` (the worker stores
    it after answering)."""
    for _ in range(int(timeout_s * 4)):
        if cached_sha256(page, url) == sha:
            return
        page.wait_for_timeout(250)
    raise AssertionError(f"the cache never held the right {url}: {cached_sha256(page, url)}")


def installed(browser: Browser, url: str) -> tuple[BrowserContext, Page]:
    """A context whose first visit left the worker in control, having booted from the
    snapshot."""
    context = browser.new_context()
    page = context.new_page()
    assert not fell_back(boot(page, url))
    page.wait_for_function("navigator.serviceWorker.controller !== null", timeout=SW_TIMEOUT_MS)
    return context, page


def test_a_damaged_snapshot_in_the_cache_is_repaired_at_the_next_online_boot(
        browser: Browser, site: tuple[Path, str]) -> None:
    root, url = site
    snapshot_url = url + SNAPSHOT_REL
    good = hashlib.sha256((root / SNAPSHOT_REL).read_bytes()).hexdigest()
    context, page = installed(browser, url)
    assert cached_sha256(page, snapshot_url) == good
    # An interrupted write, a full disk: the cached copy is cut in half.
    page.evaluate(
        """async ([name, url]) => {
            const cache = await caches.open(name);
            const hit = await cache.match(url);
            const bytes = await hit.arrayBuffer();
            await cache.put(url, new Response(bytes.slice(0, bytes.byteLength >> 1),
                                              {headers: hit.headers}));
        }""",
        [cache_name(page), snapshot_url],
    )
    assert cached_sha256(page, snapshot_url) != good

    context.set_offline(True)
    assert fell_back(boot(page, url, reload=True))  # still boots, the ordinary way
    assert page.is_visible("#net-status")

    # Online, this boot still gets the damaged copy and falls back; it tells the worker, which
    # fetches the snapshot again, so the boots after it use the snapshot, offline too.
    context.set_offline(False)
    boot(page, url, reload=True)
    wait_cached(page, snapshot_url, good)
    context.set_offline(True)
    assert not fell_back(boot(page, url, reload=True))


def test_a_snapshot_gone_from_the_cache_is_stored_again(
        browser: Browser, site: tuple[Path, str]) -> None:
    root, url = site
    snapshot_url = url + SNAPSHOT_REL
    context, page = installed(browser, url)
    assert page.evaluate("([name, url]) => caches.open(name).then(c => c.delete(url))",
                         [cache_name(page), snapshot_url])
    assert not fell_back(boot(page, url, reload=True))  # from the network
    wait_cached(page, snapshot_url, hashlib.sha256((root / SNAPSHOT_REL).read_bytes()).hexdigest())
    context.set_offline(True)
    assert not fell_back(boot(page, url, reload=True))
