"""Outside players for Gilgiti Ludo (used by ``bench/outside.py --rules gilgiti``).

Written from the rules (docs/rules/gilgiti.md) and the usual Ludo-AI ideas, before reading our
own players, and playing through the engine's public API only (``distinct_moves``,
``apply``/``advance``, the position's documented fields: ``tokens``, ``unplayed``, ``start``,
``teams``, ``turn``, ``winners``; places as in docs/notation.md). Every decision is one value of
the turn played by one token, a stack strike or the forcing of a gate.

The three rule-based players choose one play at a time and know only what the app shows a
person: a play after which no value left can be played (the turn would go back at once) is
avoided when another play exists. They do not plan the order of the turn's values, so a later
value may still be stranded, and then their whole turn rolls back, as the rules say.

* ``aggressive`` -- a capture or a stack strike first (the most advanced victims), else
  entering, else the leading token.
* ``defensive`` -- the play that leaves its side's lone tokens least in reach of an enemy
  (reach counts the sums a turn's 6-6-x rolls make, and stops at blocks), weighted by progress;
  then stars, blocks and the home lane; ties to the leading token.
* ``fast`` -- home first, then the token furthest along; entering only when no token on the
  board can play.
* ``expert`` -- plans the whole turn: every order of the values left (stack strikes and forcing
  included) is played out to the end of the turn, and the final position is scored by a weighted
  sum (progress, out of the yard, home lane, home, stars and blocks, danger to lone tokens,
  enemy progress lost to captures, enemy tokens held up behind its blocks, a closed entry gate);
  a turn that would go back scores as the turn's start (so it is chosen only when every
  completed turn is worse). In team games both partners' tokens are its side.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from ludo import advance, distinct_moves
from ludo.actions import Action
from ludo.geometry import COLOURS, ENTRANCE_SQUARES, STAR_SQUARES, START_SQUARES

TRACK = 52
LANE = 52  # a token's own lane: 52..56
HOME = 57
YARD = -1
STARS = frozenset(START_SQUARES) | frozenset(STAR_SQUARES)
PARTNER = (2, 3, 0, 1)


# ---------------------------------------------------------------- reading a position

def side_of(state: Any, ci: int) -> tuple[int, ...]:
    """The colours whose tokens count as ``ci``'s own: its partner's too in a team game."""
    if state.teams:
        return (ci, PARTNER[ci])
    return (ci,)


def enemies_of(state: Any, ci: int) -> tuple[int, ...]:
    mine = side_of(state, ci)
    return tuple(e for e in range(4) if e not in mine and state.tokens[e])


def progress(ci: int, place: int) -> int:
    """0 in the yard, 1 on the entry star .. 51 on the lane entrance, 52-56 lane, 57 home."""
    if place == YARD:
        return 0
    if place >= LANE:
        return place
    return (place - START_SQUARES[ci]) % TRACK + 1


def counts_by_square(tokens: tuple[tuple[int, ...], ...]) -> dict[int, list[int]]:
    occ: dict[int, list[int]] = {}
    for ci, places in enumerate(tokens):
        for p in places:
            if 0 <= p < TRACK:
                occ.setdefault(p, [0, 0, 0, 0])[ci] += 1
    return occ


def reach_weight(d: int) -> float:
    """How likely an enemy token ``d`` squares behind lands there in its next turn: one value
    1-6 (a 6 is always followed by another value, which another token may play), or a sum
    6+x, 6+6+x (seldom)."""
    if 1 <= d <= 6:
        return 1.0 / 6 * (2 if d < 6 else 1)
    if 7 <= d <= 11:
        return 1.0 / 36 * 2
    if 13 <= d <= 17:
        return 1.0 / 216 * 2
    return 0.0


def danger(state: Any, tokens: tuple[tuple[int, ...], ...], ci: int, square: int,
           occ: dict[int, list[int]]) -> float:
    """Chance-like weight that a lone token of ``ci``'s side on ``square`` is captured by an
    enemy's next turn (0 on a star, in a lane, in a block of its side)."""
    if not 0 <= square < TRACK or square in STARS:
        return 0.0
    mine = side_of(state, ci)
    here = occ.get(square)
    if here is not None and sum(here[c] for c in mine) >= 2:
        return 0.0
    total = 0.0
    for e in enemies_of(state, ci):
        entrance = ENTRANCE_SQUARES[e]
        for p in tokens[e]:
            if p == YARD:
                d = (square - START_SQUARES[e]) % TRACK
                if 1 <= d <= 5:
                    total += 1.0 / 36  # a 6 to enter, then the value
                continue
            if p >= LANE:
                continue
            d = (square - p) % TRACK
            if d == 0 or d > 17 or (entrance - p) % TRACK < d:
                continue
            w = reach_weight(d)
            if not w:
                continue
            # a block of our side between stops it
            for k in range(1, d):
                c = occ.get((p + k) % TRACK)
                if c is not None and sum(c[x] for x in mine) >= 2:
                    w = 0.0
                    break
            total += w
    return total


