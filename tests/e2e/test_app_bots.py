"""Computer players in the browser: a person against three computers, and a reload
while a computer is thinking."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page
from test_app_play import (
    SAVE_KEY,
    _new_page,
    parse_position,
    position,
    position_text,
    start_game,
    wait_change,
    wait_ready,
)

from ludo import active_seats, distinct_moves, format_position, record_from_json, replay

COMPUTERS = {"green": "easy", "yellow": "medium", "blue": "hard"}


@pytest.fixture(scope="module")
def table(browser: Browser, server_url: str) -> Iterator[Page]:
    page = _new_page(browser, server_url + "?auto_delay=0&pace_ms=0")
    try:
        yield page
    finally:
        page.context.close()


def test_person_against_three_computers_to_the_end(table: Page) -> None:
    kept_before = int(table.evaluate("window.ludo.kept()"))
    start_game(table, ["red", "green", "yellow", "blue"], kinds=COMPUTERS)
    assert "computer" in table.inner_text("#seats") or "hard" in table.inner_text("#seats")
    mouse = keyboard = 0
    for step in range(5000):
        # read the position and the controls in one go: computers move between calls
        text, die_disabled, timer_hidden = table.evaluate(
            "() => [window.ludo.position(),"
            " document.getElementById('die').getAttribute('aria-disabled') === 'true',"
            " document.getElementById('timer').hidden]")
        state = parse_position(text)
        if state.phase == "over":
            break
        if state.turn != "red":
            # computers play by themselves: the die is not the person's, no clock runs
            assert die_disabled and timer_hidden
            wait_change(table, text)
            continue
        if state.phase == "roll":
            if step % 2:
                table.focus("#die")
                table.keyboard.press("Enter")
                keyboard += 1
            else:
                table.click("#die")
                mouse += 1
        elif len(distinct_moves(state)) > 1:
            if step % 2:
                table.locator("#board .token.movable").first.focus()
                table.keyboard.press("Enter")
                keyboard += 1
            else:
                table.locator("#board .token.movable").last.click()
                mouse += 1
        wait_change(table, text)
    else:
        raise AssertionError("the game did not finish")
    assert mouse and keyboard
    table.locator("#dlg-winner").wait_for(state="visible")
    # the computers' search slices and the timers free their callbacks: a whole game (some
    # thousands of slices) keeps no more than a handful alive for the page's life
    assert int(table.evaluate("window.ludo.kept()")) - kept_before < 50
    assert table.console_errors == []
    table.click("#winner-home")


def test_the_keyboard_focus_stays_on_the_die_through_computer_turns(browser: Browser,
                                                                     server_url: str) -> None:
    # A keyboard player rolls with Enter on the die; while a computer plays, the die cannot be
    # pressed, but the focus must stay on it (not fall back to the page), so that Enter rolls
    # again as soon as the turn comes back. (The computer plays slowly enough to be seen.)
    table = _new_page(browser, server_url + "?auto_delay=0&pace_ms=300")
    try:
        start_game(table, ["red", "green"], kinds={"green": "medium"})
        table.evaluate("""() => { window.said = []; new MutationObserver(() => window.said.push(
            document.getElementById('announcer').textContent)).observe(
            document.getElementById('announcer'), {childList: true, characterData: true,
                                                    subtree: true}); }""")
        table.focus("#die")
        presses, on_die, seen_computer = 0, True, 0
        while presses < 6:
            text, focused = table.evaluate(
                "() => [window.ludo.position(), document.activeElement.id]")
            state = parse_position(text)
            if state.phase == "over":
                break
            choosing = state.turn == "red" and state.phase == "move" \
                and len(distinct_moves(state)) > 1
            if choosing:  # a choice of tokens: the focus rightly goes to them; pick one
                table.locator("#board .token.movable").first.focus()
                table.keyboard.press("Enter")
                on_die = False
            else:
                assert focused == "die" or not on_die, (state.turn, state.phase, focused)
                seen_computer += state.turn == "green" and on_die
                if state.turn == "red" and state.phase == "roll":
                    table.wait_for_selector("#die.ready")
                    if not on_die:
                        table.focus("#die")
                        on_die = True
                    table.keyboard.press("Enter")
                    presses += 1
            wait_change(table, text)
        # every roll but a 6 passed the turn to the computer, which played while the die kept it
        assert presses == 6 and seen_computer >= 1
        # the screen reader hears "The computer is playing this turn." once per computer turn,
        # not after each of its rolls and moves
        said = [t for t in table.evaluate("window.said") if t.strip()]
        playing = ["computer is playing" in t for t in said]
        twice = [i for i in range(1, len(said)) if playing[i - 1] and playing[i]]
        assert any(playing) and not twice, said
    finally:
        table.context.close()


def test_reload_during_a_computer_turn_resumes(browser: Browser, server_url: str) -> None:
    # slow computers, so the reload surely lands while one is about to act
    page = _new_page(browser, server_url + "?auto_delay=0&pace_ms=400")
    try:
        start_game(page, ["red", "yellow"], kinds={"red": "medium", "yellow": "medium"})
        page.wait_for_function(
            "JSON.parse(window.ludo.position()).tokens.red.concat("
            "JSON.parse(window.ludo.position()).tokens.yellow).some(t => t !== 'yard')",
            timeout=60_000)
        saved = json.loads(page.evaluate(f"localStorage.getItem({SAVE_KEY!r})"))["record"]
        page.reload()
        wait_ready(page)
        assert page.is_visible("#screen-table")
        save_text, after = page.evaluate(
            f"() => [localStorage.getItem({SAVE_KEY!r}), window.ludo.position()]")
        restored = json.loads(save_text)["record"]
        # nothing lost: the restored game continues the record saved before the reload
        assert restored["actions"][:len(saved["actions"])] == saved["actions"]
        assert after == format_position(replay(record_from_json(restored))[-1])
        wait_change(page, after)  # and the computers carry on by themselves
        wait_change(page, position_text(page))
        assert len(position(page).seats) == 2
        assert page.console_errors == []
    finally:
        page.context.close()


def test_the_turn_clock_never_runs_for_a_computer(browser: Browser, server_url: str) -> None:
    # a 1-second clock and computers that take 1.5 s per action: any clock on a computer
    # would have fired many times over
    page = _new_page(browser, server_url + "?auto_delay=0&pace_ms=1500&turn_seconds=1")
    try:
        start_game(page, ["red", "green", "yellow"], timer=True,
                   kinds={"red": "easy", "green": "medium", "yellow": "hard"})
        first = position_text(page)
        page.wait_for_timeout(4_000)
        state = position(page)
        assert position_text(page) != first  # the computers did play meanwhile
        assert sum(state.timeouts) == 0
        assert page.is_hidden("#timer")
        assert page.console_errors == []
    finally:
        page.context.close()


def test_quitting_against_one_computer_goes_home_not_to_a_rematch(table: Page) -> None:
    # seed rule 11: "Online and computer players return to Home". The quit leaves one seat, the
    # computer, who wins the game; the person who quit is not offered "Play again?"
    start_game(table, ["red", "green"], kinds={"green": "easy"})
    table.click("#btn-quit")
    table.locator("#dlg-quit").wait_for(state="visible")
    table.click("#quit-confirm")
    table.wait_for_selector("#screen-home:not([hidden])")
    assert position(table).winner == "green"
    assert not table.evaluate("document.getElementById('dlg-winner').open")
    # the finished game can still be looked at from Home
    assert "The last Courtyard game is over: Green won." in table.inner_text("#resume-box")


def test_after_quitting_a_person_only_watches_the_computers(table: Page) -> None:
    # seed rule 11: "You cannot rejoin as an active player". The person quits against two
    # computers, goes Home, comes back to watch: Quit game no longer offers any seat (it would
    # let them remove a computer and choose the winner) and says why instead
    start_game(table, ["red", "green", "yellow"], kinds={"green": "easy", "yellow": "easy"})
    table.click("#btn-quit")
    table.locator("#dlg-quit").wait_for(state="visible")
    table.click("#quit-confirm")
    table.wait_for_selector("#screen-home:not([hidden])")
    state = position(table)
    assert state.phase != "over" and "red" not in active_seats(state)
    # Home offers to watch the computers, not to resume playing
    assert table.inner_text("#btn-resume") == "Watch the game"
    assert "Nobody here plays in it any more" in table.inner_text("#resume-text")
    table.click("#btn-resume")
    table.wait_for_selector("#screen-table:not([hidden])")
    # every text the notice shows (a computer's "no move" notice may follow it at once)
    table.evaluate("""() => { window.noticesSeen = [];
        new MutationObserver(() => window.noticesSeen.push(
            document.getElementById('board-notice').textContent))
          .observe(document.getElementById('board-notice'),
                   {childList: true, characterData: true, subtree: true}); }""")
    table.click("#btn-quit")
    table.wait_for_function("window.noticesSeen.some(t => t.includes('nothing to quit'))")
    assert not table.evaluate("document.getElementById('dlg-quit').open")
    assert table.console_errors == []
