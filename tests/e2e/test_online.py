"""Online rooms in real browsers over real WebRTC on this machine: a room made from the setup
screen, friends joining by its link, whole games played by mouse to the end, Gilgiti turns
played value by value, a four-seat room with a computer seat run by the host, a spectator, a
guest reloading mid-turn back in its seat, forged messages refused by every page, three quits
leaving the computer the winner, a guest whose offer was lost calling the host again, and in
Gilgiti a host page closed and opened again (the guest told how long it was away) and a leave
that sends both pages Home.

WebRTC needs a non-loopback network interface here (docs/online.md, runtime notes): with only
a loopback interface Chromium gathers no candidates and these tests are skipped.
"""

from __future__ import annotations

import json
import random
import socket
import time
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from net.record import verify_record_json

PARAMS = "?auto_delay=0&pace_ms=0"
BOOT_MS = 90_000


def _has_network_interface() -> bool:
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("192.0.2.1", 9))  # no packet is sent: this only picks a route
            return not s.getsockname()[0].startswith("127.")
    except OSError:
        return False


# The tests of several Chromium pages each running Pyodide share one worker (make test runs
# `--dist loadgroup`): run side by side on 2 cores they starve each other (a 32 s game took 280 s).
pytestmark = [pytest.mark.skipif(not _has_network_interface(),
                                 reason="WebRTC needs a non-loopback network interface"),
              pytest.mark.xdist_group("many-browsers")]


def facts(page: Page) -> dict[str, Any]:
    return json.loads(page.evaluate("window.ludo.online()"))


# A full storage, in one page: its saves of an online room (host or guest) are refused,
# as when a save grows past the browser's quota; everything else is stored.
REFUSE_ROOM_SAVES = """() => {
  const setItem = Storage.prototype.setItem;
  window.__restoreSetItem = () => { Storage.prototype.setItem = setItem; };
  Storage.prototype.setItem = function (key, value) {
    if (String(key).startsWith('courtyard-ludo/room/')) {
      throw new DOMException('full', 'QuotaExceededError');
    }
    return setItem.call(this, key, value);
  };
}"""


def open_page(browser: Browser, url: str) -> Page:
    # motion is not what these tests look at, and a token still hopping makes a click wait
    page = browser.new_context(reduced_motion="reduce").new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.goto(url)
    page.wait_for_selector("html[data-ready='1']", state="attached", timeout=BOOT_MS)
    return page


def fill_setup(page: Page, kinds: dict[str, str], rules: str = "courtyard") -> None:
    """The setup form of ``page`` (on Home) for a game of ``rules`` with these seats."""
    page.check(f"input[name='rules'][value='{rules}']")
    page.check(f"input[name='players'][value='{len(kinds)}']")
    for colour in ("red", "green", "yellow", "blue"):
        box = page.locator(f"input[name='seat'][value='{colour}']")
        box.set_checked(colour in kinds)
        if colour in kinds:
            page.select_option(f"select[name='kind-{colour}']", kinds[colour])
    if page.is_enabled("#opt-timer"):  # (an online seat turns it on, for good)
        page.set_checked("#opt-timer", False)


def create_room(browser: Browser, server_url: str, kinds: dict[str, str],
                rules: str = "courtyard", params: str = PARAMS) -> tuple[Page, str]:
    host = open_page(browser, server_url + params)
    fill_setup(host, kinds, rules)
    # an online room always runs the turn clock: a lost connection cannot stop the match
    timer = host.locator("#opt-timer")
    assert timer.is_checked() and timer.is_disabled() and host.is_visible("#timer-note")
    host.fill("input[name='name-red']", "Hana")
    host.click("#btn-start")
    host.wait_for_selector("#screen-room:not([hidden])")
    host.wait_for_function("document.getElementById('room-status').textContent === 'Connected.'")
    link = host.input_value("#room-link")
    assert "#room=" in link and host.locator("#room-qr svg").count() == 1
    return host, link


