"""Checks that must hold after every action; used by simulation and tests."""

from __future__ import annotations

from typing import Any

from .errors import LudoError
from .geometry import COLOURS, LANE_FIRST, SAFE_SQUARES
from .rules.base import Event

TOKENS_PER_SEAT = 4


def violations(before: Any, after: Any, events: list[Event]) -> list[str]:
    """Every broken invariant for one applied action (empty when all is well)."""
    # imported here: notation imports the engine, which is fine, but keeps
    # this module importable from anywhere without cycles
    from .notation import position_from_json, position_to_json

    found: list[str] = []
    for ci, colour in enumerate(COLOURS):
        tokens = after.tokens[ci]
        seated = colour in after.seats
        active = seated and after.out[ci] is None
        want = TOKENS_PER_SEAT if active else 0
        if len(tokens) != want:
            found.append(f"{colour} has {len(tokens)} tokens, expected {want}")
        if any(p >= LANE_FIRST for p in tokens) and colour not in after.unlocked:
            found.append(f"{colour} is in its home lane before the unlock")
    extra_rolls = sum(1 for e in events if e["type"] == "extra_roll")
    if extra_rolls > 1:
        found.append(f"{extra_rolls} extra rolls earned by one action")
    for e in events:
        if e["type"] == "captured" and e["square"] in SAFE_SQUARES:
            found.append(f"capture on safe square {e['square']}")
    if after.phase != "over" and after.out[COLOURS.index(after.turn)] is not None:
        found.append(f"the turn went to {after.turn}, who has left")
    try:
        if position_from_json(position_to_json(after)) != after:
            found.append("the position does not survive its notation round trip")
    except LudoError as exc:
        found.append(f"the position is inconsistent: {exc}")
    return found
