"""The engine's entry points: every caller goes through these functions.

They dispatch on the ``rules`` name each position carries, so the
controller, bots, CLI and network code never branch on the rule set.
"""

from __future__ import annotations

from typing import Any

from .actions import Action
from .errors import IllegalAction, NotationError
from .rules.base import Event, RuleSet
from .rules.courtyard import CLASSIC, COURTYARD

RULESETS: dict[str, RuleSet] = {r.name: r for r in (COURTYARD, CLASSIC)}
"""Rule sets by name, in the order the app offers them."""


def rules_for(name_or_state: Any) -> RuleSet:
    """The rule set named by a string, or the one a position belongs to."""
    # anything that is neither a name nor a position (None, 5, a list from bad
    # JSON) falls through to the lookup below and gets a NotationError
    name = (name_or_state if isinstance(name_or_state, str)
            else getattr(name_or_state, "rules", name_or_state))
    try:
        return RULESETS[name]
    except (KeyError, TypeError):
        raise NotationError("rules", f"unknown rule set {name!r}; "
                            f"choose {', '.join(RULESETS)}") from None


def new_game(rules: str, seats: tuple[str, ...] | list[str], seed: int) -> Any:
    """A new game of ``rules`` for ``seats``; the seed decides who starts and every die."""
    return rules_for(rules).new_game(tuple(seats), seed)


def legal_actions(state: Any) -> list[Action]:
    """What the player to act may do (a roll, or their legal moves)."""
    return rules_for(state).legal_actions(state)


def apply(state: Any, action: Action) -> tuple[Any, list[Event]]:
    """The next position and its events; IllegalAction leaves ``state`` untouched."""
    if not isinstance(action, Action):
        raise IllegalAction(f"not an action: {action!r}")
    return rules_for(state).apply(state, action)


def advance(state: Any, action: Action) -> Any:
    """:func:`apply` without the events: the next position, for simulation and bot search."""
    if not isinstance(action, Action):
        raise IllegalAction(f"not an action: {action!r}")
    return rules_for(state).advance(state, action)


def resolve(state: Any, action: Action) -> Action:
    """``action`` with the die value the position's RNG would give filled in."""
    return rules_for(state).resolve(state, action)


def distinct_moves(state: Any) -> list[Action]:
    """One move per distinct outcome of the current roll."""
    return rules_for(state).distinct_moves(state)


def auto_action(state: Any) -> Action | None:
    """The move the controller plays by itself: the only distinct legal move."""
    return rules_for(state).auto_action(state)


def next_player(state: Any) -> str | None:
    """Who rolls once this turn and all its extra rolls are over (None when over)."""
    return rules_for(state).next_player(state)


def active_seats(state: Any) -> tuple[str, ...]:
    """Seats still in the match."""
    return rules_for(state).active_seats(state)


def is_over(state: Any) -> bool:
    """True once the game has a winner."""
    return state.phase == "over"


SEATS_BY_PLAYERS: dict[int, tuple[str, ...]] = {
    2: ("red", "yellow"),  # opposite corners: the fairest 2-player board
    3: ("red", "green", "yellow"),
    4: ("red", "green", "yellow", "blue"),
}
"""Colours that sit when the players don't choose: docs/rules/courtyard.md."""


def default_seats(players: int) -> tuple[str, ...]:
    """The default colours for 2, 3 or 4 players."""
    try:
        return SEATS_BY_PLAYERS[players]
    except KeyError:
        raise NotationError("players", "Ludo is for 2 to 4 players") from None
