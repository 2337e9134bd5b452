"""The game protocol's messages, and peers that refuse forged, replayed, reordered, truncated,
oversized and malformed messages with nothing changed (hypothesis makes them)."""

from __future__ import annotations

import copy
import functools
import json
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from roomkit import Net, snapshot_guest, snapshot_host

from net import protocol
from net.protocol import (
    GUEST_MESSAGES,
    HOST_MESSAGES,
    MAX_GUEST_BYTES,
    MAX_HOST_BYTES,
    ProtocolError,
    Reassembler,
    decode,
    encode,
    frames,
)

HEX = "ab" * 32


def test_a_message_is_exactly_its_fields() -> None:
    text = encode("reveal", 3, roll=4, reveal=HEX)
    message = decode(text, GUEST_MESSAGES, MAX_GUEST_BYTES)
    assert (message.type, message.seq, message.body) == ("reveal", 3, {"roll": 4, "reveal": HEX})
    for bad, code in (
        (encode("reveal", 3, roll=4), "bad-schema"),
        (encode("reveal", 3, roll=4, reveal=HEX, extra=1), "bad-schema"),
        (encode("reveal", 3, roll=-1, reveal=HEX), "bad-schema"),
        (encode("reveal", 3, roll=True, reveal=HEX), "bad-schema"),
        (encode("reveal", 3, roll=4, reveal=HEX.upper()), "bad-schema"),
        (encode("reveal", 0, roll=4, reveal=HEX), "bad-schema"),
        (encode("lobby", 3), "unknown-type"),  # a host's message from a guest
        (text.replace('"v":1', '"v":2'), "version"),
        (text.replace('"v":1', '"v":1.0'), "version"),
        (text[:-1], "bad-json"),
        ('{"v":1,"v":1,"seq":1,"type":"watch"}', "bad-json"),
        ("[" * 100 + "]" * 100, "bad-json"),
        ("[]", "bad-schema"),
        (encode("hello", 1, name="x" * 20_000, secret=HEX), "too-big"),
    ):
        with pytest.raises(ProtocolError) as caught:
            decode(bad, GUEST_MESSAGES, MAX_GUEST_BYTES)
        assert caught.value.code == code, bad[:80]


def test_every_message_type_has_a_schema_both_ways() -> None:
    assert set(GUEST_MESSAGES) == {"hello", "claim", "watch", "act", "reveal", "commit", "ack",
                                   "resync"}
    assert {"lobby", "begin", "sync", "open", "settled", "action", "dropped", "refused",
            "closed", "presence", "commit", "rematch"} == set(HOST_MESSAGES)


@given(st.text(min_size=0, max_size=200_000), st.integers(200, 20_000))
@settings(max_examples=60, deadline=None)
def test_long_messages_travel_in_parts_and_come_back_whole(text: str, size: int) -> None:
    text = "{" + text
    parts = frames(text, size)
    assert all(len(p) <= size for p in parts)
    r = Reassembler(10**7, size)
    out = [r.feed(p) for p in parts]
    assert out[-1] == text and all(o is None for o in out[:-1])


def test_parts_out_of_order_or_too_many_are_refused() -> None:
    parts = frames("{" + "x" * 5000, 1000)
    r = Reassembler(10**7, 1000)
    r.feed(parts[0])
    with pytest.raises(ProtocolError):
        r.feed(parts[2])
    r = Reassembler(2500, 1000)  # (parts of 1000: three are not too many, 2601 bytes are)
    with pytest.raises(ProtocolError, match="at most 2500 bytes"):
        for p in frames("{" + "x" * 2600, 1000):
            r.feed(p)
    r = Reassembler(10**7, 1000)
    r.feed(parts[0])
    with pytest.raises(ProtocolError):
        r.feed("{}")  # a whole message in the middle of parts
    for bad in ("~x/2:a", "~1/1:a", "~0/1:", "~3/2:a", "~0/2"):
        with pytest.raises(ProtocolError):
            Reassembler(100).feed(bad)


def test_empty_parts_or_more_parts_than_the_largest_message_needs_are_refused() -> None:
    # an honest host cuts its largest message (4 MiB) into at most 257 parts, none empty: a
    # hostile one must not make a guest keep parts without end (hostile review 4, finding 8)
    r = Reassembler(MAX_HOST_BYTES)
    assert r.max_parts == 257
    assert len(frames("{" + "x" * (MAX_HOST_BYTES - 1))) == 257
    for bad in ("~0/258:x", "~0/99999999:x", "~0/2:"):
        with pytest.raises(ProtocolError) as err:
            Reassembler(MAX_HOST_BYTES).feed(bad)
        assert err.value.code == "bad-frame"
    r.feed("~0/3:" + "x" * r.chunk)
    with pytest.raises(ProtocolError) as err:
        r.feed("~1/3:")  # an empty part in the middle drops the message being assembled
    assert err.value.code == "bad-frame" and r.parts == []
    assert r.feed("{}") == "{}"


