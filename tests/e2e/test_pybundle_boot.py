"""The page's Python modules come in one archive, py.zip (tools/build_pybundle.py).

- One request for them (and py/main.py's own), not one per module.
- The page runs their bytecode as shipped: a module whose source in the archive is broken but
  whose .pyc is intact still imports (the .pyc is used unchecked, never compiled again from
  source); and a traceback still shows the source line, read from the .py beside it.
- An edited module reaches the page once the archive is rebuilt (and build_pybundle's check
  says it is stale before that).
Offline boots from the archive are tests/e2e/test_offline.py's.
"""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page
from test_snapshot import assert_playable

from tools import build_pybundle, build_sw

ROOT = Path(__file__).resolve().parents[2]
BOOT_TIMEOUT_MS = 60_000
READY = 'html[data-ready="1"]'
FAST = "?auto_delay=0&pace_ms=0"


def wait_ready(page: Page) -> None:
    page.wait_for_selector(READY, state="attached", timeout=BOOT_TIMEOUT_MS)


def test_the_page_gets_its_modules_in_one_request(page: Page, server_url: str) -> None:
    page.goto(server_url + FAST)
    wait_ready(page)
    python = [url for url in page.requests
              if url.endswith((".py", ".pyc")) or "/py/" in url or "/vendor/segno/" in url
              or url.startswith(server_url + "py.zip")]
    assert sorted(python) == [server_url + "py.zip", server_url + "py/main.py"]
    assert not page.failed_requests


def _archive_with(replaced: dict[str, bytes]) -> bytes:
    """Today's py.zip with some members' bytes replaced."""
    out = io.BytesIO()
    with zipfile.ZipFile(ROOT / "py.zip") as source, zipfile.ZipFile(out, "w") as archive:
        for info in source.infolist():
            archive.writestr(info, replaced.get(info.filename, source.read(info.filename)))
    return out.getvalue()


def test_the_page_runs_the_shipped_bytecode_and_tracebacks_show_the_source(
        browser: Browser, server_url: str) -> None:
    with zipfile.ZipFile(ROOT / "py.zip") as archive:
        if not any(name.endswith(".pyc") for name in archive.namelist()):
            pytest.skip("py.zip holds no bytecode (built without node)")
    # Compiling this source would fail the page's import of the rules engine at once.
    broken = _archive_with({"ludo/geometry.py": b"raise ImportError('compiled from source')\n"})
    context = browser.new_context(service_workers="block")
    try:
        context.route(server_url + "py.zip", lambda route: route.fulfill(
            status=200, body=broken, headers={"Content-Type": "application/zip"}))
        page = context.new_page()
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.goto(server_url + FAST)
        wait_ready(page)
        assert_playable(page)
        assert not errors
    finally:
        context.close()


@pytest.mark.faults_expected
def test_a_traceback_from_bytecode_shows_the_source_lines(page: Page,
                                                         server_url: str) -> None:
    page.goto(server_url + FAST)
    wait_ready(page)
    page.goto(server_url + FAST + "#home")
    page.wait_for_selector("#screen-home:not([hidden])")
    page.click("#btn-start")
    page.wait_for_selector("#screen-table:not([hidden])")
    page.evaluate("Date.now = () => 'not a time'")  # the die's handler fails (test_app_play)
    page.click("#die")
    page.locator("#fault-banner").wait_for(state="visible")
    traceback = next(e for e in page.console_errors if "unexpected error" in e)
    # (the modules' paths are inside the archive, which the page imports from)
    frames = re.findall(r'File "/home/pyodide/py\.zip/((?:app|ludo|net)/[^"]+\.py)", line (\d+),'
                        r" in \S+\n +(\S[^\n]*)", traceback)
    assert frames, traceback
    for module, line, shown in frames:
        source = (ROOT / "py" / module).read_text(encoding="utf-8").splitlines()
        assert source[int(line) - 1].strip() == shown.strip(), (module, line)


def test_an_edited_module_reaches_the_page_after_the_rebuild(
        browser: Browser, site: tuple[Path, str]) -> None:
    root, url = site
    app = root / "py" / "app" / "__init__.py"
    app.write_text(app.read_text(encoding="utf-8")
                   + "\nimport js\njs.document.documentElement.dataset.edited = 'yes'\n",
                   encoding="utf-8")
    assert build_pybundle.main(["--root", str(root), "--check"]) == 1  # stale: says so
    assert build_pybundle.write(root)
    build_sw.write(root)
    context = browser.new_context(service_workers="block")
    try:
        page = context.new_page()
        page.goto(url + FAST)
        wait_ready(page)
        assert page.get_attribute("html", "data-edited") == "yes"
    finally:
        context.close()
