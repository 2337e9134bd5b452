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

import pytest
from playwright.sync_api import Browser
from test_damaged_cache import (
    BOOT_TIMEOUT_MS,
    cache_name,
    core_chunk,
    installed,
    wait_ready,
)

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
