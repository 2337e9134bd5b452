"""The signalling helper's defences against a hostile peer (server/signal.py): what a `hello`
may hold, numbers JSON cannot carry, outboxes of peers that do not read, senders flooding a
slow reader, and joins from one address. Driven like tests/test_signal.py (a fake clock, no
sleeping); the hub's internals are used where a socket cannot show the state (a peer that never
reads at all)."""

from __future__ import annotations

import asyncio
import json
from types import SimpleNamespace
from typing import Any

import aiohttp
import pytest

from net.signalling import parse_server_message
from server import signal as sig
from tests.test_signal import (
    ROOM_A,
    ROOM_B,
    FakeClock,
    Harness,
    closed_with,
    receive_json,
    run_hub,
)

# --------------------------------------------------------------------------------------------
# hello (finding 5: one nested hello locked every later joiner out)


def _nested(depth: int) -> dict[str, Any]:
    inner: dict[str, Any] = {}
    outer = inner
    for _ in range(depth):
        inner["x"] = {}
        inner = inner["x"]
    return outer


@pytest.mark.parametrize(
    "hello",
    [
        {"role": "guest", "x": _nested(13)},  # the hostile tester's
        {"role": _nested(2)},
        {"role": ["host"]},
        {"role": "g" * (sig.MAX_HELLO_TEXT + 1)},
        {"name": "Ada"},  # not a key the page sends
        ["role", "host"],
    ],
)
def test_a_bad_hello_is_refused_at_join_and_later_joiners_get_a_welcome_the_page_reads(
        hello: Any) -> None:
    async def test(h: Harness) -> None:
        host = await h.join(ROOM_A, {"role": "host"})
        ws = await h.connect()
        await ws.send_str(json.dumps({"type": "join", "v": 1, "room": ROOM_A, "hello": hello}))
        error = await receive_json(ws)
        assert error["type"] == "error" and error["code"] == "bad-schema", error
        guest = await h.join(ROOM_A, {"role": "guest"})
        parse_server_message(json.dumps(guest.welcome))  # the page's own check passes
        assert guest.welcome["peers"] == [{"peer": host.id, "hello": {"role": "host"}}]
        assert await host.receive() == {"type": "peer-joined", "peer": guest.id,
                                        "hello": {"role": "guest"}}
        # the refused connection is not in the room and may still join properly
        await ws.send_str(json.dumps({"type": "join", "v": 1, "room": ROOM_A,
                                      "hello": {"role": "guest"}}))
        assert (await receive_json(ws))["type"] == "welcome"

    run_hub(test)


def test_the_hellos_the_page_sends_pass() -> None:
    for hello in ({}, {"role": "host"}, {"role": "guest"}, {"role": "g" * sig.MAX_HELLO_TEXT},
                  {"role": None}, {"role": 3}, {"role": True}):
        assert sig.check_hello(hello) == hello


# --------------------------------------------------------------------------------------------
# Non-finite numbers (finding 10: 1e999 went out as Infinity, which JSON.parse refuses)


@pytest.mark.parametrize("number", ["1e999", "-1e999", "1E400", "9" * 400 + ".0"])
def test_numbers_json_cannot_carry_are_refused_as_bad_json(number: str) -> None:
    async def test(h: Harness) -> None:
        a = await h.join(ROOM_A, {"role": "host"})
        b = await h.join(ROOM_A)
        await a.receive()  # peer-joined
        ws = await h.connect()
        await ws.send_str('{"type":"join","v":1,"room":"' + ROOM_A
                          + '","hello":{"role":' + number + '}}')
        assert (await receive_json(ws))["code"] == "bad-json"
        await b.send('{"type":"offer","to":"' + a.id + '","data":{"x":[' + number + ']}}')
        assert (await b.receive())["code"] == "bad-json"
        # ordinary numbers pass through unchanged, and what goes out is strict JSON
        await b.send('{"type":"offer","to":"' + a.id + '","data":[1.5e3,-0.25,1e308]}')
        msg = await a.ws.receive(timeout=10)
        assert json.loads(msg.data, parse_constant=_refuse) == {
            "type": "offer", "from": b.id, "data": [1500.0, -0.25, 1e308]}

    run_hub(test)


def _refuse(name: str) -> Any:
    raise ValueError(name)


def test_the_helper_never_encodes_infinity_or_nan() -> None:
    for value in (float("inf"), float("-inf"), float("nan")):
        with pytest.raises(ValueError):
            sig.peer_joined_message("0" * 12, {"role": value})


