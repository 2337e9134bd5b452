"""Boot-time benchmark: how long until Python is ready, for a bare PyScript page and the app.

    .venv/bin/python bench/boot.py [--runs 5] [--url http://127.0.0.1:8000/] [--json out.json]

"Ready" is the page's Python setting `html[data-ready="1"]`; the time is taken in the page (a
MutationObserver reads performance.now(), i.e. milliseconds since navigation start), so
Playwright's polling adds nothing. For each page:
- cold: a new browser context per run (empty HTTP and code caches, like a first visit);
- warm: one context, loaded once, then reloaded each run (cached files, revalidated with 304s).
Medians of --runs runs are printed, with the warm ratio app/bare (how much the app's own start-up
adds to the runtime's). Without --url it starts its own server on a free port.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import urllib.error
import urllib.request
from contextlib import ExitStack
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run as a script from anywhere: find this checkout's server/

from playwright.sync_api import Browser, Page, sync_playwright  # noqa: E402

from server.testing import CHROMIUM_ARGS, chromium_executable, running_server  # noqa: E402

PAGES = {"bare": "bench/bare/index.html", "app": "index.html"}
READY = 'html[data-ready="1"]'

# Records the moment the ready marker appears, before any Playwright round trip.
MARK_READY = """
(() => {
  const check = () => {
    const root = document.documentElement;
    if (window.__bootReadyAt === undefined && root && root.dataset.ready === "1") {
      window.__bootReadyAt = performance.now();
    }
  };
  new MutationObserver(check).observe(document, {
    attributes: true, subtree: true, childList: true, attributeFilter: ["data-ready"],
  });
  check();
})();
"""


class NotReady(Exception):
    """The page loaded but never set the ready marker in time."""


def page_exists(url: str) -> bool:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, method="HEAD"), timeout=10):
            return True
    except urllib.error.HTTPError as error:
        if error.code == 404:
            return False
        raise


def _ready_ms(page: Page, timeout_ms: float) -> float:
    try:
        page.wait_for_selector(READY, state="attached", timeout=timeout_ms)
    except Exception as error:  # Playwright's TimeoutError, or the page crashed
        raise NotReady(str(error).splitlines()[0]) from error
    return float(page.evaluate("window.__bootReadyAt ?? performance.now()"))


def cold_boots(browser: Browser, url: str, runs: int, timeout_ms: float) -> list[float]:
    times = []
    for _ in range(runs):
        context = browser.new_context()
        try:
            context.add_init_script(MARK_READY)
            page = context.new_page()
            page.goto(url, wait_until="commit")
            times.append(_ready_ms(page, timeout_ms))
        finally:
            context.close()
    return times


def warm_boots(browser: Browser, url: str, runs: int, timeout_ms: float) -> list[float]:
    context = browser.new_context()
    try:
        context.add_init_script(MARK_READY)
        page = context.new_page()
        page.goto(url, wait_until="commit")
        _ready_ms(page, timeout_ms)  # fills the caches; not counted
        times = []
        for _ in range(runs):
            page.reload(wait_until="commit")
            times.append(_ready_ms(page, timeout_ms))
        return times
    finally:
        context.close()


# Runs inside the page: time a synchronous click until the DOM shows its result, and until
# the next animation frame (when the browser can paint it).  Python handles the click
# synchronously, so the first figure is the app's own work.
_TIMED_CLICK_JS = """
async ([selector, index]) => {
  const el = document.querySelectorAll(selector)[index];
  const before = window.ludo.position();
  const t0 = performance.now();
  el.dispatchEvent(new MouseEvent("click", {bubbles: true}));
  const t1 = performance.now();
  await new Promise(r => requestAnimationFrame(() => r()));
  const t2 = performance.now();
  return {dom: t1 - t0, frame: t2 - t0, changed: window.ludo.position() !== before,
          highlighted: document.querySelectorAll("#board .token.movable").length};
}
"""


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def measure_latency(page: Page, runs: int) -> dict[str, float]:
    """Interaction latency on the app page, in ms (median and p95 of >= 20 samples each).

    - die click to the highlighted tokens shown (rolls that leave a choice of moves);
    - token click to the board updated, before any animation.
    A 2-player game with the timer off is driven through the real click handlers.
    """
    page.goto(page.url.split("?")[0].split("#")[0] + "?auto_delay=0#home")
    page.wait_for_selector(READY, state="attached")
    page.locator("#opt-timer").set_checked(False)
    page.click("#btn-start")
    page.wait_for_selector("#screen-table:not([hidden])")
    samples = max(20, runs)
    roll: list[float] = []
    roll_frame: list[float] = []
    move: list[float] = []
    move_frame: list[float] = []
    for _ in range(samples * 40):
        if len(roll) >= samples and len(move) >= samples:
            break
        state = json.loads(page.evaluate("window.ludo.position()"))
        if state["phase"] == "over":
            page.click("#winner-rematch")
            continue
        if state["phase"] == "roll":
            result = page.evaluate(_TIMED_CLICK_JS, ["#die", 0])
            if result["highlighted"] > 1:  # a choice: the highlights are what we time
                roll.append(result["dom"])
                roll_frame.append(result["frame"])
        elif page.locator("#board .token.movable").count() > 1:
            result = page.evaluate(_TIMED_CLICK_JS, ["#board .token.movable", 0])
            move.append(result["dom"])
            move_frame.append(result["frame"])
        else:
            page.wait_for_timeout(5)  # an automatic move is about to play
    figures: dict[str, float] = {"samples_roll": len(roll), "samples_move": len(move)}
    for name, values in (("roll_to_highlights", roll), ("roll_to_next_frame", roll_frame),
                         ("move_to_board", move), ("move_to_next_frame", move_frame)):
        if values:
            figures[f"{name}_median_ms"] = round(statistics.median(values), 2)
            figures[f"{name}_p95_ms"] = round(_percentile(values, 0.95), 2)
    return figures


def bench_page(browser: Browser, url: str, runs: int, timeout_ms: float) -> dict[str, object]:
    if not page_exists(url):
        return {"status": "missing"}
    try:
        # One untimed visit first, so the server's gzip cache is warm for every timed run.
        cold_boots(browser, url, 1, timeout_ms)
        cold = cold_boots(browser, url, runs, timeout_ms)
        warm = warm_boots(browser, url, runs, timeout_ms)
    except NotReady as error:
        return {"status": "not ready", "error": str(error)}
    return {
        "status": "ok",
        "cold_ms": statistics.median(cold),
        "warm_ms": statistics.median(warm),
        "cold_runs": cold,
        "warm_runs": warm,
    }


def run(base_url: str, runs: int, timeout_ms: float, latency: bool) -> dict[str, object]:
    results: dict[str, object] = {"runs": runs}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=chromium_executable(), args=list(CHROMIUM_ARGS)
        )
        try:
            for name, path in PAGES.items():
                results[name] = bench_page(browser, base_url + path, runs, timeout_ms)
            if latency:
                results["latency"] = latency_results(
                    browser, base_url + PAGES["app"], runs, timeout_ms, results["app"]
                )
        finally:
            browser.close()
    bare, app = results["bare"], results["app"]
    if bare["status"] == app["status"] == "ok":
        results["warm_ratio_app_bare"] = app["warm_ms"] / bare["warm_ms"]
    return results


def latency_results(
    browser: Browser, url: str, runs: int, timeout_ms: float, app: dict[str, object]
) -> dict[str, object]:
    if app["status"] != "ok":
        return {"status": f"app {app['status']}"}
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(url)
        page.wait_for_selector(READY, state="attached", timeout=timeout_ms)
        return {"status": "ok", **measure_latency(page, runs)}
    except NotImplementedError as error:
        return {"status": "not implemented", "error": str(error)}
    finally:
        context.close()


def report(results: dict[str, object]) -> str:
    lines = [
        f"Boot to {READY}: medians of {results['runs']} runs, ms since navigation start",
        f"{'page':<6} {'cold':>8} {'warm':>8}",
    ]
    for name in PAGES:
        entry = results[name]
        if entry["status"] == "ok":
            lines.append(f"{name:<6} {entry['cold_ms']:>8.0f} {entry['warm_ms']:>8.0f}")
        else:
            detail = f" ({entry['error']})" if "error" in entry else ""
            lines.append(f"{name:<6} {entry['status']}{detail}")
    ratio = results.get("warm_ratio_app_bare")
    lines.append(f"warm ratio app/bare: {ratio:.2f}" if ratio else "warm ratio app/bare: n/a")
    if "latency" in results:
        lines.append(f"latency: {results['latency']}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="PyScript boot-time benchmark.")
    parser.add_argument("--runs", type=int, default=5, help="runs per measurement (default 5)")
    parser.add_argument("--url", help="base URL of a running server (default: start one)")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds to wait for ready")
    parser.add_argument("--json", type=Path, help="also write the results here as JSON")
    parser.add_argument(
        "--latency",
        action="store_true",
        help="also measure interaction latency on the app (measure_latency)",
    )
    args = parser.parse_args(argv)

    with ExitStack() as stack:
        base_url = args.url or stack.enter_context(running_server(ROOT))
        if not base_url.endswith("/"):
            base_url += "/"
        results = run(base_url, args.runs, args.timeout * 1000, args.latency)
    print(report(results))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
