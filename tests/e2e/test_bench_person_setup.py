"""bench/person_browser.py's set-up works on today's Home form: two people, red and green.

The bench chose a player for every colour, seated or not; the form disables an unseated
colour's choice, so `select_option` waited 30 s on yellow's and the bench never printed.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from playwright.sync_api import Page

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.person_browser import seat_two_people  # noqa: E402

BOOT_TIMEOUT_MS = 60_000


@pytest.mark.parametrize("rules", ["gilgiti", "courtyard"])
def test_the_bench_seats_two_people_and_the_game_starts(page: Page, server_url: str,
                                                        rules: str) -> None:
    page.goto(server_url + "?auto_delay=0#home")
    page.wait_for_selector('html[data-ready="1"]', state="attached", timeout=BOOT_TIMEOUT_MS)
    page.set_default_timeout(5_000)  # a disabled control fails in 5 s, not 30
    seat_two_people(page, rules)
    page.click("#btn-start")
    page.wait_for_selector("#screen-table:not([hidden])")
    position = page.evaluate("JSON.parse(window.ludo.position())")
    assert position["rules"] == rules and position["seats"] == ["red", "green"]