# --------------------------------------------------------------------------------------------
# Peers that do not read (finding 8: pongs and errors bypassed outbox_limit)


class _Transport:
    def __init__(self) -> None:
        self.aborted = False

    def abort(self) -> None:
        self.aborted = True


def _fake_peer(hub: sig.SignalHub, address: str = "192.0.2.1") -> tuple[sig.Connection,
                                                                         _Transport]:
    """A connection whose peer never reads: nothing takes messages out of its outbox."""
    transport = _Transport()
    conn = sig.Connection(None, transport, hub.config, hub.clock())  # type: ignore[arg-type]
    conn.address = address
    hub.connections.add(conn)
    return conn, transport


def _texts(conn: sig.Connection) -> list[str]:
    return [item[0] for item in list(conn.outbox._queue)  # type: ignore[attr-defined]
            if isinstance(item, tuple)]


@pytest.mark.parametrize("message", ['{"type":"ping"}', '{"type":"nonsense"}'])
def test_a_peer_that_pings_but_never_reads_is_cut_off_at_the_outbox_limit(message: str) -> None:
    async def run() -> tuple[sig.Connection, _Transport, int]:
        clock = FakeClock()
        hub = sig.SignalHub(sig.SignalConfig(outbox_limit=50, max_bad_messages=10_000),
                            clock=clock, log=lambda e: None)
        conn, transport = _fake_peer(hub)
        await hub._on_text(conn, json.dumps({"type": "join", "v": 1, "room": ROOM_A}))
        most = 0
        for _ in range(2000):  # at the allowed rate: 20 a second
            clock.now += 0.05
            try:
                await hub._on_text(conn, message)
            except sig.SignalError as exc:  # as the read loop does
                hub._bad(conn, exc.code, exc.message)
            most = max(most, conn.outbox.qsize())
        return conn, transport, most

    conn, transport, most = asyncio.run(run())
    assert most <= 50
    assert transport.aborted and conn.close_code == sig.CLOSE_SLOW


# --------------------------------------------------------------------------------------------
# A fast sender and a slow reader (finding 9: the helper cut the reader off)


class _SlowSocket:
    """A socket whose peer reads only when the test lets it (`read`)."""

    closed = False
    close_code = None

    def __init__(self) -> None:
        self.sent: list[str] = []
        self.allowed = 0
        self.wake = asyncio.Event()

    async def send_str(self, text: str) -> None:
        while self.allowed == 0:
            self.wake.clear()
            await self.wake.wait()
        self.allowed -= 1
        self.sent.append(text)

    def read(self, n: int) -> None:
        self.allowed += n
        self.wake.set()


def test_a_fast_sender_is_refused_not_the_slow_reader_cut_off() -> None:
    async def run() -> None:
        clock = FakeClock()
        config = sig.SignalConfig()
        hub = sig.SignalHub(config, clock=clock, log=lambda e: None)
        slow = _SlowSocket()
        reader, reader_transport = _fake_peer(hub)
        reader.ws = slow  # type: ignore[assignment]
        reader.writer = asyncio.create_task(reader.write_loop())
        sender, _ = _fake_peer(hub, "192.0.2.2")
        await hub._on_text(reader, json.dumps({"type": "join", "v": 1, "room": ROOM_A}))
        await hub._on_text(sender, json.dumps({"type": "join", "v": 1, "room": ROOM_A}))
        assert reader.peer is not None and sender.peer is not None
        slow.read(2)  # welcome, peer-joined
        offer = json.dumps({"type": "offer", "to": reader.peer, "data": "x" * 16_000})
        assert len(offer) <= config.max_message_bytes
        for _ in range(600):  # 30 s of big offers at the allowed rate; the reader reads none
            clock.now += 0.05
            await hub._on_text(sender, offer)
        await asyncio.sleep(0)
        assert reader.close_code is None and not reader_transport.aborted
        queued = reader.outbox.qsize()
        assert queued <= config.pair_queue_messages
        relays = [item for item in list(reader.outbox._queue)  # type: ignore[attr-defined]
                  if isinstance(item, tuple) and item[1] == sender.peer]
        assert 0 < sum(len(text) for text, _ in relays) <= config.pair_queue_bytes
        sender_got = [json.loads(t) for t in _texts(sender)]
        busy = [m for m in sender_got if m.get("code") == "target-busy"]
        assert len(busy) == 1 and reader.peer in busy[0]["message"]  # told once per run
        assert sender.close_code is None and sender.bad == 0  # not counted against it
        # the reader catches up: relays flow again, and a new run is reported again
        slow.read(10_000)
        for _ in range(20):
            await asyncio.sleep(0)
        assert reader.outbox.qsize() == 0 and reader.queued_from == {}
        clock.now += 1
        await hub._on_text(sender, json.dumps({"type": "offer", "to": reader.peer,
                                               "data": "after"}))
        for _ in range(5):
            await asyncio.sleep(0)
        assert json.loads(slow.sent[-1]) == {"type": "offer", "from": sender.peer,
                                             "data": "after"}
        reader.writer.cancel()

    asyncio.run(run())


