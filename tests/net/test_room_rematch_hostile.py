"""A rematch met by a hostile host, a hostile guest and a clumsy network (docs/online.md,
"Rematch"): a host may announce one rematch per ended match, never one while the match's seed
is drawn; a guest's claims in the rematch's window never leave the host a room it cannot
reload; a saved room's rematch fields restore or are refused with the room's own error; the
old and the new match's records verify on their own, and a record mixing them does not."""

from __future__ import annotations

import copy
import json
import random
from collections import deque
from typing import Any

import pytest
from roomkit import Net
from test_room_rematch import _finished, _from_guest, _from_host, _same_everywhere

from app.room import GuestRoom, HostRoom, Refused
from ludo import LudoError
from net.dice import RENEW_MARGIN, DiceError, SecretChain
from net.record import verify_record_json


def _step(net: Net) -> None:
    """Deliver one message only."""
    to, peer, text = net.queue.popleft()
    if peer not in net.links:
        return
    if to == "guest":
        net.guests[peer].receive(text, net.now)
    else:
        net.host.receive(peer, text, net.now)


def _heads(guest: GuestRoom, seat: str) -> list[str]:
    return [c.commitment(seat).head.hex() for c in guest.chains]


def test_a_guest_refuses_a_rematch_while_the_new_match_s_seed_is_drawn() -> None:
    # the host saw the guest's reveal for roll 0 (the seed) and would throw the match away
    # for another until a seed suits it: each rematch makes every seat draw a new chain
    net, _ = _finished(seed=1)
    host = net.host
    host.rematch(net.now)
    green = net.guests["p1"]
    while not (green.first == host.first and green.ledger is not None and 0 in green.revealed):
        _step(net)
    assert green.table is None and host.collector is not None
    heads, held = _heads(green, "green"), net.queue.copy()
    net.queue = deque()
    assert not _from_host(net, "p1", "rematch", match="Z" * 22, first=host.first + 1)
    assert green.problem == "The host started another match before this one was over."
    assert _heads(green, "green") == heads and green.ledger is not None
    assert green.first == host.first
    # (an honest host's match goes on: this device still follows it)
    net.queue = held
    green.problem = None
    net.pump()
    rnd = random.Random(2)
    for _ in range(8):
        net.play_one(rnd)
    _same_everywhere(net)


def test_a_guest_follows_one_rematch_per_ended_match_on_a_connection() -> None:
    net, _ = _finished(seed=3)
    host = net.host
    net.cut("p2")  # a seat is freed: the rematch's window stays open until the host starts
    host.rematch(net.now)
    net.pump()
    green = net.guests["p1"]
    assert green.asked is None and green.seat == "green" and host.table is None
    heads = _heads(green, "green")
    # the same rematch again on this connection: our claim for it went out already
    for _ in range(5):
        assert _from_host(net, "p1", "rematch", match=host.match, first=host.first)
    assert _heads(green, "green") == heads and not net.queue
    # another rematch before the one announced began, by match id or by a later first
    for match, first in (("Q" * 22, host.first), ("Q" * 22, host.first + 9),
                         (host.match, host.first + 9)):
        assert not _from_host(net, "p1", "rematch", match=match, first=first)
        assert green.problem == ("The host started another rematch before the one it "
                                 "announced began.")
    assert _heads(green, "green") == heads and green.first == host.first and not net.queue
    # a new connection (the host's page reloaded, or ours) is told again and claims again
    green.problem = None
    net.cut("p1")
    net.connect("p1")
    assert _heads(green, "green") != heads and green.seat == "green"
    # (both of its claims are offered until the match begins: its begin says which it took)
    assert host.holders["green"].commitment in [c.commitment("green") for c in green.chains]
    net.add_guest("p4", "Bea").claim("yellow", "Bea")
    net.pump()
    host.start(net.now)
    net.pump()
    assert [c.commitment("green") for c in green.chains] == [host.holders["green"].commitment]
    net.play_to_end(seed=4)
    _same_everywhere(net)
    assert net.refused == []


