"""The three computer players and their incremental (sliced) form.

Every level is a generator function ``think_<level>(state, seed)`` that may
yield ``None`` between slices of work and *returns* the chosen action (so the
action arrives as ``StopIteration.value``).  :func:`ludo.bots.think` picks the
level; :func:`ludo.bots.choose_action` drains the generator.

The search uses only the engine's public functions (``distinct_moves``,
``apply``, ``advance``, ``chance_outcomes``, ``winners``), so it works for any
rule set and any die; the position evaluation comes from the rule set itself
(``RuleSet.bot``, a :class:`ludo.rules.base.BotFeatures`).

A rule set's features may also offer ``candidates(state) -> list[Action]``: the
moves Medium and Hard consider at a decision, instead of every distinct move
(Gilgiti leaves out plays that would strand a value when some order of the
turn's values plays them all). Without it they consider every distinct move.
"""

from __future__ import annotations

import random
import time
from collections.abc import Generator
from typing import Any

from ..actions import Action
from ..engine import advance, apply, chance_outcomes, distinct_moves, rules_for, winners
from ..rules.base import BotFeatures

Thinking = Generator[None, None, Action]

ROLL = Action("roll")
WIN = 10_000.0
"""Value of a won game (and minus this for a lost one), as the rule sets' evaluations use it."""

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


def _over_value(state: Any, me: str) -> float:
    return WIN if me in winners(state) else -WIN


def sends_back(event: dict[str, Any]) -> bool:
    """Whether an event sends enemy pieces back, whatever the rule set calls it.

    Every rule set's event that sends pieces back names them in ``victims``
    (docs/notation.md): Courtyard's, Classic's and Royal's ``captured``, and
    Gilgiti's ``captured`` and stack ``struck`` alike.
    """
    return event["type"] == "captured" or bool(event.get("victims"))


def _events_reward(events: list[dict[str, Any]]) -> tuple[bool, bool]:
    captured = any(sends_back(e) for e in events)
    home = any(e["type"] in ("reached_home", "won") for e in events)
    return captured, home


def _candidates(bot: BotFeatures, state: Any) -> list[Action]:
    """The moves Medium and Hard weigh: the rule set's shortlist, or every distinct move."""
    shortlist = getattr(bot, "candidates", None)
    return distinct_moves(state) if shortlist is None else shortlist(state)


# -- Easy ------------------------------------------------------------------


def think_easy(state: Any, seed: int) -> Thinking:
    """Random, but takes a win, then a capture (any event that sends enemy pieces back,
    such as Gilgiti's stack strike) or a token home, when offered."""
    moves = distinct_moves(state)
    won, good = [], []
    for m in moves:
        after, events = apply(state, m)
        if after.phase == "over" and state.turn in winners(after):
            won.append(m)
        elif any(_events_reward(events)):
            good.append(m)
    return _pick(won or good or moves, state, seed)
    yield  # pragma: no cover - makes this a generator


# -- Medium ----------------------------------------------------------------


def think_medium(state: Any, seed: int) -> Thinking:
    """Greedy on the features of each move (the rule set's ``move_score``)."""
    bot = _features(state)
    moves = _candidates(bot, state)
    scored = []
    context = bot.move_context(state)
    for m in moves:
        after, events = apply(state, m)
        scored.append((bot.move_score(state, m, after, events, context), m))
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


def _reply_value(after: Any, me: str, bot: BotFeatures,
                 clock: _Clock) -> Generator[None, None, float]:
    """Expected value for ``me`` once the next opponent has played one chance outcome.

    The opponent plays each outcome with the Medium policy (greedy on the rule
    set's ``move_score``); extra rolls it earns are not followed, except that a
    rule set whose features set ``reply_rolls`` to 2 (Gilgiti, where a 6 rolls
    again before anything is played) has the opponent's second roll averaged
    too and the turn's values played to its end. ``reply_seats`` (default 1; an
    experiment's knob that no rule set turns on, docs/bots.md) lets that many seats in
    turn play so before the evaluation.
    """
    rolls = getattr(bot, "reply_rolls", 1)
    seats = getattr(bot, "reply_seats", 1)
    return (yield from _reply_roll(after, after.turn, me, bot, clock, rolls, rolls > 1,
                                   seats))


