"""Verifiable dice (py/net/dice.py): derivation, uniformity, and refusal of every bad reveal.

The derivation is checked against `reference_index`, written here from the specification in
docs/online.md with hashlib and struct only, without calling the module's helpers.
"""

from __future__ import annotations

import copy
import hashlib
import json
import math
import struct
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from net import dice

ROOM = "q2Vf0pX9cE7wR1sT4uY8zA"
SEATS = ("red", "green", "yellow", "blue")


# --------------------------------------------------------------------------------------------
# An independent implementation of the specification


def reference_digest(room: str, roll: int, n: int, reveals: list[tuple[str, bytes]]) -> bytes:
    def field(data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + data

    message = field(b"courtyard-ludo/dice/v1") + field(room.encode())
    message += struct.pack(">QQI", roll, n, len(reveals))
    for participant, reveal in reveals:
        message += field(participant.encode()) + field(reveal)
    return hashlib.sha256(message).digest()


def reference_index(room: str, roll: int, n: int, reveals: list[tuple[str, bytes]]) -> int:
    seed = reference_digest(room, roll, n, reveals)
    width = 1
    while 256**width < n:
        width += 1
    accept_below = (256**width // n) * n
    stream = bytearray()
    counter = 0
    position = 0
    while True:
        if position + width > len(stream):
            stream += hashlib.sha256(seed + struct.pack(">I", counter)).digest()
            counter += 1
            continue
        x = int.from_bytes(stream[position:position + width], "big")
        position += width
        if x < accept_below:
            return x % n


def reference_chain(seed: bytes, length: int) -> list[bytes]:
    """h_0 = seed, h_i = SHA-256(h_{i-1}) up to h_length."""
    links = [seed]
    for _ in range(length):
        links.append(hashlib.sha256(links[-1]).digest())
    return links


contributions_st = st.lists(
    st.tuples(st.text(min_size=1, max_size=12), st.binary(min_size=32, max_size=32)),
    max_size=6,
)


@settings(max_examples=300, deadline=None)
@given(
    room=st.text(min_size=1, max_size=64),
    roll=st.integers(min_value=0, max_value=2**63),
    n=st.one_of(st.integers(min_value=1, max_value=300), st.integers(1, dice.MAX_RANGE)),
    contributions=contributions_st,
)
def test_derivation_matches_the_independent_implementation(
    room: str, roll: int, n: int, contributions: list[tuple[str, bytes]]
) -> None:
    assert dice.roll_digest(room, roll, n, contributions) == reference_digest(
        room, roll, n, contributions)
    assert dice.draw(room, roll, n, contributions) == reference_index(room, roll, n, contributions)


def test_rejected_bytes_are_skipped_as_specified() -> None:
    # Find rolls whose first stream byte is refused for a die (>= 252) and check both agree.
    reveals = [("red", bytes(32))]
    rejected = 0
    for roll in range(3000):
        seed = reference_digest(ROOM, roll, 6, reveals)
        first = hashlib.sha256(seed + struct.pack(">I", 0)).digest()[0]
        if first >= 252:
            rejected += 1
            assert dice.draw(ROOM, roll, 6, reveals) == reference_index(ROOM, roll, 6, reveals)
            assert dice.draw(ROOM, roll, 6, reveals) == next(
                b for b in hashlib.sha256(seed + b"\0\0\0\0").digest() if b < 252) % 6
    assert rejected > 20  # about 1.6% of 3000


def test_known_answer_pins_the_derivation_for_old_records() -> None:
    reveals = [("red", bytes(range(32))), ("blue", bytes(range(32, 64)))]
    # Written down once from the specification: if these change, old records stop verifying.
    assert dice.roll_digest(ROOM, 7, 6, reveals).hex() == (
        "e87c4c6f4bc6cb36daa4945ff710409fd14c57884ffb5e69e10836ada171e778")
    assert [dice.draw(ROOM, k, 6, reveals) + 1 for k in range(12)] == [
        6, 6, 6, 6, 5, 6, 1, 4, 1, 1, 4, 1]


def test_the_secret_chain_is_the_specified_hash_chain() -> None:
    seed = bytes(range(1, 33))
    chain = dice.SecretChain(seed, start=10, length=50)
    links = reference_chain(seed, 50)
    assert chain.head == links[50]
    assert chain.commitment("red") == dice.Commitment("red", links[50], 10, 50)
    for roll in range(10, 60):
        assert chain.reveal(roll) == links[50 - (roll - 10 + 1)]
    assert chain.reveal(59) == seed


# --------------------------------------------------------------------------------------------
# Uniformity: chi-square on fixed seeds (deterministic; nothing is timed)


def chi_square_p_value(counts: list[int]) -> float:
    """Survival function of the chi-square statistic of `counts` against equal cells."""
    total = sum(counts)
    expected = total / len(counts)
    x = sum((c - expected) ** 2 / expected for c in counts)
    k = len(counts) - 1
    if k % 2 == 0:
        term, acc = 1.0, 1.0
        for i in range(1, k // 2):
            term *= (x / 2) / i
            acc += term
        return math.exp(-x / 2) * acc
    acc = math.erfc(math.sqrt(x / 2))
    term = math.sqrt(2 * x / math.pi) * math.exp(-x / 2)
    for i in range(1, (k + 1) // 2):
        acc += term
        term *= x / (2 * i + 1)
    return acc


def test_chi_square_helper_against_known_quantiles() -> None:
    # (statistic, degrees of freedom) at p = 0.05 and 0.001 from standard tables.
    for x, k, p in ((3.841, 1, 0.05), (11.070, 5, 0.05), (20.515, 5, 0.001), (9.488, 4, 0.05),
                    (16.266, 3, 0.001)):
        expected = 200.0
        # Two cells carry the whole deviation: (d^2 + d^2) / e = x.
        d = math.sqrt(x * expected / 2)
        counts = [expected + d, expected - d] + [expected] * (k - 1)
        assert chi_square_p_value(counts) == pytest.approx(p, rel=2e-3)  # type: ignore[arg-type]


DIE_DRAWS = 400_000  # enough to see the bias plain `byte % 6` would have (next test)


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6, 7, 100, 129, 255, 256, 257, 1000])
def test_uniform_index_is_uniform(n: int) -> None:
    draws = DIE_DRAWS if n == 6 else 200 * n if n > 10 else 60_000
    counts = Counter(
        dice.uniform_index(hashlib.sha256(f"seed {n} {i}".encode()).digest(), n)
        for i in range(draws)
    )
    assert set(counts) == set(range(n))
    assert chi_square_p_value([counts[v] for v in range(n)]) > 0.001


def test_plain_modulo_would_be_caught_by_the_same_test() -> None:
    # The test above has the power to see the bias rejection sampling removes: one byte mod 6
    # gives 0..3 a chance of 43/256 and 4..5 one of 42/256, which the same number of draws shows.
    counts = Counter(
        hashlib.sha256(f"seed 6 {i}".encode()).digest()[0] % 6 for i in range(DIE_DRAWS)
    )
    assert chi_square_p_value([counts[v] for v in range(6)]) < 0.001


def test_dice_of_a_played_ledger_are_uniform_and_cover_every_face() -> None:
    chains = {p: dice.SecretChain(hashlib.sha256(p.encode()).digest(), 0, 6000) for p in SEATS}
    ledger = dice.DiceLedger(ROOM, SEATS)
    for p, chain in chains.items():
        ledger.commit(chain.commitment(p))
    faces = Counter()
    for roll in range(6000):
        settled = ledger.settle(roll, 6, {p: c.reveal(roll) for p, c in chains.items()})
        faces[dice.die(ledger, roll)] += 1
        assert settled.value + 1 == dice.die(ledger, roll)
    assert chi_square_p_value([faces[v] for v in range(1, 7)]) > 0.001


# --------------------------------------------------------------------------------------------
# A match's ledger


def fixed_chain(participant: str, start: int = 0, length: int = 64) -> dice.SecretChain:
    return dice.SecretChain(hashlib.sha256(b"seed " + participant.encode()).digest(), start,
                            length)


def new_ledger(
    length: int = 64, participants: tuple[str, ...] = SEATS
) -> tuple[dice.DiceLedger, dict[str, dice.SecretChain]]:
    chains = {p: fixed_chain(p, 0, length) for p in participants}
    ledger = dice.DiceLedger(ROOM, participants)
    for p in participants:
        ledger.commit(chains[p].commitment(p))
    return ledger, chains


def snapshot(ledger: dice.DiceLedger) -> str:
    return json.dumps(ledger.to_json()) + repr(sorted(ledger._anchors.items()))


def test_a_roll_is_the_same_for_everybody_and_checkable_from_the_reveals() -> None:
    host, chains = new_ledger()
    guest, _ = new_ledger()
    for roll in range(20):
        settled = host.settle(roll, 6, {p: c.reveal(roll) for p, c in chains.items()})
        # The guest receives the reveals in canonical order, as the record has them.
        assert guest.settle(roll, 6, list(settled.contributions)) == settled
        assert settled.value == reference_index(ROOM, roll, 6, list(settled.contributions))
        assert settled.contributors == SEATS and settled.missing == ()


def test_the_starting_seat_and_named_faces_are_drawn_the_same_way() -> None:
    ledger, chains = new_ledger()
    royal_faces = ("1", "2", "3", "4", "crown", "feather")
    ledger.settle(0, 4, {p: c.reveal(0) for p, c in chains.items()})
    ledger.settle(1, 6, {p: c.reveal(1) for p, c in chains.items()})
    assert dice.choose(ledger, 0, SEATS) == SEATS[reference_index(
        ROOM, 0, 4, [(p, chains[p].reveal(0)) for p in SEATS])]
    assert dice.choose(ledger, 1, royal_faces) == royal_faces[ledger.rolls[1].value]
    with pytest.raises(dice.DiceError, match="drawn from 4 values, not 6"):
        dice.die(ledger, 0)
    with pytest.raises(dice.RollPending):
        dice.die(ledger, 2)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    roll=st.integers(min_value=0, max_value=30),
    victim=st.sampled_from(SEATS),
    mask=st.binary(min_size=32, max_size=32).filter(any),
)
def test_forged_reveals_are_refused_with_nothing_changed(
    roll: int, victim: str, mask: bytes
) -> None:
    ledger, chains = new_ledger()
    for k in range(roll):
        ledger.settle(k, 6, {p: c.reveal(k) for p, c in chains.items()})
    before = snapshot(ledger)
    reveals = {p: c.reveal(roll) for p, c in chains.items()}
    reveals[victim] = bytes(a ^ b for a, b in zip(reveals[victim], mask, strict=True))
    with pytest.raises(dice.DiceError, match=f"{victim}: the reveal for roll {roll} does not"):
        ledger.settle(roll, 6, reveals)
    with pytest.raises(dice.DiceError):
        ledger.check_reveal(victim, roll, reveals[victim])
    assert snapshot(ledger) == before
    ledger.settle(roll, 6, {p: c.reveal(roll) for p, c in chains.items()})  # honest: accepted


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    roll=st.integers(min_value=1, max_value=30),
    victim=st.sampled_from(SEATS),
    source=st.sampled_from(["earlier-roll", "later-roll", "head", "other-seat", "same-roll-2"]),
    back=st.integers(min_value=1, max_value=5),
)
def test_replayed_and_misplaced_reveals_are_refused(
    roll: int, victim: str, source: str, back: int
) -> None:
    ledger, chains = new_ledger()
    for k in range(roll):
        ledger.settle(k, 6, {p: c.reveal(k) for p, c in chains.items()})
    before = snapshot(ledger)
    chain = chains[victim]
    other = SEATS[(SEATS.index(victim) + 1) % 4]
    replayed = {
        "earlier-roll": chain.reveal(max(0, roll - back)),
        "later-roll": chain.reveal(roll + back),
        "head": chain.head,
        "other-seat": chains[other].reveal(roll),
        "same-roll-2": fixed_chain(victim + "x").reveal(roll),
    }[source]
    reveals = {p: c.reveal(roll) for p, c in chains.items()}
    reveals[victim] = replayed
    with pytest.raises(dice.DiceError):
        ledger.settle(roll, 6, reveals)
    assert snapshot(ledger) == before
    # A reveal for another roll number than the one being settled is refused too.
    with pytest.raises(dice.DiceError, match="is the one being settled"):
        ledger.check_reveal(victim, roll + back, chain.reveal(roll + back))


