"""Gilgiti Ludo in a real browser: a whole pass-and-play team game by mouse, a turn rolled
back on screen, forcing the gate from a constructed position, a reload in the middle of a
turn, the leave dialog, a whole game against three computers by keyboard and touch, and a
two-player game alone played to the end.

Constructed positions come from saved games (records replay exactly, and carry their rolls,
so a record can hold whatever dice a test needs): either a record scripted roll by roll, or
the first position of a seeded random game that has what the test wants. The test side
reads the page's position through ``window.ludo`` and decides with the same engine in
CPython; the page is driven only through what a player can press.
"""

from __future__ import annotations

import functools
import json
import random
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page
from test_app_play import (
    BOOT_TIMEOUT_MS,
    SAVE_KEY,
    boot_with,
    mouse_click,
    parse_position,
    position_text,
    press_start,
    wait_ready,
)

from app.savegame import Session, encode
from ludo import (
    Action,
    Choice,
    Record,
    apply,
    choices,
    distinct_moves,
    legal_actions,
    new_game,
    resolve,
    scene,
)
from ludo.geometry import COLOURS, HOME
from ludo.rules.gilgiti import GILGITI

FAST = "?auto_delay=0&pace_ms=0"
WAIT_MS = 30_000
SEATS = ("red", "green", "yellow", "blue")
NAMES = {"red": "Ada", "green": "Bo"}
TEAM_GAME_SEED = 107  # test_a_whole_pass_and_play_team_game_by_mouse
COMPUTERS_GAME_SEED = 27  # test_a_whole_game_against_three_computers_by_keyboard_and_touch


# -- positions ------------------------------------------------------------------------------


def roll(value: int) -> Action:
    return Action("roll", value=value)


def move(piece: int, value: int) -> Action:
    return Action("move", token=piece, value=value)


def gate_record(seed: int = 1) -> Record:
    """Red and green: green walks two tokens round onto red's entry star (a block of two of
    one colour: red's gate is shut), while red's one token out walks a square a turn; then
    red rolls 6, 6 and 2 -- and may force the gate, or play the values with that token."""
    state = new_game("gilgiti", ("red", "green"), seed)
    actions: list[Action] = []

    def do(*done: Action) -> None:
        nonlocal state
        for action in done:
            actions.append(action)
            state, events = apply(state, action)
            assert not any(e["type"] == "captured" for e in events)

    red_out = green_in = False
    for _ in range(200):
        green = state.tokens[1]
        if state.turn == "red":
            if green[0] == green[1] == 0:
                do(roll(6), roll(6), roll(2))
                return Record("gilgiti", ("red", "green"), seed, tuple(actions))
            if red_out:
                do(roll(1), move(0, 1))
            else:
                do(roll(6), roll(1), move(0, 6), move(0, 1))
                red_out = True
        elif not green_in:
            do(roll(6), roll(6), roll(3), move(4, 6), move(5, 6), move(4, 3))
            green_in = True
        else:
            token = 0 if green[0] != 0 else 1
            value = min(5, -green[token] % 52)
            do(roll(value), move(4 + token, value))
    raise AssertionError("the gate was never shut")


@functools.cache
def careless_record() -> Record:
    """The first position of a seeded random two-player game where the seat to act has
    several values to play, some order strands a value (the whole turn goes back), and a
    careful first play leaves a choice still to make (so a turn can be seen half played)."""
    for seed in range(200):
        chooser = random.Random(seed)
        state = new_game("gilgiti", ("red", "green"), seed)
        actions: list[Action] = []
        for _ in range(3000):
            if state.phase == "over":
                break
            if state.phase == "move" and len(set(state.unplayed)) >= 2:
                moves = distinct_moves(state)
                if any(stuck(state, m) for m in moves) and careful_first(state) is not None:
                    return Record("gilgiti", ("red", "green"), seed, tuple(actions))
            action = resolve(state, chooser.choice(legal_actions(state)))
            actions.append(action)
            state, _ = apply(state, action)
    raise AssertionError("no careless order found")


