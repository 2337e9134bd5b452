"""Hostile storage and URLs in a real browser: nothing the browser stores or the address holds
may stop the app from booting or starting a game, and a tab that is not playing cannot create a
game that the playing tab would silently overwrite."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page
from test_app_play import (
    FAST,
    SAVE_KEY,
    position_text,
    start_game,
    two_tabs_of_one_game,
    wait_change,
    wait_ready,
)

from app.savegame import encode
from app.table import Table
from ludo import Action, legal_actions

SETTINGS_KEY = "courtyard-ludo/settings"


@pytest.fixture(scope="module")
def page(browser: Browser, server_url: str) -> Iterator[Page]:
    """One page for the module's single-tab tests; each test boots it afresh."""
    context = browser.new_context(reduced_motion="reduce")
    page = context.new_page()
    page.console_errors = []
    page.on("pageerror", lambda e: page.console_errors.append(str(e)))
    page.base = server_url
    page.goto(server_url + FAST)
    wait_ready(page)
    try:
        yield page
    finally:
        context.close()


def _boot_with(page: Page, key: str | None = None, value: str = "", query: str = "") -> None:
    """Boot the app again with ``value`` stored under ``key``.

    The value is stored from another page of the site: the app saves its game when it is
    left, which would overwrite a value stored before a plain reload.
    """
    page.goto(page.base + "manifest.webmanifest")
    page.evaluate("localStorage.clear()")
    if key is not None:
        page.evaluate("([k, v]) => localStorage.setItem(k, v)", [key, value])
    page.console_errors.clear()
    page.goto(page.base + FAST + query)
    wait_ready(page)


@pytest.mark.parametrize("settings", [
    "[" * 10_000 + "]" * 10_000,
    '"' + '\\"' * 30_000,
    json.dumps({"rules": "royal-chess", "players": {"red": "expert", "yellow": 7},
                "seats": ["red", "red"], "timer": "no", "pace": "warp", "names": []}),
    json.dumps({"rules": "courtyard", "seats": "all", "options": {"teams": "yes"}}),
    json.dumps({"rules": [], "pace": [], "players": {"red": {}}, "timer": {},
                "names": {"red": []}}),
], ids=["deeply nested", "quadratic escapes", "unknown values", "wrong types", "containers"])
def test_any_stored_settings_boot_and_start_a_game(page: Page, settings: str) -> None:
    _boot_with(page, SETTINGS_KEY, settings)
    page.wait_for_selector("#screen-home:not([hidden])")
    page.click("#btn-start")  # whatever was stored, the form holds usable defaults
    page.wait_for_selector("#screen-table:not([hidden])")
    state = json.loads(position_text(page))
    assert state["phase"] in ("roll", "move") and len(state["seats"]) >= 2
    assert "computer, )" not in page.inner_text("#turn")
    assert page.console_errors == []


def _saved(page: Page) -> dict:
    return json.loads(page.evaluate(f"localStorage.getItem({SAVE_KEY!r})"))


def _save_text(**changes: object) -> str:
    """A real save (a few moves into a Courtyard game) with some of its fields replaced."""
    table = Table.new("courtyard", ("red", "green"), 5, 1.7e12, timer=True)
    for _ in range(3):
        table.submit(table.seat_to_act, Action("roll") if table.rolling
                     else legal_actions(table.state)[0], 1.7e12)
    text = encode(table.session)
    for field, raw in changes.items():
        data = json.loads(text)
        old = f'"{field}":{json.dumps(data[field], separators=(",", ":"))}'
        assert old in text
        text = text.replace(old, f'"{field}":{raw}')
    return text


