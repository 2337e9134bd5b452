"""A clumsy player with room links: another room's link opened in the tab that plays a match.

Opening a link (pasted in the address bar, clicked in a chat that reuses the tab) makes the
page let go of the room it has open. A device that plays in that room's match (the host, or a
guest with a seat) must be able to come back to it by the room's link: the host as the host,
the guest to its seat. (Hostile review 2: the host came back as a guest of its own room,
waiting for itself, and the match was lost for everybody; the guest's saved seat was deleted,
so it came back as a spectator and its seat was timed out.)
"""

from __future__ import annotations

from playwright.sync_api import Browser, Page
from test_online import (
    BOOT_MS,
    PARAMS,
    create_room,
    facts,
    fill_setup,
    join,
    play_to_end,
    pytestmark,  # noqa: F401 - the same marks: WebRTC needs a network interface; one worker
    same_position,
    start,
)

# A well-formed link to a room nobody hosts (a room id and a host fingerprint, 22 characters
# each): the page opens it and waits for its host.
OTHER_ROOM = "Zz9Vf0pX9cE7wR1sT4uY8A"
OTHER_LINK = f"#room={OTHER_ROOM}&host=AAAAAAAAAAAAAAAAAAAAAA"


def _open_other_room(page: Page) -> None:
    page.evaluate("fragment => { location.hash = fragment; }", OTHER_LINK)
    page.wait_for_function("room => JSON.parse(window.ludo.online()).room === room",
                           arg=OTHER_ROOM)


def _open_link(page: Page, link: str) -> None:
    page.goto(link.replace("/#", f"/{PARAMS}#", 1))
    page.wait_for_selector("html[data-ready='1']", state="attached", timeout=90_000)


def _match_under_way(browser: Browser, server_url: str) -> tuple[Page, Page, str]:
    """A host and a seated guest, 3 actions into their match (a slow clock: the test's steps
    take a while), and the room's link."""
    host, link = create_room(browser, server_url, {"red": "human", "green": "online"},
                             params=PARAMS + "&turn_seconds=120")
    guest = join(browser, link, "Gus", "green")
    start(host, [guest])
    play_to_end(host, [host, guest], limit_s=60, version=3)
    return host, guest, link


def test_a_player_who_opened_another_rooms_link_comes_back_to_its_match_by_the_link(
        browser: Browser, server_url: str) -> None:
    host, guest, link = _match_under_way(browser, server_url)
    room = facts(host)["room"]
    played = facts(host)["version"]

    # the host's tab opens another room, then the link of its own: it is the host again,
    # with its match, and the guest finds it
    _open_other_room(host)
    _open_link(host, link)
    host.wait_for_function("JSON.parse(window.ludo.online()).room !== null")
    seen = facts(host)
    assert (seen["room"], seen["role"], seen["seat"]) == (room, "host", "red"), seen
    assert seen["version"] >= played
    host.wait_for_function("JSON.parse(window.ludo.online()).connected.includes('green')",
                           timeout=60_000)
    guest.wait_for_function("JSON.parse(window.ludo.online()).connected", timeout=60_000)

    # the guest's tab does the same: it comes back to its seat, not as a spectator
    _open_other_room(guest)
    _open_link(guest, link)
    guest.wait_for_function("JSON.parse(window.ludo.online()).room !== null")
    guest.wait_for_function("JSON.parse(window.ludo.online()).connected", timeout=60_000)
    seen = facts(guest)
    assert (seen["room"], seen["role"], seen["seat"]) == (room, "guest", "green"), seen
    host.wait_for_function("JSON.parse(window.ludo.online()).connected.includes('green')",
                           timeout=60_000)

    # and the match goes on between them
    moved = facts(host)["version"]
    play_to_end(host, [host, guest], limit_s=120, version=moved + 3)
    same_position([host, guest])
    assert facts(guest)["problem"] is None
    assert host.errors == [] and guest.errors == []


