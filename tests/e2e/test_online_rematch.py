"""Reloads around an online rematch (docs/online.md, "Rematch"), in real browsers: the host's
page, a guest's and a spectator's reload once the match is over, right after the host's
Rematch while the seats' devices commit their new dice chains, and early in the new match; a
spectator that takes a seat freed by the rematch reloads in it; a guest's page closed during
the rematch opens again from the link; and a Gilgiti match that a leave ended (no winner) is
played again from the host's room screen. Every page must end at the new match's position,
with its match id, state ids past the old match's, the Quit button in the right words, no
winner dialog of the old match, and no console error.

A handful of page boots in all (each costs 2-3 s here): the same pages walk through every
moment, and each match plays only a few moves before a player leaves it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page
from test_online import (
    BOOT_MS,
    PARAMS,
    REFUSE_ROOM_SAVES,
    create_room,
    facts,
    join,
    play_to_end,
    same_position,
    start,
)
from test_online import pytestmark as online_marks

pytestmark = online_marks

QUIT = "Quit game"
LEAVE_ROOM = "Leave the room"
LEAVE = "Leave game"  # Gilgiti's Quit


def _watch_console(page: Page) -> Page:
    """Console errors too, not only uncaught exceptions (open_page's ``errors``), kept across
    the page's reloads."""
    page.console_errors = []
    page.on("console", lambda m: m.type == "error" and page.console_errors.append(m.text))
    return page


def _no_faults(*pages: Page) -> None:
    for page in pages:
        assert page.errors == [] and page.console_errors == [], \
            (page.errors, page.console_errors)


def _reload(page: Page) -> None:
    page.reload()
    page.wait_for_selector("html[data-ready='1']", state="attached", timeout=BOOT_MS)


def _open_link(context: BrowserContext, link: str) -> Page:
    """A new page of ``context`` (a device, with its storage) opened from the room's link."""
    return _open(context, link.replace("/#", f"/{PARAMS}#", 1))


def _open(context: BrowserContext, url: str) -> Page:
    """A new page of ``context`` (a device, with its storage: a tab of its browser)."""
    page = _watch_console(context.new_page())
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.goto(url)
    page.wait_for_selector("html[data-ready='1']", state="attached", timeout=BOOT_MS)
    return page


class _Stall(BaseHTTPRequestHandler):
    """Answers GET /<ms> after ``ms`` milliseconds, to any origin: what a busy tab waits for."""

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        time.sleep(min(int(self.path.strip("/") or 0), 120_000) / 1000)
        self.send_response(204)
        self.send_header("Access-Control-Allow-Origin", "*")
        self.end_headers()

    def log_message(self, *_args: object) -> None:
        pass


@pytest.fixture(scope="module")
def stall_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Stall)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


class _StallingBrowser:
    """The run's browser, its contexts without the pages' Content-Security-Policy, whose
    connect-src would refuse the stall server's other port."""

    def __init__(self, browser: Browser) -> None:
        self._browser = browser

    def new_context(self, **options: Any) -> BrowserContext:
        return self._browser.new_context(bypass_csp=True, **options)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._browser, name)


@pytest.fixture
def browser(browser: Browser, stall_url: str) -> Browser:
    _stall[0] = stall_url
    return _StallingBrowser(browser)  # type: ignore[return-value]


_stall = [""]


def _busy(page: Page, ms: int) -> None:
    """Keep ``page``'s main thread busy for ``ms`` from now: nothing it is sent is handled
    meanwhile (a slow device, or one whose message is still on its way). A synchronous request
    that the stall server answers ``ms`` later holds the thread as a loop spinning for ``ms``
    would, without spinning a core for it (this module's tests kept a core busy for about a
    minute so, while the other tabs and the other tests' pages booted on the same two)."""
    page.evaluate("([url, ms]) => setTimeout(() => { const request = new XMLHttpRequest();"
                  " request.open('GET', url + ms, false); request.send(); }, 0)",
                  [_stall[0], ms])


def _last_id(page: Page) -> int:
    """The state id of the last position of the match this page shows."""
    now = facts(page)
    return int(now["first"]) + int(now["version"])


