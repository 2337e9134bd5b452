"""A saved room is read as hostile input, like a saved game: a reload must never be stopped by
what the browser's storage holds. Mutated host and guest states restore or are refused with the
rooms' own errors (the page then opens the room afresh); nothing else escapes. A record is read
the same way wherever it comes from (a host's sync, a stored room, ``ludo verify``): whole
nodes of it, not only its leaves, are replaced."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest
from roomkit import Net, started_match

from app.room import GuestRoom, HostRoom
from ludo import LudoError
from net import protocol
from net.dice import DiceError
from net.record import verify_record_json

ODD = [None, 1, -1, "x", [], {}, True, 1e300, "A" * 30, [1, 2], float("inf"), 10 ** 400,
       [[]], [{}], {"a": 1}, [1], ["host", "host"], [None], "", "\U0001F468\u200d" * 30]


def _mutate(value: Any, rng: random.Random) -> Any:
    """``value`` with one node replaced: a leaf, or a whole list or object at any depth."""
    if isinstance(value, dict) and value:
        key = rng.choice(list(value))
        value[key] = _mutate(value[key], rng) if rng.random() < 0.6 else _odd(rng)
        return value
    if isinstance(value, list) and value:
        i = rng.randrange(len(value))
        value[i] = _mutate(value[i], rng) if rng.random() < 0.6 else _odd(rng)
        return value
    return _odd(rng)


def _odd(rng: random.Random) -> Any:
    return copy.deepcopy(rng.choice(ODD))  # a copy: a later mutation must not change ODD


def _nodes(value: Any, depth: int, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path to a node up to ``depth`` (a list's first three items)."""
    found = [path] if path else []
    if len(path) < depth:
        if isinstance(value, dict):
            for key, item in value.items():
                found += _nodes(item, depth, (*path, key))
        elif isinstance(value, list):
            for i, item in enumerate(value[:3]):
                found += _nodes(item, depth, (*path, i))
    return found


def _replaced(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    data = json.loads(json.dumps(value))
    node = data
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = copy.deepcopy(new)
    return data


def test_mutated_saved_rooms_restore_or_are_refused() -> None:
    net = started_match(steps=30, seed=1201)
    rng = random.Random(1201)
    host = json.dumps(net.host.to_json())
    guest = json.dumps(next(iter(net.guests.values())).to_json())
    for i in range(2000):
        data = json.loads(host if i % 2 == 0 else guest)
        for _ in range(rng.randint(1, 3)):
            data = _mutate(data, rng)
        try:
            if i % 2 == 0:
                HostRoom.restore(data, lambda peer, text: None, 1.7e12)
            else:
                GuestRoom.restore(data, lambda text: None)
        except (DiceError, LudoError):
            pass


def test_records_with_whole_nodes_replaced_are_refused_with_one_clear_error_everywhere() -> None:
    # a participant that is a list, dice that stop before roll 0, ...: a guest's sync handler
    # sets a problem (never raises to the page), a stored host room is refused as damaged,
    # and the CLI's reader names the problem (DiceError or LudoError, nothing else)
    net = started_match(steps=20, seed=1202, rules="gilgiti")
    record = net.host.record_json()
    host_saved = net.host.to_json()
    green = net.guest_of("green")
    assert green is not None
    guest_saved = green.to_json()
    verify_record_json(record)  # the record as it is verifies
    paths = _nodes(record, 3)
    assert ("dice", "participants", 1) in paths and ("dice", "events") in paths
    refused = 0
    for path in paths:
        for new in ODD[:7] + ODD[12:]:
            data = _replaced(record, path, new)
            try:
                verify_record_json(data)
            except (DiceError, LudoError):
                refused += 1
            try:
                HostRoom.restore(dict(host_saved, record=data), lambda peer, text: None, 1.7e12)
            except (DiceError, LudoError):
                pass
            guest = GuestRoom.restore(guest_saved, lambda text: None)
            guest.sync_wanted = True
            fields = {"record": data, "names": {}, "players": net.host.players(),
                      "timer": False, "turnSeconds": 30, "left": None, "you": "green",
                      "connected": []}
            accepted = guest.receive(protocol.encode("sync", 1, **fields), 1.7e12)
            assert accepted == (guest.problem is None), (path, new, guest.problem)
    assert refused > len(paths)  # most of them do not verify


def test_a_participant_that_is_no_text_and_dice_that_stop_before_roll_0_are_dice_errors() -> None:
    net = started_match()
    record = net.host.record_json()
    for path, new, said in ((("dice", "participants", 3), [], "participants are non-empty"),
                            (("dice", "participants", 1), {}, "participants are non-empty"),
                            (("dice", "events"), [e for e in record["dice"]["events"]
                                                  if "commit" in e], "ends before roll 0")):
        data = _replaced(record, path, new)
        with pytest.raises(DiceError, match=said):
            verify_record_json(data)
        with pytest.raises(DiceError, match=said):
            HostRoom.restore(dict(net.host.to_json(), record=data), lambda p, t: None, 1.7e12)
        green = net.guest_of("green")
        assert green is not None
        green.problem, green.sync_wanted, green.synced_at = None, True, None
        fields = {"record": data, "names": {}, "players": net.host.players(), "timer": False,
                  "turnSeconds": 30, "left": None, "you": "green", "connected": []}
        text = protocol.encode("sync", net.host.peers["p1"].counter.next(), **fields)
        assert not green.receive(text, net.now)
        assert green.problem is not None and said in green.problem


def test_a_host_message_that_breaks_a_handler_becomes_a_problem_not_an_exception(
        monkeypatch: pytest.MonkeyPatch) -> None:
    net = Net()
    net.seat_all()
    green = net.guest_of("green")
    assert green is not None

    def broken(message: Any, now: float) -> None:
        raise KeyError("something no check foresaw")

    monkeypatch.setattr(green, "on_presence", broken)
    text = protocol.encode("presence", net.host.peers["p1"].counter.next(), connected=[])
    assert not green.receive(text, net.now)  # it does not raise
    assert green.problem is not None and "could not check" in green.problem
    assert green.to_show == green.problem
