"""A hostile host against the dice (docs/online.md, "The host" and "What a guest refuses"): it
makes a guest forget its seat to commit a chain of its own for it, adds participants it holds,
leaves a seat out, leaves its own reveal out after seeing the guests', or settles a roll without
asking a seat. Each is refused or shown to the guest; an honest host's room is unchanged."""

from __future__ import annotations

import json
import random
from typing import Any

from roomkit import Net, started_match

from app.room import GUEST_SYNC_GAP_MS, HOST, SYNC_INTERVAL_MS, GuestRoom, HostRoom
from ludo import Action
from net import protocol
from net.dice import DiceLedger, RevealCollector, SecretChain
from net.record import SEED_RANGE, LedgerDice


def _from_host(net: Net, peer: str, kind: str, **fields: Any) -> bool:
    """A message the host (or whoever holds its connection) sends to one guest. A sync comes
    as the answer to the guest's resync (an unasked one is refused unread), a second or more
    after the last one it read (one sooner is refused unread too)."""
    if kind == "sync":
        net.guests[peer].sync_wanted = True
        net.now += GUEST_SYNC_GAP_MS
    text = protocol.encode(kind, net.host.peers[peer].counter.next(), **fields)
    return net.guests[peer].receive(text, net.now)


def _begin_fields(ledger: DiceLedger) -> dict[str, Any]:
    return {"match": ledger.room, "participants": list(ledger.participants),
            "commits": [e["commit"] for e in ledger.events if "commit" in e]}


def _sync_fields(host: HostRoom, record: Any, you: str | None) -> dict[str, Any]:
    return {"record": record, "names": {}, "players": host.players(), "timer": False,
            "turnSeconds": 30, "left": None, "you": you, "connected": []}


def _seated() -> Net:
    net = Net()
    net.seat_all()
    return net


_started = started_match


# -- 1. the seat a guest claimed --------------------------------------------------------------


class SwapHost(HostRoom):
    """Tells green `you: null` just before the start, then commits a chain it made for green
    and reveals green's links itself without ever asking green (the reviewer's PoC)."""

    def start(self, now: float) -> None:
        self.fake = SecretChain.new(0, self.chain_length)
        holder = self.holders["green"]
        self.holders["green"] = holder._replace(commitment=self.fake.commitment("green"))
        for peer in self.peers.values():
            if peer.seat == "green":
                self.send(peer, "lobby", **{**self.lobby_fields(None), "you": None})
        super().start(now)

    def open_roll(self, roll: int, n: int, now: float) -> None:
        assert self.ledger is not None
        here = {p.seat for p in self.peers.values() if p.seat not in (None, "green")}
        expected = [HOST, "green", *(s for s in self.online_seats() if s in here)]
        collector = RevealCollector(self.ledger, n, expected)
        collector.add(HOST, self.reveal(roll))
        collector.add("green", self.fake.reveal(roll))
        self.collector, self.opened_at = collector, now
        self.broadcast("open", only=lambda p: p.seat in here, roll=roll, n=n)
        if collector.complete:
            self.settle(now)


def test_a_host_that_unseats_a_guest_before_the_start_cannot_commit_its_own_chain_for_it():
    net = _seated()
    green = net.guests["p1"]
    assert green.seat == "green"
    net.host.__class__ = SwapHost
    net.host.start(net.now)
    net.pump()
    assert green.seat == "green"  # the host's `you: null` did not make it forget its claim
    assert green.ledger is None  # neither the begin nor the sync with the host's chain taken
    assert green.problem is not None and "not yours" in green.problem
    yellow = net.guests["p2"]
    assert yellow.problem is None and yellow.ledger is not None  # the others were not cheated


