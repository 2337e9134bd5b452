"""Royal Ludo in a real browser: the board's crown and feather spaces, the die's crown and
feather faces, a double made, carried and moved off alone, the two-crowns choice reversing a
double, a reload while that choice waits, a lost throw told, and a whole game against the
computers by mouse, keyboard and touch.

The page boots once for the module and again for each constructed position: a test stores a
saved game whose record leads to the position it needs (records replay exactly and carry
their throws), then reloads. The record's seed is picked so that the page's own dice -- drawn
from the position's generator, one draw per throw whatever the record gave -- throw what the
test needs next; the test side predicts every step with the same engine in CPython.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator, Sequence

import pytest
from playwright.sync_api import Browser, Page
from test_app_play import (
    BOOT_TIMEOUT_MS,
    SAVE_KEY,
    parse_position,
    position_text,
    start_game,
    wait_ready,
)

from app.savegame import Session, encode
from ludo import Action, Record, distinct_moves, replay
from ludo.rng import roll_die
from ludo.rules.royal import FACES

FAST = "?auto_delay=0&pace_ms=0"
WAIT_MS = 30_000
NAMES = {"red": "Ada", "green": "Bo"}
EMOJI = ("\U0001F451", "\U0001FAB6", "\u2655", "\u265B")  # crown, feather, chess queens


def roll(value: int | str) -> Action:
    return Action("roll", value=value)


def move(token: int) -> Action:
    return Action("move", token=token)


# Red and green, both people at this device. Red: a feather (lost: no man out); green: a 2
# (lost). Red: a crown starts man 1, a 1 takes him to 1. Green: a crown starts man 1, a 1
# takes him to 14. Red: a crown takes man 1 on to green's starting point (13); another crown
# starts man 2; then a 1, and red chooses: man 1 onto green's man on 14 (a double), or man 2.
DOUBLE_AHEAD = (roll("feather"), roll(2), roll("crown"), move(0), roll(1), move(0),
                roll("crown"), move(0), roll(1), move(0), roll("crown"), move(0),
                roll("crown"), move(1), roll(1))
# ... red makes the double; green throws a crown and must carry it on to the next crown space
# (yellow's starting point, 26), and throws again: a carrier's second crown in succession.
CARRIER_THROWS_AGAIN = DOUBLE_AHEAD + (move(0), roll("crown"), move(0))
# Red: a crown starts man 1, a feather takes him to 8; green's feather is lost (no man out).
# Red's next feather would have to pass green's starting point (a crown space) to reach 21.
FEATHER_AHEAD = (roll("crown"), move(0), roll("feather"), move(0), roll("feather"))


def upcoming(state, count: int) -> list[int | str]:
    """The faces the page's dice will throw next from ``state`` (one draw per throw)."""
    word, faces = state.rng, []
    for _ in range(count):
        word, drawn = roll_die(word)
        faces.append(FACES[drawn - 1])
    return faces


def saved_game(actions: Sequence[Action], wanted: Callable[[list], bool]) -> tuple[str, list]:
    """A save of the two-person game ``actions`` lead to, its seed picked so that the next
    throws satisfy ``wanted``; the save's text and those throws."""
    for seed in range(1, 5000):
        record = Record("royal", ("red", "green"), seed, tuple(actions))
        faces = upcoming(replay(record)[-1], 3)
        if wanted(faces):
            session = Session(record=record, names=dict(NAMES), timer=False)
            return encode(session), faces
    raise AssertionError("no seed throws what the test needs")


@pytest.fixture(scope="module")
def page(browser: Browser, server_url: str) -> Iterator[Page]:
    """One page for the module, able to take taps (touch) as well as clicks and keys."""
    context = browser.new_context(reduced_motion="reduce", has_touch=True,
                                  viewport={"width": 1100, "height": 800})
    page = context.new_page()
    page.console_errors = []
    # (a page without an icon, visited to store a save, may log its /favicon.ico 404 late)
    page.on("console", lambda m: page.console_errors.append(m.text) if m.type == "error"
            and not m.location.get("url", "").endswith("/favicon.ico") else None)
    page.on("pageerror", lambda e: page.console_errors.append(f"pageerror: {e}"))
    page.base = server_url
    page.goto(server_url + FAST)
    wait_ready(page)
    try:
        yield page
    finally:
        context.close()


