"""The saved game: what localStorage holds, encoded with the engine's notation.

Pure Python (tested in CPython).  The record is the source of truth: loading
replays it, which re-checks every action, so a tampered or corrupted save is
reported instead of producing a position the rules could never reach.
"""

from __future__ import annotations

import json
from typing import Any

from ludo import Action, LudoError, Record, is_over, quote, record_from_json, record_to_json
from ludo.notation import load_json, replay_with_events
from net.protocol import clean_name

SAVE_FORMAT = "courtyard-ludo/save"
SAVE_VERSION = 2
"""Follows the record inside it: version 2 holds a version-2 record (PCG dice, scrambled seed).
A version-1 save is refused as "an incompatible version of the game": its seed may now pick
another starting seat and its position's dice generator differs, so it cannot be continued."""
PLAYER_KINDS = ("human", "easy", "medium", "hard", "remote")
MAX_SAVE_BYTES = 2_000_000  # a very long game's save is well under 200 KB
MAX_NAME_LENGTH = 40
MAX_DEADLINE_MS = 1e14  # epoch milliseconds: later than the year 5000 is damage, not a clock


class SaveError(Exception):
    """A save that cannot be used; the message is shown to the player."""


class Session:
    """A game at the table, with everything needed to carry on after a reload.

    A plain class rather than a dataclass: importing ``dataclasses`` (and with
    it ``inspect``) costs noticeable boot time in Pyodide.
    """

    __slots__ = ("record", "names", "players", "timer", "deadline", "screen")

    def __init__(self, record: Record, names: dict[str, str] | None = None,
                 players: dict[str, str] | None = None, timer: bool = True,
                 deadline: float | None = None, screen: str = "table") -> None:
        self.record = record
        self.names = names if names is not None else {}
        self.players = players if players is not None else {}  # colour -> kind
        self.timer = timer
        self.deadline = deadline  # epoch ms when the current roll's 30 s run out
        self.screen = screen  # where the player was: "table" or "home"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Session) and all(
            getattr(self, name) == getattr(other, name) for name in self.__slots__)

    def kind(self, colour: str) -> str:
        """"human", or the computer level playing ``colour``."""
        return self.players.get(colour, "human")


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


# The last record's actions and their texts: the next save is mostly this record with one
# more action, and then only the new action's text is made.
_saved: tuple[tuple[Action, ...], list[str]] = ((), [])


def _actions_text(actions: tuple[Action, ...]) -> str:
    global _saved
    done, texts = _saved
    if actions[:len(done)] != done:  # (a C loop, equal at once where the actions are the same)
        done, texts = (), []
    texts = texts + [_dumps(a.to_json()) for a in actions[len(done):]]
    _saved = (actions, texts)
    return "[" + ",".join(texts) + "]"


def encode(session: Session) -> str:
    """The save as JSON text.

    The text is exactly ``json.dumps`` of the save's object (compact separators), but put
    together from pieces: the game is saved after every action, and its record grows by one
    action each time, so each action's JSON is made once and kept, not the whole record's
    objects built and encoded again
    every move (in the browser 1 ms a move on average over a long game, more the longer it is).
    """
    record = record_to_json(session.record._replace(actions=()))
    actions = _actions_text(session.record.actions)
    record_text = "{" + ",".join(
        f"{_dumps(key)}:{actions if key == 'actions' else _dumps(value)}"
        for key, value in record.items()) + "}"
    head = _dumps({"format": SAVE_FORMAT, "version": SAVE_VERSION})
    tail = _dumps({
        "names": session.names,
        "players": session.players,
        "timer": session.timer,
        "deadline": session.deadline,
        "screen": session.screen,
    })
    return f'{head[:-1]},"record":{record_text},{tail[1:]}'


def check_deadline(deadline: Any) -> float | None:
    """A stored deadline (epoch ms) as a float; SaveError for anything a clock cannot hold."""
    if deadline is not None and not (
            isinstance(deadline, int | float) and not isinstance(deadline, bool)
            and 0 <= deadline <= MAX_DEADLINE_MS):  # false for NaN, infinities, huge ints
        raise SaveError("The save's turn clock is damaged.")
    return None if deadline is None else float(deadline)


