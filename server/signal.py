"""The signalling helper: a WebSocket endpoint that introduces the peers of an online room.

It relays WebRTC offers, answers and ICE candidates (opaque JSON payloads) between the peers of
one room and nothing else: game moves travel over the peers' own data channels and never pass
through here. docs/online.md describes the message schema, the settings and the threat model.

Rooms. A room id is made by the host's page (`net.signalling.new_room_id`: 128 random bits as
22 base64url characters) and travels in the link's fragment. The helper accepts any id of 22 to
64 base64url characters and creates the room when its first peer joins, so a link keeps working
after the room went idle or the helper restarted, several helper instances need no shared id
allocator, and there is no "create" round trip. The helper cannot check that an id is random;
a page that made a guessable id only exposes its own room.

Peers. Each connection is one peer; the helper gives it an id (12 hex digits) unique in its
room. A peer can address only peers of its own room: ids are looked up in the sender's room, so
the id of a peer elsewhere is "unknown-peer". Every peer hears who joins and leaves.

Limits. Every message is at most `max_message_bytes` (aiohttp refuses a bigger frame and closes
with 1009), must be a JSON object of a known `type` with exactly the fields of that type, and
costs a token from the peer's bucket (`rate_per_second`, `rate_burst`), as does a WebSocket ping
frame, which the helper answers itself (aiohttp answered every one, without limit). Client frames
must be masked (RFC 6455; `MaskedFramesOnly`): an unmasked one closes with 1002. A room holds at
most `room_cap` peers and the helper at most `max_peers` connections. A connection that has not
joined within `join_timeout` seconds, and every peer of a room in which nobody sent anything for
`idle_timeout` seconds, is closed. Bad input is answered with an `error` message (never a
traceback); `max_bad_messages` of them close the connection.

Origins. A browser's WebSocket handshake carries its page's Origin. By default only the
helper's own origin is accepted (the Origin's host[:port] equals the request's Host, the scheme
is not compared so a TLS-terminating proxy in front works); `allowed_origins` adds others, and
"*" accepts any (also a missing Origin, which only non-browser clients send).

Joins. Besides the cap, a room takes at most `join_burst` joins at once and `join_rate` a second
after that, whoever joins and wherever: a peer that reconnects to get a fresh message budget
(or a fresh connection on another instance) is bounded by its room's join budget. Before that
budget is touched, each client address (an IPv6 /64; with `forwarded_for`, the proxy's
X-Forwarded-For) has its own, smaller budget per room in this process, so that one address
joining in a loop cannot spend the room's budget for everybody else; and one address holds at
most `address_room_peers` peers of a room at once, so that it cannot take every place. Across
all rooms, one address holds at most `address_connections` connections and has a join budget
of its own (`address_all_join_*`): a made-up room id costs nothing, so without it one address
could open rooms until the process is full.

Hostile peers. A join's `hello` is copied to every later joiner, so it is checked: HELLO_KEYS
only, short scalar values. Numbers that overflow to Infinity, and integers that JavaScript
cannot hold exactly (over 2^53 - 1), are refused anywhere in a message, so the page reads what
was sent; Infinity/NaN are never written (JavaScript's JSON.parse refuses them). Every message
queued for a peer counts against `outbox_limit`, the helper's own (pong, error) too. Relays
queued from one sender to one peer are bounded (`pair_queue_messages`, `pair_queue_bytes`; all
senders together, half the outbox): over that the relay is dropped and the sender told
`target-busy` once per run, so a fast sender cannot get a slow reader cut off.

Scaling out (issue 15). All room state lives behind `RoomStore`; `MemoryRoomStore` keeps it in
this process, and `server.signal_redis.RedisRoomStore` (chosen by `--redis-url` or `REDIS_URL`)
keeps it in Redis so that several helper instances serve the same rooms: membership, the cap,
the join budget and idleness in keys with TTLs, delivery through one pub/sub channel per room,
each instance delivering to the connections it holds through its `Mailbox` (the hub). What
stays in one process is only what belongs to its sockets: a connection's message budget, its
count of bad messages, its outbox. A store that cannot reach Redis raises `StoreUnavailable`:
a join is then refused with 1013 (try again later), a relay with an `unavailable` error.

Logs: one JSON object per line (`JsonLines`), one per event; room ids appear only as a short
hash (`room_tag`), since the id itself is the key to the room, and payloads are never logged.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import functools
import hashlib
import hmac
import ipaddress
import json
import math
import os
import re
import secrets
import sys
import time
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TextIO
from urllib.parse import urlsplit

from aiohttp import WSCloseCode, WSMsgType, web
from aiohttp.http_websocket import WebSocketError

from server.app import make_app

PROTOCOL_VERSION = 1
DEFAULT_PATH = "/signal"
ROOM_ID_PATTERN = r"[A-Za-z0-9_-]{22,64}"
PEER_ID_PATTERN = r"[0-9a-f]{12}"
ROOM_ID_RE = re.compile(ROOM_ID_PATTERN)
PEER_ID_RE = re.compile(PEER_ID_PATTERN)

# The three kinds of message the helper passes from one peer to another, untouched.
RELAYED_TYPES = frozenset({"offer", "answer", "candidate"})
# Exactly the fields each client message may carry: required ones, then optional ones.
CLIENT_FIELDS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "join": (frozenset({"type", "v", "room"}), frozenset({"hello"})),
    "offer": (frozenset({"type", "to", "data"}), frozenset()),
    "answer": (frozenset({"type", "to", "data"}), frozenset()),
    "candidate": (frozenset({"type", "to", "data"}), frozenset()),
    "ping": (frozenset({"type"}), frozenset()),
}

# What a join's `hello` may say about the peer: known keys, each a short scalar. The page sends
# {"role": "host"} or {"role": "guest"}; other peers' hellos are copied into `welcome`, so a
# nested or bulky one would reach every later joiner (the page refuses deep messages).
HELLO_KEYS = frozenset({"role"})
MAX_HELLO_TEXT = 64  # characters of a string value in `hello`

# Close codes (4000-4999 are the application's own; 1001, 1009 and 1011 are standard).
CLOSE_IDLE = 4000
CLOSE_ROOM_FULL = 4001
CLOSE_JOIN_TIMEOUT = 4002
CLOSE_MISBEHAVING = 4003
CLOSE_SLOW = 4004
CLOSE_VERSION = 4005
CLOSE_ROOM_BUSY = 4006
CLOSE_ADDRESS_FULL = 4007  # this client address already holds its share of the room
CLOSE_RESTART = 1012  # the shared store forgot this instance: join again
CLOSE_TRY_LATER = 1013  # the shared store is unreachable: join again a little later
CLOSE_GOING_AWAY = 1001
CLOSE_INTERNAL = 1011
CLOSE_WAIT = 10.0  # seconds a closing peer has to acknowledge the close

# The longest idle timeout: pages ping every half of it with setInterval, whose delay is at most
# 2^31 - 1 ms (24.8 days; a longer one fires at once, so every page would ping without pause).
MAX_IDLE_TIMEOUT = 86_400.0  # a day

JSON = Any  # a value json.loads can return
ICE_SCHEMES = ("stun:", "stuns:", "turn:", "turns:")


class SignalError(Exception):
    """Bad input from a peer: answered with an `error` message, never with a traceback."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class RoomFull(Exception):
    """The room already holds its cap of peers."""


class RoomBusy(Exception):
    """The room's join budget is spent (too many joins in a short time)."""


class TargetBusy(Exception):
    """Too much from one sender is already queued for the target peer: the relay is dropped.
    `report` is true for the first refusal of a run (the sender is told once per run)."""

    def __init__(self, report: bool) -> None:
        super().__init__("target busy")
        self.report = report


