"""Rooms shared by several signalling-helper instances through Redis (issue 15).

`python -m server --signal-only --redis-url redis://host:6379/0` (or `REDIS_URL=...`) makes this
instance keep its rooms in Redis instead of in its own memory, so that the peers of one room may
be connected to different instances behind a load balancer. Everything another instance needs
lives in Redis, in keys with TTLs; what stays in the process belongs to its own sockets only
(a connection's message budget and outbox, and which rooms it has local peers in).

Keys (P is the prefix, `ludo:signal:` by default; R a room id, X an instance id):

- `P room:R` (hash): peer id -> "n|X|hello", its join number, its instance and its hello (JSON).
  Expires idle timeout + a margin after the room's last activity.
- `P room:R:meta` (hash): `n`, the room's join counter, and `tokens`, `stamp`, its join budget.
  Expires like the room; once the room is empty, when its budget would be full again.
- `P room:R:live` (string): present while the room is active; expires after the idle timeout
  (plus the touch interval), and its absence means the room is idle.
- `P instance:X` (set): "R peer" for every peer connected to instance X; renewed by X's
  heartbeat.
- `P instances` (sorted set): X -> the time of X's last heartbeat, by Redis's own clock.
- `P claims` (sorted set): dead instance X -> when another instance claimed it (its peers are
  being removed); claimed again if that does not finish within the instance timeout.
- `P epoch` (string): a random value made when the data set was new; renewed by heartbeats.

Channels: `P room:R` carries what concerns every peer of room R; every instance with a peer in
R subscribes to it while it has one. `P instance:X` is subscribed by instance X alone and
carries the relays (offer, answer, candidate) to the peers it holds: a relay is read by the one
instance that delivers it, whichever the room's other peers are on. A payload is the text for
the peers with a one-letter head: on an instance channel, `s` + peer id + sender's peer id (or
12 dashes) + room id + "|" + text (to that peer of that room; the delivering instance holds the
sender to its per-pair bounds and, when they are exceeded, drops the relay and sends the sender
one `target-busy` error back through Redis); on a room channel, `b` + peer id or 12 dashes + its
join number or 0 + "|" + text (to every peer of the room but that one; with a join number, as
for a `peer-joined`, not to the peers that joined after it either: the welcome they got, read
from the room's hash when they joined, named it already, and the broadcast may reach them later
than that, since the joining instance publishes it after the new peer is in the hash), `c` +
"code|reason|" + comma-separated peer ids (the room was closed: evict them). One subscriber
connection receives what is published in the order Redis ran the PUBLISH commands, whatever the
channel, so a relay never overtakes the broadcast before it.

Relays are the bulk of the traffic: those that a turn of the event loop collects go to Redis in
one pipeline (one round trip, one pool connection), not one command each.

Atomic steps are Lua scripts run with the client's `register_script` (EVALSHA): a join (cap,
join budget and id checked and the peer added in one step), a leave, a relay to one peer (only
if it is in the room), a close of an idle room (only if still idle), heartbeats and the claim of
dead instances.

Failure and recovery:
- An instance that dies (killed, crashed, cut off) stops its heartbeat. After
  `instance_timeout` seconds another instance claims it (one claim wins), removes its peers from
  their rooms and tells the others `peer-left`. Its peers have meanwhile reconnected (to any
  instance) with new peer ids: the game protocol gives them back their seats.
- Redis unreachable: joins are refused with 1013 (try again later), relays with `unavailable`;
  sockets stay open. Once a call has failed, joins are refused at once until the heartbeat
  finds Redis back (before, each waited for its own time-out: 10 s with a hung Redis).
  redis-py reconnects and re-subscribes by itself; on the first heartbeat that
  gets through this instance re-announces what it holds (`resync`): its peers go back into their
  rooms if Redis lost its data (a restart without persistence: `P epoch` is gone), and peers that
  left meanwhile are removed. Rooms are not swept for idleness until that is done.
- What another Redis client writes (a shared Redis, another deployment, a mistake) is checked
  as a peer's message would be: a payload on our channels that this helper does not publish
  (not UTF-8, over `max_payload`, a head or ids out of shape, a close code outside 4000-4999 or
  a reason longer than a close frame takes) is dropped and logged as `bad-redis-message` (at
  most 20 such lines at once and one a second after that; a line's `unlogged` counts those left
  out before it), and
  a field of a room's hash that this helper did not write is left out of welcomes. The
  pub/sub listener survives any error a reply raises.
- An instance that was claimed as dead while it was only cut off (its heartbeat finds itself
  missing under the same epoch) closes all its sockets with 1012, so that its peers join again
  and are heard of again.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

from redis import asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.exceptions import ConnectionError, NoScriptError, RedisError

from server.signal import (
    CLOSE_RESTART,
    JSON,
    PEER_ID_RE,
    ROOM_ID_RE,
    Mailbox,
    Member,
    RoomBusy,
    RoomFull,
    RoomLimits,
    SignalError,
    StoreUnavailable,
    TargetBusy,
    TokenBucket,
    check_hello,
    peer_left_message,
    target_busy_message,
)

DEFAULT_PREFIX = "ludo:signal:"
NOBODY = "-" * 12  # a broadcast that excludes no peer
DAY_MS = 86_400_000
MAX_CLOSE_REASON = 120  # bytes: a close frame's payload is at most 125, the code's 2 included
BAD_LOG_BURST = 20  # `bad-redis-message` lines at once ...
BAD_LOG_RATE = 1.0  # ... and a second after that
T = TypeVar("T")

# --------------------------------------------------------------------------------------------
# Lua scripts. Every key a script touches is passed in KEYS; times come from Redis (TIME), so
# the instances' clocks never need to agree.

_NOW = """
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
"""

# KEYS: room, meta, live, instance set. ARGV: peer, "X|hello", cap, join rate (per s), join
# burst, "R peer", room ttl ms, live ms, instance set ttl ms.
# -> {'taken'} | {'full'} | {'busy'} | {'ok', n, field, value, field, value, ...}
JOIN = _NOW + """
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return {'taken'} end
if redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[3]) then return {'full'} end
local rate, burst = tonumber(ARGV[4]), tonumber(ARGV[5])
local budget = redis.call('HMGET', KEYS[2], 'tokens', 'stamp')
local tokens = tonumber(budget[1]) or burst
local stamp = tonumber(budget[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - stamp) * rate / 1000)
if tokens < 1 then
  redis.call('HSET', KEYS[2], 'tokens', tostring(tokens), 'stamp', tostring(now))
  return {'busy'}
