"""Several signalling-helper instances sharing their rooms through a real Redis (issue 15).

The instances here are hubs in this process, each with its own `RedisRoomStore` (its own Redis
connections, pub/sub and instance id) on its own test server: they share nothing but Redis, as
separate machines would. Each test uses its own key prefix, so the tests share one
`redis-server`. What needs real processes (an instance killed outright, the command line) is in
tests/test_signal_cluster.py.

Waiting: where something happens on a timer (an idle room, a heartbeat), the test waits for
the event it expects with a generous bound; nothing asserts how long anything took.
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import shutil
from collections.abc import Awaitable, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import aiohttp
import pytest
from aiohttp.test_utils import TestClient, TestServer
from test_signal import ROOM_A, ROOM_B, Peer, closed_with, receive_json

from server import signal as sig
from server.testing import RedisServer


def require(binary: str, package: str) -> None:
    """Skip without the program; in CI (where `make test` installs it) fail instead."""
    if shutil.which(binary) is None:
        message = f"needs {binary} (Debian package {package}; `make test` installs it)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)


@pytest.fixture(scope="module")
def redis_server() -> Iterator[RedisServer]:
    require("redis-server", "redis-server")
    with RedisServer() as server:
        yield server


class Cluster:
    """Helper instances in this process, sharing one Redis under a prefix of their own."""

    def __init__(self, redis_url: str, prefix: str, settings: dict[str, Any],
                 redis_settings: dict[str, Any]) -> None:
        from server.signal_redis import RedisRoomStore, RedisSettings

        self.redis_url, self.prefix = redis_url, prefix
        self.config = sig.SignalConfig(**settings)
        self.redis_settings = RedisSettings(redis_url, prefix=prefix, **redis_settings)
        self.factory = RedisRoomStore.factory(self.redis_settings)
        self.hubs: list[sig.SignalHub] = []
        self.clients: list[TestClient] = []
        self.events: list[list[dict[str, Any]]] = []

    async def add(self) -> int:
        events: list[dict[str, Any]] = []
        hub = sig.SignalHub(self.config, store=self.factory, log=events.append)
        client = TestClient(TestServer(hub.make_app()))
        await client.start_server()
        self.hubs.append(hub)
        self.clients.append(client)
        self.events.append(events)
        return len(self.hubs) - 1

    async def close(self) -> None:
        for client in self.clients:
            await client.close()

    async def connect(self, i: int) -> aiohttp.ClientWebSocketResponse:
        client = self.clients[i]
        origin = str(client.make_url("/")).rstrip("/")
        return await client.ws_connect(self.config.path, headers={"Origin": origin})

    async def join(self, i: int, room: str, hello: dict[str, Any] | None = None) -> Peer:
        ws = await self.connect(i)
        await ws.send_str(json.dumps({"type": "join", "v": 1, "room": room, "hello": hello or {}}))
        welcome = await receive_json(ws)
        assert welcome["type"] == "welcome", welcome
        return Peer(ws, welcome["peer"], welcome)

    def store(self, i: int) -> Any:
        return self.hubs[i].store

    def events_of(self, i: int, kind: str) -> list[dict[str, Any]]:
        return [e for e in self.events[i] if e["event"] == kind]


def run_cluster(redis: RedisServer, size: int,
                test: Callable[[Cluster], Awaitable[None]], *,
                redis_settings: dict[str, Any] | None = None, **settings: Any) -> Cluster:
    """Run `test` against `size` instances sharing `redis`; returns the cluster (its logs)."""
    cluster = Cluster(redis.url, f"t{secrets.token_hex(4)}:", settings,
                      {"instance_timeout": 2.0, **(redis_settings or {})})

    async def run() -> None:
        for _ in range(size):
            await cluster.add()
        try:
            await test(cluster)
        finally:
            await cluster.close()

    with ThreadPoolExecutor(max_workers=1) as pool:
        try:
            # a bound against hanging (a bug would otherwise stop the whole run)
            pool.submit(asyncio.run, bounded(run(), 120)).result()
        except BaseException:
            for i, events in enumerate(cluster.events):  # what each instance said, for the report
                print(f"instance {i}:", *events, sep="\n  ")
            raise
    return cluster


async def bounded(work: Awaitable[None], limit: float) -> None:
    """Run `work`; fail if it has not finished within `limit` seconds. Unlike wait_for, the
    verdict does not rest on the cancel: code under test that swallowed it (a shutdown that
    suppressed CancelledError once did) would otherwise make a hang pass."""
    task = asyncio.ensure_future(work)
    done, _ = await asyncio.wait({task}, timeout=limit)
    if not done:
        task.cancel()
        await asyncio.wait({task}, timeout=10)
        raise AssertionError(f"the test or its shutdown was still running after {limit:.0f} s")
    task.result()


async def until(check: Callable[[], Awaitable[bool]], limit: float = 20.0,
                step: float = 0.05) -> None:
    """Wait for `check` to hold (a bound against hanging, not a measurement)."""
    deadline = asyncio.get_running_loop().time() + limit
    while not await check():
        assert asyncio.get_running_loop().time() < deadline, "the condition never held"
        await asyncio.sleep(step)


async def next_of(peer: Peer, kind: str) -> dict[str, Any]:
    """The next message of that type (pongs of our own pings and the like pass by)."""
    while True:
        message = await peer.receive()
        if message["type"] == kind:
            return message


# --------------------------------------------------------------------------------------------


def test_peers_of_one_room_on_three_instances_hear_of_each_other_and_exchange_messages(
        redis_server: RedisServer) -> None:
    async def test(c: Cluster) -> None:
        a = await c.join(0, ROOM_A, {"role": "host"})
        b = await c.join(1, ROOM_A, {"role": "guest"})
        assert b.welcome["peers"] == [{"peer": a.id, "hello": {"role": "host"}}]
        assert await a.receive() == {"type": "peer-joined", "peer": b.id,
                                     "hello": {"role": "guest"}}
        d = await c.join(1, ROOM_B)  # another room, on an instance with a peer of room A
        cc = await c.join(2, ROOM_A, {"role": "spectator"})
        assert [p["peer"] for p in cc.welcome["peers"]] == [a.id, b.id]  # joining order
        for peer in (a, b):
            message = await peer.receive()
            assert message["peer"] == cc.id, (message, a.id, b.id, cc.id, d.id)
        # relayed unchanged, in every direction across the instances
        offer = {"type": "offer", "sdp": "v=0\r\n" + "a=x\r\n" * 40, "é": "\U0001f3b2"}
        await a.send({"type": "offer", "to": b.id, "data": offer})
        assert await b.receive() == {"type": "offer", "from": a.id, "data": offer}
        await b.send({"type": "answer", "to": cc.id, "data": [1, None, 2.5]})
        assert await cc.receive() == {"type": "answer", "from": b.id, "data": [1, None, 2.5]}
        for n in range(5):  # in order
            await cc.send({"type": "candidate", "to": a.id, "data": n})
        assert [(await a.receive())["data"] for _ in range(5)] == list(range(5))
        # a peer of another room cannot be addressed, wherever it is
        await a.send({"type": "offer", "to": d.id, "data": 1})
        assert (await a.receive())["code"] == "unknown-peer"
        await d.send({"type": "offer", "to": b.id, "data": 1})
        assert (await d.receive())["code"] == "unknown-peer"
        for peer in (a, b, cc, d):
            await peer.nothing_pending()
        # leaving is heard on the other instances; Redis holds who is left
        await b.ws.close()
        for peer in (a, cc):
            assert await peer.receive() == {"type": "peer-left", "peer": b.id}
        assert await c.store(2).members_of(ROOM_A) == [a.id, cc.id]
        await d.nothing_pending()

    cluster = run_cluster(redis_server, 3, test)
    assert all(cluster.events_of(i, "redis-up") for i in range(3))
    assert not any(cluster.events_of(i, "internal-error") for i in range(3))


def test_relays_sent_at_once_all_arrive_in_order_and_only_the_target_instance_reads_them(
        redis_server: RedisServer) -> None:
    async def test(c: Cluster) -> None:
        host = await c.join(0, ROOM_A, {"role": "host"})
        guests = [await c.join(i % 2, ROOM_A, {"role": "guest"}) for i in range(6)]
        for _ in guests:
            await next_of(host, "peer-joined")
        for g in guests:  # each hears of the guests after it
            for _ in range(guests.index(g) + 1, len(guests)):
                await next_of(g, "peer-joined")
        relays = [0, 0]  # relays each instance read from Redis

        def counting(i: int) -> None:
            store = c.store(i)
            deliver = store._deliver

            def wrapper(message: dict[str, Any]) -> None:
                if message["type"] == "message" and message["data"].startswith("s"):
                    relays[i] += 1
                deliver(message)

            store._deliver = wrapper

        counting(0)
        counting(1)
        # every guest sends 30 candidates at once: they travel in pipelines, many per round trip
        await asyncio.gather(*(g.ws.send_str(json.dumps(
            {"type": "candidate", "to": host.id, "data": [n, k]})) for k in range(30)
            for n, g in enumerate(guests)))
        got = [await host.receive() for _ in range(30 * len(guests))]
        for n, g in enumerate(guests):
            mine = [m["data"] for m in got if m["from"] == g.id]
            assert mine == [[n, k] for k in range(30)]
        assert relays == [30 * len(guests), 0]  # the host's instance alone read them
        await host.nothing_pending()

    run_cluster(redis_server, 2, test)


def test_the_cap_and_the_join_budget_hold_across_instances(redis_server: RedisServer) -> None:
    async def test(c: Cluster) -> None:
        peers = [await c.join(i, ROOM_A) for i in range(3)]
        for i in range(3):  # the room is full wherever one knocks
            ws = await c.connect(i)
            await ws.send_str(json.dumps({"type": "join", "v": 1, "room": ROOM_A}))
            assert (await receive_json(ws))["code"] == "room-full"
            assert await closed_with(ws) == sig.CLOSE_ROOM_FULL
        await peers[0].ws.close()
        await next_of(peers[1], "peer-left")
        late = await c.join(1, ROOM_A)  # the place is free again; the budget's 4th join
        assert [p["peer"] for p in late.welcome["peers"]] == [peers[1].id, peers[2].id]
        await late.ws.close()
        await next_of(peers[1], "peer-left")
        fifth = await c.join(2, ROOM_A)  # the 5th and last join of the budget
        await fifth.ws.close()
        await next_of(peers[1], "peer-left")
        # The budget is the room's, whichever instance counts it: the 6th join is refused
        # (with a room that has space), on an instance that took none of the five.
        ws = await c.connect(0)
        await ws.send_str(json.dumps({"type": "join", "v": 1, "room": ROOM_A}))
        assert (await receive_json(ws))["code"] == "room-busy"
        assert await closed_with(ws) == sig.CLOSE_ROOM_BUSY
        assert (await c.join(0, ROOM_B)).welcome["peers"] == []  # other rooms are not touched

    run_cluster(redis_server, 3, test, room_cap=3, join_burst=5, join_rate=0.001)


def test_a_flooding_sender_on_another_instance_is_told_target_busy_and_the_reader_stays(
        redis_server: RedisServer) -> None:
    async def test(c: Cluster) -> None:
        reader = await c.join(1, ROOM_A)
        sender = await c.join(0, ROOM_A)
        await reader.receive()  # peer-joined
        conn = c.hubs[1]._by_peer[(ROOM_A, reader.id)]
        conn.writer.cancel()  # from now on the reader reads nothing
        for n in range(40):
            await sender.send({"type": "candidate", "to": reader.id, "data": n})
        error = await next_of(sender, "error")  # from instance 1, through Redis
        assert error["code"] == "target-busy" and reader.id in error["message"]
        await until(lambda: _true(len(c.events_of(1, "target-busy")) == 1
                                  and conn.queued_relays == 8))
        assert conn.close_code is None and conn.queued_from[sender.id][0] == 8
        conn2 = c.hubs[0]._by_peer[(ROOM_A, sender.id)]
        assert conn2.close_code is None and conn2.bad == 0

    run_cluster(redis_server, 2, test, pair_queue_messages=8)


async def _true(value: bool) -> bool:
    return value


def test_an_idle_room_closes_on_every_instance_and_an_active_one_stays(
        redis_server: RedisServer) -> None:
    async def test(c: Cluster) -> None:
        quiet = [await c.join(0, ROOM_A), await c.join(1, ROOM_A)]
        busy = [await c.join(0, ROOM_B), await c.join(1, ROOM_B)]
        await next_of(busy[0], "peer-joined")

        async def keep_busy() -> None:
            while True:
                await busy[1].send({"type": "ping"})
                await asyncio.sleep(0.1)

        pinger = asyncio.create_task(keep_busy())
        codes = await asyncio.wait_for(
            asyncio.gather(*(closed_with(p.ws) for p in quiet)), 30)
        assert codes == [sig.CLOSE_IDLE, sig.CLOSE_IDLE]
        assert await c.store(1).members_of(ROOM_A) == []
        # room B went on the whole time: both its peers are still there
        pinger.cancel()
        assert await c.store(0).members_of(ROOM_B) == [busy[0].id, busy[1].id]
        await busy[0].nothing_pending()
        # and the link still works: joining again opens the room afresh
        assert (await c.join(1, ROOM_A)).welcome["peers"] == []

    cluster = run_cluster(redis_server, 2, test, idle_timeout=1.0, sweep_interval=0.1)
    # One instance closed room A (the other found it gone), and nobody closed room B.
    idle = [e for i in range(2) for e in cluster.events_of(i, "room-idle")]
    assert [e["room"] for e in idle] == [sig.room_tag(ROOM_A)] and idle[0]["peers"] == 2


def test_redis_restarting_the_instances_reconnect_resubscribe_and_put_their_peers_back(
        redis_server: RedisServer) -> None:
    async def test(c: Cluster) -> None:
        a = await c.join(0, ROOM_A, {"role": "host"})
        b = await c.join(1, ROOM_A, {"role": "guest"})
        await next_of(a, "peer-joined")
        redis_server.stop(kill=True)
        # Redis is gone: the sockets stay open; a relay is refused as unavailable, not lost
        # in silence, and is not held against the peer; a join is refused with 1013.
        await a.send({"type": "offer", "to": b.id, "data": "lost"})
        assert (await a.receive())["code"] == "unavailable"
        await a.nothing_pending()  # the connection still answers
        ws = await c.connect(1)
        await ws.send_str(json.dumps({"type": "join", "v": 1, "room": ROOM_B}))
        assert (await receive_json(ws))["code"] == "unavailable"
        assert await closed_with(ws) == sig.CLOSE_TRY_LATER
        await b.ws.close()  # b leaves while Redis is away: settled when it is back
        redis_server.start()  # empty: it forgot every room

        # The instances notice, put back the peers they hold, and subscribe again: a new
        # peer sees `a` (and not b, which left), and hears from it across the instances.
        async def both_back() -> bool:
            return c.store(0).ready and c.store(1).ready

        await until(both_back)
        assert await c.store(1).members_of(ROOM_A) == [a.id]
        late = await c.join(1, ROOM_A, {"role": "guest"})
        assert late.welcome["peers"] == [{"peer": a.id, "hello": {"role": "host"}}]
        assert await next_of(a, "peer-joined") == {"type": "peer-joined", "peer": late.id,
                                                   "hello": {"role": "guest"}}
        await a.send({"type": "offer", "to": late.id, "data": "after"})
        assert await late.receive() == {"type": "offer", "from": a.id, "data": "after"}
        await late.send({"type": "answer", "to": a.id, "data": "back"})
        assert (await next_of(a, "answer"))["data"] == "back"

    cluster = run_cluster(redis_server, 2, test, room_cap=3)
    for i in range(2):
        assert cluster.events_of(i, "redis-down") and cluster.events_of(i, "redis-reset")
    assert not any(cluster.events_of(i, "internal-error") for i in range(2))


def test_an_instance_taken_for_dead_closes_its_sockets_so_its_peers_join_again(
        redis_server: RedisServer) -> None:
    async def test(c: Cluster) -> None:
        from redis import asyncio as aioredis

        a = await c.join(0, ROOM_A)
        b = await c.join(1, ROOM_A)
        await next_of(a, "peer-joined")
        # What another instance does to one whose heartbeats stopped arriving (cut off from
        # Redis for longer than the instance timeout): b is removed, the others told.
        lost = c.store(1)
        async with aioredis.Redis.from_url(redis_server.url) as r:
            await r.zrem(lost.keys.instances, lost.instance)
            await r.hdel(lost.keys.room(ROOM_A)[0], b.id)
            await r.delete(lost.keys.instance(lost.instance))
        # The instance notices at its next heartbeat and closes b, which can join again.
        assert await closed_with(b.ws) == sig.CLOSE_RESTART
        again = await c.join(1, ROOM_A)
        assert [p["peer"] for p in again.welcome["peers"]] == [a.id]
        assert (await next_of(a, "peer-joined"))["peer"] == again.id

    cluster = run_cluster(redis_server, 2, test, redis_settings={"instance_timeout": 1.0})
    assert [e["peers"] for e in cluster.events_of(1, "instance-reaped")] == [1]


def test_closing_a_store_is_bounded_and_a_cancel_of_it_is_not_swallowed(
        redis_server: RedisServer) -> None:
    """A background task that will not stop (as redis-py can leave one, turning a cancel into
    a connection error) must not hang the helper's shutdown, and cancelling the shutdown
    itself must cancel it: once the store awaited each task under suppress(CancelledError),
    and a CI run hung 120 s in closing, then passed because that swallowed the bound's cancel."""
    release = asyncio.Event()

    async def stubborn() -> None:
        while not release.is_set():
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                continue  # refuses to stop until released

    async def test(c: Cluster) -> None:
        store = c.store(0)
        task = asyncio.create_task(stubborn())
        store._tasks.add(task)
        try:
            # cancelled part-way, the close says so instead of carrying on
            closing = asyncio.create_task(store.close())
            await asyncio.sleep(0.2)
            closing.cancel()
            done, _ = await asyncio.wait({closing}, timeout=5)
            assert done and closing.cancelled(), "a cancel of the store's close was swallowed"
            # left alone, it gives up on the stubborn task after the command timeout
            done, _ = await asyncio.wait({asyncio.create_task(store.close())}, timeout=10)
            assert done, "closing the store waited for a task that will not stop"
            assert c.events_of(0, "internal-error")[-1]["where"] == "close"
        finally:  # so that a failure here fails instead of hanging the event loop's end
            release.set()
            task.cancel()
            await asyncio.wait({task}, timeout=5)

    run_cluster(redis_server, 1, test, redis_settings={"command_timeout": 1.0})


