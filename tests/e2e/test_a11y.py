"""Accessibility in a real browser: axe-core's WCAG 2.1 A/AA checks on every screen and dialog.

axe-core (a pinned npm dev dependency) is injected into the page by the test only; the app
never loads it.  Colour contrast, names of buttons and dialogs, ARIA use and the like are
checked on the home screen, the table (with movable tokens and the details open), both help
pages and the quit and error dialogs.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page
from test_app_play import SAVE_KEY, _new_page, roll_until_choice, start_game, wait_ready

AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"
WCAG_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]


@pytest.fixture(scope="module")
def page(browser: Browser, server_url: str) -> Iterator[Page]:
    if not AXE.is_file():
        pytest.fail("node_modules/axe-core is missing: run `make test` (it runs npm ci)")
    page = _new_page(browser, server_url + "?auto_delay=0&pace_ms=0")
    try:
        yield page
    finally:
        page.context.close()


def violations(page: Page) -> list[str]:
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        # Evaluated, not added as a <script>: the server's Content-Security-Policy refuses
        # inline scripts, and the test must not weaken it for the page it checks.
        page.evaluate(AXE.read_text(encoding="utf-8"))
    found = page.evaluate(
        """async (tags) => (await axe.run(document, {runOnly: {type: 'tag', values: tags}}))
               .violations.map(v => `${v.id} (${v.impact}): ${v.help} -- ` +
                   v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(', '))""",
        WCAG_AA)
    return found


def test_home_screen(page: Page) -> None:
    page.goto(page.url.split("#")[0] + "#home")
    page.wait_for_selector("#screen-home:not([hidden])")
    assert violations(page) == []


def test_table_with_a_choice_and_the_details_open(page: Page) -> None:
    start_game(page, ["red", "green", "yellow"], names={"red": "Ada"}, timer=True)
    roll_until_choice(page)
    page.click("#btn-details")
    assert violations(page) == []


def test_table_against_computers(page: Page) -> None:
    start_game(page, ["red", "blue"], kinds={"blue": "hard"})
    assert violations(page) == []


@pytest.mark.parametrize("screen", ["rules", "install"])
def test_help_pages(page: Page, screen: str) -> None:
    page.goto(page.url.split("#")[0] + f"#{screen}")
    page.wait_for_selector(f"#screen-{screen}:not([hidden])")
    assert violations(page) == []


def test_quit_dialog(page: Page) -> None:
    start_game(page, ["red", "green"])
    page.click("#btn-quit")
    page.locator("#dlg-quit").wait_for(state="visible")
    assert violations(page) == []
    page.click("#quit-cancel")


def test_error_dialog(browser: Browser, server_url: str) -> None:
    page = _new_page(browser, server_url)  # a tab with no game, so nothing saves over it
    try:
        page.evaluate(f"localStorage.setItem({SAVE_KEY!r}, 'damaged')")
        page.reload()
        wait_ready(page)
        page.locator("#dlg-error").wait_for(state="visible")
        assert violations(page) == []
    finally:
        page.context.close()


ACTIVE_JS = "() => { const a = document.activeElement; return a ? (a.id || a.tagName) : null; }"


def test_every_screen_change_puts_the_focus_somewhere_useful(page: Page) -> None:
    # by keyboard only: a screen that changes must not drop the focus to the page itself
    start_game(page, ["red", "green"], names={"red": "Ada"})
    page.wait_for_function("document.activeElement && document.activeElement.id === 'die'")
    page.focus("#btn-home")
    page.keyboard.press("Enter")
    page.wait_for_selector("#screen-home:not([hidden])")
    assert page.evaluate(ACTIVE_JS) == "home-title"
    page.focus("#btn-resume")
    page.keyboard.press("Enter")
    page.wait_for_selector("#screen-table:not([hidden])")
    assert page.evaluate(ACTIVE_JS) == "die"  # a person here is to roll
    assert "turn" in page.inner_text("#announcer")
    page.goto(page.url.split("#")[0] + "#rules")
    page.wait_for_selector("#screen-rules:not([hidden])")
    assert page.evaluate(ACTIVE_JS) == "rules-courtyard"  # the game's rule set's heading
    # House rules opens on the rules of the game in progress, not always the first set's
    start_game(page, ["red", "green"], rules="gilgiti")
    page.goto(page.url.split("#")[0] + "#rules")
    page.wait_for_selector("#screen-rules:not([hidden])")
    shown = page.evaluate("""() => { const a = document.activeElement;
      const r = a.getBoundingClientRect();
      return [a.closest('[data-rules]')?.dataset.rules, r.top >= 0 && r.top < innerHeight]; }""")
    assert shown == ["gilgiti", True]


def test_the_focus_stays_put_while_a_computer_plays_and_comes_back_only_from_nowhere(
        page: Page) -> None:
    start_game(page, ["red", "blue"], kinds={"blue": "easy"})
    # the person goes to the move log's button while the computers play: the focus stays
    # there when their turn comes back (it is not pulled back to the die)
    page.focus("#btn-details")
    for _ in range(8):
        before = page.evaluate("window.ludo.position()")
        state = json.loads(before)
        if state["turn"] == "red":
            if state["phase"] == "roll":
                page.click("#die")
            else:
                page.locator("#board .token.movable").first.click()
            page.focus("#btn-details")
        page.wait_for_function("b => window.ludo.position() !== b", arg=before)
        assert page.evaluate(ACTIVE_JS) == "btn-details"


FOCUSED_FIELD_JS = "document.activeElement.name || document.activeElement.id"


def test_an_unticked_seat_takes_no_tab_stops_and_keeps_its_values(page: Page) -> None:
    page.goto(page.url.split("#")[0] + "#home")
    page.wait_for_selector("#screen-home:not([hidden])")
    page.check('input[name="rules"][value="courtyard"]')
    for colour in ("red", "green", "yellow", "blue"):
        page.locator(f'input[name="seat"][value="{colour}"]').set_checked(True)
    page.fill('[name="name-blue"]', "Cy")
    page.select_option('[name="kind-blue"]', "easy")
    for colour in ("yellow", "blue"):
        page.locator(f'input[name="seat"][value="{colour}"]').set_checked(False)
    # by keyboard from red's box: green's fields, then yellow's and blue's boxes only
    page.focus('input[name="seat"][value="red"]')
    seen = []
    for _ in range(6):
        page.keyboard.press("Tab")
        seen.append(page.evaluate(FOCUSED_FIELD_JS))
    assert seen == ["name-red", "kind-red", "seat", "name-green", "kind-green", "seat"]
    assert page.evaluate("document.activeElement.value") == "yellow"
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.value") == "blue"
    page.keyboard.press("Tab")
    assert page.evaluate(FOCUSED_FIELD_JS) not in ("name-blue", "kind-blue", "name-yellow")
    # the unticked seat's values are kept, shown, and remembered with the game's settings
    blue_name, blue_kind = page.locator('[name="name-blue"]'), page.locator('[name="kind-blue"]')
    assert blue_name.is_disabled() and blue_kind.is_disabled()
    assert blue_name.input_value() == "Cy" and blue_kind.input_value() == "easy"
    start_game(page, ["red", "green"])
    settings = json.loads(page.evaluate("localStorage.getItem('courtyard-ludo/settings')"))
    assert settings["names"].get("blue") == "Cy" and settings["players"].get("blue") == "easy"
    page.reload()
    wait_ready(page)
    page.goto(page.url.split("#")[0] + "#home")
    page.wait_for_selector("#screen-home:not([hidden])")
    assert blue_name.is_disabled() and blue_name.input_value() == "Cy"
    # ticked again (by keyboard), the seat's fields are back in the Tab order
    page.focus('input[name="seat"][value="blue"]')
    page.keyboard.press("Space")
    assert blue_name.is_enabled() and blue_kind.is_enabled()
    assert blue_name.input_value() == "Cy" and blue_kind.input_value() == "easy"
    page.keyboard.press("Tab")
    assert page.evaluate(FOCUSED_FIELD_JS) == "name-blue"
    page.keyboard.press("Tab")
    assert page.evaluate(FOCUSED_FIELD_JS) == "kind-blue"
    page.locator('input[name="seat"][value="blue"]').set_checked(False)
