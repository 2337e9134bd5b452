"""Helpers for the Gilgiti tests (imported as a plain module, like enginekit).

Positions are built THROUGH THE NOTATION: :func:`gpos` writes a Gilgiti JSON
position with sensible defaults and :func:`gload` parses it with the engine's
own reader, so every scenario also exercises the position checks.

Piece numbers in Gilgiti actions are ``4 x colour index + token``: red 0-3,
green 4-7, yellow 8-11, blue 12-15 (:func:`piece`).
"""

from __future__ import annotations

import json
from typing import Any

from ludo import Action, apply, legal_actions, parse_position, position_to_json

COLOURS = ("red", "green", "yellow", "blue")
START = {"red": 0, "green": 13, "yellow": 26, "blue": 39}
OTHER_STARS = (8, 21, 34, 47)
STARS = frozenset(START.values()) | frozenset(OTHER_STARS)
RNG = "0123456789abcdef"


def piece(colour: str, token: int) -> int:
    """The piece number of ``colour``'s token ``token`` (0-based)."""
    return 4 * COLOURS.index(colour) + token


def mv(colour: str, token: int, value: int) -> Action:
    """Move one token by ``value``."""
    return Action("move", token=piece(colour, token), value=value)


def strike(pieces: list[tuple[str, int]], value: int) -> Action:
    """Move a stack as one unit (listed in any order; the action lists them sorted)."""
    return Action("move", value=value, tokens=tuple(sorted(piece(c, t) for c, t in pieces)))


def force(colour: str, a: int, b: int) -> Action:
    return Action("force", tokens=(piece(colour, a), piece(colour, b)))


def roll(value: int) -> Action:
    return Action("roll", value=value)


def gpos(seats: tuple[str, ...] | list[str] = COLOURS, teams: bool = False, turn: str = "red",
         phase: str = "roll", rolled: list[int] | tuple[int, ...] = (),
         unplayed: list[int] | None = None, tokens: dict[str, list[Any]] | None = None,
         turn_start: dict[str, list[Any]] | None = None, resting: list[str] | tuple = (),
         timeouts: dict[str, int] | None = None, quit: str | None = None,
         winners: list[str] | tuple = (), rng: str = RNG) -> dict[str, Any]:
    """A Gilgiti position as a JSON dict; unspecified fields get defaults.

    Tokens not given stay in the yard. In the move phase ``unplayed``
    defaults to every value rolled and ``turn_start`` to the tokens (nothing
    played yet).
    """
    seats = [c for c in COLOURS if c in seats]
    tokens = {c: list(v) for c, v in (tokens or {}).items()}
    for c in seats:
        tokens.setdefault(c, ["yard"] * 4)
    timeouts = dict(timeouts or {})
    for c in seats:
        timeouts.setdefault(c, 0)
    if phase == "move":
        if unplayed is None:
            unplayed = sorted(rolled)
        if turn_start is None:
            turn_start = tokens
        else:
            turn_start = {c: list(v) for c, v in turn_start.items()}
            for c in seats:
                turn_start.setdefault(c, ["yard"] * 4)
    return {
        "format": "courtyard-ludo/position", "version": 1, "rules": "gilgiti",
        "seats": seats, "teams": teams, "turn": turn, "phase": phase,
        "rolled": list(rolled), "unplayed": list(unplayed or []), "tokens": tokens,
        "turn_start": turn_start, "resting": list(resting), "timeouts": timeouts,
        "quit": quit, "winners": list(winners), "rng": rng,
    }


def gload(**kwargs: Any) -> Any:
    """Parse :func:`gpos` through the engine's notation reader (JSON text)."""
    return parse_position(json.dumps(gpos(**kwargs)))


def js(state: Any) -> dict[str, Any]:
    return position_to_json(state)


def toks(state: Any, colour: str) -> list[Any]:
    """A colour's tokens in notation form ("yard", 0..51, "red-lane-2", "home")."""
    return js(state)["tokens"][colour]


def play(state: Any, *actions: Action) -> tuple[Any, list[dict[str, Any]]]:
    """Apply several actions; returns the final state and all their events."""
    events: list[dict[str, Any]] = []
    for action in actions:
        state, evs = apply(state, action)
        events += evs
    return state, events


def kinds(events: list[dict[str, Any]]) -> list[str]:
    return [e["type"] for e in events]


def of(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == kind]


def singles(state: Any) -> set[tuple[str, int, int]]:
    """(colour, token, value) of every legal single-token move."""
    return {(COLOURS[a.token >> 2], a.token & 3, a.value) for a in legal_actions(state)
            if a.type == "move" and a.token is not None}


def strikes(state: Any) -> set[tuple[tuple[int, ...], int]]:
    return {(a.tokens, a.value) for a in legal_actions(state)
            if a.type == "move" and a.tokens is not None}


def forces(state: Any) -> list[Action]:
    return [a for a in legal_actions(state) if a.type == "force"]