def join(browser: Browser, link: str, name: str | None, seat: str | None = None) -> Page:
    # the link carries none of the host's test settings: the guest's page gets its own
    assert "auto_delay" not in link and "pace_ms" not in link, link
    guest = open_page(browser, link.replace("/#", f"/{PARAMS}#", 1))
    if name is None:  # a match under way: whoever opens the link without a seat watches it
        guest.wait_for_function("JSON.parse(window.ludo.online()).version !== null",
                                timeout=60_000)
    else:
        guest.wait_for_selector("#screen-room:not([hidden]) #room-seats li", timeout=60_000)
        guest.fill("#room-name", name)
        guest.click(f"button.take[data-seat='{seat}']")
        guest.wait_for_function(f"JSON.parse(window.ludo.online()).seat === '{seat}'")
    return guest


def start(host: Page, guests: list[Page]) -> None:
    host.wait_for_function("JSON.parse(window.ludo.online()).ready")
    host.click("#btn-room-start")
    for page in (host, *guests):
        page.wait_for_function("JSON.parse(window.ludo.online()).version !== null",
                               timeout=60_000)
        page.wait_for_selector("#screen-table:not([hidden])")


# What this page's person can do now, read in one round trip: the die's centre when it is
# ready, else a glowing token's (the first, or the one at `pick`, 0 to 1, along them), else
# whether a choice button is shown; None when the game is over here (the winner's dialog is
# open).
TARGET_JS = """(pick = 0) => {
  if (document.querySelector('dialog[open]')) return null;
  const centre = el => { const r = el.getBoundingClientRect();
                         return {x: r.left + r.width / 2, y: r.top + r.height / 2}; };
  const die = document.getElementById('die');
  if (!die.disabled && die.classList.contains('ready')) return centre(die);
  const tokens = document.querySelectorAll('#board .token.movable');
  if (tokens.length) return centre(tokens[Math.floor(pick * tokens.length)]);
  return document.querySelector('#choices button') ? {choice: true} : {};
}"""


def play_turn(page: Page, pick: float = 0.0) -> bool:
    """Whatever this page's person can do now, by mouse: roll, or pick a glowing token (the
    first, or at ``pick`` (0 to 1) along them). The position may change under the mouse (an
    automatic move, the other page's action arriving): then the click lands on a die or a board
    that no longer takes it, and nothing happens."""
    target = page.evaluate(TARGET_JS, pick)
    if not target:
        return False
    if "choice" in target:
        try:
            page.locator("#choices button").first.click(timeout=1500)
        except PlaywrightTimeout:
            return False
        return True
    # the mouse itself, at the target's centre: a locator's click first waits for the
    # element to stand still over two animation frames, most of the time of each action
    page.mouse.click(target["x"], target["y"])
    return True


def play_to_end(host: Page, players: list[Page], limit_s: float = 600,
                max_actions: int | None = None, version: int | None = None,
                picks: random.Random | None = None) -> int:
    """Play every page's turns until the game is over, or ``max_actions`` were played, or
    ``host``'s page has reached ``version`` (counting clicks is not enough where a click can
    change nothing, as while a reconnected room syncs). ``picks``: which glowing token is
    clicked, drawn at random (else always the first)."""
    started = time.monotonic()
    actions = 0
    while True:
        now = facts(host)
        if now["over"] or max_actions is not None and actions >= max_actions \
                or version is not None and now["version"] >= version:
            return actions
        if time.monotonic() - started >= limit_s:
            seen = [{k: v for k, v in facts(p).items() if k != "position"} for p in players]
            raise AssertionError(f"the game made no progress in time: {seen}, "
                                 f"targets {[p.evaluate(TARGET_JS) for p in players]}")
        moved = False
        for page in players:
            if play_turn(page, picks.random() if picks else 0.0):
                actions += 1
                moved = True
                page.wait_for_timeout(30)
        if not moved:
            host.wait_for_timeout(40)


def same_position(pages: list[Page]) -> None:
    """Every page reaches the first page's version and shows the same position. The turn clock
    runs on (a slow reload can take longer than a turn), so the host may move on meanwhile:
    then look again at its newer version."""
    for _ in range(5):
        version = facts(pages[0])["version"]
        for page in pages:
            page.wait_for_function(
                "v => JSON.parse(window.ludo.online()).version >= v", arg=version, timeout=60_000)
        seen = [facts(p) for p in pages]
        if {f["version"] for f in seen} == {version}:
            assert len({f["position"] for f in seen}) == 1
            return
    raise AssertionError("the pages never stood still on one version")


