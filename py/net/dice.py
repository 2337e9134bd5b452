"""Verifiable dice: every connected player contributes to every die, and anyone can check it.

The scheme (docs/online.md, "Verifiable dice", is the specification; this is a summary):

- Each participant draws a secret 32-byte seed and builds a hash chain h_0 = seed,
  h_i = SHA-256(h_{i-1}) for i = 1..N (N = `CHAIN_LENGTH`, 4096 by default). Its commitment is
  the head h_N together with the first roll number the chain serves (`start`) and N.
- The chain is tied to roll numbers: for roll k the participant reveals link j = k - start + 1,
  i.e. h_{N-j}, walking the chain backwards. Anyone checks a reveal by hashing it: j - j' times
  it must give the participant's last accepted value (its reveal at link j', or the head, j' = 0).
  Tying links to roll numbers, rather than to "the next unrevealed one", leaves a participant no
  choice of which link to show after it missed rolls, and burns a link the host learned but
  did not count.
- The die of roll k is drawn from SHA-256 of a domain-separation tag, the room id, k, the range
  n, and the contributions (participant id and reveal) in the participants' canonical order;
  the set of contributors is part of what is hashed, so leaving anyone out gives another, but
  still agreed, value, and the record shows who did not contribute. The digest seeds a stream of
  SHA-256 blocks from which a uniform index in range(n) is taken by rejection sampling: a die is
  n = 6 (index + 1), the starting seat n = number of seats, a Royal face n = 6 named faces.
- The host collects the reveals of a roll and, once it has them all or a timeout passed, settles
  the roll with the ones it holds (`RevealCollector`); every peer checks every link again.
- A chain runs out after N rolls; a participant commits a successor chain (`SecretChain.successor`)
  before that. A commitment may only cover rolls whose reveals nobody has asked for yet.

Pure standard library (hashlib, secrets), so it runs unchanged under Pyodide.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, NamedTuple, Protocol, TypeVar

SCHEME = "courtyard-ludo/dice/v1"
TAG = SCHEME.encode("ascii")  # the domain-separation tag hashed into every die
HASH_SIZE = 32
CHAIN_LENGTH = 4096
# A chain is hashed link by link when it is made or checked: a peer (or a damaged save) naming
# a longer one must not be able to keep a browser hashing for minutes.
MAX_CHAIN_LENGTH = 1 << 16
RENEW_MARGIN = 64  # commit a successor chain when fewer links than this remain
# Chains one participant may commit in a match (64 * 4096 rolls: any real game). A record read
# from elsewhere (a host's sync, a stored room, a file) with more is refused: each commitment
# costs its reader time in proportion to the chains before it, and a 3 MB sync of 20,000 of
# them took 14 s of CPU to replay (peer review 5). The host holds its guests to it too.
MAX_CHAINS = 64
MAX_RANGE = 2**32  # draw() takes 1 <= n <= MAX_RANGE
# Participants of one match, and the length of an id: a room's are the host and at most four
# online seats, and the protocol carries at most 9 ids of 16 characters (`begin`). A record
# read from elsewhere (a host's sync, a file for `ludo verify`) may name no more: every settled
# roll keeps the participants missing from it, so a 4 MB record naming 200,000 participants
# over 20,000 rolls cost its reader minutes and tens of gigabytes (8,000 over 4,000 rolls, a
# 0.6 MB sync: 3 s and 270 MB) before anything else was checked.
MAX_PARTICIPANTS = 9
MAX_PARTICIPANT_ID = 16

T = TypeVar("T")


class DiceError(ValueError):
    """Input that does not verify: a forged or misplaced reveal, a bad commitment or record."""


class ChainExhausted(DiceError):
    """A chain has no link for the roll asked: a successor chain should have been committed."""


class RollPending(LookupError):
    """The roll has not been settled yet, so its value is not known to anybody."""

    def __init__(self, roll: int) -> None:
        super().__init__(f"roll {roll} is not settled yet")
        self.roll = roll


def sha256(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def hash_times(value: bytes, times: int) -> bytes:
    for _ in range(times):
        value = hashlib.sha256(value).digest()
    return value


# --------------------------------------------------------------------------------------------
# Derivation: (room, roll, n, contributions) -> index in range(n)


def _field(data: bytes) -> bytes:
    return len(data).to_bytes(4, "big") + data


def roll_digest(room: str, roll: int, n: int, contributions: Sequence[tuple[str, bytes]]) -> bytes:
    """SHA-256 of the roll's canonical encoding (the contributions in the order given)."""
    parts = [
        _field(TAG),
        _field(room.encode("utf-8")),
        roll.to_bytes(8, "big"),
        n.to_bytes(8, "big"),
        len(contributions).to_bytes(4, "big"),
    ]
    for participant, reveal in contributions:
        parts.append(_field(participant.encode("utf-8")))
        parts.append(_field(reveal))
    return sha256(b"".join(parts))


