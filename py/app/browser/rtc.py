"""The online transport in the page: the signalling WebSocket and WebRTC data channels.

Host-authoritative star: every guest opens one ``RTCPeerConnection`` to the host, which answers
each. The signalling helper (server/signal.py) only passes the offers, answers and ICE
candidates; game messages travel over the data channels, which the rooms (app/room.py) fill.

- :class:`Signal` keeps one WebSocket to the helper: joins the room, pings it while we stay, and
  joins again after the helper closed it (idle room, restart, lost network), with a growing pause.
- :class:`Link` is one peer connection and its data channel ("ludo", reliable and ordered). The
  SDP and candidates stay JavaScript objects (JSON text in between), as runtime-facts advises.
- :class:`Transport` puts them together for a host (answers every guest) or a guest (calls every
  peer that says it is the host, and keeps the one that proves the room link's host key), and
  tells its owner ``opened(peer)``, ``message(peer, text)`` and ``closed(peer)``.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from pyscript import window
from pyscript.ffi import create_proxy, is_none, to_js

from net import hostkey, signalling

from .dom import Timeout, guarded

PING_FALLBACK_S = 240
# Pings go every half idle timeout, between these bounds: setInterval fires at once for a delay
# over 2^31 - 1 ms, so a helper announcing a huge idleTimeout would make the page ping without
# pause (the helper refuses idle timeouts over a day; the page does not rely on that).
PING_MIN_S = 5
PING_MAX_S = 43_200
RETRY_S = (1, 2, 4, 8, 15)  # pauses before joining the helper again
# A guest's link to the host that has not opened this long after the call is called again: an
# offer, answer or candidate can be lost (the helper refused it as `unavailable` while its
# Redis was away, or the instance that held the host died in between).
CALL_AGAIN_S = 20
# A host signs at most this many challenges on one link (a guest sends one; a few more cover
# nothing legitimate, and each costs the host an exponentiation).
MAX_PROOFS_PER_LINK = 3
SEEK_AGAIN_S = 5  # a guest without a host calls again a claimant whose link closed unproven
# Claimants (peers that say they are the host) a guest calls at once, each call an
# RTCPeerConnection: an honest helper's room holds 16 peers (its default room cap), but a
# hostile helper's welcome of 64 KiB named about 1,300, and peer-joined adds more; the guest
# built a connection for each at once (Chromium refuses past 500 a page). The next ones are
# called as these close unproven.
MAX_CALLS = 16
# Claimants a guest keeps (oldest first) to call in turn: peer-joined added one after a list
# lookup for each, without end.
MAX_CLAIMS = 256
# What one guest's peer id may make the host do over all its links, whatever closes them: each
# offer costs a new RTCPeerConnection (a DTLS certificate, ICE gathering), each proof an
# exponentiation. A guest calls again at most every SEEK_AGAIN_S (5 s) when its links keep
# closing, and proves the key once per link: both fit; a guest that re-offers in a loop gets
# OFFER_BURST links and then one per OFFER_EVERY_S, however often it sends.
OFFER_BURST = 6
OFFER_EVERY_S = 5.0
PROOF_BURST = 6
PROOF_EVERY_S = 10.0
TRACKED_PEERS = 256  # peer ids whose allowances are remembered (least recently seen go first)
# A peer's ICE candidates taken on one link: an honest one sends a few (one per network interface
# and kind: host, server reflexive, relayed). Anyone holding the room's link can say it is the
# host, never answer a guest's call and send candidates as fast as the helper relays them until
# the guest calls again; each was kept (or handed to the browser) without bound.
MAX_CANDIDATES = 64


def _js(value: Any) -> Any:
    return to_js(value, dict_converter=window.Object.fromEntries)


def _to_python(value: Any) -> Any:
    """A JavaScript object (an SDP, a candidate) as plain Python data, through JSON text."""
    return json.loads(str(window.JSON.stringify(value)))


def ping_interval_ms(idle_timeout: Any) -> int:
    """Milliseconds between pings for the helper's `idleTimeout` (seconds): half of it, within
    PING_MIN_S..PING_MAX_S; PING_FALLBACK_S when it is missing or not a number. Compared before
    any conversion: the page's JSON reader keeps a 400-digit integer exact, which float()
    cannot take."""
    if isinstance(idle_timeout, bool) or not isinstance(idle_timeout, int | float) \
            or idle_timeout != idle_timeout:  # NaN
        return PING_FALLBACK_S * 1000
    if idle_timeout >= 2 * PING_MAX_S:
        return PING_MAX_S * 1000
    if idle_timeout <= 2 * PING_MIN_S:
        return PING_MIN_S * 1000
    return round(float(idle_timeout) * 500)


class Allowance:
    """A budget per peer id that outlives the peer's links: `burst` at once, then one every
    `every_s` seconds. Memory is bounded: at most `tracked` peer ids are remembered, and the
    one seen least recently is forgotten first (a new peer id is a new join at the helper,
    whose join budgets bound how fast ids come; one forgotten after that long has refilled)."""

    def __init__(self, burst: int, every_s: float, tracked: int = TRACKED_PEERS) -> None:
        if burst < 1 or not every_s > 0 or tracked < 1:
            raise ValueError("an allowance needs burst >= 1, every_s > 0 and tracked >= 1")
        self.burst, self.every_s, self.tracked = burst, every_s, tracked
        self.budgets: OrderedDict[str, tuple[float, float]] = OrderedDict()  # (tokens, stamp)
        self.refused = 0  # how many takes were refused, for the console and the tests

    def take(self, peer: str, now: float) -> bool:
        """Spend one of `peer`'s tokens; False (and nothing spent) when it has none."""
        tokens, stamp = self.budgets.pop(peer, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + max(0.0, now - stamp) / self.every_s)
        allowed = tokens >= 1
        if allowed:
            tokens -= 1
        else:
            self.refused += 1
        self.budgets[peer] = (tokens, now)  # now the most recently seen
        while len(self.budgets) > self.tracked:
            self.budgets.popitem(last=False)
        return allowed