def test_many_senders_together_cannot_get_a_reader_cut_off() -> None:
    async def run() -> None:
        clock = FakeClock()
        config = sig.SignalConfig(outbox_limit=64, pair_queue_messages=16)
        hub = sig.SignalHub(config, clock=clock, log=lambda e: None)
        reader, transport = _fake_peer(hub)
        await hub._on_text(reader, json.dumps({"type": "join", "v": 1, "room": ROOM_A}))
        senders = []
        for n in range(8):
            conn, _ = _fake_peer(hub, f"192.0.2.{10 + n}")
            await hub._on_text(conn, json.dumps({"type": "join", "v": 1, "room": ROOM_A}))
            senders.append(conn)
        for _ in range(40):
            clock.now += 0.05
            for conn in senders:
                await hub._on_text(conn, json.dumps(
                    {"type": "candidate", "to": reader.peer, "data": "c"}))
        assert reader.close_code is None and not transport.aborted
        assert reader.queued_relays == config.outbox_limit // 2
        # the helper's own messages still fit: a ping is answered
        await hub._on_text(reader, '{"type":"ping"}')
        assert _texts(reader)[-1] == '{"type":"pong"}'

    asyncio.run(run())


# --------------------------------------------------------------------------------------------
# Joins per address (finding 6: one address's churn spent a room's join budget for everybody)


async def _join_from(h: Harness, address: str, room: str = ROOM_A) -> dict[str, Any]:
    ws = await h.client.ws_connect(h.hub.config.path, headers={
        "Origin": h.origin, "X-Forwarded-For": f"10.9.9.9, {address}"})
    await ws.send_str(json.dumps({"type": "join", "v": 1, "room": room}))
    reply = await receive_json(ws)
    await ws.close()
    return reply


def test_one_address_cannot_open_rooms_without_end_nor_hold_every_connection() -> None:
    # a made-up room id costs nothing: across all rooms, one address's joins have a budget of
    # their own, and it holds at most `address_connections` connections at once
    async def test(h: Harness) -> None:
        config = h.hub.config
        rooms = [f"{n:022d}" for n in range(config.address_all_join_burst + 5)]
        replies = [await _join_from(h, "198.51.100.8", room) for room in rooms]
        kinds = [r["type"] if r["type"] == "welcome" else r["code"] for r in replies]
        assert kinds == ["welcome"] * config.address_all_join_burst + ["room-busy"] * 5
        assert (await _join_from(h, "203.0.113.9", rooms[-1]))["type"] == "welcome"  # others
        h.clock.now += 1 / config.address_all_join_rate
        assert (await _join_from(h, "198.51.100.8", rooms[-1]))["type"] == "welcome"
        held = [await h.client.ws_connect(config.path, headers={
            "Origin": h.origin, "X-Forwarded-For": "10.9.9.9, 198.51.100.9"})
            for _ in range(config.address_connections)]
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await h.client.ws_connect(config.path, headers={
                "Origin": h.origin, "X-Forwarded-For": "10.9.9.9, 198.51.100.9"})
        assert refused.value.status == 503
        await held[0].close()
        again = None
        for _ in range(200):  # once the helper has seen the close, the place is free again
            try:
                again = await h.client.ws_connect(config.path, headers={
                    "Origin": h.origin, "X-Forwarded-For": "10.9.9.9, 198.51.100.9"})
                break
            except aiohttp.WSServerHandshakeError:
                await asyncio.sleep(0.05)
        assert again is not None
        for ws in [*held[1:], again]:
            await ws.close()

    run_hub(test, forwarded_for=True, address_all_join_burst=12, address_connections=5)


