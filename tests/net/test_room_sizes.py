"""What a peer or the browser's storage can make a room spend: time and memory bounded by what a
real match needs, whatever size the input is (hostile review 3 of the non-browser code)."""

from __future__ import annotations

import time
from typing import Any

from roomkit import T0, Net, started_match

from app.room import GuestRoom, HostRoom
from net.dice import MAX_CHAINS, DiceError


def _guest_saved(chains: int, length: int = 65_536) -> dict[str, Any]:
    net = started_match(4, seed=3)
    saved = net.guests["p1"].to_json()
    chain = dict(saved["chains"][0], length=length)
    saved["chains"] = [chain] * chains
    return saved


def test_a_saved_guest_room_with_more_chains_than_a_match_holds_is_refused_at_once() -> None:
    # Each stored chain was hashed in full when the room was read (up to 65,536 links): 20 of
    # them, 2.3 kB of storage, held the page's boot for 1.2 s and 90 MB, and the 4 MB a room
    # may take, for half an hour, if the memory lasted
    try:
        GuestRoom.restore(_guest_saved(MAX_CHAINS + 1, 16), lambda text: None)
    except DiceError as exc:
        assert "at most 64 in a match" in str(exc)
    else:
        raise AssertionError("a guest room with more chains than a match holds was read")
    # and as many links as a match's chains hold in all, at most, counted before any is hashed
    saved = _guest_saved(5, 65_536)
    started = time.perf_counter()
    try:
        GuestRoom.restore(saved, lambda text: None)
    except DiceError as exc:
        assert "links in all" in str(exc)
    else:
        raise AssertionError("a guest room with 327,680 links was read")
    assert time.perf_counter() - started < 0.05


def test_a_saved_host_room_with_more_chains_than_a_match_holds_is_refused_at_once() -> None:
    net = started_match(4, seed=3)
    saved = net.host.to_json()
    saved["chains"] = saved["chains"] + [dict(saved["chains"][0], length=16)] * MAX_CHAINS
    try:
        HostRoom.restore(saved, lambda peer, text: None, net.now)
    except DiceError as exc:
        assert "at most 64 in a match" in str(exc)
    else:
        raise AssertionError("a host room with more chains than a match holds was read")
    saved["chains"] = saved["chains"][:1] + [dict(saved["chains"][0], length=65_536)] * 4
    try:
        HostRoom.restore(saved, lambda peer, text: None, net.now)
    except DiceError as exc:
        assert "links in all" in str(exc)
    else:
        raise AssertionError("a host room with 266,240 links was read")


def test_saved_rooms_with_a_match_worth_of_chains_are_read() -> None:
    net = started_match(4, seed=3)
    saved = net.guests["p1"].to_json()
    saved["chains"] = saved["chains"] * 3
    assert len(GuestRoom.restore(saved, lambda text: None).chains) == 3
    host = net.host.to_json()
    host["chains"] = host["chains"] * 3
    assert len(HostRoom.restore(host, lambda peer, text: None, net.now).chains) == 3


def test_a_saved_host_room_whose_game_cannot_be_seated_is_refused_when_read() -> None:
    # such a room was restored, and broke only when its match began: the seed's reveals came
    # in, and the table its rules cannot seat raised out of the host's handling of a guest's
    # reveal (the page's fault banner), leaving a drawn seed and no table
    saved = Net().host.to_json()
    for damage in ({"seats": ["red", "purple", "yellow", "blue"], "kinds": {"purple": "online"}},
                   {"seats": ["green"], "kinds": {"green": "online"}},
                   {"options": {"teams": True}},
                   {"rules": "gilgiti", "seats": ["red", "yellow"], "kinds": {"yellow": "online"},
                    "options": {"teams": True}}):
        try:
            HostRoom.restore(dict(saved, **damage), lambda peer, text: None, T0)
        except DiceError as exc:
            assert "damaged" in str(exc)
        else:
            raise AssertionError(f"a host room with {damage} was read")
    room = HostRoom.restore(dict(saved, seats=["red", "yellow"], kinds={"yellow": "online"},
                                 rules="gilgiti", options={"teams": False}),
                            lambda peer, text: None, T0)
    assert room.online_seats() == ["yellow"]