def test_parts_are_cut_as_frames_cuts_them_so_the_first_tells_the_length() -> None:
    # every part but the last is full: a reader knows from a message's first part how long
    # it will be, within a part, and may decide then not to read it (hostile review 10)
    text = "{" + "x" * 50_000
    parts = frames(text, 1000)
    r = Reassembler(10**7, 1000)
    assert r.feed(parts[0]) is None and r.under_way
    assert r.least == (len(parts) - 1) * 968 + 1 <= len(text) <= len(parts) * 968
    assert r.first == text[:protocol.HEAD]
    for bad in ("~0/3:" + "x" * 967, "~0/3:" + "x" * 969, "~0/2:" + "x" * 969):
        with pytest.raises(ProtocolError, match="parts of 968") as err:
            Reassembler(10**7, 1000).feed(bad)  # a part cut short, or too long
        assert err.value.code == "bad-frame"
    r = Reassembler(10**7, 1000)
    r.feed(parts[0])
    with pytest.raises(ProtocolError, match="parts of 968"):
        r.feed(parts[1][:-1])
    assert not r.under_way and r.parts == []
    # the last part may be short
    short = frames("{" + "x" * 1000, 1000)
    r = Reassembler(10**7, 1000)
    assert len(short[1]) < 1000 and r.feed(short[0]) is None and r.least == 969
    assert r.feed(short[1]) == "{" + "x" * 1000


def test_a_part_numbered_in_other_digits_is_a_malformed_part_not_a_crash() -> None:
    # str.isdigit takes "\u00b2" (superscript two) and Arabic-Indic digits, and int() raised
    # ValueError on the first: the guest's page called that "a message this device could not
    # check" and stopped following its host
    for bad in ("~\u00b2/2:x", "~0/\u00b2:x", "~\u0660/2:x", "~0/\u0662:x", "~ 0/2:x", "~0/+2:x",
                "~0/999999999:x"):
        with pytest.raises(ProtocolError) as err:
            Reassembler(MAX_HOST_BYTES).feed(bad)
        assert err.value.code == "bad-frame", bad


def test_a_skipped_message_is_consumed_part_by_part_without_being_kept() -> None:
    text = "{" + "x" * 20_000
    parts = frames(text, 1000)
    r = Reassembler(10**7, 1000)
    r.feed(parts[0])
    r.skip()
    for part in parts[1:]:
        assert r.feed(part) is None and r.parts == [] and r.size == 0
    assert not r.under_way
    assert r.feed("{}") == "{}"  # the next message is read
    r.feed(parts[0])
    r.skip()
    with pytest.raises(ProtocolError, match="out of order"):
        r.feed(parts[2])  # a skipped message's parts are checked all the same
    # drop: a part consumed unread, with the rest of its message; refusals are not said
    r = Reassembler(10**7, 1000)
    r.drop(parts[0])
    assert r.under_way and not r.keeping
    for part in parts[1:]:
        r.feed(part)
    assert not r.under_way and r.parts == []
    r.drop("~x")
    r.drop(None)
    assert r.feed("{}") == "{}"


def test_a_messages_head_is_read_only_as_encode_writes_it() -> None:
    assert protocol.head(encode("sync", 12, record={})) == (12, "sync")
    assert protocol.head(encode("watch", 3)) == (3, "watch")
    for other in ('{"seq":1,"v":1,"type":"sync"', '{"v":2,"seq":1,"type":"sync",',
                  '{"v":1, "seq":1,"type":"sync",', '{"v":1,"seq":1,"type":"sync"',
                  '{"v":1,"seq":1,"type":"\\u0073ync",', '{"v":01,"seq":1,"type":"sync",',
                  '{"v":1,"seq":\u0661,"type":"sync",'):
        assert protocol.head(other) is None, other


# -- forged messages against a running match -----------------------------------------------