@settings(max_examples=100, deadline=None)
@given(order=st.permutations(SEATS).filter(lambda o: tuple(o) != SEATS))
def test_reveals_out_of_canonical_order_are_refused(order: list[str]) -> None:
    ledger, chains = new_ledger()
    before = snapshot(ledger)
    with pytest.raises(dice.DiceError, match="canonical order"):
        ledger.settle(0, 6, [(p, chains[p].reveal(0)) for p in order])
    assert snapshot(ledger) == before
    # A mapping is put in order by the ledger; the value does not depend on insertion order.
    settled = ledger.settle(0, 6, {p: chains[p].reveal(0) for p in order})
    assert settled.contributors == SEATS


def test_repeated_and_unknown_contributors_are_refused() -> None:
    ledger, chains = new_ledger()
    red = chains["red"].reveal(0)
    with pytest.raises(dice.DiceError, match="canonical order, or repeated"):
        ledger.settle(0, 6, [("red", red), ("red", red)])
    with pytest.raises(dice.DiceError, match="not a participant"):
        ledger.settle(0, 6, {"purple": red})
    with pytest.raises(dice.DiceError, match="not a participant"):
        ledger.settle(0, 6, [("purple", red)])
    with pytest.raises(dice.DiceError, match="0 reveals, at least 1"):
        ledger.settle(0, 6, {})
    with pytest.raises(dice.DiceError, match="32 bytes"):
        ledger.settle(0, 6, {"red": red[:31]})
    with pytest.raises(dice.DiceError, match="next roll is 0"):
        ledger.settle(1, 6, {"red": chains["red"].reveal(1)})
    with pytest.raises(dice.DiceError, match="range"):
        ledger.settle(0, 0, {"red": red})
    assert ledger.next_roll == 0


