"""A person's presses in the browser: the longest main-thread task they cause.

    .venv/bin/python bench/person_browser.py [--rules gilgiti] [--steps 60] [--motion]

Two people (red and green) play on the real page by mouse: the die, then a value chip and a
token (or a choice button) for the first choice the engine lists. Long tasks (> 50 ms) are
collected with a PerformanceObserver from before the Start click on, and each is put down to
the press that preceded it (start, roll, move, or an automatic move). ``--motion`` plays with
animations and sounds on (prefers-reduced-motion: no-preference). Prints one JSON line.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "py"))

from playwright.sync_api import Page, sync_playwright  # noqa: E402

from bench.bots_browser import OBSERVE_LONG_TASKS  # noqa: E402
from ludo import choices, distinct_moves, parse_position  # noqa: E402
from server.testing import CHROMIUM_ARGS, chromium_executable, served  # noqa: E402


def press_for(page: Page, text: str) -> str:
    """Make the seat to act's next press; returns what it was."""
    state = parse_position(text)
    if state.phase == "roll":
        page.wait_for_selector("#die.ready", timeout=10_000)
        page.click("#die")
        return "roll"
    if len(distinct_moves(state)) == 1:
        return "auto"  # it plays by itself
    choice = choices(state)[0]
    chip = f'#dice .chip[data-value="{choice.value}"]:not([disabled])'
    if choice.value is not None and page.locator(chip).count():
        page.click(chip)
    if choice.pieces:
        page.click(f'#board .token.movable[data-piece="{choice.pieces[0]}"]')
    if page.locator("#choices button").count():
        page.locator("#choices button").first.click()
    return "move"


def seat_two_people(page: Page, rules: str) -> None:
    """Home's form: `rules`, red and green seated as people, the others not, no clock. (An
    unseated colour's player choice is disabled, so only the seated ones are chosen.)"""
    page.check(f'input[name="rules"][value="{rules}"]')
    for colour in ("red", "green", "yellow", "blue"):
        seated = colour in ("red", "green")
        page.locator(f'input[name="seat"][value="{colour}"]').set_checked(seated)
        if seated:
            page.select_option(f'[name="kind-{colour}"]', "human")
    page.locator("#opt-timer").set_checked(False)


def run(base_url: str, rules: str, steps: int, motion: bool) -> dict[str, object]:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_executable(),
                                             args=list(CHROMIUM_ARGS))
        try:
            context = browser.new_context(
                reduced_motion="no-preference" if motion else "reduce")
            page = context.new_page()
            page.goto(base_url + "?auto_delay=0#home")
            page.wait_for_selector('html[data-ready="1"]', state="attached", timeout=60_000)
            seat_two_people(page, rules)
            page.wait_for_timeout(300)
            page.evaluate(OBSERVE_LONG_TASKS)
            page.click("#btn-start")
            page.wait_for_selector("#screen-table:not([hidden])")
            page.wait_for_timeout(500)
            by_press: dict[str, list[float]] = {}

            def note(what: str, seen: int) -> int:
                tasks = page.evaluate("window.__longTasks")
                by_press.setdefault(what, []).extend(d for _, d in tasks[seen:])
                return len(tasks)

            seen = note("start", 0)
            done = 0
            while done < steps:
                text = page.evaluate("window.ludo.position()")
                if parse_position(text).phase == "over":
                    break
                what = press_for(page, text)
                done += 1
                page.wait_for_function("p => window.ludo.position() !== p", arg=text,
                                       timeout=10_000)
                page.wait_for_timeout(700 if motion else 150)  # the hops and sounds play out
                seen = note(what, seen)
        finally:
            browser.close()
    every = [d for found in by_press.values() for d in found]
    return {"rules": rules, "motion": motion, "presses": done,
            "long_tasks_over_50ms": len(every),
            "longest_task_ms": round(max(every), 1) if every else None,
            "by_press": {what: [round(d, 1) for d in found]
                         for what, found in by_press.items() if found}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="gilgiti")
    parser.add_argument("--steps", type=int, default=60, help="presses at most")
    parser.add_argument("--motion", action="store_true", help="animations and sounds on")
    parser.add_argument("--url", help="base URL of a running server (default: start one)")
    args = parser.parse_args(argv)
    with served(args.url, ROOT) as base_url:
        print(json.dumps(run(base_url, args.rules, args.steps, args.motion)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
