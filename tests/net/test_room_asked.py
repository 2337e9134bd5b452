"""A guest checks that the move the host played for its seat is the one it asked for (hostile
review 4, finding 2), and a saved room is refused unless its id is a room id, the one it was
stored under (finding 3): docs/online.md, "The host's authority" and "Saved rooms"."""

from __future__ import annotations

import random
from typing import Any

import pytest
from roomkit import ROOM, Net, started_match

from app.room import GuestRoom, HostRoom, new_secret
from ludo import Action, IllegalAction, distinct_moves, legal_actions
from net.dice import DiceError


def _to_a_choice(net: Net, rnd: random.Random, several: bool) -> tuple[str, GuestRoom]:
    """Play until a guest's seat is to move with at least two distinct moves (``several``),
    or with one distinct move that two or more tokens make (a token leaving the yard)."""
    t = net.host.table
    assert t is not None
    for _ in range(5000):
        seat = t.seat_to_act
        guest = net.guest_of(seat) if seat is not None else None
        if guest is not None and guest.table is not None and not t.rolling \
                and net.host.collector is None:
            distinct = distinct_moves(guest.table.state)
            if len(distinct) >= 2 if several else \
                    len(distinct) == 1 and len(legal_actions(guest.table.state)) >= 2:
                assert seat is not None
                return seat, guest
        if net.host.collector is not None:
            net.now += 1500
            net.host.tick(net.now)
            net.pump()
            continue
        net.play_one(rnd)
    raise AssertionError("no such position")


@pytest.mark.parametrize("rules", ["courtyard", "royal", "gilgiti"])
def test_a_move_the_host_played_instead_of_the_guests_is_flagged(rules: str) -> None:
    net = started_match(steps=0, seed=3, rules=rules)
    seat, guest = _to_a_choice(net, random.Random(1), several=True)
    assert guest.table is not None
    asked, other = distinct_moves(guest.table.state)[:2]
    guest.act(asked)
    net.queue.clear()  # a modified host drops the guest's move ...
    net.host.submit(seat, other, net.now, None)  # ... and plays another for that seat
    net.pump()
    assert guest.table.version == net.host.table.version
    assert guest.to_show is not None and "other than the one you made: " in guest.to_show


@pytest.mark.parametrize("rules", ["courtyard", "royal", "gilgiti"])
def test_the_move_the_guest_asked_for_is_not_flagged(rules: str) -> None:
    net = started_match(steps=0, seed=3, rules=rules)
    seat, guest = _to_a_choice(net, random.Random(1), several=True)
    assert guest.table is not None
    notices = list(guest.notices)
    guest.act(distinct_moves(guest.table.state)[1])
    net.pump()
    assert guest.table.version == net.host.table.version
    assert guest.notices == notices and guest.problem is None


def test_the_only_move_the_hosts_table_plays_at_the_deadline_is_not_flagged() -> None:
    # the host's table plays a seat's only decision at its deadline (Table.due) when the
    # seat's page has not: for a guest that sent nothing, or sent another token of the same
    # square (the same outcome), that is no move it did not make
    for sent in (False, True):
        net = started_match(steps=0, seed=3, timer=True)
        seat, guest = _to_a_choice(net, random.Random(1), several=False)
        t, mine = net.host.table, guest.table
        assert t is not None and mine is not None
        auto = t.auto()
        assert auto is not None
        if sent:
            token = next(a for a in legal_actions(mine.state) if a != auto)
            guest.act(token)
            net.queue.clear()  # (lost, or refused: the host's table plays the seat's move)
        notices = list(guest.notices)
        net.now = (t.session.deadline or net.now) + 1
        due = t.due(net.now)
        assert due is not None and due.kind == "auto" and due.seat == seat
        net.host.submit(due.seat, due.action or auto, net.now, None)
        net.pump()
        assert mine.version == t.version
        assert guest.notices == notices, sent


def test_a_move_for_the_guests_seat_it_never_sent_is_still_flagged() -> None:
    net = started_match(steps=0, seed=3)
    seat, guest = _to_a_choice(net, random.Random(1), several=True)
    assert guest.table is not None
    net.host.submit(seat, distinct_moves(guest.table.state)[0], net.now, None)
    net.pump()
    assert guest.to_show == "The host played a move for your seat that you did not make."


