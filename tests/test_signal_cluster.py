"""Helper instances as real processes (`python -m server --signal-only` with REDIS_URL) and a
real `redis-server`: a game across three instances that goes on through one instance being
killed outright and through Redis restarting (and forgetting everything); and the command line.

The game is played by the game protocol's own rooms (`app.room.HostRoom` and two `GuestRoom`s,
as in tests/net) over real WebSockets, with every game message relayed by the helpers instead
of travelling over a WebRTC data channel: each message of the match crosses Redis, so a killed
instance or a restarting Redis touches the game itself, which is harder than in the product,
where only the WebRTC set-up passes the helpers. Browsers would add nothing the helpers can see
(the page's own transport and rejoining are tested in tests/e2e/test_online.py) and would cost
minutes. The transport here does what the page's does: a peer whose connection to the helper
drops joins again (on another instance) and connects to the host anew; a guest calls the host
again when a host joins. It adds one thing a data channel does not need: a guest that heard
nothing new for a while asks the host for the record (`resync`), which is how the game
protocol's sync recovers messages lost while Redis was away.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import aiohttp
import pytest
from test_signal_redis import bounded, require

from app.room import GuestRoom, HostRoom, new_secret
from app.table import Table
from ludo import Action, IllegalAction, legal_actions
from net.record import verify_record_json
from server.app import default_root
from server.testing import HelperProcess, RedisServer

ROOM = "q2Vf0pX9cE7wR1sT4uY8zA"
CHUNK = 6000  # characters of game text per relayed message: under 16 KiB even if all escaped
STALL_S = 2.0  # no progress for this long: the guests ask the host for the record
INSTANCE_TIMEOUT = "2"


@pytest.fixture
def redis_server() -> Iterator[RedisServer]:
    require("redis-server", "redis-server")
    with RedisServer() as server:
        yield server


def now_ms() -> float:
    return time.time() * 1000


class Line:
    """One peer's WebSocket to the helpers: joins, sends in order, and after a lost
    connection joins again on the next instance that answers (what a load balancer does)."""

    def __init__(self, session: aiohttp.ClientSession, endpoints: list[str], first: int,
                 hello: dict[str, Any], handler: Any) -> None:
        self.session, self.endpoints, self.at = session, endpoints, first
        self.hello, self.handler = hello, handler
        self.ws: aiohttp.ClientWebSocketResponse | None = None
        self.peer: str | None = None
        self.peers_ids: list[str] = []  # every id this peer had, in order
        self.joins = 0
        self.errors: list[str] = []
        self.outbox: asyncio.Queue[str] = asyncio.Queue()
        self.tasks = [asyncio.create_task(self.run()), asyncio.create_task(self.write())]

    async def run(self) -> None:
        while True:
            try:
                ws = await self.session.ws_connect(self.endpoints[self.at], max_msg_size=0)
            except aiohttp.ClientError:
                self.at = (self.at + 1) % len(self.endpoints)
                await asyncio.sleep(0.1)
                continue
            await ws.send_str(json.dumps({"type": "join", "v": 1, "room": ROOM,
                                          "hello": self.hello}))
            async for msg in ws:
                if msg.type is not aiohttp.WSMsgType.TEXT:
                    break
                message = json.loads(msg.data)
                if message["type"] == "welcome":
                    self.ws, self.peer = ws, message["peer"]
                    self.peers_ids.append(self.peer)
                    self.joins += 1
                elif message["type"] == "error":
                    self.errors.append(message["code"])
                self.handler(message)
            self.ws = self.peer = None
            await asyncio.sleep(0.2)  # then the next instance (the page waits 1 s)
            self.at = (self.at + 1) % len(self.endpoints)

    async def write(self) -> None:
        while True:
            text = await self.outbox.get()
            ws = self.ws
            if ws is not None and not ws.closed:
                try:
                    await ws.send_str(text)
                except (ConnectionError, RuntimeError):
                    pass  # lost with the connection, like anything in flight

    def relay(self, to: str, data: dict[str, Any]) -> None:
        self.outbox.put_nowait(json.dumps({"type": "offer", "to": to, "data": data}))

    def send_game(self, to: str, link: int, text: str) -> None:
        parts = [text[i:i + CHUNK] for i in range(0, len(text), CHUNK)] or [""]
        for i, part in enumerate(parts):
            self.relay(to, {"link": link, "part": i, "of": len(parts), "text": part})

    def stop(self) -> None:
        for task in self.tasks:
            task.cancel()


class Assembler:
    """Puts a game message's parts back together (a lost part drops that message)."""

    def __init__(self) -> None:
        self.parts: list[str] = []

    def feed(self, data: dict[str, Any]) -> str | None:
        if data["part"] == 0:
            self.parts = []
        if data["part"] != len(self.parts):
            return None
        self.parts.append(data["text"])
        if len(self.parts) < data["of"]:
            return None
        text, self.parts = "".join(self.parts), []
        return text