def test_a_seat_given_up_in_the_rematch_s_window_leaves_a_room_that_reloads() -> None:
    net, _ = _finished(seed=9)
    host = net.host
    net.cut("p2")
    host.rematch(net.now)
    net.queue.clear()  # green's device has not claimed green again yet: it claims yellow
    commit = SecretChain.new(0, 2 * RENEW_MARGIN).commitment("yellow").to_json()
    assert _from_guest(net, "p1", "claim", seat="yellow", name="Greeny", commit=commit)
    assert sorted(host.holders) == ["yellow"] and host.renewing == set()
    saved = json.loads(json.dumps(host.to_json()))
    restored = HostRoom.restore(saved, net.to_guest, net.now)
    assert sorted(restored.holders) == ["yellow"] and not restored.ready()


def _saves() -> list[dict[str, Any]]:
    """A host's saves: in a rematch's window, while its seed is drawn, and in its match."""
    net, _ = _finished(seed=11)
    host = net.host
    net.cut("p2")
    host.rematch(net.now)
    net.pump()
    window = json.loads(json.dumps(host.to_json()))
    net.add_guest("p4", "Bea").claim("yellow", "Bea")
    net.pump()
    host.start(net.now)
    seeding = json.loads(json.dumps(host.to_json()))
    net.pump()
    rnd = random.Random(12)
    for _ in range(10):
        net.play_one(rnd)
    playing = json.loads(json.dumps(host.to_json()))
    assert "dice" in seeding and playing["record"] is not None and playing["first"] > 0
    return [window, seeding, playing]


def test_a_saved_host_room_s_match_id_must_be_one_a_guest_reads_and_its_dice_s() -> None:
    for saved in _saves():
        for match in (None, "", 5, ["x"], "x" * 65):
            with pytest.raises(DiceError, match="match: an id"):
                HostRoom.restore(dict(saved, match=match), lambda p, t: None, 1.7e12)
        if saved["record"] is not None or "dice" in saved:
            with pytest.raises(DiceError, match="match: not the"):
                HostRoom.restore(dict(saved, match="A" * 22), lambda p, t: None, 1.7e12)


ODD = [None, 1, -1, 0, 2**52, 2**53, "x", [], {}, True, 1.5, 1e300, "A" * 70, [1, 2],
       ["green"], ["green", "green"], ["red"], [[]], [None], "", "A" * 22]


def test_mutated_rematch_fields_of_a_saved_room_restore_or_are_refused() -> None:
    rng = random.Random(1301)
    saves = _saves()
    for _ in range(600):
        data = copy.deepcopy(rng.choice(saves))
        for key in rng.sample(["first", "renewing", "autoStart", "match"], rng.randint(1, 3)):
            data[key] = copy.deepcopy(rng.choice(ODD))
        try:
            room = HostRoom.restore(data, lambda p, t: None, 1.7e12)
        except (DiceError, LudoError):
            continue
        # restored: whole, and saved again as it reloads
        assert isinstance(room.match, str) and 0 < len(room.match) <= 64
        assert room.ledger is None or room.ledger.room == room.match
        assert room.renewing <= set(room.holders)
        HostRoom.restore(json.loads(json.dumps(room.to_json())), lambda p, t: None, 1.7e12)


def test_each_match_s_record_verifies_and_one_mixing_them_does_not() -> None:
    net, old = _finished(seed=13)
    net.host.rematch(net.now)
    net.pump()
    net.play_to_end(seed=14)
    new = json.loads(json.dumps(net.host.record_json()))
    verify_record_json(old)
    verify_record_json(new)
    for mixed in (dict(new, dice=old["dice"]), dict(old, dice=new["dice"]),
                  dict(new, actions=old["actions"])):
        with pytest.raises((LudoError, DiceError)):
            verify_record_json(json.loads(json.dumps(mixed)))


def test_a_hostile_guest_s_old_and_future_state_ids_and_claims_change_nothing() -> None:
    net, _ = _finished(seed=15)
    host = net.host
    host.rematch(net.now)
    # in the window: another's seat is taken; acts have no table
    commit = SecretChain.new(0, 2 * RENEW_MARGIN).commitment("yellow").to_json()
    assert not _from_guest(net, "p1", "claim", seat="yellow", name="X", commit=commit)
    assert json.loads(net.queue[-1][2])["code"] == "taken"
    assert not _from_guest(net, "w", "act", version=host.first, action={"type": "roll"})
    net.pump()
    rnd = random.Random(16)
    for _ in range(6):
        net.play_one(rnd)
    before = json.dumps(host.to_json(), sort_keys=True)
    seat = host.table.seat_to_act
    peer = "p1" if seat == "green" else "p2"
    for version in (host.first - 1, host.table.version, host.first + host.table.version + 1,
                    2**53):
        assert not _from_guest(net, peer, "act", version=version, action={"type": "roll"})
    # a claim or a new chain from roll 0 in the match: refused
    commit = SecretChain.new(0, 2 * RENEW_MARGIN).commitment(seat).to_json()
    assert not _from_guest(net, peer, "claim", seat=seat, name="X", commit=commit)
    assert not _from_guest(net, peer, "commit", commit=commit)
    net.queue.clear()
    assert json.dumps(host.to_json(), sort_keys=True) == before


