"""Pages start Pyodide from the memory snapshot that tools/vendor.py made in Node
(vendor/pyodide/boot.mjs), and boot the ordinary way, without a fault, when it cannot be used.

- The app boots from the snapshot: it is fetched, and nothing says it was passed over.
- An interpreter started from it works like a fresh one: our packages, the `js` module and
  pyodide.ffi, the standard library; each page gets its own `random` seed, its own
  os.urandom/secrets bytes, and one "" on sys.path.
- The inflated snapshot is not kept once it is restored (memory).
- Missing (404), damaged (truncated, a flipped byte), or from another Pyodide build (a snapshot
  whose build id differs, with boot.mjs's integrity hash matching it, so that Pyodide's own
  check is what refuses it): the page still boots to ready, plays, and reports no fault.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
from pathlib import Path

import pytest
from playwright.sync_api import Page, Route

from tools import vendor

ROOT = Path(__file__).resolve().parents[2]
PYODIDE = ROOT / "vendor" / "pyodide"
SNAPSHOT = PYODIDE / "pyodide-snapshot.bin"
BOOT_TIMEOUT_MS = 60_000
NOT_USED = "Pyodide snapshot not used"
BUILD_ID_BYTES = slice(16, 48)  # Pyodide's snapshot header: magic, offsets, then the build id

pytestmark = pytest.mark.skipif(not SNAPSHOT.is_file(),
                                reason="no snapshot: tools/vendor.py could not run Node")


def boot(page: Page, url: str) -> list[str]:
    """Open the app, wait until it is ready; returns the console's warnings."""
    warnings: list[str] = []
    page.on("console", lambda m: warnings.append(m.text) if m.type == "warning" else None)
    page.goto(url + "?auto_delay=0")
    page.wait_for_selector('html[data-ready="1"]', state="attached", timeout=BOOT_TIMEOUT_MS)
    return warnings


def assert_playable(page: Page) -> None:
    """A game starts and a die rolls: the app's Python is really running."""
    page.goto(page.url.split("#")[0] + "#home")
    page.wait_for_selector("#screen-home:not([hidden])")
    page.click("#btn-start")
    page.wait_for_selector("#screen-table:not([hidden])")
    before = page.evaluate("window.ludo.position()")
    page.click("#die")
    page.wait_for_function("prev => window.ludo.position() !== prev", arg=before,
                           timeout=10_000)


def test_app_boots_from_the_snapshot(page: Page, server_url: str) -> None:
    warnings = boot(page, server_url)

    assert server_url + "vendor/pyodide/pyodide-snapshot.bin" in page.requests
    assert not [w for w in warnings if NOT_USED in w]
    assert page.console_errors == []
    assert page.failed_requests == []
    assert_playable(page)


def test_interpreter_from_the_snapshot_works_like_a_fresh_one(page: Page, server_url: str) -> None:
    page.goto(server_url + "manifest.webmanifest")  # same origin, no app booting beside it
    warnings: list[str] = []
    page.on("console", lambda m: warnings.append(m.text) if m.type == "warning" else None)
    results = page.evaluate(
        """async () => {
            const { loadPyodide } = await import("/vendor/pyodide/boot.mjs");
            const results = [];
            for (let i = 0; i < 2; i++) {
                const pyodide = await loadPyodide({ indexURL: "/vendor/pyodide/" });
                pyodide.FS.mkdirTree("/home/pyodide/probe_pkg");
                pyodide.FS.writeFile("/home/pyodide/probe_pkg/__init__.py", "VALUE = 42\\n");
                results.push(pyodide.runPython(`
import hashlib, json, os, random, secrets, sys, time
import js
from pyodide.ffi import create_proxy, to_js
import probe_pkg
clicks = []
button = js.document.createElement("button")
handler = create_proxy(lambda event: clicks.append(event.type))
button.addEventListener("click", handler)
button.click()
json.dumps({
    "random": random.random(),
    "urandom": os.urandom(8).hex(),
    "token": secrets.token_hex(8),
    "empty_on_path": sys.path.count(""),
    "sha": hashlib.sha256(b"ludo").hexdigest()[:12],
    "clicks": clicks,
    "probe": probe_pkg.VALUE,
    "to_js": js.Array.isArray(to_js([1, 2])),
    "clock_skew": abs(time.time() - js.Date.now() / 1000),
})
`));
            }
            return results;
        }"""
    )
    first, second = (json.loads(r) for r in results)
    assert first["random"] != second["random"]  # reseeded, not the seed frozen in the snapshot
    # Room ids and host keys (py/net) come from the browser's crypto, never from the snapshot.
    assert first["urandom"] != second["urandom"]
    assert first["token"] != second["token"]
    for result in (first, second):
        assert result["empty_on_path"] == 1
        assert result["sha"] == hashlib.sha256(b"ludo").hexdigest()[:12]
        assert result["clicks"] == ["click"]
        assert result["probe"] == 42
        assert result["to_js"] is True
        assert result["clock_skew"] < 5
    assert not [w for w in warnings if NOT_USED in w]  # both really came from the snapshot
    # (The only request that fails here is the browser's own /favicon.ico, for the manifest page.)


