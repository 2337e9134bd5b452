"""The signalling helper (server/signal.py) through aiohttp's test client.

Time is a fake clock the tests move by hand, and expiry runs by calling `hub.sweep()`, so
nothing here sleeps for seconds. "Nothing else arrived" is shown by order, not by waiting: the
helper answers a peer's ping after everything queued for that peer before it.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import json
import logging
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import WSMsgType, web
from aiohttp.test_utils import TestClient, TestServer

from server import signal as sig
from server.app import default_root, make_app

ROOM_A = "A" * 21 + "a"  # 22 characters: the shortest id accepted
ROOM_B = "b" * 22
ROOM_C = "Cc-_" * 6


class FakeClock:
    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


class Harness:
    """A hub on a test server, its fake clock and the events it logged."""

    def __init__(self, client: TestClient, hub: sig.SignalHub, clock: FakeClock,
                 events: list[dict[str, Any]]) -> None:
        self.client, self.hub, self.clock, self.events = client, hub, clock, events

    @property
    def origin(self) -> str:
        return str(self.client.make_url("/")).rstrip("/")

    async def connect(self, origin: str | None = "same") -> aiohttp.ClientWebSocketResponse:
        headers = {} if origin is None else {"Origin": self.origin if origin == "same" else origin}
        return await self.client.ws_connect(self.hub.config.path, headers=headers,
                                            autoping=True)

    async def join(self, room: str, hello: dict[str, Any] | None = None) -> Peer:
        ws = await self.connect()
        message: dict[str, Any] = {"type": "join", "v": 1, "room": room}
        if hello is not None:
            message["hello"] = hello
        await ws.send_str(json.dumps(message))
        welcome = await receive_json(ws)
        assert welcome["type"] == "welcome", welcome
        return Peer(ws, welcome["peer"], welcome)

    def events_of(self, kind: str) -> list[dict[str, Any]]:
        return [e for e in self.events if e["event"] == kind]


class Peer:
    def __init__(self, ws: aiohttp.ClientWebSocketResponse, peer: str,
                 welcome: dict[str, Any]) -> None:
        self.ws, self.id, self.welcome = ws, peer, welcome

    async def send(self, message: Any) -> None:
        await self.ws.send_str(message if isinstance(message, str) else json.dumps(message))

    async def receive(self) -> dict[str, Any]:
        return await receive_json(self.ws)

    async def nothing_pending(self) -> None:
        """Whatever was queued for this peer before now has been read: the next is our pong."""
        await self.send({"type": "ping"})
        assert await self.receive() == {"type": "pong"}


async def receive_json(ws: aiohttp.ClientWebSocketResponse) -> dict[str, Any]:
    msg = await ws.receive(timeout=10)  # only a guard against hanging, never reached
    assert msg.type is WSMsgType.TEXT, (msg.type, msg.data, ws.close_code)
    return json.loads(msg.data)


async def closed_with(ws: aiohttp.ClientWebSocketResponse) -> int | None:
    """Read until the helper closes the connection; its close code."""
    while True:
        msg = await ws.receive(timeout=10)
        if msg.type in (WSMsgType.CLOSE, WSMsgType.CLOSED, WSMsgType.CLOSING):
            return ws.close_code
        assert msg.type is WSMsgType.TEXT, msg


def run_hub(
    test: Callable[[Harness], Awaitable[None]],
    app_factory: Callable[[sig.SignalHub], web.Application] | None = None,
    **settings: Any,
) -> list[dict[str, Any]]:
    """Run `test` against a fresh hub; returns the logged events."""
    events: list[dict[str, Any]] = []
    clock = FakeClock()

    async def run() -> None:
        hub = sig.SignalHub(sig.SignalConfig(**settings), clock=clock, wall_clock=lambda: 1.7e9,
                            log=events.append)
        app = app_factory(hub) if app_factory else hub.make_app()
        async with TestClient(TestServer(app)) as client:
            await test(Harness(client, hub, clock, events))

    # A thread of its own, as in test_server.py: the browser tests keep a loop in the main one.
    with ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(asyncio.run, run()).result()
    return events


# --------------------------------------------------------------------------------------------
# Joining, relaying, leaving


def test_join_welcome_and_join_leave_notifications() -> None:
    async def test(h: Harness) -> None:
        first = await h.join(ROOM_A, {"role": "host"})
        assert re.fullmatch(sig.PEER_ID_PATTERN, first.id)
        assert first.welcome == {
            "type": "welcome", "v": 1, "peer": first.id, "peers": [], "iceServers": [],
            "limits": {"maxMessageBytes": 16384, "roomCap": 16, "idleTimeout": 600.0},
        }
        second = await h.join(ROOM_A)
        assert second.welcome["peers"] == [{"peer": first.id,
                                            "hello": {"role": "host"}}]
        assert await first.receive() == {"type": "peer-joined", "peer": second.id, "hello": {}}
        third = await h.join(ROOM_A, {"role": "guest"})
        assert [p["peer"] for p in third.welcome["peers"]] == [first.id, second.id]
        assert len({first.id, second.id, third.id}) == 3
        for peer in (first, second):
            assert await peer.receive() == {"type": "peer-joined", "peer": third.id,
                                            "hello": {"role": "guest"}}
        await second.ws.close()
        for peer in (first, third):
            assert await peer.receive() == {"type": "peer-left", "peer": second.id}
        assert h.hub.store.peers(ROOM_A) == [first.id, third.id]
        await first.ws.close()
        await third.ws.close()
        await third.ws.receive()  # the close handshake is done
        for _ in range(100):  # the handler runs its clean-up after the client's side is closed
            if not h.hub.store.room_count:
                break
            await asyncio.sleep(0.01)
        assert h.hub.store.room_count == 0

    events = run_hub(test)
    assert [e["peers"] for e in events if e["event"] == "join"] == [1, 2, 3]
    assert sorted(e["peers"] for e in events if e["event"] == "leave") == [0, 1, 2]


def test_offer_answer_and_candidates_are_relayed_unchanged() -> None:
    async def test(h: Harness) -> None:
        host = await h.join(ROOM_A)
        guest = await h.join(ROOM_A)
        await host.receive()  # peer-joined
        offer = {"type": "offer", "sdp": "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\n" + "a=x\r\n" * 50}
        await host.send({"type": "offer", "to": guest.id, "data": offer})
        assert await guest.receive() == {"type": "offer", "from": host.id, "data": offer}
        await guest.send({"type": "answer", "to": host.id, "data": {"type": "answer", "sdp": "y"}})
        assert await host.receive() == {"type": "answer", "from": guest.id,
                                        "data": {"type": "answer", "sdp": "y"}}
        candidates: list[Any] = [
            {"candidate": "candidate:1 1 udp 2122260223 192.168.1.2 54321 typ host",
             "sdpMid": "0", "sdpMLineIndex": 0, "usernameFragment": "abcd"},
            None,  # end of candidates
            ["any", {"json": [1, 2.5, True, None, "\u00e9\U0001f3b2"]}],
        ]
        for data in candidates:
            await guest.send({"type": "candidate", "to": host.id, "data": data})
        for data in candidates:
            assert await host.receive() == {"type": "candidate", "from": guest.id, "data": data}
        await host.nothing_pending()
        await guest.nothing_pending()

    events = run_hub(test)
    assert {e["relayed"] for e in events if e["event"] == "leave"} == {1, 4}  # offer; answer + 3


def test_rooms_are_isolated_and_peers_of_other_rooms_cannot_be_addressed() -> None:
    async def test(h: Harness) -> None:
        a1 = await h.join(ROOM_A)
        a2 = await h.join(ROOM_A)
        await a1.receive()  # a2 joined
        b1 = await h.join(ROOM_B)
        assert b1.welcome["peers"] == []  # nobody from room A is listed
        await b1.send({"type": "offer", "to": a1.id, "data": {"sdp": "x"}})
        assert await b1.receive() == {
            "type": "error", "code": "unknown-peer",
            "message": f"offer: no peer {a1.id} in this room",
        }
        await a1.send({"type": "candidate", "to": b1.id, "data": None})
        assert (await a1.receive())["code"] == "unknown-peer"
        # Neither room heard of the other: no join notice, no relayed message.
        await a1.nothing_pending()
        await a2.nothing_pending()
        await b1.nothing_pending()
        await a2.send({"type": "offer", "to": a1.id, "data": 1})
        assert await a1.receive() == {"type": "offer", "from": a2.id, "data": 1}
        await b1.nothing_pending()

    run_hub(test)


def test_peer_cap_refuses_the_extra_peer_and_frees_its_place_on_leave() -> None:
    async def test(h: Harness) -> None:
        peers = [await h.join(ROOM_A) for _ in range(3)]
        extra = await h.connect()
        await extra.send_str(json.dumps({"type": "join", "v": 1, "room": ROOM_A}))
        assert await receive_json(extra) == {
            "type": "error", "code": "room-full", "message": "the room already has 3 peers"}
        assert await closed_with(extra) == sig.CLOSE_ROOM_FULL
        assert len(h.hub.store.peers(ROOM_A)) == 3
        other = await h.join(ROOM_B)  # the cap is per room
        assert other.welcome["peers"] == []
        await peers[0].ws.close()
        while (await peers[1].receive())["type"] != "peer-left":
            pass
        late = await h.join(ROOM_A)
        assert [p["peer"] for p in late.welcome["peers"]] == [peers[1].id, peers[2].id]

    events = run_hub(test, room_cap=3)
    assert len([e for e in events if e["event"] == "room-full"]) == 1


def test_connections_beyond_max_peers_are_refused_before_the_upgrade() -> None:
    async def test(h: Harness) -> None:
        await h.join(ROOM_A)
        await h.connect()
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await h.connect()
        assert refused.value.status == 503

    events = run_hub(test, max_peers=2)
    assert [e["status"] for e in events if e["event"] == "refused"] == [503]


# --------------------------------------------------------------------------------------------
# Limits


def test_a_message_of_the_size_limit_passes_and_a_bigger_one_closes_with_1009() -> None:
    limit = 16 * 1024

    def padded(to: str, size: int) -> str:
        text = json.dumps({"type": "offer", "to": to, "data": ""})
        return text.replace('"data": ""', '"data": "' + "x" * (size - len(text)) + '"')

    async def test(h: Harness) -> None:
        sender = await h.join(ROOM_A)
        receiver = await h.join(ROOM_A)
        await sender.receive()
        exact = padded(receiver.id, limit)
        assert len(exact.encode()) == limit
        await sender.send(exact)
        relayed = await receiver.receive()
        assert relayed["from"] == sender.id and len(relayed["data"]) > limit - 100
        await sender.send(padded(receiver.id, limit + 1))
        assert await closed_with(sender.ws) == 1009
        assert await receiver.receive() == {"type": "peer-left", "peer": sender.id}
        await receiver.nothing_pending()  # the big one was not relayed

    events = run_hub(test)
    assert [e["code"] for e in events if e["event"] == "bad-frame"] == [1009]


def test_text_that_is_not_utf8_closes_with_1007() -> None:
    async def test(h: Harness) -> None:
        sender = await h.join(ROOM_A)
        other = await h.join(ROOM_A)
        await sender.receive()
        await sender.ws.send_frame(b'{"type": "ping", "x": "\xff\xfe"}', WSMsgType.TEXT)
        assert await closed_with(sender.ws) == 1007
        assert await other.receive() == {"type": "peer-left", "peer": sender.id}

    events = run_hub(test)
    assert [e["code"] for e in events if e["event"] == "bad-frame"] == [1007]


def test_rate_limit_drops_messages_over_the_burst_until_tokens_refill() -> None:
    async def test(h: Harness) -> None:
        peer = await h.join(ROOM_A)  # the join took one of the 5 tokens
        for _ in range(4):
            await peer.send({"type": "ping"})
        for _ in range(4):
            assert await peer.receive() == {"type": "pong"}
        for _ in range(3):  # dropped; reported once for the run
            await peer.send({"type": "ping"})
        assert await peer.receive() == {
            "type": "error", "code": "rate-limited",
            "message": "too many messages: this one was dropped"}
        h.clock.now += 1.0  # one token back (1 per second)
        await peer.send({"type": "ping"})
        assert await peer.receive() == {"type": "pong"}  # the two other drops said nothing
        await peer.send({"type": "ping"})  # no token again: a new run, a new error
        assert (await peer.receive())["code"] == "rate-limited"
        h.clock.now += 2.0
        await peer.nothing_pending()

    events = run_hub(test, rate_burst=5, rate_per_second=1.0)
    assert [e["code"] for e in events if e["event"] == "bad-message"] == ["rate-limited"] * 2


def test_rate_limits_are_per_peer() -> None:
    async def test(h: Harness) -> None:
        noisy = await h.join(ROOM_A)
        quiet = await h.join(ROOM_A)
        await noisy.receive()
        for _ in range(3):
            await noisy.send({"type": "ping"})
        assert [(await noisy.receive())["type"] for _ in range(3)] == ["pong", "pong", "error"]
        await quiet.send({"type": "offer", "to": noisy.id, "data": "still fine"})
        assert await noisy.receive() == {"type": "offer", "from": quiet.id, "data": "still fine"}

    run_hub(test, rate_burst=3, rate_per_second=0.001)


def test_a_flood_closes_the_connection() -> None:
    async def test(h: Harness) -> None:
        peer = await h.join(ROOM_A)
        for _ in range(30):
            await peer.send({"type": "ping"})
        assert await closed_with(peer.ws) == sig.CLOSE_MISBEHAVING

    events = run_hub(test, rate_burst=2, rate_per_second=0.001, max_bad_messages=10)
    assert [e["code"] for e in events if e["event"] == "close"] == [sig.CLOSE_MISBEHAVING]


# --------------------------------------------------------------------------------------------
# Bad input: an error message each, no traceback, the connection stays usable

BAD_MESSAGES: list[tuple[str, str]] = [
    ("{", "bad-json"),
    ("", "bad-json"),
    ("[" * 8000 + "]" * 8000, "bad-json"),  # deeper than json's recursion limit
    ('{"type": "ping", "n": NaN}', "bad-json"),
    ('{"type": "offer", "to": "000000000000", "data": ' + "9" * 5000 + "}", "bad-json"),
    ("[]", "bad-schema"),
    ('"ping"', "bad-schema"),
    ("null", "bad-schema"),
    ("{}", "bad-schema"),
    ('{"type": 3}', "bad-schema"),
    ('{"type": "chat", "text": "hi"}', "unknown-type"),
    ('{"type": "move", "token": 1}', "unknown-type"),
    ('{"type": "welcome"}', "unknown-type"),
    ('{"type": "ping", "extra": 1}', "bad-schema"),
    ('{"type": "offer", "to": "000000000000"}', "bad-schema"),
    ('{"type": "offer", "data": {}}', "bad-schema"),
    ('{"type": "offer", "to": 5, "data": {}}', "bad-schema"),
    ('{"type": "offer", "to": "ZZZ", "data": {}}', "bad-schema"),
    ('{"type": "answer", "to": "000000000000", "data": {}, "from": "000000000001"}',
     "bad-schema"),
    ('{"type": "join", "v": 1, "room": "short"}', "bad-room"),
    ('{"type": "join", "v": 1, "room": "' + "a" * 65 + '"}', "bad-room"),
    ('{"type": "join", "v": 1, "room": "' + "a" * 21 + '!"}', "bad-room"),
    ('{"type": "join", "v": "1", "room": "' + ROOM_B + '"}', "bad-schema"),
    ('{"type": "join", "v": true, "room": "' + ROOM_B + '"}', "bad-schema"),
    ('{"type": "join", "v": 1, "room": "' + ROOM_B + '", "hello": [1]}', "bad-schema"),
    ('{"type": "join", "v": 1, "room": "' + ROOM_B + '", "hello": {"x": "'
     + "y" * 2000 + '"}}', "bad-schema"),
]


@pytest.mark.parametrize("joined", [False, True], ids=["before-join", "after-join"])
def test_bad_messages_get_an_error_and_change_nothing(
    joined: bool, caplog: pytest.LogCaptureFixture
) -> None:
    async def test(h: Harness) -> None:
        other = await h.join(ROOM_A)
        if joined:
            peer = await h.join(ROOM_A)
            await other.receive()
            ws = peer.ws
        else:
            ws = await h.connect()
        for text, code in BAD_MESSAGES:
            await ws.send_str(text)
            reply = await receive_json(ws)
            assert reply["type"] == "error" and reply["code"] == code, (text[:60], reply)
            assert isinstance(reply["message"], str) and len(reply["message"]) < 300
        await ws.send_bytes(b'{"type": "ping"}')
        assert (await receive_json(ws))["code"] == "bad-json"
        # Nothing reached the room, nothing changed in it, and the connection still works.
        await other.nothing_pending()
        assert h.hub.store.peers(ROOM_A) == [other.id] + ([peer.id] if joined else [])
        assert h.hub.store.peers(ROOM_B) == []
        if joined:
            await peer.nothing_pending()
        else:
            await ws.send_str(json.dumps({"type": "join", "v": 1, "room": ROOM_B}))
            assert (await receive_json(ws))["type"] == "welcome"

    caplog.set_level(logging.DEBUG)
    events = run_hub(test, max_bad_messages=100, rate_burst=200)
    assert len([e for e in events if e["event"] == "bad-message"]) == len(BAD_MESSAGES) + 1
    assert not [e for e in events if e["event"] == "internal-error"]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]


def test_order_errors_not_joined_already_joined_and_wrong_version() -> None:
    async def test(h: Harness) -> None:
        ws = await h.connect()
        for kind in ("ping", "offer"):
            message: dict[str, Any] = {"type": kind}
            if kind == "offer":
                message.update(to="0" * 12, data={})
            await ws.send_str(json.dumps(message))
            assert await receive_json(ws) == {"type": "error", "code": "not-joined",
                                              "message": f"{kind}: join a room first"}
        peer = await h.join(ROOM_A)
        await peer.send({"type": "join", "v": 1, "room": ROOM_B})
        assert (await peer.receive())["code"] == "already-joined"
        assert h.hub.store.peers(ROOM_B) == []
        await peer.nothing_pending()
        future = await h.connect()
        await future.send_str(json.dumps({"type": "join", "v": 2, "room": ROOM_A}))
        assert await receive_json(future) == {"type": "error", "code": "version",
                                              "message": "this helper speaks version 1"}
        assert await closed_with(future) == sig.CLOSE_VERSION
        assert h.hub.store.peers(ROOM_A) == [peer.id]

    run_hub(test)


def test_too_many_bad_messages_close_the_connection() -> None:
    async def test(h: Harness) -> None:
        ws = await h.connect()
        for _ in range(5):
            await ws.send_str("nope")
        for _ in range(5):
            assert (await receive_json(ws))["code"] == "bad-json"
        assert await closed_with(ws) == sig.CLOSE_MISBEHAVING

    run_hub(test, max_bad_messages=5)


# --------------------------------------------------------------------------------------------
# Expiry (the fake clock, and sweep() called by hand)


def test_idle_rooms_expire_and_active_ones_stay() -> None:
    async def test(h: Harness) -> None:
        quiet = [await h.join(ROOM_A), await h.join(ROOM_A)]
        await quiet[0].receive()
        busy = await h.join(ROOM_B)
        h.clock.now += 599
        await h.hub.sweep()
        assert len(h.hub.store.peers(ROOM_A)) == 2  # 599 s of silence: still open
        await busy.send({"type": "ping"})  # activity in room B at t+599
        assert await busy.receive() == {"type": "pong"}
        h.clock.now += 1  # room A: 600 s without a message; room B: 1 s
        await h.hub.sweep()
        for peer in quiet:
            assert await closed_with(peer.ws) == sig.CLOSE_IDLE
        await busy.nothing_pending()  # a ping is activity too: room B is busy at t+600
        assert h.hub.store.peers(ROOM_A) == [] and h.hub.store.peers(ROOM_B) == [busy.id]
        h.clock.now += 599
        await h.hub.sweep()
        assert h.hub.store.peers(ROOM_B) == [busy.id]
        h.clock.now += 1
        await h.hub.sweep()
        assert await closed_with(busy.ws) == sig.CLOSE_IDLE
        assert h.hub.store.room_count == 0
        # The link still works: joining again opens the room afresh.
        again = await h.join(ROOM_A)
        assert again.welcome["peers"] == []

    events = run_hub(test)
    idle = [e for e in events if e["event"] == "room-idle"]
    assert [e["peers"] for e in idle] == [2, 1]
    assert not [e for e in events if e["event"] == "leave" and e["peers"]]  # no peer-left


def test_a_connection_that_never_joins_is_closed_after_the_join_timeout() -> None:
    async def test(h: Harness) -> None:
        lurker = await h.connect()
        h.clock.now += 9.5
        member = await h.join(ROOM_A)
        await h.hub.sweep()
        await member.nothing_pending()
        h.clock.now += 0.5
        await h.hub.sweep()
        assert await closed_with(lurker) == sig.CLOSE_JOIN_TIMEOUT
        await member.nothing_pending()

    run_hub(test)


# --------------------------------------------------------------------------------------------
# Origins


@pytest.mark.parametrize(
    ("settings", "origin", "accepted"),
    [
        ({}, "same", True),
        ({}, "http://evil.example", False),
        ({}, None, False),
        ({}, "null", False),
        ({}, "file://", False),
        ({}, "http://127.0.0.1", False),  # same host, other port: another origin
        ({"allowed_origins": {"https://Ludo.Example"}}, "https://ludo.example", True),
        ({"allowed_origins": {"https://ludo.example"}}, "http://ludo.example", False),
        ({"allowed_origins": {"https://ludo.example"}}, "https://ludo.example.evil", False),
        ({"allowed_origins": {"https://ludo.example"}, "same_origin": False}, "same", False),
        ({"allowed_origins": {"*"}}, "http://anything.example", True),
        ({"allowed_origins": {"*"}}, None, True),
    ],
)
def test_origin_check(settings: dict[str, Any], origin: str | None, accepted: bool) -> None:
    async def test(h: Harness) -> None:
        if accepted:
            ws = await h.connect(origin)
            await ws.send_str(json.dumps({"type": "join", "v": 1, "room": ROOM_A}))
            assert (await receive_json(ws))["type"] == "welcome"
        else:
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                await h.connect(origin)
            assert refused.value.status == 403

    events = run_hub(test, **settings)
    assert bool([e for e in events if e["event"] == "refused"]) is not accepted


def test_origin_compares_host_and_port_with_the_host_header() -> None:
    config = sig.SignalConfig()
    assert sig.origin_allowed("https://ludo.example", "ludo.example", config)  # TLS at a proxy
    assert sig.origin_allowed("http://127.0.0.1:8000", "127.0.0.1:8000", config)
    assert not sig.origin_allowed("http://127.0.0.1:8001", "127.0.0.1:8000", config)
    assert not sig.origin_allowed("http://ludo.example", None, config)
    assert not sig.origin_allowed("http://user@ludo.example", "ludo.example", config)
    with pytest.raises(ValueError, match="not an origin"):
        sig.SignalConfig(allowed_origins=frozenset({"ludo.example"}))
    with pytest.raises(ValueError, match="not an origin"):
        sig.SignalConfig(allowed_origins=frozenset({"https://ludo.example/path"}))


def test_plain_http_requests_get_426() -> None:
    async def test(h: Harness) -> None:
        response = await h.client.get("/signal", headers={"Origin": h.origin})
        assert response.status == 426
        assert "WebSocket" in await response.text()
        assert (await h.client.get("/")).status == 404  # signal-only: no files

    run_hub(test)


# --------------------------------------------------------------------------------------------
# ICE servers and TURN credentials


def test_welcome_hands_out_ice_servers_and_turn_rest_credentials() -> None:
    stun = {"urls": "stun:stun.example.org:3478"}

    async def test(h: Harness) -> None:
        peer = await h.join(ROOM_A)
        servers = peer.welcome["iceServers"]
        assert servers[0] == stun
        turn = servers[1]
        assert turn["urls"] == ["turn:turn.example.org:3478?transport=udp"]
        # coturn's use-auth-secret: username "expiry:user", credential base64(HMAC-SHA1).
        assert turn["username"] == f"{int(1.7e9) + 3600}:{peer.id}"
        expected = hmac.new(b"s3cret", turn["username"].encode(), hashlib.sha1).digest()
        assert base64.b64decode(turn["credential"]) == expected

    run_hub(test, ice_servers=(stun,), turn_urls=("turn:turn.example.org:3478?transport=udp",),
            turn_secret="s3cret", turn_ttl=3600)


def _free_udp_port() -> int:
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.skipif(not (shutil.which("turnserver") and shutil.which("turnutils_uclient")),
                    reason="needs coturn (Debian package coturn)")
def test_real_coturn_accepts_the_credentials_and_refuses_forged_or_expired_ones() -> None:
    import time

    port = _free_udp_port()
    server = subprocess.Popen(
        ["turnserver", "-n", "--listening-ip=127.0.0.1", "--relay-ip=127.0.0.1",
         f"--listening-port={port}", "--use-auth-secret", "--static-auth-secret=s3cret",
         "--realm=ludo.test", "--no-tls", "--no-dtls", "--allow-loopback-peers", "--no-cli",
         "--log-file=stdout", "--simple-log", "--pidfile=/dev/null"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:

        def allocate(username: str, password: str) -> bool:
            result = subprocess.run(
                ["turnutils_uclient", "-y", "-n", "1", "-m", "1", "-u", username, "-w", password,
                 "-p", str(port), "127.0.0.1"], capture_output=True, text=True, timeout=90)
            # Its last report: "tot_send_msgs=N, tot_recv_msgs=M"; M > 0 once relayed data came
            # back through the allocation (a refused one prints "Cannot complete Allocation").
            received = re.findall(r"tot_recv_msgs=(\d+)", result.stdout + result.stderr)
            return bool(received) and int(received[-1]) > 0

        now = time.time()
        username, password = sig.turn_credentials("s3cret", "0123456789ab", now, 3600)
        for _ in range(50):  # until the server listens (a start-up wait, not a measurement)
            if allocate(username, password):
                break
            time.sleep(0.2)
        else:
            raise AssertionError("coturn refused the helper's credentials (or never started)")
        forged = ("B" if password[0] == "A" else "A") + password[1:]
        assert not allocate(username, forged)
        assert not allocate(*sig.turn_credentials("s3cret", "0123456789ab", now - 7200, 3600))
        assert not allocate(*sig.turn_credentials("other", "0123456789ab", now, 3600))
    finally:
        server.terminate()
        server.wait(timeout=10)


@pytest.mark.parametrize(
    ("servers", "problem"),
    [
        ({"urls": "stun:x"}, "JSON list"),
        ([{"url": "stun:x"}], "an object with urls"),
        ([{"urls": "http://x"}], "not a stun:/turn: url"),
        ([{"urls": []}], "non-empty list"),
        ([{"urls": "turn:x", "credential": 5}], "credential must be a string"),
    ],
)
def test_bad_ice_server_settings_are_refused(servers: Any, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        sig.check_ice_servers(servers)


def test_config_refuses_nonsense() -> None:
    with pytest.raises(ValueError, match="turn_secret"):
        sig.SignalConfig(turn_urls=("turn:x",))
    with pytest.raises(ValueError, match="room_cap"):
        sig.SignalConfig(room_cap=0)
    with pytest.raises(ValueError, match="idle_timeout"):
        sig.SignalConfig(idle_timeout=float("nan"))
    with pytest.raises(ValueError, match="path"):
        sig.SignalConfig(path="signal")


# --------------------------------------------------------------------------------------------
# Slow readers, shutdown, logs


class _Transport:
    def __init__(self) -> None:
        self.aborted = False

    def abort(self) -> None:
        self.aborted = True


def test_a_peer_that_does_not_read_is_cut_off_without_holding_up_the_sender() -> None:
    async def run() -> tuple[sig.Connection, _Transport, list[dict[str, Any]]]:
        events: list[dict[str, Any]] = []
        hub = sig.SignalHub(sig.SignalConfig(outbox_limit=4), log=events.append)
        transport = _Transport()
        conn = sig.Connection(None, transport, hub.config, 0.0)  # type: ignore[arg-type]
        await hub.store.join(ROOM_A, "0" * 12, {}, sig.RoomLimits.of(hub.config), 0.0)
        conn.room, conn.peer = ROOM_A, "0" * 12
        hub._by_peer[(ROOM_A, "0" * 12)] = conn
        delivered = [await hub.store.send(ROOM_A, "0" * 12, f"m{i}") for i in range(6)]
        assert delivered == [True] * 4 + [False] * 2  # posting never waits
        return conn, transport, events

    conn, transport, events = asyncio.run(run())
    assert transport.aborted and conn.close_code == sig.CLOSE_SLOW
    assert [e["code"] for e in events if e["event"] == "close"] == [sig.CLOSE_SLOW]


def test_shutdown_closes_every_peer_with_1001() -> None:
    codes: list[int | None] = []

    async def run() -> None:
        hub = sig.SignalHub(log=lambda e: None)
        server = TestServer(hub.make_app())
        client = TestClient(server)
        await client.start_server()
        origin = str(client.make_url("/")).rstrip("/")
        sockets = []
        for _ in range(3):
            ws = await client.ws_connect("/signal", headers={"Origin": origin})
            await ws.send_str(json.dumps({"type": "join", "v": 1, "room": ROOM_C}))
            await receive_json(ws)
            sockets.append(ws)
        closing = asyncio.gather(*(closed_with(ws) for ws in sockets))
        await server.close()
        codes.extend(await closing)
        await client.close()

    with ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(asyncio.run, run()).result()
    assert codes == [sig.CLOSE_GOING_AWAY] * 3


def test_logs_are_one_json_object_per_line_and_never_hold_the_room_id() -> None:
    lines: list[str] = []

    class Stream:
        def write(self, text: str) -> None:
            lines.append(text)

        def flush(self) -> None:
            pass

    sink = sig.JsonLines(Stream(), wall_clock=lambda: 12.3456)  # type: ignore[arg-type]
    events = run_hub(lambda h: _chatter(h))
    for event in events:
        sink(event)
    assert lines and all(line.endswith("\n") and line.count("\n") == 1 for line in lines)
    parsed = [json.loads(line) for line in lines]
    assert all(p["ts"] == 12.346 and isinstance(p["event"], str) for p in parsed)
    assert {"connect", "join", "leave", "bad-message", "refused"} <= {p["event"] for p in parsed}
    text = "".join(lines)
    assert ROOM_A not in text and "secret-sdp" not in text
    assert sig.room_tag(ROOM_A) in text


async def _chatter(h: Harness) -> None:
    a = await h.join(ROOM_A)
    b = await h.join(ROOM_A)
    await a.send({"type": "offer", "to": b.id, "data": "secret-sdp"})
    await b.receive()
    await a.send("{oops")
    await a.receive()
    with pytest.raises(aiohttp.WSServerHandshakeError):
        await h.connect("http://elsewhere.example")
    await a.ws.close()
    await b.receive()  # peer-joined... or peer-left: either way a's leave was handled
    await b.ws.close()


# --------------------------------------------------------------------------------------------
# The RoomStore interface (a Redis-backed store will implement it, issue 15)


class InterfaceOnlyStore:
    """Exactly the RoomStore methods, delegated: shows the hub needs nothing else of a store."""

    METHODS = ("start", "close", "join", "leave", "send", "broadcast", "touch", "idle_rooms",
               "close_room")

    def __init__(self, mailbox: sig.Mailbox, calls: list[str]) -> None:
        self._inner = sig.MemoryRoomStore(mailbox)
        self._calls = calls
        for name in self.METHODS:
            setattr(self, name, self._recorded(name))

    def _recorded(self, name: str) -> Callable[..., Awaitable[Any]]:
        method = getattr(self._inner, name)

        async def call(*args: Any, **kwargs: Any) -> Any:
            self._calls.append(name)
            return await method(*args, **kwargs)

        return call


def test_the_hub_uses_only_the_room_store_interface() -> None:
    calls: list[str] = []
    events: list[dict[str, Any]] = []
    clock = FakeClock()

    async def run() -> None:
        hub = sig.SignalHub(clock=clock, log=events.append,
                            store=lambda mailbox: InterfaceOnlyStore(mailbox, calls))
        async with TestClient(TestServer(hub.make_app())) as client:
            h = Harness(client, hub, clock, events)
            a, b = await h.join(ROOM_A), await h.join(ROOM_A)
            await a.receive()
            await a.send({"type": "offer", "to": b.id, "data": {}})
            assert (await b.receive())["from"] == a.id
            await a.send({"type": "offer", "to": "0" * 12, "data": {}})
            assert (await a.receive())["code"] == "unknown-peer"
            await b.ws.close()
            assert await a.receive() == {"type": "peer-left", "peer": b.id}
            clock.now += 600
            await hub.sweep()
            assert await closed_with(a.ws) == sig.CLOSE_IDLE

    with ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(asyncio.run, run()).result()
    assert set(calls) == set(InterfaceOnlyStore.METHODS)


# --------------------------------------------------------------------------------------------
# Wiring: make_app(routes=...) and python -m server --signal-only


def test_the_site_app_serves_files_and_the_endpoint(tmp_path: Path) -> None:
    (tmp_path / "index.html").write_text("<!doctype html><title>Ludo</title>")

    async def test(h: Harness) -> None:
        page = await h.client.get("/")
        assert page.status == 200 and "Ludo" in await page.text()
        peer = await h.join(ROOM_A)
        assert peer.welcome["peers"] == []

    def factory(hub: sig.SignalHub) -> web.Application:
        app = make_app(tmp_path, routes=hub.routes())
        hub.attach(app)
        return app

    run_hub(test, app_factory=factory)


def _start_server(*args: str, env: dict[str, str] | None = None) -> tuple[subprocess.Popen[str],
                                                                           str, list[str]]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "server", *args],
        cwd=default_root(),
        env=dict(os.environ, HOST="127.0.0.1", PORT="0", PYTHONUNBUFFERED="1", **(env or {})),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    assert proc.stdout is not None
    seen = []
    for line in proc.stdout:
        seen.append(line)
        match = re.search(r"being served at (http://\S+)", line)
        if match:
            return proc, match.group(1), seen
    proc.wait()
    raise AssertionError(f"no server: {seen} {proc.stderr.read() if proc.stderr else ''}")


def test_python_m_server_signal_only_serves_the_endpoint_alone() -> None:
    proc, url, seen = _start_server("--signal-only", "--allow-origin", "https://ludo.example",
                                    "--room-cap", "2")
    assert proc.stdout is not None
    # the address comes first (tests read it), then what else is served; it said "Courtyard
    # Ludo is being served at ...", a game this process does not serve
    assert seen[-1].startswith("Courtyard Ludo's signalling helper (no game files) is being "
                               "served at http://127.0.0.1:")
    assert "only the signalling endpoint at /signal" in proc.stdout.readline()
    try:
        async def check() -> None:
            async with aiohttp.ClientSession() as session:
                async with session.get(url) as response:
                    assert response.status == 404
                async with session.ws_connect(url + "signal",
                                              headers={"Origin": "https://ludo.example"}) as ws:
                    await ws.send_str(json.dumps({"type": "join", "v": 1, "room": ROOM_A}))
                    welcome = await receive_json(ws)
                    assert welcome["limits"]["roomCap"] == 2

        asyncio.run(check())
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=20)
    logged = [json.loads(line) for line in err.splitlines() if line.startswith("{")]
    assert [e["event"] for e in logged][:2] == ["connect", "join"]
    assert "Traceback" not in err


def test_python_m_server_refuses_bad_signalling_settings() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "server", "--allow-origin", "ludo.example"],
        cwd=default_root(), capture_output=True, text=True, timeout=60,
    )
    assert result.returncode == 2
    assert "not an origin" in result.stderr and "Traceback" not in result.stderr


def test_config_from_args_reads_files_and_environment(tmp_path: Path) -> None:
    import argparse

    parser = argparse.ArgumentParser()
    sig.add_arguments(parser)
    ice = tmp_path / "ice.json"
    ice.write_text('[{"urls": ["stun:a.example:3478", "stun:b.example:3478"]}]')
    args = parser.parse_args(["--ice-servers", str(ice), "--turn-url", "turns:t.example:5349"])
    config = sig.config_from_args(
        args, env={"LUDO_SIGNAL_ORIGINS": "https://a.example, https://b.example",
                   "LUDO_TURN_SECRET": "x"})
    assert config.allowed_origins == {"https://a.example", "https://b.example"}
    assert config.ice_servers == ({"urls": ["stun:a.example:3478", "stun:b.example:3478"]},)
    assert config.turn_urls == ("turns:t.example:5349",) and config.turn_secret == "x"
    ice.write_text("{not json")
    with pytest.raises(ValueError, match="--ice-servers"):
        sig.config_from_args(args, env={"LUDO_TURN_SECRET": "x"})
    args = parser.parse_args(["--turn-url", "turn:t.example"])
    # in the words the user set (it said "turn_urls need turn_secret", the fields' names)
    with pytest.raises(ValueError, match=r"^--turn-url needs the shared secret in "
                                         r"\$LUDO_TURN_SECRET \(coturn's static-auth-secret\)$"):
        sig.config_from_args(args, env={})


def test_the_page_and_the_helper_agree_on_the_protocol() -> None:
    from net import signalling

    assert signalling.PROTOCOL_VERSION == sig.PROTOCOL_VERSION
    assert signalling.DEFAULT_PATH == sig.DEFAULT_PATH
    assert signalling.ROOM_ID_PATTERN == sig.ROOM_ID_PATTERN
    assert signalling.PEER_ID_PATTERN == sig.PEER_ID_PATTERN
    assert signalling.RELAYED_TYPES == sig.RELAYED_TYPES
    for _ in range(50):
        assert sig.ROOM_ID_RE.fullmatch(signalling.new_room_id())
    # Every client message the page builds passes the helper's check.
    for text in (
        signalling.join_message(ROOM_A),
        signalling.join_message(ROOM_A, {"role": "guest"}),
        signalling.relay_message("offer", "0123456789ab", {"sdp": "x"}),
        signalling.relay_message("candidate", "0123456789ab", None),
        signalling.ping_message(),
    ):
        sig.parse_client_message(text)


def test_the_page_accepts_what_the_helper_sends() -> None:
    from net import signalling

    received: list[dict[str, Any]] = []

    async def test(h: Harness) -> None:
        a = await h.join(ROOM_A)
        b = await h.join(ROOM_A)
        received.extend([a.welcome, b.welcome, await a.receive()])
        await a.send(signalling.relay_message("offer", b.id, {"sdp": "x"}))
        received.append(await b.receive())
        await a.send("{")
        received.append(await a.receive())
        await a.send(signalling.ping_message())
        received.append(await a.receive())
        await b.ws.close()
        received.append(await a.receive())

    run_hub(test, ice_servers=({"urls": "stun:s.example"},))
    kinds = [signalling.parse_server_message(json.dumps(m))["type"] for m in received]
    assert kinds == ["welcome", "welcome", "peer-joined", "offer", "error", "pong", "peer-left"]


@pytest.mark.parametrize(("query", "policy"), [
    ("", "all"), ("?ice=relay", "relay"), ("?auto_delay=0&ice=relay&pace_ms=0", "relay"),
    ("?ice=all", "all"), ("?ice=RELAY", "all"), ("?ice=", "all"), ("?nice=relay", "all"),
])
def test_the_page_asks_for_relay_only_ice_with_ice_relay_in_its_address(query: str,
                                                                       policy: str) -> None:
    from net import signalling

    assert signalling.ice_transport_policy(query) == policy
