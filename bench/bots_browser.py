"""Computer players inside the browser: decision time per level and the longest main-thread task.

    .venv/bin/python bench/bots_browser.py [--decisions 150] [--level hard]
        [--rules gilgiti] [--teams]

Four computers of one level play on the real page (pace 0, so they act back to back) until
``--decisions`` choices between several moves have been made.  Each decision leaves a User
Timing entry ``ludo:decision:<level>:<phase>`` (py/app/browser/autoplay.py); long tasks
(> 50 ms) are collected with a PerformanceObserver, all of them, those once play began (the
first decision) and those before it (the Start click: the game made, the table shown and
drawn, the focus placed).  Prints one JSON line.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from playwright.sync_api import sync_playwright  # noqa: E402

from server.testing import CHROMIUM_ARGS, chromium_executable, served  # noqa: E402

OBSERVE_LONG_TASKS = """
() => {
  window.__longTasks = [];
  new PerformanceObserver(list => {
    for (const entry of list.getEntries())
      window.__longTasks.push([entry.startTime, entry.duration]);
  }).observe({type: "longtask", buffered: false});
}
"""


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def run(base_url: str, level: str, decisions: int, timeout_s: float, rules: str | None = None,
        teams: bool = False) -> dict[str, object]:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_executable(),
                                             args=list(CHROMIUM_ARGS))
        try:
            page = browser.new_page()
            page.goto(base_url + "?auto_delay=0&pace_ms=0#home")
            page.wait_for_selector('html[data-ready="1"]', state="attached", timeout=60_000)
            if rules:
                page.check(f'input[name="rules"][value="{rules}"]')
            for colour in ("red", "green", "yellow", "blue"):
                page.locator(f'input[name="seat"][value="{colour}"]').set_checked(True)
                page.select_option(f'[name="kind-{colour}"]', level)
            if rules == "gilgiti":  # the form ticks Teams for four players: say which
                page.locator('input[name="option-teams"]').set_checked(teams)
            page.locator("#opt-timer").set_checked(False)
            page.evaluate(OBSERVE_LONG_TASKS)
            page.click("#btn-start")
            measures: list[float] = []
            games = 1
            waited = 0.0
            while waited < timeout_s:
                page.wait_for_timeout(500)
                waited += 0.5
                measures = page.evaluate(
                    "performance.getEntriesByType('measure')"
                    f".filter(m => m.name === 'ludo:decision:{level}:move')"
                    ".map(m => m.duration)")
                if len(measures) >= decisions:
                    break
                if page.is_visible("#dlg-winner"):
                    page.click("#winner-rematch")
                    games += 1
            long_tasks = page.evaluate("window.__longTasks")
            # the first decision's start: tasks before it set the table up (the start button)
            first = page.evaluate("Math.min(...performance.getEntriesByType('measure')"
                                  ".filter(m => m.name.startsWith('ludo:decision:'))"
                                  ".map(m => m.startTime))")
        finally:
            browser.close()
    result: dict[str, object] = {"rules": rules or "default", "teams": teams, "level": level,
                                 "move_decisions": len(measures),
                                 "games": games, "long_tasks_over_50ms": len(long_tasks),
                                 "longest_task_ms": round(max(d for _, d in long_tasks), 1)
                                 if long_tasks else None}
    in_play = [d for start, d in long_tasks if start >= first]
    at_start = [d for start, d in long_tasks if start < first]
    result.update(long_tasks_in_play=len(in_play),
                  longest_task_in_play_ms=round(max(in_play), 1) if in_play else None,
                  long_tasks_at_start=len(at_start),
                  longest_task_at_start_ms=round(max(at_start), 1) if at_start else None)
    if measures:
        result.update(decision_median_ms=round(statistics.median(measures), 1),
                      decision_p95_ms=round(percentile(measures, 0.95), 1),
                      decision_max_ms=round(max(measures), 1))
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--level", default="hard", choices=("easy", "medium", "hard"))
    parser.add_argument("--decisions", type=int, default=150)
    parser.add_argument("--timeout", type=float, default=240.0, help="seconds of play at most")
    parser.add_argument("--rules", help="the rule set to play (default: the form's first)")
    parser.add_argument("--teams", action="store_true", help="four seats in two teams")
    parser.add_argument("--url", help="base URL of a running server (default: start one)")
    args = parser.parse_args(argv)
    with served(args.url, ROOT) as base_url:
        print(json.dumps(run(base_url, args.level, args.decisions, args.timeout, args.rules,
                             args.teams)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
