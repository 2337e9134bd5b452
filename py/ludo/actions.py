"""Actions: the only way a game position changes.

An action is plain data with a JSON form:

* ``{"type": "roll"}`` or ``{"type": "roll", "value": 4}`` -- a chance action.
  Without ``value`` the engine draws from the position's seeded RNG; with one
  (tests, replays, online dice) that value is used.  The RNG advances either
  way, so a position never depends on where its dice came from.
* ``{"type": "move", "token": 2}`` -- the player to act moves token 2 (0..3)
  by the die; for a token in the yard this is entering.
* ``{"type": "timeout"}`` -- the turn clock of the player to act ran out.
  Before the roll it rolls (optionally with ``value``) and plays; after the
  roll it plays with the die.
* ``{"type": "quit", "seat": "green"}`` -- a seat leaves the match for good.
"""

from __future__ import annotations

from typing import Any, NamedTuple, TypeGuard

from .errors import NotationError, quote

ACTION_TYPES = ("roll", "move", "timeout", "quit")


class Action(NamedTuple):
    """One action; unused fields are ``None``.

    ``tokens`` names several tokens moved as one unit (a rule set with stacks);
    ``value`` is a die value, or a rule set's own face name (``"crown"``).
    """

    type: str
    token: int | None = None
    value: int | str | None = None
    seat: str | None = None
    tokens: tuple[int, ...] | None = None

    def to_json(self) -> dict[str, Any]:
        """JSON form, leaving out fields that are not set."""
        out: dict[str, Any] = {"type": self.type}
        if self.token is not None:
            out["token"] = self.token
        if self.tokens is not None:
            out["tokens"] = list(self.tokens)
        if self.value is not None:
            out["value"] = self.value
        if self.seat is not None:
            out["seat"] = self.seat
        return out

    @staticmethod
    def from_json(data: Any, field: str = "action") -> Action:
        """Parse the JSON form of the Courtyard family's actions (see :func:`parse_action`)."""
        return parse_action(data, field)


def parse_action(data: Any, field: str = "action") -> Action:
    """Parse a roll, move, timeout or quit as the Courtyard family writes them.

    Other rule sets parse their own actions (``RuleSet.parse_action``) and may
    start from this one. Every error names ``field``.
    """
    if not isinstance(data, dict):
        raise NotationError(field, "must be an object like {\"type\": \"roll\"}")
    kind = data.get("type")
    if kind not in ACTION_TYPES:
        raise NotationError(f"{field}.type", f"must be one of {', '.join(ACTION_TYPES)}")
    unknown = set(data) - {"type", "token", "value", "seat"}
    if unknown:
        raise NotationError(field, f"unknown field(s) {', '.join(sorted(map(quote, unknown)))}")
    refuse_nulls(data, field)
    token = data.get("token")
    value = data.get("value")
    seat = data.get("seat")
    if kind == "move":
        if not _is_int(token) or not 0 <= token <= 3:
            raise NotationError(f"{field}.token", "must be a token number 0..3")
    elif token is not None:
        raise NotationError(f"{field}.token", f"is not used by a {kind} action")
    if kind in ("roll", "timeout"):
        if value is not None and (not _is_int(value) or not 1 <= value <= 6):
            raise NotationError(f"{field}.value", "must be a die value 1..6")
    elif value is not None:
        raise NotationError(f"{field}.value", f"is not used by a {kind} action")
    if kind == "quit":
        if not isinstance(seat, str):
            raise NotationError(f"{field}.seat", "must name the colour that quits")
    elif seat is not None:
        raise NotationError(f"{field}.seat", f"is not used by a {kind} action")
    return Action(kind, token, value, seat)


def refuse_nulls(data: dict[str, Any], field: str) -> None:
    """Refuse a field given as null, in every rule set alike: a field has a value or is left
    out (docs/notation.md). Taking null as left out let ``"seat": null`` through a roll in
    three rule sets while Gilgiti refused it, and took Gilgiti's ``"tokens": null`` as absent."""
    for name, value in data.items():
        if value is None:
            raise NotationError(f"{field}.{name}", "is null; leave the field out instead")


def _is_int(x: Any) -> TypeGuard[int]:
    return isinstance(x, int) and not isinstance(x, bool)


def roll(value: int | None = None) -> Action:
    """A die roll; ``value`` None means "draw from the position's RNG"."""
    return Action("roll", value=value)


def move(token: int) -> Action:
    """Move (or enter) token ``token`` of the player to act."""
    return Action("move", token=token)


def timeout(value: int | None = None) -> Action:
    """The turn clock ran out for the player to act."""
    return Action("timeout", value=value)


def quit_seat(seat: str) -> Action:
    """``seat`` leaves the match permanently."""
    return Action("quit", seat=seat)
