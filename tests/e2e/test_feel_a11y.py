"""The dark theme passes the same accessibility checks as the light one (axe-core, WCAG 2.1
A/AA), and so do the screens play feel added in both themes: the winner dialog with its
standings, the clock shown off the table, a picker of moves."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page
from test_a11y import AXE, violations
from test_app_play import BOOT_TIMEOUT_MS, SAVE_KEY, roll_until_choice, start_game

from app.savegame import Session, encode
from ludo import Action, Record, distinct_moves, new_game, play


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
    # on a phone every seat's facts stand on their own line, starting under its name, so
    # they line up alike (facts beside a name stood right, wrapped ones stood left)
    lefts = page.evaluate("""() => [...document.querySelectorAll('#winner-standings li')]
        .map(li => [li.querySelector('.who').getBoundingClientRect(),
                    li.querySelector('.meta').getBoundingClientRect()])
        .map(([who, meta]) => [Math.round(who.left), Math.round(meta.left),
                               meta.top >= who.bottom - 1])""")
    assert all(left == lefts[0][0] and meta == left and below for left, meta, below in lefts), \
        lefts
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


# The contrast of each text against what is drawn behind it, as the page renders it: the
# colours of the element and its ancestors composed from the page down, each ancestor's
# opacity applied to what it draws over what lies below it (the WCAG 2 formula).
CONTRAST_JS = """
(selector) => {
  const parse = text => {
    const m = text.match(/rgba?\\(([^)]+)\\)/);
    if (!m) throw new Error('not an rgb colour: ' + text);
    const p = m[1].split(/[\\s,\\/]+/).filter(Boolean).map(Number);
    return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
  };
  const over = (top, under) => [0, 1, 2].map(i => top[3] * top[i] + (1 - top[3]) * under[i]);
  const lum = c => {
    const s = c.map(v => { v /= 255; return v <= 0.03928 ? v / 12.92
                                                          : Math.pow((v + 0.055) / 1.055, 2.4); });
    return 0.2126 * s[0] + 0.7152 * s[1] + 0.0722 * s[2];
  };
  return [...document.querySelectorAll(selector)].map(el => {
    const chain = [];
    for (let n = el; n; n = n.parentElement) chain.unshift(n);
    const draw = (i, under, text) => {
      const style = getComputedStyle(chain[i]);
      let c = over(parse(style.backgroundColor), under);
      c = i + 1 < chain.length ? draw(i + 1, c, text) : text ? over(parse(style.color), c) : c;
      const o = parseFloat(style.opacity);
      return c.map((v, k) => o * v + (1 - o) * under[k]);
    };
    const fg = lum(draw(0, [255, 255, 255], true)), bg = lum(draw(0, [255, 255, 255], false));
    return {text: el.textContent, ratio: (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05),
            chip: el.closest('.chip').className};
  });
}
"""


def _half_played_turn() -> str:
    """A Gilgiti save: the first seat has rolled 6, 6 and 1 and played a 6 (a token out);
    a 6 and the 1 are still to play, in a choice of ways (nothing plays by itself)."""
    state = new_game("gilgiti", ("red", "green"), 1)
    record = Record("gilgiti", ("red", "green"), 1)
    first = state.turn
    base = 4 * state.seats.index(first)
    for action in (Action("roll", value=6), Action("roll", value=6), Action("roll", value=1),
                   Action("move", token=base, value=6)):
        record, state, _ = play(record, state, action)
    assert state.turn == first and state.phase == "move" and len(distinct_moves(state)) > 1
    return encode(Session(record=record, names={"red": "Ada"}, timer=False))


def test_played_value_chips_keep_their_words_readable(page: Page) -> None:
    app = page.url.split("#")[0]
    # stored from another page of the site: the app saves its own game when it is left
    page.goto(app.split("?")[0] + "manifest.webmanifest")
    page.evaluate(f"save => localStorage.setItem({SAVE_KEY!r}, save)", _half_played_turn())
    page.goto(app + "#table")
    page.wait_for_selector('html[data-ready="1"]', state="attached", timeout=BOOT_TIMEOUT_MS)
    page.wait_for_selector("#dice .chip-used")
    chips = page.evaluate(CONTRAST_JS, "#dice .chip .chip-state")
    assert {c["text"].strip() for c in chips} >= {"played"}, chips
    for chip in chips:  # WCAG AA for text: 4.5:1
        assert chip["ratio"] >= 4.5, (page.scheme, chip)
    # "played" is shown by more than a faded colour: a tick before the word
    tick = page.evaluate("getComputedStyle(document.querySelector('#dice .chip-used "
                         ".chip-state'), '::before').content")
    assert "✓" in tick
    assert violations(page) == []


def test_a_chosen_value_chip_is_named_as_it_shows(page: Page) -> None:
    """A value chip pressed shows "chosen": its accessible name says so too (it kept the rule
    set's "6, to play", which axe reports as a label that does not hold the visible text)."""
    app = page.url.split("#")[0]
    page.goto(app.split("?")[0] + "manifest.webmanifest")
    page.evaluate(f"save => localStorage.setItem({SAVE_KEY!r}, save)", _half_played_turn())
    page.goto(app + "#table")
    page.wait_for_selector('html[data-ready="1"]', state="attached", timeout=BOOT_TIMEOUT_MS)
    chip = page.locator("#dice .chip-playable").first
    chip.click()
    page.wait_for_selector('#dice .chip[aria-pressed="true"]')
    chosen = page.locator('#dice .chip[aria-pressed="true"]')
    assert chosen.inner_text().strip() == "chosen"
    assert "chosen" in chosen.get_attribute("aria-label")
    assert violations(page) == []
    chosen.click()  # let go of it: the chip is "to play" again, and named so
    page.wait_for_selector('#dice .chip[aria-pressed="true"]', state="detached")
    assert "chosen" not in page.locator("#dice .chip-playable").first.get_attribute("aria-label")