@functools.lru_cache(maxsize=1)
def _match() -> tuple[Net, dict[str, list[str]], list[str]]:
    """A match in progress (host + 3 guests) and every message each side accepted."""
    net = Net()
    to_host: dict[str, list[str]] = {"p1": [], "p2": [], "p3": []}
    to_guest: list[str] = []
    host_receive, = (net.host.receive,)

    def logged(peer: str, text: str, now: float) -> bool:
        ok = host_receive(peer, text, now)
        if ok:
            to_host[peer].append(text)
        return ok

    net.host.receive = logged  # type: ignore[method-assign]
    net.seat_all()
    guest = net.guests["p1"]
    guest_receive = guest.receive

    def logged_guest(text: str, now: float) -> bool:
        ok = guest_receive(text, now)
        if ok:
            to_guest.append(text)
        return ok

    guest.receive = logged_guest  # type: ignore[method-assign]
    net.host.start(net.now)
    net.pump()
    rnd = random.Random(21)
    for _ in range(45):
        net.play_one(rnd)
    net.host.receive = host_receive  # type: ignore[method-assign]
    guest.receive = guest_receive  # type: ignore[method-assign]
    return net, to_host, to_guest


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=False)
    | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                 max_size=4),
    max_leaves=12)


@st.composite
def forged_guest_messages(draw: Any) -> tuple[str, str]:
    net, accepted, _ = _match()
    peer = draw(st.sampled_from(["p1", "p2", "p3"]))
    seq = net.host.peers[peer].counter.accepted
    t = net.host.table
    assert t is not None
    seat = net.guests[peer].seat
    kind = draw(st.sampled_from(["replay", "truncate", "stale-seq", "garbage", "act",
                                 "reveal", "claim", "hello", "watch", "big", "commit"]))
    fresh = seq + draw(st.integers(1, 1000))
    if kind == "replay":
        return peer, draw(st.sampled_from(accepted[peer]))
    if kind == "stale-seq":  # reordered: an older number with any content
        text = encode("ack", draw(st.integers(1, seq)), version=t.version - 1)
        return peer, text
    if kind == "truncate":
        text = encode("act", fresh, version=t.version, action={"type": "roll"})
        return peer, text[:draw(st.integers(0, len(text) - 1))]
    if kind == "garbage":
        value = draw(json_values)
        if isinstance(value, dict) and draw(st.booleans()):
            value.update({"v": 1, "seq": fresh,
                          "type": draw(st.sampled_from(["act", "reveal", "claim", "x"]))})
        return peer, json.dumps(value)
    if kind == "act":
        action = draw(st.fixed_dictionaries({"type": st.sampled_from(
            ["roll", "move", "timeout", "quit", "pass"])}, optional={
            "token": st.integers(-1, 5), "value": st.integers(0, 7),
            "seat": st.sampled_from(["red", "green", "yellow", "blue", "x"])}))
        to_act = t.seat_to_act == seat
        version = draw(st.integers(0, t.version + 3))
        if to_act and version == t.version and action["type"] != "quit":
            version += 1  # stale or from the future, never the position's own
        if action["type"] == "quit" and action.get("seat") == seat:
            action["seat"] = "x"  # quitting for another seat
        return peer, encode("act", fresh, version=version, action=action)
    if kind == "reveal":
        return peer, encode("reveal", fresh, roll=draw(st.integers(0, 10**6)),
                            reveal=draw(st.text("0123456789abcdef", min_size=64, max_size=64)))
    if kind == "claim":
        return peer, encode("claim", fresh, seat=draw(st.sampled_from(["red", "green", "x"])),
                            name="Forger", commit={"participant": "green", "head": HEX,
                                                   "start": 0, "length": 4096})
    if kind == "hello":
        return peer, encode("hello", fresh, name="again", secret=HEX)
    if kind == "watch":
        return peer, encode("watch", fresh)
    if kind == "commit":
        ledger = net.host.ledger
        assert ledger is not None
        start = draw(st.integers(0, ledger.first_open_roll - 1))
        who = draw(st.sampled_from([seat or "green", "host", "red"]))
        return peer, encode("commit", fresh, commit={"participant": who, "head": HEX,
                                                     "start": start, "length": 100})
    return peer, encode("hello", fresh, name="x" * MAX_GUEST_BYTES, secret=HEX)


@given(forged_guest_messages())
@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
def test_the_host_refuses_forged_messages_with_nothing_changed(forged: tuple[str, str]) -> None:
    net, _, _ = _match()
    peer, text = forged
    before = snapshot_host(net.host)
    assert not net.host.receive(peer, text, net.now), text[:200]
    net.queue.clear()  # the refusals sent back
    assert snapshot_host(net.host) == before


