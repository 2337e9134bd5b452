"""The game in a real browser: boot, complete games by mouse and keyboard, auto-move,
reload, Home, quit, the turn timer and a corrupted save.

The page boots once per module; each test starts its games from the home screen.  The test
side predicts what the page must do with the same engine in CPython: it reads the page's
position through the read-only ``window.ludo`` hook.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from app.savegame import Session, encode
from ludo import (
    Action,
    apply,
    distinct_moves,
    parse_position,
    record_from_json,
    replay,
    resolve,
)
from ludo.notation import Record

BOOT_TIMEOUT_MS = 60_000
FAST = "?auto_delay=0&pace_ms=0"
SAVE_KEY = "courtyard-ludo/save"


def _new_page(browser: Browser, url: str) -> Page:
    context = browser.new_context(reduced_motion="reduce", viewport={"width": 1100, "height": 800})
    page = context.new_page()
    page.console_errors = []
    page.requests = []
    # (a page that is not HTML, such as the manifest a test stores a save from, makes the
    # browser ask for /favicon.ico, which is not there: not the app's error)
    page.on("console", lambda m: page.console_errors.append(m.text) if m.type == "error"
            and not m.location.get("url", "").endswith("/favicon.ico") else None)
    page.on("pageerror", lambda e: page.console_errors.append(f"pageerror: {e}"))
    page.on("request", lambda r: page.requests.append(r.url))
    page.goto(url)
    wait_ready(page)
    return page


def wait_ready(page: Page) -> None:
    page.wait_for_selector('html[data-ready="1"]', state="attached", timeout=BOOT_TIMEOUT_MS)


@pytest.fixture(scope="module")
def table(browser: Browser, server_url: str) -> Iterator[Page]:
    page = _new_page(browser, server_url + FAST)
    try:
        yield page
    finally:
        page.context.close()


def position(page: Page):
    return parse_position(page.evaluate("window.ludo.position()"))


def position_text(page: Page) -> str:
    return page.evaluate("window.ludo.position()")


def wait_change(page: Page, before: str) -> None:
    page.wait_for_function("prev => window.ludo.position() !== prev", arg=before, timeout=10_000)


def start_game(page: Page, seats: list[str], rules: str = "courtyard", timer: bool = False,
               names: dict[str, str] | None = None, kinds: dict[str, str] | None = None) -> None:
    page.goto(page.url.split("#")[0] + "#home")
    page.wait_for_selector("#screen-home:not([hidden])")
    page.check(f'input[name="rules"][value="{rules}"]')
    for colour in ("red", "green", "yellow", "blue"):
        box = page.locator(f'input[name="seat"][value="{colour}"]')
        box.set_checked(colour in seats)
        if colour in seats:  # an unticked seat's fields are disabled (no Tab stops)
            page.fill(f'[name="name-{colour}"]', (names or {}).get(colour, ""))
            page.select_option(f'[name="kind-{colour}"]', (kinds or {}).get(colour, "human"))
    page.locator("#opt-timer").set_checked(timer)
    press_start(page)


def press_start(page: Page) -> None:
    """Start game, answering "Start the new game" when a game in progress is to be replaced."""
    page.click("#btn-start")
    page.wait_for_selector("#screen-table:not([hidden]), #dlg-replace[open]")
    if page.locator("#dlg-replace[open]").count():
        page.click("#replace-confirm")
    page.wait_for_selector("#screen-table:not([hidden])")


# Scrolls the element into view and gives its centre, in one round trip.
CENTRE_JS = """e => {
  e.scrollIntoView({block: 'nearest', inline: 'nearest'});
  const r = e.getBoundingClientRect();
  return {x: r.left + r.width / 2, y: r.top + r.height / 2};
}"""


def mouse_click(control: Locator) -> None:
    """Click the mouse at the centre of ``control``, as a person does. A locator's own click
    first waits for the element to stand still over two animation frames, which was most of
    a whole game's time; a covered element gets nothing from this click, and the game then
    fails to change, so a test still finds it."""
    centre = control.evaluate(CENTRE_JS)
    control.page.mouse.click(centre["x"], centre["y"])


def play_to_the_end(page: Page, max_steps: int = 4000) -> dict[str, int]:
    """Play through the UI, alternating mouse and keyboard; returns counts of what happened."""
    seen = {"mouse": 0, "keyboard": 0, "auto": 0, "choices": 0}
    for step in range(max_steps):
        text = position_text(page)
        state = parse_position(text)
        if state.phase == "over":
            return seen
        keyboard = step % 2 == 1
        if state.phase == "roll":
            rolled = resolve(state, Action("roll"))
            after, _ = apply(state, rolled)
            single = after.phase == "move" and len(distinct_moves(after)) == 1
            if keyboard:
                page.focus("#die")
                page.keyboard.press("Enter" if step % 4 == 1 else " ")
                seen["keyboard"] += 1
            else:
                mouse_click(page.locator("#die"))
                seen["mouse"] += 1
            wait_change(page, text)
            if single:
                # the only distinct move plays by itself: no click needed
                page.wait_for_function(
                    "prev => { const p = JSON.parse(window.ludo.position());"
                    " return p.phase !== 'move'; }", arg=None, timeout=10_000)
                seen["auto"] += 1
        else:
            moves = distinct_moves(state)
            assert len(moves) > 1, "a single move must have played automatically"
            seen["choices"] += 1
            tokens = page.locator("#board .token.movable")
            assert tokens.count() >= len(moves)
            # the move is chosen from the position, not from the page, so that a game of a
            # given seed is always the same game (see FOUR_PLAYER_SEED)
            token = str(moves[step % len(moves)].token)
            if keyboard:  # arrow keys from the first glowing token to the chosen one
                tokens.first.focus()
                for _ in range(8):
                    if page.evaluate("document.activeElement.dataset.token") == token:
                        break
                    page.keyboard.press("ArrowRight")
                else:
                    raise AssertionError(f"the arrow keys never reached token {token}")
                page.keyboard.press("Enter")
                seen["keyboard"] += 1
            else:
                mouse_click(page.locator(f'#board .token.movable[data-token="{token}"]'))
                seen["mouse"] += 1
            wait_change(page, text)
    raise AssertionError("the game did not finish")


def roll_until_choice(page: Page) -> str:
    """Click the die until the player must choose between moves; returns that position."""
    for _ in range(600):
        text = position_text(page)
        state = parse_position(text)
        if state.phase == "move" and len(distinct_moves(state)) > 1:
            return text
        if state.phase == "move":  # a single move is about to play by itself
            wait_change(page, text)
            continue
        page.click("#die")
        wait_change(page, text)
    raise AssertionError("no choice of moves came up")


def test_boot_is_same_origin_and_clean(table: Page, server_url: str) -> None:
    offsite = [u for u in table.requests
               if not u.startswith(server_url) and not u.startswith(("data:", "blob:"))]
    assert offsite == []
    assert table.console_errors == []
    assert table.is_visible("#screen-home")
    assert not table.is_visible("#loading")
    # the board the page painted before Python ran is the engine's board
    assert table.locator("#board rect[data-square]").count() == 52


def test_complete_two_player_game_by_mouse_and_keyboard(table: Page) -> None:
    start_game(table, ["red", "yellow"], names={"red": "Ada", "yellow": "Bo"})
    seen = play_to_the_end(table)
    assert seen["mouse"] and seen["keyboard"] and seen["auto"] and seen["choices"]
    state = position(table)
    assert state.winner in ("red", "yellow")
    dialog = table.locator("#dlg-winner")
    dialog.wait_for(state="visible")
    assert ("Ada" if state.winner == "red" else "Bo") in dialog.inner_text()
    assert "all four tokens home" in dialog.inner_text()
    # rematch: same seats, a fresh game
    table.click("#winner-rematch")
    table.wait_for_function("JSON.parse(window.ludo.position()).phase === 'roll'")
    again = position(table)
    assert again.seats == ("red", "yellow") and again.winner is None
    assert all(p == -1 for p in again.tokens[0])
    assert table.console_errors == []


# A game's length varies with its dice: 330 to 860 clicks for four players (over 300 seeds, as
# play_to_the_end chooses). The four-player game is one of a known seed, among the shortest,
# so that it costs the same in every run; the other whole games start from the form.
FOUR_PLAYER_SEED = 11


def boot_with(page: Page, save: str | None) -> None:
    """Boot the app again with ``save`` in its storage (stored from another page of the
    site), or with nothing stored."""
    base = page.url.split("?")[0].split("#")[0].rsplit("/", 1)[0] + "/"
    page.goto(base + "manifest.webmanifest")
    page.evaluate("save => { localStorage.clear(); if (save) localStorage.setItem("
                  f"{SAVE_KEY!r}, save); }}", save)
    page.goto(base + FAST)
    wait_ready(page)


def test_complete_four_player_game(table: Page) -> None:
    seats = ("red", "green", "yellow", "blue")
    boot_with(table, encode(Session(record=Record("classic", seats, FOUR_PLAYER_SEED, (), ()),
                                    names={}, players={}, timer=False)))
    assert table.is_visible("#screen-table")
    seen = play_to_the_end(table)
    assert seen["mouse"] and seen["keyboard"]
    assert position(table).winner is not None
    table.locator("#dlg-winner").wait_for(state="visible")
    table.click("#winner-home")
    table.wait_for_selector("#screen-home:not([hidden])")
    assert table.console_errors == []


def test_roll_highlights_tokens_and_announces(table: Page) -> None:
    start_game(table, ["red", "green", "yellow"])
    state = parse_position(roll_until_choice(table))
    assert len(distinct_moves(state)) > 1
    movable = table.locator("#board .token.movable")
    legal = json.loads(table.evaluate("window.ludo.legal()"))
    assert {int(t) for t in movable.evaluate_all("els => els.map(e => e.dataset.token)")} == {
        a["token"] for a in legal}
    assert table.locator("#board .token.movable").first.get_attribute("aria-label")
    told = table.inner_text("#announcer")
    assert "rolled" in told
    # the roll just announced is not said again ("Red rolled a 6. You rolled 6: ..."), and the
    # words fit a mouse, a finger and a keyboard (not "tap its token", "a glowing token")
    assert "You rolled" not in told and "Choose a highlighted token" in told, told
    hint = table.inner_text("#die-hint")
    assert "click or tap it, or use the arrow keys and Enter" in hint  # a mouse: a keyboard
    assert table.evaluate("document.activeElement.classList.contains('movable')")


def test_reload_mid_turn_restores_the_game(table: Page) -> None:
    start_game(table, ["red", "yellow"])
    before = roll_until_choice(table)
    table.reload()
    wait_ready(table)
    assert table.is_visible("#screen-table")
    assert position_text(table) == before
    # whose turn, said from the names: not the swatch's hidden letter first ("RRed's turn")
    turn = parse_position(before).turn
    assert table.inner_text("#announcer").startswith(f"{turn.capitalize()}'s turn. ")
    # the same roll can still be played after the reload
    table.locator("#board .token.movable").first.click()
    wait_change(table, before)


def test_home_keeps_the_game_and_resume_returns(table: Page) -> None:
    start_game(table, ["red", "green"])
    during = roll_until_choice(table)
    table.click("#btn-home")
    table.wait_for_selector("#screen-home:not([hidden])")
    assert table.is_visible("#resume-box")
    # Start game asks before it replaces the game in progress; the safe answer has the focus
    table.click("#btn-start")
    table.locator("#dlg-replace").wait_for(state="visible")
    assert table.evaluate("document.activeElement.id") == "replace-cancel"
    assert "in progress" in table.inner_text("#replace-text")
    table.keyboard.press("Escape")
    table.click("#btn-start")
    table.click("#replace-cancel")  # "Keep that game": nothing changes
    table.locator("#dlg-replace").wait_for(state="hidden")
    assert table.is_visible("#screen-home") and position_text(table) == during
    table.click("#btn-resume")
    table.wait_for_selector("#screen-table:not([hidden])")
    assert position_text(table) == during
    # the rules screen, opened mid-game, says the game is waiting and leads back to it
    table.click('a[data-nav="rules"]')
    table.wait_for_selector("#screen-rules:not([hidden])")
    assert table.is_visible("#rules-resume")
    assert "A Courtyard game is in progress (2 players;" in table.inner_text("#rules-resume-text")
    table.click("#btn-rules-resume")
    table.wait_for_selector("#screen-table:not([hidden])")
    assert position_text(table) == during


def test_quit_flow_last_player_remaining_wins(table: Page) -> None:
    start_game(table, ["red", "green", "yellow"])
    state = position(table)
    table.click("#btn-quit")
    dialog = table.locator("#dlg-quit")
    dialog.wait_for(state="visible")
    assert "All your tokens will be removed, and you cannot rejoin this match." in \
        dialog.inner_text()
    # the safe answer has the focus; three people here: nothing about online or computers
    assert table.evaluate("document.activeElement.id") == "quit-cancel"
    assert "On a shared device" in dialog.inner_text()
    assert "Online and computer" not in dialog.inner_text()
    table.click("#quit-cancel")
    assert position(table) == state  # cancelling changes nothing
    quitter = state.turn
    table.click("#btn-quit")
    table.select_option("#quit-seat", quitter)
    table.click("#quit-confirm")
    table.wait_for_function(f"JSON.parse(window.ludo.position()).out.{quitter} === 'quit'")
    after = position(table)
    assert after.turn != quitter and after.phase == "roll"
    spoken = table.inner_text("#announcer")
    assert "quit the game" in spoken and f"{after.turn.capitalize()}'s turn" in spoken
    assert after.tokens[("red", "green", "yellow", "blue").index(quitter)] == ()
    remaining = [c for c in after.seats if c != quitter]
    # a seat that is not playing quits: the player to act keeps the time they had
    other = next(c for c in remaining if c != after.turn)
    deadline = saved_deadline(table)
    table.wait_for_timeout(50)
    table.click("#btn-quit")
    table.select_option("#quit-seat", other)
    # a notice still over the board (as a last turn's can be) goes when the winner is shown
    table.evaluate("() => { const n = document.getElementById('board-notice');"
                   " n.textContent = 'Red is stuck with a 6'; n.hidden = false; }")
    table.click("#quit-confirm")
    table.locator("#dlg-winner").wait_for(state="visible")
    assert table.locator("#board-notice").is_hidden()
    # no empty lines under "Winner:" (where "Next", the hint and the clock stood)
    assert table.locator("#next").is_hidden() and table.locator("#die-hint").is_hidden()
    gap = table.evaluate("document.getElementById('seats').getBoundingClientRect().top"
                         " - document.getElementById('turn').getBoundingClientRect().bottom")
    assert gap < 24
    assert position(table).winner == after.turn
    assert saved_deadline(table) == deadline
    assert "last player remaining" in table.inner_text("#dlg-winner")
    table.click("#winner-home")
    # a game that is over is replaced without a question
    table.wait_for_selector("#screen-home:not([hidden])")
    table.click("#btn-start")
    table.wait_for_selector("#screen-table:not([hidden])")
    assert not table.locator("#dlg-replace[open]").count()


def test_back_from_the_table_closes_its_dialogs(table: Page) -> None:
    """Back away from the table takes its quit and winner dialogs with it (a winner dialog
    stood over the home screen, its Rematch acting on a table no longer shown); Forward to a
    finished game shows the winner again."""
    start_game(table, ["red", "green"])
    state = position(table)
    table.click("#btn-quit")
    table.locator("#dlg-quit").wait_for(state="visible")
    table.go_back()
    table.wait_for_selector("#screen-home:not([hidden])")
    assert not table.evaluate("document.getElementById('dlg-quit').open")
    table.go_forward()
    table.wait_for_selector("#screen-table:not([hidden])")
    assert position(table) == state  # nobody quit
    table.click("#btn-quit")
    table.select_option("#quit-seat", "red")
    table.click("#quit-confirm")
    table.locator("#dlg-winner").wait_for(state="visible")
    # the focus opens on the dialog's heading, not on Home: an Enter meant for the die or a
    # token (pressed as the last move played) took the player Home within 50 ms, unseen
    assert table.evaluate("document.activeElement.id") == "winner-title"
    table.keyboard.press("Enter")
    table.wait_for_timeout(200)
    assert table.evaluate("document.getElementById('dlg-winner').open")
    table.keyboard.press("Tab")
    assert table.evaluate("document.activeElement.id") == "winner-home"
    table.go_back()
    table.wait_for_selector("#screen-home:not([hidden])")
    table.wait_for_function("!document.getElementById('dlg-winner').open")
    table.wait_for_timeout(300)  # the dialog's close event has run: it did not move us on
    assert table.url.endswith("#home") and table.is_visible("#screen-home")
    table.go_forward()
    table.locator("#dlg-winner").wait_for(state="visible")
    assert position(table).winner == "green"
    table.click("#winner-home")
    table.wait_for_selector("#screen-home:not([hidden])")
    assert not table.evaluate("document.getElementById('dlg-winner').open")


def test_an_address_naming_no_screen_is_made_to_name_the_one_shown(table: Page) -> None:
    """Junk typed into the address bar leaves the screen as it is and the address naming it,
    so Back to that entry shows that screen; before, the junk stayed in the history and Back
    to it from Home kept Home on screen (Back seemed to do nothing)."""
    start_game(table, ["red", "green"])
    table.evaluate("location.hash = '#nowhere'")
    table.wait_for_function("location.hash === '#table'")
    assert table.is_visible("#screen-table")
    table.click("#btn-home")
    table.wait_for_selector("#screen-home:not([hidden])")
    table.go_back()
    table.wait_for_selector("#screen-table:not([hidden])")
    assert table.url.endswith("#table")


def test_the_table_address_with_no_game_is_made_home(browser: Browser,
                                                     server_url: str) -> None:
    """A page opened at ``#table`` with no game (an old bookmark) shows Home and its address
    says so. It kept ``#table``, so Start game added no history entry and Back from the new
    game left the page instead of returning to Home."""
    page = _new_page(browser, server_url + FAST + "#table")
    try:
        assert page.is_visible("#screen-home") and page.url.endswith("#home"), page.url
        press_start(page)
        assert page.url.endswith("#table")
        page.go_back()
        page.wait_for_selector("#screen-home:not([hidden])")
        assert page.url.endswith("#home")
    finally:
        page.context.close()


def test_back_to_home_is_where_the_page_opens_next_time(table: Page) -> None:
    """Back from the table to Home is kept with the game as the Home button is: the page
    opened again without an address opens Home, not the table (it did)."""
    start_game(table, ["red", "green"])
    table.go_back()
    table.wait_for_selector("#screen-home:not([hidden])")
    table.goto(table.url.split("#")[0])
    wait_ready(table)
    assert table.is_visible("#screen-home") and not table.url.endswith("#table")
    table.click("#btn-resume")
    table.wait_for_selector("#screen-table:not([hidden])")


def test_back_to_home_shows_home_from_its_top(table: Page) -> None:
    """Back from the table shows Home from its top, as the Home button does: the note that a
    game is in progress (with Resume game) and the focused heading in view. The browser's own
    scroll restoration put Home back where it was left when Start game was pressed, at the
    foot of the form (888 px down on a phone), below both."""
    table.goto(table.url.split("#")[0] + "#home")
    table.wait_for_selector("#screen-home:not([hidden])")
    start_game(table, ["red", "green"])
    table.goto(table.url.split("#")[0] + "#home")
    table.wait_for_selector("#screen-home:not([hidden])")
    table.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    assert table.evaluate("window.scrollY") > 200  # the form is longer than the view
    # pressed where Home was left (as the Start button, kept in view at the foot of the form)
    table.evaluate("document.getElementById('btn-resume').click()")
    table.wait_for_selector("#screen-table:not([hidden])")
    table.go_back()
    table.wait_for_selector("#screen-home:not([hidden])")
    table.wait_for_timeout(300)  # any scroll the browser restores has happened
    assert table.evaluate("window.scrollY") == 0
    assert table.evaluate("document.activeElement.id") == "home-title"
    expect(table.locator("#btn-resume")).to_be_in_viewport()


def test_off_the_table_only_a_persons_turn_is_said(browser: Browser, server_url: str) -> None:
    """At Home while computers play on, the announcer does not say each of their moves ending
    "Tap the die" (no die there); it says once that the turn came to the person here."""
    # computers slow enough (1.5 s an action) that Home is shown before they have played
    page = _new_page(browser, server_url + "?auto_delay=0&pace_ms=1500")
    try:
        start_game(page, ["red", "green", "yellow"],
                   kinds={"green": "easy", "yellow": "easy"})
        for _ in range(200):  # red plays until the turn goes to the computers
            state = position(page)
            if state.turn != "red":
                break
            text = position_text(page)
            if state.phase == "roll":
                page.click("#die")
            else:
                page.locator("#board .token.movable").first.click()
            page.wait_for_function(
                "prev => window.ludo.position() !== prev", arg=text, timeout=10_000)
        page.click("#btn-home")
        page.wait_for_selector("#screen-home:not([hidden])")
        before = position_text(page)
        page.evaluate("""() => {
            window.__said = [];
            new MutationObserver(() => window.__said.push(
                document.getElementById('announcer').textContent))
              .observe(document.getElementById('announcer'),
                       {childList: true, characterData: true, subtree: true});
        }""")
        page.wait_for_function(
            "(() => { const p = JSON.parse(window.ludo.position());"
            " return p.turn === 'red' && p.phase === 'roll'; })()", timeout=30_000)
        page.wait_for_timeout(300)
        said = [text.strip() for text in page.evaluate("window.__said") if text.strip()]
        assert position_text(page) != before  # the computers played while Home was shown
        assert said == ["Red's turn. Go back to the table to play."], said
    finally:
        page.context.close()


def saved_deadline(page: Page) -> float:
    return json.loads(page.evaluate(f"localStorage.getItem({SAVE_KEY!r})"))["deadline"]


def test_corrupted_save_offers_a_new_game(browser: Browser, server_url: str) -> None:
    page = _new_page(browser, server_url)
    try:
        page.evaluate(f"localStorage.setItem({SAVE_KEY!r}, '{{not json')")
        page.reload()
        wait_ready(page)
        dialog = page.locator("#dlg-error")
        dialog.wait_for(state="visible")
        assert "could not be loaded" in dialog.inner_text()
        page.click("#error-new")
        dialog.wait_for(state="hidden")
        page.wait_for_function(f"localStorage.getItem({SAVE_KEY!r}) === null")
        page.wait_for_selector("#screen-home:not([hidden])")
        assert page.evaluate(f"localStorage.getItem({SAVE_KEY!r})") is None
        # an incompatible version is explained too
        page.evaluate(f"localStorage.setItem({SAVE_KEY!r}, JSON.stringify("
                      "{format: 'courtyard-ludo/save', version: 99}))")
        page.reload()
        wait_ready(page)
        page.locator("#dlg-error").wait_for(state="visible")
        assert "incompatible version" in page.inner_text("#dlg-error")
        page.click("#error-new")
        page.wait_for_function(f"localStorage.getItem({SAVE_KEY!r}) === null")
        # absurdly deep nesting is refused before parsing (it would overflow the JS stack)
        page.evaluate(f"localStorage.setItem({SAVE_KEY!r}, '['.repeat(100000))")
        page.reload()
        wait_ready(page)
        page.locator("#dlg-error").wait_for(state="visible")
        assert "not readable" in page.inner_text("#dlg-error")
        assert page.console_errors == []
    finally:
        page.context.close()


def test_the_quit_dialog_keeps_up_with_a_game_that_goes_on(browser: Browser,
                                                            server_url: str) -> None:
    """The quit dialog left open while the clock plays on (seed review 5c): a seat eliminated
    meanwhile leaves its list, and its words become the two-left ones; a game won meanwhile
    closes it, under the winner dialog (it stayed open there, and confirming it did nothing)."""
    page = _new_page(browser, server_url + "?turn_seconds=1&auto_delay=0")
    try:
        start_game(page, ["red", "green", "blue"], timer=True)
        page.click("#btn-quit")
        page.locator("#dlg-quit").wait_for(state="visible")
        assert "continue" in page.inner_text("#quit-text")
        page.wait_for_function("Object.values(JSON.parse(window.ludo.position()).out)"
                               ".includes('eliminated')", timeout=40_000)
        gone = ("red", "green", "yellow", "blue")[position(page).out.index("eliminated")]
        page.wait_for_function(
            "s => ![...document.querySelectorAll('#quit-seat option')].some(o => o.value === s)",
            arg=gone, timeout=5_000)
        assert page.evaluate("document.getElementById('dlg-quit').open")
        assert "Only one player would be left" in page.inner_text("#quit-text")
        page.locator("#dlg-winner").wait_for(state="visible", timeout=40_000)
        assert not page.evaluate("document.getElementById('dlg-quit').open")
    finally:
        page.context.close()


def test_timer_expiry_times_out_and_eliminates(browser: Browser, server_url: str) -> None:
    page = _new_page(browser, server_url + "?turn_seconds=1&auto_delay=0")
    try:
        # what the screen reader is told, every text of it
        # ... and what is said over the board
        page.evaluate("""() => { window.said = []; window.noticed = [];
            new MutationObserver(records => records.forEach(r => r.addedNodes.forEach(
                n => window.said.push(n.textContent))))
              .observe(document.getElementById('announcer'),
                       {childList: true, subtree: true});
            const notice = document.getElementById('board-notice');
            new MutationObserver(() => window.noticed.push(notice.textContent))
              .observe(notice, {childList: true, subtree: true}); }""")
        start_game(page, ["red", "blue"], timer=True)
        assert page.is_visible("#timer")
        # a person short of time is told so (the bar turning red is not heard)
        page.wait_for_function("window.said.some(t => /1 second left for (Red|Blue)/.test(t))")
        # Home leaves the table without quitting: the clocks keep running meanwhile
        page.click("#btn-home")
        page.wait_for_selector("#screen-home:not([hidden])")
        page.wait_for_function("Object.values(JSON.parse(window.ludo.position()).timeouts)"
                               ".reduce((a, b) => a + b, 0) >= 2", timeout=20_000)
        page.click("#btn-resume")
        page.locator("#dlg-winner").wait_for(state="visible", timeout=40_000)
        state = position(page)
        loser = "red" if state.winner == "blue" else "blue"
        assert state.out[("red", "green", "yellow", "blue").index(loser)] == "eliminated"
        assert state.timeouts[("red", "green", "yellow", "blue").index(loser)] == 5
        assert "timeouts 5/5" in page.inner_text("#seats")
        # a timeout and the elimination stand over the board, not only in the log
        noticed = " | ".join(page.evaluate("window.noticed"))
        name = loser.capitalize()
        assert f"{name} ran out of time (5 of 5). {name} is out after a fifth timeout; their " \
               "tokens are removed." in noticed, noticed
        assert f"{name} ran out of time (1 of 5)." in noticed, noticed
        page.click("#winner-home")
        assert page.console_errors == []
    finally:
        page.context.close()


def test_a_running_clock_writes_only_what_changed(table: Page) -> None:
    """The turn clock is drawn four times a second; an idle table with the clock running
    writes its seconds once a second and nothing else but the bar (each write is a style,
    layout and paint: the same words written again kept an idle page a tenth of a core busy)."""
    start_game(table, ["red", "green"], timer=True)
    table.wait_for_selector("#timer:not([hidden])")
    writes = table.evaluate("""() => new Promise(done => {
        const seen = [];
        const observer = new MutationObserver(records => records.forEach(r => seen.push(
            (r.target.id || r.target.parentElement.id || r.target.className.baseVal
             || r.target.className) + ' ' + r.type + ' ' + (r.attributeName || ''))));
        for (const id of ['timer', 'away-clock', 'seats', 'board']) {
            observer.observe(document.getElementById(id), {subtree: true, childList: true,
                attributes: true, characterData: true});
        }
        setTimeout(() => { observer.disconnect(); done(seen); }, 2000);
    })""")
    bar = [w for w in writes if w.startswith("timer-fill ")]
    rest = [w for w in writes if not w.startswith("timer-fill ")]
    assert len(bar) >= 4, writes  # the bar still steps down four times a second
    # two seconds: the seconds change twice or three times (the panel's, the seat box's and
    # the label), nothing else is written
    assert len(rest) <= 3 * 4, rest
    assert not [w for w in rest if "hidden" in w or "class" in w], rest


@pytest.mark.parametrize("failure", [
    # a full storage: every write throws
    """Storage.prototype.setItem = function () {
           throw new DOMException('full', 'QuotaExceededError'); };""",
    # a blocked storage: even looking at window.localStorage throws
    """Object.defineProperty(window, 'localStorage', {
           get() { throw new DOMException('denied', 'SecurityError'); } });""",
])
def test_storage_failure_is_reported_and_play_goes_on(browser: Browser, server_url: str,
                                                      failure: str) -> None:
    context = browser.new_context(reduced_motion="reduce")
    context.add_init_script(failure)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(server_url + FAST)
        wait_ready(page)
        start_game(page, ["red", "green"])
        warning = page.locator("#save-warning")
        warning.wait_for(state="visible")
        assert "cannot be saved" in warning.inner_text()
        text = position_text(page)
        page.click("#die")
        wait_change(page, text)  # the game carries on
        assert errors == []
    finally:
        context.close()


@pytest.mark.faults_expected
def test_an_unexpected_error_is_one_line_with_reload_not_tracebacks(browser: Browser,
                                                                     server_url: str) -> None:
    # A fault the code did not foresee (here the browser's clock stops giving numbers, so the
    # die's handler fails): the traceback goes to the console, the player gets one line and a
    # Reload button that brings back the same game; PyScript draws nothing over the page.
    page = _new_page(browser, server_url + FAST)
    try:
        start_game(page, ["red", "yellow"])
        before = position_text(page)
        page.evaluate("Date.now = () => 'not a time'")
        page.click("#die")
        banner = page.locator("#fault-banner")
        banner.wait_for(state="visible")
        assert banner.get_attribute("role") == "alert"
        assert "Your game is saved: reload to go on." in banner.inner_text()
        assert any("unexpected error" in e and "ValueError" in e for e in page.console_errors)
        assert not any(e.startswith("pageerror") for e in page.console_errors)
        assert page.locator(".py-error, .mpy-error, script-py *").count() == 0
        assert position_text(page) == before
        with page.expect_navigation():
            page.click("#btn-fault-reload")
        wait_ready(page)
        assert page.is_hidden("#fault-banner")
        assert position_text(page) == before
        text = position_text(page)
        page.click("#die")
        wait_change(page, text)  # and the game goes on
    finally:
        page.context.close()


def test_double_click_on_the_die_rolls_once(table: Page) -> None:
    start_game(table, ["red", "yellow"])
    for _ in range(8):
        record = json.loads(table.evaluate(f"localStorage.getItem({SAVE_KEY!r})"))["record"]
        state = position(table)
        if state.phase != "roll":
            roll_until_choice(table)
            table.locator("#board .token.movable").first.click()
            continue
        table.dblclick("#die")
        table.wait_for_timeout(150)
        after = json.loads(table.evaluate(f"localStorage.getItem({SAVE_KEY!r})"))["record"]
        states = replay(record_from_json(after))
        # every action since the double click was the roller's own (a roll and any
        # automatic move): the next player's die was not rolled by the second click
        for before in states[len(record["actions"]):-1]:
            assert before.turn == state.turn
        table.wait_for_function("!document.querySelector('#die').hasAttribute('aria-disabled')"
                                " || JSON.parse(window.ludo.position()).phase === 'move'")


def test_board_behind_home_is_not_playable(table: Page) -> None:
    start_game(table, ["red", "green"])
    choice = roll_until_choice(table)
    table.click("#btn-home")
    table.wait_for_selector("#screen-home:not([hidden])")
    assert table.locator("#board .token.movable").count() == 0
    token = parse_position(choice).turn
    table.locator(f"#board .token-{token}").first.click(force=True)
    table.wait_for_timeout(100)
    assert position_text(table) == choice


def test_skip_link_stays_on_the_table_and_goes_to_the_die(table: Page) -> None:
    start_game(table, ["red", "green"])
    table.focus(".skip")
    table.keyboard.press("Enter")
    # the control to use now, not the panel's first button; no "#panel" in the address
    table.wait_for_function("document.activeElement && document.activeElement.id === 'die'")
    assert table.is_visible("#screen-table") and table.url.endswith("#table")


@contextmanager
def two_tabs_of_one_game(browser: Browser, server_url: str) -> Iterator[tuple[Page, Page]]:
    """Two tabs of one browser: a two-seat game started in the first, then the table opened
    in the second, which plays it now (the first shows the banner saying so)."""
    context = browser.new_context(reduced_motion="reduce")
    try:
        first = context.new_page()
        first.goto(server_url + FAST)
        wait_ready(first)
        start_game(first, ["red", "green"])
        second = context.new_page()
        second.goto(server_url + FAST + "#table")
        wait_ready(second)
        first.locator("#tab-banner").wait_for(state="visible")
        yield first, second
    finally:
        context.close()


def test_a_second_tab_takes_the_table_and_the_first_follows(browser: Browser,
                                                           server_url: str) -> None:
    with two_tabs_of_one_game(browser, server_url) as (first, second):
        # the newest tab plays; the first one says so and stops playing
        assert second.is_hidden("#tab-banner")
        assert first.is_disabled("#die")
        text = position_text(second)
        second.click("#die")
        wait_change(second, text)
        # the first tab follows the saves of the second
        first.wait_for_function("p => window.ludo.position() === p",
                                arg=position_text(second), timeout=5_000)
        first.click("#btn-play-here")
        second.locator("#tab-banner").wait_for(state="visible")
        assert first.is_hidden("#tab-banner")
        assert position_text(first) == position_text(second)


def test_a_tab_that_followed_a_game_to_its_end_says_it_ended_there(
        browser: Browser, server_url: str) -> None:
    # its banner went on saying "This game is open in another tab, which plays it now." after
    # the game had ended in that tab, where nobody plays it now (player10); the same for the
    # tab that ended it, when the first takes the table back
    with two_tabs_of_one_game(browser, server_url) as (first, second):
        assert first.inner_text("#tab-banner-text").startswith("This game is open in another")
        second.click("#btn-quit")  # red quits: green, the last one in play, wins
        second.locator("#dlg-quit").wait_for(state="visible")
        second.select_option("#quit-seat", "red")
        second.click("#quit-confirm")
        second.locator("#dlg-winner").wait_for(state="visible")
        ended = ("This game has ended. Another tab plays the next one; press Play here to play "
                 "it in this tab.")
        first.wait_for_function("t => document.getElementById('tab-banner-text').textContent "
                                "=== t", arg=ended, timeout=5_000)
        first.click("#btn-play-here")  # this tab takes over, for what comes next
        second.locator("#tab-banner").wait_for(state="visible")
        assert second.inner_text("#tab-banner-text") == ended


def test_a_tab_that_does_not_play_takes_the_focus_at_its_table_and_says_so(
        browser: Browser, server_url: str) -> None:
    """Back and Forward in a tab another one plays from: the line saying whose turn it is
    takes the focus (it fell to the page itself, the focus left on the hidden Home's
    heading), and a screen reader hears that another tab plays, not "Tap the die", as its
    prompt line shows. Its "Play here" gives the focus to the die (it fell to the page with
    the button)."""
    with two_tabs_of_one_game(browser, server_url) as (first, second):
        first.go_back()
        first.wait_for_selector("#screen-home:not([hidden])")
        first.go_forward()
        first.wait_for_selector("#screen-table:not([hidden])")
        assert first.evaluate("document.activeElement.id") == "turn"
        told = first.inner_text("#announcer")
        assert "another tab" in told and "Tap the die" not in told, told
        # its prompt line says the same, not what a press of its (disabled) die would do
        hint = first.inner_text("#die-hint")
        assert "another tab" in hint and "Play here" in hint and "Tap" not in hint, hint
        # the tab that plays: Back and Forward give the focus to the die, as before
        second.evaluate("location.hash = '#rules'")
        second.wait_for_selector("#screen-rules:not([hidden])")
        second.go_back()
        second.wait_for_selector("#screen-table:not([hidden])")
        assert second.evaluate("document.activeElement.id") == "die"
        # "Play here": the die takes the focus from the button, hidden now
        first.click("#btn-play-here")
        second.locator("#tab-banner").wait_for(state="visible")
        assert first.evaluate("document.activeElement.id") == "die"
        assert "Tap the die" in first.inner_text("#announcer")


def test_the_record_downloads_and_replays_to_the_position_shown(table: Page) -> None:
    start_game(table, ["red", "yellow"])
    roll_until_choice(table)
    table.click("#btn-details")
    with table.expect_download() as info:
        table.click("#btn-record")
    download = info.value
    name = download.suggested_filename
    assert name.startswith("ludo-courtyard-") and name.endswith("-actions.json"), name
    data = json.loads(Path(download.path()).read_text(encoding="utf-8"))
    assert data["version"] == 2 and "dice" not in data  # offline: the seed gives every roll
    assert replay(record_from_json(data))[-1] == position(table)
    table.click("#btn-details")
    assert table.console_errors == []


def test_a_roll_with_no_move_is_shown_over_the_board(table: Page) -> None:
    # Classic: a token leaves the yard only on a 6, so a roll of 1-5 with every token in the
    # yard has no move and the die passes at once; the roll is said over the board, not only
    # in the log
    start_game(table, ["red", "yellow"], rules="classic")
    for _ in range(200):
        before = position(table)
        text = position_text(table)
        if before.phase == "move":  # a choice of moves: play one
            table.locator("#board .token.movable").first.click()
            wait_change(table, text)
            continue
        table.click("#die")
        wait_change(table, text)
        last = record_from_json(json.loads(table.evaluate(
            f"localStorage.getItem({SAVE_KEY!r})"))["record"]).actions[-1]
        if last.type == "roll" and last.value != 6 and position(table).turn != before.turn:
            # the save is written before the notice is drawn, so wait for the words: read at
            # once they could still be the previous no-move roll's (failed so in a CI run)
            expect(table.locator("#board-notice")).to_have_text(
                f"{before.turn.capitalize()} rolled a {last.value}: no move.", timeout=5000)
            assert table.console_errors == []
            return
    raise AssertionError("no roll without a move came up")