def test_one_address_churning_joins_cannot_spend_the_room_budget_for_others() -> None:
    async def test(h: Harness) -> None:
        config = h.hub.config
        replies = [await _join_from(h, "198.51.100.7") for _ in range(60)]
        kinds = [r["type"] if r["type"] == "welcome" else r["code"] for r in replies]
        assert kinds == ["welcome"] * config.address_join_burst + ["room-busy"] * (
            60 - config.address_join_burst)
        # the refused joins cost the room nothing: the rest of its budget is there for others
        others = [await _join_from(h, f"203.0.113.{n}")
                  for n in range(config.join_burst - config.address_join_burst)]
        assert all(r["type"] == "welcome" for r in others)
        # the room's own budget is still the backstop
        assert (await _join_from(h, "203.0.113.200"))["code"] == "room-busy"
        # another room is another budget, for the same address
        assert (await _join_from(h, "198.51.100.7", ROOM_B))["type"] == "welcome"
        # an address's budget refills (one join every 5 s) and is forgotten once full
        h.clock.now += 1 / config.address_join_rate
        assert (await _join_from(h, "198.51.100.7", ROOM_B))["type"] == "welcome"
        h.clock.now += 1000
        await h.hub.sweep()
        assert h.hub._address_joins == {}

    run_hub(test, forwarded_for=True)


def test_forwarded_for_is_ignored_unless_the_helper_is_told_to_trust_it() -> None:
    async def test(h: Harness) -> None:
        burst = h.hub.config.address_join_burst
        replies = [await _join_from(h, f"203.0.113.{n}") for n in range(burst + 1)]
        assert [r["type"] for r in replies] == ["welcome"] * burst + ["error"]
        assert replies[-1]["code"] == "room-busy"

    run_hub(test)


@pytest.mark.parametrize(
    ("remote", "forwarded", "trusted", "address"),
    [
        ("192.0.2.5", None, False, "192.0.2.5"),
        ("192.0.2.5", "198.51.100.1", False, "192.0.2.5"),
        ("127.0.0.1", "198.51.100.1, 203.0.113.4", True, "203.0.113.4"),
        ("127.0.0.1", None, True, "127.0.0.1"),
        ("2001:db8:1:2:3:4:5:6", None, False, "2001:db8:1:2::/64"),
        ("2001:db8:1:2:ffff::9", None, False, "2001:db8:1:2::/64"),
        ("::ffff:192.0.2.9", None, False, "192.0.2.9"),
    ],
)
def test_client_address(remote: str, forwarded: str | None, trusted: bool, address: str) -> None:
    headers = {} if forwarded is None else {"X-Forwarded-For": forwarded}
    request = SimpleNamespace(remote=remote, headers=headers)
    config = sig.SignalConfig(forwarded_for=trusted)
    assert sig.client_address(request, config) == address  # type: ignore[arg-type]


def test_limit_settings_are_checked() -> None:
    for name in ("pair_queue_bytes", "pair_queue_messages", "address_join_burst"):
        with pytest.raises(ValueError, match=name):
            sig.SignalConfig(**{name: 0})
    with pytest.raises(ValueError, match="address_join_rate"):
        sig.SignalConfig(address_join_rate=0)



def test_forwarded_for_option() -> None:
    import argparse

    parser = argparse.ArgumentParser()
    sig.add_arguments(parser)
    assert not sig.config_from_args(parser.parse_args([]), env={}).forwarded_for
    assert sig.config_from_args(parser.parse_args(["--forwarded-for"]), env={}).forwarded_for


# --------------------------------------------------------------------------------------------
# Peers per address in a room (net review, finding 5: one address took all 16 places)


async def _open_from(h: Harness, address: str, hello: dict[str, Any] | None = None,
                     room: str = ROOM_A) -> tuple[Any, dict[str, Any]]:
    """A connection from `address` (through the trusted X-Forwarded-For) that joined or was
    refused: the socket, left open, and the helper's reply."""
    ws = await h.client.ws_connect(h.hub.config.path, headers={
        "Origin": h.origin, "X-Forwarded-For": address})
    message: dict[str, Any] = {"type": "join", "v": 1, "room": room}
    if hello is not None:
        message["hello"] = hello
    await ws.send_str(json.dumps(message))
    return ws, await receive_json(ws)