def test_a_host_s_begin_with_a_chain_for_a_seat_that_is_not_its_player_s_is_refused() -> None:
    net, _ = _finished(seed=17)
    host = net.host
    net.cut("p2")
    host.rematch(net.now)
    net.pump()
    green = net.guests["p1"]
    theirs = SecretChain.new(0, 2 * RENEW_MARGIN)
    commits = [host.chains[0].commitment("host").to_json(),
               theirs.commitment("green").to_json(),
               SecretChain.new(0, 2 * RENEW_MARGIN).commitment("yellow").to_json()]
    assert not _from_host(net, "p1", "begin", match=host.match,
                          participants=["host", "green", "yellow"], commits=commits,
                          first=host.first)
    assert green.problem is not None and "not yours" in green.problem
    # nor may it begin the old match's numbering again
    green.problem = None
    commits[1] = green.chains[0].commitment("green").to_json()
    assert not _from_host(net, "p1", "begin", match=host.match,
                          participants=["host", "green", "yellow"], commits=commits, first=0)
    assert green.ledger is None


def test_a_first_past_what_a_room_restores_is_neither_followed_nor_reached() -> None:
    net, _ = _finished(seed=19)
    green = net.guests["p1"]
    # a host's rematch from a state id no saved room holds (it was followed, and the guest's
    # reload read it as 0: every sync of the host's was then refused as another match's)
    assert not _from_host(net, "p1", "rematch", match="Z" * 22, first=2**53)
    assert green.first == 0 and green.table is not None
    saved = json.loads(json.dumps(green.to_json()))
    for first in (2**53, -1, "x", 1.5, True, [1]):
        with pytest.raises(DiceError, match="first"):
            GuestRoom.restore(dict(saved, first=first), green.send_text)
    assert GuestRoom.restore(dict(saved, first=7), green.send_text).first == 7
    # a host restored near the last state id is refused another match, clearly
    host = HostRoom.restore(dict(json.loads(json.dumps(net.host.to_json())), first=2**52 - 5),
                            net.to_guest, net.now)
    with pytest.raises(Refused, match="no state ids left"):
        host.rematch(net.now)
    assert host.first == 2**52 - 5 and host.table is not None and host.table.over


def test_a_seat_held_through_the_rematch_cannot_be_taken_by_leaving_its_claim_unanswered(
        ) -> None:
    # told of the rematch on the connection that followed the match to its end, a guest's
    # seat is kept for it: a host that says it holds nothing and begins with a chain of its
    # own for that seat (so that it knows that seat's dice) is refused, not watched
    net, _ = _finished(seed=21)
    host = net.host
    net.cut("p2")
    host.rematch(net.now)
    green = net.guests["p1"]
    lobby = None
    while net.queue:  # the host reads no claim, and its lobby is held back
        to, peer, text = net.queue.popleft()
        if to == "guest" and peer == "p1":
            if json.loads(text)["type"] == "lobby":
                lobby = json.loads(text)
            else:
                green.receive(text, net.now)
    assert lobby is not None and green.seat == "green"
    body = {k: v for k, v in lobby.items() if k not in ("v", "seq", "type")}
    assert _from_host(net, "p1", "lobby", **dict(body, you=None))
    assert green.seat == "green" and green.problem is None
    commits = [host.chains[0].commitment("host").to_json(),
               SecretChain.new(0, 2 * RENEW_MARGIN).commitment("green").to_json(),
               SecretChain.new(0, 2 * RENEW_MARGIN).commitment("yellow").to_json()]
    assert not _from_host(net, "p1", "begin", match=host.match,
                          participants=["host", "green", "yellow"], commits=commits,
                          first=host.first)
    assert green.ledger is None and green.problem is not None and "not yours" in green.problem
