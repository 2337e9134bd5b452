"""Leaving online: a leave that ends the match for everybody is told alike on every page of
the room; a host that stays away pauses the match, and a guest is told for how long.

The words are built in pure code (app.roomview) from what every page has: the table it
follows. The page (app/browser/online.py) sends itself Home with them; the browser test
tests/e2e/test_online.py::test_two_browsers_play_gilgiti_turns_by_value_chips sees it there.
"""

from __future__ import annotations

import json
import random

import pytest
from roomkit import STEP_MS, Net

from app.room import GuestRoom
from app.roomview import away_words, ended_by_leaving, host_away_text
from ludo import Action

SEATS = ("red", "green", "yellow", "blue")


def gilgiti_room(steps: int = 12) -> tuple[Net, dict[str, GuestRoom], GuestRoom]:
    """Gilgiti: the host's page seats red and blue (two people), green and yellow are
    guests, one more guest watches; ``steps`` actions are played."""
    net = Net("gilgiti", SEATS, {"green": "online", "yellow": "online", "blue": "human"},
              names={"red": "Hana", "blue": "Bea"})
    net.seat_all()
    net.host.start(net.now)
    net.pump()
    watcher = net.add_guest("w1")
    watcher.watch()
    net.pump()
    rnd = random.Random(3)
    for _ in range(steps):
        net.play_one(rnd)
    seated = {g.seat: g for g in net.guests.values() if g.seat is not None}
    return net, seated, watcher


def tables(net: Net) -> list:
    return [net.host.table, *(g.table for g in net.guests.values())]


@pytest.mark.parametrize("leaver", ["yellow", "blue"])
def test_a_leave_that_ends_the_match_is_told_in_the_same_words_on_every_page(
        leaver: str) -> None:
    """A guest's leave, or that of the host page's second person (whose page has another
    person in play): every page, spectator included, holds an ended match with no winner and
    the same notice naming who left."""
    net, seated, _ = gilgiti_room()
    version = net.host.table.version
    assert all(ended_by_leaving(t) is None for t in tables(net))  # a running match
    if leaver in seated:
        seated[leaver].act(Action("quit", seat=leaver))
    else:
        assert net.host.act(leaver, Action("quit", seat=leaver), net.now)
    net.pump()
    name = net.host.table.name(leaver)
    expected = f"{name} left the game: the match has ended."
    for t in tables(net):
        assert t.version == version + 1 and t.over and t.winners() == ()
        assert ended_by_leaving(t) == expected
    # a page that comes after the end (a reload, a late spectator) reads it from the record
    late = net.add_guest("late")
    late.watch()
    net.pump()
    assert late.table is not None and ended_by_leaving(late.table) == expected
    assert net.refused == []


def test_a_match_won_or_one_where_a_quit_leaves_the_others_playing_has_no_such_notice() -> None:
    """Courtyard's quit removes one seat and the others play on; a won match ends with its
    winner's dialog, not this notice."""
    net = Net("courtyard", SEATS, {"green": "online", "yellow": "online", "blue": "online"})
    net.seat_all()
    net.host.start(net.now)
    net.pump()
    guest = next(g for g in net.guests.values() if g.seat == "yellow")
    guest.act(Action("quit", seat="yellow"))
    net.pump()
    for t in tables(net):
        assert not t.over and ended_by_leaving(t) is None
    net.play_to_end(seed=4)
    for t in tables(net):
        assert t.over and t.winners() and ended_by_leaving(t) is None
    gilgiti = Net("gilgiti", ("red", "yellow"), {"yellow": "online"})
    gilgiti.seat_all()
    gilgiti.host.start(gilgiti.now)
    gilgiti.pump()
    gilgiti.play_to_end(seed=2)
    for t in tables(gilgiti):
        assert t.over and t.winners() and ended_by_leaving(t) is None


@pytest.mark.parametrize(("ms", "words"), [
    (0, "a few seconds"), (9_999, "a few seconds"), (10_000, "10 s"), (59_999, "50 s"),
    (60_000, "1 min"), (80_500, "1 min 20 s"), (119_999, "1 min 50 s"), (120_000, "2 min"),
    (3_599_999, "59 min"), (3_600_000, "1 h"), (3_900_000, "1 h 5 min"), (-5, "a few seconds"),
])
def test_how_long_in_words(ms: float, words: str) -> None:
    assert away_words(ms) == words


