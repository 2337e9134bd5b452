"""Shared helpers for the engine tests (imported as a plain module; no __init__ files).

Positions are always built THROUGH THE NOTATION: :func:`pos` writes a JSON
position with sensible defaults and :func:`load` parses it with the engine's
own parser, so every scenario also exercises ``parse_position``.

The ``ref_*`` functions are a deliberately naive re-statement of the
Courtyard/Classic movement rules, written from the seed text and not from the
engine, so the property tests can cross-check the engine independently.
"""

from __future__ import annotations

import copy
import json
import os
from typing import Any

import pytest

from ludo import (
    Action,
    IllegalAction,
    apply,
    format_position,
    parse_position,
    position_to_json,
)

COLOURS = ("red", "green", "yellow", "blue")
START = {"red": 0, "green": 13, "yellow": 26, "blue": 39}
STAR = {"red": 8, "green": 21, "yellow": 34, "blue": 47}
ENTRANCE = {"red": 50, "green": 11, "yellow": 24, "blue": 37}
SAFE = frozenset(START.values()) | frozenset(STAR.values())
RNG = "0123456789abcdef"

FUZZ_SCALE = int(os.environ.get("LUDO_FUZZ_SCALE", "1"))
"""Multiply hypothesis example counts, for a deep run: LUDO_FUZZ_SCALE=50 pytest tests/engine."""


def examples(n: int) -> int:
    """``n`` hypothesis examples, times LUDO_FUZZ_SCALE."""
    return n * FUZZ_SCALE


def pos(rules: str = "courtyard", seats: tuple[str, ...] | list[str] = COLOURS,
        turn: str = "red", phase: str = "roll", die: int | None = None,
        sixes: int | None = None, tokens: dict[str, list[Any]] | None = None,
        unlocked: list[str] | None = None, timeouts: dict[str, int] | None = None,
        out: dict[str, str] | None = None, winner: str | None = None,
        rng: str = RNG) -> dict[str, Any]:
    """A position as a JSON dict; unspecified fields get defaults.

    Tokens not given stay in the yard; seats in ``out`` get no tokens;
    ``sixes`` defaults to 1 when the die shows 6; ``unlocked`` defaults to
    nobody in Courtyard and everybody in Classic; an eliminated seat gets 5
    timeouts.
    """
    seats = [c for c in COLOURS if c in seats]
    out = dict(out or {})
    tokens = dict(tokens or {})
    timeouts = dict(timeouts or {})
    if unlocked is None:
        unlocked = list(seats) if rules == "classic" else []
    for c in seats:
        tokens.setdefault(c, [] if c in out else ["yard"] * 4)
        timeouts.setdefault(c, 5 if out.get(c) == "eliminated" else 0)
    if sixes is None:
        sixes = 1 if die == 6 else 0
    return {
        "format": "courtyard-ludo/position", "version": 2, "rules": rules,
        "seats": seats, "turn": turn, "phase": phase, "die": die, "sixes": sixes,
        "tokens": tokens, "unlocked": unlocked, "timeouts": timeouts, "out": out,
        "winner": winner, "rng": rng,
    }


def load(**kwargs: Any) -> Any:
    """Parse :func:`pos` through the engine's notation parser (JSON text)."""
    return parse_position(json.dumps(pos(**kwargs)))


def unreachable(**kwargs: Any) -> Any:
    """:func:`load` for a position the rules can never reach, which the reader refuses
    (such as two colours on one ordinary square): built past the reader's checks, to show
    how the engine would still treat it."""
    from ludo.rules.courtyard import COLOUR_INDEX, parse_square

    data = pos(**kwargs)
    wanted = data["tokens"]
    data["tokens"] = {c: ["yard"] * len(v) for c, v in wanted.items()}
    state = parse_position(json.dumps(data))
    tokens = list(state.tokens)
    for colour, squares in wanted.items():
        tokens[COLOUR_INDEX[colour]] = tuple(parse_square(colour, s, colour) for s in squares)
    return state._replace(tokens=tuple(tokens))


