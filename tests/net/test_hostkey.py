"""The host's key (net/hostkey.py) and the guest's side of the exchange (app/browser/rtc.py):
a peer becomes a guest's host only by proving the key whose fingerprint the room link carries,
and nothing secret reaches a peer before that."""

from __future__ import annotations

import importlib
import json
import shutil
import subprocess
import sys
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from net import hostkey
from net.hostkey import HostKeyError, PrivateKey, PublicKey
from tests import pyscript_stand_ins

ROOM = "q2Vf0pX9cE7wR1sT4uY8zA"
GUEST = "0123456789ab"
ROOT = Path(__file__).resolve().parents[2]
PYODIDE = ROOT / "vendor" / "pyodide"


def sdp(fingerprint: str) -> str:
    """A data channel's description, as Chromium writes one (abridged)."""
    return ("v=0\r\no=- 4611731400430051336 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n"
            "a=group:BUNDLE 0\r\na=msid-semantic: WMS\r\n"
            "m=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\nc=IN IP4 0.0.0.0\r\n"
            "a=ice-ufrag:Xq1b\r\na=ice-pwd:4dCkW0m4qS1qH1m3a5T0cFJv\r\n"
            f"a=fingerprint:sha-256 {fingerprint}\r\na=setup:actpass\r\na=mid:0\r\n"
            "a=sctp-port:5000\r\na=max-message-size:262144\r\n")


GUEST_CERT = ":".join(["AB"] * 32)
HOST_CERT = ":".join(["cd"] * 32)
MIDDLE_CERT = ":".join(["EF"] * 32)
BINDING = "offer sha-256 " + GUEST_CERT + "; answer sha-256 " + HOST_CERT.upper()


@pytest.fixture(scope="module")
def key() -> PrivateKey:
    return PrivateKey.generate()


@pytest.fixture(scope="module")
def other_key() -> PrivateKey:
    return PrivateKey.generate()


# -- the group and the signature ---------------------------------------------------------------


def test_the_group_is_rfc_3526_group_14_and_four_generates_the_prime_order_subgroup() -> None:
    assert hostkey.P.bit_length() == 2048 and hostkey.P == 2 * hostkey.Q + 1
    assert hostkey.P % 2**64 == 2**64 - 1 and hostkey.P >> 1984 == 2**64 - 1  # RFC 3526's form
    assert pow(hostkey.G, hostkey.Q, hostkey.P) == 1 and hostkey.G != 1
    # Fermat witnesses for P and Q (the RFC says both are prime; this catches a typo in P)
    for base in (2, 3, 5, 7):
        assert pow(base, hostkey.P - 1, hostkey.P) == 1
        assert pow(base, hostkey.Q - 1, hostkey.Q) == 1


def test_a_signature_verifies_with_its_key_only(key: PrivateKey, other_key: PrivateKey) -> None:
    signature = key.sign(b"the message")
    assert key.public().verify(b"the message", signature)
    assert not other_key.public().verify(b"the message", signature)
    assert not key.public().verify(b"the messagE", signature)
    assert not key.public().verify(b"", signature)


def test_signatures_are_fresh_each_time(key: PrivateKey) -> None:
    first, second = key.sign(b"m"), key.sign(b"m")
    assert first != second  # a new nonce every time (a repeated one gives the key away)
    assert key.public().verify(b"m", first) and key.public().verify(b"m", second)


def test_a_tampered_signature_does_not_verify(key: PrivateKey) -> None:
    signature = key.sign(b"m")
    raw = bytearray(hostkey._unb64(signature, hostkey.SIGNATURE_BYTES, "sig"))
    for index in (0, 31, 32, len(raw) - 1):
        changed = bytearray(raw)
        changed[index] ^= 1
        assert not key.public().verify(b"m", hostkey._b64(bytes(changed)))
    # s out of range (s + Q is the same exponent): refused, not accepted as equivalent
    e, s = raw[:32], int.from_bytes(raw[32:], "big")
    if s + hostkey.Q < 2**2048:
        high = bytes(e) + (s + hostkey.Q).to_bytes(256, "big")
        assert not key.public().verify(b"m", hostkey._b64(high))


