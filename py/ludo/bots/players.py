"""The three computer players and their incremental (sliced) form.

Every level is a generator function ``think_<level>(state, seed)`` that may
yield ``None`` between slices of work and *returns* the chosen action (so the
action arrives as ``StopIteration.value``).  :func:`ludo.bots.think` picks the
level; :func:`ludo.bots.choose_action` drains the generator.

The search uses only the engine's public functions (``legal_actions``,
``distinct_moves``, ``apply``), so it works for any rule set; the position
evaluation comes from :mod:`ludo.bots.heuristic`, looked up by rule-set name.
"""

from __future__ import annotations

import random
import time
from collections.abc import Generator
from typing import Any

from ..actions import Action
from ..engine import advance, apply, distinct_moves
from .heuristic import WIN, Weights, evaluator_for, hard_weights, move_score, move_threats

Thinking = Generator[None, None, Action]

ROLL = Action("roll")
DIE_VALUES = (1, 2, 3, 4, 5, 6)
ROLLS = tuple(Action("roll", value=v) for v in DIE_VALUES)

SLICE_SECONDS = 0.004
"""Work done between two yields of the incremental form (CPython; Pyodide ~1.5x)."""

HARD_EXTRA_ROLL_DEPTH = 1
"""How many extra rolls of the current turn Hard looks through."""

HARD_REPLY = True
"""Whether Hard lets the next opponent answer each of its candidate moves."""


def _rng(state: Any, seed: int) -> random.Random:
    # Mixing in the position's RNG word makes the choice depend on the
    # position as well as the seed, yet stay reproducible across processes
    # (str hashes are salted per process, so hash(state) would not be).
    mask = 0xFFFFFFFFFFFFFFFF
    return random.Random((seed & mask) << 64 | (getattr(state, "rng", 0) & mask))


def _pick(best: list[Action], state: Any, seed: int) -> Action:
    return best[0] if len(best) == 1 else best[_rng(state, seed).randrange(len(best))]


def _events_reward(events: list[dict[str, Any]]) -> tuple[bool, bool]:
    captured = any(e["type"] == "captured" for e in events)
    home = any(e["type"] in ("reached_home", "won") for e in events)
    return captured, home


# -- Easy ------------------------------------------------------------------


def think_easy(state: Any, seed: int) -> Thinking:
    """Random, but takes a win, then a capture or a token home, when offered."""
    moves = distinct_moves(state)
    won, good = [], []
    for m in moves:
        after, events = apply(state, m)
        if after.phase == "over" and after.winner == state.turn:
            won.append(m)
        elif any(_events_reward(events)):
            good.append(m)
    return _pick(won or good or moves, state, seed)
    yield  # pragma: no cover - makes this a generator


# -- Medium ----------------------------------------------------------------


def think_medium(state: Any, seed: int) -> Thinking:
    """Greedy on the features of each move (see :func:`heuristic.move_score`)."""
    moves = distinct_moves(state)
    scored = []
    threats = move_threats(state)
    for m in moves:
        after, events = apply(state, m)
        scored.append((move_score(state, m.token, after, events, None, threats), m))
    top = max(v for v, _ in scored)
    return _pick([m for v, m in scored if v >= top - 1e-9], state, seed)
    yield  # pragma: no cover - makes this a generator


# -- Hard ------------------------------------------------------------------


class _Clock:
    """Decides when a slice is used up; never influences the result."""

    __slots__ = ("deadline",)

    def __init__(self) -> None:
        self.deadline = time.perf_counter() + SLICE_SECONDS

    def due(self) -> bool:
        if time.perf_counter() >= self.deadline:
            return True
        return False

    def restart(self) -> None:
        self.deadline = time.perf_counter() + SLICE_SECONDS


def _reply_value(after: Any, me: str, w: Weights, clock: _Clock) -> Generator[None, None, float]:
    """Expected value for ``me`` once the next opponent has played one roll.

    The opponent plays each die value with the Medium policy (greedy on
    :func:`heuristic.move_score`); extra rolls it earns are not followed.
    """
    evaluate = evaluator_for(after)
    them = after.turn
    total = 0.0
    for roll in ROLLS:
        rolled = advance(after, roll)
        if rolled.phase != "move" or rolled.turn != them:
            total += evaluate(rolled, me, w) if rolled.phase != "over" else (
                WIN if rolled.winner == me else -WIN)
            continue
        moves = distinct_moves(rolled)
        if len(moves) == 1:
            chosen = advance(rolled, moves[0])
        else:
            best_v = -float("inf")
            chosen = None
            threats = move_threats(rolled)
            for m in moves:
                nxt, events = apply(rolled, m)
                v = move_score(rolled, m.token, nxt, events, None, threats)
                if v > best_v:
                    best_v, chosen = v, nxt
        if chosen.phase == "over":
            total += WIN if chosen.winner == me else -WIN
        else:
            total += evaluate(chosen, me, w)
        if clock.due():
            yield
            clock.restart()
    return total / 6.0


def _after_move(after: Any, me: str, w: Weights, depth: int, reply: bool,
                clock: _Clock) -> Generator[None, None, float]:
    """Value for ``me`` of the position right after one of its moves."""
    if after.phase == "over":
        return WIN if after.winner == me else -WIN
    if after.turn != me:
        if reply:
            return (yield from _reply_value(after, me, w, clock))
        return evaluator_for(after)(after, me, w)
    # the same player acts again: an extra roll (or a move still to make)
    if after.phase == "roll":
        if depth >= HARD_EXTRA_ROLL_DEPTH:
            return evaluator_for(after)(after, me, w) + w.extra_roll
        total = 0.0
        for roll in ROLLS:
            rolled = advance(after, roll)
            total += yield from _decision_value(rolled, me, w, depth + 1, clock)
            if clock.due():
                yield
                clock.restart()
        return total / 6.0
    return (yield from _decision_value(after, me, w, depth, clock))


def _decision_value(state: Any, me: str, w: Weights, depth: int,
                    clock: _Clock) -> Generator[None, None, float]:
    """Value for ``me`` of a position after a roll inside its own turn."""
    if state.phase == "over":
        return WIN if state.winner == me else -WIN
    if state.turn != me:
        return evaluator_for(state)(state, me, w)
    if state.phase == "roll":  # a six with no move: roll again
        return (yield from _after_move(state, me, w, depth, False, clock))
    best = -float("inf")
    for m in distinct_moves(state):
        v = yield from _after_move(advance(state, m), me, w, depth, False, clock)
        if v > best:
            best = v
        if clock.due():
            yield
            clock.restart()
    return best


def think_hard(state: Any, seed: int) -> Thinking:
    """Expectimax over the rest of the turn (extra rolls included), then one
    opponent reply per die value, with the Hard evaluation at the leaves."""
    moves = distinct_moves(state)
    if len(moves) == 1:
        return moves[0]
    me = state.turn
    w = hard_weights(state)
    clock = _Clock()
    scored = []
    for m in moves:
        v = yield from _after_move(advance(state, m), me, w, 0, HARD_REPLY, clock)
        scored.append((v, m))
    top = max(v for v, _ in scored)
    return _pick([m for v, m in scored if v >= top - 1e-9], state, seed)


LEVELS = {"easy": think_easy, "medium": think_medium, "hard": think_hard}