class Signal:
    """One WebSocket to the signalling helper, in one room."""

    def __init__(self, url: str, room: str, hello: dict[str, Any],
                 on_message: Callable[[dict[str, Any]], None],
                 on_state: Callable[[str], None]) -> None:
        self.url, self.room, self.hello = url, room, hello
        self.on_message, self.on_state = on_message, on_state
        self.socket: Any = None
        self.peer: str | None = None  # our id in the room
        self.ice_servers: list[Any] = []
        self.ice_policy = signalling.ice_transport_policy(str(window.location.search))
        self.proxies: list[Any] = []
        self.ping_timer: Any = None
        self.ping_js: Any = None  # one proxy for every interval (each welcome starts one)
        self.attempt = 0
        self.stopped = False

    def open(self) -> None:
        if self.stopped:
            return
        try:
            socket = window.WebSocket.new(self.url)
        except Exception as exc:  # noqa: BLE001 - a URL the browser refuses
            self.on_state(f"error:{exc}")
            return
        self.socket = socket
        self.proxies = [create_proxy(guarded(f))
                        for f in (self._opened, self._message, self._closed)]
        socket.onopen, socket.onmessage, socket.onclose = self.proxies
        self.on_state("connecting")

    def _opened(self, event: Any) -> None:
        try:
            join = signalling.join_message(self.room, self.hello)
        except signalling.SignallingError as exc:
            # a room id from storage or a link that is no room id (the page checks both
            # before it opens a room): said in the room's status, never the page's fault
            window.console.warn(f"signalling: {exc}")
            self.close()
            self.on_state(f"error:{exc}")
            return
        self.socket.send(join)

    def _message(self, event: Any) -> None:
        try:
            message = signalling.parse_server_message(str(event.data))
        except signalling.SignallingError as exc:
            window.console.warn(f"signalling: {exc}")
            return
        if message["type"] == "welcome":
            self.peer = message["peer"]
            self.ice_servers = message["iceServers"]
            self.attempt = 0
            every_ms = ping_interval_ms(message["limits"].get("idleTimeout"))
            self._stop_ping()
            if self.ping_js is None:
                self.ping_js = create_proxy(guarded(self.ping))
            self.ping_timer = window.setInterval(self.ping_js, every_ms)
            self.on_state("joined")
        self.on_message(message)

    def _closed(self, event: Any) -> None:
        self._stop_ping()
        self.peer = None
        if self.stopped:
            return
        self.on_state("closed")
        pause = RETRY_S[min(self.attempt, len(RETRY_S) - 1)]
        self.attempt += 1
        Timeout(self.open, pause * 1000)

    def _stop_ping(self) -> None:
        if self.ping_timer is not None:
            window.clearInterval(self.ping_timer)
            self.ping_timer = None

    def ping(self, *_: Any) -> None:
        self.send(signalling.ping_message())

    def send(self, text: str) -> None:
        if self.socket is not None and int(self.socket.readyState) == 1:
            self.socket.send(text)

    def relay(self, kind: str, to: str, data: Any) -> None:
        self.send(signalling.relay_message(kind, to, data))

    def close(self) -> None:
        self.stopped = True
        self._stop_ping()
        if self.socket is not None:
            self.socket.close()