@st.composite
def forged_host_messages(draw: Any) -> str:
    net, _, accepted = _match()
    guest = net.guests["p1"]
    t = guest.table
    assert t is not None and guest.ledger is not None
    seq = guest.counter.accepted
    fresh = seq + draw(st.integers(1, 1000))
    kind = draw(st.sampled_from(["replay", "truncate", "action", "roll", "settled", "sync",
                                 "garbage", "open", "commit"]))
    if kind == "replay":
        return draw(st.sampled_from(accepted))
    if kind == "truncate":
        text = draw(st.sampled_from(accepted))
        data = json.loads(text)
        data["seq"] = fresh
        text = json.dumps(data)
        return text[:draw(st.integers(0, len(text) - 1))]
    if kind == "action":  # another position's action: stale, or from the future
        version = draw(st.integers(0, t.version + 5).filter(lambda v: v != t.version))
        return encode("action", fresh, version=version, actor=t.seat_to_act or "red",
                      action={"type": "roll", "value": 3}, left=None)
    if kind == "roll":  # a chance value the ledger does not give, or a roll out of place
        value = draw(st.integers(-1, 8))
        return encode("action", fresh, version=t.version, actor=t.seat_to_act or "red",
                      action={"type": "roll", "value": value}, left=None)
    if kind == "settled":
        reveals = [[p, draw(st.text("0123456789abcdef", min_size=64, max_size=64))]
                   for p in draw(st.lists(st.sampled_from(["host", "green", "yellow"]),
                                          min_size=1, max_size=3, unique=True))]
        return encode("settled", fresh, roll=guest.ledger.next_roll, n=6,
                      reveals=reveals, value=draw(st.integers(0, 5)))
    if kind == "sync":
        record = copy.deepcopy(net.host.record_json())
        i = draw(st.integers(0, len(record["actions"]) - 1))
        action = record["actions"][i]
        action["value" if "value" in action else "token"] = draw(st.integers(0, 9)) + 10
        return encode("sync", fresh, record=record, names={}, players={}, timer=False,
                      turnSeconds=30, left=None, you="green", connected=[])
    if kind == "open":  # a peek at a die the position does not need now
        roll = guest.ledger.next_roll + draw(st.integers(1, 50))
        return encode("open", fresh, roll=roll, n=6)
    if kind == "commit":  # a new chain for this guest's own seat that is not its own
        return encode("commit", fresh, commit={"participant": "green", "head": HEX,
                                               "start": guest.ledger.first_open_roll + 1,
                                               "length": 100})
    value = draw(json_values)
    return json.dumps(value)


@given(forged_host_messages())
@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
def test_a_guest_refuses_forged_host_messages_with_nothing_changed(text: str) -> None:
    net, _, _ = _match()
    guest = net.guests["p1"]
    before = snapshot_guest(guest)
    problem = guest.problem
    assert not guest.receive(text, net.now), text[:200]
    net.queue.clear()
    guest.problem = problem
    assert snapshot_guest(guest) == before


def test_the_match_still_plays_after_the_forgeries() -> None:
    net, _, _ = _match()
    net.queue.clear()
    for g in net.guests.values():
        g.problem = None
    steps = net.play_to_end(seed=22)
    assert net.host.table is not None and net.host.table.over, steps
    for g in net.guests.values():
        assert g.table is not None
        assert g.table.position_text() == net.host.table.position_text()
    assert protocol.VERSION == 1


def test_a_seat_is_a_colour_and_a_lobby_lists_each_seat_once() -> None:
    row = {"seat": "red", "kind": "online", "name": "Ada", "taken": False, "here": False}
    lobby = {"rules": "courtyard", "options": {}, "timer": True, "seats": [row],
             "started": False, "you": None}
    decode(encode("lobby", 1, **lobby), HOST_MESSAGES, MAX_HOST_BYTES)
    for seats in ([{**row, "seat": "ß"}], [{**row, "seat": "purple"}], [row, row],
                  [row, {**row, "kind": "person"}]):
        with pytest.raises(ProtocolError) as caught:
            decode(encode("lobby", 1, **{**lobby, "seats": seats}), HOST_MESSAGES,
                   MAX_HOST_BYTES)
        assert caught.value.code == "bad-schema", seats
    with pytest.raises(ProtocolError):
        decode(encode("claim", 2, seat="é", name="Bo",
                      commit={"participant": "g1", "head": HEX, "start": 0, "length": 8}),
               GUEST_MESSAGES, MAX_GUEST_BYTES)
