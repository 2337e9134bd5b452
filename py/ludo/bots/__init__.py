"""Computer players: Easy, Medium and Hard, for every rule set of the engine.

    from ludo.bots import choose_action, think
    action = choose_action(state, "hard", seed=7)      # blocking

    gen = think(state, "hard", seed=7)                  # incremental
    try:
        while True:
            next(gen)           # one slice (a few ms); yields None
            ...                 # give the event loop a turn
    except StopIteration as done:
        action = done.value     # the chosen Action

See docs/bots.md for how each level plays and how strong it is.
"""

from __future__ import annotations

import time
from collections.abc import Generator
from typing import Any

from ..actions import Action
from ..engine import distinct_moves, rules_for
from ..errors import IllegalAction
from ..notation import parse_position, position_from_json
from .players import LEVELS, ROLL, Thinking

LEVEL_NAMES: tuple[str, ...] = tuple(LEVELS)
"""The levels, weakest first: "easy", "medium", "hard"."""


def think(state: Any, level: str, seed: int = 0) -> Thinking:
    """The bot's decision as a generator.

    It yields ``None`` between slices of work (each a few milliseconds in
    CPython) and *returns* the chosen :class:`~ludo.actions.Action`, which
    therefore arrives as ``StopIteration.value``; it never yields an action.
    Trivial decisions (the roll phase, a single distinct move) return before
    the first yield.  The result depends only on ``state``, ``level`` and
    ``seed``, never on how the slices were scheduled.
    """
    if level not in LEVELS:
        raise ValueError(f"unknown bot level {level!r}; choose {', '.join(LEVELS)}")
    if state.phase == "over":
        raise IllegalAction("the game is over; there is nothing to choose")
    return _think(state, level, seed)


def _think(state: Any, level: str, seed: int) -> Thinking:
    if state.phase == "roll":
        return ROLL
    moves = distinct_moves(state)
    if not moves:  # cannot happen for a well-formed position
        raise IllegalAction(f"{state.turn} has no legal move")
    if len(moves) == 1:
        return moves[0]
    if level != "easy" and rules_for(state).bot is None:
        level = "easy"  # a rule set without an evaluator yet: play legal moves
    return (yield from LEVELS[level](state, seed))


def choose_action(state: Any, level: str, seed: int = 0) -> Action:
    """The bot's action for ``state`` at ``level`` ("easy", "medium", "hard").

    ``Action("roll")`` in the roll phase; otherwise a legal move.  The same
    state, level and seed always give the same action.
    """
    gen = think(state, level, seed)
    while True:
        try:
            next(gen)
        except StopIteration as done:
            return done.value


def step(gen: Generator[None, None, Action], budget_seconds: float = 0.03) -> Action | None:
    """Run ``gen`` (from :func:`think`) for about ``budget_seconds``.

    Returns the chosen action once the generator finishes, else ``None``
    (call again after giving the event loop a turn).  A convenience for the
    browser: the time spent is the budget plus at most one slice.
    """
    deadline = time.perf_counter() + budget_seconds
    while True:
        try:
            next(gen)
        except StopIteration as done:
            return done.value
        if time.perf_counter() >= deadline:
            return None


def choose_action_json(position: str | dict[str, Any], level: str, seed: int = 0) -> dict[str, Any]:
    """:func:`choose_action` for a position in notation (JSON text or object).

    Returns the action's JSON form, e.g. ``{"type": "move", "token": 2}``. Text is read as
    :func:`ludo.parse_position` reads it; what cannot be read raises NotationError.
    """
    # text is untrusted: parse_position reads it with the notation's one reader
    state = parse_position(position) if isinstance(position, str) \
        else position_from_json(position)
    return choose_action(state, level, seed).to_json()


__all__ = ["LEVEL_NAMES", "choose_action", "choose_action_json", "step", "think"]