def _at_new_match(old: str, past: int, pages: dict[Page, tuple[str | None, str]]) -> str:
    """Every page (with the seat it holds and its Quit button's words) is at the table of one
    match after ``old``, not over, whose state ids start past ``past``; no dialog is open (the
    old match's winner dialog is not shown again) and nothing is wrong. Its match id."""
    for page in pages:
        page.wait_for_function(
            "m => { const f = JSON.parse(window.ludo.online());"
            " return f.match !== null && f.match !== m && !f.over && f.version !== null; }",
            arg=old, timeout=60_000)
        page.wait_for_selector("#screen-table:not([hidden])", timeout=30_000)
    matches = set()
    for page, (seat, quit_words) in pages.items():
        now = facts(page)
        assert page.locator("dialog[open]").count() == 0, now
        assert now["seat"] == seat and now.get("problem") is None, now
        assert now["first"] > past, (now["first"], past)
        assert page.inner_text("#btn-quit") == quit_words, (seat, page.inner_text("#btn-quit"))
        matches.add(now["match"])
    assert len(matches) == 1, matches
    same_position(list(pages))
    return matches.pop()


def _quit(page: Page) -> None:
    page.click("#btn-quit")
    page.click("#dlg-quit button[value='confirm']")
    page.wait_for_selector("#screen-home:not([hidden])")


def _ended(host: Page, others: list[Page]) -> tuple[str, int]:
    """The match is over on every page: its id and its last state id."""
    host.wait_for_function("JSON.parse(window.ludo.online()).over", timeout=30_000)
    for page in others:
        page.wait_for_function("JSON.parse(window.ludo.online()).over", timeout=30_000)
    return facts(host)["match"], _last_id(host)