def turn_ended(before: Any, after: Any) -> bool:
    return after.phase != "move" or after.turn != before.turn


def rolled_back(before: Any, after: Any) -> bool:
    """The play left the turn stuck: the tokens went back to the turn's start (a completed
    turn always moved something, so it never ends on the start)."""
    return (after.phase != "over" and turn_ended(before, after)
            and after.tokens == before.start)


def options(state: Any) -> list[tuple[Action, Any]]:
    """Each distinct play with the position after it, plays that roll the turn back at once
    left out when some play does not."""
    out = [(a, advance(state, a)) for a in distinct_moves(state)]
    keep = [(a, s) for a, s in out if not rolled_back(state, s)]
    return keep or out


def moved_pieces(action: Action) -> tuple[int, ...]:
    if action.tokens is not None:
        return tuple(action.tokens)
    return (action.token,) if action.token is not None else ()


def enemy_loss(state: Any, after: Any, ci: int) -> int:
    """Progress the enemies lost in the play (captures, strikes)."""
    lost = 0
    for e in enemies_of(state, ci):
        for b, a in zip(state.tokens[e], after.tokens[e], strict=True):
            if a == YARD and b != YARD:
                lost += progress(e, b) + 10
    return lost


# ---------------------------------------------------------------- rule-based players

def facts(state: Any, a: Action, s: Any) -> tuple[bool, tuple[int, ...], bool, int]:
    """What the rule-based players weigh in a play ``a`` that leads to ``s``: a win, the pieces
    moved, whether it brings a token in (or forces the gate), and the progress of the moved
    piece furthest along."""
    won = s.phase == "over" and state.turn in s.winners
    pieces = moved_pieces(a)
    entered = a.type == "force" or any(state.tokens[p >> 2][p & 3] == YARD for p in pieces)
    lead = max(progress(p >> 2, state.tokens[p >> 2][p & 3]) for p in pieces)
    return won, pieces, entered, lead


def aggressive(state: Any, rng: random.Random) -> Action:
    ci = COLOURS.index(state.turn)
    def key(item: tuple[Action, Any]) -> tuple:
        a, s = item
        won, _, entered, lead = facts(state, a, s)
        loss = enemy_loss(state, s, ci)
        return (won, loss > 0, loss, entered, lead, rng.random())
    return max(options(state), key=key)[0]


def fast(state: Any, rng: random.Random) -> Action:
    def key(item: tuple[Action, Any]) -> tuple:
        a, s = item
        won, pieces, entered, lead = facts(state, a, s)
        home = any(s.tokens[p >> 2][p & 3] == HOME for p in pieces)
        return (won, home, not entered, lead, rng.random())
    return max(options(state), key=key)[0]


def exposure(state: Any, tokens: tuple[tuple[int, ...], ...], ci: int) -> float:
    occ = counts_by_square(tokens)
    total = 0.0
    for c in side_of(state, ci):
        for p in tokens[c]:
            if 0 <= p < TRACK:
                total += danger(state, tokens, ci, p, occ) * (progress(c, p) + 10)
    return total