def boot_with(page: Page, save: str | None) -> None:
    """Boot the app again with ``save`` in its storage (stored from another page of the site:
    the app saves its own game when it is left)."""
    page.goto(page.base + "manifest.webmanifest")
    page.evaluate("save => { localStorage.clear(); if (save) localStorage.setItem("
                  f"{SAVE_KEY!r}, save); }}", save)
    page.goto(page.base + FAST)
    wait_ready(page)


def wait_change(page: Page, before: str) -> None:
    """Wait until the position is no longer ``before`` (generous: the machine may be busy)."""
    page.wait_for_function("prev => window.ludo.position() !== prev", arg=before,
                           timeout=WAIT_MS)


def state_of(page: Page):
    return parse_position(position_text(page))


def act(page: Page, do: Callable[[], None]) -> None:
    """Do something on the page and wait until the position has changed."""
    before = position_text(page)
    do()
    wait_change(page, before)


def settle(page: Page, turn: str, phase: str = "roll") -> None:
    """Wait until ``turn`` is to act in ``phase`` (an automatic move may still be playing)."""
    page.wait_for_function("([t, p]) => { const s = JSON.parse(window.ludo.position());"
                           " return s.turn === t && s.phase === p; }", arg=[turn, phase],
                           timeout=WAIT_MS)


def announced(page: Page) -> str:
    return page.inner_text("#announcer")


def drawn_double(page: Page, carrier: str, rider: str) -> dict:
    """How the page drew a double: the two pieces' classes, their discs' centres, radii and
    fills, and which piece is seen at each disc's centre (the one on top there)."""
    return page.evaluate("""([carrier, rider]) => {
        const out = {};
        for (const [role, id] of [['carrier', carrier], ['rider', rider]]) {
            const g = document.getElementById('tok-' + id);
            const disc = g.querySelector('.disc').getBoundingClientRect();
            const x = disc.left + disc.width / 2, y = disc.top + disc.height / 2;
            const seen = document.elementFromPoint(x, y).closest('.token');
            out[role] = {cls: g.getAttribute('class'), x: x, y: y, r: disc.width / 2,
                         fill: getComputedStyle(g.querySelector('.disc')).fill,
                         seen: seen ? seen.dataset.piece : null,
                         label: g.getAttribute('aria-label')};
        }
        return out;
    }""", [carrier, rider])


def assert_double(page: Page, carrier: str, rider: str) -> None:
    """The rider is drawn on its carrier, both colours visible."""
    drawn = drawn_double(page, carrier, rider)
    low, high = drawn["carrier"], drawn["rider"]
    assert "carrier" in low["cls"].split() and "rider" in high["cls"].split(), drawn
    # the rider stands on the carrier, up and to the right; each is seen at its own centre
    assert high["y"] < low["y"] and high["x"] > low["x"], drawn
    distance = ((high["x"] - low["x"]) ** 2 + (high["y"] - low["y"]) ** 2) ** 0.5
    assert distance < low["r"] * 3, drawn  # on one square
    assert low["seen"] == carrier and high["seen"] == rider, drawn
    assert low["fill"] != high["fill"], drawn
    rider_colour, carrier_colour = rider.split("-")[0], carrier.split("-")[0]
    assert f"riding on {carrier_colour.capitalize()} man" in high["label"], drawn
    assert f"carrying {rider_colour.capitalize()} man" in low["label"], drawn


def no_emoji(page: Page) -> None:
    text = page.evaluate("document.body.innerText")
    assert not any(e in text for e in EMOJI)


def test_home_shows_the_board_of_the_chosen_rules_and_keeps_a_chosen_timer(page: Page) -> None:
    boot_with(page, None)
    page.wait_for_selector("#screen-home:not([hidden])")
    board = page.locator("#board-layer")
    timer = page.locator("#opt-timer")

    def marks() -> tuple[int, int, int]:
        return (board.locator(".crown-mark").count(), board.locator(".feather-mark").count(),
                board.locator(".lock").count())

    assert page.is_checked('input[name="rules"][value="courtyard"]')
    assert marks() == (0, 0, 4) and timer.is_checked()  # Courtyard's locked lanes
    page.check('input[name="rules"][value="royal"]')
    page.wait_for_function("document.querySelectorAll('#board-layer .crown-mark').length == 8")
    assert marks() == (8, 4, 0)
    # Gilgiti's clock is off by default: choosing it unticks the box the person never touched
    page.check('input[name="rules"][value="gilgiti"]')
    page.wait_for_function("document.querySelectorAll('#board-layer .crown-mark').length == 0")
    assert marks()[:2] == (0, 0) and not timer.is_checked()
    # once the person ticks it, changing the rule set keeps their choice
    timer.check()
    page.check('input[name="rules"][value="courtyard"]')
    page.wait_for_function("document.querySelectorAll('#board-layer .lock').length == 4")
    page.check('input[name="rules"][value="gilgiti"]')
    page.wait_for_function("document.querySelectorAll('#board-layer .lock').length == 0")
    assert timer.is_checked()
    assert page.console_errors == []