# --------------------------------------------------------------------------------------------
# Withholding


def test_withheld_reveals_are_visible_change_the_value_and_burn_the_link() -> None:
    ledger, chains = new_ledger()
    full = {p: c.reveal(0) for p, c in chains.items()}
    without_blue = {p: r for p, r in full.items() if p != "blue"}
    settled = ledger.settle(0, 1000, without_blue)
    assert settled.contributors == ("red", "green", "yellow")
    assert settled.missing == ("blue",)
    # The contributor set is hashed: leaving blue out is another, agreed, value.
    assert settled.value == reference_index(ROOM, 0, 1000, list(without_blue.items()))
    assert dice.roll_digest(ROOM, 0, 1000, list(without_blue.items())) != dice.roll_digest(
        ROOM, 0, 1000, list(full.items()))
    # Blue's link for roll 0 is spent: showing it at roll 1 fails, its roll-1 link verifies
    # (two hashes down to the head).
    with pytest.raises(dice.DiceError):
        ledger.check_reveal("blue", 1, chains["blue"].reveal(0))
    ledger.check_reveal("blue", 1, chains["blue"].reveal(1))


def test_a_participant_who_missed_rolls_has_exactly_one_valid_reveal_later() -> None:
    ledger, chains = new_ledger()
    for roll in range(5):  # green withholds five times
        ledger.settle(roll, 6, {p: c.reveal(roll) for p, c in chains.items() if p != "green"})
    candidates = [chains["green"].reveal(k) for k in range(10)]
    valid = []
    for k, reveal in enumerate(candidates):
        try:
            ledger.check_reveal("green", 5, reveal)
            valid.append(k)
        except dice.DiceError:
            pass
    assert valid == [5]  # no choice of link: no grinding after withholding
    settled = ledger.settle(5, 6, {p: c.reveal(5) for p, c in chains.items()})
    assert settled.missing == ()
    assert [r.missing for r in ledger.rolls[:5]] == [("green",)] * 5


