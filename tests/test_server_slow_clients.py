"""A client that opens connections and sends nothing, or a request's headers a byte at a time,
holds them only ``REQUEST_WAIT_S`` seconds (`python -m server`): aiohttp's default is an hour,
and the helper counts an address's connections only once their WebSocket opens, so one address
could hold every file descriptor of the process that way. A WebSocket that is open is the
helper's to time, and outlives that wait (docs/online.md, "Settings and limits")."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from urllib.parse import urlsplit

import aiohttp

from server.__main__ import REQUEST_WAIT_S
from server.testing import running_server

ROOM = "q2Vf0pX9cE7wR1sT4uY8zA"


def _closed_by_server(sock: socket.socket) -> bool:
    try:
        return sock.recv(4096) == b""  # (a 408 or 400 answer first would read as bytes here)
    except (BlockingIOError, TimeoutError):
        return False
    except OSError:
        return True


def test_connections_that_send_no_whole_request_are_closed_and_a_websocket_is_not() -> None:
    with running_server(args=("--signal-only",)) as url:
        parts = urlsplit(url)
        host, port = parts.hostname or "127.0.0.1", parts.port or 80

        async def scenario() -> tuple[list[bool], str]:
            silent = [socket.create_connection((host, port)) for _ in range(3)]
            dripping = [socket.create_connection((host, port)) for _ in range(3)]
            for sock in dripping:
                sock.sendall(b"GET /signal HTTP/1.1\r\nHost: x\r\n")
            for sock in silent + dripping:
                sock.setblocking(False)
            async with aiohttp.ClientSession() as session:
                ws = await session.ws_connect(url.rstrip("/") + "/signal",
                                              headers={"Origin": url.rstrip("/")})
                await ws.send_str(json.dumps({"type": "join", "v": 1, "room": ROOM}))
                welcome = json.loads((await ws.receive(timeout=5)).data)
                assert welcome["type"] == "welcome"
                ends: dict[int, bool] = {}
                deadline = time.monotonic() + REQUEST_WAIT_S + 8
                while time.monotonic() < deadline and len(ends) < 6:
                    for i, sock in enumerate(silent + dripping):
                        if i in ends:
                            continue
                        if i >= 3:
                            try:  # a header line, a byte a second: never a whole request
                                sock.send(b"X")
                            except OSError:
                                pass
                        if _closed_by_server(sock):
                            ends[i] = True
                    await asyncio.sleep(1)
                await ws.send_str(json.dumps({"type": "ping"}))
                pong = json.loads((await ws.receive(timeout=5)).data)["type"]
                await ws.close()
            for sock in silent + dripping:
                sock.close()
            return [ends.get(i, False) for i in range(6)], pong

        closed, pong = asyncio.run(scenario())
        assert closed == [True] * 6  # before: all six still open after 23 s (an hour's wait)
        assert pong == "pong"


def _cut(sock: socket.socket, wait: float = 2.0) -> bool:
    """Whether the server closed or reset `sock` within `wait` seconds (it sends nothing)."""
    sock.settimeout(wait)
    try:
        return sock.recv(4096) == b""
    except TimeoutError:
        return False
    except OSError:  # reset: the gate aborts a connection past the address's count
        return True


def test_one_address_holds_a_bounded_number_of_connections_that_send_nothing() -> None:
    from server.__main__ import address_limit
    from server.signal import SignalConfig

    limit = address_limit(SignalConfig())
    assert limit is not None and limit >= SignalConfig().address_connections + 6
    with running_server(args=("--signal-only",)) as url:
        parts = urlsplit(url)
        host, port = parts.hostname or "127.0.0.1", parts.port or 80
        held = [socket.create_connection((host, port)) for _ in range(limit)]
        extra = [socket.create_connection((host, port)) for _ in range(5)]
        try:
            # Before: every one of them stayed open (until REQUEST_WAIT_S), however many.
            assert [_cut(sock) for sock in extra] == [True] * 5
            assert not _cut(held[0], wait=0.2) and not _cut(held[-1], wait=0.2)
            for sock in held[:8]:  # a connection closed frees its place at once
                sock.close()
            time.sleep(0.3)

            async def join() -> str:
                async with aiohttp.ClientSession() as session:
                    ws = await session.ws_connect(url.rstrip("/") + "/signal",
                                                  headers={"Origin": url.rstrip("/")})
                    await ws.send_str(json.dumps({"type": "join", "v": 1, "room": ROOM}))
                    kind = json.loads((await ws.receive(timeout=5)).data)["type"]
                    await ws.close()
                    return str(kind)

            assert asyncio.run(join()) == "welcome"
        finally:
            for sock in held + extra:
                sock.close()


def test_the_gate_counts_an_ipv6_slash_64_as_one_address_and_frees_closed_places() -> None:
    from server.gate import AddressGate

    class Transport(asyncio.Transport):
        def __init__(self, host: str) -> None:
            super().__init__()
            self.host, self.aborted = host, False

        def get_extra_info(self, name: str, default: object = None) -> object:
            return (self.host, 1234, 0, 0) if name == "peername" else default

        def abort(self) -> None:
            self.aborted = True

    made: list[asyncio.Protocol] = []

    def make() -> asyncio.Protocol:
        made.append(asyncio.Protocol())
        return made[-1]

    gate = AddressGate(2)
    factory = gate.factory(make)
    first, second, third, other = factory(), factory(), factory(), factory()
    hosts = ["2001:db8::1", "2001:db8::ffff:2", "2001:db8:0:0:abcd::9", "2001:db8:0:1::1"]
    transports = [Transport(host) for host in hosts]
    for protocol, transport in zip((first, second, third, other), transports, strict=True):
        protocol.connection_made(transport)
    assert [t.aborted for t in transports] == [False, False, True, False]
    assert len(made) == 3 and gate.refused == 1
    third.connection_lost(None)  # a cut connection never held a place
    first.connection_lost(None)
    again = factory()
    again.connection_made(Transport("2001:db8::77"))
    assert gate.open == {"2001:db8::/64": 2, "2001:db8:0:1::/64": 1}


def test_behind_a_proxy_connections_are_not_counted_per_address() -> None:
    # every connection comes from the proxy: counting them would cap the whole site at 128
    from server.__main__ import address_limit
    from server.signal import SignalConfig

    assert address_limit(SignalConfig(forwarded_for=True)) is None
    assert address_limit(SignalConfig(address_connections=10)) == 10 + 64