def uniform_index(digest: bytes, n: int) -> int:
    """A uniform index in range(n) from a 32-byte digest, by rejection sampling.

    The digest seeds a byte stream SHA-256(digest || block number, 4 bytes big-endian) for block
    numbers 0, 1, 2, ...; it is read as w-byte big-endian numbers x, w the fewest bytes that hold
    n - 1 (at least one), and the first x below the largest multiple of n that fits in w bytes
    gives x mod n. For a die (n = 6, w = 1) a byte is refused when it is 252 or more.
    """
    if not 1 <= n <= MAX_RANGE:
        raise DiceError(f"a range of 1 to {MAX_RANGE} values, not {n}")
    width = max(1, ((n - 1).bit_length() + 7) // 8)
    space = 256**width
    limit = space - space % n
    block_number = 0
    stream = b""
    while True:
        while len(stream) < width:
            stream += sha256(digest + block_number.to_bytes(4, "big"))
            block_number += 1
        x = int.from_bytes(stream[:width], "big")
        stream = stream[width:]
        if x < limit:
            return x % n


def draw(room: str, roll: int, n: int, contributions: Sequence[tuple[str, bytes]]) -> int:
    """The index in range(n) of roll number `roll` given its contributions in canonical order."""
    return uniform_index(roll_digest(room, roll, n, contributions), n)


# --------------------------------------------------------------------------------------------
# Chains and commitments


def _hex(data: bytes) -> str:
    return data.hex()


def _unhex(text: Any, what: str) -> bytes:
    if not isinstance(text, str) or len(text) != 2 * HASH_SIZE:
        raise DiceError(f"{what}: {2 * HASH_SIZE} hex digits expected")
    try:
        return bytes.fromhex(text)
    except ValueError:
        raise DiceError(f"{what}: not hex") from None


def _quoted(value: Any) -> str:
    # JSON's spelling, cut short, as the engine's messages quote input (ludo.errors.quote,
    # which this module, standard library only, does not import): a peer's text may be long
    text = json.dumps(value, default=lambda v: type(v).__name__, ensure_ascii=False)
    return text if len(text) <= 40 else text[:39] + "…"


def _int(value: Any, what: str, minimum: int = 0, maximum: int = 2**53) -> int:
    # 2**53: the largest integer every JavaScript peer reads exactly.
    if type(value) is not int or not minimum <= value <= maximum:
        raise DiceError(f"{what}: an integer from {minimum} to {maximum} expected, "
                        f"not {str(value)[:40]}")
    return value


class Commitment(NamedTuple):
    """A participant's public promise: the head of a chain serving rolls start..start+length-1."""

    participant: str
    head: bytes
    start: int
    length: int

    def covers(self, roll: int) -> bool:
        return self.start <= roll < self.start + self.length

    def to_json(self) -> dict[str, Any]:
        return {"participant": self.participant, "head": _hex(self.head), "start": self.start,
                "length": self.length}

    @classmethod
    def from_json(cls, data: Any) -> Commitment:
        if not isinstance(data, dict) or set(data) != {"participant", "head", "start", "length"}:
            raise DiceError("commitment: an object with participant, head, start, length")
        participant = data["participant"]
        if not isinstance(participant, str) or not participant:
            raise DiceError("commitment: participant must be a non-empty string")
        return cls(participant, _unhex(data["head"], "commitment head"),
                   _int(data["start"], "commitment start"),
                   _int(data["length"], "commitment length", 1, MAX_CHAIN_LENGTH))


class SecretChain:
    """A participant's own chain. The seed is the secret: keep it (e.g. in local storage) to
    go on revealing after a reload, and never send it."""

    def __init__(self, seed: bytes, start: int = 0, length: int = CHAIN_LENGTH) -> None:
        if len(seed) != HASH_SIZE:
            raise DiceError(f"a chain seed is {HASH_SIZE} bytes")
        if (type(start) is not int or start < 0 or type(length) is not int
                or not 1 <= length <= MAX_CHAIN_LENGTH):
            raise DiceError(f"a chain needs start >= 0 and 1 <= length <= {MAX_CHAIN_LENGTH}")
        self.seed = seed
        self.start = start
        self.length = length
        links = [seed]
        for _ in range(length):
            links.append(sha256(links[-1]))
        self._links = links  # links[i] = h_i; the head is links[length]

    @classmethod
    def new(cls, start: int = 0, length: int = CHAIN_LENGTH) -> SecretChain:
        """A chain from a fresh random seed (the operating system's, crypto.getRandomValues in
        the browser)."""
        return cls(secrets.token_bytes(HASH_SIZE), start, length)

    @property
    def head(self) -> bytes:
        return self._links[self.length]

    def commitment(self, participant: str) -> Commitment:
        return Commitment(participant, self.head, self.start, self.length)

    def reveal(self, roll: int) -> bytes:
        """This chain's link for roll number `roll`."""
        if roll < self.start:
            raise DiceError(f"roll {roll} is before this chain's first roll {self.start}")
        link = roll - self.start + 1
        if link > self.length:
            raise ChainExhausted(f"the chain serves rolls {self.start}..{self.end - 1}, not {roll}")
        return self._links[self.length - link]

    @property
    def end(self) -> int:
        """The first roll number this chain cannot serve."""
        return self.start + self.length

    def remaining(self, next_roll: int) -> int:
        """How many rolls from `next_roll` on this chain can still serve."""
        return max(0, self.end - max(next_roll, self.start))

    def successor(self, length: int = CHAIN_LENGTH) -> SecretChain:
        """A fresh chain taking over where this one ends; commit it before `self.end` opens."""
        return SecretChain.new(self.end, length)

    def to_json(self) -> dict[str, Any]:
        return {"seed": _hex(self.seed), "start": self.start, "length": self.length}

    @classmethod
    def from_json(cls, data: Any) -> SecretChain:
        if not isinstance(data, dict) or set(data) != {"seed", "start", "length"}:
            raise DiceError("chain: an object with seed, start, length")
        return cls(_unhex(data["seed"], "chain seed"), _int(data["start"], "chain start"),
                   _int(data["length"], "chain length", 1, MAX_CHAIN_LENGTH))


# --------------------------------------------------------------------------------------------
# The public ledger every peer keeps, and the record it writes


class SettledRoll(NamedTuple):
    """A roll as everybody agrees on it: who contributed what, and the index it gives."""

    roll: int
    n: int
    contributions: tuple[tuple[str, bytes], ...]  # canonical order
    value: int  # in range(n)
    missing: tuple[str, ...]  # participants who did not contribute, canonical order

    @property
    def contributors(self) -> tuple[str, ...]:
        return tuple(p for p, _ in self.contributions)

    def to_json(self) -> dict[str, Any]:
        return {"roll": self.roll, "n": self.n,
                "reveals": [[p, _hex(r)] for p, r in self.contributions], "value": self.value}


class _Anchor(NamedTuple):
    commitment: Commitment
    link: int  # how far down the chain the last accepted value is (0: the head)
    value: bytes


class DiceLedger:
    """The public state of a room's dice: commitments, accepted reveals, settled rolls.

    Every peer keeps one and feeds it the same commitments and settled rolls; it refuses
    anything that does not verify, with nothing changed. Rolls are settled in order 0, 1, 2...;
    `participants` is the canonical order (e.g. the seats), fixed for the match.
    """

    def __init__(self, room: str, participants: Sequence[str], min_contributors: int = 1):
        if not isinstance(room, str) or not room:
            raise DiceError("the room id must be a non-empty string")
        order = tuple(participants)
        # types first: set() of a list or an object from a record would raise TypeError
        if len(order) > MAX_PARTICIPANTS:
            raise DiceError(f"at most {MAX_PARTICIPANTS} participants, not {len(order)}")
        if not all(isinstance(p, str) and 0 < len(p) <= MAX_PARTICIPANT_ID for p in order):
            raise DiceError(f"participants are non-empty texts of at most {MAX_PARTICIPANT_ID} "
                            "characters")
        if not order or len(set(order)) != len(order):
            raise DiceError("participants: a non-empty list without repeats")
        if not 1 <= min_contributors <= len(order):
            raise DiceError("min_contributors must be between 1 and the number of participants")
        self.room = room
        self.participants = order
        self.min_contributors = min_contributors
        self._rank = {p: i for i, p in enumerate(order)}
        self._commitments: dict[str, list[Commitment]] = {p: [] for p in order}
        self._chains: dict[str, int] = {}  # commitments replayed, per participant (MAX_CHAINS)
        self._anchors: dict[str, _Anchor] = {}
        self.rolls: list[SettledRoll] = []
        self.events: list[dict[str, Any]] = []  # the record: commits and rolls, in order
        self.opened: int | None = None

    @property
    def next_roll(self) -> int:
        return len(self.rolls)

    @property
    def first_open_roll(self) -> int:
        """The first roll number whose reveals nobody has been asked for."""
        return self.next_roll + (1 if self.opened is not None else 0)

    # ---- commitments

    def commit(self, commitment: Commitment) -> None:
        """Accept a commitment; it supersedes the participant's chains from its start on."""
        if commitment.participant not in self._rank:
            raise DiceError(f"{_quoted(commitment.participant)} is not a participant of this room")
        if len(commitment.head) != HASH_SIZE or commitment.length < 1 or commitment.start < 0:
            raise DiceError("a commitment is a 32-byte head, a start >= 0 and a length >= 1")
        if commitment.start < self.first_open_roll:
            raise DiceError(
                f"{commitment.participant}: a chain starting at roll {commitment.start} comes "
                f"too late (reveals were already asked for up to roll {self.first_open_roll - 1})"
            )
        kept = [c for c in self._commitments[commitment.participant] if c.start < commitment.start]
        self._commitments[commitment.participant] = [*kept, commitment]
        self.events.append({"commit": commitment.to_json()})

    def commitment_for(self, participant: str, roll: int) -> Commitment | None:
        """The commitment whose chain serves `roll` for the participant, if any."""
        active = None
        for c in self._commitments.get(participant, ()):
            if c.start <= roll:
                active = c
        if active is None or not active.covers(roll):
            return None
        return active

    def links_left(self, participant: str) -> int:
        """Rolls from the next one on that the participant's committed chains still serve."""
        roll = self.next_roll
        total = 0
        while (c := self.commitment_for(participant, roll)) is not None:
            total += c.start + c.length - roll
            roll = c.start + c.length
        return total

    # ---- reveals

    def open(self, roll: int) -> None:
        """Mark `roll` as asked for: from now on no commitment may cover it."""
        if roll != self.next_roll:
            raise DiceError(f"roll {roll} cannot be opened: the next roll is {self.next_roll}")
        self.opened = roll

    def check_reveal(self, participant: str, roll: int, reveal: bytes) -> None:
        """DiceError unless `reveal` is the participant's link for `roll`; nothing changes."""
        self._verify(participant, roll, reveal)

    def _verify(self, participant: str, roll: int, reveal: bytes) -> _Anchor:
        if participant not in self._rank:
            raise DiceError(f"{_quoted(participant)} is not a participant of this room")
        if roll != self.next_roll:
            raise DiceError(f"{participant}: a reveal for roll {roll}, but roll {self.next_roll} "
                            "is the one being settled")
        if not isinstance(reveal, bytes) or len(reveal) != HASH_SIZE:
            raise DiceError(f"{participant}: a reveal is {HASH_SIZE} bytes")
        commitment = self.commitment_for(participant, roll)
        if commitment is None:
            latest = [c for c in self._commitments[participant] if c.start <= roll]
            if latest:
                raise ChainExhausted(f"{participant}: its chain ended before roll {roll}")
            raise DiceError(f"{participant}: no commitment covers roll {roll}")
        link = roll - commitment.start + 1
        anchor = self._anchors.get(participant)
        if anchor is None or anchor.commitment != commitment:
            anchor = _Anchor(commitment, 0, commitment.head)
        if hash_times(reveal, link - anchor.link) != anchor.value:
            raise DiceError(f"{participant}: the reveal for roll {roll} does not hash to its "
                            "previous value")
        return _Anchor(commitment, link, reveal)

    def settle(
        self,
        roll: int,
        n: int,
        reveals: Mapping[str, bytes] | Sequence[tuple[str, bytes]],
    ) -> SettledRoll:
        """Verify the counted reveals of `roll` and fix its value.

        A mapping is put in canonical order; a sequence (as read from a record) must already be
        in it, without repeats. Refused input leaves the ledger as it was.
        """
        settled, anchors = self._prepare(roll, n, reveals)
        self._apply(settled, anchors)
        return settled

    def preview(
        self, roll: int, n: int, reveals: Mapping[str, bytes] | Sequence[tuple[str, bytes]]
    ) -> SettledRoll:
        """What :meth:`settle` would settle, without changing anything (DiceError likewise)."""
        return self._prepare(roll, n, reveals)[0]

    def _prepare(
        self, roll: int, n: int, reveals: Mapping[str, bytes] | Sequence[tuple[str, bytes]]
    ) -> tuple[SettledRoll, dict[str, _Anchor]]:
        if roll != self.next_roll:
            raise DiceError(f"roll {roll} cannot be settled: the next roll is {self.next_roll}")
        if type(n) is not int or not 1 <= n <= MAX_RANGE:
            raise DiceError(f"roll {roll}: a range of 1 to {MAX_RANGE} values, not {_quoted(n)}")
        if isinstance(reveals, Mapping):
            unknown = [p for p in reveals if p not in self._rank]
            if unknown:
                raise DiceError(f"roll {roll}: {_quoted(unknown[0])} is not a participant")
            contributions = sorted(reveals.items(), key=lambda item: self._rank[item[0]])
        else:
            contributions = []
            for item in reveals:
                if not isinstance(item, (tuple, list)) or len(item) != 2:
                    raise DiceError(f"roll {roll}: a reveal is a (participant, bytes) pair")
                if item[0] not in self._rank:
                    raise DiceError(f"roll {roll}: {_quoted(item[0])} is not a participant")
                contributions.append((item[0], item[1]))
            ranks = [self._rank[p] for p, _ in contributions]
            if any(a >= b for a, b in zip(ranks, ranks[1:], strict=False)):
                raise DiceError(f"roll {roll}: reveals out of the canonical order, or repeated")
        if len(contributions) < self.min_contributors:
            raise DiceError(f"roll {roll}: {len(contributions)} reveals, at least "
                            f"{self.min_contributors} needed")
        anchors = {p: self._verify(p, roll, r) for p, r in contributions}
        counted = tuple(contributions)
        value = draw(self.room, roll, n, counted)
        missing = tuple(p for p in self.participants if p not in anchors)
        return SettledRoll(roll, n, counted, value, missing), anchors

    def _apply(self, settled: SettledRoll, anchors: dict[str, _Anchor]) -> None:
        self._anchors.update(anchors)
        self.rolls.append(settled)
        self.opened = None
        self.events.append(settled.to_json())

    # ---- as a dice source

    def index(self, roll: int, n: int) -> int:
        """The settled index of `roll` (RollPending until it is settled)."""
        if roll >= len(self.rolls) or roll < 0:
            raise RollPending(roll)
        settled = self.rolls[roll]
        if settled.n != n:
            raise DiceError(f"roll {roll} was drawn from {settled.n} values, not {n}")
        return settled.value

    # ---- the record

    def to_json(self) -> dict[str, Any]:
        """The dice part of a game record: enough to verify every roll offline."""
        return {"scheme": SCHEME, "room": self.room, "participants": list(self.participants),
                "minContributors": self.min_contributors, "events": [dict(e) for e in self.events]}

    @classmethod
    def replay(cls, data: Any,
               check: Callable[[DiceLedger, Commitment], None] | None = None) -> DiceLedger:
        """Rebuild a ledger from a record, verifying every commitment, link and value.

        DiceError names the first event that does not verify. ``check`` is called with the
        ledger as it stands before each commitment (DiceError to refuse it): a reader's own
        rules for when a chain may be committed (a guest's, :func:`app.room.successor_refusal`)."""
        if not isinstance(data, dict):
            raise DiceError("dice record: a JSON object")
        expected = {"scheme", "room", "participants", "minContributors", "events"}
        if set(data) != expected:
            raise DiceError(f"dice record: the fields are {', '.join(sorted(expected))}")
        if data["scheme"] != SCHEME:
            raise DiceError(f"dice record: scheme {_quoted(data['scheme'])}, "
                            f"expected {_quoted(SCHEME)}")
        participants = data["participants"]
        if not isinstance(participants, list):
            raise DiceError("dice record: participants is a list")
        if not isinstance(data["events"], list):
            raise DiceError("dice record: events is a list")
        minimum = _int(data["minContributors"], "minContributors", 1)
        ledger = cls(data["room"], participants, minimum)
        for i, event in enumerate(data["events"]):
            try:
                ledger._replay_event(event, check)
            except DiceError as exc:
                raise DiceError(f"dice record, event {i}: {exc}") from None
        return ledger

    def _replay_event(self, event: Any,
                      check: Callable[[DiceLedger, Commitment], None] | None = None) -> None:
        if isinstance(event, dict) and set(event) == {"commit"}:
            commitment = Commitment.from_json(event["commit"])
            chains = self._chains.get(commitment.participant, 0) + 1
            if chains > MAX_CHAINS:
                raise DiceError(f"more than {MAX_CHAINS} chains of {commitment.participant[:16]}"
                                " in one match")
            if check is not None and commitment.participant in self._rank:
                check(self, commitment)
            self.commit(commitment)
            self._chains[commitment.participant] = chains
            return
        if not isinstance(event, dict) or set(event) != {"roll", "n", "reveals", "value"}:
            raise DiceError("an event is {commit} or {roll, n, reveals, value}")
        roll = _int(event["roll"], "roll")
        reveals = event["reveals"]
        if not isinstance(reveals, list) or not all(
            isinstance(r, list) and len(r) == 2 and isinstance(r[0], str) for r in reveals
        ):
            raise DiceError(f"roll {roll}: reveals is a list of [participant, hex]")
        pairs = [(p, _unhex(h, f"roll {roll} reveal of {p}")) for p, h in reveals]
        settled, anchors = self._prepare(roll, _int(event["n"], "n", 1), pairs)
        if type(event["value"]) is not int or event["value"] != settled.value:
            raise DiceError(f"roll {roll}: the record says {_quoted(event['value'])}, the reveals "
                            f"give {settled.value}")
        self._apply(settled, anchors)


def verify_record(data: Any) -> list[SettledRoll]:
    """Every roll of a dice record, verified (DiceError at the first one that is not)."""
    return list(DiceLedger.replay(data).rolls)


# --------------------------------------------------------------------------------------------
# Collecting one roll's reveals (the host's side)


class RevealCollector:
    """The host's view of one open roll: reveals arrive, are checked at once, and the roll is
    settled when every expected participant has revealed or the host's timeout says so."""

    def __init__(self, ledger: DiceLedger, n: int, expected: Iterable[str]) -> None:
        self.ledger = ledger
        self.roll = ledger.next_roll
        self.n = n
        self.expected = frozenset(expected)
        unknown = self.expected - set(ledger.participants)
        if unknown:
            raise DiceError(f"not participants: {', '.join(sorted(unknown))}")
        ledger.open(self.roll)
        self.reveals: dict[str, bytes] = {}

    def add(self, participant: str, reveal: bytes) -> None:
        """Accept one reveal (DiceError for a forged, misplaced or repeated one)."""
        if participant in self.reveals:
            raise DiceError(f"{participant} has already revealed for roll {self.roll}")
        self.ledger.check_reveal(participant, self.roll, reveal)
        self.reveals[participant] = reveal

    @property
    def complete(self) -> bool:
        return self.expected <= set(self.reveals)

    @property
    def waiting_for(self) -> frozenset[str]:
        return self.expected - set(self.reveals)

    def settle(self) -> SettledRoll:
        """Settle with the reveals held now (after a timeout: without the missing ones)."""
        return self.ledger.settle(self.roll, self.n, self.reveals)


# --------------------------------------------------------------------------------------------
# Dice sources: what a table asks for a die


class DiceSource(Protocol):
    """A value per roll number: `index(roll, n)` is a uniform index in range(n), the same for
    everybody, or RollPending while it is not known yet."""

    def index(self, roll: int, n: int) -> int: ...


class SeededDice:
    """A dice source from one seed, with the same derivation (local games, tests, replays).

    Whoever knows the seed knows every die: it is for play where nobody needs convincing."""

    def __init__(self, seed: bytes | str, room: str = "local") -> None:
        self._secret = sha256(seed.encode("utf-8") if isinstance(seed, str) else seed)
        self.room = room

    def index(self, roll: int, n: int) -> int:
        if type(roll) is not int or roll < 0:
            raise DiceError(f"a roll number is an integer >= 0, not {_quoted(roll)}")
        return draw(self.room, roll, n, [("seed", self._secret)])


def die(source: DiceSource, roll: int) -> int:
    """A six-sided die, 1..6."""
    return source.index(roll, 6) + 1


def choose(source: DiceSource, roll: int, options: Sequence[T]) -> T:
    """One of `options` (seats for the starting player, Royal's named faces, ...)."""
    return options[source.index(roll, len(options))]
