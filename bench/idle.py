"""What an idle table costs: Chromium's CPU time while a game waits for a person to roll.

    .venv/bin/python bench/idle.py [--seconds 10] [--url http://127.0.0.1:8000/]

A page starts a two-player Courtyard game and is left alone at the table, with motion allowed
and reduced, the turn clock on and off. For each case it prints the CPU seconds that all of
Chromium's processes used per 10 s of wall time: in the first window (the pulses that call
for the roll are running) and in a later one (after they have rested). The browser is headless
with no GPU, so painting and compositing are on the CPU: the figures are what this machine
pays, an upper bound of what a phone's GPU would leave to its CPU. Without --url it starts its
own server on a free port.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from contextlib import ExitStack
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run as a script from anywhere: find this checkout's server/

from playwright.sync_api import sync_playwright  # noqa: E402

from server.testing import CHROMIUM_ARGS, chromium_executable, running_server  # noqa: E402
from tools import build_pybundle  # noqa: E402

SETTLE_S = 12.0  # longer than the longest pulse (4-5 runs of 1.2-1.6 s)


def chromium_cpu_seconds() -> float:
    """User + system CPU time of every Chromium process on the machine so far."""
    ticks = 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/comm") as comm:
                if "chrom" not in comm.read():
                    continue
            with open(f"/proc/{pid}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue  # the process ended meanwhile
        ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


def cpu_per_10s(seconds: float) -> float:
    before = chromium_cpu_seconds()
    time.sleep(seconds)
    return (chromium_cpu_seconds() - before) * 10.0 / seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="length of each window")
    parser.add_argument("--url", help="a running server (default: start one)")
    args = parser.parse_args()
    if not args.url:
        build_pybundle.refresh_site(ROOT)  # py/ as it is now (make bench does the same)
    with ExitStack() as stack:
        url = args.url or stack.enter_context(running_server(ROOT))
        playwright = stack.enter_context(sync_playwright())
        browser = playwright.chromium.launch(executable_path=chromium_executable(),
                                             args=list(CHROMIUM_ARGS))
        print(f"Chromium CPU seconds per 10 s at an idle table ({args.seconds:g} s windows)")
        print(f"{'motion':14} {'clock':6} {'pulsing':>8} {'resting':>8}")
        for motion in ("no-preference", "reduce"):
            for clock in (True, False):
                context = browser.new_context(reduced_motion=motion,
                                              viewport={"width": 1100, "height": 800})
                page = context.new_page()
                page.goto(url + "?auto_delay=0&pace_ms=0#home")
                page.wait_for_selector('html[data-ready="1"]', state="attached",
                                       timeout=90_000)
                page.check('input[name="rules"][value="courtyard"]')
                page.check('input[name="players"][value="2"]')
                page.set_checked("#opt-timer", clock)
                page.click("#btn-start")
                page.wait_for_selector("#screen-table:not([hidden])")
                pulsing = cpu_per_10s(args.seconds)
                time.sleep(max(0.0, SETTLE_S - args.seconds))
                resting = cpu_per_10s(args.seconds)
                print(f"{motion:14} {'on' if clock else 'off':6} {pulsing:8.2f} {resting:8.2f}",
                      flush=True)
                context.close()
        browser.close()


if __name__ == "__main__":
    main()
