"""The Redis-backed signalling helper against what another Redis client may write (hostile 5).

Anyone who can reach the helper's Redis (a shared instance, another deployment, a mistake) can
publish on the helper's channels and write into its keys. An instance must treat those as it
treats a peer's messages: drop what it did not write, say so in its log, and go on delivering.
Before these tests: one non-UTF-8 publish ended the instance's pub/sub listener for good (its
peers heard nothing more, while its heartbeat said it was healthy); a 1 MiB payload reached a
peer whole; a close with code 99999 or a 400-byte reason broke the peer's connection; and one
damaged field in a room's hash made every later join of that room fail with 1011, each
attempt leaving a ghost peer in the room.

Nothing here waits on time: a hostile publish goes out before the legitimate relay that
follows it, and one subscriber connection reads in the order Redis ran the PUBLISH commands,
so when the legitimate relay arrives the hostile ones have been read (and dropped).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from test_signal import ROOM_A, receive_json
from test_signal_redis import Cluster, next_of, redis_server, run_cluster  # noqa: F401

from server.testing import RedisServer


async def _raw_client(c: Cluster) -> Any:
    import redis.asyncio as aioredis

    return aioredis.Redis.from_url(c.redis_url)


async def _two_peers(c: Cluster) -> tuple[Any, Any]:
    """A host on instance 0 and a guest on instance 1, both told of each other."""
    host = await c.join(0, ROOM_A, {"role": "host"})
    guest = await c.join(1, ROOM_A, {"role": "guest"})
    await next_of(host, "peer-joined")
    return host, guest


async def _relay_arrives(host: Any, guest: Any, mark: int) -> None:
    await host.send({"type": "candidate", "to": guest.id, "data": {"mark": mark}})
    assert await guest.receive() == {"type": "candidate", "from": host.id,
                                     "data": {"mark": mark}}


def _published(c: Cluster, i: int, why: str) -> int:
    return sum(1 for e in c.events_of(i, "bad-redis-message") if e["why"] == why)


HOSTILE_BYTES = [b"\xff\xfe not UTF-8", b"s\xc3", b"b" + b"-" * 12 + b"0|\xed\xa0\x80{}"]


@pytest.mark.parametrize("payload", HOSTILE_BYTES, ids=["garbage", "cut", "surrogate"])
def test_a_publish_that_is_not_utf8_does_not_stop_the_instance_delivering(
        redis_server: RedisServer, payload: bytes) -> None:  # noqa: F811
    async def test(c: Cluster) -> None:
        host, guest = await _two_peers(c)
        raw = await _raw_client(c)
        store = c.store(1)
        await raw.publish(store.keys.instance(store.instance), payload)
        await raw.publish(store.keys.channel(ROOM_A), payload)
        await raw.aclose()
        await _relay_arrives(host, guest, 1)  # before: never (the listener had died)
        await host.send({"type": "ping"})  # broadcasts still reach instance 1 too
        assert await host.receive() == {"type": "pong"}
        await guest.ws.close()
        assert await next_of(host, "peer-left") == {"type": "peer-left", "peer": guest.id}
        assert store._listener is not None and not store._listener.done()

    cluster = run_cluster(redis_server, 2, test)
    assert not cluster.events_of(1, "internal-error")


def test_an_oversized_or_malformed_publish_is_dropped_and_said_and_the_peer_stays(
        redis_server: RedisServer) -> None:  # noqa: F811
    async def test(c: Cluster) -> None:
        host, guest = await _two_peers(c)
        raw = await _raw_client(c)
        store = c.store(1)
        own, room = store.keys.instance(store.instance), store.keys.channel(ROOM_A)
        head = ("s" + guest.id + host.id + ROOM_A + "|").encode()
        big = json.dumps({"type": "offer", "from": host.id, "data": "y" * (1 << 20)})
        await raw.publish(own, head + big.encode())  # 1 MiB to the guest
        await raw.publish(room, b"b" + b"-" * 12 + b"0|" + big.encode())
        await raw.publish(own, b"s" + b"x" * 24 + ROOM_A.encode() + b"|{}")  # not peer ids
        await raw.publish(own, head + b"not json")
        await raw.publish(room, b"b" + b"-" * 12 + b"notanumber|{}")
        await raw.publish(room, b"c99999|x|" + guest.id.encode())  # not a close code
        await raw.publish(room, b"c4000|" + "\u00e9".encode() * 200 + b"|"
                          + guest.id.encode())  # a reason over a close frame's 125 bytes
        await raw.publish(room, b"c4000|")  # cut short
        await raw.publish(room, b"zzz")
        await raw.aclose()
        await _relay_arrives(host, guest, 2)  # the next the guest reads; still connected
        assert await c.store(0).members_of(ROOM_A) == [host.id, guest.id]

    cluster = run_cluster(redis_server, 2, test)
    assert _published(cluster, 1, "too-big") == 2
    assert _published(cluster, 1, "bad-relay") == 2
    assert _published(cluster, 1, "bad-broadcast") == 1
    assert _published(cluster, 1, "bad-close") == 3
    assert _published(cluster, 1, "unknown") == 1
    assert not cluster.events_of(1, "close") and not cluster.events_of(1, "internal-error")


DAMAGED_FIELDS = {
    "not-a-member": ("abcdefabcdef", "garbage"),
    "hello-not-json": ("abcdefabcdef", "5|x|{nope"),
    "not-a-peer-id": ("x", "5|x|{}"),
    "hello-a-list": ("abcdefabcdef", "5|x|[1,2]"),
    "hello-nested": ("abcdefabcdef", "5|x|" + "[" * 2000 + "]" * 2000),
    "hello-unknown-key": ("abcdefabcdef", '5|x|{"name":"x"}'),
    "number-huge": ("abcdefabcdef", "9" * 40 + "|x|{}"),
    "not-utf8": ("abcdefabcdef", b"5|x|\xff"),
}


@pytest.mark.parametrize("field", list(DAMAGED_FIELDS.values()), ids=list(DAMAGED_FIELDS))
def test_a_damaged_member_of_a_room_is_left_out_of_welcomes_and_the_room_stays_joinable(
        redis_server: RedisServer, field: tuple[str, str | bytes]) -> None:  # noqa: F811
    async def test(c: Cluster) -> None:
        host = await c.join(0, ROOM_A, {"role": "host"})
        raw = await _raw_client(c)
        await raw.hset(c.store(0).keys.room(ROOM_A)[0], field[0], field[1])
        await raw.aclose()
        for i in (1, 0):  # before: closed 1011, after a JOIN that left a ghost in the room
            ws = await c.connect(i)
            await ws.send_str(json.dumps({"type": "join", "v": 1, "room": ROOM_A}))
            welcome = await receive_json(ws)
            assert welcome["type"] == "welcome", welcome
            assert welcome["peers"] == [{"peer": host.id, "hello": {"role": "host"}}]
            assert await next_of(host, "peer-joined") == {
                "type": "peer-joined", "peer": welcome["peer"], "hello": {}}
            await ws.close()
            assert await next_of(host, "peer-left") == {"type": "peer-left",
                                                        "peer": welcome["peer"]}
        assert await c.store(1).members_of(ROOM_A) == [host.id]
        assert not c.store(1).members and not c.store(1).local_rooms  # no ghost left here

    cluster = run_cluster(redis_server, 2, test)
    for i in (0, 1):
        assert _published(cluster, i, "bad-member") == 1
        assert not cluster.events_of(i, "internal-error")