class StoreUnavailable(Exception):
    """A shared store that cannot be reached now (Redis down or restarting): try again later."""


# --------------------------------------------------------------------------------------------
# Configuration


def normalise_origin(origin: str) -> str:
    """`scheme://host[:port]` in lower case, as browsers send it; ValueError if it is not one."""
    if origin == "*":
        return origin
    parts = urlsplit(origin.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.path not in ("", "/"):
        raise ValueError(f"not an origin (scheme://host[:port]): {origin!r}")
    if parts.query or parts.fragment or "@" in parts.netloc:
        raise ValueError(f"not an origin (scheme://host[:port]): {origin!r}")
    return f"{parts.scheme}://{parts.netloc}".lower()


@dataclass(frozen=True)
class SignalConfig:
    """Every limit and setting of the helper; the defaults suit one small public helper."""

    path: str = DEFAULT_PATH
    max_message_bytes: int = 16 * 1024
    max_hello_bytes: int = 1024  # a peer's self-description, kept for the room's lifetime
    room_cap: int = 16  # four seats and a dozen spectators
    max_peers: int = 10_000  # connections per helper process
    rate_per_second: float = 20.0
    rate_burst: int = 120  # a host answering 15 peers sends ~100 messages at once
    # Joins per room, whoever joins (a reconnecting peer cannot renew its message budget
    # endlessly): 40 at once, then one every 2 s. A full room of 16 reloading twice fits.
    join_rate: float = 0.5
    join_burst: int = 40
    max_bad_messages: int = 20  # errors (bad input or rate) before the connection is closed
    join_timeout: float = 10.0
    idle_timeout: float = 600.0
    sweep_interval: float = 5.0
    heartbeat: float = 30.0  # WebSocket pings that find dead connections
    outbox_limit: int = 256  # messages queued for a peer that does not read: then it is closed
    # Relays queued from one sender to one peer: over either bound the sender hears
    # "target-busy" and the relay is dropped, so a fast sender cannot get a slow reader cut off.
    # Relays from all senders together may fill half the outbox, never all of it.
    pair_queue_bytes: int = 64 * 1024
    pair_queue_messages: int = 32
    # Joins per remote address and room: one address (one attacker reloading in a loop) cannot
    # spend the room's whole join budget. 20 at once, then one every 5 s.
    address_join_rate: float = 0.2
    address_join_burst: int = 20
    # Peers one address may hold in one room at once: four players behind one home router, a
    # spectator and a reload's overlap fit; one address cannot fill the room (16) on its own.
    address_room_peers: int = 6
    # And across all rooms of this process: connections one address holds at once, and its
    # joins (a made-up room id costs nothing, so without these one address could open rooms
    # until the process is full: 1,500 rooms in 6 s, about 20 KiB each). A household or an
    # office behind one address plays far below them.
    address_connections: int = 64
    address_all_join_rate: float = 1.0
    address_all_join_burst: int = 60
    # Take the client's address from the last X-Forwarded-For entry (set it only behind a
    # proxy that sets that header; otherwise every client could claim any address).
    forwarded_for: bool = False
    same_origin: bool = True
    allowed_origins: frozenset[str] = frozenset()
    # Handed to every peer in `welcome`: RTCIceServer dicts (STUN, or TURN with fixed secrets).
    ice_servers: tuple[dict[str, Any], ...] = ()
    # TURN with coturn's REST scheme (use-auth-secret): short-lived credentials per peer.
    turn_urls: tuple[str, ...] = ()
    turn_secret: str | None = None
    turn_ttl: int = 6 * 3600
    # TURN credentials per client address (all rooms, this process): anybody who can open a
    # WebSocket can join a made-up room, so without a bound one address could collect any
    # number of them. 10 at once, then one a minute; past that `welcome` has no TURN entry.
    turn_address_burst: int = 10
    turn_address_rate: float = 1 / 60

    def __post_init__(self) -> None:
        if not self.path.startswith("/"):
            raise ValueError(f"path must start with '/': {self.path!r}")
        for name in ("max_message_bytes", "max_hello_bytes", "room_cap", "max_peers",
                     "rate_burst", "join_burst", "max_bad_messages", "outbox_limit", "turn_ttl",
                     "pair_queue_bytes", "pair_queue_messages", "address_join_burst",
                     "address_room_peers", "turn_address_burst", "address_connections",
                     "address_all_join_burst"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1")
        for name in ("rate_per_second", "join_rate", "join_timeout", "idle_timeout",
                     "sweep_interval", "heartbeat", "address_join_rate", "turn_address_rate",
                     "address_all_join_rate"):
            value = getattr(self, name)
            if not (math.isfinite(value) and value > 0):
                raise ValueError(f"{name} must be a positive number of seconds")
        if self.idle_timeout > MAX_IDLE_TIMEOUT:
            raise ValueError(f"idle_timeout must be at most {MAX_IDLE_TIMEOUT:.0f} seconds "
                             f"(a day), not {self.idle_timeout:g}")
        object.__setattr__(
            self, "allowed_origins", frozenset(normalise_origin(o) for o in self.allowed_origins)
        )
        object.__setattr__(self, "ice_servers", tuple(check_ice_servers(list(self.ice_servers))))
        if self.turn_urls and not self.turn_secret:
            raise ValueError("turn_urls need turn_secret (coturn's static-auth-secret)")
        for url in self.turn_urls:
            if not url.startswith(("turn:", "turns:")):
                raise ValueError(f"not a TURN url: {url!r}")


def check_ice_servers(servers: JSON) -> list[dict[str, Any]]:
    """Check a list of RTCIceServer dicts (`urls`, optional `username`, `credential`)."""
    if not isinstance(servers, list):
        raise ValueError("ICE servers must be a JSON list of objects")
    checked = []
    for i, server in enumerate(servers):
        if not isinstance(server, dict) or not set(server) <= {"urls", "username", "credential"}:
            raise ValueError(f"ICE server {i}: an object with urls, username, credential")
        urls = server.get("urls")
        url_list = [urls] if isinstance(urls, str) else urls
        if not isinstance(url_list, list) or not url_list:
            raise ValueError(f"ICE server {i}: urls must be a string or a non-empty list")
        for url in url_list:
            if not isinstance(url, str) or not url.startswith(ICE_SCHEMES):
                raise ValueError(f"ICE server {i}: {url!r} is not a stun:/turn: url")
        for key in ("username", "credential"):
            if key in server and not isinstance(server[key], str):
                raise ValueError(f"ICE server {i}: {key} must be a string")
        checked.append(dict(server))
    return checked


def turn_credentials(secret: str, peer: str, now: float, ttl: int) -> tuple[str, str]:
    """coturn's REST credentials: username "expiry:peer", password base64(HMAC-SHA1(username))."""
    username = f"{int(now) + ttl}:{peer}"
    digest = hmac.new(secret.encode(), username.encode(), hashlib.sha1).digest()
    return username, base64.b64encode(digest).decode("ascii")


def client_address(request: web.BaseRequest, config: SignalConfig) -> str:
    """Who is connecting, for the per-address join budget: the peer's IP address, or with
    `forwarded_for` the last X-Forwarded-For entry (the one the nearest proxy wrote). An IPv6
    address stands for its /64, which one subscriber usually holds whole."""
    address = request.remote or ""
    if config.forwarded_for:
        forwarded = request.headers.get("X-Forwarded-For", "").split(",")[-1].strip()
        address = forwarded or address
    return address_key(address)


def address_key(address: str) -> str:
    """An IP address as the per-address limits count it: an IPv6 address stands for its /64
    (an IPv4-mapped one for its IPv4 address); anything else is compared as text."""
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return address[:100]  # a unix socket, or a proxy's odd header: compared as text
    if isinstance(parsed, ipaddress.IPv6Address):
        if parsed.ipv4_mapped is not None:
            return str(parsed.ipv4_mapped)
        return str(ipaddress.IPv6Network((parsed, 64), strict=False))
    return str(parsed)


def origin_allowed(origin: str | None, host: str | None, config: SignalConfig) -> bool:
    """Whether a handshake with this Origin header may connect (see the module docstring)."""
    if "*" in config.allowed_origins:
        return True
    if origin is None:
        return False
    try:
        normal = normalise_origin(origin)
    except ValueError:  # "null" (sandboxed frames, file: pages) and anything malformed
        return False
    if normal in config.allowed_origins:
        return True
    return config.same_origin and host is not None and urlsplit(normal).netloc == host.lower()


# --------------------------------------------------------------------------------------------
# Logs


def room_tag(room: str) -> str:
    """A short, stable stand-in for a room id in logs (the id itself grants entry)."""
    return hashlib.sha256(room.encode()).hexdigest()[:12]


class JsonLines:
    """A log sink writing each event as one JSON object on one line."""

    def __init__(self, stream: TextIO | None = None, wall_clock: Callable[[], float] = time.time):
        self._stream = stream
        self._wall_clock = wall_clock

    def __call__(self, event: dict[str, Any]) -> None:
        stream = self._stream or sys.stderr
        record = {"ts": round(self._wall_clock(), 3), **event}
        stream.write(json.dumps(record, separators=(",", ":"), default=str) + "\n")
        stream.flush()


LogSink = Callable[[dict[str, Any]], None]


# --------------------------------------------------------------------------------------------
# Room state, behind an interface a shared (Redis) store can implement too


@dataclass(frozen=True)
class Member:
    peer: str
    hello: JSON


@dataclass(frozen=True)
class RoomLimits:
    """What a join is checked against: the room's cap and its join budget (a token bucket)."""

    cap: int
    join_rate: float  # joins a second, refilled
    join_burst: int  # joins at once

    @classmethod
    def of(cls, config: SignalConfig) -> RoomLimits:
        return cls(config.room_cap, config.join_rate, config.join_burst)


def peer_joined_message(peer: str, hello: JSON) -> str:
    return _dumps({"type": "peer-joined", "peer": peer, "hello": hello})


def peer_left_message(peer: str) -> str:
    return _dumps({"type": "peer-left", "peer": peer})


class Mailbox(Protocol):
    """Where a store delivers messages for the peers connected to this process (the hub)."""

    config: SignalConfig
    log: LogSink

    def post(self, room: str, peer: str, text: str, sender: str | None = None) -> bool:
        """Queue `text` for the peer; False if the peer is not connected here. A relay names
        its `sender`: TargetBusy when that sender has too much queued for the peer already."""
        ...

    def evict(self, room: str, peer: str, code: int, reason: str) -> None:
        """Close the peer's connection if it is here (its room was closed)."""
        ...


class RoomStore(Protocol):
    """Room membership, delivery and idleness. Every method may be backed by another process,
    and may then raise StoreUnavailable."""

    async def start(self) -> None:
        """Called once the hub's application starts (connect, subscribe, background tasks)."""
        ...

    async def close(self) -> None:
        """Called when the application stops, after its connections were closed."""
        ...

    async def join(self, room: str, peer: str, hello: JSON, limits: RoomLimits,
                   now: float) -> list[Member]:
        """Add the peer; the others in the room, in joining order. RoomFull at the cap,
        RoomBusy when the join budget is spent, KeyError if the id is taken."""
        ...

    async def leave(self, room: str, peer: str) -> list[str]:
        """Remove the peer; the peers still in the room (the room goes when it is empty).
        [] also when the peer was no longer there (its leaving was already announced)."""
        ...

    async def send(self, room: str, to: str, text: str, sender: str | None = None) -> bool:
        """Deliver to one peer of the room; False when the room has no such peer. `sender`
        (a relay's) goes to the mailbox's `post`; a local mailbox's TargetBusy passes through."""
        ...

    async def broadcast(self, room: str, text: str, exclude: str | None = None) -> int:
        """Deliver to every peer of the room but `exclude`; how many it went to."""
        ...

    async def touch(self, room: str, now: float) -> None:
        """Record activity in the room."""
        ...

    async def idle_rooms(self, now: float, idle_timeout: float) -> list[str]:
        """Rooms with no activity for `idle_timeout` seconds (they are not removed here)."""
        ...

    async def close_room(self, room: str, code: int, reason: str) -> list[str]:
        """Remove the room and evict its peers wherever they are connected; who was in it."""
        ...


@dataclass
class _Room:
    peers: dict[str, JSON] = field(default_factory=dict)  # peer -> hello, in joining order
    last_active: float = 0.0


class MemoryRoomStore:
    """`RoomStore` for one process: plain dicts, delivery straight to the local mailbox."""

    def __init__(self, mailbox: Mailbox) -> None:
        self._mailbox = mailbox
        self._rooms: dict[str, _Room] = {}
        # Join budgets outlive their rooms (an empty room must not hand out a fresh budget);
        # the sweep forgets those of gone rooms once they would be full again anyway.
        self._joins: dict[str, TokenBucket] = {}

    @property
    def room_count(self) -> int:
        return len(self._rooms)

    async def start(self) -> None:
        pass

    async def close(self) -> None:
        pass

    async def join(self, room: str, peer: str, hello: JSON, limits: RoomLimits,
                   now: float) -> list[Member]:
        state = self._rooms.get(room)
        if state is not None and peer in state.peers:
            raise KeyError(peer)
        if state is not None and len(state.peers) >= limits.cap:
            raise RoomFull(room)
        bucket = self._joins.get(room)
        if bucket is None:
            bucket = self._joins[room] = TokenBucket(limits.join_rate, limits.join_burst, now)
        if not bucket.take(now):
            raise RoomBusy(room)
        if state is None:
            state = self._rooms[room] = _Room(last_active=now)
        others = [Member(p, h) for p, h in state.peers.items()]
        state.peers[peer] = hello
        state.last_active = now
        return others

    async def leave(self, room: str, peer: str) -> list[str]:
        state = self._rooms.get(room)
        if state is None or peer not in state.peers:
            return []
        del state.peers[peer]
        if not state.peers:
            del self._rooms[room]
        return list(state.peers)

    async def send(self, room: str, to: str, text: str, sender: str | None = None) -> bool:
        state = self._rooms.get(room)
        if state is None or to not in state.peers:
            return False
        return self._mailbox.post(room, to, text, sender)

    async def broadcast(self, room: str, text: str, exclude: str | None = None) -> int:
        state = self._rooms.get(room)
        if state is None:
            return 0
        return sum(self._mailbox.post(room, p, text) for p in list(state.peers) if p != exclude)

    async def touch(self, room: str, now: float) -> None:
        state = self._rooms.get(room)
        if state is not None:
            state.last_active = now

    async def idle_rooms(self, now: float, idle_timeout: float) -> list[str]:
        for room, bucket in list(self._joins.items()):
            if room not in self._rooms and bucket.full(now):
                del self._joins[room]
        return [r for r, s in self._rooms.items() if now - s.last_active >= idle_timeout]

    async def close_room(self, room: str, code: int, reason: str) -> list[str]:
        state = self._rooms.pop(room, None)
        if state is None:
            return []
        for peer in state.peers:
            self._mailbox.evict(room, peer, code, reason)
        return list(state.peers)

    def peers(self, room: str) -> list[str]:
        """The room's peer ids in joining order ([] for no such room); for tests and stats."""
        state = self._rooms.get(room)
        return list(state.peers) if state is not None else []


# --------------------------------------------------------------------------------------------
# Message checking


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _finite_float(text: str) -> float:
    """A JSON number with a fraction or exponent; 1e999 would become Infinity, which is not
    JSON (the helper would pass it on as `Infinity`, and the page's JSON.parse refuses that)."""
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"number out of range: {text[:40]}")
    return value


# JavaScript's Number.MAX_SAFE_INTEGER: JSON.parse reads a larger integer literal as the nearest
# double (2^53 + 1 as 2^53; one of 309 digits or more as Infinity), so the page would not see
# what was sent. Nothing the pages send through the helper comes near (`v` is 1, a candidate's
# sdpMLineIndex is a small index; an SDP's big session ids are inside its text).
MAX_SAFE_INTEGER = 2**53 - 1


def _safe_int(text: str) -> int:
    """A JSON integer literal that JavaScript reads exactly; ValueError otherwise (checked on
    the digits' count first, so a long literal is never converted)."""
    if len(text) > 17 or abs(value := int(text)) > MAX_SAFE_INTEGER:
        raise ValueError(f"integer out of JavaScript's exact range (2^53 - 1): {text[:40]}")
    return value


def check_hello(hello: JSON) -> dict[str, Any]:
    """A join's `hello`: an object of HELLO_KEYS, each a string of at most MAX_HELLO_TEXT
    characters, a finite number, true, false or null. SignalError (bad-schema) otherwise."""
    if not isinstance(hello, dict):
        raise SignalError("bad-schema", "join: 'hello' is a JSON object")
    if extra := set(hello) - HELLO_KEYS:
        names = ", ".join(sorted(k[:40] for k in extra))
        known = ", ".join(sorted(HELLO_KEYS))
        raise SignalError("bad-schema", f"join: 'hello' may hold only {known}, not {names}")
    for key, value in hello.items():
        if isinstance(value, str):
            if len(value) > MAX_HELLO_TEXT:
                raise SignalError("bad-schema",
                                  f"join: hello's {key!r} is over {MAX_HELLO_TEXT} characters")
        elif value is not None and not isinstance(value, (bool, int, float)):
            raise SignalError("bad-schema",
                              f"join: hello's {key!r} is a string, number, boolean or null")
    return hello


def parse_client_message(text: str) -> dict[str, Any]:
    """The message as a dict, checked against CLIENT_FIELDS; SignalError says what is wrong."""
    try:
        message = json.loads(text, parse_constant=_reject_constant, parse_float=_finite_float,
                             parse_int=_safe_int)
    except RecursionError:  # deeply nested arrays: json's C scanner recurses
        raise SignalError("bad-json", "nested too deeply") from None
    except ValueError as exc:  # JSONDecodeError, NaN/Infinity, integers over 2^53 - 1
        raise SignalError("bad-json", f"not JSON: {str(exc)[:120]}") from None
    if not isinstance(message, dict):
        raise SignalError("bad-schema", "a message is a JSON object")
    kind = message.get("type")
    if not isinstance(kind, str):
        raise SignalError("bad-schema", "a message needs a string 'type'")
    if kind not in CLIENT_FIELDS:
        raise SignalError("unknown-type", f"unknown message type {kind[:40]!r}")
    required, optional = CLIENT_FIELDS[kind]
    keys = set(message)
    if missing := required - keys:
        raise SignalError("bad-schema", f"{kind}: missing {', '.join(sorted(missing))}")
    if extra := keys - required - optional:
        names = ", ".join(sorted(k[:40] for k in extra))
        raise SignalError("bad-schema", f"{kind}: unexpected field {names}")
    if kind == "join":
        if type(message["v"]) is not int:
            raise SignalError("bad-schema", "join: 'v' is the protocol version, an integer")
        if not isinstance(message["room"], str) or not ROOM_ID_RE.fullmatch(message["room"]):
            raise SignalError("bad-room", "join: 'room' is 22-64 characters of A-Z a-z 0-9 _ -")
        if "hello" in message:
            check_hello(message["hello"])
    elif kind in RELAYED_TYPES:
        if not isinstance(message["to"], str) or not PEER_ID_RE.fullmatch(message["to"]):
            raise SignalError("bad-schema", f"{kind}: 'to' is a peer id")
    return message


def _dumps(message: dict[str, Any]) -> str:
    # allow_nan=False: never Infinity or NaN on the wire (parse_client_message refuses them,
    # so this raising would be a bug, reported as an internal error)
    return json.dumps(message, separators=(",", ":"), allow_nan=False)


def _int_or_none(code: int | None) -> int | None:
    return None if code is None else int(code)  # aiohttp's close codes are IntEnum members


def error_message(code: str, text: str) -> str:
    return _dumps({"type": "error", "code": code, "message": text})


def target_busy_message(target: str) -> str:
    """Said once to a sender whose relays to `target` are being dropped (see TargetBusy)."""
    return error_message(
        "target-busy", f"peer {target} has too many of your messages unread: "
                       "this one and any more until it catches up were dropped")


# --------------------------------------------------------------------------------------------
# Connections


class TokenBucket:
    """`burst` messages at once, refilled at `rate` per second."""

    __slots__ = ("rate", "burst", "tokens", "stamp")

    def __init__(self, rate: float, burst: int, now: float) -> None:
        self.rate, self.burst, self.tokens, self.stamp = rate, burst, float(burst), now

    def take(self, now: float) -> bool:
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False

    def full(self, now: float) -> bool:
        return self.tokens + (now - self.stamp) * self.rate >= self.burst

    def ready(self, now: float) -> bool:
        """Whether :meth:`take` would succeed now (nothing is spent)."""
        return min(self.burst, self.tokens + (now - self.stamp) * self.rate) >= 1


_CLOSE = object()  # outbox sentinel: close after what is queued before it


class MaskedFramesOnly:
    """The connection's frame reader behind a check that every client frame is masked.

    RFC 6455 5.1: "a server MUST close the connection upon receiving a frame that is not
    masked" (1002). aiohttp's reader takes an unmasked frame as it is, so this follows the
    frame headers in the byte stream (2 bytes, a 2- or 8-byte length, the 4-byte key, then the
    payload, which is skipped) and fails the connection at the first header without the mask
    bit, before the frame or anything after it reaches aiohttp's reader."""

    def __init__(self, inner: Any, queue: Any) -> None:
        self.inner, self.queue = inner, queue
        self.header = bytearray()  # the part of the current frame's header read so far
        self.skip = 0  # payload bytes of the current frame still to come
        self.failed = False

    def _unmasked_frame_in(self, data: bytes) -> bool:
        at, end = 0, len(data)
        while at < end:
            if self.skip:
                step = min(self.skip, end - at)
                self.skip -= step
                at += step
                continue
            if not self.header and end - at >= 14:  # a whole header here (the usual case)
                second = data[at + 1]
                if not second & 0x80:
                    return True
                size_code = second & 0x7F
                extra = 2 if size_code == 126 else 8 if size_code == 127 else 0
                self.skip = int.from_bytes(data[at + 2:at + 2 + extra]) if extra else size_code
                at += 2 + extra + 4
                continue
            self.header.append(data[at])
            at += 1
            if len(self.header) < 2:
                continue
            if not self.header[1] & 0x80:
                return True
            size_code = self.header[1] & 0x7F
            extra = 2 if size_code == 126 else 8 if size_code == 127 else 0
            if len(self.header) < 2 + extra + 4:
                continue
            self.skip = int.from_bytes(self.header[2:2 + extra]) if extra else size_code
            self.header.clear()
        return False

    def feed_data(self, data: bytes) -> tuple[bool, bytes]:
        if self.failed:
            return True, b""
        if self._unmasked_frame_in(bytes(data)):
            self.failed = True
            # as aiohttp's reader fails on a protocol error: receive() closes with its code
            self.queue.set_exception(WebSocketError(WSCloseCode.PROTOCOL_ERROR,
                                                    "client frame is not masked"))
            return True, b""
        result: tuple[bool, bytes] = self.inner.feed_data(data)
        return result

    def feed_eof(self) -> None:
        self.inner.feed_eof()


class ClientWebSocket(web.WebSocketResponse):
    """aiohttp's WebSocket response, reading only masked client frames (MaskedFramesOnly).
    The check goes in where aiohttp hands its reader to the connection; bytes that came with
    the handshake are held back until it is in place (aiohttp would feed them at once).
    These are aiohttp's internals (pinned in requirements.txt): tests/test_signal_frames.py
    fails if they change."""

    def _post_start(self, request: Any, protocol: Any, writer: Any) -> None:
        handler = request.protocol
        if not all(hasattr(handler, name) for name in ("_message_tail", "_payload_parser")):
            # another aiohttp than the pinned one: serve without the check (the test says
            # so) rather than fail every connection on a missing attribute
            _warn_unchecked_frames()
            super()._post_start(request, protocol, writer)
            return
        early, handler._message_tail = handler._message_tail, b""
        super()._post_start(request, protocol, writer)
        handler._payload_parser = MaskedFramesOnly(handler._payload_parser, self._reader)
        if early:
            eof, _ = handler._payload_parser.feed_data(early)
            if eof:
                handler.close()


@functools.cache
def _warn_unchecked_frames() -> None:
    """Said once per process: this aiohttp's reader is not where ClientWebSocket looks."""
    print("signalling helper: this aiohttp hides its frame reader: unmasked client frames are "
          "not refused (requirements.txt pins the version that is checked)", file=sys.stderr)


class Connection:
    """One WebSocket: its peer id and room once joined, its outbox and its limits."""

    __slots__ = ("ws", "transport", "peer", "room", "room_closed", "opened", "bucket", "bad",
                 "limited", "relayed", "outbox", "writer", "close_code", "close_reason",
                 "queued_relays", "queued_from", "busy_told", "address")

    def __init__(
        self,
        ws: web.WebSocketResponse,
        transport: asyncio.BaseTransport | None,
        config: SignalConfig,
        now: float,
    ) -> None:
        self.ws = ws
        self.transport = transport
        self.address = ""  # the client's address (its /64 for IPv6), for join budgets
        self.room_closed = False  # its room was closed (idle): no peer-left to send
        self.peer: str | None = None
        self.room: str | None = None
        self.opened = now
        self.bucket = TokenBucket(config.rate_per_second, config.rate_burst, now)
        self.bad = 0
        self.limited = False  # inside a run of rate-limited messages (reported once per run)
        self.relayed = 0
        # Texts to send, each with the peer that sent it (relays) or None; and _CLOSE.
        self.outbox: asyncio.Queue[Any] = asyncio.Queue()
        self.queued_relays = 0  # relays in the outbox, from anybody
        self.queued_from: dict[str, list[int]] = {}  # sender -> [relays, bytes] in the outbox
        self.busy_told: set[str] = set()  # senders told "target-busy" in their current run
        self.writer: asyncio.Task[None] | None = None
        self.close_code: int | None = None
        self.close_reason = ""

    async def write_loop(self) -> None:
        """Send queued messages in order, so a peer that reads slowly delays only itself."""
        while True:
            item = await self.outbox.get()
            if item is _CLOSE:
                assert self.close_code is not None
                try:
                    # A peer that does not answer the close within the limit is cut off.
                    await asyncio.wait_for(
                        self.ws.close(code=self.close_code, message=self.close_reason.encode()),
                        CLOSE_WAIT,
                    )
                except (TimeoutError, ConnectionError):
                    if self.transport is not None:
                        self.transport.abort()
                return
            text, sender = item
            try:
                await self.ws.send_str(text)
            except (ConnectionError, RuntimeError):  # closed under us: the reader sees it too
                return
            finally:
                if sender is not None:
                    self.sent_relay(sender, len(text))

    def queue(self, text: str, sender: str | None = None) -> None:
        self.outbox.put_nowait((text, sender))
        if sender is not None:
            self.queued_relays += 1
            counts = self.queued_from.setdefault(sender, [0, 0])
            counts[0] += 1
            counts[1] += len(text)

    def sent_relay(self, sender: str, size: int) -> None:
        self.queued_relays -= 1
        counts = self.queued_from.get(sender)
        if counts is None:
            return
        counts[0] -= 1
        counts[1] -= size
        if counts[0] <= 0:  # all sent: the sender's run of refusals (if any) is over
            del self.queued_from[sender]
            self.busy_told.discard(sender)


class SignalHub:
    """The endpoint: accepts WebSockets, checks every message, relays within rooms."""

    def __init__(
        self,
        config: SignalConfig | None = None,
        *,
        store: Callable[[Mailbox], RoomStore] = MemoryRoomStore,
        clock: Callable[[], float] = time.monotonic,
        wall_clock: Callable[[], float] = time.time,
        log: LogSink | None = None,
    ) -> None:
        self.config = config or SignalConfig()
        self.clock = clock
        self.wall_clock = wall_clock
        self.log: LogSink = log or JsonLines(wall_clock=wall_clock)
        # The store is made here because it delivers through this hub (its Mailbox).
        self.store: RoomStore = store(self)
        self.connections: set[Connection] = set()
        self._by_peer: dict[tuple[str, str], Connection] = {}
        # Join budgets per (client address, room), in this process; swept once full again.
        self._address_joins: dict[tuple[str, str], TokenBucket] = {}
        # Connections per client address (all rooms), in this process.
        self._address_conns: dict[str, int] = {}
        # TURN credentials per client address, in this process; swept once full again.
        self._address_turn: dict[str, TokenBucket] = {}
        # Peers each (client address, room) holds on this process now, joins in progress too.
        self._address_peers: dict[tuple[str, str], int] = {}

    # ---- wiring into an aiohttp application

    def routes(self) -> list[web.RouteDef]:
        """The endpoint's route, for `make_app(root, routes=hub.routes())`."""
        return [web.get(self.config.path, self.handle)]

    def attach(self, app: web.Application) -> None:
        """Run the sweeper with the app and close every socket (1001) when it shuts down."""
        app.cleanup_ctx.append(self._sweeper)
        app.on_shutdown.append(self._shutdown)

    def make_app(self) -> web.Application:
        """An application serving only the endpoint (`python -m server --signal-only`)."""
        app = web.Application()
        app.router.add_routes(self.routes())
        self.attach(app)
        return app

    async def _sweeper(self, app: web.Application) -> AsyncIterator[None]:
        await self.store.start()

        async def loop() -> None:
            while True:
                await asyncio.sleep(self.config.sweep_interval)
                try:
                    await self.sweep()
                except Exception as exc:  # a shared store that is down must not stop sweeping
                    self.log({"event": "internal-error", "where": "sweep",
                              "error": f"{type(exc).__name__}: {exc}"[:300]})

        task = asyncio.create_task(loop())
        yield
        task.cancel()
        # bounded, and a cancel of this clean-up itself is not swallowed (as suppressing
        # CancelledError around `await task` would)
        await asyncio.wait([task], timeout=5)
        await self.store.close()

    async def _shutdown(self, app: web.Application) -> None:
        for conn in list(self.connections):
            self._close(conn, CLOSE_GOING_AWAY, "server shutting down")
        writers = [c.writer for c in self.connections if c.writer is not None]
        if writers:
            await asyncio.wait(writers, timeout=5)

    # ---- Mailbox (what the store delivers through)

    def post(self, room: str, peer: str, text: str, sender: str | None = None) -> bool:
        conn = self._by_peer.get((room, peer))
        if conn is None or conn.close_code is not None:
            return False
        if sender is not None and self._relay_refused(conn, sender, len(text)):
            report = sender not in conn.busy_told
            conn.busy_told.add(sender)
            if report:
                self.log({"event": "target-busy", "room": room_tag(room), "peer": peer,
                          "sender": sender})
            raise TargetBusy(report)
        return self._enqueue(conn, text, sender)

    def _relay_refused(self, conn: Connection, sender: str, size: int) -> bool:
        """Whether a relay would queue too much for `conn`: from this sender (its pair bounds),
        or from all senders together (half the outbox: the rest is for the helper's own)."""
        config = self.config
        if conn.queued_relays >= max(1, config.outbox_limit // 2):
            return True
        count, queued = conn.queued_from.get(sender, (0, 0))
        return count >= config.pair_queue_messages or (
            count > 0 and queued + size > config.pair_queue_bytes)

    def _enqueue(self, conn: Connection, text: str, sender: str | None = None) -> bool:
        """Queue for the peer; a peer with `outbox_limit` messages unread is cut off."""
        if conn.outbox.qsize() >= self.config.outbox_limit:
            self._abort(conn, CLOSE_SLOW, "not reading its messages")
            return False
        conn.queue(text, sender)
        return True

    def evict(self, room: str, peer: str, code: int, reason: str) -> None:
        conn = self._by_peer.pop((room, peer), None)
        if conn is not None:
            conn.room_closed = True
            self._close(conn, code, reason)

    # ---- housekeeping

    async def sweep(self) -> None:
        """Close connections that never joined and rooms that went idle (the clock decides)."""
        now = self.clock()
        for key, bucket in list(self._address_joins.items()):
            if bucket.full(now):
                del self._address_joins[key]
        for address, bucket in list(self._address_turn.items()):
            if bucket.full(now):
                del self._address_turn[address]
        for conn in list(self.connections):
            if conn.room is None and now - conn.opened >= self.config.join_timeout:
                self._close(conn, CLOSE_JOIN_TIMEOUT, "no join in time")
        try:
            for room in await self.store.idle_rooms(now, self.config.idle_timeout):
                peers = await self.store.close_room(room, CLOSE_IDLE, "room idle")
                if peers:  # [] when another instance closed it first, or it woke up
                    self.log({"event": "room-idle", "room": room_tag(room), "peers": len(peers)})
        except StoreUnavailable:
            pass  # the store says so itself; the rooms are looked at again next time

    def _close(self, conn: Connection, code: int, reason: str) -> None:
        """Close after the messages already queued (e.g. the error that says why)."""
        if conn.close_code is not None:
            return
        conn.close_code, conn.close_reason = code, reason
        if code != CLOSE_GOING_AWAY:
            self.log({"event": "close", "room": room_tag(conn.room) if conn.room else None,
                      "peer": conn.peer, "code": code, "reason": reason})
        conn.outbox.put_nowait(_CLOSE)

    def _abort(self, conn: Connection, code: int, reason: str) -> None:
        """Drop a connection at once, queued messages and all (it is not reading them)."""
        if conn.close_code is not None:
            return
        conn.close_code, conn.close_reason = code, reason
        self.log({"event": "close", "room": room_tag(conn.room) if conn.room else None,
                  "peer": conn.peer, "code": code, "reason": reason})
        if conn.writer is not None:
            conn.writer.cancel()
        if conn.transport is not None:
            conn.transport.abort()
            conn.transport = None

    def _send(self, conn: Connection, text: str) -> None:
        """Queue the helper's own message (welcome, pong, error) under the same outbox limit."""
        if conn.close_code is None:
            self._enqueue(conn, text)

    # ---- the endpoint

    async def handle(self, request: web.Request) -> web.StreamResponse:
        config = self.config
        origin = request.headers.get("Origin")
        if not origin_allowed(origin, request.host, config):
            self.log({"event": "refused", "status": 403, "reason": "origin",
                      "origin": (origin or "")[:200], "remote": request.remote})
            return web.Response(status=403, text="This origin may not use the signalling helper.")
        ws = ClientWebSocket(
            # aiohttp refuses a frame of max_msg_size bytes or more; the limit itself is allowed.
            max_msg_size=config.max_message_bytes + 1,
            compress=False,  # per-connection zlib state would cost far more than it saves here
            heartbeat=config.heartbeat,
            autoping=False,  # ping frames are answered from the peer's budget (_on_ping_frame)
        )
        if not ws.can_prepare(request).ok:
            return web.Response(status=426, headers={"Upgrade": "websocket"},
                                text="The signalling helper speaks WebSocket only.")
        if len(self.connections) >= config.max_peers:
            self.log({"event": "refused", "status": 503, "reason": "server-full",
                      "remote": request.remote})
            return web.Response(status=503, text="The signalling helper is full; try later.")
        address = client_address(request, config)
        if self._address_conns.get(address, 0) >= config.address_connections:
            self.log({"event": "refused", "status": 503, "reason": "address-connections",
                      "address": address})
            return web.Response(status=503, text="Too many connections from your address; "
                                                 "try later.")
        await ws.prepare(request)
        conn = Connection(ws, request.transport, config, self.clock())
        conn.address = address
        self._address_conns[address] = self._address_conns.get(address, 0) + 1
        self.connections.add(conn)
        conn.writer = asyncio.create_task(conn.write_loop())
        self.log({"event": "connect", "remote": request.remote})
        try:
            await self._read_loop(conn)
        finally:
            await self._leave(conn)
            self.connections.discard(conn)
            left = self._address_conns.get(conn.address, 0) - 1
            if left > 0:
                self._address_conns[conn.address] = left
            else:
                self._address_conns.pop(conn.address, None)
            if conn.close_code is None and not ws.closed:
                await ws.close()
            if conn.writer is not None and not conn.writer.done():
                # Give queued messages and the close frame a moment, then stop.
                done, _ = await asyncio.wait({conn.writer}, timeout=1)
                if not done:
                    conn.writer.cancel()
        return ws

    async def _read_loop(self, conn: Connection) -> None:
        ws = conn.ws
        while conn.close_code is None:
            msg = await ws.receive()
            if msg.type is WSMsgType.TEXT:
                try:
                    await self._on_text(conn, msg.data)
                except SignalError as exc:
                    self._bad(conn, exc.code, exc.message)
                except StoreUnavailable:
                    # Not the peer's fault: said, not counted. A page whose offer was lost
                    # this way tries again like after any failed connection.
                    self._send(conn, error_message(
                        "unavailable", "the helper cannot pass messages right now; try again"))
                except Exception as exc:  # a bug here: say so once, without a traceback
                    self.log({"event": "internal-error", "peer": conn.peer,
                              "error": f"{type(exc).__name__}: {exc}"[:300]})
                    self._close(conn, CLOSE_INTERNAL, "internal error")
            elif msg.type is WSMsgType.BINARY:
                self._bad(conn, "bad-json", "messages are JSON text, not binary")
            elif msg.type is WSMsgType.PING:
                await self._on_ping_frame(conn, msg.data)
            elif msg.type is WSMsgType.PONG:  # (the heartbeat counts any data received)
                continue
            elif msg.type is WSMsgType.ERROR:
                # aiohttp has already closed: 1009 for a too-big frame, 1007 for bad UTF-8.
                self.log({"event": "bad-frame", "room": room_tag(conn.room) if conn.room else None,
                          "peer": conn.peer, "code": int(getattr(msg.data, "code", 1006)),
                          "error": str(msg.data)[:200]})
                return
            else:  # CLOSE, CLOSING, CLOSED
                return

    def _bad(self, conn: Connection, code: str, text: str) -> None:
        conn.bad += 1
        self.log({"event": "bad-message", "room": room_tag(conn.room) if conn.room else None,
                  "peer": conn.peer, "code": code, "detail": text[:200]})
        self._send(conn, error_message(code, text))
        if conn.bad >= self.config.max_bad_messages:
            self._close(conn, CLOSE_MISBEHAVING, "too many bad messages")

    def _spend(self, conn: Connection, now: float) -> bool:
        """Take a token of the peer's bucket for one message (or ping frame); False when
        there is none: the message is dropped, and a peer that keeps on is closed."""
        if not conn.bucket.take(now):
            if not conn.limited:  # one error per run of dropped messages
                conn.limited = True
                self._bad(conn, "rate-limited", "too many messages: this one was dropped")
            else:
                conn.bad += 1
                if conn.bad >= self.config.max_bad_messages:
                    self._close(conn, CLOSE_MISBEHAVING, "too many messages")
            return False
        conn.limited = False
        return True

    async def _on_ping_frame(self, conn: Connection, data: bytes) -> None:
        """A WebSocket ping frame (browsers send none; pages ping with a message): answered
        from the same budget as messages. aiohttp's own answer came without any limit, so one
        client made the helper write a pong for every 6 bytes it sent."""
        if self._spend(conn, self.clock()):
            await conn.ws.pong(data)

    async def _on_text(self, conn: Connection, text: str) -> None:
        now = self.clock()
        if not self._spend(conn, now):
            return
        message = parse_client_message(text)
        kind = message["type"]
        if kind == "join":
            await self._join(conn, message, now)
            return
        if conn.room is None or conn.peer is None:
            raise SignalError("not-joined", f"{kind}: join a room first")
        if kind == "ping":
            self._send(conn, '{"type":"pong"}')
        else:
            relayed = _dumps({"type": kind, "from": conn.peer, "data": message["data"]})
            try:
                sent = await self.store.send(conn.room, message["to"], relayed, conn.peer)
            except TargetBusy as busy:
                # Not counted as bad: a host must not be closed because a guest reads slowly.
                if busy.report:
                    self._send(conn, target_busy_message(message["to"]))
                return
            if not sent:
                raise SignalError("unknown-peer", f"{kind}: no peer {message['to']} in this room")
            conn.relayed += 1
        with contextlib.suppress(StoreUnavailable):  # a missed touch only ages the room
            await self.store.touch(conn.room, now)

    async def _join(self, conn: Connection, message: dict[str, Any], now: float) -> None:
        config = self.config
        hello = message.get("hello", {})
        if len(_dumps(hello)) > config.max_hello_bytes:  # ASCII: json.dumps escapes the rest
            raise SignalError("bad-schema", f"join: 'hello' over {config.max_hello_bytes} bytes")
        if conn.room is not None:
            raise SignalError("already-joined", "join: this connection is already in a room")
        if message["v"] != PROTOCOL_VERSION:
            self._send(conn, error_message(
                "version", f"this helper speaks version {PROTOCOL_VERSION}"))
            self._close(conn, CLOSE_VERSION, "protocol version")
            return
        room = message["room"]
        place = (conn.address, room)
        if self._address_peers.get(place, 0) >= config.address_room_peers:
            # Checked before any budget is spent: a refused join costs the room nothing.
            self.log({"event": "address-full", "room": room_tag(room), "address": conn.address})
            self._send(conn, error_message(
                "address-full", f"your address already has {config.address_room_peers} "
                                "peers in this room"))
            self._close(conn, CLOSE_ADDRESS_FULL, "address full")
            return
        if not self._address_may_join(conn.address, room, now):
            self.log({"event": "room-busy", "room": room_tag(room), "address": conn.address})
            self._send(conn, error_message(
                "room-busy", "too many joins from your address just now; "
                             "try again shortly"))
            self._close(conn, CLOSE_ROOM_BUSY, "address busy")
            return
        # The place is held across the store's await, so that joins arriving together from one
        # address cannot all pass the check; given back unless the join succeeds.
        self._address_peers[place] = self._address_peers.get(place, 0) + 1
        try:
            await self._join_room(conn, room, hello, now)
        finally:
            if conn.room is None:  # refused (once in the room, _leave gives the place back)
                self._release_place(place)

    def _release_place(self, place: tuple[str, str]) -> None:
        held = self._address_peers.get(place, 0) - 1
        if held > 0:
            self._address_peers[place] = held
        else:
            self._address_peers.pop(place, None)

    async def _join_room(self, conn: Connection, room: str, hello: JSON, now: float) -> None:
        """Enter the room (its cap and join budget are the store's), or say why not."""
        config = self.config
        for _attempt in range(4):
            peer = secrets.token_hex(6)
            try:
                others = await self.store.join(room, peer, hello, RoomLimits.of(config), now)
                break
            except KeyError:  # an id already in the room: draw again
                continue
            except RoomFull:
                self.log({"event": "room-full", "room": room_tag(room)})
                full = f"the room already has {config.room_cap} peers"
                self._send(conn, error_message("room-full", full))
                self._close(conn, CLOSE_ROOM_FULL, "room full")
                return
            except RoomBusy:
                self.log({"event": "room-busy", "room": room_tag(room)})
                self._send(conn, error_message(
                    "room-busy", "too many joins in this room just now; try again shortly"))
                self._close(conn, CLOSE_ROOM_BUSY, "room busy")
                return
            except StoreUnavailable:
                self._send(conn, error_message(
                    "unavailable", "the helper cannot open rooms right now; try again"))
                self._close(conn, CLOSE_TRY_LATER, "store unavailable")
                return
        else:  # four collisions of 48 random bits: something is wrong with the generator
            raise RuntimeError("could not draw a free peer id")
        conn.room, conn.peer = room, peer
        self._by_peer[(room, peer)] = conn
        welcome: dict[str, Any] = {
            "type": "welcome",
            "v": PROTOCOL_VERSION,
            "peer": peer,
            "peers": [{"peer": m.peer, "hello": m.hello} for m in others],
            "iceServers": self.ice_servers_for(peer, conn.address, now),
            "limits": {"maxMessageBytes": config.max_message_bytes, "roomCap": config.room_cap,
                       "idleTimeout": config.idle_timeout},
        }
        self._send(conn, _dumps(welcome))
        with contextlib.suppress(StoreUnavailable):  # the others hear of it from its messages
            await self.store.broadcast(room, peer_joined_message(peer, hello), exclude=peer)
        self.log({"event": "join", "room": room_tag(room), "peer": peer,
                  "peers": len(others) + 1})

    def _address_may_join(self, address: str, room: str, now: float) -> bool:
        """Take a token from the address's join budget in this room (before the room's own
        budget is touched, so that an address's refused joins cost the room nothing)."""
        config = self.config
        everywhere = self._address_joins.get((address, ""))  # "": every room (ids are longer)
        if everywhere is None:
            everywhere = self._address_joins[(address, "")] = TokenBucket(
                config.address_all_join_rate, config.address_all_join_burst, now)
        key = (address, room)
        bucket = self._address_joins.get(key)
        if bucket is None:
            bucket = self._address_joins[key] = TokenBucket(
                config.address_join_rate, config.address_join_burst, now)
        if not (bucket.ready(now) and everywhere.ready(now)):
            return False  # neither is spent: a refused join costs no budget
        return bucket.take(now) and everywhere.take(now)

    def ice_servers_for(self, peer: str, address: str, now: float) -> list[dict[str, Any]]:
        """The ICE servers for a peer's `welcome`: the fixed ones, and fresh TURN credentials
        while its address's TURN budget lasts (without them the page still connects wherever
        a direct path or STUN does)."""
        config = self.config
        servers = [dict(s) for s in config.ice_servers]
        if config.turn_urls and config.turn_secret:
            bucket = self._address_turn.get(address)
            if bucket is None:
                bucket = self._address_turn[address] = TokenBucket(
                    config.turn_address_rate, config.turn_address_burst, now)
            if not bucket.take(now):
                self.log({"event": "turn-withheld", "peer": peer, "address": address})
                return servers
            username, credential = turn_credentials(
                config.turn_secret, peer, self.wall_clock(), config.turn_ttl
            )
            servers.append({"urls": list(config.turn_urls), "username": username,
                            "credential": credential})
        return servers

    async def _leave(self, conn: Connection) -> None:
        if conn.room is None or conn.peer is None:
            self.log({"event": "disconnect", "joined": False})
            return
        room, peer = conn.room, conn.peer
        self._release_place((conn.address, room))  # once per joined connection: it ends here
        if conn.room_closed:
            self.log({"event": "leave", "room": room_tag(room), "peer": peer,
                      "relayed": conn.relayed, "peers": 0, "code": conn.close_code})
            return
        self._by_peer.pop((room, peer), None)
        try:
            remaining = await self.store.leave(room, peer)
            if remaining:
                await self.store.broadcast(room, peer_left_message(peer))
        except StoreUnavailable:
            remaining = []  # a shared store settles it when it is back (RedisRoomStore.resync)
        self.log({"event": "leave", "room": room_tag(room), "peer": peer,
                  "relayed": conn.relayed, "peers": len(remaining),
                  "code": conn.close_code or _int_or_none(conn.ws.close_code)})


# --------------------------------------------------------------------------------------------
# python -m server: options and the application


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The signalling options of `python -m server`."""
    group = parser.add_argument_group("signalling helper (online rooms)")
    group.add_argument("--signal-only", action="store_true",
                       help="serve only the signalling endpoint, not the game's files")
    group.add_argument("--signal-path", default=DEFAULT_PATH, help="default: %(default)s")
    group.add_argument(
        "--allow-origin", action="append", default=None, metavar="ORIGIN",
        help="also accept pages from ORIGIN (scheme://host[:port]; '*' for any); repeatable. "
             "Default: $LUDO_SIGNAL_ORIGINS (comma-separated), else the helper's own origin only",
    )
    group.add_argument("--room-cap", type=int, default=SignalConfig.room_cap,
                       help="peers per room (default: %(default)s)")
    group.add_argument("--idle-timeout", type=float, default=SignalConfig.idle_timeout,
                       help="seconds without a message before a room is closed, at most "
                            f"{MAX_IDLE_TIMEOUT:.0f} (default: %(default)s)")
    group.add_argument("--ice-servers", type=Path, metavar="FILE",
                       help="JSON list of RTCIceServer objects handed to every peer")
    group.add_argument("--turn-url", action="append", default=[], metavar="URL",
                       help="a coturn url (turn:host:3478) for short-lived REST credentials; "
                            "the secret comes from $LUDO_TURN_SECRET")
    group.add_argument("--rate", type=float, default=SignalConfig.rate_per_second,
                       help="messages a second per peer (default: %(default)s)")
    group.add_argument("--burst", type=int, default=SignalConfig.rate_burst,
                       help="messages a peer may send at once (default: %(default)s)")
    group.add_argument("--peers-per-address", type=int, default=SignalConfig.address_room_peers,
                       metavar="N",
                       help="peers one client address may hold in one room at once "
                            "(default: %(default)s)")
    group.add_argument("--forwarded-for", action="store_true",
                       help="take each client's address (for the per-address join budget) from "
                            "the last X-Forwarded-For entry: only behind a proxy that sets it")
    group.add_argument(
        "--redis-url", default=None, metavar="URL",
        help="share rooms with other helper instances through this Redis "
             "(redis://[:password@]host:port/db). Default: $REDIS_URL, else rooms live in "
             "this process only")
    group.add_argument("--redis-prefix", default=None, metavar="TEXT",
                       help="prefix of this deployment's Redis keys and channels "
                            "(default: ludo:signal:)")
    group.add_argument("--instance-timeout", type=float, default=None, metavar="S",
                       help="seconds without a heartbeat after which another instance counts "
                            "this one as dead and its peers as gone (default: 10)")


def config_from_args(args: argparse.Namespace, env: dict[str, str] | None = None) -> SignalConfig:
    """SignalConfig from add_arguments' options; ValueError with a readable message."""
    env = dict(os.environ) if env is None else env
    origins: Sequence[str] = args.allow_origin or [
        o for o in (env.get("LUDO_SIGNAL_ORIGINS") or "").split(",") if o.strip()
    ]
    ice: list[dict[str, Any]] = []
    if args.ice_servers is not None:
        try:
            ice = check_ice_servers(json.loads(args.ice_servers.read_text(encoding="utf-8")))
        except (OSError, ValueError) as exc:
            raise ValueError(f"--ice-servers {args.ice_servers}: {exc}") from None
    if args.turn_url and not env.get("LUDO_TURN_SECRET"):
        # (SignalConfig's own words name its fields, not what the user set)
        raise ValueError("--turn-url needs the shared secret in $LUDO_TURN_SECRET "
                         "(coturn's static-auth-secret)")
    return SignalConfig(
        path=args.signal_path,
        room_cap=args.room_cap,
        idle_timeout=args.idle_timeout,
        rate_per_second=args.rate,
        rate_burst=args.burst,
        forwarded_for=getattr(args, "forwarded_for", False),
        address_room_peers=getattr(args, "peers_per_address", SignalConfig.address_room_peers),
        allowed_origins=frozenset(origins),
        ice_servers=tuple(ice),
        turn_urls=tuple(args.turn_url),
        turn_secret=env.get("LUDO_TURN_SECRET") or None,
    )


def redis_settings_from_args(args: argparse.Namespace,
                             env: dict[str, str] | None = None) -> Any:
    """`server.signal_redis.RedisSettings` when a Redis URL is given (option or $REDIS_URL),
    else None (rooms in this process). ValueError with a readable message."""
    env = dict(os.environ) if env is None else env
    url = args.redis_url or env.get("REDIS_URL") or None
    if url is None:
        for name in ("redis_prefix", "instance_timeout"):
            if getattr(args, name) is not None:
                raise ValueError(f"--{name.replace('_', '-')} needs --redis-url or $REDIS_URL")
        return None
    from server.signal_redis import RedisSettings  # imports redis only when it is used

    options: dict[str, Any] = {"url": url}
    if args.redis_prefix is not None:
        options["prefix"] = args.redis_prefix
    if args.instance_timeout is not None:
        options["instance_timeout"] = args.instance_timeout
    return RedisSettings(**options)


def build_app(
    root: Path, config: SignalConfig | None = None, signal_only: bool = False,
    redis: Any = None, **hub_options: Any
) -> web.Application:
    """The served application: static files plus the endpoint, or the endpoint alone.
    `redis` (a `RedisSettings`) shares the rooms with other instances through Redis."""
    if redis is not None:
        from server.signal_redis import RedisRoomStore

        hub_options["store"] = RedisRoomStore.factory(redis)
    hub = SignalHub(config, **hub_options)
    if signal_only:
        return hub.make_app()
    app = make_app(root, routes=hub.routes())
    hub.attach(app)
    return app


def describe(config: SignalConfig, signal_only: bool, redis: Any = None) -> str:
    """One line for the start-up log saying where the endpoint is and who may use it."""
    origins = ", ".join(sorted(config.allowed_origins)) or "none"
    what = "only the signalling endpoint" if signal_only else "the signalling endpoint"
    shared = f"; rooms shared through Redis at {redis.display_url}" if redis is not None else ""
    return f"serving {what} at {config.path} (same origin plus: {origins}){shared}"


