"""Limits in the page's WebRTC transport (app/browser/rtc.py), run on CPython with stand-ins for
the browser: the ping interval, and what one peer id may make the host do (net review,
findings 7 and 8)."""

from __future__ import annotations

import importlib
import sys
import types
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests import pyscript_stand_ins

ROOM = "q2Vf0pX9cE7wR1sT4uY8zA"


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def rtc(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """app.browser.rtc imported against stand-in pyscript modules, removed again after."""
    intervals: list[float] = []
    timers: list[Callable[..., Any]] = []

    def set_interval(fn: Callable[..., Any], ms: float) -> int:
        intervals.append(ms)
        return len(intervals)

    window = types.SimpleNamespace(
        location=types.SimpleNamespace(search=""),
        console=types.SimpleNamespace(warn=lambda text: None),
        setTimeout=lambda fn, ms: timers.append(fn),
        setInterval=set_interval,
        clearInterval=lambda handle: None,
    )
    pyscript_stand_ins.install(monkeypatch, window, None)
    stand_in = ("app.browser.rtc", "app.browser.dom")
    for name in stand_in:
        sys.modules.pop(name, None)
    module = importlib.import_module("app.browser.rtc")
    module.intervals, module.timers = intervals, timers  # type: ignore[attr-defined]
    yield module
    for name in stand_in:
        sys.modules.pop(name, None)


# -- pings (finding 8) --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("idle_timeout", "ms"),
    [
        (600.0, 300_000),
        (600, 300_000),
        (601, 300_500),
        (86_400, 43_200_000),
        (5_000_000.0, 43_200_000),  # over setInterval's 2^31 - 1 ms: it would fire at once
        (10**400, 43_200_000),  # the page's JSON keeps it exact; float() could not take it
        (-(10**400), 5_000),
        (float("inf"), 43_200_000),
        (1, 5_000),
        (0, 5_000),
        (-3.5, 5_000),
        (None, 240_000),
        ("600", 240_000),
        (True, 240_000),
        (float("nan"), 240_000),
    ],
)
def test_the_ping_interval_is_half_the_idle_timeout_within_bounds(rtc: Any, idle_timeout: Any,
                                                                  ms: int) -> None:
    assert rtc.ping_interval_ms(idle_timeout) == ms
    assert 0 < rtc.ping_interval_ms(idle_timeout) <= 2**31 - 1


def test_a_welcome_with_a_huge_idle_timeout_starts_no_ping_flood(rtc: Any) -> None:
    signal = rtc.Signal("", ROOM, {"role": "guest"}, lambda m: None, lambda s: None)
    signal._message(types.SimpleNamespace(data=(
        '{"type":"welcome","v":1,"peer":"0123456789ab","peers":[],"iceServers":[],'
        '"limits":{"maxMessageBytes":16384,"roomCap":16,"idleTimeout":1' + "0" * 400 + '}}')))
    assert rtc.intervals == [43_200_000]


# -- what one peer id may make the host do (finding 7) ------------------------------------------


class FakeLink:
    """Stands in for rtc.Link on the host's side: counts what was made and sent."""

    made = 0

    def __init__(self, signal: Any, peer: str, calls: bool, opened: Callable[[str], None],
                 message: Callable[[str, str], None], closed: Callable[[str], None]) -> None:
        FakeLink.made += 1
        self.peer, self.calls = peer, calls
        self.opened_cb, self.message_cb, self.closed_cb = opened, message, closed
        self.sent: list[str] = []
        self.done = False
        self.is_open = False

    async def on_offer(self, data: Any) -> None:
        self.is_open = True
        self.opened_cb(self.peer)

    def binding(self) -> str:
        from net import hostkey

        cert = ":".join(["AB"] * 32)
        return hostkey.channel_binding(f"a=fingerprint:sha-256 {cert}\r\n",
                                       f"a=fingerprint:sha-256 {cert}\r\n")

    def send(self, text: str) -> None:
        if self.is_open:
            self.sent.append(text)

    def close(self) -> None:
        if not self.done:
            self.done = True
            self.is_open = False
            self.closed_cb(self.peer)


GUEST = "0123456789ab"


def _host(rtc: Any, monkeypatch: pytest.MonkeyPatch, clock: Clock) -> Any:
    from net import hostkey

    monkeypatch.setattr(rtc, "Link", FakeLink)
    FakeLink.made = 0
    host = rtc.Transport("", ROOM, "host", lambda p: None, lambda p, t: None, lambda p: None,
                         lambda s: None, key=hostkey.PrivateKey.generate(), clock=clock)
    host.signal.peer = "aaaaaaaaaaaa"
    return host