@pytest.mark.parametrize("text", [
    None, 5, b"bytes", "", "A" * 383, "A" * 385, "A" * 10_000_000, "!" * 384, "A" * 383 + "=",
    "A" * 382 + "==",
])
def test_a_malformed_signature_is_refused_cleanly(key: PrivateKey, text: Any) -> None:
    with pytest.raises(HostKeyError):
        key.public().verify(b"m", text)


def test_keys_round_trip_through_text(key: PrivateKey) -> None:
    assert PrivateKey.from_text(key.to_text()) == key
    assert PublicKey.from_text(key.public().to_text()) == key.public()
    assert len(key.public().to_text()) == 342


@pytest.mark.parametrize("y", [0, 1, hostkey.P - 1, hostkey.P, hostkey.P - 4, 2**2048 - 1])
def test_a_public_key_outside_the_subgroup_is_refused(y: int) -> None:
    # P - 1 has order 2; P - 4 = -(2^2) is not a square (P = 3 mod 4); the rest out of range
    with pytest.raises(HostKeyError):
        PublicKey.from_text(hostkey._b64(y.to_bytes(256, "big")))


@pytest.mark.parametrize("x", [0, hostkey.Q, hostkey.Q + 1])
def test_a_private_key_out_of_range_is_refused(x: int) -> None:
    with pytest.raises(HostKeyError):
        PrivateKey.from_text(hostkey._b64(x.to_bytes(256, "big")))


@pytest.mark.parametrize("text", [None, "", "x" * 342, "A" * 341, "A" * 343, ["A" * 342]])
def test_malformed_key_text_is_refused_cleanly(text: Any) -> None:
    with pytest.raises(HostKeyError):
        PublicKey.from_text(text)
    with pytest.raises(HostKeyError):
        PrivateKey.from_text(text)


def test_the_fingerprint_is_22_base64url_characters_of_the_keys_hash(key: PrivateKey,
                                                                       other_key: PrivateKey
                                                                       ) -> None:
    fingerprint = key.public().fingerprint()
    assert hostkey.is_fingerprint(fingerprint) and len(fingerprint) == 22
    assert fingerprint != other_key.public().fingerprint()
    assert not hostkey.is_fingerprint(fingerprint + "A")
    assert not hostkey.is_fingerprint(fingerprint[:-1] + "+")
    assert not hostkey.is_fingerprint(None)


# -- the exchange ------------------------------------------------------------------------------


def test_a_proof_checks_against_the_links_fingerprint(key: PrivateKey) -> None:
    challenge = hostkey.new_challenge()
    text = hostkey.read_challenge(hostkey.challenge_message(challenge))
    assert text == challenge
    proof = hostkey.proof_message(key, ROOM, challenge, GUEST, BINDING)
    assert hostkey.is_auth_message(proof) and len(proof) < hostkey.MAX_AUTH_TEXT
    hostkey.check_proof(proof, key.public().fingerprint(), ROOM, challenge, GUEST,
                        BINDING)


def test_a_proof_from_another_key_fails_on_the_fingerprint(key: PrivateKey,
                                                           other_key: PrivateKey) -> None:
    # the attacker's own key signs perfectly well, but the link names the host's
    challenge = hostkey.new_challenge()
    proof = hostkey.proof_message(other_key, ROOM, challenge, GUEST, BINDING)
    with pytest.raises(HostKeyError, match="not the one the room link names"):
        hostkey.check_proof(proof, key.public().fingerprint(), ROOM, challenge, GUEST,
                        BINDING)