def test_a_guest_keeps_its_claimed_seat_through_a_reload_and_refuses_another_you():
    net = _started(20, seed=3)
    green = net.guests["p1"]
    saved = json.loads(json.dumps(green.to_json()))
    reloaded = GuestRoom.restore(saved, net.guests["p1"].send_text)
    assert reloaded.seat == "green" and reloaded.asked is None
    net.guests["p1"] = reloaded
    host = net.host
    # the host names no seat for it after the start: refused, and the seat is kept
    assert not _from_host(net, "p1", "lobby", **host.lobby_fields(None))
    assert reloaded.seat == "green" and "claimed green" in (reloaded.problem or "")
    # a sync that says so is refused too, and so is one with a chain of the host's for green
    assert not _from_host(net, "p1", "sync", **_sync_fields(host, host.record_json(), None))
    assert reloaded.table is None
    assert _from_host(net, "p1", "lobby", **host.lobby_fields("green"))
    assert _from_host(net, "p1", "sync", **_sync_fields(host, host.record_json(), "green"))
    assert reloaded.table is not None and reloaded.seat == "green"
    assert reloaded.table.version == host.table.version


def test_a_host_that_unseats_a_guest_after_the_start_cannot_commit_a_chain_for_its_seat():
    net = _started(4)
    green = net.guests["p1"]
    before = green.ledger.to_json()
    assert not _from_host(net, "p1", "lobby", **net.host.lobby_fields(None))
    fake = SecretChain.new(green.ledger.next_roll + 1, 200)
    assert not _from_host(net, "p1", "commit", commit=fake.commitment("green").to_json())
    assert green.ledger.to_json() == before and green.seat == "green"


def test_a_claim_the_host_refused_does_not_make_the_seat_ours():
    net = Net()
    first = net.add_guest("p1")
    first.claim("green", "First")
    net.pump()
    second = net.add_guest("p2")
    second.claim("green", "Second")  # taken: refused
    net.pump()
    assert first.seat == "green" and second.seat is None and second.asked == "green"
    second.claim("yellow", "Second")
    net.pump()
    assert second.seat == "yellow" and second.asked is None
    third = net.add_guest("p3")
    third.claim("blue", "Third")
    net.pump()
    third.watch()  # before the start: gives the seat up
    net.pump()
    assert third.seat is None
    third.claim("blue", "Third")
    net.pump()
    net.host.start(net.now)
    net.pump()
    for guest in (first, second, third):
        assert guest.problem is None and guest.table is not None
        assert guest.ledger.rolls[0].missing == ()


# -- 2. who the participants are ---------------------------------------------------------------


def _evil_begin(net: Net, participants: list[str]) -> DiceLedger:
    """The start an honest host would send, with other participants (the host's chains for
    any that is no seat)."""
    host = net.host
    ledger = DiceLedger(host.match, participants)
    ledger.commit(host.chains[0].commitment(HOST))
    for p in participants[1:]:
        holder = host.holders.get(p)
        ledger.commit(holder.commitment if holder else SecretChain.new(0, 256).commitment(p))
    return ledger


def test_a_guest_refuses_a_begin_with_participants_that_are_no_online_seat():
    for participants in (["host", "green", "yellow", "blue", "host\u200b", "x"],
                         ["host", "green", "yellow", "blue", "red"],
                         ["host", "green", "yellow"],  # blue left out
                         ["host", "yellow", "green", "blue"],  # out of seat order
                         ["green", "yellow", "blue", "host"]):
        net = _seated()
        ledger = _evil_begin(net, participants)
        for peer in ("p1", "p2", "p3"):
            guest = net.guests[peer]
            assert not _from_host(net, peer, "begin", **_begin_fields(ledger)), participants
            assert guest.ledger is None and "participants" in (guest.problem or "")


def test_a_guest_refuses_a_sync_with_participants_that_are_no_online_seat():
    net = _started(10)
    green = net.guests["p1"]
    before = green.ledger.to_json()
    host = net.host
    for participants in (["host", "green", "yellow", "blue", "x"], ["host", "yellow", "blue"]):
        record = host.record_json()
        record["dice"]["participants"] = participants
        if "green" not in participants:  # its commitments go too, else the record is unreadable
            record["dice"]["events"] = [e for e in record["dice"]["events"] if not (
                "commit" in e and e["commit"]["participant"] == "green")]
        assert not _from_host(net, "p1", "sync", **_sync_fields(host, record, "green"))
        assert green.ledger.to_json() == before
    # a sync that names another set of online seats than the lobby is refused likewise
    players = {**host.players(), "blue": "hard"}
    assert not _from_host(net, "p1", "sync", **{
        **_sync_fields(host, host.record_json(), "green"), "players": players})