@pytest.mark.parametrize("rules", ["courtyard", "royal"])
def test_two_browsers_play_a_whole_game_by_mouse(browser: Browser, server_url: str,
                                                 rules: str) -> None:
    host, link = create_room(browser, server_url, {"red": "human", "yellow": "online"},
                             rules=rules)
    guest = join(browser, link, "Yusuf", "yellow")
    start(host, [guest])
    assert facts(guest)["bottomLeft"] == "yellow" and facts(host)["bottomLeft"] == "red"
    # the status line is a live region: written again only when its words change, or a
    # screen reader says "Connected." after every move
    guest.evaluate("""() => { window.statusWrites = 0; new MutationObserver(() =>
        window.statusWrites++).observe(document.getElementById('online-status'),
        {childList: true, characterData: true, subtree: true}); }""")
    began = time.monotonic()
    # Courtyard's game is shorter, and its length steadier, with tokens picked at random than
    # always one token first (simulated over 100 seeds: 320 clicks on average and at most 550,
    # against 360 and up to 850 moving the lowest-numbered token: a lone token waits for a
    # capture to unlock its home lane); Royal's the other way round (220 against 180)
    actions = play_to_end(host, [host, guest],
                          picks=random.Random(1) if rules == "courtyard" else None)
    assert guest.evaluate("window.statusWrites") < max(10, actions // 10), actions
    print(f"2 browsers, {rules}: {actions} clicks, whole game in "
          f"{time.monotonic() - began:.1f} s")
    same_position([host, guest])
    assert facts(guest)["over"] and facts(guest)["problem"] is None
    guest.evaluate("document.getElementById('online-dice').open = true")  # behind the winner
    guest.wait_for_selector("#online-dice-body .verified", state="attached")
    assert "p" in guest.inner_text("#online-dice-body")
    # the guest downloads the match's record with its dice (behind the winner: a script's
    # click), and the CLI's check verifies every die and action of it
    with guest.expect_download() as download:
        guest.evaluate("document.getElementById('btn-record').click()")
    verified = verify_record_json(json.loads(Path(download.value.path()).read_text("utf-8")))
    assert len(verified.record.actions) == facts(guest)["version"]
    assert verified.states[-1].phase == "over"
    assert host.errors == [] and guest.errors == []


def test_four_browsers_computer_spectator_reload_and_forgeries(browser: Browser,
                                                                server_url: str) -> None:
    # a 600-second turn clock: the forgeries below must meet a position that stands still,
    # however slow the machine (a reload slower than a turn would otherwise let the host time
    # yellow out)
    host, link = create_room(browser, server_url, {"red": "human", "green": "easy",
                                                   "yellow": "online", "blue": "online"},
                             params=PARAMS + "&turn_seconds=600")
    yellow = join(browser, link, "Yusuf", "yellow")
    blue = join(browser, link, "Bea", "blue")
    start(host, [yellow, blue])
    watcher = join(browser, link, None)
    assert facts(watcher)["seat"] is None
    assert facts(blue)["bottomLeft"] == "blue"

    # play until it is yellow's turn to move a token (mid-turn), then reload yellow's page
    began = time.monotonic()
    while True:
        for page in (host, yellow, blue):
            play_turn(page)
        state = json.loads(facts(host)["position"])
        if state["turn"] == "yellow" and state["phase"] == "move":
            break
        assert time.monotonic() - began < 300
    version = facts(host)["version"]
    yellow.reload()
    yellow.wait_for_selector("html[data-ready='1']", state="attached", timeout=BOOT_MS)
    # ">=": with the turn clock on, a reload slower than a turn lets the host time yellow out
    yellow.wait_for_function(
        "v => JSON.parse(window.ludo.online()).version >= v", arg=version, timeout=60_000)
    assert facts(yellow)["seat"] == "yellow" and facts(yellow)["connected"]
    same_position([host, yellow, blue, watcher])

    # forged: a guest acts for another seat; the host says how it refused, nothing changes
    before = facts(host)["version"]
    blue.evaluate("t => window.ludo.sendRaw(t)", json.dumps(
        {"v": 1, "seq": 10_000, "type": "act", "version": before,
         "action": {"type": "quit", "seat": "red"}}))
    blue.wait_for_function("JSON.parse(window.ludo.online()).notices.some("
                           "n => n.includes('refused'))")
    # forged: the host's page sends a die that the ledger does not give; every guest refuses
    host.evaluate("t => window.ludo.sendRaw(t)", json.dumps(
        {"v": 1, "seq": 10_000, "type": "action", "version": before, "actor": "yellow",
         "action": {"type": "roll", "value": 7}, "left": None}))
    for page in (yellow, blue, watcher):
        page.wait_for_function("JSON.parse(window.ludo.online()).notices.length > 0 || "
                               "JSON.parse(window.ludo.online()).problem !== null")
        assert facts(page)["version"] == before
    assert facts(host)["version"] == before

    # the match goes on among the four pages and the host's computer; the two whole games
    # above play on to a win, so this one ends by quitting: blue, then yellow, then the host
    # quit, and the computer, the last player remaining, wins (seen by the spectator too)
    actions = play_to_end(host, [host, yellow, blue], max_actions=40)
    same_position([host, yellow, blue, watcher])
    for quitter, seat in ((blue, "blue"), (yellow, "yellow"), (host, "red")):
        version = facts(host)["version"]
        quit_online(quitter)
        quitter.wait_for_selector("#screen-home:not([hidden])")
        host.wait_for_function("v => JSON.parse(window.ludo.online()).version > v", arg=version)
        assert json.loads(facts(host)["position"])["out"][seat] == "quit"
    print(f"4 browsers: {actions} clicks, then three quits, in {time.monotonic() - began:.1f} s")
    same_position([host, yellow, blue, watcher])
    assert facts(watcher)["over"] and json.loads(facts(watcher)["position"])["winner"] == "green"
    for page in (host, yellow, blue, watcher):
        assert page.errors == []


def quit_online(page: Page) -> None:
    """Quit this page's seat by mouse, through the confirmation dialog."""
    if page.locator("dialog[open]").count() == 0:
        page.wait_for_selector("#screen-table:not([hidden])")
    page.click("#btn-quit")
    page.locator("#dlg-quit").wait_for(state="visible")
    page.click("#quit-confirm")


def test_copy_says_copied_only_once_the_clipboard_took_the_link(browser: Browser,
                                                               server_url: str) -> None:
    """The room's Copy button: "Copied." once the clipboard has the link; when the browser
    refuses (no permission, no clipboard over plain http), the link is selected for the person
    to copy instead. (It said "Copied." at once, whatever the clipboard did later.)"""
    host, link = create_room(browser, server_url, {"red": "human", "green": "online"})
    host.context.grant_permissions(["clipboard-read", "clipboard-write"],
                                   origin=server_url.rstrip("/"))
    host.click("#btn-room-copy")
    host.wait_for_selector("#room-copied:not([hidden])")
    assert host.inner_text("#room-copied") == "Copied."
    assert host.evaluate("navigator.clipboard.readText()") == link
    host.evaluate("() => { navigator.clipboard.writeText = () => "
                  "Promise.reject(new DOMException('not allowed', 'NotAllowedError')); }")
    host.click("#btn-room-copy")
    host.wait_for_function("document.getElementById('room-copied').textContent"
                           ".startsWith('The link could not be copied')")
    assert host.evaluate("""() => { const box = document.getElementById('room-link');
        return [document.activeElement === box, box.selectionStart, box.selectionEnd]; }""") \
        == [True, 0, len(link)]
    assert host.errors == []


def test_a_guest_whose_offer_was_lost_calls_the_host_again(browser: Browser,
                                                            server_url: str) -> None:
    # The helper refuses a relay while its Redis is away, or the instance holding the host dies
    # with the offer in flight: here the guest's first offer simply never reaches the helper.
    host, link = create_room(browser, server_url, {"red": "human", "yellow": "online"})
    dropped: list[str] = []

    def route(ws: Any) -> None:
        server = ws.connect_to_server()

        def from_page(message: str | bytes) -> None:
            if isinstance(message, str) and not dropped \
                    and json.loads(message).get("type") == "offer":
                dropped.append(message)
                return
            server.send(message)

        ws.on_message(from_page)

    context = browser.new_context()
    context.route_web_socket("**/signal", route)
    guest = context.new_page()
    guest.errors = []
    guest.on("pageerror", lambda e: guest.errors.append(str(e)))
    # ?call_again_ms= shortens rtc.CALL_AGAIN_S (20 s): 3 s after the lost call the guest
    # calls again and gets through
    guest.goto(link.replace("/#", "/?call_again_ms=3000#", 1))
    guest.wait_for_selector("html[data-ready='1']", state="attached", timeout=BOOT_MS)
    guest.wait_for_function("JSON.parse(window.ludo.online()).connected === true",
                            timeout=90_000)
    assert len(dropped) == 1
    guest.wait_for_selector("#screen-room:not([hidden]) #room-seats li", timeout=60_000)
    guest.fill("#room-name", "Yusuf")
    guest.click("button.take[data-seat='yellow']")
    guest.wait_for_function("JSON.parse(window.ludo.online()).seat === 'yellow'")
    host.wait_for_function("JSON.parse(window.ludo.online()).ready")
    assert host.errors == [] and guest.errors == []


def test_links_that_cannot_authenticate_the_host_are_refused(browser: Browser,
                                                              server_url: str) -> None:
    # A link from before hosts had keys names no fingerprint: nothing could tell its host from
    # anyone else holding the link, so the page says so instead of joining.
    room = "q2Vf0pX9cE7wR1sT4uY8zA"
    old = open_page(browser, f"{server_url}{PARAMS}#room={room}")
    old.wait_for_selector("#screen-room:not([hidden])")
    assert "older version" in old.inner_text("#room-status")
    assert facts(old)["room"] is None and old.locator("#room-seats li").count() == 0
    old.click("#btn-room-leave")
    old.wait_for_selector("#screen-home:not([hidden])")
    # A device that joined by one link keeps its fingerprint: a copy of the link naming
    # another key for the same room is refused (here, in a second tab of the same browser).
    context = browser.new_context()
    first = context.new_page()
    first.goto(f"{server_url}{PARAMS}#room={room}&host={'A' * 22}")
    first.wait_for_selector("html[data-ready='1']", state="attached", timeout=BOOT_MS)
    first.wait_for_function("JSON.parse(window.ludo.online()).room !== null")
    assert facts(first)["status"] in ("Connecting…", "Waiting for the host.")
    other = context.new_page()
    other.errors = []
    other.on("pageerror", lambda e: other.errors.append(str(e)))
    other.goto(f"{server_url}{PARAMS}#room={room}&host={'B' * 22}")
    other.wait_for_selector("html[data-ready='1']", state="attached", timeout=BOOT_MS)
    other.wait_for_selector("#screen-room:not([hidden])")
    assert "different host" in other.inner_text("#room-status")
    assert facts(other)["room"] is None
    assert old.errors == [] and other.errors == []


def test_two_browsers_play_gilgiti_turns_by_value_chips(browser: Browser,
                                                        server_url: str) -> None:
    """Gilgiti online: each page rolls its own seat's dice and plays every value, chip then
    token (or token then chip), by mouse; the other page follows value by value. Then the
    host's page closes and comes back (the guest is told how long it has been away), and the
    guest leaves, which ends the match for everybody: both pages go back to the start screen
    saying who left, in the same words (the host's too, whose own person did not leave)."""
    from test_gilgiti import play, safe_choices, state_of, wait_change

    from ludo import distinct_moves, parse_position

    host, link = create_room(browser, server_url, {"red": "human", "yellow": "online"},
                             rules="gilgiti")
    guest = join(browser, link, "Yusuf", "yellow")
    start(host, [guest])
    pages = {"red": host, "yellow": guest}
    rolled = {"red": 0, "yellow": 0}
    played = {"red": 0, "yellow": 0}
    began = time.monotonic()
    # two plays a seat with a choice (chip first, then token first) and three rolls. The dice
    # are the two pages' own (no seed), and a seat whose plays mostly make themselves can lose
    # before it had three choices (seen once): a game that ends first is checked as ended, and
    # the rest of the test needs a match in progress
    while min(played.values()) < 2 or min(rolled.values()) < 3:
        assert time.monotonic() - began < 400, (rolled, played)
        state = parse_position(facts(host)["position"])
        if state.phase == "over":
            guest.wait_for_function("v => JSON.parse(window.ludo.online()).version >= v",
                                    arg=facts(host)["version"], timeout=60_000)
            same_position([host, guest])
            for page in (host, guest):
                page.locator("#dlg-winner").wait_for(state="visible")
            return
        page = pages[state.turn]
        page.wait_for_function("v => JSON.parse(window.ludo.online()).version >= v",
                               arg=facts(host)["version"], timeout=60_000)
        text = page.evaluate("window.ludo.position()")
        state = parse_position(text)
        if pages[state.turn] is not page:
            continue  # the turn moved on meanwhile (a stranded turn rolled back)
        if state.phase == "roll":
            page.click("#die")
            rolled[state.turn] += 1
            wait_change(page, text)
        elif len(distinct_moves(state)) == 1:
            wait_change(page, text)  # the only play makes itself
        else:
            play(page, safe_choices(state)[0], "mouse", chip_first=played[state.turn] % 2 == 0)
            played[state.turn] += 1
    same_position([host, guest])
    assert state_of(guest).seats == ("red", "yellow")
    # the host's page closes: its page is the table, so the match waits, and the guest is told
    # for how long; the host's device opens the game again and the match goes on
    context, version = host.context, facts(host)["version"]
    host.close()
    guest.wait_for_function("document.getElementById('online-status').textContent"
                            ".startsWith('The host has been away ')", timeout=60_000)
    assert guest.text_content("#online-status").endswith(": the match goes on when they return.")
    host = context.new_page()
    host.errors = []
    host.on("pageerror", lambda e: host.errors.append(str(e)))
    host.goto(server_url + PARAMS)  # no link: the device's own room resumes from its storage
    host.wait_for_selector("#screen-table:not([hidden])", timeout=BOOT_MS)
    guest.wait_for_function("JSON.parse(window.ludo.online()).connected", timeout=60_000)
    assert facts(host)["version"] >= version and facts(guest)["status"] == "Connected to the host."
    quit_online(guest)
    told = "Yusuf (yellow) left the game: the match has ended."
    for page in (guest, host):
        page.wait_for_selector("#screen-home:not([hidden])")
        page.wait_for_function("t => document.getElementById('resume-text').textContent === t",
                               arg=told)
        assert page.text_content("#board-notice") == told
        assert facts(page)["over"] and page.locator("dialog[open]").count() == 0
    assert host.errors == [] and guest.errors == []


def _guest_connected_to(host: Page) -> None:
    """Wait until Gus (green) is connected to this host tab. Its status line then says so:
    "Connected.", or "Gus (green) is back." where the tab had shown green away meanwhile
    (until the next action: docs/online.md)."""
    host.wait_for_function("JSON.parse(window.ludo.online()).connected.includes('green')",
                           timeout=60_000)
    # (the line follows within a budget of changes: a second late at most)
    host.wait_for_function("['Connected.', 'Gus (green) is back.'].includes("
                           "JSON.parse(window.ludo.online()).status)", timeout=5_000)


def test_a_second_tab_of_the_host_takes_the_room_and_the_guest_follows(
        browser: Browser, server_url: str) -> None:
    """The host opens the game again in another tab of the same browser (a bookmark, the
    home-screen icon): that tab takes the table, the first lets go of the room's connections,
    and the guest calls the host again and finds the new tab. "Play here" brings it back.
    (Hostile review 4: the guest's links stayed with the tab that stepped aside, while the new
    tab played without the guest and timed it out.)"""
    # a 90 s turn: a tab of the guest's own that takes its seat (the end of this test) calls the
    # host again on the seat's running clock, which on a loaded machine can take 30 s
    host, link = create_room(browser, server_url, {"red": "human", "green": "online"},
                             params=PARAMS + "&turn_seconds=90")
    guest = join(browser, link, "Gus", "green")
    start(host, [guest])
    second = host.context.new_page()
    second.errors = []
    second.on("pageerror", lambda e: second.errors.append(str(e)))
    second.goto(server_url + PARAMS)  # no link: the device's own room resumes from storage
    second.wait_for_selector("#screen-table:not([hidden])", timeout=BOOT_MS)
    host.wait_for_selector("#tab-banner:not([hidden])")
    assert facts(host)["status"] == ("This room is open in another tab of this browser. Play "
                                     "here brings it back to this tab.")
    # the guest finds the new tab: it counts green as here, and the two play on together
    _guest_connected_to(second)
    guest.wait_for_function("JSON.parse(window.ludo.online()).connected", timeout=60_000)
    began = facts(second)["version"]
    play_to_end(second, [second, guest], limit_s=120, version=began + 4)
    same_position([second, guest])
    assert facts(guest)["version"] > began and facts(host)["version"] == began
    assert json.loads(facts(second)["position"])["timeouts"]["green"] == 0
    # "Play here" in the first tab: it opens the room again, and the guest follows it there
    host.click("#btn-play-here")
    second.wait_for_selector("#tab-banner:not([hidden])")
    _guest_connected_to(host)
    guest.wait_for_function("JSON.parse(window.ludo.online()).connected", timeout=60_000)
    moved = facts(host)["version"]
    assert moved >= facts(guest)["version"] - 1
    play_to_end(host, [host, guest], limit_s=120, version=moved + 4)
    same_position([host, guest])
    assert facts(guest)["version"] > moved
    assert json.loads(facts(host)["position"])["timeouts"]["green"] == 0
    # the guest's device too: its new tab joins the room as green again, the old one lets go
    guest2 = guest.context.new_page()
    guest2.errors = []
    guest2.on("pageerror", lambda e: guest2.errors.append(str(e)))
    guest2.goto(server_url + PARAMS)
    guest2.wait_for_selector("#screen-table:not([hidden])", timeout=BOOT_MS)
    guest.wait_for_selector("#tab-banner:not([hidden])")
    guest2.wait_for_function("JSON.parse(window.ludo.online()).connected", timeout=60_000)
    _guest_connected_to(host)
    assert facts(guest2)["seat"] == "green"
    moved = facts(host)["version"]
    play_to_end(host, [host, guest2], limit_s=120, version=moved + 4)
    same_position([host, guest2])
    assert facts(guest2)["version"] > moved and facts(guest)["version"] <= moved
    assert json.loads(facts(host)["position"])["timeouts"]["green"] == 0
    assert host.errors == [] and second.errors == [] and guest.errors == [] \
        and guest2.errors == []


def test_back_from_the_table_to_the_room_closes_its_dialogs(browser: Browser,
                                                            server_url: str) -> None:
    """Back from a room's table to its room screen takes the table's quit and winner dialogs
    with it, as Back to Home does; before, the quit dialog stood over the room screen."""
    host, link = create_room(browser, server_url, {"red": "human", "green": "online"})
    guest = join(browser, link, "Gus", "green")
    start(host, [guest])
    version = facts(host)["version"]
    host.click("#btn-quit")
    host.locator("#dlg-quit").wait_for(state="visible")
    host.go_back()
    host.wait_for_selector("#screen-room:not([hidden])")
    assert host.locator("dialog[open]").count() == 0
    assert host.evaluate("document.activeElement.id") == "room-title"
    host.go_forward()
    host.wait_for_selector("#screen-table:not([hidden])")
    assert host.locator("dialog[open]").count() == 0 and facts(host)["version"] == version
    # the host quits: green wins; the guest goes Back from the winner dialog and stays on
    # the room screen (its close does not move the page on to Home)
    quit_online(host)
    guest.locator("#dlg-winner").wait_for(state="visible")
    guest.go_back()
    guest.wait_for_selector("#screen-room:not([hidden])")
    guest.wait_for_function("!document.getElementById('dlg-winner').open")
    guest.wait_for_timeout(300)  # the dialog's close event has run
    assert guest.is_visible("#screen-room") and "#room=" in guest.url
    # the room's seats say the host is out of the match (they said "on the host's device"
    # only, as in the lobby: seed 000, rule 11, "You cannot rejoin as an active player")
    assert "Red: Hana (on the host's device) · quit" in guest.inner_text("#room-seats")
    assert host.errors == [] and guest.errors == []
    for page in (host, guest):
        page.context.close()
