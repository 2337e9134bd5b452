"""The dark theme passes the same accessibility checks as the light one (axe-core, WCAG 2.1
A/AA), and so do the screens play feel added in both themes: the winner dialog with its
standings, the clock shown off the table, a picker of moves."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page
from test_a11y import AXE, violations
from test_app_play import BOOT_TIMEOUT_MS, roll_until_choice, start_game


@pytest.fixture(scope="module", params=["dark", "light"])
def page(request, browser: Browser, server_url: str) -> Iterator[Page]:
    if not AXE.is_file():
        pytest.fail("node_modules/axe-core is missing: run `make test` (it runs npm ci)")
    context = browser.new_context(color_scheme=request.param, reduced_motion="reduce",
                                  viewport={"width": 390, "height": 844})
    page = context.new_page()
    page.scheme = request.param
    page.goto(server_url + "?auto_delay=0&pace_ms=0")
    page.wait_for_selector('html[data-ready="1"]', state="attached", timeout=BOOT_TIMEOUT_MS)
    try:
        yield page
    finally:
        context.close()


def test_the_theme_follows_the_system_setting(page: Page) -> None:
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert background == ("rgb(21, 19, 27)" if page.scheme == "dark" else "rgb(247, 243, 234)")


def test_home_screen(page: Page) -> None:
    page.goto(page.url.split("#")[0] + "#home")
    page.wait_for_selector("#screen-home:not([hidden])")
    assert violations(page) == []


def test_table_with_a_choice_the_details_and_the_log(page: Page) -> None:
    start_game(page, ["red", "green", "yellow"], names={"red": "Ada"}, timer=True)
    roll_until_choice(page)
    page.click("#btn-details")
    assert page.locator("#log .log-turn").count() >= 2
    assert violations(page) == []
    page.click("#btn-details")


def test_the_running_clock_is_shown_off_the_table(page: Page) -> None:
    start_game(page, ["red", "yellow"], names={"red": "Ada", "yellow": "Bo"}, timer=True)
    page.click("a[data-nav='rules']")
    page.wait_for_selector("#screen-rules:not([hidden])")
    clock = page.locator("#away-clock")
    clock.wait_for(state="visible")
    assert " s to play" in clock.inner_text()
    assert violations(page) == []
    clock.click()
    page.wait_for_selector("#screen-table:not([hidden])")
    assert page.is_hidden("#away-clock")


def test_the_winner_dialog_ranks_every_seat(page: Page) -> None:
    start_game(page, ["red", "green", "yellow"], names={"red": "Ada"})
    for seat in ("green", "red"):
        page.click("#btn-quit")
        page.select_option("#quit-seat", seat)
        page.click("#quit-confirm")
    dialog = page.locator("#dlg-winner")
    dialog.wait_for(state="visible")
    standings = page.locator("#winner-standings li")
    assert standings.count() == 3
    assert "Yellow" in standings.first.inner_text() and "winner" in standings.first.inner_text()
    assert page.locator("#dlg-winner svg.crown").count() == 1
    assert violations(page) == []
    page.click("#winner-home")


def test_a_single_seat_that_can_quit_is_named_not_listed(page: Page) -> None:
    start_game(page, ["red", "blue"], names={"red": "Ada"}, kinds={"blue": "hard"})
    page.click("#btn-quit")
    page.locator("#dlg-quit").wait_for(state="visible")
    assert page.is_hidden("#quit-seat-row")
    assert "Ada (red) leaves the game." in page.inner_text("#quit-who")
    assert violations(page) == []
    page.click("#quit-cancel")
