"""A saved room is read as hostile input, like a saved game: a reload must never be stopped by
what the browser's storage holds. Mutated host and guest states restore or are refused with the
rooms' own errors (the page then opens the room afresh); nothing else escapes."""

from __future__ import annotations

import json
import random
from typing import Any

from roomkit import Net

from ludo import LudoError
from net.dice import DiceError
from net.room import GuestRoom, HostRoom

ODD = [None, 1, -1, "x", [], {}, True, 1e300, "A" * 30, [1, 2], float("inf"), 10 ** 400]


def _mutate(value: Any, rng: random.Random) -> Any:
    if isinstance(value, dict) and value:
        key = rng.choice(list(value))
        value[key] = _mutate(value[key], rng) if rng.random() < 0.5 else rng.choice(ODD)
        return value
    if isinstance(value, list) and value:
        i = rng.randrange(len(value))
        value[i] = _mutate(value[i], rng)
        return value
    return rng.choice(ODD)


def test_mutated_saved_rooms_restore_or_are_refused() -> None:
    net = Net()
    net.seat_all()
    net.host.start(net.now)
    net.pump()
    rng = random.Random(1201)
    for _ in range(30):
        net.play_one(rng)
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
