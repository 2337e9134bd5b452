"""What a peer or the browser's storage can make a room spend: time and memory bounded by what a
real match needs, whatever size the input is (hostile review 3 of the non-browser code)."""

from __future__ import annotations

import time
from typing import Any

import pytest
from roomkit import T0, Net, started_match

from app.room import GuestRoom, HostRoom
from net import protocol
from net.dice import MAX_CHAINS, MAX_PARTICIPANTS, SCHEME, DiceError, DiceLedger, SecretChain, draw
from net.record import verify_record_json


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
    with pytest.raises(DiceError, match="at most 64 in a match"):
        HostRoom.restore(saved, lambda peer, text: None, net.now)
    saved["chains"] = saved["chains"][:1] + [dict(saved["chains"][0], length=65_536)] * 4
    with pytest.raises(DiceError, match="links in all"):  # 266,240 links
        HostRoom.restore(saved, lambda peer, text: None, net.now)


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


def _dice_record(participants: list[str], rolls: int) -> dict[str, Any]:
    """A dice record that verifies: one chain of the first participant reveals every roll."""
    chain = SecretChain(b"\x07" * 32, 0, rolls + 1)
    events: list[dict[str, Any]] = [{"commit": chain.commitment(participants[0]).to_json()}]
    for k in range(rolls):
        reveal, n = chain.reveal(k), 2**32 if k == 0 else 6
        events.append({"roll": k, "n": n, "reveals": [[participants[0], reveal.hex()]],
                       "value": draw("m", k, n, [(participants[0], reveal)])})
    return {"scheme": SCHEME, "room": "m", "participants": participants, "minContributors": 1,
            "events": events}


def test_dice_records_naming_more_participants_than_a_room_has_are_refused_unread() -> None:
    # every settled roll kept the participants missing from it: 8,000 participants over 4,000
    # rolls (a 0.6 MB sync or file) cost 3 s and 270 MB before the participants were checked,
    # and the 4 MB a host's sync or a record may take, minutes and tens of gigabytes
    assert len(DiceLedger.replay(_dice_record(["host", "green"], 5)).rolls) == 5
    many = _dice_record(["a"] + [f"p{i}" for i in range(MAX_PARTICIPANTS)], 5)
    with pytest.raises(DiceError, match="at most 9 participants, not 10"):
        DiceLedger.replay(many)
    with pytest.raises(DiceError, match="at most 9 participants"):
        verify_record_json({"format": "courtyard-ludo/record", "version": 3,
                            "rules": "courtyard", "seats": ["red", "green"], "seed": 1,
                            "actions": [], "dice": many})
    with pytest.raises(DiceError, match="at most 16 characters"):
        DiceLedger.replay(_dice_record(["host", "g" * 17], 5))
    # and a guest refuses a host's sync that names them, before replaying its rolls
    net = started_match(4, seed=3)
    green = net.guests["p1"]
    record = net.host.record_json()
    record["dice"] = many
    green.sync_wanted, green.synced_at = True, None
    fields = {"record": record, "names": {}, "players": net.host.players(), "timer": False,
              "turnSeconds": 30, "left": None, "you": green.seat, "connected": []}
    assert not green.receive(protocol.encode("sync", net.host.peers["p1"].counter.next(),
                                             **fields), net.now)
    assert green.problem is not None and "at most 9 participants" in green.problem