def test_a_roll_is_the_roll_asked_for_whatever_die_the_host_adds() -> None:
    net = started_match(steps=0, seed=3)
    rnd = random.Random(1)
    t = net.host.table
    assert t is not None
    for _ in range(200):
        guest = net.guest_of(t.seat_to_act or "")
        if guest is not None and t.rolling and net.host.collector is None:
            break
        net.play_one(rnd)
    assert guest is not None
    notices = list(guest.notices)
    guest.act(Action("roll"))
    net.pump()
    net.now += 1500
    net.host.tick(net.now)
    net.pump()
    assert guest.table is not None and guest.table.version == t.version
    assert guest.notices == notices


def test_what_a_guest_sent_is_forgotten_for_positions_a_sync_has_played() -> None:
    net = started_match(steps=0, seed=3)
    seat, guest = _to_a_choice(net, random.Random(1), several=True)
    assert guest.table is not None
    version = guest.table.version
    guest.act(distinct_moves(guest.table.state)[0])
    net.cut([p for p, g in net.guests.items() if g is guest][0])
    net.host.submit(seat, distinct_moves(net.host.table.state)[1], net.now, None)
    assert version in guest.sent
    net.connect([p for p, g in net.guests.items() if g is guest][0])
    assert guest.table.version == version + 1
    assert version not in guest.sent


# -- saved rooms with an id that is not theirs ------------------------------------------------


def _guest_json() -> dict[str, Any]:
    return GuestRoom(ROOM, new_secret(), "Gus", lambda text: None).to_json()


def _host_json(net: Net) -> dict[str, Any]:
    return net.host.to_json()


@pytest.mark.parametrize("bad", ["bad id!", 5, {"a": 1}, None, "x" * 21, ROOM + "A"])
def test_a_saved_room_whose_id_is_not_its_room_id_is_damaged(bad: Any) -> None:
    from app.room import saved_room_refusal  # (the page's check, in Online's resume)

    net = started_match(steps=2, seed=3)
    for data, restore in ((_guest_json(), lambda d, k: GuestRoom.restore(d, print, k)),
                          (_host_json(net), lambda d, k: HostRoom.restore(d, print, net.now,
                                                                          k))):
        assert saved_room_refusal(data, ROOM) is None
        assert restore(data, ROOM).room == ROOM
        data = dict(data, room=bad)
        assert saved_room_refusal(data, ROOM) is not None
        with pytest.raises(DiceError, match="damaged"):
            restore(data, ROOM)
        if not isinstance(bad, str) or bad != ROOM + "A":  # (a room id, not the key's)
            with pytest.raises(DiceError, match="damaged"):
                restore(data, None)
    # and under a key that is no room id, whatever the room says
    assert saved_room_refusal(_guest_json(), "bad id!") is not None
    assert saved_room_refusal([], ROOM) is not None


def test_the_hosts_table_plays_a_dropped_guests_only_move_at_the_deadline() -> None:
    """A guest that rolled and dropped never sends its only move: the host's table plays it
    at the deadline (Table.due), and HostRoom.act takes it then, and only then; before, it
    refused every online seat's action, and the host's page asked again at once, forever."""
    net = started_match(steps=0, seed=3, timer=True)
    seat, guest = _to_a_choice(net, random.Random(1), several=False)
    t = net.host.table
    assert t is not None
    auto = t.auto()
    assert auto is not None and t.session.deadline is not None
    version = t.version
    with pytest.raises(IllegalAction, match="plays from its own device"):
        net.host.act(seat, auto, t.session.deadline - 1)  # its page may still send it
    other = next((a for a in legal_actions(t.state) if a != auto), None)
    if other is not None:  # only the move that is due, never another
        with pytest.raises(IllegalAction, match="plays from its own device"):
            net.host.act(seat, other, t.session.deadline + 1)
    assert t.version == version
    net.host.act(seat, auto, t.session.deadline + 1)
    assert t.version == version + 1