def defensive(state: Any, rng: random.Random) -> Action:
    ci = COLOURS.index(state.turn)
    def key(item: tuple[Action, Any]) -> tuple:
        a, s = item
        won = s.phase == "over" and state.turn in s.winners
        pieces = moved_pieces(a)
        ends = [s.tokens[p >> 2][p & 3] for p in pieces]
        covered = all(e >= LANE or e in STARS or e == YARD for e in ends)
        lead = max(progress(p >> 2, state.tokens[p >> 2][p & 3]) for p in pieces)
        return (won, -round(exposure(state, s.tokens, ci), 3), covered, lead, rng.random())
    return max(options(state), key=key)[0]


# ---------------------------------------------------------------- the expert

WEIGHTS = {
    "progress": 1.0,     # per step of each token of our side
    "out": 15.0,         # a token out of the yard
    "lane": 6.0,         # in the home lane (out of reach for good)
    "home": 10.0,        # home
    "star": 4.0,         # standing on a star (safe)
    "block": 5.0,        # per token in a block of our side off the stars (safe, and it blocks)
    "danger": 8.0,       # a lone token's risk: danger x (this + 0.6 x its progress)
    "danger_steps": 0.6,
    "enemy": 0.6,        # per step (and out-of-yard bonus) of each enemy token
    "held": 2.0,         # per enemy token 1-6 behind a block of ours
    "gate": 5.0,         # per yard token while an enemy block closes our entry star
    "win": 10_000.0,
}


def evaluate(state: Any, tokens: tuple[tuple[int, ...], ...], ci: int) -> float:
    """The position as seen by ``ci``'s side (state gives teams and who is seated)."""
    w = WEIGHTS
    occ = counts_by_square(tokens)
    mine = side_of(state, ci)
    score = 0.0
    blocks = []
    for c in mine:
        start = START_SQUARES[c]
        yard = 0
        for p in tokens[c]:
            if p == YARD:
                yard += 1
                continue
            steps = progress(c, p)
            score += w["progress"] * steps + w["out"]
            if p == HOME:
                score += w["home"] + w["lane"]
            elif p >= LANE:
                score += w["lane"]
            elif p in STARS:
                score += w["star"]
            else:
                here = occ[p]
                if sum(here[x] for x in mine) >= 2:
                    score += w["block"]
                    blocks.append(p)
                else:
                    risk = danger(state, tokens, ci, p, occ)
                    score -= risk * (w["danger"] + w["danger_steps"] * steps)
        if yard:
            here = occ.get(start)
            if here is not None and not any(here[x] for x in mine) and any(
                    here[e] >= 2 for e in range(4) if e not in mine):
                score -= w["gate"] * yard
    for e in enemies_of(state, ci):
        for p in tokens[e]:
            if p != YARD:
                score -= w["enemy"] * (progress(e, p) + w["out"])
                if 0 <= p < TRACK:
                    for b in blocks:
                        if 1 <= (b - p) % TRACK <= 6:
                            score += w["held"]
                            break
    return score


def _best_finish(state: Any, ci: int, depth: int) -> float:
    """The best score reachable by playing the rest of the turn from ``state`` (its seat to
    act), every order tried."""
    best = None
    for a in distinct_moves(state):
        s = advance(state, a)
        if s.phase == "over":
            v = WEIGHTS["win"] if state.turn in s.winners else -WEIGHTS["win"]
        elif turn_ended(state, s) or depth <= 1:
            v = evaluate(s, s.tokens, ci)
        else:
            v = _best_finish(s, ci, depth - 1)
        if best is None or v > best:
            best = v
    return best if best is not None else evaluate(state, state.tokens, ci)


def expert(state: Any, rng: random.Random) -> Action:
    ci = COLOURS.index(state.turn)
    depth = len(state.unplayed)
    best, best_v = None, None
    for a in distinct_moves(state):
        s = advance(state, a)
        if s.phase == "over":
            v = WEIGHTS["win"] if state.turn in s.winners else -WEIGHTS["win"]
        elif turn_ended(state, s):
            v = evaluate(s, s.tokens, ci)
        else:
            v = _best_finish(s, ci, depth - 1)
        v += rng.random() * 1e-6
        if best_v is None or v > best_v:
            best, best_v = a, v
    assert best is not None
    return best


PLAYERS: dict[str, Callable[[Any, random.Random], Action]] = {
    "aggressive": aggressive,
    "defensive": defensive,
    "fast": fast,
    "expert": expert,
}
