"""The main game (Courtyard) as first-time players meet it: a keyboard player against a
computer, a phone, a screen reader's announcements.

Each test builds the position it needs with the engine in CPython and boots the page with
it saved, so what is looked at comes up at once instead of after many random turns.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from playwright.sync_api import Browser, Page

from app.savegame import Session, encode
from ludo import Action, Record, apply, distinct_moves, new_game, play

BOOT_TIMEOUT_MS = 60_000
SAVE_KEY = "courtyard-ludo/save"


def _saved(rules: str, seats: tuple[str, ...], players: dict[str, str],
           wanted: Callable[[object], bool], names: dict[str, str] | None = None,
           steps: int = 600) -> str:
    """A save of a game played at random until ``wanted(position)`` holds (within ``steps``
    actions of a seed's game)."""
    for seed in range(1, 400):
        state = new_game(rules, seats, seed)
        record = Record(rules, state.seats, seed)
        for count in range(steps):
            if wanted(state):
                return encode(Session(record=record, names=names or {}, players=players,
                                      timer=False, screen="table"))
            if state.phase == "over":
                break
            moves = distinct_moves(state) if state.phase == "move" else []
            action = moves[(seed + count) % len(moves)] if moves else Action("roll")
            record, state, _ = play(record, state, action)
    raise AssertionError("no such position came up")


def _boot(browser: Browser, server_url: str, save: str, query: str,
          viewport: dict[str, int] | None = None, **options: object) -> Page:
    context = browser.new_context(reduced_motion="reduce",
                                  viewport=viewport or {"width": 1100, "height": 800}, **options)
    # stored once: a reload keeps what the page itself saved since
    context.add_init_script(
        f"if (!sessionStorage.getItem('p')) {{ sessionStorage.setItem('p', '1');"
        f" localStorage.setItem({SAVE_KEY!r}, {save!r}); }}")
    page = context.new_page()
    page.goto(server_url + query + "#table")
    page.wait_for_selector('html[data-ready="1"]', state="attached", timeout=BOOT_TIMEOUT_MS)
    return page


def _red_chooses_and_the_turn_passes(state: object) -> bool:
    """Red to pick among several moves, the first of which passes the turn on."""
    if state.phase != "move" or state.turn != "red":  # type: ignore[attr-defined]
        return False
    moves = distinct_moves(state)
    return len(moves) > 1 and apply(state, moves[0])[0].turn != "red"


@pytest.fixture
def against_a_computer(browser: Browser, server_url: str) -> Iterator[Page]:
    """Red, a person, to choose a token; yellow a computer that plays slowly enough to be
    looked at while it plays."""
    save = _saved("courtyard", ("red", "yellow"), {"yellow": "medium"},
                  _red_chooses_and_the_turn_passes)
    page = _boot(browser, server_url, save, "?auto_delay=0&pace_ms=700")
    try:
        yield page
    finally:
        page.context.close()


def test_after_a_token_played_by_keyboard_the_focus_waits_on_the_die(
        against_a_computer: Page) -> None:
    # A keyboard (or screen reader) player picks a token with Enter; the token stops being a
    # control and the computer plays. The focus must not fall to the page itself (Tab would
    # start again from the top, a screen reader jump to the page's start): it waits on the
    # die, as it does after a roll, so Enter rolls again when the turn comes back.
    page = against_a_computer
    page.wait_for_selector("#board .token.movable")
    page.locator("#board .token.movable").first.focus()
    page.keyboard.press("Enter")
    page.wait_for_function("JSON.parse(window.ludo.position()).turn === 'yellow'")
    focused = page.evaluate("document.activeElement.id || document.activeElement.tagName")
    assert focused == "die"
    # and when the turn comes back, Enter on it rolls for red
    page.wait_for_selector("#die.ready", timeout=20_000)
    assert page.evaluate("document.activeElement.id") == "die"


FORM_JS = """() => [...document.querySelectorAll('#setup input, #setup select')]
  .map(e => (e.name || e.id) + '=' + (e.type === 'checkbox' || e.type === 'radio'
                                      ? String(e.checked) : e.value))"""


def test_the_setup_forms_choices_survive_a_reload_before_start(browser: Browser,
                                                                server_url: str) -> None:
    # A first visitor sets up a game (rules, three players, names, a computer, no timer, a
    # slow pace) and the page is reloaded before Start game: a phone's browser drops a tab
    # in the background, a pull-to-refresh. The form came back with the defaults: every
    # choice had to be made again (they were remembered only on Start).
    context = browser.new_context(reduced_motion="reduce", viewport={"width": 360, "height": 640},
                                  has_touch=True, is_mobile=True)
    page = context.new_page()
    try:
        page.goto(server_url)
        page.wait_for_selector('html[data-ready="1"]', state="attached",
                               timeout=BOOT_TIMEOUT_MS)
        page.locator('input[name="rules"][value="classic"]').set_checked(True)
        page.locator('input[name="players"][value="3"]').set_checked(True)
        page.fill('[name="name-red"]', "Ada")
        page.fill('[name="name-yellow"]', "Bo")
        page.select_option('[name="kind-green"]', "hard")
        page.locator("#opt-timer").set_checked(False)
        page.select_option("#opt-pace", "slow")
        chosen = page.evaluate(FORM_JS)
        page.reload()
        page.wait_for_selector('html[data-ready="1"]', state="attached",
                               timeout=BOOT_TIMEOUT_MS)
        assert page.evaluate(FORM_JS) == chosen
    finally:
        context.close()



def _red_rolls_a_third_six(state: object) -> bool:
    if state.phase != "roll" or state.turn != "red":  # type: ignore[attr-defined]
        return False
    return any(e["type"] == "three_sixes" for e in apply(state, Action("roll"))[1])


@pytest.fixture
def third_six_ahead(browser: Browser, server_url: str) -> Iterator[Page]:
    """Two people on a phone; red's next roll is a third 6 (its notice stands 4 s)."""
    save = _saved("courtyard", ("red", "yellow"), {}, _red_rolls_a_third_six)
    page = _boot(browser, server_url, save, "?auto_delay=0",
                 viewport={"width": 360, "height": 640}, has_touch=True, is_mobile=True)
    try:
        yield page
    finally:
        page.context.close()


def test_a_notice_goes_when_the_next_person_rolls(third_six_ahead: Page) -> None:
    # "Three sixes: Red's roll is void and the die passes." stands over the middle of the
    # board for 4 s. Yellow rolls at once, and the token it is to play (or watch play by
    # itself) stood under the notice, hidden, for the rest of those 4 s (seen on a phone
    # with a token on the left and right arms). The player who pressed the die has seen it;
    # it goes with their roll.
    page = third_six_ahead
    page.wait_for_selector("#die.ready")
    page.click("#die")
    page.wait_for_selector("#board-notice:not([hidden])")
    assert "Three sixes" in page.inner_text("#board-notice")
    page.wait_for_selector('#die.ready[data-seat="yellow"]')
    count = "JSON.parse(localStorage.getItem('courtyard-ludo/save')).record.actions.length"
    before = page.evaluate(count)
    page.click("#die")
    hidden, after = page.evaluate(f"() => [document.getElementById('board-notice').hidden,"
                                  f" {count}]")
    assert after == before + 1  # yellow rolled
    assert hidden


@pytest.fixture
def four_seat_game_over(browser: Browser, server_url: str) -> Iterator[Page]:
    """A four-seat game just won, on a phone held sideways (640 x 360)."""
    save = _saved("courtyard", ("red", "green", "yellow", "blue"), {},
                  lambda state: state.phase == "over",  # type: ignore[attr-defined]
                  names={"red": "Ada", "blue": "Bartholomew"}, steps=20_000)
    page = _boot(browser, server_url, save, "?auto_delay=0",
                 viewport={"width": 640, "height": 360}, has_touch=True, is_mobile=True)
    try:
        yield page
    finally:
        page.context.close()


def test_the_winner_dialog_fits_a_phone_held_sideways(four_seat_game_over: Page) -> None:
    # At 640 x 360 the winner dialog of four seats was 63 px taller than the room it has: it
    # opened scrolled to its buttons, the crown cut in half at the top, and the title,
    # standings and buttons could not be seen together. On a short screen the crown (a
    # picture) goes and the dialog's margins shrink.
    page = four_seat_game_over
    page.wait_for_selector("#dlg-winner[open]")
    sizes = page.evaluate("""() => { const d = document.getElementById('dlg-winner');
        return [d.scrollHeight, d.clientHeight,
                document.getElementById('winner-title').getBoundingClientRect().top,
                document.getElementById('winner-rematch').getBoundingClientRect().bottom,
                window.innerHeight]; }""")
    scroll_height, client_height, title_top, buttons_bottom, height = sizes
    assert scroll_height <= client_height, sizes
    assert 0 <= title_top and buttons_bottom <= height, sizes


def test_a_setup_error_is_shown_where_the_player_looks(browser: Browser,
                                                        server_url: str) -> None:
    # On a phone, one colour ticked and Start game tapped (the button stays at the bottom of
    # the screen): "Choose 2 to 4 colours to play." appeared beside the seats, 600 px below
    # the fold, so nothing seemed to happen. The error is scrolled into view, above the
    # Start button that stands over the form's bottom.
    context = browser.new_context(reduced_motion="reduce", viewport={"width": 360, "height": 640},
                                  has_touch=True, is_mobile=True)
    page = context.new_page()
    try:
        page.goto(server_url)
        page.wait_for_selector('html[data-ready="1"]', state="attached",
                               timeout=BOOT_TIMEOUT_MS)
        page.locator('input[name="seat"][value="yellow"]').set_checked(False)
        page.evaluate("window.scrollTo(0, 0)")
        page.locator("#btn-start").tap()
        page.wait_for_selector("#setup-error:not([hidden])")
        error, start = page.evaluate("""() => [
            document.getElementById('setup-error').getBoundingClientRect().toJSON(),
            document.getElementById('btn-start').getBoundingClientRect().toJSON()]""")
        assert error["top"] >= 0 and error["bottom"] <= start["top"], (error, start)
    finally:
        context.close()