def check_screen(screen: Any) -> str:
    if screen not in ("table", "home"):
        raise SaveError("The save's screen is damaged.")
    return str(screen)


def decode(text: str) -> tuple[Session, list[Any], list[list[dict[str, Any]]]]:
    """The session, every position of its game and each action's events.

    SaveError explains any problem.
    """
    if not isinstance(text, str):
        raise SaveError("The save is not readable (it is not a saved game's JSON).")
    try:
        data = load_json(text, "save", MAX_SAVE_BYTES)
    except LudoError as exc:
        if "nested too deeply" in str(exc):
            raise SaveError("The save is not readable (it is not a saved game's JSON).") from None
        # (the parser's own words would mean nothing to a player)
        raise SaveError("The save is not readable (it is not valid JSON).") from None
    if not isinstance(data, dict) or data.get("format") != SAVE_FORMAT:
        raise SaveError("The save is not a Courtyard Ludo game.")
    if data.get("version") != SAVE_VERSION:
        raise SaveError(f"The save comes from an incompatible version of the game (save "
                        f"version {quote(data.get('version'))}, this app reads {SAVE_VERSION}).")
    try:
        record = record_from_json(data.get("record"))
        states, events = replay_with_events(record)
    except LudoError as exc:
        raise SaveError(f"The saved moves do not make a valid game ({exc}).") from None
    extra = set(data) - {"format", "version", "record", "names", "players", "timer",
                         "deadline", "screen"}
    if extra:
        raise SaveError("The save has fields this app does not know.")
    names = data.get("names", {})
    players = data.get("players", {})
    if not isinstance(names, dict) or not all(
            c in record.seats and isinstance(n, str) and 0 < len(n) <= MAX_NAME_LENGTH
            for c, n in names.items()):
        raise SaveError("The save's player names are damaged.")
    # each name as the setup form and the network keep it (net.protocol.clean_name), which is
    # how the app wrote it: emoji sequences keep their zero-width joiners and a flag its tag
    # characters, which are not "printable" to Python (str.isprintable refused every save that
    # named a player 👩‍💻 or 🏳️‍🌈, and the game was lost at the next boot); a name written
    # otherwise (an older version, a hand) is read as that rule has it, not held against the
    # game
    names = {c: clean_name(n) for c, n in names.items() if clean_name(n)}
    if not isinstance(players, dict) or not all(
            c in record.seats and k in PLAYER_KINDS for c, k in players.items()):
        raise SaveError("The save's player types are damaged.")
    if "remote" in players.values() and not is_over(states[-1]):
        # an online seat has no one to play it on this device: such a game would never move
        # (only an online match that has ended is kept here, to be shown on Home)
        raise SaveError("The save's player types are damaged.")
    deadline = check_deadline(data.get("deadline"))
    timer = data.get("timer", True)
    if not isinstance(timer, bool):
        raise SaveError("The save's turn clock setting is damaged.")
    screen = check_screen(data.get("screen", "table"))
    session = Session(record=record, names=dict(names), players=dict(players), timer=timer,
                      deadline=deadline, screen=screen)
    return session, states, events


def record_file(record: Record, dice: Any = None, day: str = "") -> tuple[str, str]:
    """The file name and JSON text of a game's record for the player to download: the engine's
    notation, which ``python -m ludo replay`` reads (with the match's dice ledger as ``dice``,
    an online match's version-3 record, which ``verify`` checks die by die). ``day`` is the
    date (YYYY-MM-DD) put in the name."""
    data = record_to_json(record if dice is None else record._replace(dice=dice))
    name = "-".join(part for part in ("ludo", record.rules, day,
                                      f"{len(record.actions)}-actions") if part)
    return name + ".json", json.dumps(data, indent=1, ensure_ascii=False) + "\n"

