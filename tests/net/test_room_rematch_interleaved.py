"""Resyncs and replays interleaved with a rematch, message by message (hostile 5).

The rematch tests deliver whole rounds of messages; here every message is delivered one at a
time, and at random points the guests ask for the record (a page that thinks it is out of step)
and a hostile guest replays what it sent in the first match: its acts, reveals, commits and
claims, with fresh sequence numbers, on its own connection. Whatever the interleaving, the host
never fails, the honest pages end the second match where the host is, with no problem, and the
second match's record verifies. (Nothing was found failing: these pin the rules down.)"""

from __future__ import annotations

import json
import random

import pytest
from roomkit import Net
from test_room_rematch import _finished, _same_everywhere

from net import protocol
from net.record import verify_record_json


def _deliver_one(net: Net, rnd: random.Random, askers: list[str]) -> None:
    to, peer, text = net.queue.popleft()
    if peer in net.links:
        if to == "guest":
            net.guests[peer].receive(text, net.now)
        else:
            net.host.receive(peer, text, net.now)
    if rnd.random() < 0.15:
        asker = rnd.choice(askers)
        if asker in net.links:
            net.guests[asker].ask_sync()
    net.now += rnd.choice((0.0, 1.0, 400.0, 1500.0))


def _pump_interleaved(net: Net, rnd: random.Random, askers: list[str]) -> None:
    while net.queue:
        _deliver_one(net, rnd, askers)


@pytest.mark.parametrize("seed", range(6))
def test_resyncs_interleaved_with_a_rematch_leave_every_page_where_the_host_is(seed: int) -> None:
    net, _ = _finished(seed=seed + 30)
    rnd = random.Random(seed)
    net.host.rematch(net.now)
    _pump_interleaved(net, rnd, ["p1", "p2", "w"])
    net.now += 5000.0
    for _ in range(3):  # the owed syncs go out; the second match is under way
        net.host.tick(net.now)
        _pump_interleaved(net, rnd, ["p1", "p2", "w"])
        net.now += 3000.0
    assert net.host.table is not None and not net.host.table.over
    play = random.Random(seed + 100)
    steps = 0
    while not net.host.table.over and steps < 3000:
        net.play_one(play)
        if play.random() < 0.05:
            net.guests[play.choice(["p1", "p2", "w"])].ask_sync()
            net.now += 3000.0
            net.host.tick(net.now)
            net.pump()
        steps += 1
    net.now += 5000.0
    net.host.tick(net.now)
    net.pump()
    _same_everywhere(net)
    verify_record_json(json.loads(json.dumps(net.host.record_json())))


@pytest.mark.parametrize("seed", range(4))
def test_a_guest_replaying_its_first_match_into_the_rematch_changes_nothing_for_the_others(
        seed: int) -> None:
    net = _finished_recording(seed + 50)
    host = net.host
    rnd = random.Random(seed)
    recorded = net.recorded  # type: ignore[attr-defined]
    kinds = {json.loads(t)["type"] for t in recorded}
    assert {"act", "reveal"} <= kinds
    host.rematch(net.now)
    net.pump()
    assert host.table is not None and not host.table.over
    play = random.Random(seed + 200)
    for _ in range(400):
        if host.table.over:
            break
        if rnd.random() < 0.3:  # p1 replays an old message of its own, with a fresh number
            old = json.loads(rnd.choice(recorded))
            fields = {k: v for k, v in old.items() if k not in ("v", "seq", "type")}
            if old["type"] == "claim":
                continue  # (its own seat's chain: harms only p1, see the report)
            text = protocol.encode(old["type"], net.guests["p1"].counter.next(), **fields)
            host.receive("p1", text, net.now)  # never raises
            net.pump()
        net.play_one(play)
    net.now += 5000.0
    net.host.tick(net.now)
    net.pump()
    verify_record_json(json.loads(json.dumps(host.record_json())))
    for peer in ("p2", "w"):
        guest = net.guests[peer]
        assert guest.problem is None, guest.problem
        assert guest.table is not None and guest.table.record == host.table.record


def _finished_recording(seed: int) -> Net:
    """As _finished, with every whole text p1 sent to the host kept in ``net.recorded``."""
    net = Net(seats=("red", "green", "yellow"), kinds={"green": "online", "yellow": "online"})
    recorded: list[str] = []
    p1 = net.add_guest("p1")
    send = p1.send_text

    def recording(text: str) -> None:
        if not text.startswith(protocol.FRAME_PREFIX):
            recorded.append(text)
        send(text)

    p1.send_text = recording
    p1.claim("green", "Greeny")
    net.add_guest("p2").claim("yellow", "Yellowy")
    net.add_guest("w", "Wally").watch()
    net.pump()
    net.host.start(net.now)
    net.pump()
    net.play_to_end(seed=seed)
    net.recorded = recorded  # type: ignore[attr-defined]
    return net