def test_pages_that_reload_around_a_rematch_come_back_to_the_new_match(
        browser: Browser, server_url: str) -> None:
    host, link = create_room(browser, server_url, {"red": "human", "yellow": "online"})
    guest = join(browser, link, "Yusuf", "yellow")
    start(host, [guest])
    watcher = join(browser, link, None)
    for page in (host, guest, watcher):
        _watch_console(page)
    seats = {host: ("red", QUIT), guest: ("yellow", QUIT), watcher: (None, LEAVE_ROOM)}

    # match 1 ends (the guest quits: the host wins). (a) Once it is over, before the Rematch,
    # the guest's, the spectator's and the host's pages reload: the host's winner dialog still
    # offers Rematch
    play_to_end(host, [host, guest], max_actions=2)
    _quit(guest)
    old, past = _ended(host, [watcher])
    _reload(guest)
    _reload(watcher)
    _reload(host)
    host.wait_for_selector("#dlg-winner[open]", timeout=60_000)
    assert host.is_visible("#winner-rematch")
    # the spectator's page is back at the old match's end, waiting for the host; the guest's,
    # which quit and so went Home, back at Home, where its player was (it follows the rematch
    # from there, below)
    watcher.wait_for_selector("#dlg-winner[open]", timeout=60_000)
    text = watcher.inner_text("#winner-text")
    assert watcher.is_hidden("#winner-rematch") and text.endswith(
        "Waiting for the host to start a rematch: you will follow them into it. Home "
        "leaves the table."), text
    guest.wait_for_function("JSON.parse(window.ludo.online()).version !== null",
                            timeout=60_000)
    guest.wait_for_selector("#screen-home:not([hidden])", timeout=10_000)
    assert guest.locator("dialog[open]").count() == 0
    for page in (guest, watcher):
        assert facts(page)["match"] == old, facts(page)
    # (b) the host presses Rematch and reloads at once, while the seats commit their chains
    # (the guest's page is kept busy meanwhile, so that its claim cannot come first; it has
    # called the host's reloaded page first, or its seat would be freed as a player gone)
    host.wait_for_function("JSON.parse(window.ludo.online()).connected.includes('yellow')",
                           timeout=60_000)
    _busy(guest, 4_000)
    host.click("#winner-rematch")
    # (the dialog's close event, which starts the rematch, is a task of its own: a loaded
    # machine ran it after the test had looked, so the test waits for it, well within the
    # guest's busy 4 s, before which the new match cannot be ready)
    host.wait_for_function("() => { const f = JSON.parse(window.ludo.online());"
                           " return f.version === null && !f.ready; }", timeout=3_000)
    _reload(host)
    second = _at_new_match(old, past, seats)

    # (c) early in the new match the host reloads, then the guest
    play_to_end(host, [host, guest], max_actions=2)
    _reload(host)
    same_position([host, guest, watcher])
    _reload(guest)
    _at_new_match(old, past, seats)
    assert facts(host)["match"] == second

    # match 2 ends; (b) the host presses Rematch and the guest reloads at once
    play_to_end(host, [host, guest], max_actions=2)
    _quit(guest)
    old, past = _ended(host, [watcher])
    host.wait_for_selector("#dlg-winner[open]", timeout=30_000)
    host.click("#winner-rematch")
    _reload(guest)
    third = _at_new_match(old, past, seats)

    # (c) the spectator reloads early in the new match (the guest's did in the one before)
    play_to_end(host, [host, guest], max_actions=2)
    _reload(watcher)
    _at_new_match(old, past, seats)
    assert facts(host)["match"] == third

    # match 3 ends; the guest's page is closed during the rematch (right after the host's
    # Rematch) and opened again later from the link, with its device's storage
    play_to_end(host, [host, guest], max_actions=2)
    _quit(guest)
    old, past = _ended(host, [watcher])
    host.wait_for_selector("#dlg-winner[open]", timeout=30_000)
    # (whether its claim of the seat went out first or not: the match waits for it, or
    # starts and waits for it to call again. Not a page kept busy until it is closed: the
    # claim of such a page can still go out after its close, when its storage is gone)
    context = guest.context
    host.click("#winner-rematch")
    guest.close()
    guest = _open_link(context, link)
    seats = {host: ("red", QUIT), guest: ("yellow", QUIT), watcher: (None, LEAVE_ROOM)}
    _at_new_match(old, past, seats)
    _no_faults(host, guest, watcher)

    # match 4 ends with the guest's page closed: its seat is freed by the Rematch, the
    # spectator takes it, and reloads in the new match as its player
    play_to_end(host, [host, guest], max_actions=2)
    _quit(guest)
    old, past = _ended(host, [watcher])
    guest.close()
    host.wait_for_function("JSON.parse(window.ludo.online()).connected.length === 0",
                           timeout=30_000)
    host.wait_for_selector("#dlg-winner[open]", timeout=30_000)
    host.click("#winner-rematch")
    host.wait_for_selector("#screen-room:not([hidden])")
    # (b) the host reloads in this rematch's lobby, which waits for a friend: it comes back
    # to it, its Start waiting for the seat to be taken
    _reload(host)
    host.wait_for_selector("#screen-room:not([hidden]) #room-seats li[data-seat='yellow']"
                           " >> text=waiting for a friend", timeout=30_000)
    assert host.is_disabled("#btn-room-start") and facts(host)["version"] is None
    assert host.locator("dialog[open]").count() == 0
    watcher.wait_for_selector("#screen-room:not([hidden]) button.take[data-seat='yellow']",
                              timeout=30_000)
    watcher.fill("#room-name", "Wally")
    watcher.click("button.take[data-seat='yellow']")
    watcher.wait_for_function("JSON.parse(window.ludo.online()).seat === 'yellow'")
    host.wait_for_function("JSON.parse(window.ludo.online()).ready")
    host.click("#btn-room-start")
    seats = {host: ("red", QUIT), watcher: ("yellow", QUIT)}
    _at_new_match(old, past, seats)
    assert watcher.inner_text("#online-status") == "Connected to the host."
    play_to_end(host, [host, watcher], max_actions=2)
    _reload(watcher)
    _at_new_match(old, past, seats)
    # the old guest's device opens the link again: its seat is the spectator's now, so it
    # watches (said so), and nothing is refused on its page
    guest = _open_link(context, link)
    seats[guest] = (None, LEAVE_ROOM)
    _at_new_match(old, past, seats)
    _no_faults(host, guest, watcher)


