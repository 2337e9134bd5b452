"""A host's `refused` goes over a guest's board (and to its screen reader) only as the answer to
a request of this device's person still awaiting one: a move, a claim, a watch. Any other is
kept among the room's notices: a host cannot put its words over the board at will, and a
refusal of something the device sent by itself (a reveal, a commitment) is not read as a
refused move."""

from __future__ import annotations

import random
from typing import Any

from roomkit import Net, started_match

from app import room
from ludo import Action
from net import protocol


def _refuse(net: Net, peer: str, code: str, words: str) -> str | None:
    """The host refuses something (whether ``peer`` asked or not), a notice gap later; what
    the guest's page then shows over the board."""
    net.now += room.NOTICE_GAP_MS
    guest = net.guests[peer]
    guest.to_show = None
    text = protocol.encode("refused", net.host.peers[peer].counter.next(), code=code,
                           message=words)
    assert guest.receive(text, net.now)
    assert guest.notices[-1] == f"The host refused: \u2068{words}\u2069"  # always kept
    return guest.to_show


def test_a_refusal_is_shown_only_as_the_answer_to_a_move_of_this_device() -> None:
    net = started_match(steps=4, seed=3)
    green = net.guests["p1"]
    # nothing asked: the host's words are kept, not shown
    assert _refuse(net, "p1", "illegal", "Yellow cheated: you lose") is None
    # a move of ours: its refusal is shown, once
    green.act(Action("roll"))
    assert _refuse(net, "p1", "illegal", "it is red's turn") is not None
    assert _refuse(net, "p1", "illegal", "it is red's turn") is None


def test_a_refusal_of_what_the_device_sent_by_itself_is_not_shown_as_a_refused_move() -> None:
    net = started_match(steps=4, seed=3)
    green = net.guests["p1"]
    green.act(Action("roll"))
    # a reveal's or a commitment's refusal does not answer the move
    for code in ("not-open", "late", "bad-reveal", "not-participant"):
        assert _refuse(net, "p1", code, f"{code} words") is None
    # ... which still awaits its answer; a refusal any message may get answers it too
    assert _refuse(net, "p1", "too-many", "too many messages") is not None


def test_a_move_applied_answers_it_so_a_later_refusal_is_not_shown() -> None:
    net = started_match(steps=4, seed=3)
    green = net.guests["p1"]
    rnd = random.Random(2)
    for _ in range(200):  # play on until green's own move has been applied
        t = net.host.table
        assert t is not None
        mine = t.seat_to_act == green.seat
        net.play_one(rnd)
        if mine:
            break
    else:
        raise AssertionError("green never acted")
    assert _refuse(net, "p1", "illegal", "it is not your turn") is None


def _lobby_refusal(claimed: bool, code: str) -> Any:
    net = Net()
    green = net.add_guest("p1")
    net.pump()
    if claimed:
        green.claim(next(s for s in net.host.seats if net.host.kinds[s] == room.ONLINE), "Bo")
        # (not passed on: the host's answer is the one this test sends)
    return _refuse(net, "p1", code, f"{code} words")


def test_a_claim_or_a_watch_refused_is_shown_and_only_then() -> None:
    assert _lobby_refusal(True, "taken") is not None
    assert _lobby_refusal(False, "taken") is None
    net = started_match(steps=2, seed=3)
    green = net.guests["p1"]
    green.watch()  # a seat in a match under way cannot watch: the host refuses it
    assert _refuse(net, "p1", "seated", "you hold a seat in this match") is not None
    # a claim's refusal does not answer a move
    green.act(Action("roll"))
    assert _refuse(net, "p1", "taken", "red is taken") is None