@pytest.mark.parametrize("field", ["room", "challenge", "guest", "binding"])
def test_a_proof_made_for_another_room_challenge_guest_or_channel_fails(key: PrivateKey,
                                                                        field: str) -> None:
    # "guest": an attacker that relays the guest's challenge to the real host over its own
    # link gets a proof bound to the attacker's peer id, useless to the guest; "binding": one
    # that stands in the middle of the channel (a helper rewriting the SDP) has its own
    # certificate at each end, so the host signs other fingerprints than the guest sees
    mine = {"room": ROOM, "challenge": hostkey.new_challenge(), "guest": GUEST,
            "binding": hostkey.channel_binding(sdp(GUEST_CERT), sdp(HOST_CERT))}
    theirs = dict(mine)
    theirs[field] = {"room": "Z" * 22, "challenge": hostkey.new_challenge(),
                     "guest": "ba9876543210",
                     "binding": hostkey.channel_binding(sdp(MIDDLE_CERT), sdp(HOST_CERT)),
                     }[field]
    proof = hostkey.proof_message(key, theirs["room"], theirs["challenge"], theirs["guest"],
                                  theirs["binding"])
    with pytest.raises(HostKeyError, match="does not verify"):
        hostkey.check_proof(proof, key.public().fingerprint(), mine["room"],
                            mine["challenge"], mine["guest"], mine["binding"])


def test_the_signed_bytes_keep_fields_apart() -> None:
    assert hostkey.proof_payload("ab", "c", "d", "e") != hostkey.proof_payload("a", "bc", "d",
                                                                               "e")


def test_the_channel_binding_reads_the_descriptions_fingerprints() -> None:
    assert hostkey.channel_binding(sdp(GUEST_CERT), sdp(HOST_CERT)) == BINDING
    # both ends compute the same text: case and order do not matter
    assert hostkey.channel_binding(sdp(GUEST_CERT.lower()), sdp(HOST_CERT)) == BINDING
    two = sdp(HOST_CERT) + "a=fingerprint:SHA-1 " + ":".join(["01"] * 20) + "\r\n"
    assert hostkey.sdp_fingerprints(two) == ("sha-1 " + ":".join(["01"] * 20) + ",sha-256 "
                                             + HOST_CERT.upper())
    assert hostkey.channel_binding(sdp(GUEST_CERT), sdp(MIDDLE_CERT)) != BINDING


@pytest.mark.parametrize("description", ["", "v=0\r\n", "a=fingerprint:sha-256\r\n",
                                         "a=fingerprint:sha-256 zz:zz\r\n", "x" * 500_000])
def test_a_description_without_a_fingerprint_cannot_bind_a_proof(description: str) -> None:
    with pytest.raises(HostKeyError):
        hostkey.channel_binding(description, sdp(HOST_CERT))
    with pytest.raises(HostKeyError):
        hostkey.channel_binding(sdp(GUEST_CERT), description)


@pytest.mark.parametrize("text", [
    None, 7, "", "{", "[]", '{"auth":"proof"}', '{"auth":"challenge","challenge":"x"}',
    '{"auth":"proof","key":"x","sig":"y"}', '{"auth":"proof","key":"x","sig":"y","z":1}',
    '{"auth":' + "[" * 900 + "]" * 900 + "}", '{"auth":"proof","key":"' + "A" * 5000 + '"}',
    "x" * 10_000_000, '{"auth":"proof","key":342,"sig":null}',
])
def test_malformed_proofs_are_refused_cleanly(key: PrivateKey, text: Any) -> None:
    with pytest.raises(HostKeyError):
        hostkey.check_proof(text, key.public().fingerprint(), ROOM, hostkey.new_challenge(),
                            GUEST, BINDING)


@pytest.mark.parametrize("text", [
    None, "", '{"auth":"challenge"}', '{"auth":"challenge","challenge":"short"}',
    '{"auth":"challenge","challenge":"' + "A" * 43 + '","more":1}', '{"auth":"proof"}',
    '{"auth":"challenge","challenge":"' + "A" * 10_000 + '"}',
])
def test_malformed_challenges_are_refused_cleanly(text: Any) -> None:
    with pytest.raises(HostKeyError):
        hostkey.read_challenge(text)


def test_game_messages_are_not_auth_messages() -> None:
    from net import protocol

    assert not hostkey.is_auth_message(protocol.encode("hello", 1, name="x", secret="0" * 64))
    assert not hostkey.is_auth_message(None)