def careful_first(state) -> Choice | None:
    """A play that strands nothing, by a token that several values fit, after which there is
    still a choice to make."""
    options = choices(state)
    for choice in options:
        values = {c.value for c in options if c.pieces == choice.pieces}
        if len(values) > 1 and not stuck(state, choice.action) and \
                len(distinct_moves(apply(state, choice.action)[0])) > 1:
            return choice
    return None


def stuck(state, action: Action) -> bool:
    """Whether playing ``action`` leaves a value that no order can play."""
    after, events = apply(state, action)
    return any(e["type"] == "rolled_back" for e in events) or (
        after.phase == "move" and not GILGITI.can_complete(after))


def save_of(record: Record, players: dict[str, str] | None = None) -> str:
    return encode(Session(record=record, names=dict(NAMES), players=dict(players or {}),
                          timer=False))


# -- the page -------------------------------------------------------------------------------


def new_page(browser: Browser, server_url: str, motion: bool = False) -> Page:
    context = browser.new_context(reduced_motion="no-preference" if motion else "reduce",
                                  has_touch=True, viewport={"width": 1100, "height": 800})
    page = context.new_page()
    page.console_errors = []
    page.on("console", lambda m: page.console_errors.append(m.text) if m.type == "error"
            and not m.location.get("url", "").endswith("/favicon.ico") else None)
    page.on("pageerror", lambda e: page.console_errors.append(f"pageerror: {e}"))
    page.base = server_url
    page.goto(server_url + FAST)
    wait_ready(page)
    return page


@pytest.fixture(scope="module")
def page(browser: Browser, server_url: str) -> Iterator[Page]:
    page = new_page(browser, server_url)
    try:
        yield page
    finally:
        page.context.close()


def start_gilgiti(page: Page, seats: tuple[str, ...], teams: bool = False,
                  kinds: dict[str, str] | None = None, fresh: bool = False) -> None:
    """Start from the setup form; ``fresh``: nothing was chosen before on this page, so the
    form shows its defaults (Teams ticked for four players)."""
    page.goto(page.base + FAST + "#home")
    page.wait_for_selector("#screen-home:not([hidden])")
    page.check('input[name="rules"][value="gilgiti"]')
    for colour in SEATS:
        page.locator(f'input[name="seat"][value="{colour}"]').set_checked(colour in seats)
        if colour in seats:  # an unticked seat's fields are disabled (no Tab stops)
            page.fill(f'[name="name-{colour}"]', NAMES.get(colour, ""))
            page.select_option(f'[name="kind-{colour}"]', (kinds or {}).get(colour, "human"))
    box = page.locator('input[name="option-teams"]')
    if len(seats) == 4:
        if fresh:  # Gilgiti is a team game: four players start with Teams ticked
            assert box.is_visible() and box.is_checked()
        box.set_checked(teams)
    else:
        assert not box.is_visible()  # teams are for four players only
    page.locator("#opt-timer").set_checked(False)
    press_start(page)


def wait_change(page: Page, before: str) -> None:
    page.wait_for_function("prev => window.ludo.position() !== prev", arg=before,
                           timeout=WAIT_MS)


def state_of(page: Page):
    return parse_position(position_text(page))


def chips(page: Page) -> list[tuple[str, str, bool]]:
    """The value chips: (value, state class, pressable)."""
    return [(c["value"], c["state"], c["enabled"]) for c in page.evaluate(
        """() => [...document.querySelectorAll('#dice .chip')].map(c => ({
            value: c.dataset.value, enabled: !c.disabled,
            state: [...c.classList].find(k => k.startsWith('chip-')).slice(5)}))""")]


def disc_centre(page: Page, piece: str) -> tuple[float, float]:
    x, y = page.evaluate("""id => { const d = document.querySelector('#tok-' + id + ' .disc')
        .getBoundingClientRect(); return [d.left + d.width / 2, d.top + d.height / 2]; }""",
                         piece)
    return float(x), float(y)


def same_place(state, piece: str) -> set[str]:
    """``piece`` and the pieces beside it on its square (a tap there means any of them)."""
    for stack in scene(state).stacks:
        ids = [p.id for p in stack.pieces]
        if piece in ids:
            return set(ids)
    return {piece}