def test_the_host_collects_checks_and_settles_after_its_timeout() -> None:
    ledger, chains = new_ledger()
    collector = dice.RevealCollector(ledger, 6, expected=SEATS)
    assert ledger.opened == 0
    collector.add("red", chains["red"].reveal(0))
    with pytest.raises(dice.DiceError, match="already revealed"):
        collector.add("red", chains["red"].reveal(0))
    with pytest.raises(dice.DiceError):
        collector.add("green", chains["red"].reveal(0))  # red's reveal sent as green's
    collector.add("yellow", chains["yellow"].reveal(0))
    assert not collector.complete
    assert collector.waiting_for == {"green", "blue"}
    # The host's timeout passes: it settles with what it holds.
    settled = collector.settle()
    assert settled.contributors == ("red", "yellow") and settled.missing == ("green", "blue")
    assert ledger.opened is None and ledger.next_roll == 1
    again = dice.RevealCollector(ledger, 6, expected=SEATS)
    for p in SEATS:
        again.add(p, chains[p].reveal(1))
    assert again.complete and again.settle().missing == ()


def test_min_contributors() -> None:
    chains = {p: fixed_chain(p) for p in SEATS}
    ledger = dice.DiceLedger(ROOM, SEATS, min_contributors=2)
    for p, c in chains.items():
        ledger.commit(c.commitment(p))
    with pytest.raises(dice.DiceError, match="1 reveals, at least 2"):
        ledger.settle(0, 6, {"red": chains["red"].reveal(0)})
    ledger.settle(0, 6, {p: chains[p].reveal(0) for p in ("red", "blue")})
    with pytest.raises(dice.DiceError):
        dice.DiceLedger(ROOM, SEATS, min_contributors=5)


