"""Online rooms in real browsers: an action's round trip host -> guest -> applied -> ack.

    .venv/bin/python bench/online.py [--actions 200] [--guests 1]

Starts `python -m server` (static files and the signalling helper) on loopback, opens a host and
1 to 3 guests in separate Chromium contexts, makes a room from the setup screen, and plays: each
page rolls and moves for its own seat by mouse. For every action the host broadcasts, each guest
applies it with its own engine (checking its die against the dice ledger) and answers `ack`;
the host measures the time from its broadcast to each ack on its own clock
(HostRoom.round_trips). Printed: the count, median, 90th and 99th
percentiles and the largest, in ms. Goal: under 50 ms on loopback.

WebRTC needs a non-loopback network interface on this machine (runtime notes); the data
channels themselves stay on the machine.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[0] = str(ROOT)  # the repository's packages (server, py) rather than bench/

from playwright.sync_api import Page, sync_playwright  # noqa: E402

from server.testing import CHROMIUM_ARGS, chromium_executable, running_server  # noqa: E402
from tools import build_pybundle  # noqa: E402

PARAMS = "?auto_delay=0&pace_ms=0"


def facts(page: Page) -> dict:
    return json.loads(page.evaluate("window.ludo.online()"))


def ready(page: Page) -> None:
    page.wait_for_selector("html[data-ready='1']", state="attached", timeout=90_000)


def act(page: Page) -> bool:
    """Roll, or move the first glowing token, if this page may."""
    die = page.locator("#die")
    try:
        if die.is_enabled() and "ready" in (die.get_attribute("class") or ""):
            die.click(timeout=1000)
            return True
        token = page.locator("#board .token.movable")
        if token.count():
            token.first.click(timeout=1000)
            return True
    except Exception:  # noqa: BLE001 - the position changed under the mouse
        return False
    return False


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, default=200, help="stop after this many acks")
    parser.add_argument("--guests", type=int, default=1, choices=(1, 2, 3))
    args = parser.parse_args(argv)
    seats = ["red", "green", "yellow", "blue"][: args.guests + 1]
    build_pybundle.refresh_site(ROOT)  # py/ as it is now (make bench does the same)
    with running_server(ROOT) as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_executable(),
                                    args=list(CHROMIUM_ARGS))
        host = browser.new_context().new_page()
        host.goto(url + PARAMS)
        ready(host)
        host.check(f"input[name='players'][value='{len(seats)}']")
        for colour in ("red", "green", "yellow", "blue"):
            host.locator(f"input[name='seat'][value='{colour}']").set_checked(colour in seats)
            if colour in seats[1:]:
                host.select_option(f"select[name='kind-{colour}']", "online")
        host.click("#btn-start")
        host.wait_for_function("document.getElementById('room-status').textContent"
                               " === 'Connected.'")
        link = host.input_value("#room-link")
        guests = []
        for seat in seats[1:]:
            guest = browser.new_context().new_page()
            guest.goto(link)
            ready(guest)
            guest.wait_for_selector(f"button.take[data-seat='{seat}']", timeout=20_000)
            guest.click(f"button.take[data-seat='{seat}']")
            guest.wait_for_function(f"JSON.parse(window.ludo.online()).seat === '{seat}'")
            guests.append(guest)
        host.wait_for_function("JSON.parse(window.ludo.online()).ready")
        host.click("#btn-room-start")
        for guest in guests:
            guest.wait_for_function("JSON.parse(window.ludo.online()).version !== null")
        started = time.monotonic()
        while len(facts(host)["roundTrips"]) < args.actions and not facts(host)["over"]:
            if not any([act(page) for page in (host, *guests)]):
                host.wait_for_timeout(20)
            if time.monotonic() - started > 600:
                break
        trips = sorted(facts(host)["roundTrips"])
        browser.close()
    if not trips:
        print("no round trips measured")
        return 1
    cut = lambda q: trips[min(len(trips) - 1, int(q * len(trips)))]  # noqa: E731
    print(f"online round trip host -> {args.guests} guest(s) -> applied -> ack, "
          f"{len(trips)} acks: median {statistics.median(trips):.1f} ms, "
          f"p90 {cut(0.9):.1f} ms, p99 {cut(0.99):.1f} ms, max {trips[-1]:.1f} ms "
          f"(goal < 50 ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
