"""A hostile host against a guest (peer review 5): a host that sees the guests' reveals of an
open roll and then commits a new chain of its own for that roll could pick the die; a host that
changes the room's clock settings in a sync could time seats out early without being flagged.
Each is refused by the guest (docs/online.md, "What a guest refuses")."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from roomkit import Net, started_match, to_green_roll

from app.room import GUEST_SYNC_GAP_MS, HOST, GuestRoom, HostRoom
from app.table import Table
from ludo import Action
from ludo.notation import record_to_json
from net import protocol
from net.dice import MAX_CHAINS, DiceError, DiceLedger, SecretChain
from net.record import verify_record_json


def _from_host(net: Net, peer: str, kind: str, **fields: Any) -> bool:
    """A message the (forged) host sends to one guest on its connection."""
    if kind == "sync":
        net.now += GUEST_SYNC_GAP_MS
    text = protocol.encode(kind, net.host.peers[peer].counter.next(), **fields)
    return net.guests[peer].receive(text, net.now)


def _ask_for_sync(net: Net, peer: str) -> None:
    """A host makes a guest ask for the record at will: it says the guest's move was stale."""
    assert _from_host(net, peer, "refused", code="stale-action", message="stale")
    assert net.guests[peer].sync_wanted


def _sync_fields(net: Net, record: Any, peer: str, **changed: Any) -> dict[str, Any]:
    names = dict(net.host.table.names) if net.host.table is not None else {}
    fields = {"record": record, "names": names,
              "players": net.host.players(), "timer": net.host.timer,
              "turnSeconds": round(net.host.turn_seconds), "left": None,
              "you": net.guests[peer].seat, "connected": net.host.connected_seats()}
    return fields | changed


# -- choosing a die by committing a chain after the reveals ------------------------------------


def _green_roll_revealed(seed: int = 4, net: Net | None = None, after: int = 0
                         ) -> tuple[Net, GuestRoom, dict[str, Any], int]:
    """A match in which green has rolled (at roll ``after`` or later) and every participant
    revealed for that roll, which the host holds open (it does not settle it): the record
    before the roll, and its number."""
    net = net or started_match(steps=0, seed=seed)
    rnd = random.Random(seed)
    host = net.host
    green = net.guest_of("green")
    assert green is not None
    to_green_roll(net, rnd, after=after)
    before = host.record_json()
    host.settle = lambda now: None  # type: ignore[method-assign]  # the host holds the roll
    green.act(Action("roll"))
    net.pump()
    collector = host.collector
    assert collector is not None and "green" in collector.reveals
    assert green.ledger.next_roll == collector.roll
    return net, green, before, collector.roll


def test_a_sync_whose_host_chain_is_committed_after_the_guests_revealed_is_refused() -> None:
    net, green, before, roll = _green_roll_revealed()
    collector = net.host.collector
    assert collector is not None
    guests = {p: r for p, r in collector.reveals.items() if p != HOST}
    honest = green.ledger.preview(roll, collector.n, dict(collector.reveals)).value
    # the host knows every guest's reveal: it tries new chains of its own until the die is
    # the one it wants, and commits the chain for this very roll
    for attempt in range(200):
        ledger = DiceLedger.replay(before["dice"])
        chain = SecretChain.new(roll, 2 * 64 + attempt)
        ledger.commit(chain.commitment(HOST))
        settled = ledger.settle(roll, collector.n, {HOST: chain.reveal(roll), **guests})
        if settled.value != honest:
            break
    forged = dict(before, dice=ledger.to_json())
    _ask_for_sync(net, "p1")
    assert not _from_host(net, "p1", "sync", **_sync_fields(net, forged, "p1"))
    # (refused twice over: the host's own table commits its next chain before the last one
    # runs out, and this device was asked for that roll before the chain came)
    assert green.problem is not None and "a successor is committed when" in green.problem
    assert green.ledger.next_roll == roll  # nothing settled
    assert green.ledger.commitment_for(HOST, roll) != chain.commitment(HOST)