def test_one_address_cannot_fill_a_room() -> None:
    # /tmp/review-net/sig_fill.py: a host and 15 more peers "claiming to be host" from one
    # address, then the real guest from another: it was told room-full
    async def test(h: Harness) -> None:
        limit = h.hub.config.address_room_peers
        squat = [await _open_from(h, "198.51.100.7", {"role": "host"}) for _ in range(15)]
        kinds = [reply["type"] if reply["type"] == "welcome" else reply["code"]
                 for _ws, reply in squat]
        assert kinds == ["welcome"] * limit + ["address-full"] * (15 - limit)
        for ws, reply in squat[limit:]:
            assert reply["message"] == f"your address already has {limit} peers in this room"
            assert await closed_with(ws) == sig.CLOSE_ADDRESS_FULL
        friend, reply = await _open_from(h, "203.0.113.5", {"role": "guest"})
        assert reply["type"] == "welcome" and len(reply["peers"]) == limit
        # the refused joins cost the address's join budget nothing
        assert h.hub._address_joins[("198.51.100.7", ROOM_A)].tokens == \
            h.hub.config.address_join_burst - limit
        # another room is another share; a peer that leaves gives its place back
        other, reply = await _open_from(h, "198.51.100.7", room=ROOM_B)
        assert reply["type"] == "welcome"
        await squat[0][0].close()
        again, reply = await _open_from(h, "198.51.100.7")
        assert reply["type"] == "welcome"
        for ws in [again, other, friend] + [ws for ws, _reply in squat]:
            await ws.close()
        await asyncio.sleep(0)
        for _ in range(100):  # the helper's side of each close runs on its own task
            if not h.hub._address_peers:
                break
            await asyncio.sleep(0.01)
        assert h.hub._address_peers == {}
        assert [e["address"] for e in h.events_of("address-full")] == \
            ["198.51.100.7"] * (15 - limit)

    run_hub(test, forwarded_for=True)


def test_the_peers_per_address_limit_is_a_setting() -> None:
    assert sig.SignalConfig().address_room_peers == 6 < sig.SignalConfig().room_cap
    with pytest.raises(ValueError, match="address_room_peers"):
        sig.SignalConfig(address_room_peers=0)

    async def test(h: Harness) -> None:
        first, reply = await _open_from(h, "198.51.100.7")
        assert reply["type"] == "welcome"
        second, reply = await _open_from(h, "198.51.100.7")
        assert reply["code"] == "address-full"
        await first.close()
        await second.close()

    run_hub(test, forwarded_for=True, address_room_peers=1)


# --------------------------------------------------------------------------------------------
# The idle timeout (net review, finding 8: a huge one made every page ping without pause)


def test_an_idle_timeout_over_a_day_is_refused_with_a_clear_error() -> None:
    import argparse

    assert sig.SignalConfig(idle_timeout=sig.MAX_IDLE_TIMEOUT).idle_timeout == 86_400
    for value in (86_400.5, 1e9, 2.0**31):
        with pytest.raises(ValueError, match="idle_timeout must be at most 86400 seconds"):
            sig.SignalConfig(idle_timeout=value)
    parser = argparse.ArgumentParser()
    sig.add_arguments(parser)
    with pytest.raises(ValueError, match="idle_timeout must be at most 86400 seconds"):
        sig.config_from_args(parser.parse_args(["--idle-timeout", "5000000"]), env={})
    assert sig.config_from_args(parser.parse_args(["--idle-timeout", "3600"]),
                                env={}).idle_timeout == 3600


# --------------------------------------------------------------------------------------------
# Integers JavaScript cannot hold exactly (net review, finding 10: a 400-digit integer was
# relayed unchanged, and the page's JSON.parse read Infinity)


@pytest.mark.parametrize("number", ["1" + "0" * 400, "-" + "9" * 309, str(2**53),
                                    str(-(2**53)), "12345678901234567890", "9" * 5000])
def test_integers_beyond_javascripts_exact_range_are_refused_anywhere(number: str) -> None:
    async def test(h: Harness) -> None:
        a = await h.join(ROOM_A, {"role": "host"})
        b = await h.join(ROOM_A)
        await a.receive()  # peer-joined
        await b.send('{"type":"offer","to":"' + a.id + '","data":{"n":' + number + '}}')
        error = await b.receive()
        assert error["code"] == "bad-json", error
        assert "2^53 - 1" in error["message"] or len(number) > 4300  # Python's own limit
        await b.send('{"type":"candidate","to":"' + a.id + '","data":[[' + number + ']]}')
        assert (await b.receive())["code"] == "bad-json"
        ws = await h.connect()
        await ws.send_str('{"type":"join","v":1,"room":"' + ROOM_A
                          + '","hello":{"role":' + number + '}}')
        assert (await receive_json(ws))["code"] == "bad-json"
        await ws.send_str('{"type":"join","v":' + number + ',"room":"' + ROOM_A + '"}')
        assert (await receive_json(ws))["code"] == "bad-json"
        await a.nothing_pending()  # nothing was relayed

    run_hub(test)