class Link:
    """One RTCPeerConnection with its data channel, to one peer of the room."""

    def __init__(self, signal: Signal, peer: str, calls: bool,
                 opened: Callable[[str], None], message: Callable[[str, str], None],
                 closed: Callable[[str], None]) -> None:
        self.signal, self.peer, self.calls = signal, peer, calls
        self.me = signal.peer  # our peer id when the link was made: what the peer knows us by
        self.opened_cb, self.message_cb, self.closed_cb = opened, message, closed
        config = {"iceServers": signal.ice_servers, "iceTransportPolicy": signal.ice_policy}
        self.pc = window.RTCPeerConnection.new(_js(config))
        self.channel: Any = None
        self.proxies: list[Any] = []
        self.remote_set = False
        self.early: list[Any] = []  # candidates that came before the remote description
        self.candidates = 0  # the peer's candidates taken on this link (MAX_CANDIDATES)
        self.done = False
        self.pc.onicecandidate = self._keep(self._candidate)
        self.pc.onconnectionstatechange = self._keep(self._state)
        if calls:
            self._wire(self.pc.createDataChannel("ludo", _js({"ordered": True})))
            asyncio.ensure_future(self.offer())
        else:
            self.pc.ondatachannel = self._keep(lambda event: self._wire(event.channel))

    def _keep(self, fn: Any) -> Any:
        proxy = create_proxy(guarded(fn))
        self.proxies.append(proxy)
        return proxy

    def _wire(self, channel: Any) -> None:
        self.channel = channel
        channel.onopen = self._keep(lambda e: self.opened_cb(self.peer))
        channel.onmessage = self._keep(lambda e: self.message_cb(self.peer, str(e.data)))
        channel.onclose = self._keep(lambda e: self.close())

    def _candidate(self, event: Any) -> None:
        if not is_none(event.candidate):
            self.signal.relay("candidate", self.peer, _to_python(event.candidate))

    def _state(self, event: Any) -> None:
        if str(self.pc.connectionState) in ("failed", "closed"):
            self.close()

    async def _negotiate(self, step: str, steps: Any) -> None:
        """Run one negotiation step (a coroutine, awaited as a task of the page's loop). The
        link may close while the step waits: replaced by a newer call, or its peer left the
        room (a host's tab stepping aside closes every link at once). The browser then
        refuses the step (InvalidStateError), which is no fault: it put "Something went
        wrong" over a guest's board when a host's tab took the room back. A step the browser
        refuses on an open link is the peer's bad offer or answer (hostile input, or a peer
        that went away meanwhile): the link is closed, and a guest calls again as after any
        lost call."""
        if self.done:
            steps.close()
            return
        try:
            await steps
        except Exception as exc:  # noqa: BLE001 - the browser's refusal, whatever its kind
            if not self.done:
                window.console.warn(f"connection to {self.peer}: {step} failed ({exc}); "
                                    "closing the link")
                self.close()

    def offer(self) -> Any:
        return self._negotiate("offer", self._offer())

    async def _offer(self) -> None:
        offer = await self.pc.createOffer()
        await self.pc.setLocalDescription(offer)
        self.signal.relay("offer", self.peer, _to_python(self.pc.localDescription))

    def on_offer(self, data: Any) -> Any:
        return self._negotiate("the peer's offer", self._on_offer(data))

    async def _on_offer(self, data: Any) -> None:
        await self.pc.setRemoteDescription(window.JSON.parse(json.dumps(data)))
        await self._flush()
        answer = await self.pc.createAnswer()
        await self.pc.setLocalDescription(answer)
        self.signal.relay("answer", self.peer, _to_python(self.pc.localDescription))

    def on_answer(self, data: Any) -> Any:
        return self._negotiate("the peer's answer", self._on_answer(data))

    async def _on_answer(self, data: Any) -> None:
        await self.pc.setRemoteDescription(window.JSON.parse(json.dumps(data)))
        await self._flush()

    async def on_candidate(self, data: Any) -> None:
        if self.candidates >= MAX_CANDIDATES:
            if self.candidates == MAX_CANDIDATES:
                window.console.warn(f"connection to {self.peer}: more than {MAX_CANDIDATES} "
                                    "candidates; ignoring the others")
                self.candidates += 1
            return
        self.candidates += 1
        candidate = window.JSON.parse(json.dumps(data))
        if self.remote_set:
            await self._add(candidate)
        elif not self.done:
            self.early.append(candidate)

    async def _add(self, candidate: Any) -> None:
        """One of the peer's ICE candidates. One the browser refuses (malformed, or for
        another negotiation) is left out: the link may well work through the others."""
        if self.done:
            return
        try:
            await self.pc.addIceCandidate(candidate)
        except Exception as exc:  # noqa: BLE001 - the browser's refusal, whatever its kind
            if not self.done:
                window.console.warn(f"connection to {self.peer}: a candidate was refused "
                                    f"({exc})")

    async def _flush(self) -> None:
        self.remote_set = True
        early, self.early = self.early, []
        for candidate in early:
            await self._add(candidate)

    def binding(self) -> str:
        """The channel's DTLS fingerprints as :func:`net.hostkey.channel_binding` puts them
        (HostKeyError before both descriptions are set)."""
        local, remote = self.pc.localDescription, self.pc.remoteDescription
        if is_none(local) or is_none(remote):
            raise hostkey.HostKeyError("the link is not negotiated yet")
        mine, theirs = str(local.sdp), str(remote.sdp)
        return hostkey.channel_binding(mine, theirs) if self.calls else \
            hostkey.channel_binding(theirs, mine)

    @property
    def is_open(self) -> bool:
        return self.channel is not None and str(self.channel.readyState) == "open"

    def send(self, text: str) -> None:
        if self.is_open:  # the rooms already cut long messages into parts
            self.channel.send(text)

    def close(self) -> None:
        if self.done:
            return
        self.done = True
        try:
            self.pc.close()
        except Exception:  # noqa: BLE001 - already closed
            pass
        self.closed_cb(self.peer)