def test_a_hosts_play_here_reopens_its_own_room_after_another_tab_opened_another(
        browser: Browser, server_url: str) -> None:
    """The host opens a friend's room link in a new tab: that tab takes the table, and the
    host's tab steps aside ("Play here"). Play here brings back the host's own room, with its
    match and its guest: it opened the friend's room instead, as the room the device opened
    last, and so did a reload (the host's own room then only came back by its link)."""
    host, guest, link = _match_under_way(browser, server_url)
    room = facts(host)["room"]
    other = host.context.new_page()
    other.errors = []
    other.on("pageerror", lambda e: other.errors.append(str(e)))
    other.goto(server_url + PARAMS + OTHER_LINK)
    other.wait_for_selector("html[data-ready='1']", state="attached", timeout=90_000)
    host.wait_for_selector("#tab-banner:not([hidden])")
    host.click("#btn-play-here")
    host.wait_for_selector("#tab-banner", state="hidden")
    host.wait_for_function("JSON.parse(window.ludo.online()).room !== null")
    seen = facts(host)
    assert (seen["room"], seen["role"], seen["seat"]) == (room, "host", "red"), seen
    host.wait_for_function("JSON.parse(window.ludo.online()).connected.includes('green')",
                           timeout=60_000)
    host.reload()
    host.wait_for_selector("html[data-ready='1']", state="attached", timeout=90_000)
    host.wait_for_function("JSON.parse(window.ludo.online()).connected.includes('green')",
                           timeout=60_000)
    assert facts(host)["room"] == room
    moved = facts(host)["version"]
    play_to_end(host, [host, guest], limit_s=120, version=moved + 3)
    same_position([host, guest])
    assert host.errors == [] and guest.errors == [] and other.errors == []


def test_a_host_that_opens_another_rooms_link_in_its_lobby_tells_its_guests(
        browser: Browser, server_url: str) -> None:
    # Only the room screen's Leave told the guests that the room was closed; a host whose
    # lobby went another way (another room's link, a game of its own) deleted the room in
    # silence, and its guests waited for a host that would not come.
    host, link = create_room(browser, server_url, {"red": "human", "green": "online"})
    guest = join(browser, link, "Gus", "green")
    _open_other_room(host)
    guest.wait_for_function(
        "document.getElementById('room-status').textContent"
        " === 'From the host: the room is closed; ask for a new link to play.'",
        timeout=15_000)
    assert guest.locator("button.take:not([disabled])").count() == 0
    assert host.errors == [] and guest.errors == []


# What a tab that stepped aside says (its status, its banner by Play here, its prompt at the
# table), by what the tab that took the table does with the room (app.roomview.aside_text)
SAME = "This room is open in another tab of this browser. Play here brings it back to this tab."
BACK = "Play here brings this room back to this tab."
OTHER_ROOM_OPEN = f"Another tab of this browser has another online room open now. {BACK}"
NOT_THIS_ROOM = f"Another tab of this browser plays now, not this room. {BACK}"
NOT_KEPT = ("Another tab of this browser has left this room, which this device no longer "
            "keeps. Play here plays this device's own game in this tab.")


def _says(page: Page, words: str) -> None:
    """``page`` stepped aside and says ``words`` in its status line (the room screen's or the
    table's, whichever it shows) and its banner."""
    page.wait_for_selector("#tab-banner:not([hidden])")
    page.wait_for_function(
        """w => JSON.parse(window.ludo.online()).status === w
              && document.getElementById('tab-banner-text').textContent === w""", arg=words)
    box = "#online-status" if page.is_visible("#screen-table") else "#room-status"
    assert page.text_content(box) == words


def _second_tab(page: Page, url: str) -> Page:
    """Another tab of ``page``'s browser, opened at ``url``: it takes the table."""
    other = page.context.new_page()
    other.errors = []
    other.on("pageerror", lambda e: other.errors.append(str(e)))
    other.goto(url)
    other.wait_for_selector("html[data-ready='1']", state="attached", timeout=BOOT_MS)
    return other


def _new_game(page: Page, kinds: dict[str, str]) -> None:
    """A new game from Home's setup (a room if a seat is online), replacing the one shown."""
    page.evaluate("() => { location.hash = '#home'; }")
    page.wait_for_selector("#screen-home:not([hidden])")
    fill_setup(page, kinds)
    page.click("#btn-start")
    if page.is_visible("#dlg-replace"):
        page.click("#replace-confirm")


def test_a_tab_that_stepped_aside_says_what_the_other_tab_does_with_its_room(
        browser: Browser, server_url: str) -> None:
    """The host's tab steps aside for a second tab, which opens the room too, then a new room,
    then a game of its own: the first tab says each time what the second does (its status
    and banner said "This room is open in another tab of this browser." throughout), and its
    Play here brings the host's room and match back."""
    host, guest, link = _match_under_way(browser, server_url)
    room = facts(host)["room"]
    other = _second_tab(host, server_url + PARAMS)  # no link: it opens the room
    other.wait_for_selector("#screen-table:not([hidden])")
    _says(host, SAME)
    assert host.text_content("#die-hint") == SAME  # its prompt, at the table
    _new_game(other, {"red": "human", "green": "online"})
    other.wait_for_selector("#screen-room:not([hidden])")
    _says(host, OTHER_ROOM_OPEN)
    assert host.text_content("#die-hint") == OTHER_ROOM_OPEN
    _new_game(other, {"red": "human", "green": "human"})
    other.wait_for_selector("#screen-table:not([hidden])")
    _says(host, NOT_THIS_ROOM)
    assert facts(host)["room"] == room  # (not the other tab's game, which it follows no more)
    host.click("#btn-play-here")
    host.wait_for_selector("#tab-banner", state="hidden")
    # back at its table (the other tab went Home with the room: it was saved so)
    host.wait_for_selector("#screen-table:not([hidden])")
    host.wait_for_function("JSON.parse(window.ludo.online()).connected.includes('green')",
                           timeout=60_000)
    seen = facts(host)
    assert (seen["room"], seen["role"], seen["seat"]) == (room, "host", "red"), seen
    moved = seen["version"]
    play_to_end(host, [host, guest], limit_s=120, version=moved + 3)
    same_position([host, guest])
    assert host.errors == [] and guest.errors == [] and other.errors == []