def test_a_gilgiti_match_ended_by_a_leave_is_played_again_from_the_room_screen(
        browser: Browser, server_url: str) -> None:
    """Gilgiti's Leave game ends the match for everybody, with no winner (so no winner dialog
    and its Rematch): the host plays again from its room screen, whose Start reads Rematch.
    Both pages reload once the match has ended, the host's right after its Rematch, and the
    guest's early in the new match."""
    host, link = create_room(browser, server_url, {"red": "human", "yellow": "online"},
                             rules="gilgiti")
    guest = join(browser, link, "Yusuf", "yellow")
    start(host, [guest])
    for page in (host, guest):
        _watch_console(page)
    seats = {host: ("red", LEAVE), guest: ("yellow", LEAVE)}
    assert host.inner_text("#btn-quit") == LEAVE == guest.inner_text("#btn-quit")
    play_to_end(host, [host, guest], max_actions=1)
    _quit(guest)
    old, past = _ended(host, [guest])
    told = "Yusuf (yellow) left the game: the match has ended."
    host.wait_for_selector("#screen-home:not([hidden])")
    # (a) both reload once it has ended: back Home (the guest) or to the room screen, with
    # no winner dialog
    _reload(guest)
    _reload(host)
    for page in (host, guest):
        page.wait_for_function("JSON.parse(window.ludo.online()).over", timeout=60_000)
        assert page.locator("dialog[open]").count() == 0
    guest.wait_for_selector("#screen-home:not([hidden])", timeout=30_000)
    assert guest.text_content("#resume-text") == told
    host.evaluate("h => { location.hash = h; }", "#" + link.split("#", 1)[1])
    host.wait_for_selector("#screen-room:not([hidden])")
    assert host.inner_text("#btn-room-start") == "Rematch"
    host.wait_for_function("JSON.parse(window.ludo.online()).connected.length === 1",
                           timeout=60_000)
    # (b) the host's Rematch from the room screen, and its page reloads at once
    host.click("#btn-room-start")
    _reload(host)
    second = _at_new_match(old, past, seats)
    # (c) the guest reloads early in the new match
    play_to_end(host, [host, guest], max_actions=1)
    _reload(guest)
    assert _at_new_match(old, past, seats) == second
    _no_faults(host, guest)


BUSY_MS = 12_000  # a first tab kept busy while the second boots (2-3 s here, 4-6 s under load);
# the test waits for it to end, so not longer than the boot needs
BUSY_PER_BOOT = 2.5  # ...but at least this many times the slowest boot (or join) measured here
TOO_SLOW = "the second tab took too long to boot for this test's timing"
# A boot slower than the busy time leaves the scenario untested (the machine's load, not the
# game): the test runs again, its busy time then fitted to the slowest boot seen so far.
RERUN_WHEN_TOO_SLOW = pytest.mark.flaky(reruns=2, only_rerun=["(Page|Target) crashed", TOO_SLOW])
_slowest_boot_s = [0.0]


def _busy_for(boot_s: float) -> int:
    """How long (ms) to keep a first tab busy, given a boot (or join) just measured."""
    _slowest_boot_s[0] = max(_slowest_boot_s[0], boot_s)
    return max(BUSY_MS, int(BUSY_PER_BOOT * _slowest_boot_s[0] * 1000))


def _guest_quits_for_a_rematch(host: Page, guest: Page) -> tuple[str, int]:
    """Two plays, then the yellow guest quits: the host's winner dialog is open with the guest
    still connected, so its Rematch reaches the guest. The ended match's id and last state id."""
    play_to_end(host, [host, guest], max_actions=2)
    _quit(guest)
    old, past = _ended(host, [])
    host.wait_for_selector("#dlg-winner[open]", timeout=30_000)
    host.wait_for_function("JSON.parse(window.ludo.online()).connected.includes('yellow')",
                           timeout=60_000)
    return old, past


