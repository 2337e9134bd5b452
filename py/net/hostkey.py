"""The host's key: how a guest tells the real host of a room from anyone else holding its link.

Everyone with the room's link knows everything in it, so nothing in the link can be a secret that
proves who the host is. The link carries instead a *fingerprint* of the host's public key; the
host's page keeps the private key with its saved room. When a guest's data channel to a peer
that claims to be the host opens, the guest sends a fresh random challenge; the host answers
with its public key and a signature over (room id, that challenge, the guest's peer id, the DTLS
fingerprints of both ends of the channel). The
guest checks that the key matches the fingerprint from its link and that the signature verifies,
and only then says hello to the room (which carries its seat secret). docs/online.md, "Host
authentication", has the whole exchange.

The signature is Schnorr's, in the prime-order subgroup of the RFC 3526 2048-bit MODP group
("group 14"), with SHA-256. Standard library only: the same code runs in CPython and in Pyodide,
where there is no native crypto module to call from Python (``secrets`` draws from the browser's
``crypto.getRandomValues`` there).

- p is a safe prime, p = 2q + 1 with q prime. The squares mod p form the subgroup of order q;
  4 = 2^2 is a square other than 1, so it generates that subgroup (G = 4).
- A private key is x in [1, q - 1]; its public key is y = G^x mod p.
- Signing m: k uniform in [1, q - 1] (fresh for every signature: a repeated or biased k gives
  the private key away), r = G^k, e = SHA-256(r || y || m) as a number, s = (k + e x) mod q.
  The signature is (e, s).
- Verifying: r' = G^s y^(-e) = G^(s - e x) = G^k = r exactly when the signature is genuine, so
  SHA-256(r' || y || m) must give e back. A public key is first checked to lie in the
  subgroup (1 < y < p - 1 and y^q = 1), which also makes y^(-e) = y^(q - e).

Every function that reads text from a peer raises :class:`HostKeyError` (a ValueError) for
anything malformed, too long, or out of range, never another exception.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import re
import secrets
from collections.abc import Callable
from typing import Any, NamedTuple

# RFC 3526, section 3: the 2048-bit MODP group, p = 2^2048 - 2^1984 - 1 + 2^64 * (
# floor(2^1918 * pi) + 124476).
P = int(
    "FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD1"
    "29024E088A67CC74020BBEA63B139B22514A08798E3404DD"
    "EF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245"
    "E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7ED"
    "EE386BFB5A899FA5AE9F24117C4B1FE649286651ECE45B3D"
    "C2007CB8A163BF0598DA48361C55D39A69163FA8FD24CF5F"
    "83655D23DCA3AD961C62F356208552BB9ED529077096966D"
    "670C354E4ABC9804F1746C08CA18217C32905E462E36CE3B"
    "E39E772C180E86039B2783A2EC07A28FB5C55DF06F4C52C9"
    "DE2BCBF6955817183995497CEA956AE515D2261898FA0510"
    "15728E5A8AACAA68FFFFFFFFFFFFFFFF", 16)
Q = (P - 1) // 2  # prime: P is a safe prime
G = 4  # generates the subgroup of order Q (the squares mod P)
ELEMENT_BYTES = 256  # P is 2048 bits: public keys and commitments as 256 big-endian bytes
HASH_BYTES = 32  # SHA-256
SIGNATURE_BYTES = HASH_BYTES + ELEMENT_BYTES  # e, then s
FINGERPRINT_BYTES = 16  # the first 16 bytes of SHA-256(public key): 22 base64url characters
FINGERPRINT_RE = re.compile(r"[A-Za-z0-9_-]{22}")
CHALLENGE_BYTES = 32
PROOF_CONTEXT = b"courtyard-ludo host proof v1"
MAX_SDP = 64 * 1024  # descriptions are read up to this length (a data channel's is ~1 KiB)
MAX_AUTH_TEXT = 2048  # an auth message is well under 1 KiB; anything longer is refused unread
# Both auth messages start with this, and no game message does (those start with {"v":).
AUTH_PREFIX = '{"auth":'


class HostKeyError(ValueError):
    """A key, fingerprint, signature or auth message that is malformed or does not verify."""


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: Any, size: int, what: str) -> bytes:
    """Exactly ``size`` bytes from unpadded base64url text (HostKeyError otherwise)."""
    if not isinstance(text, str) or len(text) != (size * 4 + 2) // 3 \
            or not re.fullmatch(r"[A-Za-z0-9_-]*", text):
        raise HostKeyError(f"{what} is not {size} bytes of base64url")
    try:
        data = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):
        raise HostKeyError(f"{what} is not base64url") from None
    if len(data) != size or _b64(data) != text:  # one spelling only
        raise HostKeyError(f"{what} is not {size} bytes of base64url")
    return data


def _element_bytes(value: int) -> bytes:
    return value.to_bytes(ELEMENT_BYTES, "big")


def _challenge_hash(r: int, y: int, message: bytes) -> int:
    digest = hashlib.sha256(_element_bytes(r) + _element_bytes(y) + message).digest()
    return int.from_bytes(digest, "big")  # < 2^256 < Q


# -- keys --------------------------------------------------------------------------------------


class PublicKey(NamedTuple):
    y: int

    def to_text(self) -> str:
        return _b64(_element_bytes(self.y))

    @classmethod
    def from_text(cls, text: Any, check_group: bool = True) -> PublicKey:
        """A public key from :meth:`to_text`. With ``check_group`` it is checked to lie in the
        signing subgroup (one exponentiation); a key already known to match a fingerprint made
        from a genuine key needs only the range check."""
        y = int.from_bytes(_unb64(text, ELEMENT_BYTES, "the public key"), "big")
        if not 1 < y < P - 1 or check_group and pow(y, Q, P) != 1:
            raise HostKeyError("the public key is not in the group")
        return cls(y)

    def fingerprint(self) -> str:
        """What the room link carries: base64url of the first 16 bytes of SHA-256(key)."""
        return _b64(hashlib.sha256(_element_bytes(self.y)).digest()[:FINGERPRINT_BYTES])

    def verify(self, message: bytes, signature: Any) -> bool:
        """True when ``signature`` (text from :meth:`PrivateKey.sign`) signs ``message``.
        False for a well-formed signature that does not verify; HostKeyError for text that is
        not a signature at all."""
        data = _unb64(signature, SIGNATURE_BYTES, "the signature")
        e = int.from_bytes(data[:HASH_BYTES], "big")
        s = int.from_bytes(data[HASH_BYTES:], "big")
        if s >= Q:
            return False
        r = pow(G, s, P) * pow(self.y, Q - e, P) % P
        expected = _challenge_hash(r, self.y, message).to_bytes(HASH_BYTES, "big")
        return hmac.compare_digest(expected, data[:HASH_BYTES])


class PrivateKey(NamedTuple):
    x: int
    y: int  # G^x, kept so that signing costs one exponentiation, not two

    @classmethod
    def generate(cls) -> PrivateKey:
        return cls.of(secrets.randbelow(Q - 1) + 1)

    @classmethod
    def of(cls, x: int) -> PrivateKey:
        return cls(x, pow(G, x, P))

    def public(self) -> PublicKey:
        return PublicKey(self.y)

    def to_text(self) -> str:
        """For the host's own storage only (never sent anywhere)."""
        return _b64(_element_bytes(self.x))

    @classmethod
    def from_text(cls, text: Any) -> PrivateKey:
        x = int.from_bytes(_unb64(text, ELEMENT_BYTES, "the private key"), "big")
        if not 0 < x < Q:
            raise HostKeyError("the private key is out of range")
        return cls.of(x)

    def sign(self, message: bytes) -> str:
        k = secrets.randbelow(Q - 1) + 1  # uniform and fresh: see the module's notes
        r = pow(G, k, P)
        e = _challenge_hash(r, self.y, message)
        s = (k + e * self.x) % Q
        return _b64(e.to_bytes(HASH_BYTES, "big") + s.to_bytes(ELEMENT_BYTES, "big"))


