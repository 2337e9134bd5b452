"""Hostile entries in the service worker's cache, and hostile messages to the worker (hostile 5).

Cache Storage belongs to the origin: any script of the origin (another app on the same static
host's origin, an extension's content script, a page of an older version) can put entries
into the game's cache, and any page of the origin can post messages to its worker. The
worker checks the bodies of what it serves (tests/e2e/test_damaged_cache.py), but served the
stored headers as they were: an intact index.html stored with a `Content-Security-Policy:
script-src 'none'` header, or an intact module stored as `text/plain`, kept the game from
starting at every visit, online too, and the boot watch's check found every file "intact".
Now the worker serves its precached files with status 200 and the Content-Type their name calls
for (`asServed` in tools/sw_template.js, `TYPES` in tools/build_sw.py), whatever the stored
copy says. Other stored headers are served as stored: the worker cannot tell a deployment's
Content-Security-Policy from a hostile one (an intact index.html stored with `script-src
'none'` still stops the game; a script of the origin can do worse, such as store other code
for a module that is not checked as served: see the report of hostile 5).
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page
from test_damaged_cache import (
    APP,
    BOOT_TIMEOUT_MS,
    SW_TIMEOUT_MS,
    cache_name,
    core_chunk,
    installed,
    wait_ready,
)
from test_offline import sw_version

from tools import build_pybundle, build_sw

# Stores the cached copy of `url` again, body intact, with other headers.
REHEADER_JS = """async ([name, url, headers, status]) => {
    const cache = await caches.open(name);
    const hit = await cache.match(url);
    await cache.put(url, new Response(await hit.arrayBuffer(), {headers, status}));
}"""


@pytest.mark.parametrize(("rel", "headers", "status"), [
    ("index.html", {"Content-Type": "text/plain"}, 200),  # shown as text
    ("index.html", {"Content-Type": "text/html; charset=utf-16"}, 200),  # read as another text
    ("core", {"Content-Type": "text/plain"}, 200),  # a module: refused under strict MIME checks
    ("vendor/pyodide/pyodide.mjs", {"Content-Type": "image/png"}, 200),
    ("core", {"Content-Type": "text/javascript"}, 404),  # a module that failed to load
], ids=["page-as-text", "page-in-utf16", "module-as-text", "runtime-as-image", "module-404"])
def test_an_intact_file_stored_with_a_wrong_type_does_not_stop_the_game(
        browser: Browser, server_url: str, rel: str, headers: dict[str, str],
        status: int) -> None:
    rel = core_chunk() if rel == "core" else rel
    context, page = installed(browser, server_url)
    page.evaluate(REHEADER_JS, [cache_name(page), server_url + rel, headers, status])
    for offline in (False, True):
        context.set_offline(offline)
        page.reload()
        wait_ready(page, BOOT_TIMEOUT_MS)  # before: never (the page or its module refused)
        assert page.is_visible("#screen-table")
    context.close()


def test_a_flood_of_check_messages_is_answered_by_one_check(
        browser: Browser, server_url: str) -> None:
    """200 CHECK_ALL messages at once (any page of the origin may post them): each used to run
    its own check of all 38 files, 200 at a time, each reading and hashing every file (the
    runtime's 10 MB wasm among them); now one check runs and every asker gets its answer."""
    context, page = installed(browser, server_url)
    started = time.monotonic()
    answers = page.evaluate("""() => {
        const sw = navigator.serviceWorker.controller;
        const asks = [];
        for (let i = 0; i < 200; i++) {
            const channel = new MessageChannel();
            asks.push(new Promise((resolve) => {
                channel.port1.onmessage = (e) => resolve(e.data);
            }));
            sw.postMessage({type: "CHECK_ALL"}, [channel.port2]);
        }
        for (const junk of [null, 1, "CHECK_ALL", {type: "CHECK"}, {type: "CHECK", url: {}},
                            {type: {toString: 1}}, {type: "VERSION"}, []]) {
            sw.postMessage(junk);
        }
        return Promise.all(asks).then((all) => all.map((a) => JSON.stringify(a)));
    }""")
    print(f"200 CHECK_ALL answered in {time.monotonic() - started:.1f} s")
    assert set(answers) == {'{"repaired":[],"damaged":[]}'}, set(answers)
    page.reload()
    wait_ready(page)
    assert page.is_visible("#screen-table")
    context.close()


@pytest.mark.parametrize("manifest", ["not json{", '{"files": null}'],
                         ids=["not-json", "files-null"])
def test_a_damaged_precache_record_does_not_keep_the_next_version_out(
        browser: Browser, site: tuple[Path, str], manifest: str) -> None:
    """The record the worker keeps in its cache (__precache__.json, which files of which
    version it holds) is read by the next version's install, to copy the unchanged files. A
    record that is not what the worker writes (damaged, or written by another script of the
    origin) made that install throw, every time: the game stayed on its old version for good,
    and the broken record was never deleted (only an activation deletes old caches). Now such
    a cache is skipped: its files are fetched instead."""
    root, url = site
    context, page = installed(browser, url)
    old_version = sw_version(page)
    page.evaluate("""async ([name, url, text]) => {
        const cache = await caches.open(name);
        await cache.put(url, new Response(text, {headers: {"Content-Type": "application/json"}}));
    }""", [cache_name(page), url + "__precache__.json", manifest])
    changed = root / "py" / "app" / "panel.py"
    changed.write_text(changed.read_text(encoding="utf-8") + "# new version\n", "utf-8")
    assert build_pybundle.write(root)
    assert build_sw.write(root, APP)
    new_version = build_sw.build_info(root, APP, build_sw.TEMPLATE.read_text())["version"]
    assert new_version != old_version
    page.evaluate("navigator.serviceWorker.getRegistration().then((r) => r.update())"
                  ".catch(() => null)")
    wait_waiting(page)  # installed, waiting for the page's "Update available" (pwa.py)
    context.close()


def wait_waiting(page: Page) -> None:
    """Until the registration holds a new version waiting (installed); fails on a failed one."""
    deadline = time.monotonic() + SW_TIMEOUT_MS / 1000
    while not page.evaluate("navigator.serviceWorker.getRegistration()"
                            ".then((r) => r !== undefined && r.waiting !== null)"):
        assert time.monotonic() < deadline, "no new version installed"
        page.wait_for_timeout(200)