# -- the room link -----------------------------------------------------------------------------


def test_the_link_carries_room_and_fingerprint(key: PrivateKey) -> None:
    fingerprint = key.public().fingerprint()
    fragment = hostkey.link_fragment(ROOM, fingerprint)
    assert fragment == f"room={ROOM}&host={fingerprint}"
    assert hostkey.parse_fragment("#" + fragment) == (ROOM, fingerprint)
    assert hostkey.parse_fragment(fragment) == (ROOM, fingerprint)


@pytest.mark.parametrize("fragment", [f"#room={ROOM}", f"#room={ROOM}&host=", f"#room={ROOM}&",
                                      f"#room={ROOM}&host=short", f"#room={ROOM}&key=" + "A" * 22,
                                      f"#room={ROOM}&host=" + "A" * 23])
def test_a_link_without_a_valid_fingerprint_names_none(fragment: str) -> None:
    assert hostkey.parse_fragment(fragment) == (ROOM, None)


# -- the guest's transport (rtc.py, with stand-ins for the browser) ----------------------------


class FakeLink:
    """Stands in for rtc.Link: records what is sent; the test opens, feeds and closes it."""

    def __init__(self, signal: Any, peer: str, calls: bool, opened: Callable[[str], None],
                 message: Callable[[str, str], None], closed: Callable[[str], None]) -> None:
        self.peer, self.me, self.calls = peer, signal.peer, calls
        self.opened_cb, self.message_cb, self.closed_cb = opened, message, closed
        self.sent: list[str] = []
        self.done = False
        self.is_open = False
        self.certs = (GUEST_CERT, HOST_CERT)  # (offer's, answer's): the test may change them

    def binding(self) -> str:
        return hostkey.channel_binding(sdp(self.certs[0]), sdp(self.certs[1]))

    def open(self) -> None:
        self.is_open = True
        self.opened_cb(self.peer)

    def send(self, text: str) -> None:
        if self.is_open:
            self.sent.append(text)

    def close(self) -> None:
        if not self.done:
            self.done = True
            self.is_open = False
            self.closed_cb(self.peer)


class Page:
    """What the owner of a Transport hears (Online in the page)."""

    def __init__(self) -> None:
        self.opened: list[str] = []
        self.messages: list[tuple[str, str]] = []
        self.closed: list[str] = []
        self.states: list[str] = []


