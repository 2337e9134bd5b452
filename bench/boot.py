"""Boot-time benchmark: how long until Python is ready, for a bare PyScript page and the app.

    .venv/bin/python bench/boot.py [--runs 5] [--url http://127.0.0.1:8000/] [--json out.json]

"Ready" is the page's Python setting `html[data-ready="1"]`; the time is taken in the page (a
MutationObserver reads performance.now(), i.e. milliseconds since navigation start), so
Playwright's polling adds nothing. For each page:
- cold: a new browser context per run (empty HTTP and code caches, like a first visit);
- warm: one context, loaded once, then reloaded each run (cached files, revalidated with 304s).
Both run with service workers blocked, so they measure the HTTP cache alone.
- sw: one context in which the page's service worker (the app registers ./sw.js by itself
  after boot; the bench registers bench/bare/sw.js, built from the same template by
  tools/build_sw.py, on the bare page) took control, then reloaded each run: the warm start
  served by the worker. Also measured: the bytes that still went over the network per reload
  (target 0), the first visit's install (ready to controlled, and what it downloaded), and
  the Cache Storage it fills (bytes of the cached bodies, and the browser's own estimate).
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

from playwright.sync_api import (  # noqa: E402
    Browser,
    BrowserContext,
    Page,
    Request,
    sync_playwright,
)

from server.testing import CHROMIUM_ARGS, chromium_executable, running_server  # noqa: E402
from tools import build_pybundle, build_sw  # noqa: E402

PAGES = {"bare": "bench/bare/index.html", "app": "index.html"}
# The service worker each page gets (tools/build_sw.py targets); the bare page is registered
# by the bench, the app registers its own.
SW_TARGETS = {"bare": build_sw.TARGETS["bare"], "app": build_sw.TARGETS["app"]}
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


# The app's own share of a boot, from the performance marks py/main.py sets: Python's imports
# (start to imported) and the controller's boot (imported to booted, which draws the page).
# Also, from Resource Timing, the fetches of the Python modules PyScript writes before main.py
# runs ([files] in pyscript.toml: the .py files, or the one archive): how many, and from the
# first one's start to the last one's end ("files"); and when main.py began ("python_start",
# ms since navigation start), which is after PyScript wrote them all and ran its bootstrap.
_MARKS_JS = """
() => {
  const at = name => (performance.getEntriesByName(name)[0] || {}).startTime;
  const start = at('ludo:python-start'), imported = at('ludo:imported'), booted = at('ludo:booted');
  if (start === undefined || booted === undefined) return null;
  const modules = performance.getEntriesByType('resource').filter(e =>
    /\\/(py|vendor\\/segno)\\/.+\\.py$|\\.zip$/.test(e.name)
    && !/main\\.py$|python_stdlib/.test(e.name));
  const first = Math.min(...modules.map(e => e.startTime));
  const last = Math.max(...modules.map(e => e.responseEnd));
  return {imports: imported - start, boot: booted - imported, python_start: start,
          files: modules.length ? last - first : 0, file_requests: modules.length,
          after_files: modules.length ? start - last : 0};
}
"""



def cold_boots(browser: Browser, url: str, runs: int, timeout_ms: float,
               marks: list[dict[str, float]] | None = None) -> list[float]:
    times = []
    for _ in range(runs):
        context = browser.new_context(service_workers="block")
        try:
            context.add_init_script(MARK_READY)
            page = context.new_page()
            page.goto(url, wait_until="commit")
            times.append(_ready_ms(page, timeout_ms))
            found = page.evaluate(_MARKS_JS)
            if marks is not None and found:
                marks.append(found)
        finally:
            context.close()
    return times



def warm_boots(browser: Browser, url: str, runs: int, timeout_ms: float,
               marks: list[dict[str, float]] | None = None) -> list[float]:
    context = browser.new_context(service_workers="block")
    try:
        context.add_init_script(MARK_READY)
        page = context.new_page()
        page.goto(url, wait_until="commit")
        _ready_ms(page, timeout_ms)  # fills the caches; not counted
        times = []
        for _ in range(runs):
            page.reload(wait_until="commit")
            times.append(_ready_ms(page, timeout_ms))
            found = page.evaluate(_MARKS_JS)
            if marks is not None and found:
                marks.append(found)
        return times
    finally:
        context.close()


# Resolves with performance.now() once a service worker controls the page.
_CONTROLLED_JS = """
(timeout) => new Promise((resolve, reject) => {
  if (navigator.serviceWorker.controller) resolve(performance.now());
  navigator.serviceWorker.addEventListener("controllerchange", () => resolve(performance.now()));
  setTimeout(() => reject(new Error("no service worker took control")), timeout);
})
"""


def _controlled_ms(page: Page, timeout_ms: float) -> float:
    try:
        return float(page.evaluate(_CONTROLLED_JS, timeout_ms))
    except Exception as error:  # the install failed, e.g. files changed after sw.js was built
        raise NotReady(f"{str(error).splitlines()[0]} (is sw.js current?)") from error


# What the page's origin keeps in Cache Storage: the cached bodies, and the browser's estimate.
_CACHE_SIZE_JS = """
async () => {
  let bytes = 0, entries = 0;
  const names = await caches.keys();
  for (const name of names) {
    const cache = await caches.open(name);
    for (const request of await cache.keys()) {
      bytes += (await (await cache.match(request)).arrayBuffer()).byteLength;
      entries += 1;
    }
  }
  const estimate = await navigator.storage.estimate();
  return {names, entries, bytes, usage: estimate.usage,
          caches_usage: (estimate.usageDetails || {}).caches ?? null};
}
"""


class NetworkLog:
    """Requests of a context (pages and service workers) that went over the network."""

    def __init__(self, context: BrowserContext) -> None:
        self.requests: list[Request] = []
        context.on("requestfinished", lambda request: self.requests.append(request))

    def take(self) -> dict[str, object]:
        """What went over the network since the last take(): all of it, and the part the
        service worker itself fetched ("worker_...")."""
        requests, self.requests = self.requests, []
        urls, total, worker, worker_total = [], 0, 0, 0
        for request in requests:
            if request.url.startswith(("data:", "blob:")):
                continue
            response = request.response()
            if response is not None and response.from_service_worker:
                continue  # answered by the worker, from its cache
            sizes = request.sizes()
            size = sizes["responseBodySize"] + sizes["responseHeadersSize"]
            total += size
            urls.append(f"{response.status if response else '-'} {request.url}")
            if request.service_worker is not None:
                worker += 1
                worker_total += size
        return {"bytes": total, "requests": len(urls), "urls": urls,
                "worker_bytes": worker_total, "worker_requests": worker}


def sw_boots(
    browser: Browser, url: str, runs: int, timeout_ms: float, register: str | None
) -> dict[str, object]:
    """Warm starts served by the page's service worker; `register` is a script URL to register
    after boot (None when the page registers its worker itself)."""
    context = browser.new_context()
    try:
        context.add_init_script(MARK_READY)
        network = NetworkLog(context)
        page = context.new_page()
        page.goto(url, wait_until="commit")
        ready = _ready_ms(page, timeout_ms)
        if register:
            page.evaluate("url => navigator.serviceWorker.register(url)", register)
        controlled = _controlled_ms(page, timeout_ms)
        page.wait_for_timeout(200)  # let the last install requests report
        network.take()  # the first visit, measured by install_boot
        times, traffic = [], []
        for _ in range(runs):
            page.reload(wait_until="commit")
            times.append(_ready_ms(page, timeout_ms))
            page.wait_for_timeout(1000)  # late requests (e.g. the worker's update check)
            traffic.append(network.take())
        cache = page.evaluate(_CACHE_SIZE_JS)
    finally:
        context.close()
    return {
        "sw_warm_ms": statistics.median(times),
        "sw_warm_runs": times,
        "install_ms": controlled - ready,
        "network_bytes_per_reload": statistics.median(t["bytes"] for t in traffic),
        "network_requests_per_reload": statistics.median(t["requests"] for t in traffic),
        "network_urls_last_reload": traffic[-1]["urls"],
        "cache": cache,
    }


def install_traffic(
    browser: Browser, url: str, timeout_ms: float, register: str | None
) -> dict[str, object]:
    """A first visit: what the page downloaded, and what the worker's install downloaded after
    boot (the page's own files are in the HTTP cache by then: those cost a 304 each)."""
    context = browser.new_context()
    try:
        network = NetworkLog(context)
        page = context.new_page()
        page.goto(url, wait_until="commit")
        _ready_ms(page, timeout_ms)
        if register:
            page.evaluate("url => navigator.serviceWorker.register(url)", register)
        _controlled_ms(page, timeout_ms)
        page.wait_for_timeout(300)
        visit = network.take()
    finally:
        context.close()
    return {
        "first_visit_page_bytes": visit["bytes"] - visit["worker_bytes"],
        "first_visit_page_requests": visit["requests"] - visit["worker_requests"],
        "install_bytes": visit["worker_bytes"],
        "install_requests": visit["worker_requests"],
    }


def bench_sw(browser: Browser, base_url: str, name: str, runs: int,
             timeout_ms: float) -> dict[str, object]:
    url = base_url + PAGES[name]
    if not page_exists(url):
        return {"status": "missing"}
    target = SW_TARGETS[name]
    # The bare page has no registration of its own: the bench registers its worker.
    register = None if name == "app" else base_url + target.out
    try:
        first = install_traffic(browser, url, timeout_ms, register)
        return {"status": "ok", **sw_boots(browser, url, runs, timeout_ms, register), **first}
    except NotReady as error:
        return {"status": "not ready", "error": str(error)}


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
        cold_marks: list[dict[str, float]] = []
        cold = cold_boots(browser, url, runs, timeout_ms, cold_marks)
        marks: list[dict[str, float]] = []
        warm = warm_boots(browser, url, runs, timeout_ms, marks)
    except NotReady as error:
        return {"status": "not ready", "error": str(error)}
    keys = ("imports", "boot", "python_start", "files", "file_requests", "after_files")
    own = {f"{k}_ms": round(statistics.median(m[k] for m in marks), 1)
           for k in keys} if marks else {}
    own |= {f"cold_{k}_ms": round(statistics.median(m[k] for m in cold_marks), 1)
            for k in keys} if cold_marks else {}
    return {
        "status": "ok",
        "cold_ms": statistics.median(cold),
        "warm_ms": statistics.median(warm),
        "cold_runs": cold,
        "warm_runs": warm,
        **own,
    }


def run(
    base_url: str, runs: int, timeout_ms: float, latency: bool, sw: bool = True
) -> dict[str, object]:
    results: dict[str, object] = {"runs": runs}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=chromium_executable(), args=list(CHROMIUM_ARGS)
        )
        try:
            for name, path in PAGES.items():
                results[name] = bench_page(browser, base_url + path, runs, timeout_ms)
            if sw:
                results["sw"] = {
                    name: bench_sw(browser, base_url, name, runs, timeout_ms) for name in PAGES
                }
            if latency:
                results["latency"] = latency_results(
                    browser, base_url + PAGES["app"], runs, timeout_ms, results["app"]
                )
        finally:
            browser.close()
    bare, app = results["bare"], results["app"]
    if bare["status"] == app["status"] == "ok":
        results["warm_ratio_app_bare"] = app["warm_ms"] / bare["warm_ms"]
    sw_results = results.get("sw", {})
    if sw_results and all(sw_results[n]["status"] == "ok" for n in PAGES):
        results["sw_warm_ratio_app_bare"] = (
            sw_results["app"]["sw_warm_ms"] / sw_results["bare"]["sw_warm_ms"]
        )
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
            own = (f"   (warm: Python imports {entry['imports_ms']:.0f} ms, app boot "
                   f"{entry['boot_ms']:.0f} ms)") if "boot_ms" in entry else ""
            lines.append(f"{name:<6} {entry['cold_ms']:>8.0f} {entry['warm_ms']:>8.0f}{own}")
            if "cold_files_ms" in entry:
                lines.append(
                    f"       modules fetched in {entry['file_requests_ms']:.0f} request(s): "
                    f"cold {entry['cold_files_ms']:.0f} ms / warm {entry['files_ms']:.0f} ms "
                    f"first to last; main.py starts at cold {entry['cold_python_start_ms']:.0f}"
                    f" / warm {entry['python_start_ms']:.0f} ms (cold "
                    f"{entry['cold_after_files_ms']:.0f} ms after the last module arrived);"
                    f" imports cold "
                    f"{entry['cold_imports_ms']:.0f} / warm {entry['imports_ms']:.0f} ms")
        else:
            detail = f" ({entry['error']})" if "error" in entry else ""
            lines.append(f"{name:<6} {entry['status']}{detail}")
    ratio = results.get("warm_ratio_app_bare")
    lines.append(f"warm ratio app/bare: {ratio:.2f}" if ratio else "warm ratio app/bare: n/a")
    if "latency" in results:
        lines.append(f"latency: {results['latency']}")
    if "sw" in results:
        lines += report_sw(results)
    return "\n".join(lines)