def press(page: Page, selector: str, way: str) -> None:
    """Press a button the way a player would: click, tap, or focus and Enter."""
    control = page.locator(selector).first
    if way == "mouse":
        mouse_click(control)
    elif way == "touch":
        control.tap()
    else:
        control.focus()
        page.keyboard.press("Enter")


def touch_token(page: Page, state, piece: str, way: str) -> None:
    """Tap, click or (keyboard) arrow to ``piece`` and press Enter."""
    if way == "keyboard":
        wanted = same_place(state, piece)
        page.locator("#board .token.movable").first.focus()
        for _ in range(20):
            if page.evaluate("document.activeElement.dataset.piece") in wanted:
                break
            page.keyboard.press("ArrowRight")
        else:
            raise AssertionError(f"the arrow keys never reached {piece}")
        page.keyboard.press("Enter")
        return
    x, y = disc_centre(page, piece)
    if way == "touch":
        page.touchscreen.tap(x, y)
    else:
        page.mouse.click(x, y)


def picker_shown(page: Page) -> bool:
    return page.locator("#choices button").count() > 0


def play(page: Page, choice: Choice, way: str, chip_first: bool,
         text: str | None = None) -> None:
    """Play ``choice`` as a player would: the forcing button; or a value chip then a glowing
    token; or the token, then (several values fitting) the chip; a picker's button last.
    ``text``: the position shown, if the caller has just read it."""
    text = text or position_text(page)
    state = parse_position(text)
    if not choice.pieces:
        press(page, f'#choices button:has-text("{choice.label}")', way)
        wait_change(page, text)
        return
    with_chips = page.locator("#dice .chip").count() > 0
    chip = f'#dice .chip[data-value="{choice.value}"]:not([disabled])'
    if with_chips and chip_first:
        press(page, chip, way)
        page.wait_for_selector(f'{chip}[aria-pressed="true"]')
    touch_token(page, state, choice.pieces[0], way)
    for _ in range(3):  # a picker may ask which value, or which of the moves
        if position_text(page) != text:
            break
        page.wait_for_function("prev => window.ludo.position() !== prev || "
                               "document.querySelector('#choices button')", arg=text,
                               timeout=WAIT_MS)
        if position_text(page) != text:
            break
        if with_chips and not chip_first and page.locator(chip).count():
            press(page, chip, way)
            chip_first = True  # the chip was pressed: the rest is the picker's buttons
            continue
        buttons = page.locator("#choices button")
        # a picker's button shows a few words; its accessible name holds the whole sentence
        texts = [buttons.nth(i).get_attribute("aria-label") or buttons.nth(i).inner_text()
                 for i in range(buttons.count())]
        index = next(i for i, t in enumerate(texts) if choice.label in t)
        if way == "keyboard":
            buttons.nth(index).focus()
            page.keyboard.press("Enter")
        elif way == "touch":
            buttons.nth(index).tap()
        else:
            buttons.nth(index).click()
    wait_change(page, text)


def safe_choices(state) -> list[Choice]:
    """The choices after which every value left can still be played (a player's care)."""
    found = [c for c in choices(state) if not stuck(state, c.action)]
    return found or choices(state)


def play_to_the_end(page: Page, person: Callable[[str], bool], ways: tuple[str, ...],
                    max_steps: int = 5000) -> dict[str, int]:
    """Play every person's turn through the page until the game is over; counts what was done."""
    seen = {"rolls": 0, "chip_first": 0, "token_first": 0, "force": 0, "auto": 0}
    chooser = random.Random(5)
    last_tap = 0.0
    for step in range(max_steps):
        text, die_disabled = page.evaluate(
            "() => [window.ludo.position(),"
            " document.getElementById('die').getAttribute('aria-disabled') === 'true']")
        state = parse_position(text)
        if state.phase == "over":
            return seen
        if not person(state.turn):
            assert die_disabled  # the die is not the person's while a computer plays
            wait_change(page, text)
            continue
        way = ways[step % len(ways)]
        if state.phase == "roll":
            if way == "touch" and time.monotonic() - last_tap < 0.8:
                way = "mouse"  # a second tap so soon would be a double tap
            elif way == "touch":
                last_tap = time.monotonic()
            press(page, "#die", way)
            seen["rolls"] += 1
            wait_change(page, text)
            continue
        if len(distinct_moves(state)) == 1:  # the only move plays by itself
            seen["auto"] += 1
            wait_change(page, text)
            continue
        options = safe_choices(state)
        forcing = [c for c in options if c.kind == "force"]
        choice = forcing[0] if forcing else chooser.choice(options)
        chip_first = step % 2 == 0
        seen["force" if forcing else "chip_first" if chip_first and choice.value
             else "token_first"] += 1
        play(page, choice, way, chip_first, text)
    raise AssertionError("the game did not finish")