def js(state: Any) -> dict[str, Any]:
    """The JSON notation of a state."""
    return position_to_json(state)


def toks(state: Any, colour: str) -> list[Any]:
    """A colour's tokens in notation form ("yard", 0..51, "red-lane-2", "home")."""
    return js(state)["tokens"].get(colour, [])


def play(state: Any, *actions: Action) -> tuple[Any, list[dict[str, Any]]]:
    """Apply several actions; returns the final state and all their events."""
    events: list[dict[str, Any]] = []
    for action in actions:
        state, evs = apply(state, action)
        events += evs
    return state, events


def kinds(events: list[dict[str, Any]]) -> list[str]:
    """The event types, in order."""
    return [e["type"] for e in events]


def of(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    """Events of one type."""
    return [e for e in events if e["type"] == kind]


def tokens_moving(state: Any) -> set[int]:
    """Token numbers with a legal move (state in the move phase)."""
    from ludo import legal_actions
    return {a.token for a in legal_actions(state) if a.type == "move"}


def assert_illegal(state: Any, action: Any, match: str) -> IllegalAction:
    """``action`` raises IllegalAction matching ``match`` and leaves ``state`` unchanged."""
    before_copy = copy.deepcopy(state)
    before_text = format_position(state)
    with pytest.raises(IllegalAction, match=match) as info:
        apply(state, action)
    assert state == before_copy
    assert format_position(state) == before_text
    assert "\n" not in str(info.value) and str(info.value)
    return info.value


# --- a naive reference of the movement rules (independent of the engine) ---

def ref_lane(colour: str, k: int) -> Any:
    """Lane square k (1..5) or home (6); None past home."""
    if k > 6:
        return None
    return "home" if k == 6 else f"{colour}-lane-{k}"


def ref_destination(colour: str, square: Any, die: int, unlocked: bool,
                    entry_values: tuple[int, ...]) -> Any:
    """Where ``colour``'s token at ``square`` (notation form) goes with ``die``; None if illegal."""
    if square == "yard":
        return START[colour] if die in entry_values else None
    if square == "home":
        return None
    if isinstance(square, str):  # "<colour>-lane-<k>"
        return ref_lane(colour, int(square.rsplit("-", 1)[1]) + die)
    travelled = (square - START[colour]) % 52  # 50 on the entrance, 51 just past it
    if unlocked and travelled <= 50 < travelled + die:
        return ref_lane(colour, travelled + die - 50)
    return (square + die) % 52


def entry_values(rules: str) -> tuple[int, ...]:
    return (6,) if rules == "classic" else (1, 6)


def ref_movable(data: dict[str, Any], die: int) -> set[int]:
    """Tokens of the player to act that may use ``die``, per the reference."""
    colour = data["turn"]
    return {
        t for t, sq in enumerate(data["tokens"][colour])
        if ref_destination(colour, sq, die, colour in data["unlocked"],
                           entry_values(data["rules"])) is not None
    }


def ref_after_move(data: dict[str, Any], token: int) -> tuple[dict[str, list[Any]], bool, bool]:
    """Tokens after the player to act moves ``token`` with ``data['die']``.

    Returns ``(tokens, captured_any, reached_home)``.
    """
    colour, die = data["turn"], data["die"]
    tokens = {c: list(v) for c, v in data["tokens"].items()}
    dest = ref_destination(colour, tokens[colour][token], die, colour in data["unlocked"],
                           entry_values(data["rules"]))
    assert dest is not None
    tokens[colour][token] = dest
    captured = False
    if isinstance(dest, int) and dest not in SAFE:
        for c, squares in tokens.items():
            if c != colour:
                for i, sq in enumerate(squares):
                    if sq == dest:
                        squares[i] = "yard"
                        captured = True
    return tokens, captured, dest == "home"
