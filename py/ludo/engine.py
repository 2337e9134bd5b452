"""The engine's entry points: every caller goes through these functions.

They dispatch on the ``rules`` name each position carries, so the table,
the view, bots, the CLI and network code never branch on the rule set and
never read a rule set's position fields.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .actions import Action
from .errors import IllegalAction, NotationError, quote
from .rules.base import Board, Choice, Event, Names, Position, RuleSet, Scene
from .rules.courtyard import CLASSIC, COURTYARD, SEATS_BY_PLAYERS
from .rules.gilgiti import GILGITI
from .rules.royal import ROYAL

RULESETS: dict[str, RuleSet[Any]] = {r.name: r for r in (COURTYARD, CLASSIC, ROYAL, GILGITI)}
"""Rule sets by name, in the order the app offers them. A new rule set registers here."""


def rules_for(name_or_state: str | Position | Any) -> RuleSet[Any]:
    """The rule set named by a string, or the one a position belongs to."""
    # anything that is neither a name nor a position (None, 5, a list from bad
    # JSON) falls through to the lookup below and gets a NotationError
    name: Any = (name_or_state if isinstance(name_or_state, str)
                 else getattr(name_or_state, "rules", name_or_state))
    try:
        return RULESETS[name]
    except (KeyError, TypeError):
        raise NotationError("rules", f"unknown rule set {quote(name)}; "
                            f"choose {', '.join(RULESETS)}") from None


def new_game(rules: str, seats: tuple[str, ...] | list[str], seed: int,
             options: Mapping[str, Any] | None = None) -> Any:
    """A new game of ``rules`` for ``seats``; the seed decides who starts and every die."""
    return rules_for(rules).new_game(tuple(seats), seed, options)


def legal_actions(state: Position) -> list[Action]:
    """What the seat to act may do (a roll, or their legal decisions)."""
    return rules_for(state).legal_actions(state)


def apply(state: Position, action: Action) -> tuple[Any, list[Event]]:
    """The next position and its events; IllegalAction leaves ``state`` untouched."""
    if not isinstance(action, Action):
        raise IllegalAction(f"not an action: {quote(action)}")
    return rules_for(state).apply(state, action)


def advance(state: Position, action: Action) -> Any:
    """:func:`apply` without the events: the next position, for simulation and bot search."""
    if not isinstance(action, Action):
        raise IllegalAction(f"not an action: {quote(action)}")
    return rules_for(state).advance(state, action)


def resolve(state: Position, action: Action) -> Action:
    """``action`` with the chance value the position's RNG would give filled in."""
    return rules_for(state).resolve(state, action)


def chance_outcomes(state: Position) -> list[tuple[Action, float]]:
    """At a chance node, each resolved chance action with its probability; else []."""
    return rules_for(state).chance_outcomes(state)


def distinct_moves(state: Position) -> list[Action]:
    """One decision per distinct outcome."""
    return rules_for(state).distinct_moves(state)


def auto_action(state: Position) -> Action | None:
    """The decision the table plays by itself: the only distinct legal one."""
    return rules_for(state).auto_action(state)


def next_player(state: Position) -> str | None:
    """Who acts once this turn and all its extra rolls are over (None when over)."""
    return rules_for(state).next_player(state)


def active_seats(state: Position) -> tuple[str, ...]:
    """Seats still in the match."""
    return rules_for(state).active_seats(state)


def winners(state: Position) -> tuple[str, ...]:
    """The winning seats once the game is over (a team is several); empty before."""
    return rules_for(state).winners(state)


def is_over(state: Position) -> bool:
    """True once the game has ended."""
    return state.phase == "over"


def is_chance(state: Position) -> bool:
    """True at a chance node: the next action is a roll."""
    return state.phase == "roll"


def to_act(state: Position) -> str | None:
    """The seat whose turn it is (None once the game is over)."""
    return None if state.phase == "over" else state.turn


def seats_of(state: Position) -> tuple[str, ...]:
    """Every seat of the game, clockwise, including seats that have left."""
    return state.seats


def scene(state: Position) -> Scene:
    """What a screen shows of ``state``."""
    return rules_for(state).scene(state)


def choices(state: Position) -> list[Choice]:
    """Every legal decision of the seat to act, as something a person can click."""
    return rules_for(state).choices(state)


def board(rules: str) -> Board:
    """The empty board of a rule set, shown before a game."""
    return rules_for(rules).board(None)


def describe(state_or_rules: Position | str, event: Event, names: Names) -> str | None:
    """The rule set's sentence for one of its events."""
    return rules_for(state_or_rules).describe(event, names)


def default_seats(players: int) -> tuple[str, ...]:
    """The default colours for 2, 3 or 4 players."""
    try:
        return SEATS_BY_PLAYERS[players]
    except KeyError:
        raise NotationError("players", "Ludo is for 2 to 4 players") from None