def test_the_inflated_snapshot_is_freed_once_restored(page: Page, server_url: str) -> None:
    """The restore copies the 31.5 MB snapshot into wasm memory; the page must not also keep
    the inflated buffer (Pyodide keeps its options, the snapshot promise among them, for the
    page's life): kept, a page booted from it held 35.3 MB of ArrayBuffers after garbage
    collection, against 3.8 MB for a page booted without the snapshot."""
    page.goto(server_url + "manifest.webmanifest")  # same origin, no app booting beside it
    warnings: list[str] = []
    page.on("console", lambda m: warnings.append(m.text) if m.type == "warning" else None)
    cdp = page.context.new_cdp_session(page)
    cdp.send("HeapProfiler.enable")
    wasm_bytes = page.evaluate(
        """async () => {
            const { loadPyodide } = await import("/vendor/pyodide/boot.mjs");
            window.pyodide = await loadPyodide({ indexURL: "/vendor/pyodide/" });
            window.pyodide.runPython("import json");
            return window.pyodide._module.HEAP8.byteLength;
        }"""
    )
    page.wait_for_timeout(200)
    for _ in range(3):
        cdp.send("HeapProfiler.collectGarbage")
    usage = cdp.send("Runtime.getHeapUsage")
    if "backingStorageSize" not in usage:
        pytest.skip("this Chromium does not report ArrayBuffer memory (Runtime.getHeapUsage)")
    assert not [w for w in warnings if NOT_USED in w]
    assert wasm_bytes >= 30_000_000  # Python's memory: the snapshot's size
    assert usage["backingStorageSize"] < wasm_bytes / 2, usage


def _foreign_build(snapshot: bytes) -> bytes:
    """The (packed, gzipped) snapshot as if made by another Pyodide build: its build id
    changed."""
    data = bytearray(vendor.unpack_snapshot(gzip.decompress(snapshot)))
    data[BUILD_ID_BYTES] = bytes(b ^ 0xFF for b in data[BUILD_ID_BYTES])
    return gzip.compress(vendor.pack_snapshot(bytes(data)), compresslevel=1)


def _integrity(body: bytes) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(body).digest()).decode()


@pytest.mark.parametrize("case", ["missing", "truncated", "flipped_byte", "other_build"])
def test_page_boots_without_fault_when_snapshot_unusable(page: Page, server_url: str,
                                                         case: str) -> None:
    snapshot = SNAPSHOT.read_bytes()
    if case == "other_build":
        body = _foreign_build(snapshot)
        boot_module = (PYODIDE / "boot.mjs").read_text(encoding="utf-8")
        boot_module = boot_module.replace(_integrity(snapshot), _integrity(body))
        assert _integrity(body) in boot_module
        page.route("**/vendor/pyodide/boot.mjs", lambda route: route.fulfill(
            body=boot_module, content_type="text/javascript"))
    else:
        body = {"missing": b"", "truncated": snapshot[: len(snapshot) // 2],
                "flipped_byte": snapshot[:-1000] + bytes([snapshot[-1000] ^ 1]) + snapshot[-999:]
                }[case]

    def serve_snapshot(route: Route) -> None:
        if case == "missing":
            route.fulfill(status=404, body="not found")
        else:
            route.fulfill(body=body, content_type="application/octet-stream")

    page.route("**/vendor/pyodide/pyodide-snapshot.bin", serve_snapshot)
    warnings = boot(page, server_url)

    assert [w for w in warnings if NOT_USED in w], warnings
    # The failed fetch is handled: no uncaught rejection, no page error (a 404 or a failed
    # integrity check still makes Chromium log its own "Failed to load resource" line).
    assert not [e for e in page.console_errors if "Uncaught" in e or e.startswith("pageerror")]
    if case == "other_build":
        assert any("build id mismatch" in w for w in warnings), warnings
    assert_playable(page)
