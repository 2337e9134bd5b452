"""Courtyard Ludo's rules engine: pure Python, standard library only.

It runs unchanged in CPython and in Pyodide; nothing here may import the
browser (``js``, ``pyodide``, ``pyscript``) -- a test enforces that.
"""

from .actions import Action, move, parse_action, quit_seat, roll, timeout
from .engine import (
    RULESETS,
    active_seats,
    advance,
    apply,
    auto_action,
    board,
    chance_outcomes,
    choices,
    default_seats,
    describe,
    distinct_moves,
    is_chance,
    is_over,
    legal_actions,
    new_game,
    next_player,
    resolve,
    rules_for,
    scene,
    seats_of,
    to_act,
    winners,
)
from .errors import IllegalAction, LudoError, NotationError, quote
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
from .rules.base import Choice, Scene, join_words, name_of

__all__ = [
    "COLOURS", "RULESETS", "Action", "Choice", "IllegalAction", "LudoError", "NotationError",
    "Record", "Scene", "default_seats",
    "active_seats", "advance", "apply", "auto_action", "board", "chance_outcomes", "choices",
    "describe", "distinct_moves", "format_position", "format_record", "is_chance", "is_over",
    "join_words", "legal_actions", "move", "name_of", "new_game", "next_player", "parse_action",
    "parse_position", "parse_record", "play", "position_from_json", "position_to_json",
    "quit_seat", "quote", "record_from_json", "record_to_json", "replay", "resolve", "roll",
    "rules_for", "scene", "seats_of", "timeout", "to_act", "winners",
]