def is_fingerprint(text: Any) -> bool:
    return isinstance(text, str) and FINGERPRINT_RE.fullmatch(text) is not None


# -- the exchange on a new data channel ----------------------------------------------------------


_SDP_FINGERPRINT = re.compile(r"^a=fingerprint:([A-Za-z0-9-]{1,16}) ([0-9A-Fa-f:]{2,200})\s*$",
                              re.M)


def sdp_fingerprints(sdp: str) -> str:
    """The DTLS certificate fingerprints an SDP description declares (its ``a=fingerprint``
    lines), normalised and sorted: "sha-256 AB:CD:...", comma-separated."""
    found = {f"{name.lower()} {value.upper()}" for name, value in
             _SDP_FINGERPRINT.findall(sdp[:MAX_SDP])}
    return ",".join(sorted(found))


def channel_binding(offer_sdp: str, answer_sdp: str) -> str:
    """What ties a proof to one data channel: the DTLS fingerprints of both ends, as each end
    sees them. The guest made the offer and the host the answer, so both compute the same text
    when nobody stands between them; anyone relaying the channel (a helper rewriting the SDP)
    presents its own certificate to each side, and the two texts differ. HostKeyError if a
    description declares no fingerprint (WebRTC always does)."""
    offer, answer = sdp_fingerprints(offer_sdp), sdp_fingerprints(answer_sdp)
    if not offer or not answer:
        raise HostKeyError("the link's descriptions carry no DTLS fingerprint")
    return f"offer {offer}; answer {answer}"


def proof_payload(room: str, challenge: str, guest: str, binding: str) -> bytes:
    """What the host signs: the room, the guest's challenge, the guest's peer id (as the
    signalling helper names it) and the channel's binding (:func:`channel_binding`), so a proof
    cannot be replayed in another room or to another challenge, nor relayed from a link the host
    has with someone else. Each field is length-prefixed so no two tuples give the same bytes."""
    fields = (room, challenge, guest, binding)
    parts = [PROOF_CONTEXT] + [field.encode("utf-8") for field in fields]
    return b"".join(len(part).to_bytes(4, "big") + part for part in parts)