# --------------------------------------------------------------------------------------------
# Exhaustion and re-commitment


def test_chain_exhaustion_and_a_successor_chain() -> None:
    ledger, chains = new_ledger(length=3)
    for roll in range(3):
        ledger.settle(roll, 6, {p: c.reveal(roll) for p, c in chains.items()})
    assert ledger.links_left("red") == 0
    with pytest.raises(dice.ChainExhausted):
        chains["red"].reveal(3)
    with pytest.raises(dice.ChainExhausted):
        ledger.check_reveal("red", 3, bytes(32))
    successors = {p: c.successor(length=4) for p, c in chains.items()}
    for p, s in successors.items():
        assert s.start == 3 and s.remaining(3) == 4
        ledger.commit(s.commitment(p))
    assert ledger.links_left("red") == 4
    for roll in range(3, 7):
        ledger.settle(roll, 6, {p: s.reveal(roll) for p, s in successors.items()})
    # The old chain's seed (its last link, revealed at roll 2) is no use any more.
    with pytest.raises(dice.DiceError):
        ledger.check_reveal("red", 7, chains["red"].seed)


def test_default_chains_are_long_and_fresh() -> None:
    a, b = dice.SecretChain.new(), dice.SecretChain.new()
    assert a.length == dice.CHAIN_LENGTH == 4096 and a.seed != b.seed
    assert hashlib.sha256(a.reveal(0)).digest() == a.head
    assert a.remaining(4096 - dice.RENEW_MARGIN) == dice.RENEW_MARGIN


def test_a_recommitment_replaces_the_chain_from_its_start() -> None:
    ledger, chains = new_ledger(length=100)
    for roll in range(5):
        ledger.settle(roll, 6, {p: c.reveal(roll) for p, c in chains.items()})
    fresh = fixed_chain("red-2", start=8, length=10)
    ledger.commit(fresh.commitment("red"))
    for roll in range(5, 8):  # the old chain still serves 5..7
        ledger.settle(roll, 6, {"red": chains["red"].reveal(roll)})
    with pytest.raises(dice.DiceError):
        ledger.check_reveal("red", 8, chains["red"].reveal(8))
    ledger.check_reveal("red", 8, fresh.reveal(8))
    assert ledger.links_left("red") == 10