class HostSide:
    def __init__(self, session: aiohttp.ClientSession, endpoints: list[str], at: int) -> None:
        self.room = HostRoom(ROOM, "courtyard", ("red", "green", "yellow"),
                             {"green": "online", "yellow": "online"}, {"red": "Host"}, False,
                             {}, 30, self.to_guest)
        self.line = Line(session, endpoints, at, {"role": "host"}, self.on_message)
        self.assemblers: dict[str, Assembler] = {}
        self.left: list[str] = []  # peer-left notices heard

    def to_guest(self, key: str, text: str) -> None:
        peer, link = key.split("/")
        self.line.send_game(peer, int(link), text)

    def on_message(self, message: dict[str, Any]) -> None:
        if message["type"] == "offer":
            peer, data = message["from"], message["data"]
            key = f"{peer}/{data['link']}"
            if key not in self.room.peers:
                for old in [k for k in self.room.peers if k.startswith(peer + "/")]:
                    self.room.disconnect(old, now_ms())  # that peer connected anew
                self.room.connect(key)
                self.assemblers[key] = Assembler()
            text = self.assemblers[key].feed(data)
            if text is not None:
                self.room.receive(key, text, now_ms())
        elif message["type"] == "peer-left":
            self.left.append(message["peer"])
            for key in [k for k in self.room.peers if k.startswith(message["peer"] + "/")]:
                self.room.disconnect(key, now_ms())


class GuestSide:
    def __init__(self, session: aiohttp.ClientSession, endpoints: list[str], at: int,
                 name: str) -> None:
        self.room = GuestRoom(ROOM, new_secret(), name, self.to_host)
        self.host: str | None = None
        self.link = 0
        self.links = 0  # connections to the host made
        self.assembler = Assembler()
        self.acted: int | None = None
        self.line = Line(session, endpoints, at, {"role": "guest"}, self.on_message)

    def to_host(self, text: str) -> None:
        if self.host is not None:
            self.line.send_game(self.host, self.link, text)

    def call_host(self, host: str) -> None:
        self.host, self.link = host, self.link + 1
        self.links += 1
        self.assembler = Assembler()
        self.acted = None
        self.room.connect()  # hello with this device's secret: back in its seat, and a sync

    def on_message(self, message: dict[str, Any]) -> None:
        kind = message["type"]
        if kind == "welcome":
            hosts = [p["peer"] for p in message["peers"] if p["hello"].get("role") == "host"]
            if hosts:
                self.call_host(hosts[-1])
        elif kind == "peer-joined" and message["hello"].get("role") == "host":
            self.call_host(message["peer"])
        elif kind == "offer" and message["from"] == self.host \
                and message["data"]["link"] == self.link:
            text = self.assembler.feed(message["data"])
            if text is not None:
                self.room.receive(text, now_ms())


def legal_choice(table: Table, rnd: random.Random) -> Action:
    return Action("roll") if table.rolling else rnd.choice(legal_actions(table.state))


async def play(host: HostSide, guests: list[GuestSide], rnd: random.Random, until: Any,
               limit: float = 240.0) -> None:
    """Play random legal moves (each seat from its own page's table) until `until()`."""
    deadline = time.monotonic() + limit
    last_version, last_change = -1, time.monotonic()
    host_acted: int | None = None
    while not until():
        assert time.monotonic() < deadline, "the game stopped going on"
        await asyncio.sleep(0.003)
        host.room.tick(now_ms())
        table = host.room.table
        if table is None or table.over:
            continue
        if table.version != last_version:
            last_version, last_change = table.version, time.monotonic()
        elif time.monotonic() - last_change > STALL_S:
            for guest in guests:  # messages were lost: ask for the record
                guest.room.ask_sync()  # as the page does: a sync it did not ask for is refused
                guest.acted = None
            host_acted, last_change = None, time.monotonic()
        seat = table.seat_to_act
        if seat == "red":
            if host.room.collector is None and host_acted != table.version:
                host_acted = table.version
                try:
                    host.room.act("red", legal_choice(table, rnd), now_ms())
                except IllegalAction:
                    pass
            continue
        guest = next((g for g in guests if g.room.seat == seat), None)
        mine = guest.room.table if guest is not None else None
        if guest is not None and mine is not None and mine.version == table.version \
                and guest.acted != table.version and not mine.over:
            guest.acted = table.version
            guest.room.act(legal_choice(mine, rnd))


async def wait_for(check: Any, limit: float = 60.0) -> None:
    deadline = time.monotonic() + limit
    while not check():
        assert time.monotonic() < deadline, "the condition never held"
        await asyncio.sleep(0.02)