class PhantomHost(HostRoom):
    """Adds two participants it holds and, per die, counts the subset that gives it sixes."""

    def participants(self) -> list[str]:
        return [HOST, *self.online_seats(), "host\u200b", "x"]

    def start(self, now: float) -> None:
        ledger = DiceLedger(self.match, self.participants())
        ledger.commit(self.chains[0].commitment(HOST))
        for seat in self.online_seats():
            ledger.commit(self.holders[seat].commitment)
        for p in ("host\u200b", "x"):
            ledger.commit(SecretChain.new(0, 4096).commitment(p))
        self.ledger, self.dice = ledger, LedgerDice(ledger)
        self.broadcast("begin", **_begin_fields(ledger))
        self.send_lobby()
        self.open_roll(0, SEED_RANGE, now)


def test_a_host_with_phantom_participants_is_refused_by_every_guest():
    net = _seated()
    net.host.__class__ = PhantomHost
    net.host.start(net.now)
    net.pump()
    for guest in net.guests.values():
        assert guest.ledger is None and guest.table is None
        assert "participants" in (guest.problem or "")


# -- 3. the host's own reveal, and rolls settled without asking --------------------------------


def _at_guest_roll(seed: int = 1) -> tuple[Net, GuestRoom, int]:
    """A match where a guest's seat must roll next."""
    net = _started()
    host = net.host
    rnd = random.Random(seed)
    while not (host.table.rolling and net.guest_of(host.table.seat_to_act) is not None):
        net.play_one(rnd)
    guest = net.guest_of(host.table.seat_to_act)
    assert guest is not None
    return net, guest, host.ledger.next_roll


def _settle_alone(net: Net, roll: int, reveals: dict[str, bytes]) -> None:
    host = net.host
    settled = host.ledger.settle(roll, 6, reveals)
    host.broadcast("settled", roll=roll, n=6,
                   reveals=[[p, r.hex()] for p, r in settled.contributions], value=settled.value)
    net.pump()


def test_a_roll_settled_without_the_hosts_reveal_is_refused():
    net, guest, roll = _at_guest_roll()
    # the host holds every guest's reveal, and leaves out its own: a second value to pick from
    guests_only = {}
    for peer in net.guests.values():
        chain = next(c for c in reversed(peer.chains) if c.start <= roll)
        guests_only[peer.seat] = chain.reveal(roll)
    _settle_alone(net, roll, guests_only)
    for peer in net.guests.values():
        assert len(peer.ledger.rolls) == roll  # not settled
        assert "without the host's reveal" in (peer.problem or "")


def test_a_sync_with_a_roll_settled_without_the_hosts_reveal_is_refused():
    net, guest, roll = _at_guest_roll()
    host = net.host
    reveals = {}
    for peer in net.guests.values():
        chain = next(c for c in reversed(peer.chains) if c.start <= roll)
        reveals[peer.seat] = chain.reveal(roll)
    host.ledger.settle(roll, 6, reveals)
    seat = guest.seat
    peer = next(p for p, g in net.guests.items() if g is guest)
    assert not _from_host(net, peer, "sync", **_sync_fields(host, host.record_json(), seat))
    assert "without the host's reveal" in (guest.problem or "")


def test_a_roll_settled_without_asking_a_connected_seat_is_shown_like_a_dropped_reveal():
    net, guest, roll = _at_guest_roll()
    host = net.host
    _settle_alone(net, roll, {HOST: host.reveal(roll)})  # no `open` sent to anybody
    for peer in net.guests.values():
        assert len(peer.ledger.rolls) == roll + 1  # the roll itself verifies
        assert roll in peer.dropped
        assert any(f"roll {roll} without asking" in n for n in peer.notices)