class Transport:
    """The room's connections: a host answers every guest; a guest calls the host.

    A guest trusts a peer as its host only after the peer proved it holds the key whose
    fingerprint the room link carries (:mod:`net.hostkey`): every peer that says it is the host
    in its signalling hello is called, each link that opens gets a fresh challenge, and the
    first that answers with a valid proof becomes ``host``. The proof is bound to this guest's
    peer id and to both ends' DTLS fingerprints, so it cannot be relayed from another link, nor
    made for a channel someone in between (a helper rewriting the SDP) holds the other end of.
    Until then nothing but the challenge goes over the link, and the owner hears of neither its
    opening nor its messages, so the room's hello (which carries the seat secret) goes to the
    proven host only. A proven host's working link is kept whoever else claims to be the host;
    when it closes, every claimant still in the room is called again.
    """

    def __init__(self, url: str, room: str, role: str, opened: Callable[[str], None],
                 message: Callable[[str, str], None], closed: Callable[[str], None],
                 state: Callable[[str], None], key: hostkey.PrivateKey | None = None,
                 fingerprint: str | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 call_again_ms: float = CALL_AGAIN_S * 1000) -> None:
        if role == "host" and key is None or role == "guest" and fingerprint is None:
            raise ValueError("a host needs its key, a guest the key's fingerprint")
        self.room, self.role = room, role
        self.key, self.fingerprint = key, fingerprint
        self.opened, self.message, self.closed, self.state = opened, message, closed, state
        self.links: dict[str, Link] = {}
        self.host: str | None = None  # a guest's host's peer id, once it proved its key
        self.claims: list[str] = []  # a guest's peers that say they are the host, oldest first
        self.challenges: dict[str, tuple[str, str]] = {}  # peer -> (challenge, our id in it)
        self.refused: set[str] = set()  # peers whose proof failed: never called again
        self.answered: dict[str, int] = {}  # a host's challenges answered on each peer's link
        # A host's budgets per guest peer id, kept when its links close (re-offering gives a
        # new link, never a fresh budget)
        self.clock = clock
        self.call_again_ms = call_again_ms  # CALL_AGAIN_S; tests shorten it (?call_again_ms=)
        self.offers = Allowance(OFFER_BURST, OFFER_EVERY_S)
        self.proofs = Allowance(PROOF_BURST, PROOF_EVERY_S)
        self.signal = Signal(url, room, {"role": role}, self.on_signal, state)

    def start(self) -> None:
        self.signal.open()

    def stop(self) -> None:
        self.signal.close()
        for link in list(self.links.values()):
            link.close()

    def send(self, peer: str, text: str) -> None:
        link = self.links.get(peer)
        if link is not None:
            link.send(text)

    def send_host(self, text: str) -> None:
        if self.host is not None:
            self.send(self.host, text)

    def _link(self, peer: str, calls: bool) -> Link:
        old = self.links.pop(peer, None)
        if old is not None:
            old.close()
        link = Link(self.signal, peer, calls, self._opened, self._message, self._closed)
        self.links[peer] = link
        return link

    # -- what the links say ----------------------------------------------------------------

    def _opened(self, peer: str) -> None:
        if self.role == "host":
            self.opened(peer)
            return
        link = self.links.get(peer)
        me = self.signal.peer if link is None else link.me
        if link is None or me is None or peer in self.refused:
            return
        challenge = hostkey.new_challenge()
        self.challenges[peer] = (challenge, me)
        link.send(hostkey.challenge_message(challenge))

    def _message(self, peer: str, text: str) -> None:
        if self.role == "host":
            if hostkey.is_auth_message(text):
                self._answer(peer, text)
            else:
                self.message(peer, text)
        elif peer == self.host:
            if not hostkey.is_auth_message(text):
                self.message(peer, text)
        elif peer in self.challenges and hostkey.is_auth_message(text):
            self._check_proof(peer, text)
        # anything else from a peer not yet proven is dropped unread

    def _answer(self, peer: str, text: str) -> None:
        """The host proves its key to a guest; a few answers per link at most (each costs an
        exponentiation)."""
        assert self.key is not None
        count = self.answered.get(peer, 0)
        if count >= MAX_PROOFS_PER_LINK:
            return
        self.answered[peer] = count + 1
        link = self.links.get(peer)
        if link is None:
            return
        if not self.proofs.take(peer, self.clock()):
            if self.proofs.refused == 1:
                window.console.warn(f"host key: {peer} asks for proofs too often; "
                                    "ignoring some")
            return
        try:
            challenge = hostkey.read_challenge(text)
            binding = link.binding()
        except hostkey.HostKeyError as exc:
            window.console.warn(f"host key: a challenge from {peer} was refused: {exc}")
            return
        link.send(hostkey.proof_message(self.key, self.room, challenge, peer, binding))

    def _check_proof(self, peer: str, text: str) -> None:
        challenge, me = self.challenges.pop(peer)
        assert self.fingerprint is not None
        link = self.links.get(peer)
        if link is None:
            return
        try:
            hostkey.check_proof(text, self.fingerprint, self.room, challenge, me, link.binding())
        except hostkey.HostKeyError as exc:
            # logged once: the peer is never called again
            window.console.warn(f"host key: {peer} says it is the host but its proof failed "
                                f"({exc}); still looking for the host")
            self.refused.add(peer)
            link.close()
            return
        if self.host is not None and self.host in self.links:
            # another proven host already holds the room (the host's page open twice):
            # keep the working link
            self.links[peer].close()
            return
        self.host = peer
        for other in [p for p in self.links if p != peer]:
            self.links[other].close()  # the other claimants' calls are not needed now
        self.opened(peer)

    def _closed(self, peer: str) -> None:
        link = self.links.get(peer)
        if link is not None and link.done:
            del self.links[peer]
        if self.role == "host":
            self.answered.pop(peer, None)
            self.closed(peer)
            return
        self.challenges.pop(peer, None)
        if peer == self.host and peer not in self.links:
            self.closed(peer)
            self.host = None
            self._seek()
        elif self.host is None and peer not in self.refused and peer not in self.links:
            # a claimant's call failed before it proved anything: try it again in a while
            # (at once could spin on a peer whose links close as soon as they open)
            Timeout(self._seek, SEEK_AGAIN_S * 1000)

    # -- finding the host (a guest) ------------------------------------------------------

    def _seek(self) -> None:
        """Without a proven host, call every claimant not yet called or refused. Not once
        stopped: the host link's close, when the page stops the transport, came while the
        page still had its peer id (the socket's own close comes later), and called the host
        again, an RTCPeerConnection that nothing would use nor close."""
        if self.host is not None or self.signal.peer is None or self.signal.stopped:
            return
        for peer in self.claims:
            if len(self.links) >= MAX_CALLS:
                break
            if peer not in self.links and peer not in self.refused:
                self._call(peer)

    def _call(self, peer: str) -> None:
        link = self._link(peer, calls=True)
        Timeout(lambda: self._check_call(link), self.call_again_ms)

    def _check_call(self, link: Link) -> None:
        """Call a claimant again if this call is still the current one and has not given a
        proven host (it never opened, or never proved): an offer, answer or candidate can be
        lost, and so can a proof."""
        current = self.links.get(link.peer) is link and self.host != link.peer
        if current and not link.done and link.peer in self.claims \
                and link.peer not in self.refused and self.signal.peer is not None \
                and not self.signal.stopped:
            self.challenges.pop(link.peer, None)
            self._call(link.peer)

    def _claim(self, peer: str) -> None:
        if peer not in self.claims and len(self.claims) < MAX_CLAIMS:
            self.claims.append(peer)
        self._seek()

    def on_signal(self, message: dict[str, Any]) -> None:
        kind = message["type"]
        if kind == "welcome" and self.role == "guest":
            # a new signalling connection: our peer id changed, so calls made under the old
            # one are stale unless proven
            self.claims = [p["peer"] for p in message["peers"]
                           if p["hello"].get("role") == "host"][:MAX_CLAIMS]
            if not self.claims:
                self.state("no-host")
            self._seek()
        elif kind == "peer-joined" and self.role == "guest" \
                and message["hello"].get("role") == "host":
            self._claim(message["peer"])
        elif kind == "peer-left":
            peer = message["peer"]
            if peer in self.claims:
                self.claims.remove(peer)
            link = self.links.get(peer)
            if link is not None:
                link.close()
        elif kind == "offer" and self.role == "host":
            peer = message["from"]
            if not self.offers.take(peer, self.clock()):
                # the guest's call goes unanswered; a real guest calls again in a while
                if self.offers.refused == 1:
                    window.console.warn(f"signalling: {peer} offers too often; ignoring some")
                return
            asyncio.ensure_future(self._link(peer, calls=False).on_offer(message["data"]))
        elif kind == "answer" and message["from"] in self.links:
            asyncio.ensure_future(self.links[message["from"]].on_answer(message["data"]))
        elif kind == "candidate" and message["from"] in self.links:
            asyncio.ensure_future(self.links[message["from"]].on_candidate(message["data"]))
        elif kind == "error":
            window.console.warn(f"signalling error: {message['code']}: {message['message']}")