@pytest.fixture
def rtc(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """app.browser.rtc imported against stand-in pyscript modules, removed again after."""
    warnings: list[str] = []
    timers: list[Callable[..., Any]] = []
    window = types.SimpleNamespace(
        location=types.SimpleNamespace(search=""),
        console=types.SimpleNamespace(warn=warnings.append),
        setTimeout=lambda fn, ms: timers.append(fn),
    )
    pyscript_stand_ins.install(monkeypatch, window, None)  # (dom.Timeout: once-callables)
    stand_in = ("app.browser.rtc", "app.browser.dom")  # imported against the stand-ins
    for name in stand_in:
        sys.modules.pop(name, None)
    module = importlib.import_module("app.browser.rtc")
    monkeypatch.setattr(module, "Link", FakeLink)
    module.warnings, module.timers = warnings, timers  # type: ignore[attr-defined]
    yield module
    for name in stand_in:
        sys.modules.pop(name, None)


def guest(rtc: Any, fingerprint: str) -> tuple[Any, Page]:
    page = Page()
    transport = rtc.Transport("", ROOM, "guest", page.opened.append,
                              lambda p, t: page.messages.append((p, t)), page.closed.append,
                              page.states.append, fingerprint=fingerprint)
    transport.signal.peer = GUEST  # as after the helper's welcome
    return transport, page


def welcome(peers: dict[str, str]) -> dict[str, Any]:
    return {"type": "welcome", "v": 1, "peer": GUEST, "iceServers": [], "limits": {},
            "peers": [{"peer": p, "hello": {"role": role}} for p, role in peers.items()]}


def answer(key: PrivateKey, link: FakeLink, guest_id: str = GUEST,
           binding: str = BINDING) -> None:
    """The host's page answering the guest's challenge on this link."""
    challenge = hostkey.read_challenge(link.sent[-1])
    link.message_cb(link.peer, hostkey.proof_message(key, ROOM, challenge, guest_id, binding))


HOST, FAKE, FAKE2 = "aaaaaaaaaaaa", "bbbbbbbbbbbb", "cccccccccccc"


def test_the_fake_host_of_the_hostile_test_gets_no_secret(rtc: Any, key: PrivateKey,
                                                         other_key: PrivateKey) -> None:
    # /tmp/ht/s2.py: the real host is in the room, then a peer joins saying it is the host
    transport, page = guest(rtc, key.public().fingerprint())
    transport.on_signal(welcome({HOST: "host"}))
    real = transport.links[HOST]
    transport.on_signal({"type": "peer-joined", "peer": FAKE, "hello": {"role": "host"}})
    fake = transport.links[FAKE]  # it is called, but nothing more yet
    assert not real.done and transport.host is None
    fake.open()
    assert page.opened == [] and len(fake.sent) == 1
    assert json.loads(fake.sent[0])["auth"] == "challenge"  # the only thing sent it
    transport.send_host("the room hello, with the secret")
    assert fake.sent[1:] == []
    answer(other_key, fake)  # its own key: signs fine, but the link names another
    assert page.opened == [] and fake.done and FAKE in transport.refused
    assert len(rtc.warnings) == 1 and "proof failed" in rtc.warnings[0]
    # the real host proves its key: only now does the page say hello (room.connect())
    real.open()
    answer(key, real)
    assert page.opened == [HOST] and transport.host == HOST
    transport.send_host("hello")
    assert real.sent[-1] == "hello"


def test_a_relayed_proof_made_for_another_link_fails(rtc: Any, key: PrivateKey) -> None:
    # the attacker forwards the guest's challenge to the real host over its own link: the host
    # signs it for the attacker's peer id
    transport, page = guest(rtc, key.public().fingerprint())
    transport.on_signal(welcome({FAKE: "host"}))
    fake = transport.links[FAKE]
    fake.open()
    answer(key, fake, guest_id=FAKE2)
    assert page.opened == [] and transport.host is None and fake.done


def test_a_proof_through_someone_in_the_middle_fails(rtc: Any, key: PrivateKey) -> None:
    # a helper that rewrites the SDP holds one end of the guest's channel and one of the
    # host's: the host signs the fingerprints it sees, which are not the guest's
    transport, page = guest(rtc, key.public().fingerprint())
    transport.on_signal(welcome({HOST: "host"}))
    link = transport.links[HOST]
    link.certs = (GUEST_CERT, MIDDLE_CERT)
    link.open()
    answer(key, link, binding=hostkey.channel_binding(sdp(MIDDLE_CERT), sdp(HOST_CERT)))
    assert page.opened == [] and transport.host is None and link.done


def test_a_proven_host_is_kept_whoever_else_claims_to_be_host(rtc: Any, key: PrivateKey) -> None:
    transport, page = guest(rtc, key.public().fingerprint())
    transport.on_signal(welcome({HOST: "host"}))
    real = transport.links[HOST]
    real.open()
    answer(key, real)
    for peer in (FAKE, FAKE2):
        transport.on_signal({"type": "peer-joined", "peer": peer, "hello": {"role": "host"}})
    assert set(transport.links) == {HOST} and not real.done and transport.host == HOST
    # messages from the host reach the page; a stray auth message does not
    real.message_cb(HOST, '{"v":1,"seq":1,"type":"lobby"}')
    real.message_cb(HOST, hostkey.proof_message(key, ROOM, hostkey.new_challenge(), GUEST,
                                                BINDING))
    assert page.messages == [(HOST, '{"v":1,"seq":1,"type":"lobby"}')]


def test_messages_from_an_unproven_peer_are_dropped(rtc: Any, key: PrivateKey) -> None:
    transport, page = guest(rtc, key.public().fingerprint())
    transport.on_signal(welcome({FAKE: "host"}))
    fake = transport.links[FAKE]
    fake.message_cb(FAKE, '{"v":1,"seq":1,"type":"lobby"}')  # before it even opened
    fake.open()
    fake.message_cb(FAKE, '{"v":1,"seq":1,"type":"lobby"}')
    assert page.messages == [] and page.opened == []
    assert not fake.done  # still waiting for its proof


def test_when_the_host_leaves_the_guest_calls_the_hosts_new_page(rtc: Any,
                                                                 key: PrivateKey) -> None:
    # the host reloads: a new peer id for the same key; the guest's page hears closed, then
    # opened once the new page proved the key again
    transport, page = guest(rtc, key.public().fingerprint())
    transport.on_signal(welcome({HOST: "host"}))
    transport.links[HOST].open()
    answer(key, transport.links[HOST])
    transport.on_signal({"type": "peer-joined", "peer": FAKE2, "hello": {"role": "host"}})
    assert FAKE2 not in transport.links  # a proven host is connected: nobody else is called
    transport.on_signal({"type": "peer-left", "peer": HOST})
    assert page.closed == [HOST] and transport.host is None
    new = transport.links[FAKE2]  # called at once
    new.open()
    answer(key, new)
    assert page.opened == [HOST, FAKE2] and transport.host == FAKE2


def test_every_claimant_is_called_and_the_first_proof_wins(rtc: Any, key: PrivateKey) -> None:
    # a fake that never answers cannot keep the guest from the real host
    transport, page = guest(rtc, key.public().fingerprint())
    transport.on_signal(welcome({HOST: "host", FAKE: "host", FAKE2: "guest"}))
    assert set(transport.links) == {HOST, FAKE}
    transport.links[FAKE].open()
    real = transport.links[HOST]
    real.open()
    answer(key, real)
    assert page.opened == [HOST] and set(transport.links) == {HOST}


def test_an_unproven_call_is_made_again_later(rtc: Any, key: PrivateKey) -> None:
    transport, page = guest(rtc, key.public().fingerprint())
    transport.on_signal(welcome({HOST: "host"}))
    first = transport.links[HOST]
    first.open()  # its proof is lost on the way
    rtc.timers[-1]()  # CALL_AGAIN_S later
    second = transport.links[HOST]
    assert second is not first and first.done
    second.open()
    answer(key, second)
    assert page.opened == [HOST]


def test_the_host_answers_challenges_and_passes_game_messages_on(rtc: Any,
                                                                key: PrivateKey) -> None:
    page = Page()
    host = rtc.Transport("", ROOM, "host", page.opened.append,
                         lambda p, t: page.messages.append((p, t)), page.closed.append,
                         page.states.append, key=key)
    host.signal.peer = HOST
    link = host._link(GUEST, calls=False)
    link.open()
    assert page.opened == [GUEST]
    challenge = hostkey.new_challenge()
    link.message_cb(GUEST, hostkey.challenge_message(challenge))
    hostkey.check_proof(link.sent[-1], key.public().fingerprint(), ROOM, challenge, GUEST,
                        BINDING)
    link.message_cb(GUEST, '{"v":1,"seq":1,"type":"hello"}')
    assert page.messages == [(GUEST, '{"v":1,"seq":1,"type":"hello"}')]  # the room's, not auth
    for _ in range(10):  # a few answers per link at most: each costs an exponentiation
        link.message_cb(GUEST, hostkey.challenge_message(hostkey.new_challenge()))
    assert len(link.sent) == rtc.MAX_PROOFS_PER_LINK
    link.message_cb(GUEST, '{"auth":"challenge"}')
    assert page.messages[1:] == []


def test_transports_refuse_to_start_without_key_or_fingerprint(rtc: Any) -> None:
    with pytest.raises(ValueError):
        rtc.Transport("", ROOM, "guest", print, print, print, print)
    with pytest.raises(ValueError):
        rtc.Transport("", ROOM, "host", print, print, print, print)



# -- under Pyodide (the browser's Python), against CPython ----------------------------------------

PYODIDE_SCRIPT = """
import {{ loadPyodide }} from {pyodide_mjs};
import fs from "fs";
const py = await loadPyodide({{ indexURL: {index_url} }});
py.FS.mkdirTree("/home/pyodide/net");
for (const name of ["__init__.py", "hostkey.py"]) {{
  py.FS.writeFile("/home/pyodide/net/" + name, fs.readFileSync({net_dir} + "/" + name, "utf8"));
}}
console.log(py.runPython({program}));
"""

PYODIDE_PROGRAM = """
import json, sys
sys.path.insert(0, "/home/pyodide")
from net import hostkey
given = json.loads({given!r})
key = hostkey.PrivateKey.generate()
challenge = hostkey.new_challenge()
checked = []
for proof, fingerprint in ((given["proof"], given["fingerprint"]),
                           (given["proof"], key.public().fingerprint())):
    try:
        hostkey.check_proof(proof, fingerprint, given["room"], given["challenge"], "0123456789ab",
                            given["binding"])
        checked.append(True)
    except hostkey.HostKeyError:
        checked.append(False)
json.dumps({{"python": sys.version.split()[0], "fingerprint": key.public().fingerprint(),
            "challenge": challenge, "checked": checked,
            "proof": hostkey.proof_message(key, given["room"], challenge, "0123456789ab",
                                           given["binding"])}})
"""


@pytest.mark.skipif(shutil.which("node") is None or not (PYODIDE / "pyodide.mjs").is_file(),
                    reason="needs Node and the vendored Pyodide")
def test_proofs_made_in_pyodide_verify_in_cpython_and_back(tmp_path: Path,
                                                           key: PrivateKey) -> None:
    challenge = hostkey.new_challenge()
    given = {"room": ROOM, "challenge": challenge, "binding": BINDING,
             "fingerprint": key.public().fingerprint(),
             "proof": hostkey.proof_message(key, ROOM, challenge, GUEST, BINDING)}
    script = tmp_path / "run.mjs"
    script.write_text(PYODIDE_SCRIPT.format(
        pyodide_mjs=json.dumps(str(PYODIDE / "pyodide.mjs")),
        index_url=json.dumps(str(PYODIDE) + "/"),
        net_dir=json.dumps(str(ROOT / "py" / "net")),
        program=json.dumps(PYODIDE_PROGRAM.format(given=json.dumps(given))),
    ))
    result = subprocess.run(["node", str(script)], capture_output=True, text=True, timeout=180)
    assert result.returncode == 0, result.stderr[-2000:]
    out = json.loads(result.stdout.strip().splitlines()[-1])
    # CPython's proof verifies in Pyodide, against its fingerprint and no other
    assert out["checked"] == [True, False]
    # Pyodide's proof (its own key and nonce) verifies in CPython
    hostkey.check_proof(out["proof"], out["fingerprint"], ROOM, out["challenge"], GUEST, BINDING)
    with pytest.raises(HostKeyError):
        hostkey.check_proof(out["proof"], key.public().fingerprint(), ROOM, out["challenge"],
                            GUEST, BINDING)


def test_a_damaged_room_fragment_is_told_apart_from_an_older_versions_link() -> None:
    from net.signalling import is_room_id

    room, fingerprint = "q2Vf0pX9cE7wR1sT4uY8zA", "A" * 22
    whole = f"#room={room}&host={fingerprint}"
    assert hostkey.parse_fragment(whole) == (room, fingerprint)
    assert not hostkey.damaged_fragment(whole, is_room_id)
    assert not hostkey.damaged_fragment(f"#room={room}", is_room_id)  # OLD_LINK's, not damaged
    for cut in (f"#room={room[:10]}", f"#room={room}&host={fingerprint[:9]}",
                f"#room={room}&ho", "#room=bad!"):
        assert hostkey.damaged_fragment(cut, is_room_id), cut