def test_a_seat_that_connects_while_a_roll_is_open_is_asked_for_its_reveal():
    net, guest, roll = _at_guest_roll()
    host = net.host
    mover = next(p for p, g in net.guests.items() if g is guest)
    other = next(p for p, g in net.guests.items() if g is not guest)
    late_seat = net.guests[other].seat
    net.cut(other)
    guest.act(Action("roll"))
    held = []  # the mover's reveal, kept from the host until the other seat is back
    while net.queue:
        to, peer, text = net.queue.popleft()
        if to == "host" and peer == mover and json.loads(text)["type"] == "reveal":
            held.append((to, peer, text))
        elif to == "host":
            host.receive(peer, text, net.now)
        else:
            net.guests[peer].receive(text, net.now)
    assert held and host.collector is not None and host.collector.roll == roll
    net.connect(other)  # hello while the roll is open: asked too, and it reveals
    assert host.collector is not None and late_seat not in host.collector.waiting_for
    net.queue.extend(held)
    net.pump()
    late = net.guests[other]
    assert late_seat in host.ledger.rolls[roll].contributors
    assert late.problem is None and roll not in late.dropped
    assert not any("without asking" in n for g in net.guests.values() for n in g.notices)


def test_an_honest_match_shows_no_drop_and_every_roll_has_the_hosts_reveal():
    net = _started(150, seed=11)
    for guest in net.guests.values():
        assert guest.problem is None and not guest.dropped
        assert all(HOST in r.contributors for r in guest.ledger.rolls)
        assert all(r.missing == () for r in guest.ledger.rolls)


def test_a_roll_settled_without_asking_and_sent_in_a_sync_is_shown_like_a_dropped_reveal():
    net, guest, roll = _at_guest_roll()
    host = net.host
    seat = guest.seat
    host.ledger.settle(roll, 6, {HOST: host.reveal(roll)})  # no `open`, no `settled`
    host.submit(seat, Action("roll"), net.now, None)  # a forging host's own code
    net.queue.clear()  # nor the action: a sync brings it all, when a guest asks for it
    net.now += SYNC_INTERVAL_MS
    for peer in net.guests.values():
        peer.ask_sync()
    net.pump()
    for peer in net.guests.values():
        assert peer.table.version == host.table.version  # it verifies, and is followed
        assert roll in peer.dropped
        assert any(f"roll {roll} without asking" in n for n in peer.notices)


def test_rolls_missed_while_away_are_not_shown_as_drops():
    net = _started(10, seed=2)
    net.cut("p1")
    rnd = random.Random(2)
    before = len(net.host.ledger.rolls)
    while len(net.host.ledger.rolls) < before + 5:
        net.play_one(rnd)
    net.connect("p1")
    green = net.guests["p1"]
    assert green.table.version == net.host.table.version
    missed = [r.roll for r in green.ledger.rolls[before:] if "green" in r.missing]
    assert missed  # it was away for them
    assert not green.dropped and green.problem is None


def test_a_seat_back_while_the_seed_is_drawn_is_not_shown_a_drop():
    net = _seated()
    host = net.host
    host.start(net.now)
    held = []  # green's reveal of roll 0, kept back so that the roll stays open
    while net.queue:
        to, peer, text = net.queue.popleft()
        if to == "host" and peer == "p1" and json.loads(text)["type"] == "reveal":
            held.append((to, peer, text))
        elif to == "host":
            host.receive(peer, text, net.now)
        elif peer != "p2" or json.loads(text)["type"] != "open":  # yellow's is lost in the cut
            net.guests[peer].receive(text, net.now)
    yellow = net.guests["p2"]
    assert yellow.ledger is not None and host.collector is not None and not yellow.revealed
    net.cut("p2")  # yellow leaves during roll 0 before it was asked
    net.connect("p2")  # and comes back: no sync yet (no table), no begin, no open for roll 0
    net.queue.extend(held)
    net.pump()
    assert host.table is not None and yellow.table is not None
    assert "yellow" in host.ledger.rolls[0].missing
    assert yellow.problem is None and not yellow.dropped