def test_while_redis_hangs_a_join_after_a_failed_call_is_refused_at_once(
        redis_server: RedisServer) -> None:
    """A hung Redis (stopped, its socket open) answers nothing: a call fails only at its
    time-out. Before, every join waited for its own (twice the command timeout, with redis-py's
    retry: 10 s by default) although a call had already failed; now, once one has, joins are
    refused with 1013 without asking Redis until the heartbeat finds it back."""
    import signal as signals

    async def test(c: Cluster) -> None:
        store = c.store(0)
        asked: list[str] = []
        acquire = store._acquire

        async def counted(room: str) -> None:
            asked.append(room)
            await acquire(room)

        store._acquire = counted
        os.kill(redis_server.pid, signals.SIGSTOP)
        try:
            ws = await c.connect(0)  # the first join finds Redis hung, after a time-out
            await ws.send_str(json.dumps({"type": "join", "v": 1, "room": ROOM_A}))
            assert (await receive_json(ws))["code"] == "unavailable"
            assert await closed_with(ws) == sig.CLOSE_TRY_LATER
            assert asked == [ROOM_A]

            async def out() -> bool:  # the heartbeat's call fails too, at its time-out
                return store.outage

            await until(out)
            ws = await c.connect(0)
            await ws.send_str(json.dumps({"type": "join", "v": 1, "room": ROOM_B}))
            assert (await receive_json(ws))["code"] == "unavailable"
            assert await closed_with(ws) == sig.CLOSE_TRY_LATER
            assert asked == [ROOM_A]  # before: [ROOM_A, ROOM_B], a wait of its own
        finally:
            os.kill(redis_server.pid, signals.SIGCONT)

        async def back() -> bool:
            return not store.outage

        await until(back)
        peer = await c.join(0, ROOM_B, {"role": "host"})
        assert peer.welcome["peers"] == [] and asked == [ROOM_A, ROOM_B]

    cluster = run_cluster(redis_server, 1, test,
                          redis_settings={"command_timeout": 0.5})
    assert cluster.events_of(0, "redis-down")