def test_a_guest_is_told_how_long_the_host_has_been_away_across_its_reloads() -> None:
    net, seated, watcher = gilgiti_room(steps=4)
    guest = seated["yellow"]
    assert guest.host_away(net.now) is None  # connected
    last = net.now - STEP_MS  # the last message the guest heard came with the last action
    assert guest.host_seen == last
    guest.disconnect(net.now)  # the host's page closed for good
    assert guest.host_away(net.now + 80_000) == 80_000
    assert host_away_text(guest.host_away(net.now + 80_000)) == \
        "The host has been away 1 min 20 s: the match goes on when they return."
    # the guest's page reloads (the host still away): it still knows when the host left
    again = GuestRoom.restore(json.loads(json.dumps(guest.to_json())), lambda text: None)
    assert again.table is None and again.host_away(net.now + 200_000) == 200_000
    # a spectator's reloaded page knows no match of its own: it just waits for the host
    assert GuestRoom.restore(watcher.to_json(), lambda text: None).host_away(net.now) is None
    # back: the host's messages are heard again, and nothing is said about being away
    net.connect([p for p, g in net.guests.items() if g is guest][0])
    assert guest.connected and guest.host_away(net.now) is None


def test_nothing_is_said_about_an_away_host_before_the_match_or_after_it() -> None:
    net = Net("courtyard", ("red", "yellow"), {"yellow": "online"})
    guest = net.add_guest("p1")
    guest.claim("yellow", "Yusuf")
    net.pump()
    guest.disconnect(net.now)
    assert guest.host_away(net.now + 60_000) is None  # the host has not started a match
    net.connect("p1")
    net.host.start(net.now)
    net.pump()
    net.play_to_end(seed=1)
    guest.disconnect(net.now)
    assert guest.table is not None and guest.table.over
    assert guest.host_away(net.now + 60_000) is None  # the match is over: nothing waits


@pytest.mark.parametrize("seen", [True, "1700000000000", [1], None, 1e400, 10**400])
def test_a_stored_time_the_host_was_seen_that_is_no_time_is_as_if_absent(seen: object) -> None:
    net = Net("courtyard", ("red", "yellow"), {"yellow": "online"})
    guest = net.add_guest("p1")
    data = guest.to_json()
    data["hostSeen"] = seen
    assert GuestRoom.restore(data, lambda text: None).host_seen is None
    del data["hostSeen"]  # a room saved before the time was kept
    assert GuestRoom.restore(data, lambda text: None).host_seen is None


def test_a_quit_of_this_devices_seat_it_did_not_send_is_the_hosts_doing_on_that_device() -> None:
    """A modified host page plays green's quit (HostRoom.submit, bypassing its own `act`):
    green's page has a problem and says the host made its seat leave, at once and on Home
    (across a reload); every other page shows the leave as usual (it cannot tell)."""
    net, seated, watcher = gilgiti_room()
    green = seated["green"]
    assert net.host.submit("green", Action("quit", seat="green"), net.now, None)
    net.pump()
    name = net.host.table.name("green")
    assert green.forced_quit == "green"
    assert green.problem is not None and "host made your seat" in green.problem
    assert ended_by_leaving(green.table, green.forced_quit) == (
        f"The host ended the match by making your seat, {name}, leave: you did not ask to "
        "leave.")
    for other in (seated["yellow"], watcher):
        assert other.problem is None and other.forced_quit is None
        assert ended_by_leaving(other.table, other.forced_quit) == \
            f"{name} left the game: the match has ended."
    again = GuestRoom.restore(json.loads(json.dumps(green.to_json())), lambda text: None)
    assert again.forced_quit == "green" and again.problem is not None


def test_a_quit_this_device_sent_is_its_players_own_even_when_it_lands_later() -> None:
    """The host queues a quit while a roll is revealed, so it may land at a later position
    than it was sent at: it is still this device's own leave, with no problem."""
    net = Net("courtyard", SEATS, {"green": "online", "yellow": "online", "blue": "online"})
    net.seat_all()
    net.host.start(net.now)
    net.pump()
    yellow = next(g for g in net.guests.values() if g.seat == "yellow")
    rnd = random.Random(2)
    while not (net.host.table.seat_to_act == "red" and net.host.table.rolling):
        net.play_one(rnd)
    version = yellow.table.version
    assert not net.host.act("red", Action("roll"), net.now)  # a roll opens: reveals awaited
    yellow.act(Action("quit", seat="yellow"))  # sent at `version`, queued by the host
    net.pump()
    quit_at = next(i for i, a in enumerate(yellow.table.record.actions) if a.type == "quit")
    assert quit_at == version + 1  # it landed after red's roll
    assert yellow.problem is None and yellow.forced_quit is None
    assert not any("did not make" in n for n in yellow.notices)
    # in Courtyard the others play on: a forced quit there is said too
    green = next(g for g in net.guests.values() if g.seat == "green")
    assert net.host.submit("green", Action("quit", seat="green"), net.now, None)
    net.pump()
    assert green.forced_quit == "green" and green.problem is not None
    assert green.to_show == green.problem