# -- the tests ------------------------------------------------------------------------------


def test_a_whole_pass_and_play_team_game_by_mouse(page: Page) -> None:
    boot_with(page, None)
    start_gilgiti(page, SEATS, teams=True)
    state = state_of(page)
    assert state.teams
    # team colours in the panel: each seat with its team's swatches and name
    seats = page.locator("#seats")
    assert seats.locator('.team[data-team="Red + Yellow"]').count() == 2
    assert seats.locator('.team[data-team="Green + Blue"] .swatch.green').count() == 2
    assert "with Yellow" in page.inner_text("#pod-bl")  # its partner, in the pod
    record = json.loads(page.evaluate(f"localStorage.getItem({SAVE_KEY!r})"))["record"]
    assert record["rules"] == "gilgiti" and record["options"] == {"teams": True}
    # The game played to the end is a team game of a known seed: a game's length varies with
    # its dice (570 to 1060 steps over 300 seeds, as play_to_the_end chooses), and this one,
    # among the shortest, costs the same in every run.
    boot_with(page, save_of(Record("gilgiti", SEATS, TEAM_GAME_SEED, (), (("teams", True),))))
    assert state_of(page).teams
    seen = play_to_the_end(page, lambda seat: True, ("mouse",))
    assert seen["rolls"] > 50 and seen["chip_first"] and seen["token_first"]
    state = state_of(page)
    assert len(state.winners) == 2 and set(state.winners) in ({"red", "yellow"},
                                                              {"green", "blue"})
    team = "Red + Yellow" if "red" in state.winners else "Green + Blue"
    dialog = page.locator("#dlg-winner")
    dialog.wait_for(state="visible", timeout=BOOT_TIMEOUT_MS)
    assert page.inner_text("#winner-title") == f"Team {team} wins!"
    assert dialog.locator("svg.crown").is_visible()
    assert dialog.locator(f'.standings .won .team[data-team="{team}"]').count() == 2
    assert page.console_errors == []
    page.click("#winner-home")


def test_a_careless_order_rolls_the_whole_turn_back_on_screen(browser: Browser,
                                                              server_url: str) -> None:
    page = new_page(browser, server_url, motion=True)  # the rollback is seen moving too
    try:
        record = careless_record()
        boot_with(page, save_of(record))
        state = state_of(page)
        seat = state.turn
        careless = next(c for c in choices(state) if stuck(state, c.action))
        # every value is a chip, still to play
        assert [s for _, s, _ in chips(page)] == ["playable"] * len(state.rolled)
        page.evaluate("""() => { window.__anims = 0; const board = document.getElementById('board');
            new MutationObserver(() => { window.__anims = Math.max(window.__anims,
                board.getAnimations({subtree: true}).length); })
            .observe(board, {subtree: true, childList: true}); }""")
        play(page, careless, "mouse", chip_first=True)
        if state_of(page).turn == seat:  # the value left is stuck only later: play it on
            after = state_of(page)
            assert any(s == "stranded" for _, s, _ in chips(page)) or \
                not GILGITI.can_complete(after)
            while True:
                # one reading of the position: a forced move plays itself at once, so reading
                # it again to wait on could already see the turn rolled back, and then wait in
                # vain (failed so once in a fresh-clone run)
                text = position_text(page)
                now = parse_position(text)
                if now.turn != seat or now.phase != "move":
                    break
                if len(distinct_moves(now)) == 1:
                    wait_change(page, text)
                else:
                    play(page, choices(now)[0], "mouse", chip_first=True)
        back = state_of(page)
        assert back.turn != seat and back.phase == "roll"
        assert back.tokens == state.tokens  # everything where the turn began
        notice = page.locator("#board-notice")
        assert notice.is_visible()
        assert "the whole turn goes back" in notice.inner_text()
        assert "the whole turn goes back" in page.inner_text("#announcer")
        assert page.evaluate("window.__anims") > 0  # the tokens were seen going back
        page.wait_for_selector("#board-notice", state="hidden", timeout=10_000)
        page.click("#btn-details")
        assert "the whole turn goes back" in page.inner_text("#log")
        assert page.console_errors == []
    finally:
        page.context.close()