def test_a_tab_whose_lobby_another_tab_left_plays_this_devices_own_game_from_play_here(
        browser: Browser, server_url: str) -> None:
    """The host's tab, on its lobby's screen, steps aside for a second tab, which opens the
    lobby and then starts a game of its own: the lobby is closed and forgotten, and the first
    tab says so; its Play here takes this device's game, not the lobby's link (with which it
    joined its own closed room as a guest, waiting for a host that would never come)."""
    host, link = create_room(browser, server_url, {"red": "human", "green": "online"})
    other = _second_tab(host, server_url + PARAMS)
    other.wait_for_selector("#screen-room:not([hidden])")
    _says(host, SAME)
    _new_game(other, {"red": "human", "green": "human"})
    other.wait_for_selector("#screen-table:not([hidden])")
    _says(host, NOT_KEPT)
    host.click("#btn-play-here")
    host.wait_for_selector("#tab-banner", state="hidden")
    host.wait_for_selector("#screen-home:not([hidden])")
    assert facts(host)["room"] is None and "#room=" not in host.url
    other.wait_for_selector("#tab-banner:not([hidden])")
    assert host.errors == [] and other.errors == []


def _stored(page: Page, key: str) -> str | None:
    return page.evaluate("key => localStorage.getItem(key)", key)


SESSION = "courtyard-ludo/online"
# A tab that stepped aside and left its room (its Leave), and its room screen's hint
# (app.roomview.LEFT_ASIDE, ASIDE_HINT)
LEFT_ASIDE = ("You left the room in this tab only; another tab of this browser plays now. "
              "Play here plays in this tab what that tab plays.")
ASIDE_HINT = ("This tab does not play now: nothing in this room can be started or changed "
              "from it. Leave the room leaves it in this tab only.")


def test_leaving_a_room_in_a_tab_that_stepped_aside_takes_only_that_tab_out(
        browser: Browser, server_url: str) -> None:
    """A host's lobby with a guest seated; a second tab of the host's browser takes it, and
    the first tab's Leave (and later another room's link opened in the tab that stepped
    aside) takes only that tab out: the session and the saved lobby stay the playing tab's,
    which plays on with its guest. Before, that Leave deleted both from under the tab that
    played, and the link did too, then wrote its own room over the session while the other
    tab still played."""
    host, link = create_room(browser, server_url, {"red": "human", "green": "online"})
    guest = join(browser, link, "Gus", "green")
    room = facts(host)["room"]
    saved = f"courtyard-ludo/room/host/{room}"
    other = _second_tab(host, server_url + PARAMS)
    other.wait_for_selector("#screen-room:not([hidden])")
    _says(host, SAME)
    other.wait_for_function("JSON.parse(window.ludo.online()).connected.includes('green')",
                            timeout=60_000)
    # (a) the room screen of the tab that stepped aside: Start is not offered as if it could
    # start the match, and the hint says why and what Leave does
    assert host.is_visible("#btn-room-start") and host.is_disabled("#btn-room-start")
    assert host.text_content("#room-hint") == ASIDE_HINT
    host.click("#btn-room-leave")
    host.wait_for_selector("#screen-home:not([hidden])")
    assert _stored(host, SESSION) is not None and _stored(host, saved) is not None
    assert host.text_content("#tab-banner-text") == LEFT_ASIDE
    assert host.is_visible("#tab-banner") and facts(host)["room"] is None
    other.wait_for_timeout(1000)  # (a lobby's close would have reached the guest by now)
    assert facts(other)["room"] == room and other.is_hidden("#tab-banner")
    assert facts(other)["connected"] == ["green"] and facts(guest)["connected"]
    # (b) its Play here plays what the other tab plays: the lobby, which that tab lets go of
    host.click("#btn-play-here")
    host.wait_for_selector("#tab-banner", state="hidden")
    host.wait_for_function("room => JSON.parse(window.ludo.online()).room === room", arg=room)
    _says(other, SAME)
    host.wait_for_function("JSON.parse(window.ludo.online()).connected.includes('green')",
                           timeout=60_000)
    # (c) another room's link opened in the tab that stepped aside: it takes the table first,
    # and the lobby stays saved for the tab it leaves, which says so
    _open_other_room(other)
    assert other.is_hidden("#tab-banner")
    _says(host, OTHER_ROOM_OPEN)
    assert _stored(host, saved) is not None
    assert OTHER_ROOM in (_stored(host, SESSION) or "")
    assert host.errors == [] and guest.errors == [] and other.errors == []