def test_what_the_pages_send_through_the_helper_passes_unchanged() -> None:
    # An offer and a candidate as Chromium's toJSON() gives them (the page relays exactly
    # those): the SDP's 19-digit session id is text, the only numbers are small indexes.
    offer = {"type": "offer", "sdp": "v=0\r\no=- 4611731400430051336 2 IN IP4 127.0.0.1\r\n"}
    candidate = {"candidate": "candidate:842163049 1 udp 1677729535 198.51.100.7 50012 typ "
                              "srflx raddr 0.0.0.0 rport 0 generation 0 ufrag Xq1b",
                 "sdpMid": "0", "sdpMLineIndex": 0, "usernameFragment": "Xq1b"}
    edges = [2**53 - 1, -(2**53 - 1), 0, -0, 1e308, 1.5e-300]

    async def test(h: Harness) -> None:
        a = await h.join(ROOM_A, {"role": "host"})
        b = await h.join(ROOM_A, {"role": "guest"})
        await a.receive()  # peer-joined
        for kind, data in (("offer", offer), ("candidate", candidate), ("answer", edges)):
            await b.send({"type": kind, "to": a.id, "data": data})
            relayed = await a.receive()
            assert relayed == {"type": kind, "from": b.id, "data": data}
            parse_server_message(json.dumps(relayed))

    run_hub(test)


# --------------------------------------------------------------------------------------------
# TURN credentials per address (net review, finding 6: a client faking the allowed Origin got
# fresh TURN credentials for every made-up room it joined)


def test_one_address_gets_a_bounded_number_of_turn_credentials() -> None:
    turn = {"turn_urls": ("turn:turn.example.org:3478",), "turn_secret": "s3cret",
            "ice_servers": ({"urls": "stun:stun.example.org:3478"},)}
    rooms = ["r" * 21 + chr(ord("a") + n) for n in range(26)]

    def has_turn(welcome: dict[str, Any]) -> bool:
        return any("username" in server for server in welcome["iceServers"])

    async def test(h: Harness) -> None:
        burst = h.hub.config.turn_address_burst
        welcomes = []
        for room in rooms[:burst + 5]:  # a made-up room each time
            ws, reply = await _open_from(h, "198.51.100.7", room=room)
            welcomes.append(reply)
            await ws.close()
        assert [has_turn(w) for w in welcomes] == [True] * burst + [False] * 5
        # the STUN servers still come, so the page connects wherever a direct path works
        assert welcomes[-1]["iceServers"] == [{"urls": "stun:stun.example.org:3478"}]
        assert len(h.events_of("turn-withheld")) == 5
        # another address has its own budget
        ws, reply = await _open_from(h, "203.0.113.5", room=rooms[0])
        assert has_turn(reply)
        await ws.close()
        # one more a minute
        h.clock.now += 60
        ws, reply = await _open_from(h, "198.51.100.7", room=rooms[-1])
        assert has_turn(reply)
        await ws.close()
        ws, reply = await _open_from(h, "198.51.100.7", room=rooms[-2])
        assert not has_turn(reply)
        await ws.close()
        # forgotten once full again
        h.clock.now += 3600
        await h.hub.sweep()
        assert h.hub._address_turn == {}

    run_hub(test, forwarded_for=True, **turn)


def test_turn_budget_settings_are_checked() -> None:
    with pytest.raises(ValueError, match="turn_address_burst"):
        sig.SignalConfig(turn_address_burst=0)
    with pytest.raises(ValueError, match="turn_address_rate"):
        sig.SignalConfig(turn_address_rate=float("inf"))


def test_peers_per_address_option() -> None:
    import argparse

    parser = argparse.ArgumentParser()
    sig.add_arguments(parser)
    assert sig.config_from_args(parser.parse_args([]), env={}).address_room_peers == 6
    config = sig.config_from_args(parser.parse_args(["--peers-per-address", "16"]), env={})
    assert config.address_room_peers == 16
    with pytest.raises(ValueError, match="address_room_peers must be at least 1"):
        sig.config_from_args(parser.parse_args(["--peers-per-address", "0"]), env={})