def test_forcing_the_gate_is_its_own_choice(page: Page) -> None:
    boot_with(page, save_of(gate_record()))
    state = state_of(page)
    assert state.turn == "red" and sorted(state.rolled) == [2, 6, 6]
    assert state.tokens[1][:2] == (0, 0)  # green's block on red's entry star
    # the shut star carries a lock; green's block is one stack with its count
    assert page.locator('#board-layer .lock').count() >= 1
    block = page.locator("#tokens-layer .count")
    assert block.count() == 1 and block.text_content() == "2"
    assert [v for v, _, _ in chips(page)] == ["6", "6", "2"]
    force = page.locator("#choices button")
    assert force.count() == 1 and force.inner_text().startswith("Force the gate")
    # it is reached by keyboard like every choice
    text = position_text(page)
    force.focus()
    page.keyboard.press("Enter")
    wait_change(page, text)
    after = state_of(page)
    assert sorted(after.tokens[0]).count(0) == 2 and after.tokens[1][:2] == (0, 0)
    assert "forced the gate with two 6s" in page.inner_text("#announcer")
    assert [s for _, s, _ in chips(page)] == ["used", "used", "playable"]
    assert page.locator("#tokens-layer .count").text_content() == "4"
    assert page.locator("#choices button").count() == 0
    # the star is contested now: no lock for red on it
    assert page.locator('#board-layer .lock').count() == 0
    assert page.console_errors == []


def test_a_reload_mid_turn_restores_the_rolled_and_played_values(page: Page) -> None:
    record = careless_record()
    boot_with(page, save_of(record))
    state = state_of(page)
    safe = careful_first(state)
    assert safe is not None
    # a token first: several values fit it, so its moves are offered and a chip picks one
    text = position_text(page)
    touch_token(page, state, safe.pieces[0], "mouse")
    page.wait_for_selector("#choices button")
    assert page.locator("#choices button").count() >= 2
    assert position_text(page) == text
    press(page, f'#dice .chip[data-value="{safe.value}"]:not([disabled])', "mouse")
    wait_change(page, text)
    mid = state_of(page)
    expected = apply(state, safe.action)[0]  # (any token of that square would do the same)
    assert mid.unplayed == expected.unplayed and \
        [sorted(t) for t in mid.tokens] == [sorted(t) for t in expected.tokens]
    assert mid.phase == "move" and mid.turn == state.turn and mid.rolled == state.rolled
    before = position_text(page)
    shown = chips(page)
    assert [s for _, s, _ in shown].count("used") == 1
    page.reload()
    wait_ready(page)
    assert page.is_visible("#screen-table")
    assert position_text(page) == before
    assert chips(page) == shown
    assert page.locator("#board .token.movable").count() > 0
    page.click("#btn-details")
    assert "plays " in page.inner_text("#log")
    page.click("#btn-details")
    # and the turn goes on from there
    rest = safe_choices(mid)
    if len(distinct_moves(mid)) > 1:
        play(page, rest[0], "mouse", chip_first=True)
    else:
        wait_change(page, before)
    assert state_of(page).turn != state.turn or state_of(page).phase == "move"
    assert page.console_errors == []


def open_a_picker(page: Page, how: str) -> tuple[Any, Choice, str]:
    """Boot the careless-order turn and touch (by ``how``) a token that several values fit,
    which offers its moves; returns the position, the safe first play, the position's text."""
    boot_with(page, save_of(careless_record()))
    state = state_of(page)
    safe = careful_first(state)
    assert safe is not None
    text = position_text(page)
    touch_token(page, state, safe.pieces[0], how)
    page.wait_for_selector("#choices button")
    return state, safe, text