def test_commitments_may_only_cover_rolls_nobody_was_asked_for() -> None:
    ledger, chains = new_ledger()
    ledger.settle(0, 6, {p: c.reveal(0) for p, c in chains.items()})
    late = fixed_chain("late", start=0)
    with pytest.raises(dice.DiceError, match="too late"):
        ledger.commit(late.commitment("red"))
    ledger.open(1)  # reveals for roll 1 were asked for: the host must not pick a new chain now
    with pytest.raises(dice.DiceError, match="too late"):
        ledger.commit(fixed_chain("grind", start=1).commitment("red"))
    ledger.commit(fixed_chain("ok", start=2).commitment("red"))
    with pytest.raises(dice.DiceError, match="not a participant"):
        ledger.commit(fixed_chain("x", start=5).commitment("purple"))
    with pytest.raises(dice.DiceError, match="32-byte head"):
        ledger.commit(dice.Commitment("red", b"short", 5, 10))
    with pytest.raises(dice.DiceError, match="cannot be opened"):
        ledger.open(3)


# --------------------------------------------------------------------------------------------
# Records: verification of a whole sequence of rolls


def played_record(rolls: int = 12) -> dict[str, Any]:
    ledger, chains = new_ledger(length=8)
    successors = {}
    for roll in range(rolls):
        if roll == 6:
            for p, c in chains.items():
                successors[p] = c.successor(length=16)
                ledger.commit(successors[p].commitment(p))
        source = chains if roll < 8 else successors
        n = 4 if roll == 0 else 6
        ledger.settle(roll, n, {p: c.reveal(roll) for p, c in source.items()
                                if (roll + SEATS.index(p)) % 5})  # somebody withholds sometimes
    return json.loads(json.dumps(ledger.to_json()))


def test_a_record_verifies_offline_roll_by_roll() -> None:
    record = played_record()
    rolls = dice.verify_record(record)
    assert [r.roll for r in rolls] == list(range(12))
    assert rolls[0].n == 4 and all(r.n == 6 for r in rolls[1:])
    for r, event in zip(rolls, [e for e in record["events"] if "roll" in e], strict=True):
        pairs = [(p, bytes.fromhex(h)) for p, h in event["reveals"]]
        assert r.value == event["value"] == reference_index(ROOM, r.roll, r.n, pairs)
    replayed = dice.DiceLedger.replay(record)
    assert replayed.to_json() == record


def _tamper(record: dict[str, Any], choice: int, kind: str) -> dict[str, Any] | None:
    bad = copy.deepcopy(record)
    events = bad["events"]
    rolls = [e for e in events if "roll" in e]
    event = rolls[choice % len(rolls)]
    if kind == "value":
        event["value"] = (event["value"] + 1) % event["n"]
    elif kind == "reveal":
        p, h = event["reveals"][0]
        event["reveals"][0] = [p, ("0" if h[0] != "0" else "1") + h[1:]]
    elif kind == "swap":
        if len(event["reveals"]) < 2:
            return None
        event["reveals"][0], event["reveals"][1] = event["reveals"][1], event["reveals"][0]
    elif kind == "drop-event":
        if event is rolls[-1]:
            return None  # a record cut short is a shorter valid record: the game's actions
            # would then lack a roll, which the protocol (not the dice) refuses
        events.remove(event)
    elif kind == "duplicate-event":
        events.insert(events.index(event) + 1, copy.deepcopy(event))
    elif kind == "room":
        bad["room"] = bad["room"][::-1]
    elif kind == "head":
        commit = events[choice % 4]["commit"]
        commit["head"] = "f" * 64
    elif kind == "participants":
        bad["participants"] = bad["participants"][::-1]
    return bad