def test_a_game_across_three_instances_goes_on_through_a_killed_instance_and_a_redis_restart(
        redis_server: RedisServer) -> None:
    args = ("--allow-origin", "*", "--rate", "2000", "--burst", "4000",
            "--instance-timeout", INSTANCE_TIMEOUT)
    helpers = [HelperProcess(*args, env={"REDIS_URL": redis_server.url}) for _ in range(3)]
    try:
        endpoints = [h.endpoint for h in helpers]
        report: dict[str, Any] = {}

        async def run() -> None:
            async with aiohttp.ClientSession() as session:
                host = HostSide(session, endpoints, 0)
                await wait_for(lambda: host.line.peer is not None)
                green = GuestSide(session, endpoints, 1, "Gita")
                yellow = GuestSide(session, endpoints, 2, "Yuki")
                guests = [green, yellow]
                await wait_for(lambda: all(g.room.lobby is not None for g in guests))
                green.room.claim("green", "Gita")
                yellow.room.claim("yellow", "Yuki")
                await wait_for(host.room.ready)
                host.room.start(now_ms())
                rnd = random.Random(11)
                table = lambda: host.room.table  # noqa: E731
                await play(host, guests, rnd, lambda: table() and table().version >= 40)

                # An instance dies: the one yellow is connected to, outright.
                killed_at = table().version
                old_yellow = yellow.line.peer
                helpers[2].kill()
                await play(host, guests, rnd,
                           lambda: old_yellow in host.left and table().version >= killed_at + 40)
                report["kill"] = (killed_at, table().version)
                # Yellow joined again elsewhere, with a new id, and sits in its seat; the host
                # and green never noticed beyond a pause: same connections, no new link.
                assert yellow.line.joins == 2 and yellow.line.peer != old_yellow
                assert yellow.room.seat == "yellow"
                assert host.line.joins == 1 and green.line.joins == 1 and green.links == 1

                # Redis restarts and forgets everything; the instances put their peers back.
                restarted_at = table().version
                await asyncio.to_thread(redis_server.restart)
                await play(host, guests, rnd, lambda: table().over)
                report["restart"] = (restarted_at, table().version)
                assert host.line.joins == 1 and green.line.joins == 1 and yellow.line.joins == 2

                final = table()
                assert final is not None and final.over
                for guest in guests:
                    await wait_for(lambda g=guest: g.room.table is not None
                                   and g.room.table.version == final.version)
                    mine = guest.room.table
                    assert guest.room.problem is None, guest.room.problem
                    assert mine.position_text() == final.position_text()
                    assert mine.record == final.record
                    assert guest.room.ledger.to_json() == host.room.ledger.to_json()
                report["record"] = host.room.record_json()
                for line in (host.line, green.line, yellow.line):
                    line.stop()

        with ThreadPoolExecutor(max_workers=1) as pool:
            pool.submit(asyncio.run, bounded(run(), 300)).result()  # never hang
        verified = verify_record_json(json.loads(json.dumps(report["record"])))
        assert verified.used > 0
        print(f"killed at action {report['kill'][0]}, {report['kill'][1] - report['kill'][0]} "
              f"actions on; Redis restarted at {report['restart'][0]}, game over at "
              f"{report['restart'][1]}")
    finally:
        for helper in helpers:
            helper.stop()
    survivors = helpers[:2]
    gone = [e for h in survivors for e in h.events_of("instance-gone")]
    said = [(i, e) for i, h in enumerate(helpers) for e in h.events
            if e.get("event", "").startswith(("redis-", "instance-", "internal-"))]
    # one claim: yellow's old connection
    assert len(gone) == 1 and gone[0]["peers"] == 1, said
    assert all(h.events_of("redis-reset") for h in survivors)
    assert not [e for h in helpers for e in h.events_of("internal-error")]


def test_python_m_server_shares_rooms_through_redis_url(redis_server: RedisServer) -> None:
    helper = HelperProcess("--allow-origin", "*", "--redis-url", redis_server.url,
                           "--redis-prefix", "cli:")
    other = HelperProcess("--allow-origin", "*", env={"REDIS_URL": redis_server.url})
    try:
        async def check() -> None:
            async with aiohttp.ClientSession() as session:
                one = await session.ws_connect(helper.endpoint)
                await one.send_str(json.dumps({"type": "join", "v": 1, "room": ROOM}))
                assert (await one.receive_json())["type"] == "welcome"
                two = await session.ws_connect(other.endpoint)  # other prefix: other rooms
                await two.send_str(json.dumps({"type": "join", "v": 1, "room": ROOM}))
                assert (await two.receive_json())["peers"] == []
                await one.close()
                await two.close()

        asyncio.run(asyncio.wait_for(check(), 60))
    finally:
        helper.stop()
        other.stop()
    assert helper.events_of("redis-up") and other.events_of("redis-up")


@pytest.mark.parametrize(("args", "problem"), [
    (["--redis-url", "http://127.0.0.1:1"], "not a Redis URL"),
    (["--instance-timeout", "5"], "needs --redis-url"),
    (["--redis-url", "redis://127.0.0.1:1", "--instance-timeout", "0"], "instance-timeout"),
])
def test_python_m_server_refuses_bad_redis_settings(args: list[str], problem: str) -> None:
    result = subprocess.run([sys.executable, "-m", "server", "--signal-only", *args],
                            cwd=default_root(), capture_output=True, text=True, timeout=60,
                            env={k: v for k, v in os.environ.items() if k != "REDIS_URL"})
    assert result.returncode == 2, result.stderr
    assert problem in result.stderr and "Traceback" not in result.stderr
