"""The vendored runtime boots a bare PyScript page from our own origin, cleanly."""

from __future__ import annotations

from playwright.sync_api import Page

BOOT_TIMEOUT_MS = 60_000  # a cold boot takes ~3.5 s here; CI machines can be much slower


def test_bare_page_boots_from_own_origin(page: Page, server_url: str) -> None:
    page.goto(server_url + "bench/bare/index.html")
    page.wait_for_selector('html[data-ready="1"]', state="attached", timeout=BOOT_TIMEOUT_MS)

    assert page.offsite_requests() == []
    assert page.console_errors == []
    assert page.failed_requests == []
    fetched = {url.removeprefix(server_url) for url in page.requests}
    # The runtime really came from vendor/, not from a cache or a CDN.
    assert "vendor/pyodide/pyodide.asm.wasm" in fetched
    assert "vendor/pyodide/python_stdlib.zip" in fetched
    assert "vendor/pyscript/core.js" in fetched