def test_the_board_shows_crown_and_feather_spaces_and_the_die_a_feather_lost(page: Page) -> None:
    save, _ = saved_game(FEATHER_AHEAD, lambda f: f[0] == "feather")
    boot_with(page, save)
    page.wait_for_selector("#screen-table:not([hidden])")
    # crown spaces: the four starting points and the four home crowns; feathers on the stars
    board = page.locator("#board-layer")
    assert board.locator(".crown-mark").count() == 8
    assert board.locator(".feather-mark").count() == 4
    for place in ("0", "13", "26", "39"):  # starting points, drawn in their colour
        assert page.locator(f'#board-layer rect[data-square="{place}"]').evaluate(
            "r => getComputedStyle(r).fill") != page.locator(
            '#board-layer rect[data-square="5"]').evaluate("r => getComputedStyle(r).fill")
    # red throws the feather: his man on 8 would pass green's starting point, so it is lost
    state = state_of(page)
    assert state.turn == "red" and state.tokens[0][0] == 8
    # the seed's players throw the die: its name and its blank face say so, not "roll"
    page.wait_for_selector("#die.ready")
    assert page.get_attribute("#die", "aria-label") == "Throw the die for Ada (red)"
    assert page.text_content("#die-face").strip() == "Throw"
    act(page, lambda: page.click("#die"))
    settle(page, "green")
    assert "Ada (red) threw a feather. A feather cannot pass a crown: the throw is lost." \
        in announced(page)
    # over the board too, with the reason (the die has passed to green already)
    assert page.text_content("#board-notice") == ("Ada (red) threw a feather: no move. A feather "
                                                  "cannot pass a crown: the throw is lost.")
    assert state_of(page).tokens[0][0] == 8
    # the move log tells it too, with the throws drawn as little dice: crowns and feathers
    page.click("#btn-details")
    log = page.locator("#log")
    assert "A feather cannot pass a crown: the throw is lost." in log.inner_text()
    assert "No man is out yet, and only a crown starts one: the throw is lost." \
        in log.inner_text()
    assert log.locator(".mini-die .die-feather").count() == 3
    assert log.locator(".mini-die .die-crown").count() == 1
    page.click("#btn-details")
    no_emoji(page)
    assert page.console_errors == []


def test_a_double_made_carried_and_moved_off_alone(page: Page) -> None:
    # green's throw carries the double (a number, so the turn passes); red's lets him choose
    # between moving off alone and moving his other man
    save, (carry, hop, _) = saved_game(DOUBLE_AHEAD, lambda f: f[0] in (1, 2, 3, 4)
                                       and f[1] in (1, 2, 3, 4))
    boot_with(page, save)
    state = state_of(page)
    assert state.turn == "red" and state.die == 1 and len(distinct_moves(state)) == 2
    assert page.locator("#die-face .pip").count() == 1  # the die shows the 1 thrown
    # red plays man 1 from 13 onto green's lone man on 14: a double
    act(page, lambda: page.click("#tok-red-0"))
    settle(page, "green")
    state = state_of(page)
    assert state.riders == ((0, 0, 1, 0),)  # red man 1 rides on green man 1
    assert state.tokens[0][0] == state.tokens[1][0] == 14
    assert "made a double: man 1 rides on Bo (green) man 1, who must carry it" in \
        announced(page)
    assert_double(page, "green-0", "red-0")
    assert "carrying a double" in page.inner_text("#seats")
    # green must carry it: the only move plays by itself, both men go
    act(page, lambda: page.click("#die"))
    settle(page, "red")
    state = state_of(page)
    assert state.tokens[0][0] == state.tokens[1][0] == 14 + carry
    assert state.riders == ((0, 0, 1, 0),)
    assert "Bo (green) carried the double (with Ada (red) man 1)" in announced(page)
    assert_double(page, "green-0", "red-0")
    # red throws and chooses the rider, by touch: he moves off alone
    act(page, lambda: page.click("#die"))
    state = state_of(page)
    assert state.phase == "move" and state.die == hop
    assert len(distinct_moves(state)) == 2
    assert page.locator("#board .token.movable").count() == 2  # the rider and red man 2
    assert "green-0" not in page.locator("#board .token.movable").evaluate_all(
        "els => els.map(e => e.dataset.piece)")
    act(page, lambda: page.tap("#tok-red-0"))
    state = state_of(page)
    assert state.riders == ()
    assert state.tokens[0][0] == 14 + carry + hop and state.tokens[1][0] == 14 + carry
    assert "moved man 1 off alone" in announced(page)
    assert "rider" not in page.get_attribute("#tok-red-0", "class")
    assert "carrier" not in page.get_attribute("#tok-green-0", "class")
    assert page.console_errors == []