def _reply_roll(after: Any, them: str, me: str, bot: BotFeatures, clock: _Clock,
                rolls: int, whole_turn: bool,
                seats: int = 1) -> Generator[None, None, float]:
    total = 0.0
    for roll, chance in chance_outcomes(after):
        rolled = advance(after, roll)
        if rolled.phase == "over":
            total += chance * _over_value(rolled, me)
            continue
        if rolled.phase == "roll" and rolled.turn == them and rolls > 1:
            total += chance * (yield from _reply_roll(rolled, them, me, bot, clock, rolls - 1,
                                                   whole_turn, seats))
            continue
        if rolled.phase == "roll" or rolled.turn != them:
            if seats > 1 and rolled.turn not in (them, me):
                full = getattr(bot, "reply_rolls", 1)
                total += chance * (yield from _reply_roll(rolled, rolled.turn, me, bot, clock,
                                                          full, whole_turn, seats - 1))
            else:
                total += chance * bot.evaluate(rolled, me)
            continue
        chosen = _greedy_play(rolled, bot)
        if whole_turn:
            # the turn's other values (Gilgiti): played greedily to the turn's end, while the
            # same seat has a decision (any phase but the generic "roll" and "over")
            while chosen.phase not in ("roll", "over") and chosen.turn == them:
                chosen = _greedy_play(chosen, bot)
        if chosen.phase == "over":
            total += chance * _over_value(chosen, me)
        elif seats > 1 and chosen.turn != me:
            # the seat after it plays its turn too (Medium's policy), before the evaluation
            full = getattr(bot, "reply_rolls", 1)
            total += chance * (yield from _reply_roll(chosen, chosen.turn, me, bot, clock,
                                                      full, whole_turn, seats - 1))
        else:
            total += chance * bot.evaluate(chosen, me)
        if clock.due():
            yield
            clock.restart()
    return total


def _greedy_play(rolled: Any, bot: BotFeatures) -> Any:
    """The position after Medium's play at ``rolled`` (a decision)."""
    moves = _candidates(bot, rolled)
    if len(moves) == 1:
        return advance(rolled, moves[0])
    best_v = -float("inf")
    chosen = None
    context = bot.move_context(rolled)
    for m in moves:
        nxt, events = apply(rolled, m)
        v = bot.move_score(rolled, m, nxt, events, context)
        if v > best_v:
            best_v, chosen = v, nxt
    return chosen


def _after_move(after: Any, me: str, bot: BotFeatures, depth: int, reply: bool,
                clock: _Clock) -> Generator[None, None, float]:
    """Value for ``me`` of the position right after one of its moves."""
    if after.phase == "over":
        return _over_value(after, me)
    if after.turn != me:
        if reply:
            return (yield from _reply_value(after, me, bot, clock))
        return bot.evaluate(after, me)
    # the same player acts again: an extra roll (or a move still to make)
    if after.phase == "roll":
        if depth >= HARD_EXTRA_ROLL_DEPTH:
            return bot.evaluate(after, me) + bot.extra_roll
        total = 0.0
        for roll, chance in chance_outcomes(after):
            rolled = advance(after, roll)
            total += chance * (yield from _decision_value(rolled, me, bot, depth + 1, clock))
            if clock.due():
                yield
                clock.restart()
        return total
    return (yield from _decision_value(after, me, bot, depth, clock))


def _decision_value(state: Any, me: str, bot: BotFeatures, depth: int,
                    clock: _Clock) -> Generator[None, None, float]:
    """Value for ``me`` of a position after a roll inside its own turn."""
    if state.phase == "over":
        return _over_value(state, me)
    if state.turn != me:
        return bot.evaluate(state, me)
    if state.phase == "roll":  # a six with no move: roll again
        return (yield from _after_move(state, me, bot, depth, False, clock))
    best = -float("inf")
    for m in _candidates(bot, state):
        v = yield from _after_move(advance(state, m), me, bot, depth, False, clock)
        if v > best:
            best = v
        if clock.due():
            yield
            clock.restart()
    return best


def think_hard(state: Any, seed: int) -> Thinking:
    """Expectimax over the rest of the turn (extra rolls included), then one
    opponent reply per die value, with the Hard evaluation at the leaves."""
    bot = _features(state)
    moves = _candidates(bot, state)
    if len(moves) == 1:
        return moves[0]
    me = state.turn
    clock = _Clock()
    scored = []
    for m in moves:
        v = yield from _after_move(advance(state, m), me, bot, 0, HARD_REPLY, clock)
        scored.append((v, m))
    top = max(v for v, _ in scored)
    return _pick([m for v, m in scored if v >= top - 1e-9], state, seed)


def _features(state: Any) -> BotFeatures:
    bot = rules_for(state).bot
    if bot is None:  # think() plays such rule sets at Easy; never reached
        raise ValueError(f"{state.rules} has no evaluation for the computer players")
    return bot


LEVELS = {"easy": think_easy, "medium": think_medium, "hard": think_hard}