def test_re_offering_gets_neither_endless_links_nor_endless_proofs(
        rtc: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    # Before: each offer built a new RTCPeerConnection, and closing a link forgot how many
    # challenges the host had answered for that peer, so 21 offers with 10 challenges each got
    # 21 links and 63 proofs (each an exponentiation) within the helper's 20 messages a second.
    import asyncio

    from net import hostkey

    clock = Clock()
    host = _host(rtc, monkeypatch, clock)
    proofs: list[str] = []

    async def offer_and_challenge() -> None:
        host.on_signal({"type": "offer", "from": GUEST, "data": {"type": "offer", "sdp": ""}})
        await asyncio.sleep(0)  # the answer's task runs
        link = host.links.get(GUEST)
        if link is None or not link.is_open:
            return
        for _ in range(10):
            link.message_cb(GUEST, hostkey.challenge_message(hostkey.new_challenge()))
        proofs.extend(link.sent)
        link.sent.clear()
        link.close()

    async def scenario() -> None:
        for _ in range(21):
            await offer_and_challenge()
        assert FakeLink.made == rtc.OFFER_BURST
        assert len(proofs) == rtc.PROOF_BURST
        # time brings one more link per OFFER_EVERY_S and one proof per PROOF_EVERY_S
        clock.now += rtc.PROOF_EVERY_S
        for _ in range(5):
            await offer_and_challenge()
        more_links = int(rtc.PROOF_EVERY_S / rtc.OFFER_EVERY_S)
        assert FakeLink.made == rtc.OFFER_BURST + more_links
        assert len(proofs) == rtc.PROOF_BURST + 1
        # another peer id has budgets of its own
        host.on_signal({"type": "offer", "from": "bbbbbbbbbbbb", "data": {}})
        await asyncio.sleep(0)
        assert FakeLink.made == rtc.OFFER_BURST + more_links + 1

    asyncio.run(scenario())
    assert host.offers.refused > 0 and host.proofs.refused > 0


def test_a_guest_that_calls_again_every_few_seconds_is_always_answered(
        rtc: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    # a real guest whose links keep closing calls again SEEK_AGAIN_S later, and proves once
    import asyncio

    from net import hostkey

    clock = Clock()
    host = _host(rtc, monkeypatch, clock)

    async def scenario() -> None:
        for attempt in range(60):
            host.on_signal({"type": "offer", "from": GUEST, "data": {}})
            await asyncio.sleep(0)
            link = host.links[GUEST]
            assert FakeLink.made == attempt + 1
            link.message_cb(GUEST, hostkey.challenge_message(hostkey.new_challenge()))
            assert len(link.sent) == 1
            link.close()
            clock.now += max(rtc.SEEK_AGAIN_S, rtc.PROOF_EVERY_S)

    asyncio.run(scenario())


def test_an_allowance_remembers_a_bounded_number_of_peer_ids(rtc: Any) -> None:
    allowance = rtc.Allowance(2, 5.0, tracked=3)
    assert [allowance.take("a", 0.0) for _ in range(3)] == [True, True, False]
    for peer in ("b", "c"):
        allowance.take(peer, 0.0)
    assert allowance.take("a", 0.0) is False  # "a" was seen last: kept
    allowance.take("d", 0.0)  # forgets the least recently seen ("b")
    assert list(allowance.budgets) == ["c", "a", "d"]
    for n in range(1000):
        allowance.take(f"{n:012x}", 1.0)
    assert len(allowance.budgets) == 3
    assert allowance.take("x", 7.5) and allowance.take("x", 7.5) and not allowance.take("x", 7.5)
    assert allowance.take("x", 12.5)  # one more every 5 s
    with pytest.raises(ValueError):
        rtc.Allowance(0, 5.0)


# -- negotiation on a link that closes meanwhile, or with a peer's bad data ----------------------


class FakePeerConnection:
    """Stands in for RTCPeerConnection: each step is awaitable, and the browser's refusals are
    raised as Pyodide raises them (a closed connection; an SDP or candidate it cannot read)."""

    def __init__(self, config: Any) -> None:
        self.closed = False
        self.localDescription: Any = None
        self.remoteDescription: Any = None
        self.connectionState = "new"
        self.candidates: list[Any] = []

    def _check(self) -> None:
        if self.closed:
            raise RuntimeError("InvalidStateError: the RTCPeerConnection's signalingState is "
                               "'closed'")

    def createDataChannel(self, label: str, options: Any) -> Any:  # noqa: N802 - browser API
        return types.SimpleNamespace(readyState="connecting")

    async def createOffer(self) -> Any:  # noqa: N802
        self._check()
        return {"type": "offer", "sdp": "v=0"}

    async def createAnswer(self) -> Any:  # noqa: N802
        self._check()
        return {"type": "answer", "sdp": "v=0"}

    async def setLocalDescription(self, description: Any) -> None:  # noqa: N802
        self._check()
        self.localDescription = description

    async def setRemoteDescription(self, description: Any) -> None:  # noqa: N802
        self._check()
        if description.get("sdp") != "v=0":
            raise RuntimeError("OperationError: Failed to parse SessionDescription")
        self.remoteDescription = description

    async def addIceCandidate(self, candidate: Any) -> None:  # noqa: N802
        self._check()
        if not candidate.get("candidate", "").startswith("candidate:"):
            raise RuntimeError("OperationError: Error processing ICE candidate")
        self.candidates.append(candidate)

    def close(self) -> None:
        self.closed = True
        self.connectionState = "closed"


@pytest.fixture
def browser_rtc(rtc: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """rtc with a stand-in RTCPeerConnection; the tasks the transport starts are kept in
    ``rtc.tasks`` and its console warnings in ``rtc.warnings``."""
    import asyncio
    import json

    window = rtc.window
    warnings: list[str] = []
    monkeypatch.setattr(window, "RTCPeerConnection",
                        types.SimpleNamespace(new=FakePeerConnection), raising=False)
    monkeypatch.setattr(window, "JSON", types.SimpleNamespace(parse=json.loads,
                                                              stringify=json.dumps),
                        raising=False)
    monkeypatch.setattr(window, "Object", types.SimpleNamespace(fromEntries=dict), raising=False)
    monkeypatch.setattr(window, "console", types.SimpleNamespace(warn=warnings.append))
    tasks: list[asyncio.Future[Any]] = []
    start = asyncio.ensure_future

    def keep(coro: Any) -> Any:
        task = start(coro)
        tasks.append(task)
        return task

    monkeypatch.setattr(asyncio, "ensure_future", keep)
    rtc.tasks, rtc.warnings = tasks, warnings
    yield rtc


def _signal(rtc: Any, peer: str) -> Any:
    relayed: list[tuple[str, str, Any]] = []
    signal = rtc.Signal("", ROOM, {"role": "guest"}, lambda m: None, lambda s: None)
    signal.peer = peer
    signal.relay = lambda kind, to, data: relayed.append((kind, to, data))
    signal.relayed = relayed
    return signal


def test_a_call_closed_before_its_offer_is_made_is_no_fault(browser_rtc: Any) -> None:
    # A guest calls every peer that says it is the host; when such a peer leaves the room at
    # once (a host's tab stepping aside), the call closes before its offer task runs. The
    # browser then refuses createOffer, and the page showed "Something went wrong" over the
    # board (a guest's page, in a fresh-clone run of the second-tab browser test).
    import asyncio

    rtc = browser_rtc
    closed: list[str] = []

    async def scenario() -> None:
        signal = _signal(rtc, GUEST)
        link = rtc.Link(signal, "cccccccccccc", True, lambda p: None, lambda p, t: None,
                        closed.append)
        link.close()
        await asyncio.gather(*rtc.tasks, return_exceptions=True)
        assert signal.relayed == []

    asyncio.run(scenario())
    assert closed == ["cccccccccccc"]
    assert [t.exception() for t in rtc.tasks] == [None]
    assert rtc.warnings == []


def test_a_peers_unreadable_offer_closes_the_link_and_a_bad_candidate_is_left_out(
        browser_rtc: Any) -> None:
    import asyncio

    rtc = browser_rtc
    closed: list[str] = []

    async def scenario() -> None:
        signal = _signal(rtc, "aaaaaaaaaaaa")
        good = rtc.Link(signal, GUEST, False, lambda p: None, lambda p, t: None, closed.append)
        await good.on_candidate({"candidate": "nonsense"})  # before the offer: kept for later
        await good.on_offer({"type": "offer", "sdp": "v=0"})
        await good.on_candidate({"candidate": "candidate:1 1 udp 1 10.0.0.1 9 typ host"})
        await good.on_candidate({"candidate": "also nonsense"})
        assert [kind for kind, _, _ in signal.relayed] == ["answer"]
        assert not good.done and len(good.pc.candidates) == 1
        bad = rtc.Link(signal, "dddddddddddd", False, lambda p: None, lambda p, t: None,
                       closed.append)
        await bad.on_offer({"type": "offer", "sdp": "<script>"})
        assert bad.done and bad.pc.closed
        await bad.on_candidate({"candidate": "candidate:1 1 udp 1 10.0.0.1 9 typ host"})

    asyncio.run(scenario())
    assert closed == ["dddddddddddd"]
    assert len(rtc.warnings) == 3 and "offer failed" in rtc.warnings[-1]


# -- a transport stopped by its page ------------------------------------------------------------


def test_a_stopped_guests_transport_calls_nobody_when_its_host_link_closes(
        rtc: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    # A guest's tab that steps aside (another tab of the browser took the table) stops its
    # transport: the signalling socket first, whose own close comes later, then the links.
    # Before, the host link's close called the host again at once (the page still had its
    # peer id then): a new RTCPeerConnection in a stopped transport, whose offer never went
    # out and which nothing closed.
    monkeypatch.setattr(rtc, "Link", FakeLink)
    FakeLink.made = 0
    host_peer = "bbbbbbbbbbbb"
    closed: list[str] = []
    guest = rtc.Transport("", ROOM, "guest", lambda p: None, lambda p, t: None, closed.append,
                          lambda s: None, fingerprint="A" * 22)
    guest.signal.peer = GUEST
    guest.claims = [host_peer]
    guest._seek()  # the call to the host, which proves its key
    assert FakeLink.made == 1
    guest.host = host_peer
    pending = len(rtc.timers)  # (the first call's check, CALL_AGAIN_S later)
    guest.stop()
    assert closed == [host_peer]  # the page is told its host link closed, as before
    assert FakeLink.made == 1 and guest.links == {}
    assert len(rtc.timers) == pending  # nor is a call again left pending
    for timer in rtc.timers:  # and the first call's check calls nobody again either
        timer()
    assert FakeLink.made == 1


# -- a peer's candidates ------------------------------------------------------------------------


def test_a_peer_flooding_candidates_gets_a_bounded_number_kept_and_tried(
        browser_rtc: Any) -> None:
    # A peer that says it is the host (anyone holding the room's link can) need never answer
    # a guest's call, yet send it candidates as fast as the helper relays them (20 a second,
    # 120 at once) until the guest calls again 20 s later: each one, up to 16 KiB, was kept
    # for the answer that never comes (or, after it, handed to the browser), without bound.
    # A link's honest peer sends a few: one per network interface and kind.
    import asyncio

    rtc = browser_rtc
    limit = getattr(rtc, "MAX_CANDIDATES", 64)

    async def scenario() -> None:
        signal = _signal(rtc, GUEST)
        link = rtc.Link(signal, "cccccccccccc", True, lambda p: None, lambda p, t: None,
                        lambda p: None)
        await asyncio.gather(*rtc.tasks)
        for i in range(600):
            await link.on_candidate({"candidate": f"candidate:{i} 1 udp 1 10.0.0.1 9 typ host",
                                     "pad": "x" * 1000})
        assert len(link.early) <= limit, len(link.early)
        await link.on_answer({"type": "answer", "sdp": "v=0"})
        for i in range(600):
            await link.on_candidate({"candidate": f"candidate:{i} 1 udp 1 10.0.0.2 9 typ host"})
        assert len(link.pc.candidates) == limit and not link.done

    asyncio.run(scenario())
    assert len(rtc.warnings) == 1 and "candidates" in rtc.warnings[0]


# -- how many claimants a guest calls (hostile review 8) -----------------------------------------


def test_a_guest_calls_a_bounded_number_of_claimants_at_once(
        rtc: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    # A guest calls every peer whose hello says "host", each call an RTCPeerConnection. An
    # honest helper's room holds 16 peers, but the page trusts the helper no more than a peer:
    # one welcome of 64 KiB names about 1,300 claimants (and peer-joined adds more), and the
    # guest built a connection for each at once (Chromium refuses past 500 a page). Now it calls
    # rtc.MAX_CALLS at once, and the next claimants as calls close unproven.
    monkeypatch.setattr(rtc, "Link", FakeLink)
    FakeLink.made = 0
    guest = rtc.Transport("", ROOM, "guest", lambda p: None, lambda p, t: None, lambda p: None,
                          lambda s: None, fingerprint="A" * 22, clock=Clock())
    guest.signal.peer = GUEST
    claimants = [f"{n:012x}" for n in range(1, 1301)]
    guest.on_signal({"type": "welcome", "v": 1, "peer": GUEST, "iceServers": [], "limits": {},
                     "peers": [{"peer": p, "hello": {"role": "host"}} for p in claimants]})
    for n in range(1301, 1401):
        guest.on_signal({"type": "peer-joined", "peer": f"{n:012x}", "hello": {"role": "host"}})
    assert FakeLink.made == rtc.MAX_CALLS
    assert list(guest.links) == claimants[:rtc.MAX_CALLS]
    # the claimants kept are bounded too: each peer-joined was appended after a list lookup
    for n in range(1401, 11401):
        guest.on_signal({"type": "peer-joined", "peer": f"{n:012x}", "hello": {"role": "host"}})
    assert len(guest.claims) == rtc.MAX_CLAIMS and guest.claims[0] == claimants[0]
    # a claimant whose proof failed is not called again: its place goes to the next one
    guest.refused.add(claimants[0])
    guest.links[claimants[0]].close()
    guest._seek()
    assert FakeLink.made == rtc.MAX_CALLS + 1 and claimants[rtc.MAX_CALLS] in guest.links