# Red's only man out rides on green's: red's crown takes man 1 to green's starting point (13)
# and his extra 1 climbs onto green's man on 14; green's 2 carries the double on to 16.
RIDER_ALONE = (roll("feather"), roll(2), roll("crown"), move(0), roll(1), move(0),
               roll("crown"), move(0), roll(1), move(0), roll("crown"), move(0), roll(1),
               move(0), roll(2), move(0))


def test_a_rider_whose_only_move_is_moving_off_may_stay_on(page: Page) -> None:
    """"The double may move off alone again when he pleases": red throws a number whose only
    move is his rider moving off; he is offered that move and a button to stay on top."""
    save, _ = saved_game(RIDER_ALONE, lambda f: f[0] in (1, 2, 3, 4))
    boot_with(page, save)
    state = state_of(page)
    assert state.turn == "red" and state.phase == "roll" and state.riders == ((0, 0, 1, 0),)
    act(page, lambda: page.click("#die"))
    state = state_of(page)
    assert state.phase == "move" and state.turn == "red"  # not played by itself
    assert page.locator("#choices button").all_inner_texts() == ["Stay on top (lose this throw)"]
    assert page.locator("#board .token.movable").evaluate_all(
        "els => els.map(e => e.dataset.piece)") == ["red-0"]
    act(page, lambda: page.click("#choices button"))
    settle(page, "green")
    state = state_of(page)
    assert state.riders == ((0, 0, 1, 0),) and state.tokens[0][0] == state.tokens[1][0] == 16
    assert "Ada (red) stayed on top of Bo (green) man 1: the throw is lost." in announced(page)
    assert_double(page, "green-0", "red-0")
    assert page.console_errors == []


def test_two_crowns_reverse_the_double_and_a_reload_keeps_the_choice(page: Page) -> None:
    save, _ = saved_game(CARRIER_THROWS_AGAIN, lambda f: f[0] == "crown")
    boot_with(page, save)
    state = state_of(page)
    assert state.turn == "green" and state.crowns == 1 and state.riders == ((0, 0, 1, 0),)
    assert_double(page, "green-0", "red-0")
    act(page, lambda: page.click("#die"))
    # green's second crown in succession: a pair of buttons, and the crown as a move
    state = state_of(page)
    assert state.phase == "choose"
    buttons = page.locator("#choices button")
    assert buttons.all_inner_texts() == ["Send Red man 1 back to balk",
                                         "Climb on top of Red man 1"]
    # the focus goes to the first choice in the page's order, the double's token; Tab
    # reaches the buttons
    assert page.evaluate("document.activeElement.id") == "tok-green-0"
    assert "Two crowns in succession: Bo (green) may send Ada (red) man 1 back to balk, climb " \
        "on top, or play the crown as a move." in announced(page)
    assert page.locator("#die-face .die-crown").count() == 1  # a drawn crown
    # "may": the crown can also be played as a move, the double's (it moves in preference)
    assert page.locator("#board .token.movable").count() == 2  # the double: both its men
    assert "movable" in page.get_attribute("#tok-green-0", "class")
    assert "movable" in page.get_attribute("#tok-red-0", "class")
    # Royal's players move men: the hint says so
    assert "Choose one of the buttons below, or a highlighted man" in page.inner_text("#die-hint")
    # a touch-only device (this page has touch, no mouse): the keyboard's part is not shown
    assert "arrow keys" not in page.inner_text("#die-hint")
    no_emoji(page)
    # a reload in the middle of the turn restores everything: the position, the buttons, the
    # die's crown, the double drawn, the move log
    before = position_text(page)
    page.reload()
    wait_ready(page)
    assert page.is_visible("#screen-table")
    assert position_text(page) == before
    assert page.locator("#choices button").all_inner_texts() == [
        "Send Red man 1 back to balk", "Climb on top of Red man 1"]
    assert page.locator("#die-face .die-crown").count() == 1
    assert_double(page, "green-0", "red-0")
    page.click("#btn-details")
    log = page.locator("#log").inner_text()
    assert "Ada (red) made a double: man 1 rides on Bo (green) man 1" in log
    assert "Two crowns in succession" in log
    page.click("#btn-details")
    # green climbs on top by keyboard: red now carries him
    page.locator("#choices button").nth(1).focus()
    act(page, lambda: page.keyboard.press("Enter"))
    state = state_of(page)
    assert state.riders == ((1, 0, 0, 0),) and state.turn == "green" and state.phase == "roll"
    assert "Bo (green) climbed on top of Ada (red) man 1, who now carries the double" in \
        announced(page)
    assert_double(page, "red-0", "green-0")
    assert page.locator("#choices button").count() == 0
    assert page.console_errors == []