end
local n = redis.call('HINCRBY', KEYS[2], 'n', 1)
redis.call('HSET', KEYS[2], 'tokens', tostring(tokens - 1), 'stamp', tostring(now))
redis.call('HSET', KEYS[1], ARGV[1], n .. '|' .. ARGV[2])
redis.call('SADD', KEYS[4], ARGV[6])
redis.call('PEXPIRE', KEYS[1], ARGV[7])
redis.call('PEXPIRE', KEYS[2], ARGV[7])
redis.call('PEXPIRE', KEYS[4], ARGV[9])
redis.call('SET', KEYS[3], '1', 'PX', ARGV[8])
local reply = {'ok', n}
for _, item in ipairs(redis.call('HGETALL', KEYS[1])) do reply[#reply + 1] = item end
return reply
"""

# KEYS: room, meta, live, instance set. ARGV: peer, "R peer", budget refill ms.
# -> nil if the peer was not in the room, else the peers still in it.
LEAVE = """
redis.call('SREM', KEYS[4], ARGV[2])
if redis.call('HDEL', KEYS[1], ARGV[1]) == 0 then return false end
local left = redis.call('HKEYS', KEYS[1])
if #left == 0 then
  redis.call('DEL', KEYS[3])
  redis.call('PEXPIRE', KEYS[2], ARGV[3])
end
return left
"""

# KEYS: room. ARGV: peer, instance channel prefix, payload. Published on the channel of the
# instance that holds the peer (its field says which), so that only that instance reads it.
# -> 1 if published, 0 if no such peer in the room.
SEND = """
local value = redis.call('HGET', KEYS[1], ARGV[1])
if not value then return 0 end
local instance = string.match(value, '^%d+|([^|]+)|')
if not instance then return 0 end
redis.call('PUBLISH', ARGV[2] .. instance, ARGV[3])
return 1
"""

# KEYS: room. ARGV: channel, payload. -> the number of peers in the room.
BROADCAST = """
redis.call('PUBLISH', ARGV[1], ARGV[2])
return redis.call('HLEN', KEYS[1])
"""

# KEYS: room, meta, live. ARGV: room ttl ms, live ms. -> 1, or 0 if the room is gone.
TOUCH = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('SET', KEYS[3], '1', 'PX', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[2], ARGV[1])
return 1
"""

# KEYS: room, meta, live. ARGV: channel, payload head ("c<code>|<reason>|").
# -> the peers evicted ({} if the room woke up or another instance closed it first).
CLOSE = """
if redis.call('EXISTS', KEYS[3]) == 1 then return {} end
local peers = redis.call('HKEYS', KEYS[1])
if #peers == 0 then return {} end
redis.call('DEL', KEYS[1])
redis.call('PUBLISH', ARGV[1], ARGV[2] .. table.concat(peers, ','))
return peers
"""

# KEYS: room, meta, live, instance set. ARGV: peer, "n|X|hello", "R peer", n, room ttl ms,
# live ms, instance set ttl ms. Puts a peer this instance holds back (after Redis lost it).
READD = """
redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2])
local n = tonumber(redis.call('HGET', KEYS[2], 'n')) or 0
if n < tonumber(ARGV[4]) then redis.call('HSET', KEYS[2], 'n', ARGV[4]) end
redis.call('SADD', KEYS[4], ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
redis.call('PEXPIRE', KEYS[2], ARGV[5])
redis.call('PEXPIRE', KEYS[4], ARGV[7])
redis.call('SET', KEYS[3], '1', 'PX', ARGV[6], 'NX')
return 1
"""

# KEYS: instances, epoch. ARGV: instance, a fresh epoch (kept only if there is none).
# -> the epoch in force.
REGISTER = _NOW + """
redis.call('SET', KEYS[2], ARGV[2], 'NX')
redis.call('PEXPIRE', KEYS[2], ARGV[3])
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return redis.call('GET', KEYS[2])
"""

# KEYS: instances, epoch, instance set. ARGV: instance, its epoch, instance set ttl ms, day ms.
# -> 'ok'; 'lost' (Redis lost its data: another epoch or none); 'reaped' (claimed as dead).
HEARTBEAT = _NOW + """
if redis.call('GET', KEYS[2]) ~= ARGV[2] then return 'lost' end
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 'reaped' end
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('PEXPIRE', KEYS[2], ARGV[4])
redis.call('PEXPIRE', KEYS[3], ARGV[3])
return 'ok'
"""

# KEYS: instances, claims. ARGV: timeout ms, this instance, day ms. -> instances claimed now.
# A dead instance moves from `instances` to `claims` (so that it finds itself gone, should it be
# alive after all); a claim is a lease: one that is not done (ZREM) within the timeout, because
# its claimer died or lost Redis midway, is claimed again.
REAP = _NOW + """
local claimed = {}
local old = now - tonumber(ARGV[1])
for _, x in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', old)) do
  if x ~= ARGV[2] and redis.call('ZREM', KEYS[1], x) == 1 then
    redis.call('ZADD', KEYS[2], now, x)
    claimed[#claimed + 1] = x
  end
end
for _, x in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', old)) do
  redis.call('ZADD', KEYS[2], now, x)
  claimed[#claimed + 1] = x
end
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return claimed
"""


# --------------------------------------------------------------------------------------------
# Settings


@dataclass(frozen=True)
class RedisSettings:
    """Where Redis is and how this instance behaves towards it."""

    url: str
    prefix: str = DEFAULT_PREFIX
    instance_timeout: float = 10.0  # no heartbeat for this long: the instance is dead
    max_connections: int = 32  # commands in flight at once (plus one pub/sub connection)
    command_timeout: float = 5.0  # seconds for a reply (or to connect)

    def __post_init__(self) -> None:
        parts = urlsplit(self.url)
        if parts.scheme not in ("redis", "rediss", "unix") or not (parts.netloc or parts.path):
            raise ValueError(f"not a Redis URL (redis://host:port/db): {self.display_url!r}")
        if not self.prefix or any(c.isspace() for c in self.prefix):
            raise ValueError(f"the Redis prefix must be non-empty, without spaces: "
                             f"{self.prefix!r}")
        for name in ("instance_timeout", "command_timeout"):
            value = getattr(self, name)
            if not (math.isfinite(value) and value > 0):
                raise ValueError(f"{name.replace('_', '-')} must be a positive number of "
                                 "seconds")
        if self.max_connections < 2:
            raise ValueError("max_connections must be at least 2")

    @property
    def display_url(self) -> str:
        """The URL without its password, for logs."""
        parts = urlsplit(self.url)
        if parts.password is None:
            return self.url
        host = parts.netloc.rsplit("@", 1)[-1]
        user = parts.username or ""
        return urlunsplit((parts.scheme, f"{user}:***@{host}", parts.path, parts.query, ""))


class Keys:
    """The names of this deployment's keys and channels."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.instances = prefix + "instances"
        self.claims = prefix + "claims"
        self.epoch = prefix + "epoch"
        self.room_channel_prefix = prefix + "room:"
        self.instance_prefix = prefix + "instance:"

    def room(self, room: str) -> list[str]:
        """The room's hash, meta and live keys (a script's first three KEYS)."""
        base = self.prefix + "room:" + room
        return [base, base + ":meta", base + ":live"]

    def channel(self, room: str) -> str:
        return self.room_channel_prefix + room

    def instance(self, instance: str) -> str:
        return self.instance_prefix + instance


def _ms(seconds: float) -> int:
    return max(1, math.ceil(seconds * 1000))


def _member(room: str, peer: str) -> str:
    return f"{room} {peer}"


@dataclass
class _Local:
    """A peer connected to this instance: its join number (0 while joining) and hello."""

    n: int
    hello: str


class Batch:
    """Runs one script for many callers: the calls made during one turn of the event loop go to
    Redis together, in one pipeline (a round trip and a pool connection for all of them).

    Under load a relay then waits for the pipeline in flight rather than for a free connection:
    with a command each, a thousand relays a second on a busy machine held every connection of
    the pool and callers timed out waiting for one (bench/signalling.py, docs/online.md)."""

    def __init__(self, client: aioredis.Redis, script: Any, keys: int = 1) -> None:
        self.client, self.script, self.keys = client, script, keys
        self.waiting: list[tuple[list[Any], asyncio.Future[Any]]] = []
        self.flushing = False
        self.task: asyncio.Task[None] | None = None

    async def call(self, *keys_then_args: Any) -> Any:
        """The script's reply for these KEYS (the first `keys` values) and ARGV."""
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.waiting.append((list(keys_then_args), future))
        if not self.flushing:
            self.flushing = True
            asyncio.get_running_loop().call_soon(self._start)
        return await future

    def _start(self) -> None:
        self.task = asyncio.create_task(self._flush())

    async def _flush(self) -> None:
        try:
            while self.waiting:
                calls, self.waiting = self.waiting, []
                try:
                    replies = await self._run([c for c, _f in calls])
                except BaseException as exc:  # the callers get it (as their own call would)
                    error = exc if isinstance(exc, Exception) else ConnectionError("stopping")
                    for _c, future in calls:
                        if not future.done():
                            future.set_exception(error)
                    if not isinstance(exc, Exception):
                        raise
                    continue
                for (_c, future), reply in zip(calls, replies, strict=True):
                    if future.done():
                        continue
                    if isinstance(reply, Exception):
                        future.set_exception(reply)
                    else:
                        future.set_result(reply)
        finally:
            self.flushing = False

    async def _run(self, calls: list[list[Any]]) -> list[Any]:
        replies = await self._pipeline(calls)
        if any(isinstance(r, NoScriptError) for r in replies):  # Redis restarted: load, again
            await self.client.script_load(self.script.script)
            again = [i for i, r in enumerate(replies) if isinstance(r, NoScriptError)]
            for i, reply in zip(again, await self._pipeline([calls[i] for i in again]),
                                strict=True):
                replies[i] = reply
        return replies

    async def _pipeline(self, calls: list[list[Any]]) -> list[Any]:
        async with self.client.pipeline(transaction=False) as pipe:
            for values in calls:
                pipe.evalsha(self.script.sha, self.keys, *values)
            replies: list[Any] = await pipe.execute(raise_on_error=False)
        return replies


