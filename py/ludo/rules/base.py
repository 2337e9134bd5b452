"""The small interface every rule set implements.

A rule set is a value (not a class hierarchy to subclass deeply): it creates
positions, lists legal actions, applies actions and converts positions to and
from their JSON notation.  The engine's top-level functions in
:mod:`ludo.engine` dispatch on the ``rules`` name stored in every position, so
callers (controller, bots, CLI, network code) never branch on the rule set.
"""

from __future__ import annotations

from typing import Any, Protocol

from ..actions import Action

Event = dict[str, Any]
"""An event is a plain JSON-ready dict with at least ``type`` and ``seat``."""


class Position(Protocol):
    """What every rule set's position type offers (they are NamedTuples)."""

    rules: str
    seats: tuple[str, ...]
    turn: str
    phase: str  # "roll" (a chance node), "move" (a decision), or "over"
    winner: str | None


class RuleSet(Protocol):
    """The interface between a rule set and everything else."""

    name: str
    title: str
    min_players: int
    max_players: int

    def new_game(self, seats: tuple[str, ...], seed: int) -> Any:
        """The starting position; the starting player is drawn from ``seed``."""

    def legal_actions(self, state: Any) -> list[Action]:
        """Decisions and chance actions open to the player to act.

        Table actions (``timeout`` for the player to act, ``quit`` for any
        active seat) are always allowed while the game runs and are not listed.
        """

    def apply(self, state: Any, action: Action) -> tuple[Any, list[Event]]:
        """The next position and the events the action caused.

        Raises :class:`ludo.errors.IllegalAction` (and changes nothing) when
        the action is not allowed.
        """

    def advance(self, state: Any, action: Action) -> Any:
        """The next position alone: :meth:`apply`'s checks and result, no events built."""

    def resolve(self, state: Any, action: Action) -> Action:
        """``action`` with any die value the RNG would supply filled in."""

    def distinct_moves(self, state: Any) -> list[Action]:
        """One representative of each distinct legal move (for auto-move)."""

    def auto_action(self, state: Any) -> Action | None:
        """The move the controller plays by itself (the only distinct move), or None."""

    def active_seats(self, state: Any) -> tuple[str, ...]:
        """Seats still in the match (not quit, not eliminated)."""

    def next_player(self, state: Any) -> str | None:
        """Who rolls once the current turn and all its extra rolls are over."""

    def to_json(self, state: Any) -> dict[str, Any]:
        """The position's JSON notation (see docs/notation.md)."""

    def from_json(self, data: dict[str, Any]) -> Any:
        """Parse and check a position; raises NotationError naming the field."""