def test_escape_cancels_a_picker_or_a_picked_value_by_keyboard(page: Page) -> None:
    # a token that several values fit: Enter offers its moves; Escape takes them back
    state, safe, text = open_a_picker(page, "keyboard")
    # the focus is on the first of them, and a screen reader is told what they are for
    assert page.evaluate("document.activeElement.matches('#choices button')")
    assert page.inner_text("#announcer").endswith(
        "possible moves: choose one below, or press Escape to cancel.")
    page.keyboard.press("Escape")
    assert page.locator("#choices button").count() == 0 and position_text(page) == text
    assert page.evaluate("document.activeElement.dataset.piece") in same_place(
        state, safe.pieces[0])
    assert page.inner_text("#announcer").startswith("Choice cancelled.")
    # a value chip picked by keyboard sends the focus on to the tokens; Escape drops the
    # value and goes back to the chip
    chip = f'#dice .chip[data-value="{safe.value}"]:not([disabled])'
    press(page, chip, "keyboard")
    page.wait_for_selector(f'{chip}[aria-pressed="true"]')
    assert page.evaluate("document.activeElement.matches('#board .token.movable')")
    page.keyboard.press("Escape")
    assert page.locator('#dice .chip[aria-pressed="true"]').count() == 0
    assert page.evaluate("document.activeElement.dataset.value") == safe.value
    assert position_text(page) == text
    assert page.console_errors == []


def test_leaving_the_table_drops_a_picker_and_the_next_game_has_none(page: Page) -> None:
    """A picker open when the address moves away (Back, or #rules typed) is dropped, nothing
    played: on coming back the table shows no picker, the focus on a token and the prompt
    saying what to do; before, Forward showed it again under a prompt that said nothing of
    it, and a new game started from Home showed the old game's moves as its buttons."""
    state, safe, text = open_a_picker(page, "mouse")
    page.evaluate("location.hash = '#rules'")  # typed into the address bar
    page.wait_for_selector("#screen-rules:not([hidden])")
    page.go_back()
    page.wait_for_selector("#screen-table:not([hidden])")
    assert not picker_shown(page) and position_text(page) == text
    assert page.evaluate("document.activeElement.matches('#board .token.movable')")
    assert "possible moves" not in page.inner_text("#announcer")
    touch_token(page, state, safe.pieces[0], "mouse")
    page.wait_for_selector("#choices button")
    start_gilgiti(page, ("red", "green"))  # Home, then a new game in place of this one
    assert not picker_shown(page)
    assert page.console_errors == []


def test_leaving_ends_the_match_for_everyone(page: Page) -> None:
    boot_with(page, save_of(gate_record()))
    assert page.inner_text("#btn-quit") == "Leave game"  # the seed's word, as in the dialog
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    page.click("#btn-quit")
    dialog = page.locator("#dlg-quit")
    dialog.wait_for(state="visible")
    assert page.inner_text("#quit-title") == "Leave this game?"
    assert page.inner_text("#quit-text") == ("The current match will end and everyone goes "
                                             "back to the start screen.")
    # everybody leaves, but two people play on this device: who leaves is asked (the record
    # and Home name that seat, not the first one listed), and no seat is named beforehand
    assert page.is_visible("#quit-seat-row") and page.is_hidden("#quit-who")
    assert page.inner_text("#quit-seat-row").startswith("Who leaves")
    leaver = "green" if state_of(page).turn == "red" else "red"
    page.select_option("#quit-seat", leaver)
    page.click("#quit-confirm")
    page.wait_for_selector("#screen-home:not([hidden])")
    assert page.evaluate("window.scrollY") == 0  # Home starts at its top, not mid-board
    assert state_of(page).phase == "over" and state_of(page).winners == ()
    assert not page.locator("#dlg-winner").is_visible()
    # Home says how it ended (not a bare "nobody won")
    note = page.inner_text("#resume-text")
    assert f"game ended when {NAMES[leaver]} ({leaver}) left: nobody won." in note, note
    assert page.console_errors == []