def report_sw(results: dict[str, object]) -> list[str]:
    lines = [
        "",
        "Service worker: warm start = reload served by the worker (median ms); network per",
        "reload; first visit: ready-to-controlled and what the install downloaded; Cache Storage",
        f"{'page':<6} {'sw warm':>8} {'net B':>7} {'net req':>7} {'install':>8} "
        f"{'inst KB':>8} {'inst req':>8} {'cache MB':>9} {'estimate MB':>11}",
    ]
    for name in PAGES:
        entry = results["sw"][name]
        if entry["status"] != "ok":
            detail = f" ({entry['error']})" if "error" in entry else ""
            lines.append(f"{name:<6} {entry['status']}{detail}")
            continue
        cache = entry["cache"]
        estimate = cache.get("caches_usage") or cache.get("usage") or 0
        lines.append(
            f"{name:<6} {entry['sw_warm_ms']:>8.0f} {entry['network_bytes_per_reload']:>7.0f} "
            f"{entry['network_requests_per_reload']:>7.0f} {entry['install_ms']:>8.0f} "
            f"{entry['install_bytes'] / 1e3:>8.0f} {entry['install_requests']:>8} "
            f"{cache['bytes'] / 1e6:>9.2f} {estimate / 1e6:>11.2f}"
        )
        for url in entry["network_urls_last_reload"]:
            lines.append(f"       over the network on a reload: {url}")
    ratio = results.get("sw_warm_ratio_app_bare")
    lines.append(f"sw warm ratio app/bare: {ratio:.2f}" if ratio else "sw warm ratio: n/a")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="PyScript boot-time benchmark.")
    parser.add_argument("--runs", type=int, default=5, help="runs per measurement (default 5)")
    parser.add_argument("--url", help="base URL of a running server (default: start one)")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds to wait for ready")
    parser.add_argument("--json", type=Path, help="also write the results here as JSON")
    parser.add_argument(
        "--no-sw", action="store_true", help="skip the service-worker measurements"
    )
    parser.add_argument(
        "--latency",
        action="store_true",
        help="also measure interaction latency on the app (measure_latency)",
    )
    args = parser.parse_args(argv)

    if not args.url and build_pybundle.mapped(ROOT):
        build_pybundle.write(ROOT)  # py/ as it is now (make bench does the same)
    if not args.no_sw:
        # Both workers must describe the files as they are now (make bench does the same).
        for target in SW_TARGETS.values():
            build_sw.write(ROOT, target)
    with ExitStack() as stack:
        base_url = args.url or stack.enter_context(running_server(ROOT))
        if not base_url.endswith("/"):
            base_url += "/"
        results = run(base_url, args.runs, args.timeout * 1000, args.latency, not args.no_sw)
    print(report(results))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
