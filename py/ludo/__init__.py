"""Courtyard Ludo's rules engine: pure Python, standard library only.

It runs unchanged in CPython and in Pyodide; nothing here may import the
browser (``js``, ``pyodide``, ``pyscript``) -- a test enforces that.
"""

from .actions import Action, move, quit_seat, roll, timeout
from .engine import (
    RULESETS,
    active_seats,
    advance,
    apply,
    auto_action,
    default_seats,
    distinct_moves,
    is_over,
    legal_actions,
    new_game,
    next_player,
    resolve,
    rules_for,
)
from .errors import IllegalAction, LudoError, NotationError
from .geometry import COLOURS
from .notation import (
    Record,
    format_position,
    format_record,
    parse_position,
    parse_record,
    play,
    position_from_json,
    position_to_json,
    record_from_json,
    record_to_json,
    replay,
)

__all__ = [
    "COLOURS", "RULESETS", "Action", "IllegalAction", "LudoError", "NotationError", "Record",
    "default_seats",
    "active_seats", "advance", "apply", "auto_action", "distinct_moves", "format_position",
    "format_record", "is_over", "legal_actions", "move", "new_game", "next_player",
    "parse_position", "parse_record", "play", "position_from_json", "position_to_json",
    "quit_seat", "record_from_json", "record_to_json", "replay", "resolve", "roll",
    "rules_for", "timeout",
]