def test_a_whole_game_against_three_computers_by_keyboard_and_touch(page: Page) -> None:
    computers = {"green": "easy", "yellow": "medium", "blue": "hard"}
    boot_with(page, None)
    start_gilgiti(page, SEATS, kinds=computers, fresh=True)
    assert json.loads(page.evaluate(f"localStorage.getItem({SAVE_KEY!r})"))["players"] == \
        computers
    # the game played to the end: one of a known seed, as the team game by mouse (its length
    # here: 520 to 1200 actions over 60 seeds, as play_to_the_end and the computers play)
    boot_with(page, save_of(Record("gilgiti", SEATS, COMPUTERS_GAME_SEED, ()), computers))
    seen = play_to_the_end(page, lambda seat: seat == "red", ("keyboard", "touch"))
    assert seen["rolls"] and seen["chip_first"] + seen["token_first"]
    state = state_of(page)
    assert len(state.winners) == 1
    dialog = page.locator("#dlg-winner")
    dialog.wait_for(state="visible", timeout=BOOT_TIMEOUT_MS)
    winner = state.winners[0]
    named = NAMES.get(winner)  # a named seat is "Bo (green) wins!", an unnamed one "Yellow wins!"
    assert (f"{named} ({winner})" if named else winner.capitalize()) + " wins!" in \
        dialog.inner_text()
    assert page.console_errors == []
    page.click("#winner-home")


def test_a_two_player_game_alone_to_the_end(page: Page) -> None:
    """Two seats, each for itself: two computers play it to
    the end, and the winner dialog names the one who got all four tokens home."""
    boot_with(page, None)
    start_gilgiti(page, ("red", "green"), kinds={"red": "easy", "green": "easy"})
    dialog = page.locator("#dlg-winner")
    dialog.wait_for(state="visible", timeout=180_000)
    state = state_of(page)
    assert state.phase == "over" and not state.teams
    assert len(state.winners) == 1
    winner = state.winners[0]
    loser = "green" if winner == "red" else "red"
    assert state.tokens[COLOURS.index(winner)] == (HOME,) * 4
    assert state.tokens[COLOURS.index(loser)] != (HOME,) * 4
    assert page.inner_text("#winner-title") == f"{NAMES[winner]} ({winner}) wins!"
    assert page.inner_text("#winner-text").startswith(
        f"{NAMES[winner]} ({winner}) got all four tokens home.")
    standings = dialog.locator(".standings li")
    assert standings.count() == 2
    assert "winner" in standings.nth(0).inner_text() and \
        NAMES[winner] in standings.nth(0).inner_text()
    assert NAMES[loser] in standings.nth(1).inner_text()
    record = json.loads(page.evaluate(f"localStorage.getItem({SAVE_KEY!r})"))["record"]
    assert record["rules"] == "gilgiti" and record["seats"] == ["red", "green"]
    assert not record.get("options", {}).get("teams")
    assert page.console_errors == []
    page.click("#winner-home")


def test_a_team_seats_box_shows_its_partner_whole_beside_the_narrow_board(page: Page) -> None:
    """At 1280x800 the seats' boxes stand in narrow columns beside the board: a computer's
    box in a team game read "3/4 home · easy · with Yell…", its partner's name cut."""
    boot_with(page, None)
    start_gilgiti(page, SEATS, teams=True, kinds={c: "easy" for c in ("red", "green", "blue")})
    page.set_viewport_size({"width": 1280, "height": 800})
    try:
        page.wait_for_timeout(150)  # the resize redraw
        facts = page.evaluate("""() => [...document.querySelectorAll('.pod .pod-fact')]
          .filter(e => e.offsetParent !== null).map(f =>
            ({text: f.textContent, cut: f.scrollWidth > f.clientWidth + 0.5
                                        || f.scrollHeight > f.clientHeight + 0.5}))""")
        assert any(f["text"].startswith("with ") for f in facts), facts
        assert not any(f["cut"] for f in facts), facts
        assert page.evaluate(
            "document.documentElement.scrollWidth <= document.documentElement.clientWidth")
    finally:
        page.set_viewport_size({"width": 1100, "height": 800})
