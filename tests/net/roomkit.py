"""An in-memory network for the online rooms: the host, guests, and a queue of messages."""

from __future__ import annotations

import random
from collections import deque
from typing import Any

from app.room import GuestRoom, HostRoom, new_secret
from ludo import Action, legal_actions

ROOM = "q2Vf0pX9cE7wR1sT4uY8zA"
T0 = 1_700_000_000_000.0
STEP_MS = 100.0  # room time per action played: a brisk game (the host budgets guests by it)


class Net:
    """Messages wait in one queue until `pump` delivers them, in order."""

    def __init__(self, rules: str = "courtyard", seats: tuple[str, ...] = (
            "red", "green", "yellow", "blue"), kinds: dict[str, str] | None = None,
            timer: bool = False, names: dict[str, str] | None = None,
            options: dict[str, object] | None = None) -> None:
        self.queue: deque[tuple[str, str, str]] = deque()
        self.now = T0
        self.refused: list[tuple[str, str]] = []
        kinds = kinds if kinds is not None else {"green": "online", "yellow": "online",
                                                 "blue": "online"}
        self.host = HostRoom(ROOM, rules, seats, kinds, names or {"red": "Host"}, timer,
                             options or {}, 30, self.to_guest)
        self.guests: dict[str, GuestRoom] = {}
        self.links: set[str] = set()  # peers whose connection is up

    def to_guest(self, peer: str, text: str) -> None:
        self.queue.append(("guest", peer, text))

    def add_guest(self, peer: str, name: str = "") -> GuestRoom:
        guest = GuestRoom(ROOM, new_secret(), name or peer,
                          lambda text, peer=peer: self.queue.append(("host", peer, text)))
        self.guests[peer] = guest
        self.connect(peer)
        return guest

    def connect(self, peer: str) -> None:
        self.links.add(peer)
        self.host.connect(peer)
        self.guests[peer].connect()
        self.pump()

    def cut(self, peer: str) -> None:
        """The connection drops: messages in flight are lost."""
        self.links.discard(peer)
        self.queue = deque(m for m in self.queue if m[1] != peer)
        self.host.disconnect(peer, self.now)
        self.guests[peer].disconnect()
        self.pump()

    def pump(self) -> None:
        while self.queue:
            to, peer, text = self.queue.popleft()
            if peer not in self.links:
                continue
            if to == "guest":
                self.guests[peer].receive(text, self.now)
            elif not self.host.receive(peer, text, self.now):
                self.refused.append((peer, text))

    def guest_of(self, seat: str) -> GuestRoom | None:
        return next((g for p, g in self.guests.items() if g.seat == seat and p in self.links),
                    None)

    def seat_all(self) -> None:
        for peer, seat in zip(("p1", "p2", "p3"), self.host.online_seats(), strict=False):
            self.add_guest(peer).claim(seat, seat.capitalize() + "y")
        self.pump()

    def play_one(self, rnd: random.Random) -> None:
        """The seat to act plays a random legal action (a guest through its room)."""
        t = self.host.table
        assert t is not None
        seat = t.seat_to_act
        assert seat is not None
        guest = self.guest_of(seat)
        view = guest.table if guest is not None and guest.table is not None else t
        action = Action("roll") if view.rolling else rnd.choice(legal_actions(view.state))
        if guest is not None:
            guest.act(action)
        elif seat in self.host.online_seats():
            # a guest that is away: the test plays its seat through the host's table (the
            # host's own `act` refuses an online seat; its player acts from its own device)
            self.host.submit(seat, action, self.now, None)
        else:
            self.host.act(seat, action, self.now)
        self.pump()
        self.now += STEP_MS

    def play_to_end(self, seed: int = 1, limit: int = 20_000) -> int:
        rnd = random.Random(seed)
        steps = 0
        assert self.host.table is not None
        while not self.host.table.over and steps < limit:
            self.play_one(rnd)
            steps += 1
        return steps


def started_match(steps: int = 0, seed: int = 5, **kw: Any) -> Net:
    """A room with every seat taken, started, and ``steps`` random actions played."""
    net = Net(**kw)
    net.seat_all()
    net.host.start(net.now)
    net.pump()
    rnd = random.Random(seed)
    for _ in range(steps):
        net.play_one(rnd)
    return net


def to_green_roll(net: Net, rnd: random.Random, green: GuestRoom | None = None,
                  after: int = 0) -> None:
    """Play until green is to roll (with nothing open) at roll ``after`` or later;
    ``green``'s page ticks meanwhile."""
    host = net.host
    while not (host.table.seat_to_act == "green" and host.table.rolling
               and host.collector is None and host.ledger.next_roll >= after):
        if host.collector is not None:
            net.now += 1500
            host.tick(net.now)
            net.pump()
            continue
        net.play_one(rnd)
        if green is not None:
            green.alive(net.now)


def snapshot_host(host: HostRoom) -> Any:
    t, ledger = host.table, host.ledger
    return (t.position_text() if t else None, t.version if t else None,
            t.session.deadline if t else None,
            ledger.to_json() if ledger else None, dict(host.holders),
            {p: (peer.counter.accepted, peer.seat, peer.secret, peer.watching)
             for p, peer in host.peers.items()},
            None if host.collector is None else (host.collector.roll,
                                                 sorted(host.collector.reveals)),
            host.pending, list(host.queue))


def snapshot_guest(guest: GuestRoom) -> Any:
    t, ledger = guest.table, guest.ledger
    return (t.position_text() if t else None, t.version if t else None,
            ledger.to_json() if ledger else None, guest.seat, guest.counter.accepted,
            guest.dice.used if guest.dice else None, guest.lobby)
