"""Outside players for Royal Ludo (used by ``bench/outside.py --rules royal``).

Written from the rules (docs/rules/royal.md) and the usual Ludo-AI ideas, before reading our
own players, and playing through the engine's public API only (``distinct_moves``,
``advance``, the position's documented fields: ``tokens``/``men``, ``riders``/``doubles``,
``die``, ``turn``, ``winner``; places as in docs/notation.md: the balk -1, track 0-51, the home
columns 52-71 (colour c's space k is 52 + 5c + k - 1), the home crown 72). Every throw is one
decision: a man to move, or after a carrier's two crowns in succession, sending the rider back,
climbing on top, or the crown as a move.

Reach (where an enemy man can land with his next throw, each face 1/6): the spaces 1-4 ahead on
his path, the next feather space if no crown space comes first, and the next crown space. A
*double* (a carrier) landing on a single man sends him to balk; a single man landing on one
climbs on top, and the man underneath must carry him.

* ``aggressive`` -- send a man to balk first (a double landing on him, or two crowns), the most
  advanced victim, else climb on an opponent (the most advanced), else start a man, else the
  leading man.
* ``defensive`` -- the throw that leaves its single men on the track least in reach of an
  enemy double (weighted by their progress) and of being climbed on; then the home column;
  ties to the leading man. After two crowns it sends the rider back.
* ``fast`` -- home first, then the man furthest along; a crown starts a man only when no man
  out can use it.
* ``expert`` -- each throw scored by a weighted sum over the position after it: progress,
  out of the balk, home column, home crown, danger to single men (by doubles and by
  climbers), riding (safe, but bad when the carrier's path runs past its own column), carrying
  (the man underneath is tied up), and the enemies' progress (so sending one to balk counts).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from ludo import advance, distinct_moves
from ludo.actions import Action
from ludo.geometry import COLOURS, ENTRANCE_SQUARES, STAR_SQUARES, START_SQUARES

TRACK = 52
LANES = 52
HOME = 72
BALK = -1
CROWNS = frozenset(START_SQUARES)
FEATHERS = frozenset(STAR_SQUARES)


def lane(c: int, k: int) -> int:
    return LANES + 5 * c + k - 1


def lane_owner(place: int) -> tuple[int, int]:
    c, k = divmod(place - LANES, 5)
    return c, k + 1


_PATHS: dict[tuple[int, int], tuple[int, ...]] = {}


def path(ci: int, place: int) -> tuple[int, ...]:
    """The spaces a man of colour ``ci`` at a track space or his own column passes to home."""
    key = (ci, place)
    got = _PATHS.get(key)
    if got is not None:
        return got
    out: list[int] = []
    if 0 <= place < TRACK:
        sq = place
        while sq != ENTRANCE_SQUARES[ci]:
            sq = (sq + 1) % TRACK
            out.append(sq)
        out += [lane(ci, k) for k in range(1, 6)] + [HOME]
    elif LANES <= place < HOME and lane_owner(place)[0] == ci:
        k = lane_owner(place)[1]
        out += [lane(ci, j) for j in range(k + 1, 6)] + [HOME]
    _PATHS[key] = tuple(out)
    return _PATHS[key]


def reach(ci: int, place: int) -> list[int]:
    """Where a man could land with each face that moves him (numbers, feather, crown)."""
    if not 0 <= place < TRACK:
        return []
    p = path(ci, place)
    spots = [p[n - 1] for n in range(1, 5) if n < len(p)]
    for q in p:
        if q in CROWNS or q == HOME:
            break
        if q in FEATHERS:
            spots.append(q)
            break
    crown = next((q for q in p if q in CROWNS or q == HOME), None)
    if crown is not None:
        spots.append(crown)
    return spots


def progress(ci: int, place: int) -> int:
    """0 in the balk, 1 on the starting point, 52-56 in his own column, 57 home."""
    if place == BALK:
        return 0
    if place == HOME:
        return 57
    if place >= LANES:
        c, k = lane_owner(place)
        if c == ci:
            return 51 + k
        return max(1, (ENTRANCE_SQUARES[c] - START_SQUARES[ci]) % TRACK + 1 - k)
    return (place - START_SQUARES[ci]) % TRACK + 1


def roles(state: Any) -> tuple[dict[tuple[int, int], tuple[int, int]],
                               dict[tuple[int, int], tuple[int, int]]]:
    """rider -> carrier and carrier -> rider, as (colour index, man)."""
    ride: dict[tuple[int, int], tuple[int, int]] = {}
    carry: dict[tuple[int, int], tuple[int, int]] = {}
    for rc, rt, cc, ct in state.riders:
        ride[(rc, rt)] = (cc, ct)
        carry[(cc, ct)] = (rc, rt)
    return ride, carry


def threats(state: Any, ci: int, place: int) -> tuple[float, float]:
    """(chance some enemy double lands on ``place``, chance some single enemy man climbs on
    it) with their next throw, one face each (1/6 per face that reaches it)."""
    if not 0 <= place < TRACK:
        return 0.0, 0.0
    ride, carry = roles(state)
    doubles = singles = 0.0
    for e, men in enumerate(state.tokens):
        if e == ci or not men:
            continue
        for t, p in enumerate(men):
            if (e, t) in ride:
                continue  # a rider moves off only onto an empty space
            if p == BALK:
                if place == START_SQUARES[e]:
                    singles += 1 / 6
                continue
            hits = reach(e, p).count(place)
            if not hits:
                continue
            if (e, t) in carry:
                doubles += hits / 6
            else:
                singles += hits / 6
    return min(doubles, 1.0), min(singles, 1.0)


# ---------------------------------------------------------------- facts of a throw

def moved_man(state: Any, action: Action) -> int:
    return action.token if action.token is not None else 0


def sent_to_balk(state: Any, after: Any, ci: int) -> tuple[int, int]:
    """(enemy men sent to balk, their progress) by the throw."""
    n = steps = 0
    for e, men in enumerate(state.tokens):
        if e == ci or not men or not after.tokens[e]:
            continue
        for b, a in zip(men, after.tokens[e], strict=True):
            if a == BALK and b != BALK:
                n += 1
                steps += progress(e, b)
    return n, steps


def climbed(state: Any, after: Any, ci: int) -> int:
    """Progress of the opponent our man climbed on (0 if none)."""
    before = {(r[0], r[1]) for r in state.riders}
    for rc, rt, cc, ct in after.riders:
        if rc == ci and (rc, rt) not in before:
            return progress(cc, after.tokens[cc][ct]) + 1
    return 0


def won(state: Any, after: Any) -> bool:
    return after.phase == "over" and after.winner == state.turn


# ---------------------------------------------------------------- rule-based players

def aggressive(state: Any, rng: random.Random) -> Action:
    ci = COLOURS.index(state.turn)
    mine = state.tokens[ci]

    def key(a: Action) -> tuple:
        s = advance(state, a)
        n, steps = sent_to_balk(state, s, ci)
        t = moved_man(state, a)
        entered = a.type == "move" and mine[t] == BALK
        return (won(state, s), n, steps, climbed(state, s, ci), entered,
                progress(ci, mine[t]), rng.random())
    return max(distinct_moves(state), key=key)


def fast(state: Any, rng: random.Random) -> Action:
    ci = COLOURS.index(state.turn)
    mine = state.tokens[ci]

    def key(a: Action) -> tuple:
        s = advance(state, a)
        t = moved_man(state, a)
        home = a.type == "move" and s.tokens[ci][t] == HOME
        entered = a.type == "move" and mine[t] == BALK
        return (won(state, s), home, not entered, a.type == "send_back",
                progress(ci, mine[t]), rng.random())
    return max(distinct_moves(state), key=key)


def exposure(state: Any, ci: int) -> float:
    ride, carry = roles(state)
    total = 0.0
    for t, p in enumerate(state.tokens[ci]):
        if not 0 <= p < TRACK or (ci, t) in ride:
            continue
        doubles, singles = threats(state, ci, p)
        total += doubles * (progress(ci, p) + 12) + singles * 4
    return total


def defensive(state: Any, rng: random.Random) -> Action:
    ci = COLOURS.index(state.turn)
    mine = state.tokens[ci]

    def key(a: Action) -> tuple:
        s = advance(state, a)
        t = moved_man(state, a)
        safe = a.type == "move" and (s.tokens[ci][t] == HOME or s.tokens[ci][t] >= LANES)
        return (won(state, s), a.type == "send_back", -round(exposure(s, ci), 3), safe,
                progress(ci, mine[t]), rng.random())
    return max(distinct_moves(state), key=key)


# ---------------------------------------------------------------- the expert

WEIGHTS = {
    "progress": 1.0,    # per space of each man
    "out": 12.0,        # out of the balk
    "column": 8.0,      # in his own home column (out of danger)
    "home": 15.0,       # on the home crown
    "waiting": 12.0,    # left in another colour's column (waits for the others)
    "hit": 1.0,         # a double may land on him: chance x (progress + out) x this
    "climbed": 4.0,     # chance a single enemy climbs on him x this
    "riding": 4.0,      # riding: out of reach
    "carried_past": 20.0,  # riding a carrier whose path runs past his own column
    "carrying": 4.0,    # carrying a double: the man is tied to it
    "enemy": 0.5,       # per space (and out-of-balk bonus) of each enemy man
    "win": 10_000.0,
}


def evaluate(state: Any, ci: int) -> float:
    w = WEIGHTS
    ride, carry = roles(state)
    score = 0.0
    for t, p in enumerate(state.tokens[ci]):
        if p == BALK:
            continue
        score += w["progress"] * progress(ci, p) + w["out"]
        if p == HOME:
            score += w["home"] + w["column"]
            continue
        if p >= LANES:
            score += w["column"] if lane_owner(p)[0] == ci else -w["waiting"]
            continue
        if (ci, t) in ride:
            score += w["riding"]
            cc, ct = ride[(ci, t)]
            if ENTRANCE_SQUARES[ci] in path(cc, p)[:TRACK]:
                score -= w["carried_past"]
            continue
        if (ci, t) in carry:
            score -= w["carrying"]
        doubles, singles = threats(state, ci, p)
        score -= doubles * w["hit"] * (progress(ci, p) + w["out"])
        score -= singles * w["climbed"]
    for e, men in enumerate(state.tokens):
        if e == ci:
            continue
        for p in men:
            if p != BALK:
                score -= w["enemy"] * (progress(e, p) + w["out"])
    return score


def expert(state: Any, rng: random.Random) -> Action:
    ci = COLOURS.index(state.turn)

    def value(a: Action) -> float:
        s = advance(state, a)
        if s.phase == "over":
            return WEIGHTS["win"] if s.winner == state.turn else -WEIGHTS["win"]
        return evaluate(s, ci) + rng.random() * 1e-6
    return max(distinct_moves(state), key=value)


PLAYERS: dict[str, Callable[[Any, random.Random], Action]] = {
    "aggressive": aggressive,
    "defensive": defensive,
    "fast": fast,
    "expert": expert,
}