def test_on_a_phone_both_two_crowns_buttons_come_into_view(page: Page) -> None:
    """At 360x740 the choice's buttons stood below the board and the second was below the
    fold; the focus goes to the double's man and the view scrolls on to show both buttons."""
    page.set_viewport_size({"width": 360, "height": 740})
    try:
        save, _ = saved_game(CARRIER_THROWS_AGAIN, lambda f: f[0] == "crown")
        boot_with(page, save)
        act(page, lambda: page.click("#die"))
        page.wait_for_function("document.activeElement.id === 'tok-green-0'", timeout=WAIT_MS)
        tops_bottoms = page.evaluate(
            "() => ['#tok-green-0', '#choices button:first-child', '#choices button:last-child']"
            ".map(s => { const r = document.querySelector(s).getBoundingClientRect();"
            " return [r.top, r.bottom]; })")
        height = page.evaluate("window.innerHeight")
        assert all(0 <= top and bottom <= height for top, bottom in tops_bottoms), \
            (tops_bottoms, height)
    finally:
        page.set_viewport_size({"width": 1100, "height": 800})


def test_a_whole_game_against_three_computers(page: Page) -> None:
    boot_with(page, None)
    start_game(page, ["red", "green", "yellow", "blue"], rules="royal", names={"red": "Ada"},
               kinds={"green": "easy", "yellow": "medium", "blue": "hard"})
    seen = {"mouse": 0, "keyboard": 0, "touch": 0}
    last_tap = 0.0
    for step in range(6000):
        # the position and the controls in one go: computers move between calls
        text, die_disabled = page.evaluate(
            "() => [window.ludo.position(),"
            " document.getElementById('die').getAttribute('aria-disabled') === 'true']")
        state = parse_position(text)
        if state.phase == "over":
            break
        if state.turn != "red":
            assert die_disabled  # the die is not the person's while a computer plays
            wait_change(page, text)
            continue
        way = ("mouse", "keyboard", "touch")[sum(seen.values()) % 3]
        if state.phase == "roll":
            target = "#die"
            if way == "touch":
                # a tap within the double-tap time of the last one on the die would be the
                # second tap of a double tap, which the die ignores (as a second click)
                if time.monotonic() - last_tap < 0.8:
                    way = "mouse"
                else:
                    last_tap = time.monotonic()
        elif state.phase == "choose":
            target = "#choices button"
        elif len(distinct_moves(state)) > 1:
            target = "#board .token.movable"
        else:  # the only move plays by itself
            wait_change(page, text)
            continue
        control = page.locator(target).last if step % 2 else page.locator(target).first
        if way == "mouse":
            control.click()
        elif way == "touch":
            control.tap()
        else:
            control.focus()
            page.keyboard.press("Enter")
        seen[way] += 1
        wait_change(page, text)
    else:
        raise AssertionError("the game did not finish")
    assert seen["mouse"] and seen["keyboard"] and seen["touch"]
    state = state_of(page)
    dialog = page.locator("#dlg-winner")
    dialog.wait_for(state="visible", timeout=BOOT_TIMEOUT_MS)
    winner = state.winner
    assert winner is not None
    assert (("Ada (red)" if winner == "red" else winner.capitalize()) + " wins!") in \
        dialog.inner_text()
    assert "got all four men home" in dialog.inner_text()  # the seed's men, not tokens
    record = json.loads(page.evaluate(f"localStorage.getItem({SAVE_KEY!r})"))["record"]
    assert record["rules"] == "royal"
    assert page.console_errors == []
    page.click("#winner-home")
