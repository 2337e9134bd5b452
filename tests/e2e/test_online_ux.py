"""Online rooms as friends meet them, in real browsers: what each page says when a link is
damaged, when the host closes its room before the match, and while the signalling helper
is away. The room helpers are test_online's (a host's room from the setup screen, a guest
joining by its link)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from playwright.sync_api import Browser, Page
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from test_online import (
    PARAMS,
    REFUSE_ROOM_SAVES,
    create_room,
    facts,
    join,
    open_page,
    play_to_end,
    start,
)
from test_online import pytestmark as online_marks

from server.testing import end_process, free_port

pytestmark = online_marks

ROOT = Path(__file__).resolve().parents[2]
ROOM = "q2Vf0pX9cE7wR1sT4uY8zA"
FINGERPRINT = "A" * 22


DAMAGED_LINKS = (
    f"#room={ROOM[:10]}",  # the room id cut off
    f"#room={ROOM}&host={FINGERPRINT[:9]}",  # the host's fingerprint cut off
    f"#room={ROOM}&ho",  # cut off in the middle of its name
    "#room=bad!",
)


def test_a_damaged_room_link_says_so_instead_of_dropping_the_friend_at_home(
        browser: Browser, server_url: str) -> None:
    # A link cut off when it was copied (a chat app wrapping it, a QR code read in part) once
    # opened Home without a word, or was taken for "an older version" of the game. The first
    # opens the page; the others are followed from Home by the address alone, as a link
    # tapped in an open tab is (one page boot for all four)
    page = open_page(browser, f"{server_url}{PARAMS}{DAMAGED_LINKS[0]}")
    for fragment in DAMAGED_LINKS:
        if fragment != DAMAGED_LINKS[0]:
            page.evaluate("f => { location.hash = f; }", fragment)
        page.wait_for_selector("#screen-room:not([hidden])")
        status = page.inner_text("#room-status")
        assert "incomplete or damaged" in status and "send it again" in status, \
            (fragment, status)
        # said too (the same sentence again ends in a no-break space, so that it is heard)
        page.wait_for_function(
            "s => document.getElementById('announcer').textContent.trim() === s",
            arg=status, timeout=5_000)
        assert facts(page)["room"] is None and page.locator("#room-seats li").count() == 0
        page.click("#btn-room-leave")
        page.wait_for_selector("#screen-home:not([hidden])")
    assert page.errors == []


def test_a_host_that_closes_its_room_before_the_match_tells_the_guests(
        browser: Browser, server_url: str) -> None:
    # The host's "closed" went out as its peer connections closed, and was lost with them: the
    # guests waited "for the host" for good, their seat buttons live.
    host, link = create_room(browser, server_url, {"red": "human", "green": "online",
                                                   "yellow": "online"})
    seated = join(browser, link, "Bo", "green")
    looking = open_page(browser, link.replace("/#", f"/{PARAMS}#", 1))
    looking.wait_for_selector("#screen-room:not([hidden]) button.take[data-seat='yellow']")
    host.click("#btn-room-leave")
    host.wait_for_selector("#screen-home:not([hidden])")
    for guest in (seated, looking):
        guest.wait_for_function(
            "document.getElementById('room-status').textContent"
            " === 'From the host: the room is closed; ask for a new link to play.'",
            timeout=15_000)
        assert guest.is_hidden("#room-join")
        assert guest.inner_text("#room-hint") == "Leave the room to go back to Home."
        assert guest.locator("button.take:not([disabled])").count() == 0
    assert host.errors == [] and seated.errors == [] and looking.errors == []


def _serve(port: int) -> subprocess.Popen[bytes]:
    """`python -m server` on ``port``, the game and its signalling helper, up when this returns
    (a server of this test's own: it is stopped and started again on the same port)."""
    proc = subprocess.Popen([sys.executable, "-m", "server"], cwd=ROOT, env=dict(
        os.environ, HOST="127.0.0.1", PORT=str(port)), stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL)
    for _ in range(100):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/manifest.webmanifest", timeout=1)
            return proc
        except OSError:
            time.sleep(0.1)
    end_process(proc)
    raise AssertionError("the server did not start")


def test_the_pages_say_plainly_when_the_signalling_server_is_down(browser: Browser) -> None:
    # With the helper gone mid-game the host's status line said "Connection to the room lost;
    # trying again…" and "Connecting…" in turn, every few seconds, while the match played on
    # over the open links; and a guest that reloaded then was told the host had been away.
    port = free_port()
    server = _serve(port)
    try:
        base = f"http://127.0.0.1:{port}/"
        host, link = create_room(browser, base, {"red": "human", "yellow": "online"})
        guest = join(browser, link, "Yusuf", "yellow")
        start(host, [guest])
        play_to_end(host, [host, guest], max_actions=4)
        host.evaluate("""() => { window.said = []; const box =
            document.getElementById('online-status'); new MutationObserver(() =>
            window.said.push(box.textContent)).observe(box, {childList: true,
            characterData: true, subtree: true}); }""")
        end_process(server)
        host.wait_for_function("document.getElementById('online-status').textContent"
                               ".startsWith(\"The room's server cannot be reached\")")
        assert "Players already connected play on" in host.inner_text("#online-status")
        # the match goes on without the helper, and the words stand still through its retries
        version = facts(host)["version"]
        play_to_end(host, [host, guest], version=version + 4, limit_s=60)
        host.wait_for_timeout(4_000)  # the helper is tried again 1, 2 and 4 s apart
        said = host.evaluate("window.said")
        assert len(set(said)) == 1, said
        assert guest.inner_text("#online-status") == "Connected to the host."
        # a guest that reloads now cannot call its host: the helper is what is missing
        guest.reload()
        guest.wait_for_selector("html[data-ready='1']", state="attached", timeout=90_000)
        guest.wait_for_function("document.getElementById('room-status').textContent"
                                " === \"The room's server cannot be reached; trying again…\"")
        guest.wait_for_timeout(11_000)  # past "the host has been away 10 s"
        assert guest.inner_text("#room-status") == \
            "The room's server cannot be reached; trying again…"
        # meanwhile the host's table marks yellow away, in the seat list and in its box at the
        # board, and nobody else
        host.wait_for_selector("#seats li[data-colour='yellow'].away")
        assert host.locator("#seats li.away").count() == 1
        assert host.locator(".pod .pod-away").count() == 1
        assert "Yusuf" in host.inner_text(".pod:has(.pod-away)")
        # the helper back, the guest is back at the table, and the marks go
        server = _serve(port)
        guest.wait_for_function("JSON.parse(window.ludo.online()).connected", timeout=90_000)
        host.wait_for_function("JSON.parse(window.ludo.online()).connected.includes('yellow')",
                               timeout=60_000)
        try:
            host.wait_for_selector("#seats li.away", state="detached", timeout=15_000)
        except PlaywrightTimeout:
            raise AssertionError(f"still away: {facts(host)}") from None
        assert host.locator(".pod .pod-away").count() == 0
        assert host.errors == [] and guest.errors == []
    finally:
        end_process(server)


def test_an_online_rematch_plays_again_in_the_same_room_and_a_spectator_can_leave(
        browser: Browser, server_url: str) -> None:
    # The winner's dialog online had no Rematch: playing again meant Home, a new room and a new
    # link for every friend. Now the host's Rematch starts a new match in the same room, with
    # the same seats, and the guest and the spectator follow into it. And a spectator's Quit
    # button only said that it could not quit: it is "Leave the room", after a confirmation.
    host, link = create_room(browser, server_url, {"red": "human", "yellow": "online"})
    guest = join(browser, link, "Yusuf", "yellow")
    start(host, [guest])
    watcher = join(browser, link, None)
    play_to_end(host, [host, guest], max_actions=2)
    old = facts(host)["match"]
    assert old is not None and facts(watcher)["match"] == old
    guest.click("#btn-quit")
    guest.click("#dlg-quit button[value='confirm']")
    guest.wait_for_selector("#screen-home:not([hidden])")
    # the guest's table (from Home) says it waits for the host's rematch; it has no Rematch
    guest.click("#btn-resume")
    guest.wait_for_selector("#dlg-winner[open]")
    text = guest.inner_text("#winner-text")
    assert text.endswith("Waiting for the host to start a rematch: you will follow them into "
                         "it. Home leaves the table."), text
    assert guest.is_hidden("#winner-rematch")
    host.wait_for_selector("#dlg-winner[open]", timeout=30_000)
    text = host.inner_text("#winner-text")
    assert text.endswith("Play again in this room with the same seats? Your friends follow "
                         "you."), text
    assert watcher.inner_text("#btn-quit") == "Leave the room"
    host.click("#winner-rematch")
    _all_at_a_new_match(old, host, guest, watcher)
    play_to_end(host, [host, guest], max_actions=2)
    # this time the host's person leaves: its page goes Home; its table offers Rematch, and
    # so does its room screen (where a match a leave ended, with no winner dialog, leads)
    second = facts(host)["match"]
    host.click("#btn-quit")
    host.click("#dlg-quit button[value='confirm']")
    host.wait_for_selector("#screen-home:not([hidden])")
    guest.wait_for_selector("#dlg-winner[open]", timeout=30_000)
    assert guest.is_hidden("#winner-rematch")
    host.click("#btn-resume")
    host.wait_for_selector("#dlg-winner[open]")
    assert host.is_visible("#winner-rematch")
    host.keyboard.press("Escape")
    host.wait_for_selector("#screen-home:not([hidden])")
    host.evaluate("h => { location.hash = h; }", "#" + link.split("#", 1)[1])
    host.wait_for_selector("#screen-room:not([hidden])")
    assert host.inner_text("#btn-room-start") == "Rematch"
    host.click("#btn-room-start")
    _all_at_a_new_match(second, host, guest, watcher)
    # the spectator at Home: nothing to resume, and a new game here leaves the match to the
    # others (it was told "A new game replaces it, and it cannot be resumed.")
    watcher.click("a[data-nav='home']")
    watcher.wait_for_selector("#screen-home:not([hidden])")
    assert watcher.inner_text("#btn-resume") == "Watch the game"
    watcher.click("#btn-start")
    watcher.wait_for_selector("#dlg-replace[open]")
    assert watcher.inner_text("#replace-text").endswith(
        "This device only watches the online match: it goes on without you, and the room's "
        "link lets you watch it again.")
    watcher.click("#replace-cancel")
    watcher.click("#btn-resume")
    watcher.wait_for_selector("#screen-table:not([hidden])")
    # the spectator leaves: asked first (Keep watching stays), then Home, out of the room
    watcher.click("#btn-quit")
    watcher.wait_for_selector("#dlg-leave[open]")
    assert watcher.evaluate("document.activeElement.id") == "leave-cancel"
    watcher.click("#leave-cancel")
    assert facts(watcher)["room"] is not None
    watcher.click("#btn-quit")
    watcher.click("#leave-confirm")
    watcher.wait_for_selector("#screen-home:not([hidden])")
    assert facts(watcher)["room"] is None
    assert host.errors == [] and guest.errors == [] and watcher.errors == []


def _all_at_a_new_match(old: str, host: Page, guest: Page, watcher: Page) -> None:
    """Every page is at the table of a match after ``old``, with the same seats (red the
    host's, yellow the guest's, none the watcher's): nobody sent a new link."""
    for page, seat in ((host, "red"), (guest, "yellow"), (watcher, None)):
        page.wait_for_function("m => { const f = JSON.parse(window.ludo.online());"
                               " return f.match !== null && f.match !== m && !f.over"
                               " && f.version !== null; }", arg=old, timeout=60_000)
        page.wait_for_selector("#screen-table:not([hidden])")
        assert page.locator("dialog[open]").count() == 0
        now = facts(page)
        assert now["seat"] == seat and now.get("problem") is None, now
    assert facts(guest)["match"] == facts(host)["match"] == facts(watcher)["match"]


def test_the_lobby_names_the_game_tells_the_host_who_came_and_who_left(
        browser: Browser, server_url: str) -> None:
    # A friend opening the link was not told which game it was; the host's screen reader heard
    # nobody arrive, and the hints kept saying "when every seat is taken" once every seat was;
    # a guest whose page went away stayed "(here)" on the other guests' screens.
    host, link = create_room(browser, server_url, {"red": "human", "green": "online",
                                                   "yellow": "online", "blue": "easy"},
                             rules="gilgiti")
    teams = "Game: Gilgiti, 4 players, Teams: Red + Yellow vs Green + Blue."
    assert host.inner_text("#room-game") == teams
    bo = join(browser, link, "Bo", "green")
    assert bo.inner_text("#room-game") == teams
    host.wait_for_function("document.getElementById('announcer').textContent"
                           " === 'Bo (green) took a seat.'")
    yusuf = join(browser, link, "Yusuf", "yellow")
    host.wait_for_function("document.getElementById('announcer').textContent === 'Yusuf"
                           " (yellow) took a seat. Every online seat is taken: you can start"
                           " the match.'")
    assert host.inner_text("#room-hint") == "Every online seat is taken: start the match."
    bo.wait_for_function("document.getElementById('room-hint').textContent === 'You have a"
                         " seat. Every seat is taken: the host starts the match.'")
    assert host.errors == [] and bo.errors == [] and yusuf.errors == []
    yusuf.context.close()  # gone without a word (Leave the room would give the seat back)
    bo.wait_for_selector("#room-seats li[data-seat='yellow'] >> text=(away)")


def test_a_seat_taken_by_keyboard_keeps_the_focus_and_is_announced(
        browser: Browser, server_url: str) -> None:
    # Taking a seat with Enter drew the seats anew: the focus fell to the top of the page, and
    # nothing told a screen reader that the seat was taken.
    host, link = create_room(browser, server_url, {"red": "human", "green": "online",
                                                   "blue": "online"})
    guest = open_page(browser, link.replace("/#", f"/{PARAMS}#", 1))
    guest.wait_for_selector("#screen-room:not([hidden]) button.take[data-seat='blue']")
    guest.focus("#room-name")
    guest.keyboard.type("Bea")
    for _ in range(3):  # past Just watch and green's button, to blue's
        guest.keyboard.press("Tab")
    assert guest.evaluate("document.activeElement.dataset.seat") == "blue"
    guest.keyboard.press("Enter")
    guest.wait_for_function("JSON.parse(window.ludo.online()).seat === 'blue'")
    guest.wait_for_function("document.getElementById('announcer').textContent"
                            " === 'You have the blue seat.'")
    assert guest.evaluate("document.activeElement.id") == "room-hint"
    # from there Tab goes on through the room screen, not from the top of the page
    guest.keyboard.press("Tab")
    assert guest.evaluate("document.activeElement.id") == "room-name"
    assert host.errors == [] and guest.errors == []


def test_a_spectator_is_told_it_is_watching(browser: Browser, server_url: str) -> None:
    # A friend who opened the link of a full, running room saw a table like a player's whose
    # turn never came, and "Connected to the host." as if it had a seat.
    host, link = create_room(browser, server_url, {"red": "human", "yellow": "online"})
    guest = join(browser, link, "Yusuf", "yellow")
    start(host, [guest])
    watcher = join(browser, link, None)
    watcher.wait_for_selector("#screen-table:not([hidden])")
    watcher.wait_for_function("document.getElementById('online-status').textContent"
                              " === 'You are watching: connected to the host.'")
    assert guest.inner_text("#online-status") == "Connected to the host."
    assert host.errors == [] and guest.errors == [] and watcher.errors == []


def test_a_guest_that_leaves_the_room_before_the_match_gives_its_seat_back(
        browser: Browser, server_url: str) -> None:
    # "Leave the room" before the match kept the seat, shown "(away)": nobody else could take
    # it, and the host could start a match whose clock would time it out.
    host, link = create_room(browser, server_url, {"red": "human", "yellow": "online"})
    guest = join(browser, link, "Yusuf", "yellow")
    host.wait_for_function("JSON.parse(window.ludo.online()).ready")
    guest.click("#btn-room-leave")
    guest.wait_for_selector("#screen-home:not([hidden])")
    host.wait_for_selector("#room-seats li[data-seat='yellow'] >> text=waiting for a friend")
    assert host.is_disabled("#btn-room-start")
    assert host.inner_text("#announcer") == "Yusuf (yellow) left their seat."
    # the seat is free for the next friend with the link
    other = join(browser, link, "Bea", "yellow")
    host.wait_for_function("JSON.parse(window.ludo.online()).ready")
    assert host.errors == [] and guest.errors == [] and other.errors == []


def test_a_link_to_a_room_nobody_hosts_says_what_to_do_after_a_while(
        browser: Browser, server_url: str) -> None:
    # A link to a room whose host's game is not open (closed for good, or an old match) said
    # "Waiting for the host." for ever, nothing more.
    page = open_page(browser, f"{server_url}{PARAMS}#room={ROOM}&host={FINGERPRINT}")
    page.wait_for_function("document.getElementById('room-status').textContent"
                           " === 'Waiting for the host.'")
    page.wait_for_function("document.getElementById('room-status').textContent.includes("
                           "'If they closed the room, ask them for a new link.')",
                           timeout=25_000)
    assert page.errors == []


# Rooms this device saved earlier (made-up ids), oldest last, as an earlier visit left them.
EARLIER_ROOMS = [f"Earlier{i:02d}Room0000000"[:22] for i in range(10)]


def test_a_device_keeps_only_its_latest_saved_rooms(browser: Browser, server_url: str) -> None:
    # Every hosted match stayed saved for good (its record and dice chains, 120-190 kB) unless
    # the player pressed Leave, until the browser's storage was full and no game could be
    # saved. Now saving a room keeps the 8 saved most recently and forgets the rest.
    host, link = create_room(browser, server_url, {"red": "human", "yellow": "online"})
    host.evaluate("""ids => {
        for (const id of ids) {
            localStorage.setItem('courtyard-ludo/room/host/' + id, '{"room": "' + id + '"}');
            localStorage.setItem('courtyard-ludo/hostkey/host/' + id, 'key of ' + id);
        }
        localStorage.setItem('courtyard-ludo/rooms',
                             JSON.stringify(ids.map(id => 'host/' + id)));
    }""", EARLIER_ROOMS)
    own = facts(host)["room"]
    join(browser, link, "Yusuf", "yellow")  # the host's room changes, and it is saved
    stored = """prefix => Object.keys(localStorage).filter(k => k.startsWith(prefix)).sort()"""
    host.wait_for_function(f"({stored})('courtyard-ludo/room/').length === 8",
                           arg=None, timeout=30_000)
    kept = [f"host/{room}" for room in [own] + EARLIER_ROOMS[:7]]
    assert host.evaluate(stored, "courtyard-ludo/room/") == \
        sorted(f"courtyard-ludo/room/{name}" for name in kept)
    assert host.evaluate(stored, "courtyard-ludo/hostkey/") == \
        sorted(f"courtyard-ludo/hostkey/{name}" for name in kept)
    assert host.evaluate("JSON.parse(localStorage.getItem('courtyard-ludo/rooms'))") == kept
    assert host.errors == []



def test_a_room_that_storage_refuses_to_save_says_so_and_play_goes_on(
        browser: Browser, server_url: str) -> None:
    # A local game whose save is refused says so under the prompt; an online room's refused
    # save (the host's record and dice, a guest's seat) was said nowhere, though a reload then
    # loses this device's place in the room.
    host, link = create_room(browser, server_url, {"red": "human", "yellow": "online"})
    guest = join(browser, link, "Yusuf", "yellow")
    start(host, [guest])
    for page in (host, guest):
        page.evaluate(REFUSE_ROOM_SAVES)
    version = facts(host)["version"]
    play_to_end(host, [host, guest], version=version + 2)
    for page in (host, guest):
        warning = page.locator("#save-warning")
        warning.wait_for(state="visible")
        assert "This room cannot be saved on this device" in warning.inner_text()
    for page in (host, guest):  # storage takes saves again: the warning goes
        page.evaluate("window.__restoreSetItem()")
    play_to_end(host, [host, guest], version=facts(host)["version"] + 2)
    for page in (host, guest):
        page.locator("#save-warning").wait_for(state="hidden")
    assert host.errors == [] and guest.errors == []
