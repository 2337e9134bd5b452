"""What one move costs the page: a seeded whole game of four computers, per action played.

    .venv/bin/python bench/moves_browser.py [--rules courtyard] [--seed 8] [--url ...]

The page is booted with a saved game that has not begun (the record's seed fixes the dice, so
every run plays the same game: the computers decide the same way from the same positions),
four computers at pace 0, the turn clock off and reduced motion, so the actions follow each
other as fast as the page can play them. From the first action to the game's end it prints one
JSON line: the actions played; wall time; the main thread's busy time from Chromium's own
counters (CDP Performance.getMetrics: tasks, scripts (the page's Python runs inside them),
layout, style); and the CPU time of Chromium's processes (renderer, GPU, browser) and of
Playwright's driver, read from /proc on Linux (left out elsewhere). Each also per action, in
milliseconds.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "py")]

from playwright.sync_api import sync_playwright  # noqa: E402

from app.savegame import Session, encode  # noqa: E402
from ludo import Record  # noqa: E402
from server.testing import CHROMIUM_ARGS, chromium_executable, served  # noqa: E402

SAVE_KEY = "courtyard-ludo/save"
SEATS = ("red", "green", "yellow", "blue")
LEVELS = ("easy", "medium", "hard", "medium")
METRICS = ("TaskDuration", "ScriptDuration", "LayoutDuration", "RecalcStyleDuration")


def _descendants_cpu(root_pid: int) -> float | None:
    """CPU seconds (user + system) of every living process below ``root_pid``."""
    proc = Path("/proc")
    if not proc.is_dir():
        return None
    ticks = os.sysconf("SC_CLK_TCK")
    children: dict[int, list[tuple[int, float]]] = {}
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(
            (int(entry.name), (int(fields[11]) + int(fields[12])) / ticks))
    total, stack = 0.0, [root_pid]
    while stack:
        for pid, cpu in children.get(stack.pop(), ()):
            total += cpu
            stack.append(pid)
    return total


def run(base_url: str, rules: str, seed: int, timeout_s: float) -> dict[str, object]:
    save = encode(Session(record=Record(rules, SEATS, seed), names={},
                          players=dict(zip(SEATS, LEVELS, strict=True)), timer=False))
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_executable(),
                                             args=list(CHROMIUM_ARGS))
        try:
            context = browser.new_context(reduced_motion="reduce",
                                          viewport={"width": 1100, "height": 800})
            page = context.new_page()
            page.goto(base_url + "manifest.webmanifest")  # any page of the site, to store on
            page.evaluate(f"save => localStorage.setItem({SAVE_KEY!r}, save)", save)
            cdp = context.new_cdp_session(page)
            cdp.send("Performance.enable")
            page.goto(base_url + "?auto_delay=0&pace_ms=0")
            page.wait_for_selector('html[data-ready="1"]', state="attached", timeout=60_000)
            # (from the page's readiness on: the computers begin at once; the boot itself is
            # bench/boot.py's)
            def counters() -> tuple[dict[str, float], float | None, float]:
                values = {m["name"]: m["value"]
                          for m in cdp.send("Performance.getMetrics")["metrics"]}
                return values, _descendants_cpu(os.getpid()), time.perf_counter()

            before = counters()
            page.wait_for_function("() => JSON.parse(window.ludo.position()).phase === 'over'",
                                   timeout=timeout_s * 1000, polling=500)
            after = counters()
            actions = page.evaluate(f"JSON.parse(localStorage.getItem({SAVE_KEY!r}))"
                                    ".record.actions.length")
        finally:
            browser.close()
    wall = after[2] - before[2]
    result: dict[str, object] = {"rules": rules, "seed": seed, "actions": actions,
                                 "wall_s": round(wall, 2),
                                 "wall_ms_per_action": round(1000 * wall / actions, 2)}
    for name in METRICS:
        spent = after[0][name] - before[0][name]
        key = name.removesuffix("Duration").lower()
        result[f"{key}_s"] = round(spent, 2)
        result[f"{key}_ms_per_action"] = round(1000 * spent / actions, 2)
    if before[1] is not None and after[1] is not None:
        # (Playwright's driver is counted too: its polling, twice a second, is little)
        cpu = after[1] - before[1]
        result.update(browser_cpu_s=round(cpu, 2),
                      browser_cpu_ms_per_action=round(1000 * cpu / actions, 2))
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="courtyard",
                        choices=("courtyard", "classic", "royal", "gilgiti"))
    parser.add_argument("--seed", type=int, default=8)
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds of play at most")
    parser.add_argument("--url", help="base URL of a running server (default: start one)")
    args = parser.parse_args(argv)
    with served(args.url, ROOT) as base_url:
        print(json.dumps(run(base_url, args.rules, args.seed, args.timeout)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
