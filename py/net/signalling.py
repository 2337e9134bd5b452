"""The page's side of the signalling helper (server/signal.py): room ids, the helper's address,
and its messages, built and checked here so the WebRTC code only moves strings.

Where the helper is: by default at `/signal` on the page's own origin (what `python -m server`
serves). A page served from elsewhere names the helper in a meta tag of index.html:

    <meta name="ludo-signal" content="wss://signal.example.org/signal">

`content` may be a ws:// or wss:// URL, an http(s):// URL (turned into ws(s)://), or a path
resolved against the page ("/signal", "../signal"). docs/online.md has the details.

The page trusts the helper no more than a peer: `parse_server_message` checks every message.

Relay only: a page opened with `?ice=relay` in its address (`ice_transport_policy`) lets WebRTC
use TURN-relayed paths only, never a direct one: the other players then never learn this
device's addresses, and it is how the tests prove that TURN works on its own.
"""

from __future__ import annotations

import json
import re
import secrets
from typing import Any, Protocol
from urllib.parse import unquote_plus, urljoin, urlsplit, urlunsplit

PROTOCOL_VERSION = 1
DEFAULT_PATH = "/signal"
SETTING_META = "ludo-signal"  # <meta name="ludo-signal" content="...">
ROOM_ID_PATTERN = r"[A-Za-z0-9_-]{22,64}"
PEER_ID_PATTERN = r"[0-9a-f]{12}"
ROOM_ID_RE = re.compile(ROOM_ID_PATTERN)
PEER_ID_RE = re.compile(PEER_ID_PATTERN)
RELAYED_TYPES = frozenset({"offer", "answer", "candidate"})
LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})


class SignallingError(ValueError):
    """A setting, argument or helper message that is not what the protocol allows."""


def new_room_id() -> str:
    """A fresh room id: 128 random bits as 22 base64url characters."""
    return secrets.token_urlsafe(16)


def is_room_id(text: object) -> bool:
    return isinstance(text, str) and ROOM_ID_RE.fullmatch(text) is not None


def signal_url(page_url: str, setting: str | None = None) -> str:
    """The helper's WebSocket URL for a page at `page_url`, given the page's setting (if any)."""
    page = urlsplit(page_url)
    if page.scheme not in ("http", "https"):
        raise SignallingError(f"online rooms need a page served over http(s), not {page_url!r}")
    target = (setting or "").strip() or DEFAULT_PATH
    parts = urlsplit(urljoin(page_url, target))
    scheme = {"http": "ws", "https": "wss"}.get(parts.scheme, parts.scheme)
    if scheme not in ("ws", "wss") or not parts.hostname:
        raise SignallingError(f"the {SETTING_META} setting must be a ws(s)/http(s) URL or a "
                              f"path, not {setting!r}")
    if page.scheme == "https" and scheme == "ws" and parts.hostname not in LOOPBACK_HOSTS:
        raise SignallingError(f"an https page reaches the helper over wss:// only, not {setting!r}")
    # A bare origin ("https://signal.example.org") means the helper's usual path there.
    return urlunsplit((scheme, parts.netloc, parts.path or DEFAULT_PATH, parts.query, ""))


_ICE_FIELD = re.compile(r"(?:^|&)ice=([^&]*)")


def ice_transport_policy(query: str) -> str:
    """RTCPeerConnection's `iceTransportPolicy` for a page whose address has this query string
    (`location.search`): "relay" with `ice=relay`, else "all" (any other value is ignored).

    With several `ice` values, one `relay` among them is enough: the stricter policy wins
    (it never reveals this device's own addresses), whatever the order. Until 2026-12-06 the
    last value counted, so `?ice=relay&ice=all` appended to a link quietly undid relay-only.
    Found with one regular expression, not `parse_qs`: an address of 2 MB in 500 000 fields
    took parse_qs 1.2 s of CPython (more in Pyodide) while the page set up its transport."""
    values = (unquote_plus(m.group(1)) for m in _ICE_FIELD.finditer(query.lstrip("?")))
    return "relay" if "relay" in values else "all"


class _Element(Protocol):
    def getAttribute(self, name: str) -> str | None: ...  # noqa: N802 (the DOM's name)


class _Document(Protocol):
    def querySelector(self, selector: str) -> _Element | None: ...  # noqa: N802


def read_setting(document: _Document) -> str | None:
    """The page's `ludo-signal` meta content, or None (for `signal_url`)."""
    element = document.querySelector(f'meta[name="{SETTING_META}"]')
    if element is None or not element:  # Pyodide gives null as a falsy JsNull, not None
        return None
    return element.getAttribute("content") or None


# --------------------------------------------------------------------------------------------
# Messages to the helper


def _dumps(message: dict[str, Any]) -> str:
    return json.dumps(message, separators=(",", ":"), allow_nan=False)