def new_challenge() -> str:
    return _b64(secrets.token_bytes(CHALLENGE_BYTES))


def challenge_message(challenge: str) -> str:
    return json.dumps({"auth": "challenge", "challenge": challenge}, separators=(",", ":"))


def is_auth_message(text: Any) -> bool:
    """Whether a data-channel text is one of this module's messages (else a game message)."""
    return isinstance(text, str) and text.startswith(AUTH_PREFIX)


def _read(text: Any, kind: str, fields: set[str]) -> dict[str, Any]:
    if not isinstance(text, str) or len(text) > MAX_AUTH_TEXT:
        raise HostKeyError("an auth message is short JSON text")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        raise HostKeyError("an auth message is JSON") from None
    if not isinstance(data, dict) or data.get("auth") != kind or set(data) != fields | {"auth"}:
        raise HostKeyError(f"not an auth {kind} message")
    return data


def read_challenge(text: Any) -> str:
    """The challenge in a guest's challenge message (HostKeyError if it is not one)."""
    challenge = _read(text, "challenge", {"challenge"})["challenge"]
    _unb64(challenge, CHALLENGE_BYTES, "the challenge")
    return str(challenge)


def proof_message(key: PrivateKey, room: str, challenge: str, guest: str,
                  binding: str) -> str:
    """The host's answer to ``challenge`` from the guest with peer id ``guest``, on the channel
    with this ``binding``."""
    signature = key.sign(proof_payload(room, challenge, guest, binding))
    return json.dumps({"auth": "proof", "key": key.public().to_text(), "sig": signature},
                      separators=(",", ":"))


def check_proof(text: Any, fingerprint: str, room: str, challenge: str, guest: str,
                binding: str) -> None:
    """Return quietly when ``text`` proves that its sender holds the key with this fingerprint,
    answering this challenge from this guest in this room, on the channel with this binding;
    HostKeyError says why not."""
    data = _read(text, "proof", {"key", "sig"})
    key = PublicKey.from_text(data["key"], check_group=False)
    # The fingerprint first: a key that matches it is the host's own (made by generate(), so in
    # the subgroup), and one that does not is refused before any exponentiation.
    if not hmac.compare_digest(key.fingerprint(), fingerprint):
        raise HostKeyError("the key is not the one the room link names")
    if not key.verify(proof_payload(room, challenge, guest, binding), data["sig"]):
        raise HostKeyError("the signature does not verify")


# -- the room link -------------------------------------------------------------------------------

OLD_LINK = ("This invitation link is from an older version of the game and cannot prove who "
            "the host is; ask the host for a new link.")


def link_fragment(room: str, fingerprint: str) -> str:
    """The room link's fragment (after '#'): the room id and the host key's fingerprint."""
    return f"room={room}&host={fingerprint}"


def parse_fragment(fragment: str) -> tuple[str, str | None]:
    """(room id, fingerprint or None) from a fragment made by :func:`link_fragment` ('#' and
    'room=' included or not); the room id is not checked here. A link with no fingerprint, or
    with a malformed one, gives None: such a link cannot authenticate its host.

    A link names its host once: with two ``host`` parts (or a second ``room``) it names none,
    whatever the values, and :func:`damaged_fragment` calls it damaged. Until 2026-12-06 the
    last ``host`` was taken silently, so ``...&host=<the host's>&host=<another>`` (a link
    edited, or two pasted together) trusted the other key; other parts are ignored (a later
    version may add some)."""
    room, hosts, _, rooms = _fragment_parts(fragment)
    if len(hosts) != 1 or rooms:
        return room, None
    return room, hosts[0] if is_fingerprint(hosts[0]) else None


def _fragment_parts(fragment: str) -> tuple[str, list[str], bool, int]:
    """(room id, every ``host`` value, whether anything follows the room id, how many more
    ``room`` parts follow it)."""
    text = fragment.removeprefix("#").removeprefix("room=")
    room, _, rest = text.partition("&")
    parts = [part.partition("=") for part in rest.split("&")] if rest else []
    hosts = [value for name, _, value in parts if name == "host"]
    return room, hosts, bool(rest), sum(1 for name, _, _ in parts if name == "room")


def damaged_fragment(fragment: str, is_room_id: Callable[[str], bool]) -> bool:
    """Whether a ``#room=`` fragment cannot be a link as :func:`link_fragment` makes them (most
    often cut off when it was copied): a room id that ``is_room_id`` refuses, a ``host`` part
    that is not a fingerprint, or something else after the room id. A link with nothing after
    its room id is an older version's (:data:`OLD_LINK`), told apart from this. Two ``host``
    parts, or two room ids, are damaged too: the link does not say which one it means."""
    room, hosts, more, rooms = _fragment_parts(fragment)
    return not is_room_id(room) or any(not is_fingerprint(value) for value in hosts) or (
        more and not hosts) or len(hosts) > 1 or rooms > 0
