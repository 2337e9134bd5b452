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