@settings(max_examples=150, deadline=None)
@given(
    choice=st.integers(min_value=0, max_value=100),
    kind=st.sampled_from(["value", "reveal", "swap", "drop-event", "duplicate-event", "room",
                          "head", "participants"]),
)
def test_every_tampered_record_is_refused(choice: int, kind: str) -> None:
    # (Changing a roll's n, or leaving out a reveal, gives another roll that may happen to have
    # the same value: such a record is consistent, so those are not forgeries to detect here.
    # The first is caught where the table asks for the roll with its own n, the second by the
    # peer whose reveal was left out.)
    bad = _tamper(RECORD, choice, kind)
    if bad is None:
        return
    with pytest.raises(dice.DiceError, match="dice record"):
        dice.verify_record(bad)


RECORD = played_record()


def _first_roll_as(reveals: Any, roll: int = 0) -> dict[str, Any]:
    """RECORD with its commitments and a first roll event carrying `reveals`."""
    event = {"roll": roll, "n": 6, "reveals": reveals, "value": 0}
    return {**RECORD, "events": RECORD["events"][:4] + [event]}


@pytest.mark.parametrize(
    ("record", "problem"),
    [
        ([], "a JSON object"),
        ({"scheme": "other"}, "the fields are"),
        ({**RECORD, "scheme": "courtyard-ludo/dice/v0"}, "scheme"),
        ({**RECORD, "events": {}}, "events is a list"),
        ({**RECORD, "events": [{"commit": {"participant": "red"}}]}, "event 0: commitment"),
        ({**RECORD, "events": [{"roll": 0}]}, "event 0: an event is"),
        (_first_roll_as([["red", "zz"]]), "64 hex digits"),
        (_first_roll_as("x"), "reveals is a list"),
        (_first_roll_as([], roll=-1), "roll: an integer"),
        ({**RECORD, "minContributors": 0}, "minContributors"),
    ],
)
def test_malformed_records_say_what_is_wrong(record: Any, problem: str) -> None:
    with pytest.raises(dice.DiceError, match=problem):
        dice.verify_record(record)


# --------------------------------------------------------------------------------------------
# Serialisation and sources


def test_secret_chain_and_commitment_round_trip_through_json() -> None:
    chain = fixed_chain("red", start=3, length=20)
    again = dice.SecretChain.from_json(json.loads(json.dumps(chain.to_json())))
    assert again.head == chain.head and again.reveal(10) == chain.reveal(10)
    commitment = chain.commitment("red")
    assert dice.Commitment.from_json(json.loads(json.dumps(commitment.to_json()))) == commitment
    for bad in ({"seed": "00", "start": 0, "length": 3}, {"seed": "g" * 64, "start": 0,
                "length": 3}, {"seed": "0" * 64, "start": 0, "length": 0}, {"seed": "0" * 64}):
        with pytest.raises(dice.DiceError):
            dice.SecretChain.from_json(bad)
    with pytest.raises(dice.DiceError, match="before this chain's first roll"):
        chain.reveal(2)


def test_seeded_dice_are_a_deterministic_source() -> None:
    a, b, c = dice.SeededDice("game 1"), dice.SeededDice("game 1"), dice.SeededDice("game 2")
    first = [dice.die(a, k) for k in range(50)]
    assert first == [dice.die(b, k) for k in range(50)]
    assert first != [dice.die(c, k) for k in range(50)]
    assert set(first) <= set(range(1, 7))
    assert dice.choose(a, 0, SEATS) in SEATS
    with pytest.raises(dice.DiceError):
        a.index(-1, 6)


def test_dice_module_imports_only_the_standard_library() -> None:
    import ast
    import sys
    from pathlib import Path

    for name in ("dice.py", "signalling.py", "__init__.py"):
        path = Path(dice.__file__).with_name(name)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                modules = [node.module or ""]
            else:
                continue
            for module in modules:
                top = module.split(".")[0]
                assert top in sys.stdlib_module_names or top == "__future__", (name, module)