def test_a_tab_that_stepped_aside_offers_no_quit_nor_rematch_it_cannot_play(
        browser: Browser, server_url: str) -> None:
    """The host's first tab steps aside from a match (a second tab took it): its Quit says
    what Play here does instead of quitting in this tab's memory alone. Later, over the
    match's end, its winner dialog offers no Rematch (it started a match in its memory
    alone, silently) and says what Play here does, and its room screen's Rematch is there
    but disabled, with why."""
    host, guest, link = _match_under_way(browser, server_url)
    other = _second_tab(host, server_url + PARAMS)
    other.wait_for_selector("#screen-table:not([hidden])")
    _says(host, SAME)
    host.click("#btn-quit")
    host.wait_for_selector("#board-notice:not([hidden])")
    assert host.text_content("#board-notice") == SAME
    assert host.locator("dialog[open]").count() == 0
    assert not facts(host)["over"]
    # the first tab plays again; the guest quits, the host wins (its dialog offers Rematch)
    host.click("#btn-play-here")
    host.wait_for_selector("#tab-banner", state="hidden")
    host.wait_for_function("JSON.parse(window.ludo.online()).connected.includes('green')",
                           timeout=60_000)
    guest.wait_for_function("JSON.parse(window.ludo.online()).connected", timeout=60_000)
    guest.click("#btn-quit")
    guest.click("#dlg-quit button[value='confirm']")
    host.wait_for_selector("#dlg-winner[open]", timeout=30_000)
    assert host.is_visible("#winner-rematch")
    # the second tab takes the table: the first tab's open dialog says what is true now
    other.click("#btn-play-here")
    other.wait_for_selector("#tab-banner", state="hidden")
    host.wait_for_selector("#tab-banner:not([hidden])", state="attached")
    host.wait_for_function("w => document.getElementById('winner-text').textContent"
                           ".endsWith(w)", arg=SAME)
    assert host.is_hidden("#winner-rematch")
    host.click("#winner-home")
    host.wait_for_selector("#screen-home:not([hidden])")
    host.evaluate("h => { location.hash = h; }", "#" + link.split("#", 1)[1])
    host.wait_for_selector("#screen-room:not([hidden])")
    assert host.inner_text("#btn-room-start") == "Rematch"
    assert host.is_disabled("#btn-room-start")
    assert host.text_content("#room-hint") == ASIDE_HINT
    assert host.errors == [] and guest.errors == [] and other.errors == []


def test_a_reload_at_home_during_a_match_opens_home_with_the_match_to_resume(
        browser: Browser, server_url: str) -> None:
    """A player goes Home from the room's match (its device saves the match so) and the page
    reloads: it opens at Home, where Resume takes it back to the match, as the local game's
    page does; it opened the room screen, where the player had not been. The host's page
    and a guest's."""
    host, guest, link = _match_under_way(browser, server_url)
    room = facts(host)["room"]
    for page in (host, guest):
        page.click("#btn-home")
        page.wait_for_selector("#screen-home:not([hidden])")
        page.reload()
        page.wait_for_selector("html[data-ready='1']", state="attached", timeout=BOOT_MS)
        page.wait_for_function("room => JSON.parse(window.ludo.online()).room === room",
                               arg=room)
        # (a guest's page waits on the room screen for its host's sync, which brings the
        # match: then Home, not the table)
        page.wait_for_function("JSON.parse(window.ludo.online()).version !== null",
                               timeout=60_000)
        page.wait_for_selector("#screen-home:not([hidden])", timeout=10_000)
        assert page.is_hidden("#screen-room") and page.is_hidden("#screen-table"), page.url
        assert page.url.endswith("#home") and page.is_visible("#btn-resume")
    guest.wait_for_function("JSON.parse(window.ludo.online()).connected", timeout=60_000)
    for page in (host, guest):
        page.click("#btn-resume")
        page.wait_for_selector("#screen-table:not([hidden])")
    moved = facts(host)["version"]
    play_to_end(host, [host, guest], limit_s=120, version=moved + 2)
    same_position([host, guest])
    assert host.errors == [] and guest.errors == []
