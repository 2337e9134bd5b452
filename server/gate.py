"""Connections per client address, counted from the moment the TCP connection is accepted.

The signalling helper counts an address's connections (`SignalConfig.address_connections`) only
once their WebSocket opens, and `python -m server` closes a connection that sends no whole
request within `REQUEST_WAIT_S`; between the two, a client could open connections faster than
they expire and hold every file descriptor of the process from one address. `AddressGate` wraps
the server's protocol factory: a connection from an address that already holds `limit` of them
is cut at once (RST), before aiohttp reads a byte of it.

Behind a proxy every connection comes from the proxy's address, so `python -m server` uses no
gate with `--forwarded-for`: the proxy in front bounds its clients' connections there.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from server.signal import address_key

ProtocolFactory = Callable[[], asyncio.Protocol]

# TCP connections one address may hold at once besides its WebSockets (counted too, and bounded
# by the helper's `address_connections`): a browser opens at most 6 connections a host over
# HTTP/1.1, so ten devices behind one home router loading the game at once fit, and a
# household's game holds a handful. A WebSocket refused by the helper's own count is closed by it.
PAGE_CONNECTIONS = 64


class AddressGate:
    """Counts the open TCP connections of each client address (an IPv6 /64, as the helper
    counts); a connection past `limit` is aborted as soon as it is accepted."""

    def __init__(self, limit: int) -> None:
        if limit < 1:
            raise ValueError("limit must be at least 1")
        self.limit = limit
        self.open: dict[str, int] = {}
        self.refused = 0  # connections cut, for the tests and a curious operator

    def factory(self, make_protocol: ProtocolFactory) -> ProtocolFactory:
        """A protocol factory for `loop.create_server` wrapping `make_protocol` (aiohttp's
        `web.Server`, which is one)."""
        return lambda: _Counted(self, make_protocol)

    def _admit(self, address: str) -> bool:
        held = self.open.get(address, 0)
        if held >= self.limit:
            self.refused += 1
            return False
        self.open[address] = held + 1
        return True

    def _release(self, address: str) -> None:
        left = self.open.get(address, 0) - 1
        if left > 0:
            self.open[address] = left
        else:
            self.open.pop(address, None)


class _Counted(asyncio.Protocol):
    """Stands between the transport and the real protocol, which it makes only for a connection
    the gate admits; everything else is passed on unchanged."""

    def __init__(self, gate: AddressGate, make_protocol: ProtocolFactory) -> None:
        self._gate = gate
        self._make_protocol = make_protocol
        self._inner: asyncio.Protocol | None = None
        self._address = ""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        peer: Any = transport.get_extra_info("peername")
        host = peer[0] if isinstance(peer, tuple) and peer else str(peer or "")
        address = address_key(str(host))
        if not self._gate._admit(address):
            transport.abort()  # type: ignore[attr-defined]  # (a socket transport has it)
            return
        self._address = address
        self._inner = self._make_protocol()
        self._inner.connection_made(transport)

    def connection_lost(self, exc: Exception | None) -> None:
        if self._inner is None:
            return
        self._gate._release(self._address)
        inner, self._inner = self._inner, None
        inner.connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._inner is not None:
            self._inner.data_received(data)

    def eof_received(self) -> bool | None:
        return self._inner.eof_received() if self._inner is not None else None

    def pause_writing(self) -> None:
        if self._inner is not None:
            self._inner.pause_writing()

    def resume_writing(self) -> None:
        if self._inner is not None:
            self._inner.resume_writing()
