"""A saved online room whose id is not a room id, or not the one it is stored under, is dropped
as damaged and the page opens Home, without the fault banner (hostile review 4, finding 3)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page
from test_app_play import FAST, wait_ready

SESSION = "courtyard-ludo/online"
GOOD = "q2Vf0pX9cE7wR1sT4uY8zA"


@pytest.fixture(scope="module")
def page(browser: Browser, server_url: str) -> Iterator[Page]:
    context = browser.new_context(reduced_motion="reduce")
    page = context.new_page()
    page.console_errors = []
    page.on("pageerror", lambda e: page.console_errors.append(str(e)))
    page.base = server_url
    try:
        yield page
    finally:
        context.close()


def _guest(room: object) -> str:
    return json.dumps({"room": room, "secret": "0" * 64, "name": "x", "chains": [],
                       "seat": None})


@pytest.mark.parametrize(("key", "room"), [("bad id!", "bad id!"), (GOOD, 5),
                                           (GOOD, {"a": 1}), (GOOD, GOOD + "x")],
                         ids=["not a room id", "a number", "an object", "another id"])
def test_a_saved_room_with_a_bad_id_opens_home_and_is_dropped(page: Page, key: str,
                                                               room: object) -> None:
    stored = {SESSION: json.dumps({"room": key, "role": "guest"}),
              f"courtyard-ludo/room/guest/{key}": _guest(room),
              f"courtyard-ludo/hostkey/guest/{key}": "A" * 22}
    page.goto(page.base + "manifest.webmanifest")
    page.evaluate("s => { localStorage.clear(); for (const k in s) localStorage.setItem(k, "
                  "s[k]); }", stored)
    page.console_errors.clear()
    for _ in range(2):  # and again: nothing of it is left to open
        page.goto(page.base + FAST)
        wait_ready(page)
        page.wait_for_selector("#screen-home:not([hidden])")
        page.wait_for_timeout(500)
        assert page.is_hidden("#fault-banner")
        assert page.is_hidden("#screen-room")
        assert "#room=" not in page.url
        left = page.evaluate("Object.keys(localStorage)")
        assert SESSION not in left and f"courtyard-ludo/room/guest/{key}" not in left
    assert page.console_errors == []