# --------------------------------------------------------------------------------------------
# The store


class RedisRoomStore:
    """`RoomStore` kept in Redis and shared by every instance that uses the same Redis."""

    def __init__(self, mailbox: Mailbox, settings: RedisSettings) -> None:
        self._mailbox = mailbox
        self.settings = settings
        self.log = mailbox.log
        self.keys = Keys(settings.prefix)
        self.instance = secrets.token_hex(6)
        config = mailbox.config
        # Activity renews a room at most this often (per instance): its idle expiry is then
        # between idle_timeout and idle_timeout + touch_every + a sweep after its last message.
        self.touch_every = min(config.idle_timeout / 10, 5.0)
        self.live_ms = _ms(config.idle_timeout + self.touch_every)
        # Membership outlives liveness long enough for some instance to sweep the idle room.
        self.room_ttl_ms = self.live_ms + _ms(max(60.0, 4 * config.sweep_interval))
        self.refill_ms = _ms(config.join_burst / config.join_rate)
        self.set_ttl_ms = max(self.room_ttl_ms, _ms(4 * settings.instance_timeout))
        self.beat_every = settings.instance_timeout / 4
        # The longest payload this helper publishes: a relay whose 16 KiB of data came back
        # with every 4-byte character escaped (12 characters), its head and wrapper. Longer
        # ones are dropped: before, 1 MiB published on a channel reached the peer whole.
        self.max_payload = 3 * config.max_message_bytes + 1024
        self.redis: aioredis.Redis = aioredis.Redis(
            connection_pool=aioredis.BlockingConnectionPool.from_url(
                settings.url,
                max_connections=settings.max_connections,
                timeout=settings.command_timeout,  # waiting for a free connection
                socket_timeout=settings.command_timeout,
                socket_connect_timeout=settings.command_timeout,
                retry=Retry(ExponentialBackoff(cap=0.2, base=0.02), 1),
                decode_responses=True,
                # What this instance writes is UTF-8; bytes that are not (published into a
                # channel or written into a key by anyone else with access to this Redis) become
                # U+FFFD instead of a UnicodeDecodeError: raised in the pub/sub reader, one such
                # message once ended the listener for good and the instance delivered nothing.
                encoding_errors="replace",
            )
        )
        self.pubsub = self.redis.pubsub()
        register = self.redis.register_script
        self._join, self._leave, self._send = register(JOIN), register(LEAVE), register(SEND)
        self._broadcast, self._touch, self._close = (
            register(BROADCAST), register(TOUCH), register(CLOSE))
        self._readd, self._register = register(READD), register(REGISTER)
        self._heartbeat, self._reap = register(HEARTBEAT), register(REAP)
        # The calls that come with every message go in pipelines (see Batch).
        self._relays = Batch(self.redis, self._send)
        self._broadcasts = Batch(self.redis, self._broadcast)
        self._touches = Batch(self.redis, self._touch, keys=3)
        # Local state: only about this instance's own sockets.
        self.members: dict[tuple[str, str], _Local] = {}  # joined or joining here
        self.local_rooms: dict[str, set[str]] = {}  # room -> its peers here (joined)
        self._wanted: dict[str, int] = {}  # room -> peers here needing its channel
        self._ready: dict[str, asyncio.Future[None]] = {}  # room -> its subscription confirmed
        self._touched: dict[str, float] = {}
        # Anyone who can publish on our channels could fill the log with one line per hostile
        # payload: at most BAD_LOG_BURST such lines at once, BAD_LOG_RATE a second after that;
        # the next line that is written counts the ones left out ("unlogged").
        self._bad_log = TokenBucket(BAD_LOG_RATE, BAD_LOG_BURST, time.monotonic())
        self._bad_unlogged = 0
        self.epoch: str | None = None  # None: not registered yet
        self.outage = False  # a Redis call failed since the last resync
        self.synced = False  # Redis holds what this instance holds (idle sweeps allowed)
        self._healthy_since: float | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._listener: asyncio.Task[None] | None = None
        self._listening = asyncio.Event()  # the pub/sub connection is up
        self._keeper: asyncio.Task[None] | None = None
        self._closing = False

    @classmethod
    def factory(cls, settings: RedisSettings) -> Callable[[Mailbox], RedisRoomStore]:
        """For `SignalHub(store=...)`: the hub is the store's mailbox."""
        return lambda mailbox: cls(mailbox, settings)

    # ---- lifecycle

    async def start(self) -> None:
        self._listener = asyncio.create_task(self._listen())
        try:
            await asyncio.wait_for(self._listening.wait(), self.settings.command_timeout)
            await self._enrol()
            self._healthy_since = time.monotonic()
            self.log({"event": "redis-up", "instance": self.instance,
                      "redis": self.settings.display_url})
        except (StoreUnavailable, TimeoutError) as exc:
            self._down(exc)  # the keeper tries again shortly
        self._keeper = asyncio.create_task(self._keep())

    async def close(self) -> None:
        self._closing = True  # the loops stop even where redis-py turns a cancel into an error
        batches = (self._relays.task, self._broadcasts.task, self._touches.task)
        tasks = [t for t in (self._keeper, self._listener, *batches, *self._tasks)
                 if t is not None and not t.done()]
        for task in tasks:
            task.cancel()
        if tasks:
            # Bounded, and without swallowing a cancel of close() itself: awaiting each task
            # under suppress(CancelledError) once hung a shutdown until an outer timeout, whose
            # cancel it then swallowed.
            done, pending = await asyncio.wait(tasks, timeout=self.settings.command_timeout)
            for task in done:
                if not task.cancelled():
                    task.exception()  # retrieved: a task that failed on its way out is over
            if pending:
                self.log({"event": "internal-error", "where": "close",
                          "error": f"{len(pending)} background tasks did not stop"})
        with contextlib.suppress(RedisError, OSError, StoreUnavailable):
            for (room, peer), local in list(self.members.items()):
                if local.n:  # peers whose leaving the hub did not get to (shutdown under way)
                    self._forget(room, peer)
                    if await self._remove(room, peer, self.instance):
                        await self.broadcast(room, peer_left_message(peer))
            await self.redis.zrem(self.keys.instances, self.instance)
            await self.redis.delete(self.keys.instance(self.instance))
        with contextlib.suppress(RedisError, OSError):
            await self.pubsub.aclose()
        with contextlib.suppress(RedisError, OSError):
            await self.redis.aclose()
        with contextlib.suppress(RedisError, OSError):
            await self.redis.connection_pool.disconnect()

    # ---- calls to Redis

    async def _call(self, call: Awaitable[T]) -> T:
        try:
            return await call
        except (RedisError, OSError, TimeoutError) as exc:
            self._down(exc)
            raise StoreUnavailable(str(exc)) from None

    def _down(self, exc: BaseException) -> None:
        if not self.outage:
            self.log({"event": "redis-down", "instance": self.instance,
                      "error": f"{type(exc).__name__}: {exc}"[:300]})
        self.outage, self.synced, self._healthy_since = True, False, None

    def _background(self, call: Awaitable[Any]) -> None:
        async def run() -> None:
            with contextlib.suppress(StoreUnavailable):
                await self._call(call)

        task = asyncio.create_task(run())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # ---- subscriptions: one channel per room with a peer here

    async def _acquire(self, room: str) -> None:
        """Count one more local peer needing the room's channel; wait until subscribed.
        Whatever happens, the caller balances it with `_release`."""
        self._wanted[room] = self._wanted.get(room, 0) + 1
        ready = self._ready.get(room)
        if ready is None:
            ready = self._ready[room] = asyncio.get_running_loop().create_future()
            try:
                if not self.listening:  # only the listener reconnects the pub/sub connection
                    raise StoreUnavailable("the pub/sub connection is down")
                await self._call(self.pubsub.subscribe(self.keys.channel(room)))
            except StoreUnavailable as exc:
                if self._ready.get(room) is ready:
                    del self._ready[room]
                if not ready.done():
                    ready.set_exception(exc)
                    ready.exception()  # retrieved: the others waiting get it too
                raise
        try:
            await asyncio.wait_for(asyncio.shield(ready), self.settings.command_timeout)
        except TimeoutError:
            raise StoreUnavailable("no subscription confirmed in time") from None

    def _release(self, room: str) -> None:
        count = self._wanted.get(room, 0) - 1
        if count > 0:
            self._wanted[room] = count
            return
        self._wanted.pop(room, None)
        self._ready.pop(room, None)
        self._touched.pop(room, None)
        self._background(self._unsubscribe(room))

    async def _unsubscribe(self, room: str) -> None:
        # Commands go out on the pub/sub connection in call order, so a join that wanted the
        # room again before this ran has its SUBSCRIBE after this UNSUBSCRIBE, or this is
        # skipped.
        # Down, it is left to the resync after the reconnection.
        if room not in self._wanted and self.listening:
            await self.pubsub.unsubscribe(self.keys.channel(room))

    @property
    def listening(self) -> bool:
        """The pub/sub connection is up (and so every channel wanted is subscribed)."""
        connection = self.pubsub.connection
        return self._listening.is_set() and connection is not None and connection.is_connected

    @property
    def ready(self) -> bool:
        """Redis agrees with this instance and its pub/sub connection is up."""
        return self.synced and self.listening

    async def _listen(self) -> None:
        own = self.keys.instance(self.instance)
        pause = 0.05
        while True:
            try:
                if not self.pubsub.subscribed:
                    await self.pubsub.subscribe(own)  # keeps the connection, and so the reader
                message = await self.pubsub.get_message(timeout=None)
                pause = 0.05
            except (RedisError, OSError, TimeoutError) as exc:
                if self._closing:  # the connection went because the store is closing
                    return
                self._listening.clear()
                self._down(exc)
                await asyncio.sleep(pause)  # redis-py reconnects and re-subscribes on the next
                pause = min(1.0, pause * 2)
                continue
            except Exception as exc:  # noqa: BLE001 - the listener must outlive any reply
                # Whatever a reply raised that is not the connection's failure (a parser or
                # decoder error on something another Redis client published), the listener
                # goes on: before, a UnicodeDecodeError ended this task, and the instance then
                # delivered no relay nor broadcast while its heartbeat said it was healthy.
                if self._closing:
                    return
                self.log({"event": "internal-error", "where": "redis-listen",
                          "error": f"{type(exc).__name__}: {exc}"[:300]})
                await asyncio.sleep(pause)
                pause = min(1.0, pause * 2)
                continue
            if message is not None and message["type"] == "subscribe" \
                    and message["channel"] == own:
                self._listening.set()  # after every (re)connection, which re-subscribes it
            if message is not None:
                try:
                    self._deliver(message)
                except Exception as exc:  # a payload we cannot read: say so, keep listening
                    self.log({"event": "internal-error", "where": "redis-deliver",
                              "error": f"{type(exc).__name__}: {exc}"[:300]})

    def _refuse_payload(self, channel: str, why: str) -> None:
        """A message on one of our channels that this helper never publishes: dropped, said."""
        self._log_bad({"why": why, "channel": "instance"
                       if channel.startswith(self.keys.instance_prefix) else "room"})

    def _log_bad(self, details: dict[str, Any]) -> None:
        """One `bad-redis-message` line, within the log budget; lines over it are counted and
        the count is written with the next line the budget allows."""
        if not self._bad_log.take(time.monotonic()):
            self._bad_unlogged += 1
            return
        record = {"event": "bad-redis-message", "instance": self.instance, **details}
        if self._bad_unlogged:
            record["unlogged"], self._bad_unlogged = self._bad_unlogged, 0
        self.log(record)

    def _deliver(self, message: dict[str, Any]) -> None:
        kind, channel = message["type"], message["channel"]
        if kind == "subscribe":
            room = channel[len(self.keys.room_channel_prefix):]
            ready = self._ready.get(room)
            if ready is not None and not ready.done():
                ready.set_result(None)
            return
        if kind != "message":
            return
        data = message["data"]
        if not isinstance(data, str):
            return
        # Anyone who can publish on this Redis can publish on our channels: a payload is
        # checked as a peer's message would be, never trusted to be one this helper wrote.
        if len(data) > self.max_payload:
            self._refuse_payload(channel, "too-big")
            return
        head = data[:1]
        if head == "s":  # on this instance's own channel
            to, sender = data[1:13], data[13:25]
            room, _, text = data[25:].partition("|")
            if not (PEER_ID_RE.fullmatch(to) and (sender == NOBODY or PEER_ID_RE.fullmatch(
                    sender)) and ROOM_ID_RE.fullmatch(room) and text.startswith("{")):
                self._refuse_payload(channel, "bad-relay")
                return
            if to in self.local_rooms.get(room, ()):
                try:
                    self._mailbox.post(room, to, text, None if sender == NOBODY else sender)
                except TargetBusy as busy:  # dropped; the sender hears it once per run
                    if busy.report:
                        self._background(self.send(room, sender, target_busy_message(to)))
            return
        if not channel.startswith(self.keys.room_channel_prefix):
            return
        room = channel[len(self.keys.room_channel_prefix):]
        here = self.local_rooms.get(room)
        if not here:
            return
        if head == "b":
            exclude = data[1:13]
            number, _, text = data[13:].partition("|")
            if not (number.isascii() and number.isdigit() and len(number) <= 15
                    and text.startswith("{")):
                self._refuse_payload(channel, "bad-broadcast")
                return
            after = int(number)
            for peer in list(here):
                if peer == exclude:
                    continue
                local = self.members.get((room, peer))
                if after and local is not None and local.n > after:
                    continue  # joined after `exclude` did: its welcome already named it
                self._mailbox.post(room, peer, text)
        elif head == "c":
            parts = data[1:].split("|", 2)
            # Only the codes a room is closed with, and a reason that fits a close frame (125
            # bytes with the code): before, code 99999 dropped the socket without a close
            # frame and a long reason made the helper send a frame the client refused.
            if len(parts) != 3 or not (parts[0].isascii() and parts[0].isdigit()
                                       and 4000 <= int(parts[0]) <= 4999) \
                    or len(parts[1].encode()) > MAX_CLOSE_REASON:
                self._refuse_payload(channel, "bad-close")
                return
            code, reason, peers = parts
            for peer in peers.split(","):
                if peer in here:
                    self._forget(room, peer)
                    self._background(self.redis.srem(self.keys.instance(self.instance),
                                                     _member(room, peer)))
                    self._mailbox.evict(room, peer, int(code), reason)
        else:
            self._refuse_payload(channel, "unknown")

    # ---- RoomStore

    async def join(self, room: str, peer: str, hello: JSON, limits: RoomLimits,
                   now: float) -> list[Member]:
        key = (room, peer)
        if key in self.members:
            raise KeyError(peer)
        if self.outage:
            # A Redis call failed and the heartbeat (every 0.25 s meanwhile) has not found Redis
            # back yet: this join would wait command_timeout twice (a try and redis-py's retry)
            # for the same refusal, 10 s with a hung Redis. Refused at once; the page joins
            # again after its back-off.
            raise StoreUnavailable("Redis is unreachable")
        hello_text = json.dumps(hello, separators=(",", ":"), allow_nan=False)
        self.members[key] = _Local(0, hello_text)  # joining: a resync must leave it alone
        joined = False
        try:
            await self._acquire(room)
            reply = await self._call(self._join(
                keys=[*self.keys.room(room), self.keys.instance(self.instance)],
                args=[peer, f"{self.instance}|{hello_text}", limits.cap, limits.join_rate,
                      limits.join_burst, _member(room, peer), self.room_ttl_ms, self.live_ms,
                      self.set_ttl_ms]))
            status = reply[0]
            if status == "taken":
                raise KeyError(peer)
            if status == "full":
                raise RoomFull(room)
            if status == "busy":
                raise RoomBusy(room)
            joined = True
        finally:
            if not joined:
                self.members.pop(key, None)
                self._release(room)
        self.members[key].n = int(reply[1])
        self.local_rooms.setdefault(room, set()).add(peer)
        self._touched[room] = time.monotonic()
        fields = reply[2:]
        others = []
        damaged = 0
        for other, value in zip(fields[::2], fields[1::2], strict=True):
            if other != peer:
                stored = self._stored_member(other, value)
                if stored is None:
                    damaged += 1
                else:
                    others.append(stored)
        if damaged:
            self._log_bad({"why": "bad-member", "channel": "room", "count": damaged})
        return [Member(p, h) for _n, p, h in sorted(others)]

    def _stored_member(self, peer: str, value: str) -> tuple[int, str, dict[str, Any]] | None:
        """A field of a room's hash as (join number, peer, hello); None for one this helper
        did not write (written by another Redis client): it is left out of the welcome.
        Before, one such field made every later join of the room fail with 1011 after its
        JOIN script had run, and so left a ghost peer in the room at each attempt."""
        parts = value.split("|", 2)
        if not PEER_ID_RE.fullmatch(peer) or len(parts) != 3 or not (
                parts[0].isascii() and parts[0].isdigit() and len(parts[0]) <= 15) \
                or len(parts[2]) > self._mailbox.config.max_hello_bytes:
            return None
        try:
            hello = check_hello(json.loads(parts[2]))
        except (ValueError, RecursionError, SignalError):
            return None
        return int(parts[0]), peer, hello

    async def leave(self, room: str, peer: str) -> list[str]:
        if self._forget(room, peer) is None:
            return []
        left = await self._remove(room, peer, self.instance)
        return left or []

    async def _remove(self, room: str, peer: str, instance: str) -> list[str] | None:
        """Take the peer out of Redis; the peers left (None if it was already gone)."""
        left: list[str] | None = await self._call(self._leave(
            keys=[*self.keys.room(room), self.keys.instance(instance)],
            args=[peer, _member(room, peer), self.refill_ms]))
        return left

    def _forget(self, room: str, peer: str) -> _Local | None:
        """Drop a local peer from this instance's own state."""
        local = self.members.pop((room, peer), None)
        if local is None:
            return None
        here = self.local_rooms.get(room)
        if here is not None:
            here.discard(peer)
            if not here:
                del self.local_rooms[room]
        self._release(room)
        return local

    async def send(self, room: str, to: str, text: str, sender: str | None = None) -> bool:
        sent = await self._call(self._relays.call(
            self.keys.room(room)[0], to, self.keys.instance_prefix,
            f"s{to}{sender or NOBODY}{room}|{text}"))
        return bool(sent)

    async def broadcast(self, room: str, text: str, exclude: str | None = None) -> int:
        size = await self._call(self._broadcasts.call(
            self.keys.room(room)[0], self.keys.channel(room),
            f"b{exclude or NOBODY}{self._join_number(room, exclude)}|{text}"))
        return max(0, int(size) - (exclude is not None))

    def _join_number(self, room: str, peer: str | None) -> int:
        """The join number of a peer of this instance (0: none, or not known here)."""
        local = self.members.get((room, peer)) if peer is not None else None
        return local.n if local is not None else 0

    async def touch(self, room: str, now: float) -> None:
        """Renew the room's expiry, at most every `touch_every` seconds per instance. Not waited
        for: the message that caused it is not held up, and a failed touch only ages the room
        (the next message tries again)."""
        clock = time.monotonic()
        if clock - self._touched.get(room, -math.inf) < self.touch_every:
            return
        self._touched[room] = clock
        self._background(self._touches.call(*self.keys.room(room), self.room_ttl_ms,
                                            self.live_ms))

    async def idle_rooms(self, now: float, idle_timeout: float) -> list[str]:
        """Rooms with a peer here whose live key expired (by Redis's clock, not `now`)."""
        if not self.synced or not self.local_rooms:
            return []
        rooms = list(self.local_rooms)
        async with self.redis.pipeline(transaction=False) as pipe:
            for room in rooms:
                pipe.exists(self.keys.room(room)[2])
            alive = await self._call(pipe.execute())
        return [room for room, live in zip(rooms, alive, strict=True) if not live]

    async def close_room(self, room: str, code: int, reason: str) -> list[str]:
        reason = reason.replace("|", " ")
        peers: list[str] = await self._call(self._close(
            keys=self.keys.room(room), args=[self.keys.channel(room), f"c{code}|{reason}|"]))
        return peers

    async def members_of(self, room: str) -> list[str]:
        """The room's peer ids in joining order, wherever they are connected (tests, stats)."""
        fields = await self._call(self.redis.hgetall(self.keys.room(room)[0]))
        stored = (self._stored_member(p, v) for p, v in fields.items())
        return [p for _n, p, _h in sorted(m for m in stored if m is not None)]

    # ---- heartbeats, recovery, dead instances

    async def _enrol(self) -> None:
        """Register this instance (the epoch in force becomes ours), then put back what it
        holds."""
        self.epoch = await self._call(self._register(
            keys=[self.keys.instances, self.keys.epoch],
            args=[self.instance, secrets.token_hex(8), DAY_MS]))
        await self.resync()

    async def _keep(self) -> None:
        while not self._closing:
            await asyncio.sleep(0.25 if self.outage else self.beat_every)
            try:
                await self._beat()
            except StoreUnavailable:
                pass  # said by _down; tried again shortly

    async def _beat(self) -> None:
        if self.epoch is None:  # Redis was unreachable when this instance started
            await self._enrol()
        else:
            status = await self._call(self._heartbeat(
                keys=[self.keys.instances, self.keys.epoch, self.keys.instance(self.instance)],
                args=[self.instance, self.epoch, self.set_ttl_ms, DAY_MS]))
            if status == "lost":  # a restart without persistence (or a flush)
                self.log({"event": "redis-reset", "instance": self.instance,
                          "peers": len(self.members)})
                await self._enrol()
            elif status == "reaped":
                self._evict_all()
                await self._enrol()
            elif self.outage or not self.synced:
                await self.resync()
        await self._check_subscribed()
        if self._healthy_since is None:
            self._healthy_since = time.monotonic()
        # Claim others only after a stretch of good health of our own: right after an outage
        # the others have not had the time to beat either.
        if time.monotonic() - self._healthy_since >= self.settings.instance_timeout:
            await self._claim_dead()

    async def _check_subscribed(self) -> None:
        """Whether Redis knows a subscriber of this instance's own channel while the listener
        believes it is listening; if not, the pub/sub connection is dead without having been
        closed (a NAT or firewall that dropped the flow, a Redis that restarted behind one):
        reconnect it. Before, the listener waited on such a connection for ever (a blocking
        read has no timeout), the heartbeat recovered on fresh pool connections, and every
        relay to this instance's peers was published to a channel that nobody read."""
        if not self.listening:
            return  # (re)connecting: the listener's own subscribe confirms it
        own = self.keys.instance(self.instance)
        counts = await self._call(self.redis.pubsub_numsub(own))
        if counts and int(counts[0][1]) > 0:
            return
        if not self.listening:
            return  # it went down (and is being reconnected) meanwhile
        self.log({"event": "redis-pubsub-stale", "instance": self.instance})
        self._listening.clear()
        connection = self.pubsub.connection
        if connection is not None:
            # The listener's read fails now, and redis-py reconnects and re-subscribes.
            await connection.disconnect(nowait=True)

    def _evict_all(self) -> None:
        """Another instance took us for dead and removed our peers: close their sockets so
        that they join again (and are heard of again)."""
        peers = [key for key, local in self.members.items() if local.n]
        self.log({"event": "instance-reaped", "instance": self.instance, "peers": len(peers)})
        for room, peer in peers:
            self._forget(room, peer)
            self._mailbox.evict(room, peer, CLOSE_RESTART, "the helper lost its place")

    async def resync(self) -> None:
        """Make Redis agree with the sockets this instance holds: put back peers it lost,
        remove (and announce) peers that left while Redis was out of reach, drop channels no
        longer needed."""
        stored = await self._call(self.redis.smembers(self.keys.instance(self.instance)))
        removed = added = 0
        for member in stored:
            room, _, peer = member.partition(" ")
            if (room, peer) in self.members or not (ROOM_ID_RE.fullmatch(room)
                                                    and PEER_ID_RE.fullmatch(peer)):
                continue
            left = await self._remove(room, peer, self.instance)
            if left is not None:
                removed += 1
                if left:
                    await self.broadcast(room, peer_left_message(peer))
        for (room, peer), local in list(self.members.items()):
            if not local.n:
                continue  # still joining: its own join script puts it there
            await self._call(self._readd(
                keys=[*self.keys.room(room), self.keys.instance(self.instance)],
                args=[peer, f"{local.n}|{self.instance}|{local.hello}", _member(room, peer),
                      local.n, self.room_ttl_ms, self.live_ms, self.set_ttl_ms]))
            added += 1
        wanted = {self.keys.channel(room) for room in self._wanted}
        wanted.add(self.keys.instance(self.instance))
        stale = [c for c in self.pubsub.channels if str(c) not in wanted]
        if stale:
            await self._call(self.pubsub.unsubscribe(*stale))
        was_out = self.outage
        self.outage, self.synced = False, True
        if was_out:
            self.log({"event": "redis-back", "instance": self.instance, "peers": added,
                      "removed": removed})

    async def _claim_dead(self) -> None:
        claimed: list[str] = await self._call(self._reap(
            keys=[self.keys.instances, self.keys.claims],
            args=[_ms(self.settings.instance_timeout), self.instance, DAY_MS]))
        for instance in claimed:
            members = await self._call(self.redis.smembers(self.keys.instance(instance)))
            gone = 0
            for member in members:
                room, _, peer = member.partition(" ")
                if not (ROOM_ID_RE.fullmatch(room) and PEER_ID_RE.fullmatch(peer)):
                    continue
                left = await self._remove(room, peer, instance)
                if left is not None:
                    gone += 1
                    if left:
                        await self.broadcast(room, peer_left_message(peer))
            async with self.redis.pipeline(transaction=True) as pipe:
                pipe.delete(self.keys.instance(instance))
                pipe.zrem(self.keys.claims, instance)
                await self._call(pipe.execute())
            self.log({"event": "instance-gone", "instance": instance, "peers": gone,
                      "by": self.instance})