def _a_guest_s_new_tab_crosses_a_rematch(
        browser: Browser, server_url: str,
        refuse_saves: bool = False) -> tuple[Page, Page, Page, int]:
    """A guest's device opens its second tab as the host starts a rematch, its first tab
    kept busy meanwhile (and, with ``refuse_saves``, unable to save its room); checks that the
    second tab plays the new match and the first has stepped aside. The host's page, the
    guest's first and second tabs, and how long a tab is kept busy here (ms)."""
    host, link = create_room(browser, server_url, {"red": "human", "yellow": "online"})
    joined = time.monotonic()
    guest = join(browser, link, "Yusuf", "yellow")
    # the first tab stays busy until the second has booted: longer on a loaded machine
    busy_ms = _busy_for(time.monotonic() - joined)
    start(host, [guest])
    for page in (host, guest):
        _watch_console(page)
    old, past = _guest_quits_for_a_rematch(host, guest)
    if refuse_saves:
        guest.evaluate(REFUSE_ROOM_SAVES)
    began = time.monotonic()
    _busy(guest, busy_ms)
    host.click("#winner-rematch")
    opened = time.monotonic()
    second = _open(guest.context, server_url + PARAMS)  # no link: the room from storage
    boot_s = time.monotonic() - opened
    left_ms = busy_ms - (time.monotonic() - began) * 1000
    assert left_ms > 2000, TOO_SLOW
    _busy(second, int(left_ms) + 3000)
    _at_new_match(old, past, {host: ("red", QUIT), second: ("yellow", QUIT)})
    guest.wait_for_selector("#tab-banner:not([hidden])")
    return host, guest, second, _busy_for(boot_s)


@RERUN_WHEN_TOO_SLOW
def test_a_rematch_that_crosses_a_tab_taking_the_table_is_played_by_the_new_tab(
        browser: Browser, server_url: str) -> None:
    """A device opens the game in a second tab (a bookmark) just as the host starts a rematch:
    the second tab reads the room from storage while the first, kept busy (a slow device),
    still holds the room's connection. (a) A guest's device: its first tab handles the
    host's rematch only then, before it learns of the second tab, claims the seat with a new
    chain and saves it, and the host begins the match with that claim; its second tab, kept
    busy until then too, said hello only afterwards. (b) The host's device: its first tab
    takes the guest's claim only then and begins the match. In each the second tab takes
    the first tab's save (written after its own read) and plays the new match. Before, the
    guest's second tab refused the match ("...your seat cannot be played from here": it held
    the old chain), and the host's waited for ever for a claim the guest had made already."""
    # (a) the guest's device
    host, guest, second, busy_ms = _a_guest_s_new_tab_crosses_a_rematch(browser, server_url)
    assert facts(guest)["status"] == ("This room is open in another tab of this browser. "
                                      "Play here brings it back to this tab.")
    _no_faults(host, second, guest)

    # (b) the host's device: the guest's claim comes in while its first tab is busy
    old, past = _guest_quits_for_a_rematch(host, second)
    _busy(second, 1000)  # (its claim comes after the host's first tab is busy)
    host.click("#winner-rematch")
    began = time.monotonic()
    _busy(host, busy_ms)
    host2 = _open(host.context, server_url + PARAMS)
    booted_s = time.monotonic() - began
    _busy_for(booted_s)
    assert booted_s * 1000 < busy_ms - 2000, TOO_SLOW
    seats = {host2: ("red", QUIT), second: ("yellow", QUIT)}
    _at_new_match(old, past, seats)
    host.wait_for_selector("#tab-banner:not([hidden])")
    _no_faults(host, host2, second)


@RERUN_WHEN_TOO_SLOW
def test_a_rematch_claim_that_storage_refused_reaches_the_tab_that_takes_the_table(
        browser: Browser, server_url: str) -> None:
    """As part (a) above, with the guest's first tab unable to save its room (storage full):
    its claim of the seat, made in the handover, reaches the second tab all the same, which
    plays the new match. Before, no storage event carried it (storage took nothing), and the
    second tab refused the match begun with that claim ("...your seat cannot be played from
    here")."""
    host, guest, second, _ = _a_guest_s_new_tab_crosses_a_rematch(browser, server_url,
                                                                   refuse_saves=True)
    _no_faults(host, second, guest)
