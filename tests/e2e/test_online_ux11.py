"""An online match played by keyboard in two real browsers (a host and a guest over WebRTC),
for what only a browser shows: where the focus lands after a move that passes the turn, the
notice over the board once the guest rolls, and the guest's die busy while its roll is on its
way to the host. One room serves every check. The rules behind
them are pinned in CPython too (tests/net/test_online_page_ux.py), with the announcer's words
and the seats marked away."""

from __future__ import annotations

import json
import time

from playwright.sync_api import Browser, Page
from test_online import create_room, facts, join, start
from test_online import pytestmark as online_marks

pytestmark = online_marks

# What this page's person can do by keyboard now: "die" (ready to roll), "token" (one glows),
# "choice" (a picker's buttons), "" (nothing: another seat plays), None (a dialog is open)
KEY_TARGET_JS = """() => {
  if (document.querySelector('dialog[open]')) return null;
  const die = document.getElementById('die');
  if (die.classList.contains('ready') && die.getAttribute('aria-disabled') !== 'true')
    return 'die';
  if (document.querySelector('#board .token.movable')) return 'token';
  return document.querySelector('#choices button') ? 'choice' : '';
}"""
TO_ACT_JS = "() => JSON.parse(window.ludo.position()).turn"
FOCUSED_JS = "() => document.activeElement.id || document.activeElement.tagName"
NOTICE_JS = """() => { const box = document.getElementById('board-notice');
  return box.hidden ? null : box.textContent; }"""
# the die's states from now on, as drawn (class and aria-busy): a guest's roll on its way
WATCH_DIE_JS = """() => { window.dieSeen = [];
  new MutationObserver(() => { const die = document.getElementById('die');
    window.dieSeen.push(die.className + '|' + die.getAttribute('aria-busy')); })
    .observe(document.getElementById('die'), {attributes: true}); }"""


def _press(page: Page, selector: str) -> int | None:
    """Focus the first ``selector`` on ``page`` and press Enter; the version before, or None
    if there is no such control any more (a move that played by itself meanwhile)."""
    version: int = facts(page)["version"]
    if not page.evaluate("s => { const e = document.querySelector(s); if (e) e.focus();"
                         " return e !== null; }", selector):
        return None
    page.keyboard.press("Enter")
    return version


def _applied(page: Page, version: int) -> None:
    """Wait until ``page`` has applied an action after ``version``, or opened a picker."""
    page.wait_for_function(
        "v => JSON.parse(window.ludo.online()).version > v"
        " || document.querySelector('#choices button') !== null", arg=version, timeout=15_000)


def test_an_online_match_by_keyboard_keeps_the_focus_and_clears_the_notice(
        browser: Browser, server_url: str) -> None:
    host, link = create_room(browser, server_url, {"red": "human", "yellow": "online"})
    guest = join(browser, link, "Yusuf", "yellow")
    start(host, [guest])
    pages = {"red": host, "yellow": guest}
    focus_kept = {"red": 0, "yellow": 0}  # moves by Enter that passed the turn, focus on die
    cleared = 0  # the guest's rolls made under the host's notice
    rolling = 0  # the guest's rolls whose die showed them on their way to the host
    started = time.monotonic()
    while min(focus_kept.values()) < 1 or cleared < 1 or rolling < 1:
        assert time.monotonic() - started < 120, (focus_kept, cleared, rolling)
        seat = host.evaluate(TO_ACT_JS)
        page = pages.get(seat)
        if page is None or facts(host)["over"]:
            break
        target = page.evaluate(KEY_TARGET_JS)
        if target == "die":
            # the host's roll with no move stands over the guest's board ("Hana (red) rolled
            # a 4: no move."); Yusuf's own roll takes it away, or it hid his tokens
            shown = guest.evaluate(NOTICE_JS) if seat == "yellow" else None
            if seat == "yellow" and rolling < 1:
                guest.evaluate(WATCH_DIE_JS)
            version = _press(page, "#die")
            if version is None:
                continue
            _applied(page, version)
            if seat == "yellow" and rolling < 1:
                # from the press to the host's answer the die is busy, not pulsing ready
                seen = guest.evaluate("() => window.dieSeen")
                assert any("rolling" in s and s.endswith("|true") for s in seen), seen
                rolling += 1
            if shown is not None and "Hana" in shown:
                left = guest.evaluate(NOTICE_JS)
                assert left is None or "Hana" not in left, left
                cleared += 1
        elif target in ("token", "choice"):
            version = _press(page, "#board .token.movable" if target == "token"
                             else "#choices button")
            if version is None:
                continue
            _applied(page, version)
            if page.evaluate(TO_ACT_JS) != seat and not facts(page)["over"]:
                # the turn went to the other player: the focus waits on the die, as at a
                # local table (it fell to the page itself)
                assert page.evaluate(FOCUSED_JS) == "die", json.dumps(facts(page))
                focus_kept[seat] += 1
        else:
            page.wait_for_timeout(30)
    assert min(focus_kept.values()) >= 1 and cleared >= 1 and rolling >= 1, \
        (focus_kept, cleared, rolling)
    assert host.errors == [] and guest.errors == []