def test_a_sync_with_another_seats_chain_committed_after_the_reveals_is_refused(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # yellow's chain runs out (its page commits no successor): a successor from the next roll
    # is then one the rules allow, so a host could commit one "for yellow" (yellow's page
    # would refuse it, green's cannot tell) once it has seen green's reveal, and pick the die
    monkeypatch.setattr(GuestRoom, "chain_length", 2 * 64)
    net = Net()
    net.seat_all()
    monkeypatch.setattr(GuestRoom, "chain_length", 4096)
    net.guests["p2"].renew = lambda ledger: None  # type: ignore[method-assign]
    net.host.start(net.now)
    net.pump()
    net, green, before, roll = _green_roll_revealed(net=net, after=2 * 64 + 1)
    assert green.ledger.links_left("yellow") == 0
    collector = net.host.collector
    assert collector is not None
    others = {p: r for p, r in collector.reveals.items() if p != "yellow"}
    ledger = DiceLedger.replay(before["dice"])
    chain = SecretChain.new(roll, 2 * 64)
    ledger.commit(chain.commitment("yellow"))
    ledger.settle(roll, collector.n, {"yellow": chain.reveal(roll), **others})
    _ask_for_sync(net, "p1")
    assert not _from_host(net, "p1", "sync",
                          **_sync_fields(net, dict(before, dice=ledger.to_json()), "p1"))
    assert green.problem is not None and "asked for" in green.problem
    assert green.ledger.next_roll == roll


def test_an_honest_sync_while_a_revealed_roll_is_open_is_read() -> None:
    net, green, before, roll = _green_roll_revealed()
    _ask_for_sync(net, "p1")
    assert _from_host(net, "p1", "sync", **_sync_fields(net, net.host.record_json(), "p1"))
    assert green.problem is None and green.ledger.next_roll == roll
    # the roll is still open for this guest: a chain for it is refused after the sync too
    chain = SecretChain.new(roll, 200)
    assert not _from_host(net, "p1", "commit", commit=chain.commitment(HOST).to_json())
    assert green.ledger.commitment_for(HOST, roll) != chain.commitment(HOST)


def _started_on_a_one_link_host_chain() -> tuple[Net, HostRoom, GuestRoom | None]:
    """A match whose host committed one chain of one link (roll 0) and renews none: its
    chain has run out from roll 1 on."""
    net = Net()
    net.seat_all()
    host = net.host
    host.chains = [SecretChain.new(0, 1)]
    host.renew = lambda ledger: None  # type: ignore[method-assign]
    host.start(net.now)
    net.pump()
    return net, host, net.guest_of("green")


def test_a_host_chain_committed_for_a_roll_the_guest_revealed_for_is_refused() -> None:
    # the host's first chain serves roll 0 only, and the host commits no successor: its chain
    # has no link left for roll 1, so a successor from roll 1 is one the rules allow ... but
    # only before anybody was asked for roll 1
    net, host, green = _started_on_a_one_link_host_chain()
    assert green is not None and green.table is not None and green.problem is None
    assert green.ledger.links_left(HOST) == 0 and green.ledger.next_roll == 1
    sent: list[str] = []
    green.send_text = sent.append
    assert _from_host(net, "p1", "open", roll=1, n=6)
    assert sent and '"reveal"' in sent[-1]  # green revealed for roll 1
    chain = SecretChain.new(1, 200)
    assert not _from_host(net, "p1", "commit", commit=chain.commitment(HOST).to_json())
    assert green.ledger.commitment_for(HOST, 1) is None
    # refused as a host chain committed after its last one ran out; and the roll was asked for
    assert "run out" in green.notices[-1]
    assert green.ledger.opened == 1


def test_a_host_chain_committed_after_its_last_one_ran_out_is_refused_before_any_reveal(
) -> None:
    # the same chain before roll 1 is opened: the host's own table commits its next chain
    # while the current one has links left, so it has no reason to, and a sync would carry it
    net, host, green = _started_on_a_one_link_host_chain()
    assert green is not None and green.ledger.opened is None
    chain = SecretChain.new(1, 200)
    assert not _from_host(net, "p1", "commit", commit=chain.commitment(HOST).to_json())
    assert green.ledger.commitment_for(HOST, 1) is None and "run out" in green.notices[-1]
    # nor one from a later roll: a successor starts where the last chain ended
    later = SecretChain.new(2, 200)
    assert not _from_host(net, "p1", "commit", commit=later.commitment(HOST).to_json())


def test_a_begin_again_does_not_reopen_roll_0_to_a_chain_committed_after_the_reveals() -> None:
    # the host "reloads" while the seed is drawn (a begin again, as an honest host's is), then
    # sends a record whose seed comes from a chain of its own committed after our reveal
    net = Net()
    net.seat_all()
    host = net.host
    host.settle = lambda now: None  # type: ignore[method-assign]  # the host holds roll 0
    host.start(net.now)
    net.pump()
    green = net.guest_of("green")
    collector = host.collector
    assert green is not None and collector is not None and "green" in collector.reveals
    ledger = host.ledger
    assert _from_host(net, "p1", "begin", match=ledger.room, participants=list(ledger.participants),
                      commits=[e["commit"] for e in ledger.events])
    forged = DiceLedger.replay(ledger.to_json())
    chain = SecretChain.new(0, 200)
    forged.commit(chain.commitment(HOST))
    guests = {p: r for p, r in collector.reveals.items() if p != HOST}
    seed = forged.settle(0, collector.n, {HOST: chain.reveal(0), **guests}).value
    record = record_to_json(Table.new(host.rules, host.seats, seed, net.now).record._replace(
        dice=forged.to_json()))
    _ask_for_sync(net, "p1")
    assert not _from_host(net, "p1", "sync", **_sync_fields(net, record, "p1"))
    assert green.problem is not None and "asked for" in green.problem
    assert green.table is None and green.ledger.next_roll == 0


# -- changing the room's clock in a sync ---------------------------------------------------------


def _clocked() -> tuple[Net, GuestRoom, random.Random]:
    net = started_match(steps=0, seed=2, timer=True)
    green = net.guest_of("green")
    assert green is not None
    return net, green, random.Random(1)




@pytest.mark.parametrize("changed", [{"timer": False}, {"turnSeconds": 1},
                                     {"turnSeconds": 3600}])
def test_a_sync_that_changes_the_rooms_clock_is_refused(changed: dict[str, Any]) -> None:
    # a host that could switch the clock off (or to 1 s) in a sync would time seats out at
    # once from then on, and no guest would flag it (their own clock is the room's)
    net, green, rnd = _clocked()
    to_green_roll(net, rnd)
    _ask_for_sync(net, "p1")
    record = net.host.record_json()
    assert not _from_host(net, "p1", "sync", **_sync_fields(net, record, "p1", **changed))
    assert green.problem is not None and "clock" in green.problem
    net.now += 2000
    net.host.act("table", Action("timeout"), net.now)  # at once: about 28 s early
    net.pump()
    assert green.early_timeouts == {"green": 1}


def test_the_rooms_clock_is_kept_through_a_reload_of_the_guests_page() -> None:
    net, green, rnd = _clocked()
    to_green_roll(net, rnd)
    saved = json.loads(json.dumps(green.to_json()))
    again = GuestRoom.restore(saved, green.send_text)
    net.guests["p1"] = again
    again.connect()
    net.queue.clear()
    text = protocol.encode("lobby", net.host.peers["p1"].counter.next(),
                           **net.host.lobby_fields("green"))
    assert again.receive(text, net.now)
    assert not _from_host(net, "p1", "sync", **_sync_fields(
        net, net.host.record_json(), "p1", turnSeconds=1))
    assert again.problem is not None and "clock" in again.problem
    _ask_for_sync(net, "p1")  # the room's own clock is read
    assert _from_host(net, "p1", "sync", **_sync_fields(net, net.host.record_json(), "p1"))
    assert again.table is not None and again.clock == (net.host.match, True, 30)


def test_a_sync_whose_timer_is_not_the_lobbys_is_refused() -> None:
    net, green, rnd = _clocked()
    fresh = GuestRoom(green.room, green.secret, "Greeny", green.send_text, green.chains)
    fresh.seat, fresh.match = green.seat, green.match
    net.guests["p1"] = fresh
    fresh.connect()
    net.queue.clear()
    text = protocol.encode("lobby", net.host.peers["p1"].counter.next(),
                           **net.host.lobby_fields("green"))
    assert fresh.receive(text, net.now) and fresh.lobby["timer"] is True
    assert not _from_host(net, "p1", "sync", **_sync_fields(
        net, net.host.record_json(), "p1", timer=False))
    assert fresh.problem is not None and "clock" in fresh.problem


@pytest.mark.parametrize("clock", [None, 1, "x", [], {"match": 1}, {"match": "m", "timer": 1,
                                                                   "turnSeconds": 30},
                                   {"match": "m", "timer": True, "turnSeconds": 0},
                                   {"match": "m", "timer": True, "turnSeconds": 1e9}])
def test_a_stored_clock_that_is_no_clock_is_as_if_absent(clock: Any) -> None:
    net, green, _ = _clocked()
    saved = dict(green.to_json(), clock=clock)
    assert GuestRoom.restore(saved, green.send_text).clock is None


# -- a lobby of one game, a match of another -----------------------------------------------------


@pytest.mark.parametrize(("shown", "played"), [
    (("classic", {}), ("courtyard", {})),  # the same board, capture-to-unlock or not
    (("gilgiti", {"teams": False}), ("gilgiti", {"teams": True})),
    (("courtyard", {}), ("royal", {}))])
def test_a_match_of_other_rules_or_options_than_the_lobby_showed_is_refused(
        shown: tuple[str, dict[str, Any]], played: tuple[str, dict[str, Any]]) -> None:
    net = Net(rules=played[0], options=played[1])
    real = net.host.lobby_fields

    def lobby(you: str | None = None) -> dict[str, Any]:
        return real(you) | {"rules": shown[0], "options": shown[1]}

    net.host.lobby_fields = lobby  # type: ignore[method-assign]
    net.seat_all()
    green = net.guest_of("green")
    assert green is not None and green.lobby is not None
    assert green.lobby["rules"] == shown[0]
    net.host.start(net.now)
    net.pump()
    assert green.table is None
    assert green.problem is not None and shown[0] in green.problem, green.problem


def test_a_match_of_the_rules_and_options_the_lobby_showed_is_read() -> None:
    net = started_match(rules="gilgiti", options={"teams": True})
    for guest in net.guests.values():
        assert guest.problem is None and guest.table is not None


# -- a record that costs its reader quadratic time -------------------------------------------


def test_a_sync_with_more_chains_of_one_participant_than_a_match_allows_is_refused() -> None:
    # each commitment costs a replay time in proportion to the chains before it: a 3 MB sync of
    # 20,000 of the host's took 14 s of CPU, and the host can make a guest ask every second
    net = started_match(steps=20, seed=3)
    green = net.guest_of("green")
    assert green is not None
    record = net.host.record_json()
    forged = DiceLedger.replay(record["dice"])
    start = forged.next_roll + forged.links_left(HOST)
    for i in range(MAX_CHAINS + 1):
        forged.commit(SecretChain.new(start + i, 200).commitment(HOST))
    _ask_for_sync(net, "p1")
    before = green.ledger.to_json()
    assert not _from_host(net, "p1", "sync",
                          **_sync_fields(net, dict(record, dice=forged.to_json()), "p1"))
    # (refused as successors the rules do not allow, too: the host's chain has links left)
    assert green.problem is not None and "successor" in green.problem
    assert green.ledger.to_json() == before
    with pytest.raises(DiceError, match="chains"):
        verify_record_json(dict(record, dice=forged.to_json()))


def test_a_record_with_as_many_chains_as_a_match_allows_verifies() -> None:
    net = started_match(steps=20, seed=3)
    record = net.host.record_json()
    ledger = DiceLedger.replay(record["dice"])
    start = ledger.next_roll + ledger.links_left(HOST)
    chains = sum(1 for e in ledger.events if "commit" in e and
                 e["commit"]["participant"] == HOST)
    for i in range(MAX_CHAINS - chains):
        ledger.commit(SecretChain.new(start + i, 200).commitment(HOST))
    verify_record_json(dict(record, dice=ledger.to_json()))


@pytest.mark.parametrize("changed", [{"rules": "classic"}, {"options": {"teams": True}},
                                     {"timer": True}])
def test_a_lobby_after_the_record_that_shows_another_game_or_clock_is_refused(
        changed: dict[str, Any]) -> None:
    # a host that sends its record before its lobby (after a guest's reload, say) must not
    # show another game on the room screen than the one it plays
    net = started_match(steps=5)
    green = net.guest_of("green")
    assert green is not None and green.table is not None
    lobby = green.lobby
    text = protocol.encode("lobby", net.host.peers["p1"].counter.next(),
                           **(net.host.lobby_fields("green") | changed))
    assert not green.receive(text, net.now)
    assert green.problem is not None and "lobby" in green.problem
    assert green.lobby == lobby
    text = protocol.encode("lobby", net.host.peers["p1"].counter.next(),
                           **net.host.lobby_fields("green"))
    assert green.receive(text, net.now)


def test_a_host_chain_from_the_next_roll_is_refused_in_a_sync_after_a_reload() -> None:
    # green revealed for roll 1 and reloaded before it was settled: it no longer remembers
    # being asked, but a host chain from the roll under way (committed once the host's last
    # chain had run out: its own table renews before that) is refused all the same
    net, host, green = _started_on_a_one_link_host_chain()
    assert green is not None and green.table is not None
    sent: list[str] = []
    green.send_text = sent.append
    assert _from_host(net, "p1", "open", roll=1, n=6)
    reveal = bytes.fromhex(json.loads(sent[-1])["reveal"])
    again = GuestRoom.restore(json.loads(json.dumps(green.to_json())), sent.append)
    net.guests["p1"] = again
    again.connect()
    text = protocol.encode("lobby", host.peers["p1"].counter.next(), **host.lobby_fields("green"))
    assert again.receive(text, net.now)
    record = host.record_json()
    forged = DiceLedger.replay(record["dice"])
    chain = SecretChain.new(1, 200)
    forged.commit(chain.commitment(HOST))
    forged.settle(1, 6, {HOST: chain.reveal(1), "green": reveal})
    assert not _from_host(net, "p1", "sync",
                          **_sync_fields(net, dict(record, dice=forged.to_json()), "p1"))
    assert again.problem is not None and "run out" in again.problem
    # the honest record (roll 1 not settled) is read
    _ask_for_sync(net, "p1")
    assert _from_host(net, "p1", "sync", **_sync_fields(net, record, "p1"))
    assert again.table is not None
