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


# --- a naive reference of the movement rules (from the seed, independent of the engine) ---

ENTRY_SQUARE = START
TEAM = {"red": 0, "yellow": 0, "green": 1, "blue": 1}


def side_of(data: dict[str, Any], colour: str) -> str | int:
    """Who ``colour`` plays for: its team in a team game, else itself."""
    return TEAM[colour] if data["teams"] else colour


def ref_mover(data: dict[str, Any]) -> str:
    """The colour the seat to act moves: its own, or its partner's once all its own
    tokens were home when the turn began (team games)."""
    turn = data["turn"]
    start = data["turn_start"] or data["tokens"]
    if data["teams"] and all(p == "home" for p in start[turn]):
        return {"red": "yellow", "yellow": "red", "green": "blue", "blue": "green"}[turn]
    return turn


def ref_path(colour: str, place: Any, value: int) -> tuple[Any, list[int]] | None:
    """(destination, track squares passed before it) of one token; None if it cannot move."""
    if place == "yard":
        return (ENTRY_SQUARE[colour], []) if value == 6 else None
    if place == "home":
        return None
    if isinstance(place, str):  # "<colour>-lane-<k>"
        k = int(place.rsplit("-", 1)[1]) + value
        if k > 6:
            return None
        return ("home" if k == 6 else f"{colour}-lane-{k}"), []
    travelled = (place - ENTRY_SQUARE[colour]) % 52  # 0 on the entry star, 50 on the entrance
    total = travelled + value
    if total <= 50:
        return (place + value) % 52, [(place + i) % 52 for i in range(1, value)]
    k = total - 50
    if k > 6:
        return None
    passed = [(place + i) % 52 for i in range(1, 50 - travelled + 1)]
    return ("home" if k == 6 else f"{colour}-lane-{k}"), passed


def ref_on(data: dict[str, Any], square: int) -> dict[str, int]:
    """Tokens per colour on a track square."""
    return {c: sum(1 for p in places if p == square)
            for c, places in data["tokens"].items() if square in places}


def ref_blocked(data: dict[str, Any], side: Any, square: int) -> bool:
    """Whether ``side`` may neither pass nor land on ``square``."""
    per_side: dict[Any, int] = {}
    for colour, n in ref_on(data, square).items():
        per_side[side_of(data, colour)] = per_side.get(side_of(data, colour), 0) + n
    if square in STARS and per_side.get(side, 0) > 0:
        return False  # your team on a star: the enemies there never block you
    return any(n >= 2 for s, n in per_side.items() if s != side)


def ref_singles(data: dict[str, Any]) -> set[tuple[str, int, int]]:
    colour = ref_mover(data)
    side = side_of(data, data["turn"])
    found = set()
    for value in set(data["unplayed"]):
        for token, place in enumerate(data["tokens"][colour]):
            walk = ref_path(colour, place, value)
            if walk is None:
                continue
            dest, passed = walk
            squares = passed + ([dest] if isinstance(dest, int) else [])
            if any(ref_blocked(data, side, sq) for sq in squares):
                continue
            found.add((colour, token, value))
    return found


def ref_strikes(data: dict[str, Any]) -> set[tuple[tuple[int, ...], int]]:
    mover = ref_mover(data)
    side = side_of(data, data["turn"])
    found = set()
    squares = {p for p in data["tokens"][mover] if isinstance(p, int)}
    for square in squares:
        mine = {c: n for c, n in ref_on(data, square).items() if side_of(data, c) == side}
        if sum(mine.values()) < 2:
            continue
        for value in set(data["unplayed"]):
            walks = [ref_path(c, square, value) for c in mine]
            if any(w is None for w in walks) or len({w[0] for w in walks}) != 1:
                continue
            dest, passed = walks[0]
            if not isinstance(dest, int) or dest in STARS:
                continue
            theirs = ref_on(data, dest)
            if sorted(theirs.values()) != sorted(mine.values()):
                continue
            if any(side_of(data, c) == side for c in theirs):
                continue
            if any(ref_blocked(data, side, sq) for sq in passed):
                continue
            pieces = tuple(sorted(piece(c, t) for c in mine
                                  for t, p in enumerate(data["tokens"][c]) if p == square))
            found.add((pieces, value))
    return found


def ref_can_force(data: dict[str, Any]) -> bool:
    mover = ref_mover(data)
    side = side_of(data, data["turn"])
    gate = ENTRY_SQUARE[mover]
    if data["unplayed"].count(6) < 2 or data["tokens"][mover].count("yard") < 2:
        return False
    if not ref_blocked(data, side, gate):
        return False
    enemy = {c: n for c, n in ref_on(data, gate).items() if side_of(data, c) != side}
    if data["teams"]:
        return sorted(enemy.values()) == [2]
    # "the block is exactly 2 tokens of one colour": one pair (a lone token of another colour
    # beside it blocks nobody); two pairs of two colours are not "the block" of 2
    return sorted(n for n in enemy.values() if n >= 2) == [2]
