"""Memory over a long session: one page plays whole games between computers, one after another.

    .venv/bin/python bench/memory.py [--games 10] [--rules courtyard] [--url http://127.0.0.1:8000/]

A player who keeps the tab open plays game after game without a reload, so whatever one game
leaves behind (DOM nodes, event listeners, JavaScript objects kept alive by Python proxies, and
Python objects in Pyodide's WebAssembly memory, which never shrinks) adds up. The page starts a
four-player game of Easy computers at full speed (`?auto_delay=0&pace_ms=0`), waits for the
winner, goes Home by the winner dialog's button and starts the next. After boot and after each
game, with a garbage collection forced first (DevTools' HeapProfiler.collectGarbage), it prints:
the page's DOM nodes and event listeners, the JavaScript heap in use (Performance.getMetrics),
and the resident memory of the page's renderer process (which holds Pyodide's memory). A leak
shows as a column that grows game after game; the first game's rise is start-up (the board and
the table screen drawn the first time). Without --url it starts its own server on a free port.
"""

from __future__ import annotations

import argparse
import sys
import time
from contextlib import ExitStack
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run as a script from anywhere: find this checkout's server/

from playwright.sync_api import CDPSession, Page, sync_playwright  # noqa: E402

from server.testing import CHROMIUM_ARGS, chromium_executable, running_server  # noqa: E402
from tools import build_pybundle  # noqa: E402

COLOURS = ("red", "green", "yellow", "blue")
GAME_TIMEOUT_MS = 600_000


def renderer_rss_bytes(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def renderer_pids() -> set[int]:
    """Chromium renderer processes on the machine now (a page's process, not the browser's)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            # Chromium rewrites a child's command line as one string (its process title)
            command = (entry / "cmdline").read_bytes()
        except OSError:
            continue  # ended meanwhile
        if b"chrom" in command.split(b" ")[0] and b" --type=renderer " in command:
            found.add(int(entry.name))
    return found


def start_game(page: Page, rules: str) -> None:
    page.wait_for_selector("#screen-home:not([hidden])")
    page.check(f'input[name="rules"][value="{rules}"]')
    page.check('input[name="players"][value="4"]')
    for colour in COLOURS:
        page.locator(f'input[name="seat"][value="{colour}"]').set_checked(True)
        page.select_option(f'[name="kind-{colour}"]', "easy")
    page.locator("#opt-timer").set_checked(False)
    page.click("#btn-start")
    page.wait_for_selector("#screen-table:not([hidden])")


def sample(page: Page, cdp: CDPSession, pid: int) -> dict[str, float]:
    cdp.send("HeapProfiler.collectGarbage")
    metrics = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
    return {"nodes": metrics["Nodes"], "listeners": metrics["JSEventListeners"],
            "js_heap_mb": metrics["JSHeapUsedSize"] / 1e6,
            "renderer_mb": renderer_rss_bytes(pid) / 1e6}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10, help="games to play in the one page")
    parser.add_argument("--rules", default="courtyard",
                        choices=("courtyard", "classic", "royal", "gilgiti"))
    parser.add_argument("--url", help="a running server (default: start one)")
    args = parser.parse_args()
    if not args.url:
        build_pybundle.refresh_site(ROOT)  # py/ as it is now (make bench does the same)
    with ExitStack() as stack:
        url = args.url or stack.enter_context(running_server(ROOT))
        playwright = stack.enter_context(sync_playwright())
        before = renderer_pids()
        browser = playwright.chromium.launch(executable_path=chromium_executable(),
                                             args=list(CHROMIUM_ARGS))
        context = browser.new_context(reduced_motion="reduce")
        page = context.new_page()
        page.goto(url + "?auto_delay=0&pace_ms=0#home")
        page.wait_for_selector('html[data-ready="1"]', state="attached", timeout=90_000)
        # The page's renderer is the largest of the renderers this browser started (Pyodide's
        # memory dwarfs the others: a service worker's, a spare one); another browser running
        # on the machine at the same time could be mistaken for it, so run this alone.
        pids = renderer_pids() - before
        if not pids:
            sys.exit("found no renderer process of this browser")
        pid = max(pids, key=renderer_rss_bytes)
        cdp = context.new_cdp_session(page)
        cdp.send("Performance.enable")
        print(f"{args.rules}: {args.games} games of 4 Easy computers in one page")
        print(f"{'after':8} {'seconds':>8} {'nodes':>7} {'listeners':>9} {'JS heap MB':>10}"
              f" {'renderer MB':>11}")

        def show(label: str, seconds: float) -> None:
            s = sample(page, cdp, pid)
            print(f"{label:8} {seconds:8.1f} {s['nodes']:7.0f} {s['listeners']:9.0f}"
                  f" {s['js_heap_mb']:10.1f} {s['renderer_mb']:11.1f}", flush=True)

        show("boot", 0.0)
        for game in range(1, args.games + 1):
            started = time.monotonic()
            start_game(page, args.rules)
            page.locator("#dlg-winner").wait_for(state="visible", timeout=GAME_TIMEOUT_MS)
            seconds = time.monotonic() - started
            page.click("#winner-home")
            show(f"game {game}", seconds)
        browser.close()


if __name__ == "__main__":
    main()
