"""Online rooms as friends meet them, in real browsers: what each page says when a link is
damaged, when the host closes its room before the match, and while the signalling helper
is away. The room helpers are test_online's (a host's room from the setup screen, a guest
joining by its link)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser
from test_online import PARAMS, create_room, facts, join, open_page
from test_online import pytestmark as online_marks

pytestmark = online_marks

ROOM = "q2Vf0pX9cE7wR1sT4uY8zA"
FINGERPRINT = "A" * 22


@pytest.mark.parametrize("fragment", [
    f"#room={ROOM[:10]}",  # the room id cut off
    f"#room={ROOM}&host={FINGERPRINT[:9]}",  # the host's fingerprint cut off
    f"#room={ROOM}&ho",  # cut off in the middle of its name
    "#room=bad!",
])
def test_a_damaged_room_link_says_so_instead_of_dropping_the_friend_at_home(
        browser: Browser, server_url: str, fragment: str) -> None:
    # A link cut off when it was copied (a chat app wrapping it, a QR code read in part) once
    # opened Home without a word, or was taken for "an older version" of the game.
    page = open_page(browser, f"{server_url}{PARAMS}{fragment}")
    page.wait_for_selector("#screen-room:not([hidden])")
    status = page.inner_text("#room-status")
    assert "incomplete or damaged" in status and "send it again" in status, status
    assert page.inner_text("#announcer") == status
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
            " === 'From the host: The host closed the room.'", timeout=15_000)
        assert guest.is_hidden("#room-join")
        assert guest.inner_text("#room-hint") == "Leave the room to go back to Home."
        assert guest.locator("button.take:not([disabled])").count() == 0
    assert host.errors == [] and seated.errors == [] and looking.errors == []