def test_a_damaged_clock_in_the_save_is_explained(page: Page) -> None:
    # two of the damaged deadlines tests/app/test_app_pure.py feeds to the same decode in
    # CPython, to see the page explain them (a float overflowing is no JSON number at all; an
    # integer far beyond any time)
    for deadline, words in (("1e400", "it is not valid JSON"),
                            ("1" + "0" * 400, "turn clock is damaged")):
        _boot_with(page, SAVE_KEY, _save_text(deadline=deadline))
        page.locator("#dlg-error").wait_for(state="visible")
        assert words in page.inner_text("#dlg-error"), deadline
        page.click("#error-new")
        page.wait_for_selector("#screen-home:not([hidden])")
        assert page.console_errors == []
    _boot_with(page, SAVE_KEY, _save_text(timer='"no"'))
    page.locator("#dlg-error").wait_for(state="visible")
    assert "clock setting is damaged" in page.inner_text("#dlg-error")
    page.click("#error-new")


def test_turn_seconds_that_is_not_a_number_keeps_the_normal_clock(page: Page) -> None:
    _boot_with(page, query="&turn_seconds=nan")
    start_game(page, ["red", "green"], timer=True)
    page.wait_for_selector("#timer:not([hidden])")
    page.wait_for_timeout(1500)
    # a 30-second clock (nan once made it none at all: three seats out in 6 s); >= 20, not
    # 28, so that a loaded machine's slow steps cannot fail it
    assert int(page.inner_text("#timer-text").split()[0]) >= 20
    assert json.loads(position_text(page))["timeouts"] == {"red": 0, "green": 0}


def test_a_passive_tab_takes_the_table_before_it_starts_a_game(browser: Browser,
                                                               server_url: str) -> None:
    with two_tabs_of_one_game(browser, server_url) as (first, second):
        # the first tab is passive now; its player goes Home and starts a 4-player game there
        start_game(first, ["red", "green", "yellow", "blue"])
        new_game = position_text(first)
        assert len(json.loads(new_game)["seats"]) == 4
        # it took the table: the second tab steps aside and follows the new game
        second.locator("#tab-banner").wait_for(state="visible")
        second.wait_for_function("p => window.ludo.position() === p", arg=new_game,
                                 timeout=5_000)
        # the second tab can no longer play; nothing brings the old game back
        assert second.is_disabled("#die")
        first.click("#die")
        wait_change(first, new_game)
        saved = json.loads(first.evaluate(f"localStorage.getItem({SAVE_KEY!r})"))
        assert len(saved["record"]["seats"]) == 4


def test_names_are_isolated_and_cut_at_whole_characters(page: Page) -> None:
    _boot_with(page)
    family = "\U0001F468\u200d\U0001F469\u200d\U0001F467"
    start_game(page, ["red", "yellow"], names={"red": "\u202e" + "(wolley)", "yellow": family * 22})
    seats = page.inner_text("#seats")
    assert "\u202e" not in seats and "(wolley)" in seats
    # 20 whole characters at most, and 40 code points (five each here): cut between them
    assert _saved(page)["names"]["yellow"] == family * 8
    assert page.locator("#seats bdi").count() >= 2


# -- saved online rooms (hostile review 4, finding 3) --------------------------------------------
# A saved online room whose id is not a room id, or not the one it is stored under, is dropped
# as damaged and the page opens Home, without the fault banner.

ROOM_SESSION = "courtyard-ludo/online"
GOOD_ROOM = "q2Vf0pX9cE7wR1sT4uY8zA"


def _guest(room: object) -> str:
    return json.dumps({"room": room, "secret": "0" * 64, "name": "x", "chains": [],
                       "seat": None})


@pytest.mark.parametrize(("key", "room"), [("bad id!", "bad id!"), (GOOD_ROOM, 5),
                                           (GOOD_ROOM, {"a": 1}),
                                           (GOOD_ROOM, GOOD_ROOM + "x")],
                         ids=["not a room id", "a number", "an object", "another id"])
def test_a_saved_room_with_a_bad_id_opens_home_and_is_dropped(page: Page, key: str,
                                                               room: object) -> None:
    stored = {ROOM_SESSION: json.dumps({"room": key, "role": "guest"}),
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
        assert ROOM_SESSION not in left and f"courtyard-ludo/room/guest/{key}" not in left
    assert page.console_errors == []
