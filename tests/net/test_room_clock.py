"""Early timeouts (docs/online.md, "Early timeouts"): a guest flags a timeout against the turn's
deadline as its own engine and clock work it out, whatever `left` the host sends; and a page
that was suspended, and handles its backlog at once, does not accuse an honest host."""

from __future__ import annotations

import random
from typing import Any

import pytest
from roomkit import Net, started_match, to_green_roll

from app.room import NOTICE_GAP_MS, STALL_MS, GuestRoom, HostRoom
from ludo import Action


def _clocked_match() -> tuple[Net, HostRoom, GuestRoom]:
    """A started match with the turn clock on, its host, and green's guest."""
    net = started_match(steps=0, seed=2, timer=True)
    green = net.guest_of("green")
    assert green is not None
    return net, net.host, green




@pytest.mark.parametrize("lie", ["honest", 0, None, 1000])
def test_a_timeout_at_once_is_flagged_whatever_left_the_host_sends(lie: Any) -> None:
    net, host, green = _clocked_match()
    if lie != "honest":
        host.clock_left = lambda now: lie  # type: ignore[method-assign]
    rnd = random.Random(1)
    for flagged in (1, 2):
        to_green_roll(net, rnd)
        # the guest's clock shows the turn's own 30 s, whatever the host said
        assert green.table is not None and green.table.session.deadline is not None
        assert green.table.session.deadline >= net.now + 30_000 - 5_000
        host.act("table", Action("timeout"), net.now)  # at once: about 30 s early
        net.pump()
        assert green.early_timeouts == {"green": flagged}
        assert green.to_show is not None and "before the clock ran out" in green.to_show
        assert green.to_show.startswith("By this device's clock")
        net.now += NOTICE_GAP_MS  # (at most one notice a second goes over the board)


def test_a_timeout_on_time_is_not_flagged() -> None:
    net, host, green = _clocked_match()
    to_green_roll(net, random.Random(1))
    net.now += 30_000
    host.act("table", Action("timeout"), net.now)
    net.pump()
    assert green.early_timeouts == {}


def test_a_page_woken_with_a_backlog_does_not_accuse_an_honest_host() -> None:
    # green's page is frozen (a phone locked) while its 30 s run out on the host; on waking it
    # handles the action that began its turn and the timeout in the same moment
    net, host, green = _clocked_match()
    rnd = random.Random(1)
    while host.table.seat_to_act != "red":
        net.play_one(rnd)
    held: list[str] = []
    receive = green.receive
    green.receive = lambda text, now: held.append(text) or False  # type: ignore[method-assign]
    to_green_roll(net, rnd)
    net.now += 30_000  # green's clock really runs out, on the host
    host.act("table", Action("timeout"), net.now)
    net.pump()
    net.now += 1500
    host.tick(net.now)
    net.pump()
    green.receive = receive  # type: ignore[method-assign]
    net.now += 60_000
    for text in held:
        green.receive(text, net.now)
    assert any('"timeout"' in text for text in held)
    assert green.early_timeouts == {}
    assert not any("timed" in n for n in green.notices)
    assert green.problem is None


def test_a_page_that_ran_throughout_flags_an_early_timeout_after_a_long_silence() -> None:
    # the host's own player thinks for 20 s (no message); green's page ticks meanwhile, so the
    # silence is not a stall, and a timeout 20 s into green's turn is still flagged
    net, host, green = _clocked_match()
    rnd = random.Random(1)
    to_green_roll(net, rnd, green)
    for _ in range(40):  # 10 s of ticks, a quarter second apart
        net.now += 250
        green.alive(net.now)
    host.act("table", Action("timeout"), net.now)
    net.pump()
    assert green.early_timeouts == {"green": 1}


def test_a_hidden_page_or_a_stall_flags_nothing() -> None:
    net, host, green = _clocked_match()
    rnd = random.Random(1)
    to_green_roll(net, rnd, green)
    green.alive(net.now + 10, hidden=True)  # the tab was hidden during green's turn
    net.now += 1000
    host.act("table", Action("timeout"), net.now)
    net.pump()
    assert green.early_timeouts == {}
    to_green_roll(net, rnd, green)
    net.now += STALL_MS + 1000  # the page did not run for a while (frozen), then did
    green.alive(net.now)
    host.act("table", Action("timeout"), net.now)
    net.pump()
    assert green.early_timeouts == {}