def join_message(room: str, hello: dict[str, Any] | None = None) -> str:
    """The first message on a new connection: join `room`, describing oneself in `hello`."""
    if not is_room_id(room):
        raise SignallingError(f"not a room id: {room!r}")
    message: dict[str, Any] = {"type": "join", "v": PROTOCOL_VERSION, "room": room}
    if hello is not None:
        if not isinstance(hello, dict):
            raise SignallingError("hello is a JSON object")
        message["hello"] = hello
    return _dumps(message)


def relay_message(kind: str, to: str, data: Any) -> str:
    """An offer, answer or candidate for peer `to` of the same room; `data` is passed as is."""
    if kind not in RELAYED_TYPES:
        raise SignallingError(f"the helper relays offer, answer and candidate, not {kind!r}")
    if not isinstance(to, str) or not PEER_ID_RE.fullmatch(to):
        raise SignallingError(f"not a peer id: {to!r}")
    return _dumps({"type": kind, "to": to, "data": data})


def ping_message() -> str:
    """Keeps the room from expiring while nothing else is said (send one every few minutes)."""
    return '{"type":"ping"}'


# --------------------------------------------------------------------------------------------
# Messages from the helper

# Exactly the fields of each server message.
SERVER_FIELDS: dict[str, frozenset[str]] = {
    "welcome": frozenset({"type", "v", "peer", "peers", "iceServers", "limits"}),
    "peer-joined": frozenset({"type", "peer", "hello"}),
    "peer-left": frozenset({"type", "peer"}),
    "offer": frozenset({"type", "from", "data"}),
    "answer": frozenset({"type", "from", "data"}),
    "candidate": frozenset({"type", "from", "data"}),
    "pong": frozenset({"type"}),
    "error": frozenset({"type", "code", "message"}),
}


def _peer_id(value: Any, where: str) -> str:
    if not isinstance(value, str) or not PEER_ID_RE.fullmatch(value):
        raise SignallingError(f"{where}: not a peer id")
    return value


MAX_HELPER_MESSAGE = 64 * 1024
"""The longest message read from the helper (it relays at most 16 KiB; room lists add a little)."""
MAX_HELPER_DEPTH = 16
"""Helper messages nest a few levels; deeper is refused unparsed (Pyodide's stack is small)."""

_ESCAPED = re.compile(r"\\.", re.S)
_QUOTED = re.compile(r'"[^"]*"')


def _nesting(text: str) -> int:
    """How deeply arrays and objects nest in ``text``, strings ignored; linear in its length.
    (This module stays standard-library only, so it does not borrow ludo.notation's.)"""
    depth = deepest = 0
    for char in _QUOTED.sub("", _ESCAPED.sub("", text)):
        if char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def parse_server_message(text: str) -> dict[str, Any]:
    """A helper message as a dict, checked field by field (SignallingError otherwise)."""
    # size and depth checked first: a hostile helper cannot overflow the page's stack
    if len(text) > MAX_HELPER_MESSAGE or _nesting(text) > MAX_HELPER_DEPTH:
        raise SignallingError("the helper sent a message too long or too deeply nested")
    try:
        message = json.loads(text)
    except (ValueError, RecursionError):
        raise SignallingError("the helper sent something that is not JSON") from None
    # the type's type first: a list or an object cannot be looked up (TypeError)
    if not isinstance(message, dict) or not isinstance(message.get("type"), str) \
            or message["type"] not in SERVER_FIELDS:
        raise SignallingError("the helper sent an unknown message")
    kind = message["type"]
    if set(message) != SERVER_FIELDS[kind]:
        raise SignallingError(f"{kind}: fields {sorted(message)}")
    if kind == "welcome":
        if message["v"] != PROTOCOL_VERSION:
            raise SignallingError(f"the helper speaks version {message['v']!r}")
        _peer_id(message["peer"], "welcome")
        peers = message["peers"]
        if not isinstance(peers, list) or not all(
            isinstance(p, dict) and set(p) == {"peer", "hello"} and isinstance(p["hello"], dict)
            for p in peers
        ):
            raise SignallingError("welcome: peers is a list of {peer, hello}")
        for p in peers:
            _peer_id(p["peer"], "welcome peers")
        if not isinstance(message["iceServers"], list) or not isinstance(message["limits"], dict):
            raise SignallingError("welcome: iceServers is a list and limits an object")
    elif kind in ("peer-joined", "peer-left"):
        _peer_id(message["peer"], kind)
        if kind == "peer-joined" and not isinstance(message["hello"], dict):
            raise SignallingError("peer-joined: hello is an object")
    elif kind in RELAYED_TYPES:
        _peer_id(message["from"], kind)
    elif kind == "error":
        if not isinstance(message["code"], str) or not isinstance(message["message"], str):
            raise SignallingError("error: code and message are strings")
    return message
