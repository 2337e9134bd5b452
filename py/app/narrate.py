"""Words for engine events: the move log and the screen-reader announcements.

Pure Python; the controller decides where the words go.
"""

from __future__ import annotations

from typing import Any

from ludo.geometry import HOME

from .view import describe_position


def name_of(colour: str, names: dict[str, str] | None = None) -> str:
    """A seat's display name: the player's name, or its colour."""
    if names and names.get(colour):
        return f"{names[colour]} ({colour})"
    return colour.capitalize()


def describe(event: dict[str, Any], names: dict[str, str] | None = None) -> str | None:
    """One sentence for an event, or None for events not worth a line."""
    kind = event["type"]
    who = name_of(event["seat"], names)
    if kind == "rolled":
        return f"{who} rolled a {event['value']}."
    if kind == "entered":
        return f"{who} brought token {event['token'] + 1} onto the start square."
    if kind == "moved":
        if event["to"] == HOME:
            return f"{who} moved token {event['token'] + 1} home."
        return (f"{who} moved token {event['token'] + 1} "
                f"{describe_position(event['seat'], event['to'])}.")
    if kind == "captured":
        victims = ", ".join(f"{name_of(c, names)} token {t + 1}" for c, t in event["victims"])
        return f"{who} captured {victims}: back to the yard."
    if kind == "unlocked":
        return f"{who}'s home lane is unlocked."
    if kind == "reached_home":
        return f"{who} got token {event['token'] + 1} home."
    if kind == "extra_roll":
        return f"{who} rolls again."
    if kind == "three_sixes":
        return f"Three sixes: {who}'s roll is discarded and the die passes."
    if kind == "no_move":
        return f"{who} has no legal move with a {event['value']}; the roll is skipped."
    if kind == "timeout":
        return f"{who} ran out of time (timeout {event['count']} of 5)."
    if kind == "eliminated":
        return f"{who} was eliminated after a fifth timeout; their tokens are removed."
    if kind == "quit":
        return f"{who} quit the game; their tokens are removed."
    if kind == "won":
        return f"{who} wins the game!"
    if kind == "turn":
        return f"{who}'s turn."
    return None


def describe_all(events: list[dict[str, Any]], names: dict[str, str] | None = None) -> list[str]:
    """Sentences for a list of events, skipping the silent ones."""
    return [text for e in events if (text := describe(e, names))]
